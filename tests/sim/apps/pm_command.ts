/**
 * `pm` and `cmd package`: list, path, install (from a file or `-S` stdin), uninstall, clear,
 * grant/revoke of runtime permissions, dump and resolve-activity, with the real output lines,
 * exception texts and exit codes.
 */
import type { ShIo } from "../sh_exec.ts";
import { MAX_INSTALL_BYTES } from "./constants.ts";
import { ExitReason, packageText } from "./dumpsys.ts";
import { EXCEPTION_HEAD, parseIntent } from "./intents.ts";
import { isKnownPermission, isRuntimePermission, shortComponent } from "./packages.ts";
import type { AppsService } from "./service.ts";

const enc = new TextEncoder();

export async function pmCommand(
  apps: AppsService,
  args: string[],
  io: ShIo,
  via: "pm" | "cmd",
): Promise<number | null> {
  const [sub, ...rest] = args;
  const out = (s: string) => io.out(enc.encode(s));
  switch (sub) {
    case "list":
      if (rest[0] === "packages") return listPackages(apps, rest.slice(1), io);
      io.err(enc.encode(`Error: unknown list type '${rest[0] ?? ""}'\n`));
      return 255;
    case "path": {
      const p = apps.packages.get(rest.filter((a) => !a.startsWith("-")).at(-1) ?? "");
      if (!p) return 1;
      out(`package:${p.apkPath}\n`);
      return 0;
    }
    case "install":
      return await installCmd(apps, rest, io, via);
    case "uninstall": {
      const pkg = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
      const p = apps.packages.get(pkg);
      if (!p || p.system) {
        out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n");
        return 1;
      }
      apps.kill(pkg, {
        reason: ExitReason.userRequested,
        description: "stop due to uninstall",
        logReason: `stop ${pkg} due to uninstall pkg`,
      });
      apps.packages.delete(pkg);
      apps.device.files.delete(p.apkPath);
      out("Success\n");
      return 0;
    }
    case "clear": {
      const pkg = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
      const p = apps.packages.get(pkg);
      if (!p) {
        out("Failed\n");
        return 1;
      }
      apps.kill(pkg, {
        reason: ExitReason.userRequested,
        description: "clear data",
        logReason: `clear data`,
      });
      for (const s of p.permissions.values()) if (s.runtime) s.granted = false;
      out("Success\n");
      return 0;
    }
    case "grant":
    case "revoke":
      return grantRevoke(apps, sub, rest.filter((a) => a !== "--user" && a !== "0"), io);
    case "dump": {
      const p = apps.packages.get(rest[0] ?? "");
      if (p) out(packageText(p, apps.device.api));
      return 0;
    }
    case "resolve-activity":
      return resolveActivity(apps, rest, io);
    case "query-activities":
      return queryActivities(apps, rest, io);
  }
  return null;
}

function listPackages(apps: AppsService, args: string[], io: ShIo): number {
  let files = false, third = false, sys = false, uid = false, versions = false;
  let filter = "";
  for (const a of args) {
    if (a === "-f") files = true;
    else if (a === "-3") third = true;
    else if (a === "-s") sys = true;
    else if (a === "-U") uid = true;
    else if (a === "--show-versioncode") versions = true;
    else if (a === "--user") continue;
    else if (a.startsWith("-")) continue;
    else if (a !== "0") filter = a;
  }
  let out = "";
  for (const p of [...apps.packages.values()].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (third && p.system) continue;
    if (sys && !p.system) continue;
    if (filter && !p.name.includes(filter)) continue;
    out += "package:" + (files ? `${p.apkPath}=` : "") + p.name +
      (versions ? ` versionCode:${p.versionCode}` : "") + (uid ? ` uid:${p.uid}` : "") + "\n";
  }
  io.out(enc.encode(out));
  return 0;
}

