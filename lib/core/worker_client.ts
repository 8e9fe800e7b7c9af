/**
 * The main thread's handle on one worker, written once for every worker (UI, logcat, build): it
 * starts the worker on the first call that needs it, gives each method its budget, answers the
 * methods that must not start a worker while none runs, and renews or closes the worker.
 *
 * Each client (lib/ui/shared/client.ts, lib/logcat/shared/logcat_client.ts, …) is a thin file:
 * its protocol's method table, how to start its worker (URL and permissions), and the typed
 * methods its callers use. The channel under it is lib/core/worker_rpc.ts's `RpcChannel`.
 */
import type { MethodsOf, Progress, RpcChannel } from "./worker_rpc.ts";

/** How one method is called. */
interface MethodRow<P, R> {
  /** The round trip's budget in ms: fixed, or computed from the call's params. */
  budgetMs: number | ((params: P) => number);
  /**
   * The answer while no worker runs. A method with one never starts the worker (a query before
   * any start answers from nothing); a method without one starts it.
   */
  whenStopped?: (params: P) => R;
  /** Restart the budget whenever progress arrives (a long build that keeps reporting). */
  resetBudgetOnProgress?: boolean;
}

/** One row per method of the protocol: the table is the client's whole policy. */
export type MethodTable<M extends MethodsOf<M>> = {
  [K in keyof M]: MethodRow<M[K]["params"], M[K]["result"]>;
};

interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
}

/** Starts the worker and returns its channel (lib/core/worker_permissions.ts `startWorker`). */
type StartWorker<M extends MethodsOf<M>> = () => RpcChannel<M> | Promise<RpcChannel<M>>;

export class WorkerClient<M extends MethodsOf<M>> {
  readonly #table: MethodTable<M>;
  readonly #start: StartWorker<M>;
  #channel: RpcChannel<M> | null = null;
  #starting: Promise<RpcChannel<M>> | null = null;
  /** Set by `renew()`: the running worker serves no new call; the next one starts another. */
  #stale = false;

  constructor(table: MethodTable<M>, start: StartWorker<M>) {
    this.#table = table;
    this.#start = start;
  }

  /** True while a worker runs that serves new calls. */
  get running(): boolean {
    return this.#channel !== null && !this.#channel.closed && !this.#stale;
  }

  /** Calls in flight on the running worker. */
  get pendingCount(): number {
    return this.#channel?.pendingCount ?? 0;
  }

  /** Calls `method`: with the running worker, or the table's answer when stopped, or a new one. */
  async call<K extends keyof M & string>(
    method: K,
    params: M[K]["params"],
    options: CallOptions = {},
  ): Promise<M[K]["result"]> {
    const row = this.#table[method];
    if (!this.running && row.whenStopped) return row.whenStopped(params);
    const channel = await this.#ensure();
    const budget = row.budgetMs;
    return await channel.request(method, params, {
      signal: options.signal,
      timeoutMs: typeof budget === "function" ? budget(params) : budget,
      onProgress: options.onProgress,
      resetTimeoutOnProgress: row.resetBudgetOnProgress,
    });
  }

  /**
   * The running worker serves no new call: the next call that needs one closes it and starts a
   * new worker (new grants). Calls already in flight on it end as they would have.
   */
  renew(): void {
    if (this.#channel !== null) this.#stale = true;
  }

  /** Sends `method` if a worker runs (errors ignored: the worker is going), then closes it. */
  async shutdown<K extends keyof M & string>(method: K, params: M[K]["params"]): Promise<void> {
    if (this.running) await this.call(method, params).catch(() => {});
    this.close();
  }

  /** Closes the worker now; what is in flight rejects with `cancelled`. The next call restarts. */
  close(): void {
    this.#channel?.close();
    this.#channel = null;
    this.#stale = false;
  }

  #ensure(): Promise<RpcChannel<M>> {
    if (this.running) return Promise.resolve(this.#channel!);
    this.#starting ??= this.#startFresh().finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  async #startFresh(): Promise<RpcChannel<M>> {
    this.close();
    const channel = await this.#start();
    this.#channel = channel;
    return channel;
  }
}
