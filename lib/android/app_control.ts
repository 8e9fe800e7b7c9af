/**
 * The app and device actions behind the app tools: reading an app's package, memory, runtime
 * state and exit history, stopping, restarting, permissions, network, orientation, deep links and
 * the app's settings screen. Callers validate arguments and check package scope first; every
 * device argument here is one argv element (quoted by lib/adb/shell_quote.ts), never a string
 * this code builds for the device shell.
 */
import type { CallOptions, DeviceShell } from "../adb/client.ts";
import { ToolError } from "../core/errors.ts";
import { type AmStartReport, formatLaunchTime, launchTiming } from "./am_start.ts";
import { type PackageInfo, parseDumpsysPackage } from "./dumpsys_package.ts";
import { EXIT_INFO_MIN_API, type ExitInfoDump, parseExitInfo } from "./exit_info.ts";
import {
  APP_COMMAND_TIMEOUT_MS,
  launchApp,
  type LaunchResult,
  logReferenceTime,
  readDisplayed,
} from "./launch.ts";
import { type AmIntent, amStart } from "./am.ts";
import { runText } from "./device_command.ts";
import { type MeminfoDump, parseMeminfo } from "./meminfo.ts";
import {
  airplaneBroadcastArgv,
  airplaneCmdArgv,
  airplaneSettingArgv,
  NETWORK_SETTINGS,
  type NetworkRequest,
  type NetworkState,
  outputShowsFailure,
  parseSettingBool,
  svcArgv,
} from "./network.ts";
import { type Orientation, orientationCommands, orientationFromSettings } from "./orientation.ts";
import {
  type AppProcess,
  packageOfComponent,
  parseCurrentFocus,
  parsePidof,
  parsePsForPackage,
  parseResumedActivity,
} from "./runtime_state.ts";

/** Output of a dump kept for parsing (a `dumpsys package` of a big app is ~100 KB). */
const MAX_DUMP_BYTES = 4 * 1024 * 1024;

const quick = (opts: CallOptions): CallOptions => ({
  ...opts,
  timeoutMs: APP_COMMAND_TIMEOUT_MS,
});
const dumpOpts = (opts: CallOptions): CallOptions => ({
  ...quick(opts),
  maxOutputBytes: MAX_DUMP_BYTES,
});

function failed(what: string, serial: string, output: string, next: string): ToolError {
  const first = output.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ??
    "no output";
  return new ToolError(
    "command_failed",
    `${what} failed on ${serial}: ${first.slice(0, 300)}; ${next}`,
    { serial, output: output.slice(0, 2_000) },
  );
}

/** The line of a `pm` failure that says why: the exception's own line before the banner. */
function pmFailureLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  return lines.find((l) => /^(java|android)\.[\w.$]+: /.test(l)) ??
    lines.find((l) => /Exception|Error|Unknown|not /.test(l)) ?? text;
}

// ── reading ──────────────────────────────────────────────────────────────────────────────────

