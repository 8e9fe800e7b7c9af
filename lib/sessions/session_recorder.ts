/**
 * The one writer of debug sessions in a keynobi process. Tools hand it changes (`record`), which
 * are queued in memory (at most `MAX_PENDING_SESSION_EVENTS`; more are dropped and counted, never
 * waited for) and written in the background, one batch at a time, by lib/sessions/session_store.ts
 * under the shared lock. A call never waits for disk; a session tool that reads waits for `flush()`
 * so it sees what this process queued before it.
 *
 * It also pulls the crashes and ANRs the logcat worker read (`watchCrashes`), every
 * `CRASH_POLL_INTERVAL_MS` while a stream runs and before every session read, and records each
 * once, on the open session of its device and package.
 */
import { boundedWait, delay } from "../core/abortable.ts";
import type { DebugSessionCrash } from "../logcat/shared/logcat_protocol.ts";
import { log } from "../core/log.ts";
import { applySessionOps, type DebugSessionOp } from "./session_store.ts";
import type { Attribution } from "./session_model.ts";

/** Changes queued at most; more are dropped (counted in `dropped`). */
const MAX_PENDING_SESSION_EVENTS = 1_000;
/** Changes written per batch (one lock, one pass over the files). */
const MAX_BATCH_OPS = 200;
/** How often the crashes the logcat worker read are pulled while a stream runs. */
const CRASH_POLL_INTERVAL_MS = 2_000;
/** A crash is recorded once its log lines stopped growing, or after this long. */
const CRASH_SETTLE_MS = 500;
/** Longest `close()` waits for the queue to be written. */
const CLOSE_FLUSH_TIMEOUT_MS = 5_000;

type CrashSource = (afterId: number) => Promise<DebugSessionCrash[]>;

export class DebugSessionRecorder {
  readonly #dataDir: string;
  #queue: DebugSessionOp[] = [];
  #writing: Promise<void> | null = null;
  #dropped = 0;
  #closed = false;
  #crashSource: CrashSource | null = null;
  #lastCrashId = 0;
  #timer: ReturnType<typeof setInterval> | null = null;
  #syncing: Promise<void> | null = null;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** Changes dropped because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  get pending(): number {
    return this.#queue.length;
  }

  /** Queues `op` and returns at once; `false` when it was dropped (queue full or closed). */
  record(op: DebugSessionOp): boolean {
    if (this.#closed || this.#queue.length >= MAX_PENDING_SESSION_EVENTS) {
      this.#dropped++;
      return false;
    }
    this.#queue.push(op);
    this.#kick();
    return true;
  }

  #kick(): void {
    if (this.#writing) return;
    this.#writing = (async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH_OPS);
        try {
          await applySessionOps(this.#dataDir, batch);
        } catch (e) {
          log.warn(
            `debug sessions: ${batch.length} change(s) not written: ${(e as Error).message}`,
          );
        }
      }
    })().finally(() => {
      this.#writing = null;
      if (this.#queue.length > 0 && !this.#closed) this.#kick();
    });
  }

  /** Resolves once everything queued before the call is written. */
  async flush(): Promise<void> {
    while (this.#writing || this.#queue.length > 0) {
      if (!this.#writing) this.#kick();
      await this.#writing;
    }
  }

  /**
   * Pull crashes from `source` from now on: periodically (the timer does not keep the process
   * alive) and in `syncCrashes()`. Calling it again replaces the source.
   */
  watchCrashes(source: CrashSource): void {
    this.#crashSource = source;
    if (this.#timer !== null || this.#closed) return;
    const timer = setInterval(
      () => void this.syncCrashes().catch(() => {}),
      CRASH_POLL_INTERVAL_MS,
    );
    Deno.unrefTimer(timer as unknown as number);
    this.#timer = timer;
  }

  /** Records the crashes read since the last pull (settled ones), then waits for the writes. */
  async syncCrashes(): Promise<void> {
    if (!this.#crashSource) return;
    if (!this.#syncing) {
      this.#syncing = this.#pull().finally(() => this.#syncing = null);
    }
    await this.#syncing;
  }

  async #pull(): Promise<void> {
    const source = this.#crashSource!;
    let crashes = await source(this.#lastCrashId);
    const young = (c: DebugSessionCrash) =>
      c.open && Date.now() - Date.parse(c.received_at) < CRASH_SETTLE_MS;
    if (crashes.some(young)) {
      await delay(CRASH_SETTLE_MS);
      crashes = await source(this.#lastCrashId);
    }
    for (const c of crashes.sort((a, b) => a.crash_id - b.crash_id)) {
      this.#lastCrashId = Math.max(this.#lastCrashId, c.crash_id);
      if (!c.package) continue;
      this.record(crashOp(c));
    }
  }

  /** Stops pulling and writes what is queued (bounded by `CLOSE_FLUSH_TIMEOUT_MS`). */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#crashSource = null;
    await boundedWait(this.flush(), CLOSE_FLUSH_TIMEOUT_MS);
    this.#closed = true;
  }
}

/** The session change that records crash `c` (keyed, so another process seeing it adds nothing). */
function crashOp(c: DebugSessionCrash): DebugSessionOp {
  const kind = c.kind === "anr" ? "anr" : "crash";
  const at = new Date(Date.parse(c.received_at) || Date.now());
  const attribution: Attribution = {
    method: "install_record",
    verified: true,
    reason: `the crashed process is ${c.package} on ${c.device}, the package and device of this ` +
      "install",
  };
  return {
    type: "event",
    serial: c.device,
    package: c.package,
    key: `${kind}|${c.time}|${c.pid}|${c.signature}`,
    event: {
      at,
      kind,
      by: { kind: "device" },
      summary: `${c.kind === "anr" ? "ANR" : `${c.kind} crash`} (pid ${c.pid}): ${c.summary}`,
      data: {
        pid: c.pid,
        crash_group_id: c.crash_group_id,
        signature: c.signature,
        logged_at: c.time,
      },
      crash: {
        kind,
        logged_at: c.time,
        pid: c.pid,
        summary: c.summary,
        signature: c.signature,
        crash_group_id: c.crash_group_id,
        attribution,
        lines: c.lines,
      },
    },
  };
}
