/**
 * `dumpsys package <package>`: the `Packages:` block of the package (versions, SDK levels, paths,
 * install times, installer, flags, permissions with their grant state, per-user state) and its
 * launcher activity from the Activity Resolver Table. Pure.
 */

/** Permissions kept per list. */
const MAX_PACKAGE_PERMISSIONS = 500;
/** Users kept. */
const MAX_PACKAGE_USERS = 16;
/** A single value is cut to this many characters. */
const MAX_PACKAGE_VALUE_CHARS = 1_000;

interface PermissionState {
  name: string;
  granted: boolean | null;
  flags: string[];
}

interface PackageUserState {
  user: number;
  installed: boolean | null;
  stopped: boolean | null;
  enabled: number | null;
  runtime_permissions: PermissionState[];
}

export interface PackageInfo {
  package: string;
  found: boolean;
  uid: number | null;
  version_code: number | null;
  version_name: string | null;
  min_sdk: number | null;
  target_sdk: number | null;
  code_path: string | null;
  data_dir: string | null;
  primary_cpu_abi: string | null;
  first_install_time: string | null;
  last_update_time: string | null;
  installer: string | null;
  flags: string[];
  private_flags: string[];
  debuggable: boolean;
  splits: string[];
  requested_permissions: string[];
  install_permissions: PermissionState[];
  users: PackageUserState[];
  /** `pkg/.MainActivity` of the MAIN + LAUNCHER filter, or `null`. */
  launcher_activity: string | null;
}

const cut = (s: string) => s.slice(0, MAX_PACKAGE_VALUE_CHARS);

function nullable(v: string | undefined): string | null {
  return v === undefined || v === "" || v === "null" ? null : cut(v);
}

function intOrNull(v: string | undefined): number | null {
  if (v === undefined || !/^-?\d+$/.test(v)) return null;
  return Number(v);
}

function bracketList(v: string | undefined): string[] {
  if (v === undefined) return [];
  const m = /^\[(.*)\]$/.exec(v.trim());
  const inner = m === null ? v : m[1];
  return inner.split(/[\s,]+/).filter((x) => x !== "").slice(0, MAX_PACKAGE_PERMISSIONS);
}

/** `name: granted=true, flags=[ USER_SET|… ]` or `name: granted=true`. */
function permissionLine(line: string): PermissionState | null {
  const m = /^\s*([A-Za-z0-9_.]+): granted=(true|false)(?:, flags=\[\s*(.*?)\s*\])?\s*$/.exec(line);
  if (m === null) return null;
  return {
    name: m[1],
    granted: m[2] === "true",
    flags: m[3] ? m[3].split("|").filter((x) => x !== "").slice(0, 32) : [],
  };
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** The launcher activity from the resolver table: a MAIN filter with a LAUNCHER category. */
export function findLauncherActivity(text: string, pkg: string): string | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => /^Activity Resolver Table:/.test(l));
  if (start < 0) return null;
  let component: string | null = null;
  let isMain = false;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (/^\S/.test(line)) break; // the next top-level table
    const entry = /^\s+[0-9a-f]+ (\S+\/\S+)(?: filter [0-9a-f]+)?\s*$/.exec(line);
    if (entry !== null) {
      component = entry[1].startsWith(`${pkg}/`) ? entry[1] : null;
      isMain = false;
      continue;
    }
    if (component === null) continue;
    if (/^\s+Action: "android\.intent\.action\.MAIN"/.test(line)) isMain = true;
    if (isMain && /^\s+Category: "android\.intent\.category\.LAUNCHER"/.test(line)) {
      return component;
    }
  }
  return null;
}

