/**
 * The main thread's handle on the retrace worker (workers/retrace.ts): the mapping read, index and
 * lookups run there, so the thread that serves every session never blocks on a mapping (a 154 MB
 * mapping indexed on it stalled every other call 6.7 s). The worker starts on the first retrace,
 * with read access to the data directory and the project roots seen so far
 * (retraceWorkerPermissions); a retrace of a project root it was not granted restarts it with that
 * root added (its cache is lost; a call in flight on the old one is answered "retry").
 */
import { retraceWorkerPermissions, startWorker } from "../../core/worker_permissions.ts";
import { type MethodTable, WorkerClient } from "../../core/worker_client.ts";
import { checkoutUrl } from "../../core/checkout_url.ts";
import type { RetraceMemory, RetraceMethods, RunParams, RunResult } from "./retrace_protocol.ts";

/** Budget of one retrace request (reading and indexing a 512 MB mapping takes seconds). */
const RETRACE_TIMEOUT_MS = 120_000;
/** Project roots the worker may read at once; the oldest is dropped past this. */
const MAX_RETRACE_ROOTS = 16;
/** Budget of a memory question. */
const MEMORY_TIMEOUT_MS = 10_000;

/** Each method's budget; `retrace.memory` starts nothing (`null` before the first retrace). */
const RETRACE_METHODS: MethodTable<RetraceMethods> = {
  "retrace.run": { budgetMs: RETRACE_TIMEOUT_MS },
  "retrace.memory": { budgetMs: MEMORY_TIMEOUT_MS, whenStopped: () => null },
};

interface RetraceClientOptions {
  dataDir: string;
  /** Bytes all cached mappings may cost (default the worker's, DEFAULT_RETRACE_MEMORY_BYTES). */
  budgetBytes?: number;
  /** Where workers/retrace.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
  /**
   * Whether `file` mappings (any path the local user names) are retraced: only by `keynobi
   * retrace`'s own client (lib/cli/retrace.ts); the worker is then granted read of each one asked.
   */
  anyFile?: boolean;
}

export class RetraceClient {
  readonly #opts: RetraceClientOptions;
  readonly #worker: WorkerClient<RetraceMethods>;
  /** The roots (and `file` mappings) the running worker may read (as given and canonical). */
  #roots: string[] = [];

  constructor(opts: RetraceClientOptions) {
    this.#opts = opts;
    this.#worker = new WorkerClient(RETRACE_METHODS, () => this.#start());
  }

  /** True once the worker runs. */
  get running(): boolean {
    return this.#worker.running;
  }

  #start() {
    const url = new URL(
      this.#opts.workerUrl ?? checkoutUrl("../../../workers/retrace.ts", import.meta.url),
    );
    url.searchParams.set("dataDir", this.#opts.dataDir);
    if (this.#opts.anyFile) url.searchParams.set("anyFile", "1");
    if (this.#opts.budgetBytes !== undefined) {
      url.searchParams.set("budget", String(this.#opts.budgetBytes));
    }
    return startWorker<RetraceMethods>(
      url,
      retraceWorkerPermissions({ dataDir: this.#opts.dataDir, projectRoots: this.#roots }),
      "retrace",
    );
  }

  /** A root the running worker was not granted renews it with the root added. */
  async #grant(root: string): Promise<void> {
    const canonical = await Deno.realPath(root).catch(() => root);
    for (const r of [root, canonical]) {
      if (this.#roots.includes(r)) continue;
      this.#roots.push(r);
      this.#worker.renew();
    }
    while (this.#roots.length > 2 * MAX_RETRACE_ROOTS) this.#roots.shift();
  }

  /** Retraces `p.traces` with `p.mapping` in the worker. */
  async run(p: RunParams, signal?: AbortSignal): Promise<RunResult> {
    if (p.mapping.kind === "project") await this.#grant(p.mapping.root);
    // Never granted to a client without anyFile: its worker refuses `file` mappings anyway.
    if (p.mapping.kind === "file" && this.#opts.anyFile) await this.#grant(p.mapping.path);
    return await this.#worker.call("retrace.run", p, { signal });
  }

  /** The worker's memory and cache (starts nothing: `null` before the first retrace). */
  memory(): Promise<RetraceMemory | null> {
    return this.#worker.call("retrace.memory", null);
  }

  close(): void {
    this.#worker.close();
  }
}
