/**
 * The answers about crashes, over every device's pipeline: the newest crashes and their groups,
 * one crash's parsed trace with its context, the crashes for the debug sessions, and a retraced
 * crash parsed again. The service (logcat_service.ts) answers the worker's crash messages here.
 */
import {
  crashSignature,
  describeFrame,
  type Frame,
  markJavaApp,
  MAX_CRASH_LINES_REDERIVED,
  parseCrash,
  type ParsedCrash,
} from "./crash_parser.ts";
import {
  addAnrReason,
  anrReasonKey,
  type AnrReasons,
  emptyAnrReasons,
} from "./shared/anr_reasons.ts";
import type {
  CrashesResult,
  CrashGroup,
  CrashSummary,
  DebugSessionCrash,
  RederiveParams,
  RederiveResult,
  TraceParams,
  TraceResult,
} from "./shared/logcat_protocol.ts";
import type { CrashRecord } from "./crash_record.ts";
import type { DevicePipeline } from "./pipeline.ts";

/** Crashes one query returns at most. */
const MAX_CRASHES_PER_QUERY = 200;
/** Characters of a crash's raw trace returned. */
const MAX_TRACE_CHARS = 64 * 1024;
/** Frames returned per throwable by get_crash_stack_trace. */
const MAX_FRAMES_RETURNED = 100;
/** pids listed per crash group. */
const MAX_GROUP_PIDS = 20;
/** Crashes one `logcat.session_crashes` answer carries at most. */
const MAX_SESSION_CRASHES_PER_QUERY = 50;
/** Characters of a crash's one-line summary for the sessions. */
const MAX_SESSION_SUMMARY_CHARS = 300;

/** A crash with the pipeline that keeps it. */
interface KeptCrash {
  pipeline: DevicePipeline;
  record: CrashRecord;
}

/** Every device's kept crashes, in the order they were read. */
function keptCrashes(pipelines: readonly DevicePipeline[]): KeptCrash[] {
  const out: KeptCrash[] = [];
  for (const pipeline of pipelines) {
    for (const record of pipeline.crashes) out.push({ pipeline, record });
  }
  return out.sort((a, b) => a.record.seq - b.record.seq);
}

/** A crash's one-line form. */
function crashSummary(pipeline: DevicePipeline, r: CrashRecord): CrashSummary {
  const c = pipeline.parsedOf(r);
  return {
    crash_id: r.id,
    crash_group_id: pipeline.groupOf(r),
    device: r.device,
    time: r.time,
    received_at: r.receivedAt,
    kind: r.kind,
    pid: c.pid ?? r.pid,
    process: c.process,
    package: c.package,
    exception_type: c.exception_type,
    message: c.message,
    first_app_frame: describeFrame(c.first_app_frame),
    process_died: r.died,
  };
}

/** The groups of `all`, counting the crashes the pipelines dropped (and their ANR reasons). */
function crashGroups(
  pipelines: readonly DevicePipeline[],
  all: readonly KeptCrash[],
): Map<string, CrashGroup> {
  const groups = new Map<string, CrashGroup>();
  const droppedReasons = new Map<string, AnrReasons>();
  const reasonKeys = new Map<string, Map<string, number>>();
  const keysOf = (id: string) => {
    let k = reasonKeys.get(id);
    if (!k) reasonKeys.set(id, k = new Map());
    return k;
  };
  // Dropped crashes are older than every kept one: their reasons are counted first.
  for (const pipeline of pipelines) {
    for (const [id, dropped] of pipeline.droppedGroups) {
      if (!dropped.reasons) continue;
      let into = droppedReasons.get(id);
      if (!into) droppedReasons.set(id, into = emptyAnrReasons());
      for (const x of dropped.reasons.reasons) addAnrReason(into, keysOf(id), x.reason, x.count);
      if (dropped.reasons.other_reasons) into.other_reasons += dropped.reasons.other_reasons;
    }
  }
  for (const { pipeline, record } of all) {
    const id = pipeline.groupOf(record);
    const c: ParsedCrash = pipeline.parsedOf(record);
    let g = groups.get(id);
    if (!g) {
      g = {
        crash_group_id: id,
        kind: record.kind,
        exception_type: c.exception_type,
        message: c.message,
        package: c.package,
        process: c.process,
        count: 0,
        first_seen: record.time,
        last_seen: record.time,
        pids: [],
        devices: [],
        first_app_frame: describeFrame(c.first_app_frame),
        signature: "",
        anr_reasons: record.kind === "anr" ? droppedReasons.get(id) ?? emptyAnrReasons() : null,
      };
      groups.set(id, g);
    }
    g.count++;
    g.last_seen = record.time;
    g.message = c.message;
    if (g.anr_reasons) addAnrReason(g.anr_reasons, keysOf(id), c.message);
    const pid = c.pid ?? record.pid;
    if (!g.pids.includes(pid) && g.pids.length < MAX_GROUP_PIDS) g.pids.push(pid);
    if (!g.devices.includes(record.device)) g.devices.push(record.device);
  }
  for (const pipeline of pipelines) {
    for (const [id, dropped] of pipeline.droppedGroups) {
      const g = groups.get(id);
      if (!g) continue;
      g.count += dropped.count;
      g.first_seen = dropped.firstSeen;
    }
  }
  return groups;
}