/** Parses `dumpsys package <pkg>`; `found: false` when the dump has no block for it. Pure. */
// deno-lint-ignore house/long-function -- one pass; a list header changes how lines after it read
export function parseDumpsysPackage(text: string, pkg: string): PackageInfo {
  const info = emptyPackageInfo(pkg);
  const src = text.replace(/^\uFEFF/, "");
  const lines = src.split(/\r?\n/);
  const head = lines.findIndex((l) => l.trim().startsWith(`Package [${pkg}]`));
  if (head < 0) return info;
  info.found = true;
  const baseIndent = indentOf(lines[head]);
  const values: Record<string, string> = {};
  let list: "requested" | "install" | "runtime" | "other" | null = null;
  let listIndent = 0;
  let user: PackageUserState | null = null;
  for (let i = head + 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") {
      if (i + 1 < lines.length && indentOf(lines[i + 1]) <= baseIndent) break;
      continue;
    }
    const indent = indentOf(line);
    if (indent <= baseIndent) break;
    const t = line.trim();
    const isPermissionHeader = /^(requested|install|runtime) permissions:$/.test(t);
    if (list !== null && indent > listIndent && !isPermissionHeader) {
      if (list === "requested") {
        const name = /^([A-Za-z0-9_.]+)/.exec(t);
        if (name && info.requested_permissions.length < MAX_PACKAGE_PERMISSIONS) {
          info.requested_permissions.push(name[1]);
        }
      } else if (list === "install" || list === "runtime") {
        const p = permissionLine(t);
        if (p !== null) {
          const target = list === "install" ? info.install_permissions : user?.runtime_permissions;
          if (target && target.length < MAX_PACKAGE_PERMISSIONS) target.push(p);
        }
      }
      continue;
    }
    list = null;
    const u = /^User (\d+): (.*)$/.exec(t);
    if (u !== null) {
      const kv = Object.fromEntries(
        [...u[2].matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]),
      );
      user = {
        user: Number(u[1]),
        installed: kv.installed === undefined ? null : kv.installed === "true",
        stopped: kv.stopped === undefined ? null : kv.stopped === "true",
        enabled: intOrNull(kv.enabled),
        runtime_permissions: [],
      };
      if (info.users.length < MAX_PACKAGE_USERS) info.users.push(user);
      continue;
    }
    const header = /^(requested permissions|install permissions|runtime permissions|[\w ]+):$/
      .exec(t);
    if (header !== null) {
      list = header[1] === "requested permissions"
        ? "requested"
        : header[1] === "install permissions"
        ? "install"
        : header[1] === "runtime permissions"
        ? "runtime"
        : "other";
      listIndent = indent;
      continue;
    }
    // `versionCode=1 minSdk=24 targetSdk=36` holds several pairs; `flags=[ A B ]` one list.
    if (/^\w+=\[/.test(t)) {
      const eq = t.indexOf("=");
      values[t.slice(0, eq)] ??= t.slice(eq + 1);
      continue;
    }
    if (/^\w+=/.test(t) && !/\s\w+=/.test(t)) {
      const eq = t.indexOf("=");
      values[t.slice(0, eq)] ??= t.slice(eq + 1);
      continue;
    }
    for (const m of t.matchAll(/(?:^|\s)(\w+)=(\S+)/g)) values[m[1]] ??= m[2];
  }
  fillFromValues(info, values);
  info.launcher_activity = findLauncherActivity(src, pkg);
  return info;
}

/** A package's answer before its block is read: found nowhere, nothing known. */
function emptyPackageInfo(pkg: string): PackageInfo {
  return {
    package: pkg,
    found: false,
    uid: null,
    version_code: null,
    version_name: null,
    min_sdk: null,
    target_sdk: null,
    code_path: null,
    data_dir: null,
    primary_cpu_abi: null,
    first_install_time: null,
    last_update_time: null,
    installer: null,
    flags: [],
    private_flags: [],
    debuggable: false,
    splits: [],
    requested_permissions: [],
    install_permissions: [],
    users: [],
    launcher_activity: null,
  };
}

/** The `key=value` pairs the block's lines held, as the answer's fields. */
function fillFromValues(info: PackageInfo, values: Record<string, string>): void {
  info.uid = intOrNull(values.userId) ?? intOrNull(values.appId);
  info.version_code = intOrNull(values.versionCode);
  info.version_name = nullable(values.versionName);
  info.min_sdk = intOrNull(values.minSdk);
  info.target_sdk = intOrNull(values.targetSdk);
  info.code_path = nullable(values.codePath);
  info.data_dir = nullable(values.dataDir);
  info.primary_cpu_abi = nullable(values.primaryCpuAbi);
  info.first_install_time = nullable(values.firstInstallTime);
  info.last_update_time = nullable(values.lastUpdateTime);
  info.installer = nullable(values.installerPackageName) ??
    nullable(/installerPackageName=(\S+)/.exec(values.installerPackageUid ?? "")?.[1]);
  info.flags = bracketList(values.flags ?? values.pkgFlags);
  info.private_flags = bracketList(values.privateFlags);
  info.debuggable = info.flags.includes("DEBUGGABLE");
  info.splits = bracketList(values.splits);
}

/** A short text rendering for the model. Pure. */
export function renderPackageInfo(p: PackageInfo): string {
  if (!p.found) {
    return `${p.package} is not installed on this device: check the package name (pm list ` +
      "packages) or install the app (install_apk)";
  }
  const granted = (ps: PermissionState[]) => ps.filter((x) => x.granted).map((x) => x.name);
  const denied = (ps: PermissionState[]) =>
    ps.filter((x) => x.granted === false).map((x) => x.name);
  const runtime = p.users[0]?.runtime_permissions ?? [];
  const lines = [
    `${p.package} ${p.version_name ?? "?"} (versionCode ${p.version_code ?? "?"}), uid ${
      p.uid ?? "?"
    }, minSdk ${p.min_sdk ?? "?"}, targetSdk ${p.target_sdk ?? "?"}${
      p.debuggable ? ", debuggable" : ""
    }`,
    `Installed ${p.first_install_time ?? "?"}, updated ${p.last_update_time ?? "?"}, installer ${
      p.installer ?? "unknown"
    }`,
    `Launcher activity: ${p.launcher_activity ?? "none found"}`,
    `Code ${p.code_path ?? "?"}, data ${p.data_dir ?? "?"}`,
    `Requested permissions: ${p.requested_permissions.length}`,
    `Runtime permissions granted: ${granted(runtime).join(", ") || "none"}`,
  ];
  const notGranted = denied(runtime);
  if (notGranted.length > 0) {
    lines.push(`Runtime permissions not granted: ${notGranted.join(", ")}`);
  }
  for (const u of p.users) {
    lines.push(
      `User ${u.user}: installed ${u.installed ?? "?"}, stopped ${u.stopped ?? "?"}`,
    );
  }
  return lines.join("\n");
}
