/**
 * Launching an app: a known component with `am start -W -n` (timed), else the `monkey` and
 * MAIN-intent fallbacks (untimed); `am start` output is checked, not only its exit status. Also
 * the logcat `Displayed` read-back `restart_app` uses. Every device argument goes as one argv
 * element (quoted by lib/adb/shell_quote.ts).
 */
import type { CallOptions, DeviceShell } from "../adb/client.ts";
import { delay } from "../core/abortable.ts";
import { invalidParams, ToolError } from "../core/errors.ts";
import {
  type AmStartReport,
  type DisplayedLine,
  findDisplayed,
  formatLaunchTime,
  lastLogTime,
  type LaunchTiming,
  launchTiming,
} from "./am_start.ts";
import { amStart, boundedAmOutput } from "./am.ts";
import { runText } from "./device_command.ts";
import { parseDumpsysPackage } from "./dumpsys_package.ts";

/** Bound on the quick commands around a launch. */
export const APP_COMMAND_TIMEOUT_MS = 20_000;
/** How long `restart_app` looks for the `Displayed` line after `am start -W` returns. */
const DISPLAYED_WAIT_MS = 3_000;
/** Pause between two looks for the `Displayed` line. */
const DISPLAYED_POLL_MS = 250;

/** What the `Displayed` wait rejects with when the request is cancelled. */
const requestCancelled = () => new ToolError("cancelled", "Request cancelled");
/** Longest activity name accepted. */
const MAX_ACTIVITY_LENGTH = 512;

type LaunchMethod = "component" | "monkey" | "main_intent";

export interface LaunchResult {
  method: LaunchMethod;
  /** The component started (`pkg/.Act`), `null` for the fallbacks. */
  component: string | null;
  /** What `am start` / `monkey` printed (bounded). */
  output: string;
  report: AmStartReport | null;
  /** `null` when the launch method reports no time. */
  timing: LaunchTiming | null;
  /** `Launch time: 812 ms (cold), wait 815 ms`, or why there is none. */
  timing_line: string;
}

