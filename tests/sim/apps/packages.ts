/**
 * The package manager's model of a simulated device: packages with their APK, activities, intent
 * filters and permissions; the packages every device ships with; permission kinds. Pure.
 */
import type { ActivityInfo, ApkInfo, IntentFilter } from "./apk.ts";

export type { ActivityInfo, IntentFilter };

export interface PermissionState {
  /** Runtime (dangerous) permissions can be granted and revoked; install ones cannot. */
  runtime: boolean;
  granted: boolean;
}

export interface AppPackage {
  name: string;
  uid: number;
  versionCode: number;
  versionName: string;
  minSdk: number;
  targetSdk: number;
  system: boolean;
  /** The folder of the APK (`codePath=`). */
  codePath: string;
  apkPath: string;
  firstInstallTime: number;
  lastUpdateTime: number;
  activities: ActivityInfo[];
  /** Requested permissions in manifest order, with their state. */
  permissions: Map<string, PermissionState>;
  installer: string | null;
  /** Process name when it runs (usually the package name). */
  processName: string;
  debuggable: boolean;
  /** What is broken in the installed build's app (from its APK; the sample app reads it). */
  defects?: string[];
}

/** Dangerous permissions (runtime); the API level they appeared in. */
export const RUNTIME_PERMISSIONS: Readonly<Record<string, number>> = {
  "android.permission.CAMERA": 23,
  "android.permission.RECORD_AUDIO": 23,
  "android.permission.ACCESS_FINE_LOCATION": 23,
  "android.permission.ACCESS_COARSE_LOCATION": 23,
  "android.permission.ACCESS_BACKGROUND_LOCATION": 29,
  "android.permission.READ_CONTACTS": 23,
  "android.permission.WRITE_CONTACTS": 23,
  "android.permission.READ_CALENDAR": 23,
  "android.permission.CALL_PHONE": 23,
  "android.permission.READ_PHONE_STATE": 23,
  "android.permission.READ_EXTERNAL_STORAGE": 23,
  "android.permission.BLUETOOTH_CONNECT": 31,
  "android.permission.BLUETOOTH_SCAN": 31,
  "android.permission.POST_NOTIFICATIONS": 33,
  "android.permission.READ_MEDIA_IMAGES": 33,
};

/** Normal / signature permissions the simulator knows (granted at install, not changeable). */
export const INSTALL_PERMISSIONS: readonly string[] = [
  "android.permission.INTERNET",
  "android.permission.ACCESS_NETWORK_STATE",
  "android.permission.ACCESS_WIFI_STATE",
  "android.permission.WAKE_LOCK",
  "android.permission.VIBRATE",
  "android.permission.FOREGROUND_SERVICE",
  "android.permission.RECEIVE_BOOT_COMPLETED",
  "android.permission.WRITE_SECURE_SETTINGS",
];

export function isKnownPermission(name: string, api: number): boolean {
  const since = RUNTIME_PERMISSIONS[name];
  return (since !== undefined && since <= api) || INSTALL_PERMISSIONS.includes(name);
}

export function isRuntimePermission(name: string, api: number): boolean {
  const since = RUNTIME_PERMISSIONS[name];
  return since !== undefined && since <= api;
}

/** What an installed app requests when its manifest lists no `uses-permission`. */
export function defaultRequested(api: number): string[] {
  const out = [
    "android.permission.INTERNET",
    "android.permission.ACCESS_NETWORK_STATE",
    "android.permission.CAMERA",
    "android.permission.ACCESS_FINE_LOCATION",
    "android.permission.ACCESS_COARSE_LOCATION",
  ];
  if (api >= 33) out.push("android.permission.POST_NOTIFICATIONS");
  return out;
}

/** The deep-link host and custom scheme every simulated app answers. */
export const DEEP_LINK_HOST = "keynobi.example";
export const DEEP_LINK_SCHEME = "keynobisample";

const MAIN = "android.intent.action.MAIN";
const VIEW = "android.intent.action.VIEW";
const LAUNCHER = "android.intent.category.LAUNCHER";
const DEFAULT = "android.intent.category.DEFAULT";
const BROWSABLE = "android.intent.category.BROWSABLE";

