/**
 * Our hardened line framing as an SDK `Transport`, over any byte stream pair: stdio, a Unix-socket
 * connection and a test's in-memory pair are the same code. Unlike the SDK's stdio transport, a
 * line that is not JSON, not UTF-8, too long or not a JSON-RPC message is answered (-32700 /
 * -32600) and reading goes on; a duplicate id in flight is answered with id null; a request over
 * the in-flight bound is answered busy (-32050) without reaching the server. Output is bounded:
 * while more than `maxQueuedBytes` wait to be written, no further request is read (the client that
 * stops reading stops being read) and progress notifications are dropped; answers are never
 * dropped, so the queue holds at most the bound plus one answer per request in flight.
 */
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  classifyLine,
  droppedLineError,
  encodeMessage,
  type JsonRpcErrorObject,
  type JsonRpcId,
  linesOf,
  MAX_MESSAGE_BYTES,
} from "./jsonrpc.ts";
import { admissionError, RequestGate } from "./request_gate.ts";
import { ABORTED, raceAbort } from "../core/abortable.ts";

/** Bytes waiting to be written above which the transport stops reading requests. */
const MAX_QUEUED_OUTPUT_BYTES = 8 * 1024 * 1024;
/** The largest `maxQueuedBytes` a caller may choose. */
const MAX_QUEUED_OUTPUT_BYTES_LIMIT = 256 * 1024 * 1024;

/** Most messages read ahead of the server (`readAhead`), answered or waiting. */
const MAX_READ_AHEAD_MESSAGES = 8;

/**
 * What to do with a message read ahead: `answer` it now (null: it waits for the server), and
 * whether to read `more` ahead.
 */
export type EarlyAnswer = (
  message: JSONRPCMessage,
) => { answer: JSONRPCMessage | null; more: boolean };

interface ReadAhead {
  early: EarlyAnswer | null;
  /** Called once an early answer is written. */
  onAnswered?: () => void;
  /** The messages that wait for the server, in order. */
  waiting: JSONRPCMessage[];
  /** Messages read ahead so far. */
  read: number;
  /** Whether reading pauses until the server connects. */
  paused: boolean;
  connected: PromiseWithResolvers<void>;
}

export interface LineTransportOptions {
  /** Longest line read (default `MAX_MESSAGE_BYTES`). */
  maxMessageBytes?: number;
  /** Output bound (default `MAX_QUEUED_OUTPUT_BYTES`). */
  maxQueuedBytes?: number;
  /** The session's in-flight requests; a new gate with the default bound when absent. */
  gate?: RequestGate;
}

