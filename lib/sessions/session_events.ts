/**
 * The session changes the tools queue, in one place: a session opened by an install, a launch, the
 * exits read from the device's exit history. Pure builders of `DebugSessionOp`s (queued on the
 * process's SessionRecorder).
 */
import type { Origin } from "../build/shared/build_record.ts";
import type { DebugSessionOp } from "./session_store.ts";
import type { NewDebugSession } from "./session_model.ts";

interface LaunchFacts {
  total_ms: number | null;
  wait_ms: number | null;
  launch_state: string | null;
  displayed_ms?: number | null;
  fully_drawn_ms?: number | null;
  component?: string | null;
  /** restart_app: the app was force-stopped first. */
  restart?: boolean;
}

/** A session opened by an install (supersedes the device's open session of the package). */
export function openOp(session: NewDebugSession): DebugSessionOp {
  return { type: "open", session };
}

/** A `launch` event for the open session of `pkg` on `serial`. */
export function launchOp(
  serial: string,
  pkg: string,
  facts: LaunchFacts,
  by: Origin,
  at = new Date(),
): DebugSessionOp {
  const time = facts.total_ms !== null
    ? `${facts.total_ms} ms${facts.launch_state ? ` (${facts.launch_state.toLowerCase()})` : ""}`
    : "no time reported";
  return {
    type: "event",
    serial,
    package: pkg,
    event: {
      at,
      kind: "launch",
      by,
      summary: `${facts.restart ? "restarted" : "launched"} ${facts.component ?? pkg}: ${time}${
        facts.displayed_ms != null ? `, displayed ${facts.displayed_ms} ms` : ""
      }`,
      data: {
        total_ms: facts.total_ms,
        wait_ms: facts.wait_ms,
        launch_state: facts.launch_state,
        displayed_ms: facts.displayed_ms ?? null,
        fully_drawn_ms: facts.fully_drawn_ms ?? null,
        restart: facts.restart === true,
      },
    },
  };
}

/** What `get_frame_stats` measured, as a session records and compares it. */
interface FrameFacts {
  total_frames: number;
  janky_frames: number;
  janky_percent: number;
  p50_ms: number | null;
  p90_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  /** The counters ran from a reset keynobi made (a measured interaction), not the app's start. */
  since_reset: boolean;
}

/** A `frames` event for the open session of `pkg` on `serial`. */
export function framesOp(
  serial: string,
  pkg: string,
  facts: FrameFacts,
  by: Origin,
  at = new Date(),
): DebugSessionOp {
  const p90 = facts.p90_ms !== null ? `, p90 ${facts.p90_ms} ms` : "";
  return {
    type: "event",
    serial,
    package: pkg,
    event: {
      at,
      kind: "frames",
      by,
      summary: `frames: ${facts.total_frames}, ${facts.janky_percent}% janky${p90}${
        facts.since_reset ? " (since a reset)" : ""
      }`,
      data: { ...facts },
    },
  };
}

/** A screen recording kept in the data directory, for every open session of the device. */
export function recordingOp(
  serial: string,
  saved: { file: string; bytes: number; duration_s: number; started_at: string },
  by: Origin,
  at = new Date(),
): DebugSessionOp {
  return {
    type: "event",
    serial,
    package: null,
    event: {
      at,
      kind: "recording",
      by,
      summary: `screen recording ${saved.file} (${saved.duration_s} s, ${
        Math.round(saved.bytes / 1024)
      } KB)`,
      data: { ...saved },
    },
  };
}

/** `PACKAGE UPDATED` (ApplicationExitInfo.REASON_PACKAGE_UPDATED), `… due to installPackageLI`. */
function isUpdateExit(x: ExitFacts): boolean {
  return /PACKAGE.UPDATED/i.test(x.reason ?? "") || /installPackageLI/.test(x.description ?? "");
}

interface ExitFacts {
  timestamp: string | null;
  pid: number | null;
  reason: string | null;
  description: string | null;
}

/**
 * `exit` events for the exits of `pkg` on `serial` (each keyed by time and pid, so one read twice
 * is recorded once), and an `end` when the history says the app was uninstalled.
 */
export function exitOps(
  serial: string,
  pkg: string,
  exits: readonly ExitFacts[],
): DebugSessionOp[] {
  const ops: DebugSessionOp[] = [];
  let uninstalled: ExitFacts | null = null;
  for (const x of [...exits].reverse()) {
    if (x.description && /\buninstall/i.test(x.description)) uninstalled = x;
    // A process stopped because the package was updated ran the install before: it is not this
    // install's exit (and it is stamped at the install itself, too close to tell by time).
    if (isUpdateExit(x)) continue;
    ops.push({
      type: "event",
      serial,
      package: pkg,
      key: `exit|${x.timestamp ?? "?"}|${x.pid ?? "?"}`,
      event: {
        at: new Date(),
        kind: "exit",
        by: { kind: "device" },
        summary: `exit ${x.reason ?? "unknown"}${x.pid !== null ? ` (pid ${x.pid})` : ""}${
          x.timestamp ? ` at ${x.timestamp}` : ""
        }${x.description ? `: ${x.description}` : ""}`,
        data: {
          reason: x.reason,
          pid: x.pid,
          timestamp: x.timestamp,
          description: x.description,
        },
      },
    });
  }
  // The history says the package was uninstalled (`stop … due to uninstall`): the install ended.
  if (uninstalled) {
    ops.push({
      type: "end",
      serial,
      package: pkg,
      state: "ended",
      reason: `the device's exit history says ${pkg} was uninstalled${
        uninstalled.timestamp ? ` (${uninstalled.timestamp})` : ""
      }`,
      at: new Date(),
    });
  }
  return ops;
}