/** The newest `count` crashes and their groups (`logcat.crashes`). */
export function crashesAnswer(pipelines: readonly DevicePipeline[], count: number): CrashesResult {
  const n = Math.max(0, Math.min(MAX_CRASHES_PER_QUERY, Math.floor(count)));
  const all = keptCrashes(pipelines);
  const groups = crashGroups(pipelines, all);
  const newest = all.slice(-n).reverse();
  const crashes = newest.map(({ pipeline, record }) => crashSummary(pipeline, record));
  const shown = new Set(crashes.map((c) => c.crash_group_id));
  return {
    crashes,
    groups: [...groups.values()].filter((g) => shown.has(g.crash_group_id))
      .sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0)),
    total_crashes: all.length,
    total_groups: groups.size,
  };
}

/**
 * The crashes read after crash id `afterId`, oldest first (at most
 * `MAX_SESSION_CRASHES_PER_QUERY`), with their kept lines, for the debug sessions.
 */
export function sessionCrashes(
  pipelines: readonly DevicePipeline[],
  afterId: number,
): DebugSessionCrash[] {
  const out: DebugSessionCrash[] = [];
  for (const { pipeline, record } of keptCrashes(pipelines)) {
    if (record.id <= afterId) continue;
    const c = pipeline.parsedOf(record);
    const head = `${c.exception_type ?? record.kind}${
      c.message ? `: ${c.message.split("\n")[0]}` : ""
    }`;
    out.push({
      crash_id: record.id,
      device: record.device,
      kind: record.kind,
      pid: c.pid ?? record.pid,
      package: c.package,
      time: record.time,
      received_at: record.receivedAt,
      summary: head.slice(0, MAX_SESSION_SUMMARY_CHARS),
      // An ANR's group is its app's; the session's signature also names which deadline ran
      // out, so that comparing two installs tells a new kind of ANR from an old one.
      signature: c.kind === "anr"
        ? `${crashSignature(c)}|${anrReasonKey(c.message ?? "")}`
        : crashSignature(c),
      crash_group_id: pipeline.groupOf(record),
      open: record.open,
      lines: [...record.contextBefore, ...record.lines, ...record.contextAfter],
    });
    if (out.length >= MAX_SESSION_CRASHES_PER_QUERY) break;
  }
  return out;
}

/** The newest crash of a group or package, parsed, with its context (`logcat.trace`). */
export function traceAnswer(
  pipelines: readonly DevicePipeline[],
  p: TraceParams,
): TraceResult | null {
  const all = keptCrashes(pipelines);
  for (let i = all.length - 1; i >= 0; i--) {
    const { pipeline, record } = all[i];
    const c = pipeline.parsedOf(record);
    if (p.crash_group_id !== undefined && pipeline.groupOf(record) !== p.crash_group_id) continue;
    if (p.package !== undefined && c.package !== p.package && c.process !== p.package) continue;
    const group = crashGroups(pipelines, all).get(pipeline.groupOf(record))!;
    let trace = record.lines.join("\n");
    const truncated = trace.length > MAX_TRACE_CHARS;
    if (truncated) trace = trace.slice(0, MAX_TRACE_CHARS);
    return {
      crash: crashSummary(pipeline, record),
      group,
      thread: c.thread,
      signal: c.signal,
      component: c.component,
      frames: c.frames.slice(0, MAX_FRAMES_RETURNED),
      omitted_frames: c.omitted_frames + Math.max(0, c.frames.length - MAX_FRAMES_RETURNED),
      more: c.more,
      causes: c.causes.map((t) => ({
        ...t,
        frames: t.frames.slice(0, MAX_FRAMES_RETURNED),
        omitted_frames: t.omitted_frames + Math.max(0, t.frames.length - MAX_FRAMES_RETURNED),
      })),
      suppressed: c.suppressed.map((t) => ({
        ...t,
        frames: t.frames.slice(0, MAX_FRAMES_RETURNED),
        omitted_frames: t.omitted_frames + Math.max(0, t.frames.length - MAX_FRAMES_RETURNED),
        causes: t.causes.map((x) => ({ ...x, frames: x.frames.slice(0, MAX_FRAMES_RETURNED) })),
      })),
      first_app_frame: c.first_app_frame,
      trace,
      trace_truncated: truncated,
      context_before: record.contextBefore,
      context_after: record.contextAfter,
    };
  }
  return null;
}

/**
 * A crash's fields read again from its retraced text: its frames, which of them are the app's,
 * its first app frame, its type and message (retrace renames them too). The process and package
 * the worker knew stand where the text names none (a tombstone's, a trace without `Process:`).
 */
export function rederive(p: RederiveParams): RederiveResult {
  const lines = p.trace.split("\n", MAX_CRASH_LINES_REDERIVED);
  const c = parseCrash(p.kind, lines);
  if (c.process === null && p.process !== null) {
    c.process = p.process;
    c.package = p.package;
    if (c.kind === "java") markJavaApp(c);
  }
  const cut = (frames: Frame[]) => frames.slice(0, MAX_FRAMES_RETURNED);
  return {
    exception_type: c.exception_type,
    message: c.message,
    frames: cut(c.frames),
    omitted_frames: c.omitted_frames + Math.max(0, c.frames.length - MAX_FRAMES_RETURNED),
    more: c.more,
    causes: c.causes.map((t) => ({ ...t, frames: cut(t.frames) })),
    suppressed: c.suppressed.map((t) => ({
      ...t,
      frames: cut(t.frames),
      causes: t.causes.map((x) => ({ ...x, frames: cut(x.frames) })),
    })),
    first_app_frame: c.first_app_frame,
  };
}
