/**
 * The stdio ↔ socket relay `keynobi --mcp` runs when attached. It forwards whole lines both ways
 * and remembers just enough to survive the app going away: the requests still open and the
 * client's `initialize` and `initialized`.
 *
 * When the socket ends while the client is still there, the relay answers every request the app
 * left open (-32603, "The Keynobi app closed the MCP session before answering …"), then, unless
 * `--attach-only`, hands the client to a standalone server in this process: it replays
 * `initialize` (under an id of its own, whose answer it drops) and `initialized`, then forwards
 * the client's lines there. The client sees one session and one `initialize`. The logcat streams
 * the session started (its `start_logcat` calls, less those `stop_logcat` ended) went with the
 * app, so the relay starts them again there the same way (answers dropped): the device's buffer
 * brings their recent history back, and the session's logcat does not silently vanish.
 *
 * A client that closes stdin while attached still gets the answers in flight: the relay keeps the
 * socket open and forwards answers until none is open, the app goes, a signal comes, or
 * `RELAY_DRAIN_MS` passes; then it closes the socket. A request the
 * client cancelled is forgotten (the app never answers it), and at most `MAX_RELAY_OPEN_REQUESTS`
 * are remembered, oldest forgotten first.
 *
 * `Relay` runs the two loops (lib/attach/relay_memory.ts holds what they remember,
 * lib/attach/relay_handover.ts starts the standalone server).
 */
import { boundedWait } from "../core/abortable.ts";
import {
  byteLinesOf,
  classifyLine,
  droppedLineError,
  encodeMessage,
  type JsonRpcId,
  linesOf,
  MAX_MESSAGE_BYTES,
  RpcCode,
} from "../mcp/jsonrpc.ts";
import { MAX_CONCURRENT_REQUESTS } from "../mcp/request_gate.ts";
import { continueStream } from "./handshake.ts";
import { type Fallback, type Handover, handOver } from "./relay_handover.ts";
import { OpenRequests, RelayedSession } from "./relay_memory.ts";

export type { Fallback };

/**
 * Longest a relay whose client closed stdin waits for the app's answers in flight: the default
 * build timeout (`mcp.build_timeout_sec`, 600 s), as a build call is the longest answer.
 */
export const RELAY_DRAIN_MS = 600_000;
/**
 * Most open requests the relay remembers (the app admits MAX_CONCURRENT_REQUESTS per session and
 * answers the rest busy): past this the oldest is forgotten, never answered for when the app goes.
 */
export const MAX_RELAY_OPEN_REQUESTS = MAX_CONCURRENT_REQUESTS * 4;
/** Most `start_logcat` calls (one per device argument) the relay starts again after the app. */
export const MAX_REPLAYED_LOGCAT_STARTS = 16;

/**
 * The app's lines up to this many characters (bytes, as the relay reads them) are parsed to tell
 * an answer's id; a longer one (a screenshot, a build log) is read at its two ends instead
 * (`answeredIdOf`).
 */
export const RELAY_PARSE_MAX_CHARS = 16 * 1024;
/** Bytes of a long line's two ends `answeredIdOf` decodes. */
const HEAD_BYTES = 64;
const TAIL_BYTES = 200;

/** `,"jsonrpc":"2.0","id":<id>}` ending a line, as the MCP SDK writes an answer (id last). */
const ANSWER_TAIL =
  /,\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\\uFFFF][^"\\]*")\s*\}\s*$/;
