/**
 * Launching an installed app after a deploy: `am start -W -n <pkg>/<activity>` for the APK's
 * launcher activity, through lib/android/am.ts (which checks the output, not only the exit
 * status). When the manifest names no launcher, the device is asked
 * (`cmd package resolve-activity --brief`) which activity MAIN/LAUNCHER resolves to.
 */
import type { DeviceShell } from "../adb/client.ts";
import { ToolError } from "../core/errors.ts";
import type { AmStartReport } from "../android/am_start.ts";
import { amStart } from "../android/am.ts";

/** Time for the resolve-activity query. */
const RESOLVE_TIMEOUT_MS = 15_000;

export interface LaunchResult {
  component: string;
  output: string;
  report: AmStartReport;
}

const COMPONENT = /^[A-Za-z][\w.]*\/[A-Za-z.$][\w.$]*$/;

/** The component the `resolve-activity --brief` output ends with, or `null`. Pure. */
function parseResolvedActivity(text: string): string | null {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  const last = lines.at(-1);
  return last !== undefined && COMPONENT.test(last) ? last : null;
}

/** `pkg/.Main` for `pkg.Main`, as `am` prints it; other packages' classes stay whole. Pure. */
export function componentFor(pkg: string, activity: string): string {
  return `${pkg}/${activity.startsWith(`${pkg}.`) ? activity.slice(pkg.length) : activity}`;
}

/** The component to start: the manifest's launcher, else what the device resolves. */
export async function resolveLauncher(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  manifest: { launcher_activity: string | null; activities: string[] },
): Promise<string> {
  if (manifest.launcher_activity) return componentFor(pkg, manifest.launcher_activity);
  const r = await adb.shell(serial, [
    "cmd",
    "package",
    "resolve-activity",
    "--brief",
    "-a",
    "android.intent.action.MAIN",
    "-c",
    "android.intent.category.LAUNCHER",
    pkg,
  ], { timeoutMs: RESOLVE_TIMEOUT_MS }).catch(() => null);
  const resolved = r ? parseResolvedActivity(r.text()) : null;
  if (resolved && resolved.startsWith(`${pkg}/`)) return resolved;
  if (manifest.activities.length === 1) return componentFor(pkg, manifest.activities[0]);
  throw new ToolError(
    "launch_failed",
    `Cannot launch ${pkg} on ${serial}: its manifest declares no MAIN/LAUNCHER activity and the ` +
      "device resolves none; add a launcher activity or start one with launch_app",
    { serial, package: pkg },
  );
}

/** Runs `am start -W -n <component>` and checks its report; `launch_failed` on an error line. */
export async function startActivity(
  adb: DeviceShell,
  serial: string,
  component: string,
): Promise<LaunchResult> {
  const { output, report } = await amStart(adb, serial, { component }, {
    wait: true,
    what: `launch ${component}`,
    next: "check that the activity exists and is exported, or read logcat for a crash",
    data: { component },
  });
  return { component, output, report };
}