async function installCmd(
  apps: AppsService,
  args: string[],
  io: ShIo,
  via: "pm" | "cmd",
): Promise<number> {
  const opts = { grant: false, downgrade: false, size: -1, path: "" };
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a === "-g") opts.grant = true;
    else if (a === "-d") opts.downgrade = true;
    else if (a === "-S") opts.size = Number(args[++k]);
    else if (["-r", "-t", "-f", "--dont-kill", "--staged", "--no-incremental"].includes(a)) {
      continue;
    } else if (a === "-i" || a === "--user" || a === "--install-reason") k++;
    else if (a.startsWith("-")) {
      io.err(enc.encode(`Error: Unknown option: ${a}\n`));
      return 1;
    } else opts.path = a;
  }
  let bytes: Uint8Array;
  if (opts.path) {
    const data = apps.device.files.get(apps.device.resolve(opts.path));
    if (!data) {
      io.err(enc.encode(`Error: Can't open file: ${opts.path}\n`));
      return 1;
    }
    bytes = data;
  } else if (opts.size >= 0) {
    if (!Number.isSafeInteger(opts.size) || opts.size > MAX_INSTALL_BYTES) {
      io.out(enc.encode(`Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n`));
      return 1;
    }
    bytes = io.stdinExactly
      ? await io.stdinExactly(opts.size)
      : (await io.stdin()).subarray(0, opts.size);
  } else {
    io.err(enc.encode("Error: must either specify a package size or an APK file\n"));
    return 1;
  }
  const r = await apps.install(bytes, opts);
  io.out(enc.encode(r + "\n"));
  void via;
  return r === "Success" ? 0 : 1;
}

function grantRevoke(apps: AppsService, sub: "grant" | "revoke", args: string[], io: ShIo): number {
  const [pkg, perm] = args;
  if (!pkg) {
    io.err(enc.encode("Error: no package specified\n"));
    return 1;
  }
  if (!perm) {
    io.err(enc.encode("Error: no permission specified\n"));
    return 1;
  }
  const at =
    `com.android.server.pm.permission.PermissionManagerServiceImpl.${sub}RuntimePermissionInternal(PermissionManagerServiceImpl.java:1391)`;
  const p = apps.packages.get(pkg);
  if (!p) {
    return shellException(
      io,
      sub,
      "java.lang.IllegalArgumentException",
      `Unknown package: ${pkg}`,
      at,
    );
  }
  const api = apps.device.api;
  if (!isKnownPermission(perm, api)) {
    return shellException(
      io,
      sub,
      "java.lang.IllegalArgumentException",
      `Unknown permission: ${perm}`,
      at,
    );
  }
  if (!isRuntimePermission(perm, api)) {
    return shellException(
      io,
      sub,
      "java.lang.SecurityException",
      `Permission ${perm} requested by ${pkg} is not a changeable permission type`,
      at,
    );
  }
  const state = p.permissions.get(perm);
  if (!state) {
    return shellException(
      io,
      sub,
      "java.lang.SecurityException",
      `Package ${pkg} has not requested permission ${perm}`,
      at,
    );
  }
  const was = state.granted;
  state.granted = sub === "grant";
  if (sub === "revoke" && was) {
    apps.kill(pkg, {
      reason: ExitReason.permissionChange,
      description: "permissions revoked",
      logReason: "permissions revoked",
    });
  }
  return 0;
}

function resolveActivity(apps: AppsService, args: string[], io: ShIo): number {
  const intent = parseIntent(args.filter((a) => a !== "--brief"), io, "resolve-activity");
  if (typeof intent === "number") return intent;
  if (!intent.action && !intent.component) {
    intent.action = "android.intent.action.MAIN";
  }
  const hit = apps.resolve(intent);
  if (!hit) {
    io.out(enc.encode("No activity found\n"));
    return 0;
  }
  io.out(enc.encode(
    "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n" +
      shortComponent(hit.pkg, hit.cls) + "\n",
  ));
  return 0;
}

/**
 * `query-activities`: every activity an intent resolves to. With `--components` one
 * `pkg/.Activity` line each; without, PackageManagerShellCommand's numbered blocks.
 */
function queryActivities(apps: AppsService, args: string[], io: ShIo): number {
  const components = args.includes("--components");
  const intent = parseIntent(
    args.filter((a) => a !== "--brief" && a !== "--components"),
    io,
    "query-activities",
  );
  if (typeof intent === "number") return intent;
  const hits = apps.resolveAll(intent);
  if (hits.length === 0) {
    io.out(enc.encode("No activities found\n"));
    return 0;
  }
  const line = (h: { pkg: string; cls: string }) => shortComponent(h.pkg, h.cls);
  const text = components
    ? hits.map((h) => line(h) + "\n").join("")
    : `${hits.length} activities found:\n` +
      hits.map((h, i) =>
        `  Activity #${i}:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ${
          line(h)
        }\n`
      ).join("");
  io.out(enc.encode(text));
  return 0;
}

function shellException(io: ShIo, cmd: string, type: string, message: string, at: string): number {
  io.err(enc.encode(
    EXCEPTION_HEAD(cmd) + `${type}: ${message}\n` + `\tat ${at}\n` +
      "\tat com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:254)\n" +
      "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n" +
      "\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n",
  ));
  return 255;
}