function filter(f: Partial<IntentFilter>): IntentFilter {
  return {
    actions: f.actions ?? [],
    categories: f.categories ?? [],
    schemes: f.schemes ?? [],
    hosts: f.hosts ?? [],
    pathPrefixes: f.pathPrefixes ?? [],
  };
}

export const LAUNCHER_FILTER = filter({ actions: [MAIN], categories: [LAUNCHER] });
export const DEEP_LINK_FILTERS: readonly IntentFilter[] = [
  filter({
    actions: [VIEW],
    categories: [DEFAULT, BROWSABLE],
    schemes: ["https"],
    hosts: [DEEP_LINK_HOST],
  }),
  filter({ actions: [VIEW], categories: [DEFAULT, BROWSABLE], schemes: [DEEP_LINK_SCHEME] }),
];

/** `~~<22 chars>==`: base64url of 16 random bytes, as the package manager names APK folders. */
export function randomToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...b)).replaceAll("+", "-").replaceAll("/", "_");
}

export function dataAppDir(pkg: string): string {
  return `/data/app/~~${randomToken()}/${pkg}-${randomToken()}`;
}

/**
 * Activities of an installed APK: the manifest's, with a MAIN/LAUNCHER filter and the simulator's
 * deep-link filters added to the first activity when the manifest declares no filters at all
 * (the fake Gradle's manifests carry only the activity name).
 */
export function activitiesFromApk(info: ApkInfo): ActivityInfo[] {
  const acts = info.activities.map((a) => ({ ...a, filters: [...a.filters] }));
  if (acts.length && acts.every((a) => a.filters.length === 0)) {
    acts[0].exported = true;
    acts[0].filters.push(LAUNCHER_FILTER, ...DEEP_LINK_FILTERS);
  }
  return acts;
}

interface SystemApp {
  name: string;
  uid: number;
  path: string;
  versionCode: number;
  versionName: string;
  updated?: boolean;
  activities: ActivityInfo[];
  permissions: string[];
  processName?: string;
}

function act(name: string, filters: IntentFilter[], exported = true): ActivityInfo {
  return { name, exported, filters };
}

export interface LauncherApp {
  pkg: string;
  activity: string;
}

export function launcherFor(manufacturer: string): LauncherApp {
  return manufacturer.toLowerCase() === "samsung"
    ? {
      pkg: "com.sec.android.app.launcher",
      activity: "com.sec.android.app.launcher.activities.LauncherActivity",
    }
    : {
      pkg: "com.google.android.apps.nexuslauncher",
      activity: "com.google.android.apps.nexuslauncher.NexusLauncherActivity",
    };
}