export async function readPackageInfo(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<PackageInfo> {
  const out = await runText(adb, serial, ["dumpsys", "package", pkg], dumpOpts(opts));
  return parseDumpsysPackage(out.text, pkg);
}

export async function readMeminfo(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<MeminfoDump> {
  const out = await runText(adb, serial, ["dumpsys", "meminfo", pkg], dumpOpts(opts));
  return parseMeminfo(out.text);
}

/**
 * The app's processes: `ps -A -o PID,USER,NAME` (by name, and by the app's `uid` when known),
 * else `pidof` on devices without toybox ps.
 */
async function readAppProcesses(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
  uid: number | null = null,
): Promise<AppProcess[]> {
  const ps = await runText(adb, serial, ["ps", "-A", "-o", "PID,USER,NAME"], dumpOpts(opts));
  if ((ps.code === 0 || ps.code === null) && /^\s*PID\b/m.test(ps.text)) {
    return parsePsForPackage(ps.text, pkg, uid);
  }
  const pidof = await runText(adb, serial, ["pidof", pkg], quick(opts));
  return parsePidof(pidof.text).map((pid) => ({ pid, user: null, name: pkg }));
}

interface RuntimeState {
  package: string;
  installed: boolean;
  running: boolean;
  processes: AppProcess[];
  /** The resumed activity belongs to the app. */
  foreground: boolean;
  resumed_activity: string | null;
  focused_window: string | null;
  /** The package manager's stopped state (force-stopped and not launched since). */
  stopped: boolean | null;
  version_name: string | null;
  version_code: number | null;
}

export async function readRuntimeState(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<RuntimeState> {
  const info = await readPackageInfo(adb, serial, pkg, opts);
  const [processes, activities, windows] = await Promise.all([
    readAppProcesses(adb, serial, pkg, opts, info.uid),
    runText(adb, serial, ["dumpsys", "activity", "activities"], dumpOpts(opts)),
    runText(adb, serial, ["dumpsys", "window"], dumpOpts(opts)),
  ]);
  const resumed = parseResumedActivity(activities.text);
  const focus = parseCurrentFocus(windows.text);
  return {
    package: pkg,
    installed: info.found,
    running: processes.length > 0,
    processes,
    foreground: packageOfComponent(resumed) === pkg ||
      (resumed === null && packageOfComponent(focus) === pkg),
    resumed_activity: resumed,
    focused_window: focus,
    stopped: info.users[0]?.stopped ?? null,
    version_name: info.version_name,
    version_code: info.version_code,
  };
}

async function readApiLevel(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions,
): Promise<number | null> {
  const out = await runText(adb, serial, ["getprop", "ro.build.version.sdk"], quick(opts));
  const n = Number(out.text.trim());
  return Number.isInteger(n) && n > 0 ? n : null;
}

type ExitHistory =
  | { supported: false; api_level: number | null }
  | { supported: true; api_level: number | null; dump: ExitInfoDump };

/** `dumpsys activity exit-info <pkg>` on Android 11+; below API 30 it says it is unsupported. */
export async function readExitHistory(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<ExitHistory> {
  const api = await readApiLevel(adb, serial, opts);
  if (api !== null && api < EXIT_INFO_MIN_API) return { supported: false, api_level: api };
  const out = await runText(adb, serial, ["dumpsys", "activity", "exit-info", pkg], dumpOpts(opts));
  return { supported: true, api_level: api, dump: parseExitInfo(out.text) };
}

/** Installed packages (`pm list packages`), bounded by the output cap. */
export async function listInstalledPackages(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions,
): Promise<Set<string>> {
  const out = await runText(adb, serial, ["pm", "list", "packages"], dumpOpts(opts));
  const set = new Set<string>();
  for (const m of out.text.matchAll(/^package:(\S+)\s*$/gm)) set.add(m[1]);
  return set;
}

// ── acting ───────────────────────────────────────────────────────────────────────────────────

/** `am force-stop`; reports whether a process was running before and is gone after. */
export async function stopApp(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<{ was_running: boolean; running_after: boolean }> {
  const before = await readAppProcesses(adb, serial, pkg, opts);
  const out = await runText(adb, serial, ["am", "force-stop", pkg], quick(opts));
  if (outputShowsFailure(out.text, out.code)) {
    throw failed(`am force-stop ${pkg}`, serial, out.text, "check the package name");
  }
  const after = await readAppProcesses(adb, serial, pkg, opts);
  return { was_running: before.length > 0, running_after: after.length > 0 };
}

export async function clearAppData(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<void> {
  const out = await runText(adb, serial, ["pm", "clear", pkg], quick(opts));
  if (!/^\s*Success\s*$/m.test(out.text) || (out.code !== null && out.code !== 0)) {
    throw failed(`pm clear ${pkg}`, serial, out.text, "check that the app is installed");
  }
}

interface RestartResult {
  cleared: boolean;
  launch: LaunchResult;
  /** From the logcat `Displayed` line of exactly this package, else `null`. */
  display_time_ms: number | null;
  displayed_component: string | null;
}

/**
 * Restarts the app: `pm clear` first when asked, `am force-stop`, a timed launch, then the
 * `Displayed` line logged for exactly this package since just before the restart.
 */
export async function restartApp(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  options: { clearData: boolean; activity?: string },
  opts: CallOptions,
): Promise<RestartResult> {
  const since = await logReferenceTime(adb, serial, opts);
  if (options.clearData) await clearAppData(adb, serial, pkg, opts);
  const stop = await runText(adb, serial, ["am", "force-stop", pkg], quick(opts));
  if (outputShowsFailure(stop.text, stop.code)) {
    throw failed(`am force-stop ${pkg}`, serial, stop.text, "check the package name");
  }
  const launch = await launchApp(adb, serial, pkg, options.activity, opts);
  const displayed = launch.method === "component"
    ? await readDisplayed(adb, serial, pkg, since, opts)
    : null;
  return {
    cleared: options.clearData,
    launch,
    display_time_ms: displayed?.displayed_ms ?? null,
    displayed_component: displayed?.component ?? null,
  };
}

interface PermissionChange {
  was_running: boolean;
  running_after: boolean;
}

/** `pm grant|revoke <pkg> <permission>`; the output is checked (pm prints exceptions). */
export async function changePermission(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  permission: string,
  grant: boolean,
  opts: CallOptions,
): Promise<PermissionChange> {
  const before = grant ? [] : await readAppProcesses(adb, serial, pkg, opts);
  const verb = grant ? "grant" : "revoke";
  const out = await runText(adb, serial, ["pm", verb, pkg, permission], quick(opts));
  if (outputShowsFailure(out.text, out.code)) {
    throw failed(
      `pm ${verb} ${pkg} ${permission}`,
      serial,
      pmFailureLine(out.text),
      "only runtime (dangerous) permissions the app requests can be changed; dump_app_info " +
        "lists them",
    );
  }
  const after = grant ? [] : await readAppProcesses(adb, serial, pkg, opts);
  return { was_running: before.length > 0, running_after: after.length > 0 };
}

async function readNetworkState(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions,
): Promise<NetworkState> {
  const read = async (key: string) => {
    const out = await runText(adb, serial, ["settings", "get", "global", key], quick(opts));
    return out.code === 0 || out.code === null ? parseSettingBool(out.text) : null;
  };
  return {
    wifi: await read(NETWORK_SETTINGS.wifi),
    mobile_data: await read(NETWORK_SETTINGS.mobile_data),
    airplane_mode: await read(NETWORK_SETTINGS.airplane_mode),
  };
}

interface NetworkChange {
  previous: NetworkState;
  current: NetworkState;
  /** How airplane mode was changed, when it was. */
  airplane_method: "cmd" | "settings_broadcast" | null;
  commands: string[];
}

/**
 * Applies a checked request (lib/android/network.ts `checkNetworkRequest` ran first). Airplane
 * mode goes through `cmd connectivity airplane-mode`; only when that fails does it write
 * `airplane_mode_on` and send the AIRPLANE_MODE broadcast, restoring the setting when the
 * broadcast is refused.
 */
export async function setNetworkState(
  adb: DeviceShell,
  serial: string,
  req: NetworkRequest,
  opts: CallOptions,
): Promise<NetworkChange> {
  const previous = await readNetworkState(adb, serial, opts);
  const commands: string[] = [];
  const exec = async (argv: string[]) => {
    commands.push(argv.join(" "));
    return await runText(adb, serial, argv, quick(opts));
  };
  let airplaneMethod: NetworkChange["airplane_method"] = null;
  if (req.airplane_mode !== undefined) {
    const on = req.airplane_mode;
    const viaCmd = await exec(airplaneCmdArgv(on));
    if (!outputShowsFailure(viaCmd.text, viaCmd.code)) {
      airplaneMethod = "cmd";
    } else {
      const put = await exec(airplaneSettingArgv(on));
      if (outputShowsFailure(put.text, put.code)) {
        throw failed("Setting airplane_mode_on", serial, put.text, "change it on the device");
      }
      const cast = await exec(airplaneBroadcastArgv(on));
      if (outputShowsFailure(cast.text, cast.code)) {
        const restore = previous.airplane_mode === null ? null : previous.airplane_mode;
        if (restore !== null) await exec(airplaneSettingArgv(restore));
        throw failed(
          "The AIRPLANE_MODE broadcast",
          serial,
          cast.text,
          `the device refused it, so airplane_mode_on was ${
            restore === null ? "left as written" : "restored"
          }; this build needs cmd connectivity airplane-mode (Android 11+) or a change on the ` +
            "device",
        );
      }
      airplaneMethod = "settings_broadcast";
    }
  }
  if (req.wifi !== undefined) {
    const out = await exec(svcArgv("wifi", req.wifi));
    if (outputShowsFailure(out.text, out.code)) {
      throw failed("svc wifi", serial, out.text, "change Wi-Fi on the device");
    }
  }
  if (req.mobile_data !== undefined) {
    const out = await exec(svcArgv("data", req.mobile_data));
    if (outputShowsFailure(out.text, out.code)) {
      throw failed("svc data", serial, out.text, "change mobile data on the device");
    }
  }
  const current = await readNetworkState(adb, serial, opts);
  return { previous, current, airplane_method: airplaneMethod, commands };
}

interface OrientationChange {
  previous: Orientation | null;
  current: Orientation | null;
}

async function readOrientation(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions,
): Promise<Orientation | null> {
  const acc = await runText(
    adb,
    serial,
    ["settings", "get", "system", "accelerometer_rotation"],
    quick(opts),
  );
  const rot = await runText(
    adb,
    serial,
    ["settings", "get", "system", "user_rotation"],
    quick(opts),
  );
  return orientationFromSettings(acc.text, rot.text);
}

export async function setOrientation(
  adb: DeviceShell,
  serial: string,
  orientation: Orientation,
  opts: CallOptions,
): Promise<OrientationChange> {
  const previous = await readOrientation(adb, serial, opts);
  for (const argv of orientationCommands(orientation)) {
    const out = await runText(adb, serial, argv, quick(opts));
    if (outputShowsFailure(out.text, out.code)) {
      throw failed(argv.slice(0, 4).join(" "), serial, out.text, "rotate the device by hand");
    }
  }
  const current = await readOrientation(adb, serial, opts);
  return { previous, current };
}

interface IntentStart {
  report: AmStartReport;
  output: string;
  timing_line: string | null;
}

async function startIntent(
  adb: DeviceShell,
  serial: string,
  intent: AmIntent,
  what: string,
  next: string,
  opts: CallOptions,
): Promise<IntentStart> {
  const { output, report } = await amStart(adb, serial, intent, {
    wait: true,
    signal: opts.signal,
    what,
    next,
  });
  return {
    report,
    output,
    timing_line: formatLaunchTime(launchTiming(report), report.warnings),
  };
}

/** `am start -W -a VIEW -d <uri> [-p <pkg>]`; the URI was checked by validateDeepLink. */
export async function openDeepLink(
  adb: DeviceShell,
  serial: string,
  uri: string,
  pkg: string | undefined,
  opts: CallOptions,
): Promise<IntentStart> {
  return await startIntent(
    adb,
    serial,
    { action: "android.intent.action.VIEW", data: uri, package: pkg },
    "open the link",
    pkg === undefined
      ? "no installed app handles it: check the app's intent filters, or install the app"
      : `${pkg} does not handle it: check its intent filters, or leave package out`,
    opts,
  );
}

/** The system's App info screen for `pkg`. */
export async function openAppSettings(
  adb: DeviceShell,
  serial: string,
  pkg: string,
  opts: CallOptions,
): Promise<IntentStart> {
  return await startIntent(
    adb,
    serial,
    { action: "android.settings.APPLICATION_DETAILS_SETTINGS", data: `package:${pkg}` },
    `open the settings of ${pkg}`,
    "check that the app is installed",
    opts,
  );
}
