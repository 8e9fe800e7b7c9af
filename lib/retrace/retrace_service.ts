/**
 * The retrace worker's work (workers/retrace.ts), for the crash tools and `keynobi retrace`: open
 * the mapping (lib/retrace/mapping_source.ts), index it under the one memory budget
 * (lib/retrace/mapping_cache.ts), retrace each trace (lib/retrace/retrace_text.ts).
 */
import { invalidParams } from "../core/errors.ts";
import { MappingCache, type MappingCacheOptions } from "./mapping_cache.ts";
import { keptKey, openMapping } from "./mapping_source.ts";
import type { MappingIndex } from "./mapping_index.ts";
import {
  type MappingRef,
  MAX_TRACE_CHARS,
  MAX_TRACES_PER_REQUEST,
  type RetraceMemory,
  type RunParams,
  type RunResult,
} from "./shared/retrace_protocol.ts";
import { retraceText } from "./retrace_text.ts";

interface RetraceServiceOptions extends MappingCacheOptions {
  dataDir: string;
  /** Whether `file` references (any path) are served: only for `keynobi retrace`'s client. */
  anyFile?: boolean;
}

function checkParams(p: RunParams, anyFile: boolean): void {
  if (!Array.isArray(p.traces) || p.traces.length > MAX_TRACES_PER_REQUEST) {
    throw invalidParams(`A retrace takes at most ${MAX_TRACES_PER_REQUEST} traces`);
  }
  for (const t of p.traces) {
    if (typeof t !== "string" || t.length > MAX_TRACE_CHARS) {
      throw invalidParams(`A trace to retrace has at most ${MAX_TRACE_CHARS} characters`);
    }
  }
  const ref: MappingRef = p.mapping;
  if (ref?.kind === "file" && !anyFile) {
    throw invalidParams("The retrace worker reads kept and project mappings only");
  }
}

export class RetraceService {
  readonly cache: MappingCache;
  readonly #dataDir: string;
  readonly #anyFile: boolean;

  constructor(opts: RetraceServiceOptions) {
    this.#dataDir = opts.dataDir;
    this.#anyFile = opts.anyFile === true;
    this.cache = new MappingCache(opts);
  }

  async run(p: RunParams): Promise<RunResult> {
    checkParams(p, this.#anyFile);
    // A kept mapping is named by its content's hash: cached, it needs no open at all.
    const kept = p.mapping.kind === "kept" ? this.cache.hit(keptKey(p.mapping.sha256)) : null;
    if (kept) return this.#answer(kept, true, 0, p.traces);
    const opened = await openMapping(this.#dataDir, p.mapping);
    let cached = true;
    const t0 = performance.now();
    let index;
    try {
      index = this.cache.hit(opened.key) ??
        await this.cache.load(opened.key, opened.bytes, () => {
          cached = false;
          return opened.read();
        }, opened.what);
    } finally {
      await opened.close();
    }
    return this.#answer(index, cached, cached ? 0 : performance.now() - t0, p.traces);
  }

  #answer(index: MappingIndex, cached: boolean, loadMs: number, traces: string[]): RunResult {
    const t0 = performance.now();
    const outputs = traces.map((t) => retraceText(t, index));
    return {
      mapping: {
        file_bytes: index.fileBytes,
        classes: index.classCount,
        map_id: index.header.mapId,
        cached,
        load_ms: loadMs,
      },
      retrace_ms: performance.now() - t0,
      outputs,
    };
  }

  memory(): RetraceMemory {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (typeof gc === "function") {
      gc();
      gc();
    }
    const m = Deno.memoryUsage();
    return {
      collected: typeof gc === "function",
      cache: this.cache.stats(),
      heap_used_bytes: m.heapUsed,
      external_bytes: m.external,
      rss_bytes: m.rss,
    };
  }
}
