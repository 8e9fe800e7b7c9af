/**
 * `settings get|put|delete|list`, `svc wifi|data`, `cmd connectivity airplane-mode`,
 * `wm user-rotation` and `reboot [-p]`: the device's settings, network, rotation and power.
 */
import type { ShIo } from "../sh_exec.ts";
import { REBOOT_SECONDS } from "./constants.ts";
import type { AppsService } from "./service.ts";

const enc = new TextEncoder();

export function settingsCommand(apps: AppsService, args: string[], io: ShIo): number {
  const rest = args.filter((a, i) => !(a === "--user" || args[i - 1] === "--user"));
  const [op, ns, key, value] = rest;
  const table = apps.settings.get(ns ?? "");
  if (!table || !op) {
    io.err(enc.encode(`Invalid namespace '${ns ?? ""}'\n`));
    return 255;
  }
  switch (op) {
    case "get":
      io.out(enc.encode(`${table.get(key ?? "") ?? "null"}\n`));
      return 0;
    case "put":
      if (key === undefined || value === undefined) {
        io.err(enc.encode("Usage: settings put NAMESPACE KEY VALUE\n"));
        return 255;
      }
      apps.putChecked(ns, key, value);
      return 0;
    case "delete":
      io.out(enc.encode(`Deleted ${table.delete(key ?? "") ? 1 : 0} rows\n`));
      return 0;
    case "list":
      io.out(enc.encode([...table].map(([k, v]) => `${k}=${v}\n`).join("")));
      return 0;
  }
  io.err(enc.encode(`Invalid command: ${op}\n`));
  return 255;
}

export function svcCommand(apps: AppsService, args: string[], io: ShIo): number {
  const [what, op] = args;
  const key = what === "wifi" ? "wifi_on" : what === "data" ? "mobile_data" : null;
  if (!key || (op !== "enable" && op !== "disable")) {
    io.err(enc.encode(`svc: unknown command: ${args.join(" ")}\n`));
    return 1;
  }
  apps.putChecked("global", key, op === "enable" ? "1" : "0");
  return 0;
}

export function connectivityCommand(apps: AppsService, args: string[], io: ShIo): number | null {
  if (args[0] !== "airplane-mode") return null;
  if (apps.airplaneCmdFails || apps.device.api < 30) {
    io.err(enc.encode("No shell command implementation.\n"));
    return 255;
  }
  const op = args[1];
  if (op === undefined) {
    io.out(
      enc.encode(apps.setting("global", "airplane_mode_on") === "1" ? "enabled\n" : "disabled\n"),
    );
    return 0;
  }
  if (op !== "enable" && op !== "disable") {
    io.err(enc.encode(`Unsupported argument: ${op}\n`));
    return 255;
  }
  apps.putChecked("global", "airplane_mode_on", op === "enable" ? "1" : "0");
  return 0;
}

export function userRotationCommand(apps: AppsService, args: string[], io: ShIo): number {
  if (apps.device.api < 33) {
    io.err(enc.encode("Error: unknown command 'user-rotation'\n"));
    return 255;
  }
  const rest = args.filter((a, i) => !(a === "-d" || args[i - 1] === "-d"));
  const [mode, n] = rest;
  const rot = apps.setting("system", "user_rotation") ?? "0";
  if (mode === undefined) {
    const locked = apps.setting("system", "accelerometer_rotation") !== "1";
    io.out(enc.encode(`${locked ? "lock" : "free"} ${rot}\n`));
    return 0;
  }
  if (mode === "free") {
    apps.putSetting("system", "accelerometer_rotation", "1");
    return 0;
  }
  if (mode === "lock" && (n === undefined || /^[0-3]$/.test(n))) {
    apps.putSetting("system", "accelerometer_rotation", "0");
    if (n !== undefined) apps.putSetting("system", "user_rotation", n);
    return 0;
  }
  io.err(enc.encode(`Error: lock or free expected, got: ${args.join(" ")}\n`));
  return 255;
}

export function rebootCommand(apps: AppsService, args: string[]): number {
  const d = apps.device;
  if (args.includes("-p")) {
    d.afterStream.push(() => apps.world?.removeDevice(d.serial));
    return 0;
  }
  d.afterStream.push(() => {
    apps.boot();
    d.host?.disconnectFor(d, REBOOT_SECONDS);
  });
  return 0;
}