/** The packages a device ships with (system image plus updated Chrome and Play services). */
export function systemApps(api: number, manufacturer: string): SystemApp[] {
  const launcher = launcherFor(manufacturer);
  const home = filter({
    actions: [MAIN],
    categories: ["android.intent.category.HOME", DEFAULT],
  });
  return [
    {
      name: "android",
      uid: 1000,
      path: "/system/framework/framework-res.apk",
      versionCode: api,
      versionName: String(api),
      activities: [],
      permissions: [],
      processName: "system",
    },
    {
      name: "com.android.shell",
      uid: 2000,
      path: "/system/priv-app/Shell/Shell.apk",
      versionCode: api,
      versionName: String(api),
      activities: [],
      permissions: ["android.permission.INTERNET", "android.permission.WRITE_SECURE_SETTINGS"],
    },
    {
      name: "com.android.settings",
      uid: 1000,
      path: "/system_ext/priv-app/Settings/Settings.apk",
      versionCode: api,
      versionName: String(api),
      activities: [
        act("com.android.settings.Settings", [
          LAUNCHER_FILTER,
          filter({ actions: ["android.settings.SETTINGS"], categories: [DEFAULT] }),
        ]),
        act("com.android.settings.Settings$WifiSettingsActivity", [
          filter({ actions: ["android.settings.WIFI_SETTINGS"], categories: [DEFAULT] }),
        ]),
        act("com.android.settings.applications.InstalledAppDetails", [
          filter({
            actions: ["android.settings.APPLICATION_DETAILS_SETTINGS"],
            categories: [DEFAULT],
            schemes: ["package"],
          }),
        ]),
      ],
      permissions: ["android.permission.WRITE_SECURE_SETTINGS"],
    },
    {
      name: "com.android.systemui",
      uid: 10146,
      path: "/system_ext/priv-app/SystemUI/SystemUI.apk",
      versionCode: api,
      versionName: String(api),
      activities: [],
      permissions: ["android.permission.INTERNET"],
    },
    {
      name: launcher.pkg,
      uid: 10158,
      path: `/system_ext/priv-app/${launcher.pkg.split(".").pop()}/Launcher.apk`,
      versionCode: api,
      versionName: String(api),
      activities: [act(launcher.activity, [home])],
      permissions: ["android.permission.VIBRATE"],
    },
    {
      name: "com.android.chrome",
      uid: 10133,
      path: "",
      updated: true,
      versionCode: 651416733,
      versionName: "128.0.6613.146",
      activities: [
        act("com.google.android.apps.chrome.Main", [
          LAUNCHER_FILTER,
          filter({
            actions: [VIEW],
            categories: [DEFAULT, BROWSABLE],
            schemes: ["http", "https"],
          }),
        ]),
      ],
      permissions: [
        "android.permission.INTERNET",
        "android.permission.ACCESS_NETWORK_STATE",
        "android.permission.CAMERA",
        "android.permission.RECORD_AUDIO",
        "android.permission.ACCESS_FINE_LOCATION",
      ],
    },
    {
      name: "com.google.android.gms",
      uid: 10128,
      path: "",
      updated: true,
      versionCode: 243731038,
      versionName: "24.37.31 (190400-674455284)",
      activities: [],
      permissions: [
        "android.permission.INTERNET",
        "android.permission.ACCESS_FINE_LOCATION",
        "android.permission.ACCESS_COARSE_LOCATION",
        "android.permission.WAKE_LOCK",
      ],
      processName: "com.google.android.gms.persistent",
    },
  ];
}

/** Builds the package records of `systemApps` (granted runtime permissions, fixed times). */
export function systemPackages(api: number, manufacturer: string, buildTime: number): AppPackage[] {
  return systemApps(api, manufacturer).map((s) => {
    const dir = s.updated ? dataAppDir(s.name) : s.path.slice(0, s.path.lastIndexOf("/"));
    const permissions = new Map<string, PermissionState>();
    for (const p of s.permissions) {
      permissions.set(p, { runtime: isRuntimePermission(p, api), granted: true });
    }
    return {
      name: s.name,
      uid: s.uid,
      versionCode: s.versionCode,
      versionName: s.versionName,
      minSdk: Math.min(api, 24),
      targetSdk: api,
      system: true,
      codePath: dir,
      apkPath: s.updated ? `${dir}/base.apk` : s.path,
      firstInstallTime: buildTime,
      lastUpdateTime: s.updated ? buildTime + 86_400_000 * 30 : buildTime,
      activities: s.activities,
      permissions,
      installer: s.updated ? "com.android.vending" : null,
      processName: s.processName ?? s.name,
      debuggable: false,
    };
  });
}

/** `ComponentName.flattenToShortString`: `.Rest` when the class is inside the package. */
export function shortComponent(pkg: string, cls: string): string {
  return `${pkg}/${cls.startsWith(pkg + ".") ? cls.slice(pkg.length) : cls}`;
}

/** `UserHandle.formatUid`: `u0a190` for app ids ≥ 10000, else the number. */
export function formatUid(uid: number): string {
  const appId = uid % 100000;
  return appId >= 10000 ? `u0a${appId - 10000}` : String(appId);
}

/** The `ps` user name of a uid: `u0_a190`, `system`, `shell`, `root`. */
export function userName(uid: number): string {
  const names: Record<number, string> = {
    0: "root",
    1000: "system",
    1001: "radio",
    1036: "logd",
    2000: "shell",
  };
  if (names[uid] !== undefined) return names[uid];
  const appId = uid % 100000;
  return appId >= 10000 ? `u0_a${appId - 10000}` : String(uid);
}
