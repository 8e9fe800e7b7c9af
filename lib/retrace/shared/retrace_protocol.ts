/**
 * The messages between the main thread (lib/retrace/shared/retrace_client.ts) and the retrace
 * worker (workers/retrace.ts over lib/retrace/retrace_service.ts): one request retraces up to
 * `MAX_TRACES_PER_REQUEST` traces with one mapping, so a `get_crash_logs {retrace: true}` crosses
 * once per mapping, not once per group. The types of what crosses live here, not in the worker
 * files that make them: the main thread imports nothing else of lib/retrace but shared/.
 */

/** Traces one request retraces at most. */
export const MAX_TRACES_PER_REQUEST = 16;
/** Characters of one trace at most. */
export const MAX_TRACE_CHARS = 1024 * 1024;

/** Which mapping to retrace with. */
export type MappingRef =
  /** One keynobi kept from a build (lib/retrace/shared/mapping_store.ts), by its SHA-256. */
  | { kind: "kept"; sha256: string }
  /** A file of the project: `path` relative to `root`, or absolute inside it. */
  | { kind: "project"; root: string; path: string }
  /** Any file the local user names (`keynobi retrace --mapping FILE`; only that CLI's worker). */
  | { kind: "file"; path: string };

export interface RunParams {
  mapping: MappingRef;
  traces: string[];
}

export interface RunResult {
  mapping: {
    file_bytes: number;
    classes: number;
    map_id: string | null;
    /** Whether the mapping was already indexed. */
    cached: boolean;
    /** Reading and indexing it (0 when cached). */
    load_ms: number;
  };
  /** Retracing the traces in the worker (the mapping loaded). */
  retrace_ms: number;
  outputs: RetraceOutput[];
}

/** One trace retraced (lib/retrace/retrace_text.ts): its text and what was done to it. */
export interface RetraceStats {
  /** Java frames (`at …(…)`) in the trace. */
  frames: number;
  /** Frames the mapping knew and rewrote. */
  retraced: number;
  /** Frames with several fitting original methods (printed with `<OR>`). */
  ambiguous: number;
  /** Exception lines whose class was renamed. */
  exceptions: number;
  /** Lines past `MAX_RETRACE_LINES` (or past `MAX_RETRACE_OUTPUT_LINES` out), kept as printed. */
  skipped_lines: number;
  /** Retraced frames not printed: beyond `MAX_LINES_PER_FRAME` for their input frame. */
  omitted_frames: number;
}

export interface RetraceOutput {
  text: string;
  stats: RetraceStats;
}

/** The worker's mapping cache (lib/retrace/mapping_cache.ts). */
export interface CacheStats {
  budget_bytes: number;
  max_mappings: number;
  /** The mappings held, least recently used first. */
  mappings: { key: string; file_bytes: number; classes: number; cost_bytes: number }[];
  used_bytes: number;
}

export interface RetraceMemory {
  /** Whether a collection ran first (`--v8-flags=--expose-gc`). */
  collected: boolean;
  cache: CacheStats;
  heap_used_bytes: number;
  /** ArrayBuffers (the mapping bytes and tables) of this worker. */
  external_bytes: number;
  rss_bytes: number;
}

export type RetraceMethods = {
  "retrace.run": { params: RunParams; result: RunResult };
  "retrace.memory": { params: null; result: RetraceMemory | null };
};