/** `{"result":` or `{"error":` starting a line: its first member is an answer's. */
const ANSWER_HEAD = /^\s*\{\s*"(?:result|error)"\s*:/;

/**
 * The id of the answer `line` (a line's bytes, as the relay reads them) is, `null` when it is no
 * answer (a request, a notification, an invalid line): what classifyLine tells. A line over
 * RELAY_PARSE_MAX_CHARS that opens with a `result` or `error` member and closes with
 * `"jsonrpc":"2.0","id":…` (the SDK's order) is not decoded: only its first HEAD_BYTES and last
 * TAIL_BYTES are read; any other line is decoded and parsed. Read so, such a line is an answer
 * unless it is not JSON, or also has a top-level `method` (which no JSON-RPC peer writes beside
 * `result`): the id, the last member, is the one JSON.parse reads. Decoding and parsing a 1 MB
 * answer on the relay's thread, then encoding it again to pass it on, cost milliseconds a call.
 */
export function answeredIdOf(line: Uint8Array): JsonRpcId | null {
  if (line.length > RELAY_PARSE_MAX_CHARS) {
    const head = lossy.decode(line.subarray(0, HEAD_BYTES));
    const id = idAtEnds(head, lossy.decode(line.subarray(line.length - TAIL_BYTES)));
    if (id !== null) return id;
  }
  let text: string;
  try {
    text = strict.decode(line);
  } catch {
    return null;
  }
  const c = classifyLine(text);
  if (c.kind !== "response") return null;
  const id = (c.message as { id?: JsonRpcId | null }).id;
  return id === undefined ? null : id;
}

const lossy = new TextDecoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/** The id a line that begins `head` and ends `tail` answers, read as the SDK writes it; or null. */
function idAtEnds(head: string, tail: string): JsonRpcId | null {
  if (!ANSWER_HEAD.test(head)) return null;
  const v = ANSWER_TAIL.exec(tail)?.[1];
  if (v?.startsWith('"')) return v.slice(1, -1);
  // An integer JSON.parse cannot hold exactly is left to classifyLine, which keeps its digits.
  if (v !== undefined && Number.isSafeInteger(Number(v))) return Number(v);
  return null;
}

export interface RelayOptions {
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  conn: Deno.UnixConn;
  /** The socket's reader (the handshake was read from it) and what came after the handshake. */
  socketReader: ReadableStreamDefaultReader<Uint8Array>;
  rest: Uint8Array;
  /** `null` with `--attach-only`: the relay exits 1 when the app goes. */
  fallback: Fallback | null;
  /** Ends the relay (a signal): the socket is closed, status 0. */
  stop?: Promise<unknown>;
  /** Called once when the app went away (for the log). */
  onAppGone?: (openRequests: number) => void;
}

const encoder = new TextEncoder();

export function runRelay(opts: RelayOptions): Promise<number> {
  return new Relay(opts).run();
}

/** One attached session's relay, from the handshake to the exit status. */
class Relay {
  readonly #opts: RelayOptions;
  readonly #stop: Promise<unknown>;
  readonly #out: WritableStreamDefaultWriter<Uint8Array>;
  readonly #socketOut: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stdinReader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #open = new OpenRequests(MAX_RELAY_OPEN_REQUESTS);
  readonly #session = new RelayedSession(MAX_REPLAYED_LOGCAT_STARTS);
  readonly #appGone = Promise.withResolvers<void>();
  /** Where client lines go: the socket, then (after the app left) the standalone server's input. */
  #sink: (line: string) => Promise<boolean>;
  #switching: Promise<void> | null = null;
  #handover: Handover | null = null;
  #exitCode: number | null = null;
  /** The client closed stdin (or a signal came) while attached: nothing to take over. */
  #leaving = false;

  constructor(opts: RelayOptions) {
    this.#opts = opts;
    this.#stop = opts.stop ?? new Promise<never>(() => {});
    this.#out = opts.stdout.getWriter();
    this.#socketOut = opts.conn.writable.getWriter();
    this.#stdinReader = opts.stdin.getReader();
    this.#sink = writingTo(this.#socketOut);
  }

  async run(): Promise<number> {
    const socketLoop = this.#forwardApp();
    const stdinLoop = this.#forwardClient();
    const gone = this.#appGone.promise.then(async () => {
      await this.#switch();
      return "gone" as const;
    });
    const first = await Promise.race([
      stdinLoop.then(() => "client" as const),
      gone,
      this.#stop.then(() => "stop" as const),
    ]);
    if (first !== "gone") return await this.#leave(first, socketLoop);
    closeQuietly(this.#opts.conn);
    if (this.#exitCode !== null) {
      this.#stdinReader.cancel().catch(() => {});
      this.#out.releaseLock();
      return this.#exitCode;
    }
    // Standalone now: the stdin loop feeds it until the client closes stdin.
    const stopped = await Promise.race([
      stdinLoop.then(() => "client" as const),
      this.#stop.then(() => "stop" as const),
    ]);
    if (stopped === "stop") this.#stdinReader.cancel().catch(() => {});
    return await this.#endHandover();
  }

  /** The client went away (or a signal): the app sees the connection end; builds carry on there. */
  async #leave(first: "client" | "stop", socketLoop: Promise<void>): Promise<number> {
    this.#leaving = this.#handover === null && this.#switching === null;
    if (first === "client" && this.#leaving && this.#open.size > 0) {
      // Keep the socket open until the app has answered what is in flight (a half-close would not
      // do: a Deno socket whose input ends is closed, so the app could not answer).
      await boundedWait(
        Promise.race([this.#open.allAnswered, socketLoop, this.#stop]),
        RELAY_DRAIN_MS,
      );
    }
    closeQuietly(this.#opts.conn);
    if (first === "stop") this.#stdinReader.cancel().catch(() => {});
    await socketLoop;
    if (this.#handover) return await this.#endHandover();
    this.#out.releaseLock();
    return 0;
  }

  /** Close the standalone server's input; its exit status. */
  async #endHandover(): Promise<number> {
    await this.#handover?.input.close().catch(() => {});
    const code = await this.#handover!.done;
    this.#out.releaseLock();
    return code;
  }

  #writeOut(text: string): Promise<void> {
    return this.#out.write(encoder.encode(text + "\n")).catch(() => {});
  }

  /** The app's lines to stdout, each answer forgetting its request; resolves when the app went. */
  async #forwardApp(): Promise<void> {
    const reader = continueStream(this.#opts.rest, this.#opts.socketReader).getReader();
    try {
      // As bytes: what the app writes goes on as it came, never decoded and encoded again.
      for await (const ev of byteLinesOf(reader, MAX_MESSAGE_BYTES * 4)) {
        if (!(ev instanceof Uint8Array)) continue;
        const id = answeredIdOf(ev);
        if (id !== null) this.#open.forget(id);
        // One write of the line and its LF: each write to stdout is a round trip through a
        // thread of Deno's, and a second one was most of what the relay added to a call.
        await this.#out.write(withNewline(ev)).catch(() => {});
      }
    } catch { /* the app went away */ }
    this.#appGone.resolve();
  }

  /** The client's lines to the sink until stdin ends (or the relay exits). */
  async #forwardClient(): Promise<void> {
    const lines = linesOf(this.#stdinReader, MAX_MESSAGE_BYTES);
    while (true) {
      const next = await lines.next().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) return;
      const ev = next.value;
      if (typeof ev !== "string") {
        await this.#writeOut(encodeMessage({
          jsonrpc: "2.0",
          id: null,
          error: droppedLineError(ev.dropped, MAX_MESSAGE_BYTES),
        }));
        continue;
      }
      if (!(await this.#clientLine(ev))) return;
    }
  }

  /** Note one client line and pass it on; false when the relay exits. */
  async #clientLine(ev: string): Promise<boolean> {
    const c = classifyLine(ev);
    if (c.kind === "request") {
      const m = c.message as unknown as Record<string, unknown> & { id: JsonRpcId };
      this.#session.noteRequest(m);
      if (!this.#handover) {
        this.#open.remember(m.id);
        this.#session.noteLogcat(m);
      }
    } else if (c.kind === "notification" && c.message.method === "notifications/initialized") {
      this.#session.initialized = ev;
    } else if (c.kind === "notification" && c.message.method === "notifications/cancelled") {
      // The app drops a cancelled request's answer (MCP cancellation): nothing will come.
      const id = (c.message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === "string" || typeof id === "number") this.#open.forget(id);
    }
    if (this.#switching) await this.#switching;
    if (this.#exitCode !== null) return false;
    if (await this.#sink(ev)) return true;
    // The socket is gone: wait for the switch, then give the line to the standalone server.
    await this.#appGone.promise;
    await this.#switch();
    if (this.#exitCode !== null) return false;
    if (c.kind === "request") this.#open.forget((c.message as { id: JsonRpcId }).id);
    await this.#sink(ev);
    return true;
  }

  #switch(): Promise<void> {
    this.#switching ??= this.#switchToStandalone();
    return this.#switching;
  }

  /** Answer what the app left open, then hand the session over (or exit 1: --attach-only). */
  async #switchToStandalone(): Promise<void> {
    if (this.#leaving) return;
    const fallback = this.#opts.fallback;
    this.#opts.onAppGone?.(this.#open.size);
    for (const id of this.#open.ids()) {
      await this.#writeOut(encodeMessage({
        jsonrpc: "2.0",
        id,
        error: {
          code: RpcCode.internalError,
          message: "The Keynobi app closed the MCP session before answering this request; " +
            (fallback
              ? "this session continues standalone: send it again"
              : "--attach-only: this server exits"),
        },
      }));
    }
    this.#open.clear();
    if (!fallback) {
      this.#exitCode = 1;
      return;
    }
    const handover = handOver(fallback, this.#session, this.#out);
    this.#handover = handover;
    await handover.replayed;
    this.#sink = writingTo(handover.input);
  }
}

/**
 * `line` and a LF after it, in one array: the line's own array when the byte after it there is
 * its LF (a line read within one chunk, without `\r`, the usual case), else a copy.
 */
export function withNewline(line: Uint8Array): Uint8Array {
  const end = line.byteOffset + line.length;
  if (end < line.buffer.byteLength && new Uint8Array(line.buffer, end, 1)[0] === 10) {
    return new Uint8Array(line.buffer, line.byteOffset, line.length + 1);
  }
  const out = new Uint8Array(line.length + 1);
  out.set(line);
  out[line.length] = 10;
  return out;
}

/** A sink writing each line to `w`; false once it cannot. */
function writingTo(w: WritableStreamDefaultWriter<Uint8Array>): (line: string) => Promise<boolean> {
  return async (line) => {
    try {
      await w.write(encoder.encode(line + "\n"));
      return true;
    } catch {
      return false;
    }
  };
}

function closeQuietly(conn: Deno.UnixConn): void {
  try {
    conn.close();
  } catch { /* closed */ }
}
