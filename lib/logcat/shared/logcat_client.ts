/**
 * The main thread's handle on the logcat worker. The worker starts on the first `start_logcat`
 * with network access to the ADB server only (logcatWorkerPermissions) and keeps running, with
 * its buffers, until the server exits. Queries before any start answer from nothing, without
 * starting the worker.
 */
import type { AdbServerAddress } from "../../adb/server_address.ts";
import { formatAddress } from "../../adb/server_address.ts";
import { logcatWorkerPermissions, startWorker } from "../../core/worker_permissions.ts";
import type { WorkerClient } from "../../core/worker_rpc.ts";
import {
  type CrashesResult,
  type EntriesParams,
  type EntriesResult,
  type LogcatMethods,
  MAX_TRACES_PER_QUERY,
  type MemoryResult,
  type RederiveParams,
  type RederiveResult,
  type SessionCrash,
  type StartParams,
  type StartResult,
  type StatsResult,
  type TraceParams,
  type TraceResult,
} from "./logcat_protocol.ts";

/** Budget of a query's round trip to the worker. */
export const QUERY_TIMEOUT_MS = 10_000;
/** Budget of a start (the device's 5 s plus the process list and slack). */
export const START_ANSWER_TIMEOUT_MS = 15_000;

export interface LogcatClientOptions {
  dataDir: string;
  /** The ADB server the worker dials. */
  address: AdbServerAddress;
  /** Where workers/logcat.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
}

export class LogcatClient {
  #opts: LogcatClientOptions;
  #worker: WorkerClient<LogcatMethods> | null = null;

  constructor(opts: LogcatClientOptions) {
    this.#opts = opts;
  }

  /** True once the worker runs (some device was started). */
  get running(): boolean {
    return this.#worker !== null && !this.#worker.closed;
  }

  #ensure(): WorkerClient<LogcatMethods> {
    if (this.#worker && !this.#worker.closed) return this.#worker;
    const adbServer = formatAddress(this.#opts.address);
    const url = new URL(
      this.#opts.workerUrl ?? new URL("../../../workers/logcat.ts", import.meta.url),
    );
    url.searchParams.set("adb", adbServer);
    this.#worker = startWorker<LogcatMethods>(
      url,
      logcatWorkerPermissions({ dataDir: this.#opts.dataDir, adbServer }),
      "logcat",
    );
    return this.#worker;
  }

  start(p: StartParams, signal?: AbortSignal): Promise<StartResult> {
    return this.#ensure().request("logcat.start", p, {
      signal,
      timeoutMs: START_ANSWER_TIMEOUT_MS,
    });
  }

  async stop(serial?: string, signal?: AbortSignal): Promise<{ stopped: string[] }> {
    if (!this.running) return { stopped: [] };
    return await this.#worker!.request("logcat.stop", { serial }, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  async clear(serial?: string, signal?: AbortSignal): Promise<{ cleared: string[] }> {
    if (!this.running) return { cleared: [] };
    return await this.#worker!.request("logcat.clear", { serial }, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  async entries(p: EntriesParams, signal?: AbortSignal): Promise<EntriesResult> {
    if (!this.running) {
      return {
        entries: [],
        stored: 0,
        devices: [],
        query_ms: 0,
        partial: false,
        next_before_seq: null,
      };
    }
    return await this.#worker!.request("logcat.entries", p, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  async stats(signal?: AbortSignal): Promise<StatsResult | null> {
    if (!this.running) return null;
    return await this.#worker!.request("logcat.stats", null, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  async crashes(count: number, signal?: AbortSignal): Promise<CrashesResult> {
    if (!this.running) return { crashes: [], groups: [], total_crashes: 0, total_groups: 0 };
    return await this.#worker!.request("logcat.crashes", { count }, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  async trace(p: TraceParams, signal?: AbortSignal): Promise<TraceResult | null> {
    if (!this.running) return null;
    return await this.#worker!.request("logcat.trace", p, { signal, timeoutMs: QUERY_TIMEOUT_MS });
  }

  /** A retraced crash's fields read again from its new names (null when no worker runs). */
  async rederive(p: RederiveParams, signal?: AbortSignal): Promise<RederiveResult | null> {
    if (!this.running) return null;
    return await this.#worker!.request("logcat.rederive", p, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  /** The newest trace of each group, in one answer (at most `MAX_TRACES_PER_QUERY` groups). */
  async traces(crashGroupIds: string[], signal?: AbortSignal): Promise<(TraceResult | null)[]> {
    if (!this.running) return crashGroupIds.map(() => null);
    return await this.#worker!.request("logcat.traces", {
      crash_group_ids: crashGroupIds.slice(0, MAX_TRACES_PER_QUERY),
    }, { signal, timeoutMs: QUERY_TIMEOUT_MS });
  }

  /** The worker's memory (after a full collection when the process runs with --expose-gc). */
  async memory(signal?: AbortSignal): Promise<MemoryResult | null> {
    if (!this.running) return null;
    return await this.#worker!.request("logcat.memory", null, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  /** The crashes read after crash id `afterId` (debug sessions); none before any start. */
  async sessionCrashes(afterId: number, signal?: AbortSignal): Promise<SessionCrash[]> {
    if (!this.running) return [];
    return await this.#worker!.request("logcat.session_crashes", { after_id: afterId }, {
      signal,
      timeoutMs: QUERY_TIMEOUT_MS,
    });
  }

  /** Stops every stream, then the worker. */
  async close(): Promise<void> {
    if (!this.#worker) return;
    if (!this.#worker.closed) {
      await this.#worker.request("logcat.shutdown", null, { timeoutMs: 5_000 }).catch(() => {});
    }
    this.#worker.close();
    this.#worker = null;
  }
}
