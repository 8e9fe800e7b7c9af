/**
 * The main thread's handle on the retrace worker (workers/retrace.ts): the mapping read, index and
 * lookups run there, so the thread that serves every session never blocks on a mapping (a 154 MB
 * mapping indexed on it stalled every other call 6.7 s). The worker starts on the first retrace,
 * with read access to the data directory and the project roots seen so far
 * (retraceWorkerPermissions); a retrace of a project root it was not granted restarts it with that
 * root added (its cache is lost; a call in flight on the old one is answered "retry").
 */
import { retraceWorkerPermissions, startWorker } from "../core/worker_permissions.ts";
import type { WorkerClient } from "../core/worker_rpc.ts";
import type { RetraceMemory, RetraceMethods, RunParams, RunResult } from "./retrace_protocol.ts";

/** Budget of one retrace request (reading and indexing a 512 MB mapping takes seconds). */
export const RETRACE_TIMEOUT_MS = 120_000;
/** Project roots the worker may read at once; the oldest is dropped past this. */
export const MAX_RETRACE_ROOTS = 16;

export interface RetraceClientOptions {
  dataDir: string;
  /** Bytes all cached mappings may cost (default the worker's, DEFAULT_RETRACE_MEMORY_BYTES). */
  budgetBytes?: number;
  /** Where workers/retrace.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
}

export class RetraceClient {
  readonly #opts: RetraceClientOptions;
  #worker: WorkerClient<RetraceMethods> | null = null;
  /** The roots the running worker may read (as given and canonical). */
  #roots: string[] = [];

  constructor(opts: RetraceClientOptions) {
    this.#opts = opts;
  }

  /** True once the worker runs. */
  get running(): boolean {
    return this.#worker !== null && !this.#worker.closed;
  }

  async #ensure(root: string | null): Promise<WorkerClient<RetraceMethods>> {
    let restart = !this.running;
    if (root !== null) {
      const canonical = await Deno.realPath(root).catch(() => root);
      for (const r of [root, canonical]) {
        if (this.#roots.includes(r)) continue;
        this.#roots.push(r);
        restart = true;
      }
      while (this.#roots.length > 2 * MAX_RETRACE_ROOTS) this.#roots.shift();
    }
    if (!restart) return this.#worker!;
    this.#worker?.close();
    const url = new URL(
      this.#opts.workerUrl ?? new URL("../../workers/retrace.ts", import.meta.url),
    );
    url.searchParams.set("dataDir", this.#opts.dataDir);
    if (this.#opts.budgetBytes !== undefined) {
      url.searchParams.set("budget", String(this.#opts.budgetBytes));
    }
    this.#worker = startWorker<RetraceMethods>(
      url,
      retraceWorkerPermissions({ dataDir: this.#opts.dataDir, projectRoots: this.#roots }),
      "retrace",
    );
    return this.#worker;
  }

  /** Retraces `p.traces` with `p.mapping` in the worker. */
  async run(p: RunParams, signal?: AbortSignal): Promise<RunResult> {
    const root = p.mapping.kind === "project" ? p.mapping.root : null;
    const worker = await this.#ensure(root);
    return await worker.request("retrace.run", p, { signal, timeoutMs: RETRACE_TIMEOUT_MS });
  }

  /** The worker's memory and cache (starts nothing: `null` before the first retrace). */
  async memory(): Promise<RetraceMemory | null> {
    if (!this.running) return null;
    return await this.#worker!.request("retrace.memory", null, { timeoutMs: 10_000 });
  }

  close(): void {
    this.#worker?.close();
    this.#worker = null;
  }
}
