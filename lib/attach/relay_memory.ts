/**
 * What the stdio ↔ socket relay remembers of the session it carries, to survive the app going
 * away: the requests still open (`OpenRequests`, bounded) and the client's `initialize`,
 * `initialized` and `start_logcat` calls (`RelayedSession`), which it replays to the standalone
 * server that takes the session over.
 */
import type { JsonRpcId } from "../mcp/jsonrpc.ts";

/** The requests the app has not answered, oldest first; past `max` the oldest is forgotten. */
export class OpenRequests {
  readonly #open = new Map<JsonRpcId, true>();
  /** Resolved whenever the last open request is answered (renewed when one opens). */
  #allAnswered = Promise.withResolvers<void>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.#open.size;
  }

  /** Resolves when none is open (the one of now: a request opened after renews it). */
  get allAnswered(): Promise<void> {
    return this.#allAnswered.promise;
  }

  ids(): IterableIterator<JsonRpcId> {
    return this.#open.keys();
  }

  remember(id: JsonRpcId): void {
    if (this.#open.size === 0) this.#allAnswered = Promise.withResolvers<void>();
    this.#open.delete(id);
    this.#open.set(id, true);
    if (this.#open.size > this.max) this.#open.delete(this.#open.keys().next().value!);
  }

  forget(id: JsonRpcId): void {
    if (this.#open.delete(id) && this.#open.size === 0) this.#allAnswered.resolve();
  }

  clear(): void {
    this.#open.clear();
  }
}

/** The client's session as a standalone server must be told it again. */
export class RelayedSession {
  /** The client's first `initialize`. */
  initialize: { id: JsonRpcId; message: Record<string, unknown> } | null = null;
  /** The client's `notifications/initialized` line, as sent. */
  initialized: string | null = null;
  /** The session's `start_logcat` arguments by device argument, while attached. */
  readonly #logcatStarts = new Map<string, Record<string, unknown>>();

  constructor(readonly maxLogcatStarts: number) {}

  /** The `start_logcat` arguments still in force, oldest first. */
  logcatStarts(): Record<string, unknown>[] {
    return [...this.#logcatStarts.values()];
  }

  /** A request of the client's: the first `initialize`, and `start_logcat`/`stop_logcat` calls. */
  noteRequest(m: Record<string, unknown> & { id: JsonRpcId }): void {
    if (m.method === "initialize" && this.initialize === null) {
      this.initialize = { id: m.id, message: m };
    }
  }

  noteLogcat(m: Record<string, unknown>): void {
    if (m.method !== "tools/call") return;
    const p = m.params as { name?: unknown; arguments?: unknown } | undefined;
    const args = (p?.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== "object" || args === null || Array.isArray(args)) return;
    const device = JSON.stringify(args.device_serial ?? null);
    if (p?.name === "start_logcat") {
      this.#logcatStarts.delete(device);
      this.#logcatStarts.set(device, args);
      if (this.#logcatStarts.size > this.maxLogcatStarts) {
        this.#logcatStarts.delete(this.#logcatStarts.keys().next().value!);
      }
    } else if (p?.name === "stop_logcat") {
      // Without device_serial it stops every stream.
      if (args.device_serial === undefined) this.#logcatStarts.clear();
      else this.#logcatStarts.delete(device);
    }
  }
}
