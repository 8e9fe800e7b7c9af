/**
 * The apps installed on a device and the one in front, for `list_apps`: `pm list packages` (with
 * `-3` or `-s` and `--show-versioncode`), the launcher activities from `cmd package
 * query-activities --components` (one `pkg/.Activity` line per match, PackageManagerShellCommand's
 * `printResolveInfo` with components), and the resumed activity from `dumpsys activity
 * activities`. Every argument is a fixed argv element; nothing here is built from a caller's text.
 */
import type { CallOptions, DeviceShell } from "../adb/client.ts";
import { runText } from "./device_command.ts";
import { APP_COMMAND_TIMEOUT_MS } from "./launch.ts";
import { packageOfComponent, parseCurrentFocus, parseResumedActivity } from "./runtime_state.ts";

/** Output kept from one listing: a phone with 600 packages lists ~40 KB. */
const MAX_LIST_BYTES = 2 * 1024 * 1024;
/** Apps returned when the caller does not say (`limit`), and the most it may ask for. */
export const DEFAULT_APP_LIMIT = 100;
export const MAX_APP_LIMIT = 1_000;

const LAUNCHER_QUERY = [
  "cmd",
  "package",
  "query-activities",
  "--components",
  "-a",
  "android.intent.action.MAIN",
  "-c",
  "android.intent.category.LAUNCHER",
];

interface ListedPackage {
  package: string;
  version_code: number | null;
}

/** `pm list packages [--show-versioncode]` lines: `package:<name>[ versionCode:<n>]`. */
export function parsePackageList(text: string): ListedPackage[] {
  const out: ListedPackage[] = [];
  for (const m of text.matchAll(/^package:([A-Za-z0-9_.]+)(?: versionCode:(\d+))?[^\S\n]*$/gm)) {
    out.push({ package: m[1], version_code: m[2] === undefined ? null : Number(m[2]) });
  }
  return out;
}

/**
 * Launcher activities by package from `query-activities --components` output, or `null` when
 * the device could not answer (no `cmd package` before Android 7, an exception): then which app
 * is launchable is unknown, never "none is".
 */
export function parseLauncherActivities(
  text: string,
  code: number | null,
): Map<string, string> | null {
  if (code !== null && code !== 0) return null;
  const trimmed = text.trim();
  const out = new Map<string, string>();
  if (trimmed === "No activities found") return out;
  for (const line of trimmed.split(/\r?\n/)) {
    const m = /^([A-Za-z0-9_.]+)\/([A-Za-z0-9_.$]+)$/.exec(line.trim());
    if (!m) {
      if (line.trim() === "") continue;
      return null;
    }
    const activity = m[2].startsWith(".") ? m[1] + m[2] : m[2];
    if (!out.has(m[1])) out.set(m[1], activity);
  }
  return out;
}

export interface InstalledApp {
  package: string;
  version_code: number | null;
  system: boolean;
  /** `null` when the device could not say which apps have a launcher activity. */
  launchable: boolean | null;
  launcher_activity: string | null;
}

interface Foreground {
  package: string | null;
  activity: string | null;
}

interface AppListing {
  apps: InstalledApp[];
  /** Whether launcher activities were read (`cmd package query-activities`). */
  launchers_known: boolean;
  foreground: Foreground;
}

interface AppListRequest {
  /** System apps too, not only the ones the user installed. */
  system: boolean;
}

/** Reads the device's apps (third-party, and system ones when asked) and the foreground app. */
export async function readAppListing(
  adb: DeviceShell,
  serial: string,
  request: AppListRequest,
  opts: CallOptions,
): Promise<AppListing> {
  const o: CallOptions = {
    ...opts,
    timeoutMs: APP_COMMAND_TIMEOUT_MS,
    maxOutputBytes: MAX_LIST_BYTES,
  };
  const [third, system, launchers, activities] = await Promise.all([
    runText(adb, serial, ["pm", "list", "packages", "-3", "--show-versioncode"], o),
    request.system
      ? runText(adb, serial, ["pm", "list", "packages", "-s", "--show-versioncode"], o)
      : Promise.resolve(null),
    runText(adb, serial, LAUNCHER_QUERY, o),
    runText(adb, serial, ["dumpsys", "activity", "activities"], o),
  ]);
  const launcherOf = parseLauncherActivities(launchers.text, launchers.code);
  const app = (p: ListedPackage, isSystem: boolean): InstalledApp => {
    const activity = launcherOf?.get(p.package) ?? null;
    return {
      package: p.package,
      version_code: p.version_code,
      system: isSystem,
      launchable: launcherOf === null ? null : activity !== null,
      launcher_activity: activity,
    };
  };
  const apps = [
    ...parsePackageList(third.text).map((p) => app(p, false)),
    ...(system ? parsePackageList(system.text).map((p) => app(p, true)) : []),
  ].sort((a, b) => a.package < b.package ? -1 : a.package > b.package ? 1 : 0);
  let activity = parseResumedActivity(activities.text);
  if (activity === null) {
    const windows = await runText(adb, serial, ["dumpsys", "window"], o);
    activity = parseCurrentFocus(windows.text);
  }
  return {
    apps,
    launchers_known: launcherOf !== null,
    foreground: { package: packageOfComponent(activity), activity },
  };
}