export class LineTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  sessionId?: string;

  readonly gate: RequestGate;
  readonly #input: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #maxMessageBytes: number;
  readonly #maxQueued: number;
  readonly #encoder = new TextEncoder();
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #queued = 0;
  #writes: Promise<void> = Promise.resolve();
  #room: { promise: Promise<void>; resolve: () => void } | null = null;
  #started = false;
  #reading = false;
  #early: ReadAhead | null = null;
  #closed = false;
  #outputGone = false;
  #droppedNotifications = 0;
  readonly #stop = new AbortController();
  readonly #ended = Promise.withResolvers<void>();

  constructor(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
    opts: LineTransportOptions = {},
  ) {
    this.#input = input;
    this.#writer = output.getWriter();
    this.#maxMessageBytes = bounded(
      opts.maxMessageBytes ?? MAX_MESSAGE_BYTES,
      MAX_MESSAGE_BYTES,
      "maxMessageBytes",
    );
    this.#maxQueued = bounded(
      opts.maxQueuedBytes ?? MAX_QUEUED_OUTPUT_BYTES,
      MAX_QUEUED_OUTPUT_BYTES_LIMIT,
      "maxQueuedBytes",
    );
    this.gate = opts.gate ?? new RequestGate();
  }

  /** Resolves when the input has ended (the client closed it) or the transport was closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /** Bytes waiting to be written now. */
  get queuedBytes(): number {
    return this.#queued;
  }

  /** Messages read ahead (`readAhead`) that wait for the server to connect. */
  get waiting(): number {
    return this.#early?.waiting.length ?? 0;
  }

  /** While reading ahead: messages read so far (answered or waiting) and whether it paused. */
  get ahead(): { read: number; paused: boolean } | null {
    const early = this.#early;
    return early ? { read: early.read, paused: early.paused } : null;
  }

  /** Progress notifications dropped because the client was not reading. */
  get droppedNotifications(): number {
    return this.#droppedNotifications;
  }

  /**
   * Start reading before a server is connected (while the SDK loads). Each message read is given
   * to `early`, which may answer it (its answer is written at once, then `onAnswered` is called,
   * and the message is not handed over; otherwise it waits for `start()`) and says whether to
   * read on; reading pauses until
   * `start()` when it says no, with no `early`, or after MAX_READ_AHEAD_MESSAGES, so what follows
   * stays unread, as it would without reading ahead. Lines that are not messages are answered as
   * always.
   */
  readAhead(early: EarlyAnswer | null = null, onAnswered?: () => void): void {
    if (this.#reading) throw new Error("LineTransport already reading");
    this.#early = {
      early,
      onAnswered,
      waiting: [],
      read: 0,
      paused: false,
      connected: Promise.withResolvers<void>(),
    };
    this.#beginReading();
  }

  start(): Promise<void> {
    if (this.#started) throw new Error("LineTransport already started");
    this.#started = true;
    const early = this.#early;
    if (early) {
      this.#early = null;
      for (const m of early.waiting) this.#handOver(m);
      early.connected.resolve();
    } else {
      this.#beginReading();
    }
    return Promise.resolve();
  }

  #beginReading(): void {
    this.#reading = true;
    this.#reader = this.#input.getReader();
    void this.#readLoop(this.#reader).then(
      () => this.#ended.resolve(),
      (e) => {
        if (!this.#closed) this.onerror?.(e instanceof Error ? e : new Error(String(e)));
        this.#ended.resolve();
      },
    );
  }

  async #readLoop(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const lines = linesOf(reader, this.#maxMessageBytes);
    while (true) {
      // raceAbort, not Promise.race against one pending promise: that keeps every line read.
      // close() aborts it, so the loop ends even when a pending read cannot be cancelled.
      const next = await raceAbort(lines.next(), this.#stop.signal);
      if (next === ABORTED || next.done || this.#closed) return;
      const ev = next.value;
      if (typeof ev === "string") this.#deliver(ev);
      else this.#writeError(null, droppedLineError(ev.dropped, this.#maxMessageBytes));
      if (this.#queued > this.#maxQueued) await this.#waitForRoom();
      const early = this.#early;
      if (early?.paused) {
        await raceAbort(early.connected.promise, this.#stop.signal);
      }
    }
  }

  #deliver(line: string): void {
    const c = classifyLine(line);
    switch (c.kind) {
      case "invalid":
        this.#writeError(c.id, c.error);
        return;
      case "request": {
        const admission = this.gate.admit(c.message.id);
        if (admission !== "ok") {
          const id = admission === "duplicate" ? null : c.message.id;
          this.#writeError(id, admissionError(admission, c.message.id, this.gate.max));
          return;
        }
        break;
      }
      default:
        break;
    }
    this.#handOver(c.message as JSONRPCMessage);
  }

  #handOver(message: JSONRPCMessage): void {
    const early = this.#early;
    if (early) {
      early.read++;
      let decided: { answer: JSONRPCMessage | null; more: boolean } = { answer: null, more: false };
      try {
        if (early.early) decided = early.early(message);
      } catch {
        // the server answers it
      }
      if (decided.answer) {
        const onAnswered = early.onAnswered;
        void this.send(decided.answer).then(() => onAnswered?.());
      } else early.waiting.push(message);
      if (!decided.more || early.read >= MAX_READ_AHEAD_MESSAGES) early.paused = true;
      return;
    }
    this.delivered(message);
    try {
      this.onmessage?.(message);
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Called with every message handed to the SDK (a request only once the gate admitted it). */
  protected delivered(_message: JSONRPCMessage): void {}

  #writeError(id: JsonRpcId | null, error: JsonRpcErrorObject): void {
    this.#enqueue(encodeMessage({ jsonrpc: "2.0", id, error }));
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.#closed && this.#outputGone) return Promise.resolve();
    const m = message as { id?: JsonRpcId | null; method?: string };
    const isAnswer = m.method === undefined && m.id !== undefined;
    if (isAnswer) {
      if (m.id !== null && m.id !== undefined) this.gate.settle(m.id);
    } else if (m.id === undefined && this.#queued > this.#maxQueued) {
      // A notification while the client is not reading: progress is advisory, drop it.
      this.#droppedNotifications++;
      return Promise.resolve();
    }
    return this.#enqueue(encodeMessage(message));
  }

  #enqueue(text: string): Promise<void> {
    if (this.#outputGone) return Promise.resolve();
    const bytes = this.#encoder.encode(text + "\n");
    this.#queued += bytes.length;
    const done = this.#writer.write(bytes).then(
      () => this.#written(bytes.length),
      () => {
        // The client went away: nothing else can be sent.
        this.#outputGone = true;
        this.#written(bytes.length);
      },
    );
    this.#writes = done;
    return done;
  }

  #written(n: number): void {
    this.#queued -= n;
    if (this.#room && this.#queued <= this.#maxQueued / 2) {
      this.#room.resolve();
      this.#room = null;
    }
  }

  #waitForRoom(): Promise<void> {
    if (this.#outputGone || this.#closed) return Promise.resolve();
    this.#room ??= Promise.withResolvers<void>();
    return this.#room.promise;
  }

  /** Stop reading, write what is queued, release the output. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop.abort();
    this.#room?.resolve();
    this.#room = null;
    // Cancelling ends a pending read where the stream allows it; a read stuck on a stream that
    // cannot be cancelled is left behind, holding nothing.
    this.#reader?.cancel().catch(() => {});
    this.#ended.resolve();
    await this.#writes;
    this.#outputGone = true;
    try {
      this.#writer.releaseLock();
    } catch { /* already released */ }
    this.onclose?.();
  }
}

function bounded(v: number, max: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < 1 || v > max) {
    throw new RangeError(`LineTransport ${name} must be an integer from 1 to ${max}, got ${v}`);
  }
  return v;
}
