/**
 * `am start`, the one place that builds its argv and decides whether it started anything. Like
 * the real tools' wrappers (Android Studio's and ddmlib's launchers read `am`'s output, not its
 * exit status), the output is checked for `Error:` and the other failure lines
 * (lib/android/am_start.ts, PROTOCOLS §9): with `-W`, `am` prints its errors on stdout, and before
 * Android 16 it exits 0 after them.
 */
import type { DeviceShell } from "../adb/client.ts";
import { ToolError } from "../core/errors.ts";
import { type AmStartReport, parseAmStart } from "./am_start.ts";
import { runText } from "./device_command.ts";

/** Bound on `am start -W` (it waits for the first frame; a slow cold start takes seconds). */
const AM_START_TIMEOUT_MS = 60_000;
/** Output read from one `am start` (a report is a few hundred bytes; an exception more). */
const MAX_AM_OUTPUT_BYTES = 64 * 1024;
/** Longest `am start` output kept in results and errors; longer is cut with a note. */
export const MAX_AM_OUTPUT_CHARS = 4_000;

/** What to start: an explicit component (`-n`), or an intent by action. */
export type AmIntent =
  | { component: string }
  | { action: string; data?: string; category?: string; package?: string };

/**
 * `am start [-W] -n <component>` or `am start [-W] -a <action> [-d <data>] [-c <category>]
 * [-p <package>]`: one argv element per value (quoted by lib/adb/shell_quote.ts). Pure.
 */
export function amStartArgv(intent: AmIntent, wait: boolean): string[] {
  const argv = ["am", "start"];
  if (wait) argv.push("-W");
  if ("component" in intent) {
    argv.push("-n", intent.component);
    return argv;
  }
  argv.push("-a", intent.action);
  if (intent.data !== undefined) argv.push("-d", intent.data);
  if (intent.category !== undefined) argv.push("-c", intent.category);
  if (intent.package !== undefined) argv.push("-p", intent.package);
  return argv;
}

/** `am start`'s output as results and errors carry it: at most `MAX_AM_OUTPUT_CHARS`. Pure. */
export function boundedAmOutput(text: string): string {
  return text.length > MAX_AM_OUTPUT_CHARS
    ? `${text.slice(0, MAX_AM_OUTPUT_CHARS)}\n… (output cut)`
    : text;
}

interface AmStartOptions {
  /** `-W`: wait for the launch and report its timing. */
  wait: boolean;
  signal?: AbortSignal;
  /** Default `AM_START_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** What was asked, for the error: `start com.example/.Main`, `open the link`. */
  what: string;
  /** What to try when it failed, for the error. */
  next: string;
  /** Fields the error's data carries besides `serial` and `output`. */
  data?: Record<string, unknown>;
}

interface AmStarted {
  /** stdout then stderr, bounded (`boundedAmOutput`). */
  output: string;
  report: AmStartReport;
}

/**
 * Runs `am start` on `serial`. A failure `am` reported (in its output, whatever its exit status)
 * is `launch_failed`: `Could not <what> on <serial>: <am's line>; <next>`.
 */
export async function amStart(
  adb: DeviceShell,
  serial: string,
  intent: AmIntent,
  opts: AmStartOptions,
): Promise<AmStarted> {
  const out = await runText(adb, serial, amStartArgv(intent, opts.wait), {
    signal: opts.signal,
    timeoutMs: opts.timeoutMs ?? AM_START_TIMEOUT_MS,
    maxOutputBytes: MAX_AM_OUTPUT_BYTES,
  });
  const report = parseAmStart(out.text, out.code);
  const output = boundedAmOutput(out.text.trimEnd());
  if (report.error !== null) {
    throw new ToolError(
      "launch_failed",
      `Could not ${opts.what} on ${serial}: ${report.error}; ${opts.next}`,
      { serial, ...opts.data, output },
    );
  }
  return { output, report };
}
