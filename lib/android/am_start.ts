/**
 * `am start` output and launch timing (PROTOCOLS §9): the `-W` report (`Status`, `LaunchState`,
 * `Activity`, `TotalTime`, `WaitTime`), the failures `am` reports on stdout with exit code 0 on
 * older releases (`Error: …`, `Error type 3`, "unable to resolve Intent", exceptions), and the
 * logcat `Displayed` line. Pure functions; the device calls are in lib/android/launch.ts.
 */

/** What `am start -W` reported. Fields it did not print are `null`. */
export interface AmStartReport {
  /** `ok`, `timeout`, or whatever `Status:` said. */
  status: string | null;
  /** `COLD`, `WARM`, `HOT`, `RELAUNCH`, `UNKNOWN (n)`; absent before Android 10. */
  launch_state: string | null;
  /** The activity that ended up on top (may differ from the one asked for). */
  activity: string | null;
  total_ms: number | null;
  wait_ms: number | null;
  /** `ThisTime:` (before Android 10 only). */
  this_ms: number | null;
  complete: boolean;
  /** `Warning: …` lines: the launch still happened (for example brought to front). */
  warnings: string[];
  /** The first line that says the launch failed, or `null`. */
  error: string | null;
}

/** At most this many warning lines are kept from one report. */
const MAX_AM_WARNINGS = 8;
/** A failure line is cut to this many characters in messages. */
const MAX_AM_ERROR_CHARS = 500;

function intField(text: string, name: string): number | null {
  const m = new RegExp(`^\\s*${name}:\\s*(-?\\d+)\\s*$`, "m").exec(text);
  if (m === null) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function strField(text: string, name: string): string | null {
  const m = new RegExp(`^\\s*${name}:[ \\t]*(.*?)\\s*$`, "m").exec(text);
  return m === null || m[1] === "" ? null : m[1];
}

const FAILURE_PATTERNS: readonly RegExp[] = [
  /^\s*Error:/,
  /^\s*Error type \d+/,
  /unable to resolve Intent/i,
  /^\s*(java\.lang\.|android\.)\S*(Exception|Error)\b/,
  /^\s*Exception occurred while executing/,
  /^\s*Security exception:/,
  /^\s*Permission Denial:/,
];

/**
 * The line that says an `am start` failed, or `null` when the output shows no failure. A
 * non-zero exit status without such a line is a failure too (named by the first output line).
 * `Error type 3` is followed by the line that explains it, which is the one returned.
 */
export function amStartFailure(output: string, exitCode: number | null = 0): string | null {
  const lines = output.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!FAILURE_PATTERNS.some((p) => p.test(line))) continue;
    let found = line.trim();
    if (/^Error type \d+$/.test(found) && i + 1 < lines.length && lines[i + 1].trim() !== "") {
      found = lines[i + 1].trim();
    }
    return found.slice(0, MAX_AM_ERROR_CHARS);
  }
  if (exitCode !== null && exitCode !== 0) {
    const first = lines.map((l) => l.trim()).find((l) => l !== "" && !l.startsWith("Starting:"));
    return (first ?? `am exited with status ${exitCode}`).slice(0, MAX_AM_ERROR_CHARS);
  }
  return null;
}

/** Parses the output of `am start [-W] …` (stdout and stderr joined). Pure. */
export function parseAmStart(output: string, exitCode: number | null = 0): AmStartReport {
  const text = output.replace(/^\uFEFF/, "");
  const warnings = text.split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith("Warning:"))
    .slice(0, MAX_AM_WARNINGS);
  return {
    status: strField(text, "Status"),
    launch_state: strField(text, "LaunchState"),
    activity: strField(text, "Activity"),
    total_ms: intField(text, "TotalTime"),
    wait_ms: intField(text, "WaitTime"),
    this_ms: intField(text, "ThisTime"),
    complete: /^\s*Complete\s*$/m.test(text),
    warnings,
    error: amStartFailure(text, exitCode),
  };
}

/** The timing part of a launch, as tools return it. */
export interface LaunchTiming {
  total_ms: number | null;
  wait_ms: number | null;
  launch_state: string | null;
}

export function launchTiming(r: AmStartReport): LaunchTiming {
  return { total_ms: r.total_ms, wait_ms: r.wait_ms, launch_state: r.launch_state };
}

/** A launch state worth naming (`cold`, `warm`, `hot`, `relaunch`); `null` for `UNKNOWN (n)`. */
function stateWord(state: string | null): string | null {
  if (state === null) return null;
  const s = state.trim().toLowerCase();
  return /^(cold|warm|hot|relaunch)$/.test(s) ? s : null;
}

/** Why `am start` started nothing, from its warnings; `null` when it did not say. Pure. */
function notStartedBecause(warnings: readonly string[]): string | null {
  for (const w of warnings) {
    if (/top-most instance/i.test(w)) {
      return "the app was already in front: the intent went to its running activity";
    }
    if (/brought to the front/i.test(w)) {
      return "the app was already running: its task was brought to the front";
    }
  }
  return null;
}

