/**
 * The main thread's handle on the logcat worker. The worker starts on the first `start_logcat`
 * with network access to the ADB server only (logcatWorkerPermissions) and keeps running, with
 * its buffers, until the server exits. Queries before any start answer from nothing, without
 * starting the worker.
 */
import type { AdbServerAddress } from "../../adb/server_address.ts";
import { formatAddress } from "../../adb/server_address.ts";
import { logcatWorkerPermissions, startWorker } from "../../core/worker_permissions.ts";
import { type MethodTable, WorkerClient } from "../../core/worker_client.ts";
import { checkoutUrl } from "../../core/checkout_url.ts";
import {
  type CrashesResult,
  type DebugSessionCrash,
  type EntriesParams,
  type EntriesResult,
  type LogcatMethods,
  MAX_TRACES_PER_QUERY,
  type MemoryResult,
  type RederiveParams,
  type RederiveResult,
  type StartParams,
  type StartResult,
  type StatsResult,
  type TraceParams,
  type TraceResult,
} from "./logcat_protocol.ts";

/** Budget of a query's round trip to the worker. */
const QUERY_TIMEOUT_MS = 10_000;
/** Budget of a start (the device's 5 s plus the process list and slack). */
const START_ANSWER_TIMEOUT_MS = 15_000;
/** Budget of the worker's answer to `logcat.shutdown` (it stops every stream). */
const SHUTDOWN_ANSWER_TIMEOUT_MS = 5_000;

interface LogcatClientOptions {
  dataDir: string;
  /** The ADB server the worker dials. */
  address: AdbServerAddress;
  /** Where workers/logcat.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
}

/** Each method's budget, and what the queries answer before any start (they start nothing). */
const LOGCAT_METHODS: MethodTable<LogcatMethods> = {
  "logcat.start": { budgetMs: START_ANSWER_TIMEOUT_MS },
  "logcat.stop": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => ({ stopped: [] }) },
  "logcat.clear": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => ({ cleared: [] }) },
  "logcat.entries": {
    budgetMs: QUERY_TIMEOUT_MS,
    whenStopped: () => ({
      entries: [],
      stored: 0,
      devices: [],
      query_ms: 0,
      partial: false,
      next_before_seq: null,
    }),
  },
  "logcat.stats": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => null },
  "logcat.crashes": {
    budgetMs: QUERY_TIMEOUT_MS,
    whenStopped: () => ({ crashes: [], groups: [], total_crashes: 0, total_groups: 0 }),
  },
  "logcat.trace": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => null },
  "logcat.traces": {
    budgetMs: QUERY_TIMEOUT_MS,
    whenStopped: (p) => p.crash_group_ids.map(() => null),
  },
  "logcat.rederive": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: (p) => p.traces.map(() => null) },
  "logcat.memory": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => null },
  "logcat.session_crashes": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => [] },
  "logcat.shutdown": { budgetMs: SHUTDOWN_ANSWER_TIMEOUT_MS },
};

export class LogcatClient {
  readonly #worker: WorkerClient<LogcatMethods>;

  constructor(opts: LogcatClientOptions) {
    this.#worker = new WorkerClient(LOGCAT_METHODS, () => {
      const adbServer = formatAddress(opts.address);
      const url = new URL(
        opts.workerUrl ?? checkoutUrl("../../../workers/logcat.ts", import.meta.url),
      );
      url.searchParams.set("adb", adbServer);
      return startWorker<LogcatMethods>(
        url,
        logcatWorkerPermissions({ dataDir: opts.dataDir, adbServer }),
        "logcat",
      );
    });
  }

  /** True once the worker runs (some device was started). */
  get running(): boolean {
    return this.#worker.running;
  }

  start(p: StartParams, signal?: AbortSignal): Promise<StartResult> {
    return this.#worker.call("logcat.start", p, { signal });
  }

  stop(serial?: string, signal?: AbortSignal): Promise<{ stopped: string[] }> {
    return this.#worker.call("logcat.stop", { serial }, { signal });
  }

  clear(serial?: string, signal?: AbortSignal): Promise<{ cleared: string[] }> {
    return this.#worker.call("logcat.clear", { serial }, { signal });
  }

  entries(p: EntriesParams, signal?: AbortSignal): Promise<EntriesResult> {
    return this.#worker.call("logcat.entries", p, { signal });
  }

  stats(signal?: AbortSignal): Promise<StatsResult | null> {
    return this.#worker.call("logcat.stats", null, { signal });
  }

  crashes(count: number, signal?: AbortSignal): Promise<CrashesResult> {
    return this.#worker.call("logcat.crashes", { count }, { signal });
  }

  trace(p: TraceParams, signal?: AbortSignal): Promise<TraceResult | null> {
    return this.#worker.call("logcat.trace", p, { signal });
  }

  /**
   * Retraced crashes' fields read again from their new names, in one answer (at most
   * `MAX_TRACES_PER_QUERY`; null for each when no worker runs).
   */
  rederive(ps: RederiveParams[], signal?: AbortSignal): Promise<(RederiveResult | null)[]> {
    const traces = ps.slice(0, MAX_TRACES_PER_QUERY);
    return this.#worker.call("logcat.rederive", { traces }, { signal });
  }

  /** The newest trace of each group, in one answer (at most `MAX_TRACES_PER_QUERY` groups). */
  traces(crashGroupIds: string[], signal?: AbortSignal): Promise<(TraceResult | null)[]> {
    const ids = crashGroupIds.slice(0, MAX_TRACES_PER_QUERY);
    return this.#worker.call("logcat.traces", { crash_group_ids: ids }, { signal });
  }

  /** The worker's memory (after a full collection when the process runs with --expose-gc). */
  memory(signal?: AbortSignal): Promise<MemoryResult | null> {
    return this.#worker.call("logcat.memory", null, { signal });
  }

  /** The crashes read after crash id `afterId` (debug sessions); none before any start. */
  sessionCrashes(afterId: number, signal?: AbortSignal): Promise<DebugSessionCrash[]> {
    return this.#worker.call("logcat.session_crashes", { after_id: afterId }, { signal });
  }

  /** Stops every stream, then the worker. */
  close(): Promise<void> {
    return this.#worker.shutdown("logcat.shutdown", null);
  }
}
