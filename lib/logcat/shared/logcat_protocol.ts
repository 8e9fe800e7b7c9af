/**
 * The logcat worker's messages (workers/logcat.ts ↔ lib/logcat/logcat_client.ts). The worker owns
 * the streams, the ring buffers and the crash records; only answers cross to the main thread.
 */
import type { AnrReasons } from "./anr_reasons.ts";
import type { Frame, SuppressedThrowable, Throwable } from "./crash_frames.ts";

export type StreamState = "starting" | "streaming" | "stopped" | "disconnected";

export interface StartParams {
  serial: string;
  /** Ring size for the device (settings `mcp.logcat_buffer_entries`, clamped). */
  capacity: number;
}

export interface StartResult {
  serial: string;
  state: StreamState;
  /** True when the device already streamed. */
  already: boolean;
  /** True when this start resumed a stream that had stopped or disconnected. */
  resumed: boolean;
  stored: number;
  capacity: number;
  processes_known: number;
}

export interface EntriesParams {
  count: number;
  min_level?: number;
  tag?: string;
  text?: string;
  package?: string;
  only_crashes?: boolean;
  serial?: string;
  /** Only entries older than this seq (a partial answer's `next_before_seq`). */
  before_seq?: number;
}

/** One stored entry as an answer carries it. */
export interface LogEntryOut {
  seq: number;
  device: string;
  time: string;
  pid: number;
  tid: number | null;
  level: string;
  tag: string;
  message: string;
  package: string | null;
  process: string | null;
  category: string;
  crash?: true;
  continuation?: true;
  malformed?: true;
  json?: unknown;
}

export interface EntriesResult {
  entries: LogEntryOut[];
  /** Entries stored over the devices asked (before filtering). */
  stored: number;
  devices: string[];
  query_ms: number;
  /**
   * True when a text query stopped at its scan bound (the index not built yet, right after a
   * burst): `entries` are exact down to `next_before_seq`; ask again with it as `before_seq`.
   */
  partial: boolean;
  next_before_seq: number | null;
}

export interface DeviceStats {
  serial: string;
  state: StreamState;
  /** Why the stream ended (disconnect, error, stop_logcat). */
  reason: string | null;
  started_at: string | null;
  ended_at: string | null;
  lines_read: number;
  stored: number;
  capacity: number;
  evicted: number;
  continuation_lines: number;
  malformed_lines: number;
  dividers: number;
  crashes: number;
  levels: Record<string, number>;
  rate_per_sec: number;
  top_tags: { tag: string; count: number }[];
  processes_known: number;
  ingest_ms: number;
  /** Text-index blocks not built yet (built in idle time, or by the next text query). */
  text_index_stale_blocks: number;
}

export interface StatsResult {
  devices: DeviceStats[];
  /** The worker isolate's heap in bytes, and the process RSS. */
  heap_used_bytes: number;
  rss_bytes: number;
}

/** The worker's memory, after a full collection when the process allows one (`--expose-gc`). */
export interface MemoryResult {
  /** Whether a full garbage collection ran first (only with `--v8-flags=--expose-gc`). */
  collected: boolean;
  /** The worker isolate's heap in use and reserved, and its external (ArrayBuffer) memory. */
  heap_used_bytes: number;
  heap_total_bytes: number;
  external_bytes: number;
  /** The whole process's resident set. */
  rss_bytes: number;
}

export interface CrashSummary {
  crash_id: number;
  crash_group_id: string;
  device: string;
  time: string;
  received_at: string;
  kind: string;
  pid: number;
  process: string | null;
  package: string | null;
  exception_type: string | null;
  message: string | null;
  first_app_frame: string | null;
  process_died: boolean;
}

export interface CrashGroup {
  crash_group_id: string;
  kind: string;
  exception_type: string | null;
  message: string | null;
  package: string | null;
  process: string | null;
  count: number;
  first_seen: string;
  last_seen: string;
  pids: number[];
  devices: string[];
  first_app_frame: string | null;
  signature: string;
  /** ANR groups: every distinct reason seen, each counted (anr_reasons.ts); null otherwise. */
  anr_reasons: AnrReasons | null;
}

export interface CrashesResult {
  crashes: CrashSummary[];
  groups: CrashGroup[];
  total_crashes: number;
  total_groups: number;
}

/** Groups one `logcat.traces` asks for at most. */
export const MAX_TRACES_PER_QUERY = 16;

/**
 * A crash's text with new names (retraced): the worker parses it again. One `logcat.rederive`
 * reads up to MAX_TRACES_PER_QUERY of them (get_crash_logs' retraced groups in one crossing).
 */
export interface RederiveParams {
  kind: "java" | "anr" | "native";
  /** The crash's lines, as retrace printed them. */
  trace: string;
  /** The crash's process and package as the worker knew them. */
  process: string | null;
  package: string | null;
}

/** Every field derived from a crash's names, read again from its retraced text. */
export interface RederiveResult {
  exception_type: string | null;
  message: string | null;
  frames: Frame[];
  omitted_frames: number;
  more: number | null;
  causes: Throwable[];
  suppressed: SuppressedThrowable[];
  first_app_frame: Frame | null;
}

export interface TraceParams {
  package?: string;
  crash_group_id?: string;
}

export interface TraceResult {
  crash: CrashSummary;
  group: CrashGroup;
  thread: string | null;
  signal: { number: number; name: string; code: string | null; fault_addr: string | null } | null;
  component: string | null;
  frames: Frame[];
  omitted_frames: number;
  more: number | null;
  causes: Throwable[];
  /** `Suppressed:` exceptions, apart from the cause chain (`suppressed_by`: -1 the exception). */
  suppressed: SuppressedThrowable[];
  first_app_frame: Frame | null;
  /** The crash's lines as logcat printed them (messages only). */
  trace: string;
  trace_truncated: boolean;
  context_before: string[];
  context_after: string[];
}

/** A crash for the debug sessions (lib/sessions/session_recorder.ts). */
export interface DebugSessionCrash {
  crash_id: number;
  device: string;
  kind: "java" | "anr" | "native";
  pid: number;
  package: string | null;
  /** Logcat time as printed, and when the worker read it (ISO). */
  time: string;
  received_at: string;
  summary: string;
  signature: string;
  crash_group_id: string | null;
  /** Still collecting lines after it. */
  open: boolean;
  lines: string[];
}

export type LogcatMethods = {
  "logcat.session_crashes": { params: { after_id: number }; result: DebugSessionCrash[] };
  "logcat.start": { params: StartParams; result: StartResult };
  "logcat.stop": { params: { serial?: string }; result: { stopped: string[] } };
  "logcat.clear": { params: { serial?: string }; result: { cleared: string[] } };
  "logcat.entries": { params: EntriesParams; result: EntriesResult };
  "logcat.stats": { params: null; result: StatsResult | null };
  "logcat.crashes": { params: { count: number }; result: CrashesResult };
  "logcat.trace": { params: TraceParams; result: TraceResult | null };
  /** Several groups' newest traces in one answer (get_crash_logs with retrace). */
  "logcat.traces": { params: { crash_group_ids: string[] }; result: (TraceResult | null)[] };
  /** Parses a retraced crash again, so nothing derived keeps an obfuscated name. */
  "logcat.rederive": { params: { traces: RederiveParams[] }; result: (RederiveResult | null)[] };
  "logcat.shutdown": { params: null; result: { stopped: number } };
  "logcat.memory": { params: null; result: MemoryResult | null };
};