/**
 * `Launch time: 812 ms (cold), wait 815 ms`. When the device timed nothing because nothing was
 * started (the app was already in front), it says so: `Launch time: none — the app was already
 * in front: …, wait 4 ms`. `null` when the device reported no time and no reason. Pure.
 */
export function formatLaunchTime(
  t: LaunchTiming,
  warnings: readonly string[] = [],
): string | null {
  const wait = t.wait_ms === null ? "" : `, wait ${t.wait_ms} ms`;
  const state = stateWord(t.launch_state);
  if (t.total_ms !== null) {
    return `Launch time: ${t.total_ms} ms${state ? ` (${state})` : ""}${wait}`;
  }
  const why = notStartedBecause(warnings);
  if (why !== null) return `Launch time: none — ${why}${wait}`;
  if (t.wait_ms === null) return null;
  return `Launch time: not reported by the device${state ? ` (${state})` : ""}${wait}`;
}

/**
 * `TimeUtils.formatDuration` text as logcat prints it after `Displayed …:` — `+850ms`,
 * `+1s234ms`, `+1m2s3ms`, `+1h0m0s5ms`, `0` — in milliseconds; `null` when it is not one. Pure.
 */
export function parseFormattedDuration(text: string): number | null {
  const t = text.trim();
  if (t === "0") return 0;
  const m = /^([+-])((?:\d+d)?(?:\d+h)?(?:\d+m(?!s))?(?:\d+s)?(?:\d+ms)?)$/.exec(t);
  if (m === null || m[2] === "") return null;
  const unit = (re: RegExp) => {
    const u = re.exec(m[2]);
    return u === null ? 0 : Number(u[1]);
  };
  const ms = unit(/(\d+)d/) * 86_400_000 + unit(/(\d+)h/) * 3_600_000 +
    unit(/(\d+)m(?!s)/) * 60_000 + unit(/(\d+)s/) * 1_000 + unit(/(\d+)ms/);
  return m[1] === "-" ? -ms : ms;
}

/**
 * One `Displayed` line (the component and its time to first frame), or with `kind: "fully_drawn"` a
 * `Fully drawn` line (the time until the app called `reportFullyDrawn()`; `displayed_ms` then holds
 * that time).
 */
export interface DisplayedLine {
  kind: "displayed" | "fully_drawn";
  component: string;
  package: string;
  displayed_ms: number;
  /** The logcat line's own timestamp (`MM-DD hh:mm:ss.mmm`) when it had one. */
  time: string | null;
}

const THREADTIME_PREFIX =
  /^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+\d+\s+\d+\s+[VDIWEFA]\s+(ActivityTaskManager|ActivityManager)\s*:\s?(.*)$/;
const DISPLAYED =
  /^(Displayed|Fully drawn) ([A-Za-z][\w.]*)\/(\S+?)(?: for user \d+)?: (\+[\dhdms]+|0)(?: \(total [^)]*\))?\s*$/;

/**
 * Parses a logcat `Displayed` line (threadtime, or the bare message), any of the three wordings of
 * PROTOCOLS §9; `null` for any other line. Pure.
 */
export function parseDisplayedLine(line: string): DisplayedLine | null {
  let message = line.trim();
  let time: string | null = null;
  const tt = THREADTIME_PREFIX.exec(message);
  if (tt !== null) {
    time = tt[1];
    message = tt[3];
  } else {
    const brief = /^[VDIWEFA]\/(ActivityTaskManager|ActivityManager)\s*\(\s*\d+\):\s?(.*)$/.exec(
      message,
    );
    if (brief !== null) message = brief[2];
  }
  const m = DISPLAYED.exec(message);
  if (m === null) return null;
  const ms = parseFormattedDuration(m[4]);
  if (ms === null) return null;
  return {
    kind: m[1] === "Displayed" ? "displayed" : "fully_drawn",
    component: `${m[2]}/${m[3]}`,
    package: m[2],
    displayed_ms: ms,
    time,
  };
}

/**
 * The newest `Displayed` line in `log` for exactly `pkg` (not `pkg.debug`, not another app), or
 * `null`. Pure.
 */
export function findDisplayed(
  log: string,
  pkg: string,
  kind: DisplayedLine["kind"] = "displayed",
): DisplayedLine | null {
  let found: DisplayedLine | null = null;
  for (const line of log.split(/\r?\n/)) {
    const d = parseDisplayedLine(line);
    if (d !== null && d.package === pkg && d.kind === kind) found = d;
  }
  return found;
}

/** The `MM-DD hh:mm:ss.mmm` timestamp of the last threadtime line in `log`, or `null`. Pure. */
export function lastLogTime(log: string): string | null {
  let last: string | null = null;
  for (const line of log.split(/\r?\n/)) {
    const m = /^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s/.exec(line);
    if (m !== null) last = m[1];
  }
  return last;
}
