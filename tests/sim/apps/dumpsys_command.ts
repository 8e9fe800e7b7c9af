/**
 * `dumpsys activity exit-info|activities`, `dumpsys meminfo`, `dumpsys package` and `dumpsys window`
 * from the apps service's state (the texts themselves are written by dumpsys.ts).
 */
import type { ShIo } from "../sh_exec.ts";
import { activitiesText, exitInfoText, meminfoText, packageText, windowText } from "./dumpsys.ts";
import type { AppsService } from "./service.ts";

const enc = new TextEncoder();

export function dumpsysCommand(apps: AppsService, args: string[], io: ShIo): number | null {
  const [svc, ...rest] = args;
  const out = (s: string) => {
    io.out(enc.encode(s));
    return 0;
  };
  const api = apps.device.api;
  if (svc === "activity") {
    const sub = rest[0];
    if (sub === "exit-info" && api >= 30) {
      const pkg = rest.slice(1).find((a) => !a.startsWith("-")) ?? null;
      return out(exitInfoText(apps.exits, pkg, api, apps.bootTime));
    }
    if (sub === "activities" || sub === "a") {
      return out(activitiesText(apps.stack, api, apps.home));
    }
    return out(`Bad activity command, or no activities match: ${sub ?? ""}\nUse -h for help.\n`);
  }
  if (svc === "meminfo") {
    const pkg = rest.filter((a) => !a.startsWith("-")).at(-1);
    if (!pkg) return null;
    const pid = /^\d+$/.test(pkg) ? Number(pkg) : apps.pidOf(pkg);
    const proc = pid !== null ? apps.procs.get(pid) : undefined;
    if (!proc?.pkg) return out(`No process found for: ${pkg}\n`);
    return out(meminfoText({
      pid: proc.pid,
      pkg: proc.name,
      scale: 1 + ((proc.pid % 13) / 20),
      uptimeMs: Date.now() - apps.bootTime + 3_600_000,
    }));
  }
  if (svc === "package") {
    const pkg = rest.filter((a) => !a.startsWith("-")).at(-1);
    if (!pkg) return null;
    const p = apps.packages.get(pkg);
    return out(p ? packageText(p, api) : "");
  }
  if (svc === "window" && (rest.length === 0 || rest[0] === "windows" || rest[0] === "w")) {
    return out(windowText(apps.stack[0]));
  }
  return null;
}