const CLASS_NAME = /^\.?[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

/**
 * An activity as `launch_app` takes it: `.MainActivity`, `com.example.app.MainActivity`, or a full
 * component `com.example.app/.MainActivity`. Returns the component for `pkg`; refuses anything
 * else with `invalid_params`.
 */
export function activityComponent(pkg: string, activity: string, param = "activity"): string {
  const v = activity;
  if (v.length === 0 || v.length > MAX_ACTIVITY_LENGTH) {
    throw invalidParams(
      `Invalid ${param}: it must be 1 to ${MAX_ACTIVITY_LENGTH} characters, like .MainActivity`,
    );
  }
  const slash = v.indexOf("/");
  const owner = slash < 0 ? pkg : v.slice(0, slash);
  const cls = slash < 0 ? v : v.slice(slash + 1);
  if (owner !== pkg || !CLASS_NAME.test(cls)) {
    throw invalidParams(
      `Invalid ${param} ${JSON.stringify(v.slice(0, 80))}: pass a class of ${pkg} like ` +
        `.MainActivity or ${pkg}.MainActivity`,
    );
  }
  return `${pkg}/${cls}`;
}

/** `am start -W -n <component>`; a failure reported in the output is a `launch_failed` error. */
async function startComponent(
  adb: DeviceShell,
  serial: string,
  component: string,
  opts: CallOptions,
): Promise<LaunchResult> {
  const { output, report } = await amStart(adb, serial, { component }, {
    wait: true,
    signal: opts.signal,
    what: `start ${component}`,
    next: "check the activity name (dump_app_info lists the launcher activity) and that the app " +
      "is installed",
    data: { component },
  });
  const timing = launchTiming(report);
  return {
    method: "component",
    component,
    output,
    report,
    timing,
    timing_line: formatLaunchTime(timing, report.warnings) ??
      "Launch time: not reported by the device",
  };
}

/**
 * Launches `pkg`: `activity` when given; else the launcher activity `dumpsys package` lists, timed
 * with `am start -W`; else `monkey`, else the MAIN intent (neither reports a time).
 */
export async function launchApp(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  activity: string | undefined,
  opts: CallOptions,
): Promise<LaunchResult> {
  if (activity !== undefined) {
    return await startComponent(adb, serial, activityComponent(pkg, activity), opts);
  }
  const quick = { ...opts, timeoutMs: APP_COMMAND_TIMEOUT_MS };
  const dump = await runText(adb, serial, ["dumpsys", "package", pkg], quick);
  const info = parseDumpsysPackage(dump.text, pkg);
  if (!info.found) {
    throw new ToolError(
      "not_found",
      `${pkg} is not installed on ${serial}: install it first (install_apk or ` +
        "run_run_configuration), or check the package name",
      { serial, package: pkg },
    );
  }
  if (info.launcher_activity !== null) {
    return await startComponent(adb, serial, info.launcher_activity, opts);
  }
  const monkey = await runText(
    adb,
    serial,
    ["monkey", "-p", pkg, "-c", "android.intent.category.LAUNCHER", "1"],
    quick,
  );
  if (monkey.code === 0 && /Events injected: 1/.test(monkey.text)) {
    return {
      method: "monkey",
      component: null,
      output: boundedAmOutput(monkey.text),
      report: null,
      timing: null,
      timing_line: "Launch time: not reported (started with monkey, which does not time launches)",
    };
  }
  const intent = await amStart(adb, serial, {
    action: "android.intent.action.MAIN",
    category: "android.intent.category.LAUNCHER",
    package: pkg,
  }, {
    wait: false,
    signal: opts.signal,
    timeoutMs: APP_COMMAND_TIMEOUT_MS,
    what: `launch ${pkg}`,
    next: "the app may have no launcher activity: pass activity",
    data: { package: pkg, monkey_output: boundedAmOutput(monkey.text) },
  });
  return {
    method: "main_intent",
    component: null,
    output: intent.output,
    report: intent.report,
    timing: null,
    timing_line: "Launch time: not reported (started with the MAIN intent, without timing)",
  };
}

/** The timestamp of the newest log line, as `logcat -T` takes it; `null` for an empty log. */
export async function logReferenceTime(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions,
): Promise<string | null> {
  const out = await runText(adb, serial, ["logcat", "-d", "-v", "threadtime", "-t", "1"], {
    ...opts,
    timeoutMs: APP_COMMAND_TIMEOUT_MS,
  });
  return out.code === 0 || out.code === null ? lastLogTime(out.text) : null;
}

/**
 * The `Displayed` line for exactly `pkg` logged since `since` (a `logcat -T` time; the whole
 * buffer when `null`), looking for up to `DISPLAYED_WAIT_MS`. `null` when none appears (a launch
 * that drew nothing, or a HOT launch on Android 13, which logs none).
 */
export async function readDisplayed(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  since: string | null,
  opts: CallOptions,
  waitMs = DISPLAYED_WAIT_MS,
): Promise<(DisplayedLine & { fully_drawn_ms: number | null }) | null> {
  const argv = [
    "logcat",
    "-d",
    "-v",
    "threadtime",
    ...(since === null ? [] : ["-T", since]),
    "-s",
    "ActivityTaskManager:I",
    "ActivityManager:I",
  ];
  const deadline = Date.now() + waitMs;
  for (;;) {
    const out = await runText(adb, serial, argv, { ...opts, timeoutMs: APP_COMMAND_TIMEOUT_MS });
    const found = findDisplayed(out.text, pkg);
    if (found !== null && (since === null || found.time === null || found.time >= since)) {
      // `Fully drawn` comes only when the app calls reportFullyDrawn(); take it when it is there.
      const full = findDisplayed(out.text, pkg, "fully_drawn");
      const fresh = full !== null && (since === null || full.time === null || full.time >= since);
      return { ...found, fully_drawn_ms: fresh ? full.displayed_ms : null };
    }
    if (Date.now() + DISPLAYED_POLL_MS > deadline) return null;
    await delay(DISPLAYED_POLL_MS, opts.signal, requestCancelled);
  }
}
