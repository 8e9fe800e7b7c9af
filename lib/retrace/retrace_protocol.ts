/**
 * The messages between the main thread (lib/retrace/retrace_client.ts) and the retrace worker
 * (workers/retrace.ts over lib/retrace/retrace_service.ts): one request retraces up to
 * `MAX_TRACES_PER_REQUEST` traces with one mapping, so a `get_crash_logs {retrace: true}` crosses
 * once per mapping, not once per group.
 */
import type { CacheStats } from "./mapping_cache.ts";
import type { MappingRef } from "./mapping_source.ts";
import type { RetraceOutput } from "./retrace_text.ts";

/** Traces one request retraces at most. */
export const MAX_TRACES_PER_REQUEST = 16;
/** Characters of one trace at most. */
export const MAX_TRACE_CHARS = 1024 * 1024;

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
