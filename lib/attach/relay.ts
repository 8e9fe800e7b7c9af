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
 */
import { boundedWait } from "../core/abortable.ts";
import {
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
 * The app's lines up to this many characters are parsed to tell an answer's id; a longer one (a
 * screenshot, a build log) is read at its two ends instead (`answeredId`).
 */
export const RELAY_PARSE_MAX_CHARS = 16 * 1024;

/** `,"jsonrpc":"2.0","id":<id>}` ending a line, as the MCP SDK writes an answer (id last). */
const ANSWER_TAIL =
  /,\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\\uFFFF][^"\\]*")\s*\}\s*$/;
/** `{"result":` or `{"error":` starting a line: its first member is an answer's. */
const ANSWER_HEAD = /^\s*\{\s*"(?:result|error)"\s*:/;

/**
 * The id of the answer `line` is, `null` when it is no answer (a request, a notification, an
 * invalid line): what classifyLine tells. A line over RELAY_PARSE_MAX_CHARS that opens with a
 * `result` or `error` member and closes with `"jsonrpc":"2.0","id":…` (the SDK's order) is not
 * parsed: only its head and its last 200 characters are read; any other line is parsed. Read so,
 * such a line is an answer unless it is not JSON, or also has a top-level `method` (which no
 * JSON-RPC peer writes beside `result`): the id, the last member, is the one JSON.parse reads.
 * Parsing a 1 MB answer on the relay's thread cost milliseconds every call.
 */
export function answeredId(line: string): JsonRpcId | null {
  if (line.length > RELAY_PARSE_MAX_CHARS && ANSWER_HEAD.test(line.slice(0, 64))) {
    const tail = ANSWER_TAIL.exec(line.slice(-200));
    const v = tail?.[1];
    if (v?.startsWith('"')) return v.slice(1, -1);
    // An integer JSON.parse cannot hold exactly is left to classifyLine, which keeps its digits.
    if (v !== undefined && Number.isSafeInteger(Number(v))) return Number(v);
  }
  const c = classifyLine(line);
  if (c.kind !== "response") return null;
  const id = (c.message as { id?: JsonRpcId | null }).id;
  return id === undefined ? null : id;
}

/** Starts the standalone server that takes the session over; resolves with its exit status. */
export type Fallback = (
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
) => Promise<number>;

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

export async function runRelay(opts: RelayOptions): Promise<number> {
  const out = opts.stdout.getWriter();
  const writeOut = (text: string) => out.write(encoder.encode(text + "\n")).catch(() => {});
  const socketOut = opts.conn.writable.getWriter();
  const open = new Map<JsonRpcId, true>();
  /** Resolved whenever the last open request is answered (renewed when one opens). */
  let allAnswered = Promise.withResolvers<void>();
  const forget = (id: JsonRpcId) => {
    if (open.delete(id) && open.size === 0) allAnswered.resolve();
  };
  const remember = (id: JsonRpcId) => {
    if (open.size === 0) allAnswered = Promise.withResolvers<void>();
    open.delete(id);
    open.set(id, true);
    if (open.size > MAX_RELAY_OPEN_REQUESTS) open.delete(open.keys().next().value!);
  };
  let initialize: { id: JsonRpcId; message: Record<string, unknown> } | null = null;
  let initialized: string | null = null;
  /** The session's `start_logcat` arguments by device argument, while attached. */
  const logcatStarts = new Map<string, Record<string, unknown>>();
  const noteLogcat = (m: Record<string, unknown>) => {
    if (m.method !== "tools/call") return;
    const p = m.params as { name?: unknown; arguments?: unknown } | undefined;
    const args = (p?.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== "object" || args === null || Array.isArray(args)) return;
    const device = JSON.stringify(args.device_serial ?? null);
    if (p?.name === "start_logcat") {
      logcatStarts.delete(device);
      logcatStarts.set(device, args);
      if (logcatStarts.size > MAX_REPLAYED_LOGCAT_STARTS) {
        logcatStarts.delete(logcatStarts.keys().next().value!);
      }
    } else if (p?.name === "stop_logcat") {
      // Without device_serial it stops every stream.
      if (args.device_serial === undefined) logcatStarts.clear();
      else logcatStarts.delete(device);
    }
  };

  // Where client lines go: the socket, then (after the app left) the standalone server's input.
  let sink = async (line: string): Promise<boolean> => {
    try {
      await socketOut.write(encoder.encode(line + "\n"));
      return true;
    } catch {
      return false;
    }
  };
  let switching: Promise<void> | null = null;
  let fallbackDone: Promise<number> | null = null;
  let fallbackInput: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let exitCode: number | null = null;
  const appGone = Promise.withResolvers<void>();
  /** The client closed stdin (or a signal came) while attached: nothing to take over. */
  let leaving = false;

  const switchToStandalone = async (): Promise<void> => {
    if (leaving) return;
    opts.onAppGone?.(open.size);
    for (const id of open.keys()) {
      await writeOut(encodeMessage({
        jsonrpc: "2.0",
        id,
        error: {
          code: RpcCode.internalError,
          message: "The Keynobi app closed the MCP session before answering this request; " +
            (opts.fallback
              ? "this session continues standalone: send it again"
              : "--attach-only: this server exits"),
        },
      }));
    }
    open.clear();
    if (!opts.fallback) {
      exitCode = 1;
      return;
    }
    const input = new TransformStream<Uint8Array, Uint8Array>();
    const replayId = `keynobi-relay-replay-${crypto.randomUUID()}`;
    const logcatReplays = [...logcatStarts.values()].map((args, i) => ({
      id: `${replayId}-logcat-${i}`,
      args,
    }));
    /** The replayed requests whose answers are the relay's, not the client's. */
    const markers = new Set(
      [replayId, ...logcatReplays.map((r) => r.id)].map((id) => JSON.stringify(id)),
    );
    const output = new WritableStream<Uint8Array>({
      async write(chunk) {
        // The transport writes one whole message per chunk: drop the replayed requests' answers.
        if (markers.size > 0 && chunk.length < 1 << 20) {
          const text = new TextDecoder().decode(chunk);
          if (!text.includes('"method"')) {
            for (const marker of markers) {
              if (!text.includes(marker)) continue;
              markers.delete(marker);
              return;
            }
          }
        }
        await out.write(chunk).catch(() => {});
      },
    });
    fallbackInput = input.writable.getWriter();
    fallbackDone = opts.fallback(input.readable, output);
    if (initialize) {
      await fallbackInput.write(
        encoder.encode(encodeMessage({ ...initialize.message, id: replayId }) + "\n"),
      );
      await fallbackInput.write(
        encoder.encode(
          (initialized ?? JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })) +
            "\n",
        ),
      );
      for (const r of logcatReplays) {
        const call = { name: "start_logcat", arguments: r.args };
        await fallbackInput.write(
          encoder.encode(
            encodeMessage({ jsonrpc: "2.0", id: r.id, method: "tools/call", params: call }) + "\n",
          ),
        );
      }
    }
    const w = fallbackInput;
    sink = async (line) => {
      try {
        await w.write(encoder.encode(line + "\n"));
        return true;
      } catch {
        return false;
      }
    };
  };

  const socketLoop = (async () => {
    const reader = continueStream(opts.rest, opts.socketReader).getReader();
    try {
      for await (const ev of linesOf(reader, MAX_MESSAGE_BYTES * 4)) {
        if (typeof ev !== "string") continue;
        const id = answeredId(ev);
        if (id !== null) forget(id);
        await writeOut(ev);
      }
    } catch { /* the app went away */ }
    appGone.resolve();
  })();

  const stdinReader = opts.stdin.getReader();
  const stdinLoop = (async () => {
    const lines = linesOf(stdinReader, MAX_MESSAGE_BYTES);
    while (true) {
      const next = await lines.next().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) return;
      const ev = next.value;
      if (typeof ev !== "string") {
        await writeOut(encodeMessage({
          jsonrpc: "2.0",
          id: null,
          error: droppedLineError(ev.dropped, MAX_MESSAGE_BYTES),
        }));
        continue;
      }
      const c = classifyLine(ev);
      if (c.kind === "request") {
        const m = c.message as unknown as Record<string, unknown> & { id: JsonRpcId };
        if (m.method === "initialize" && initialize === null) {
          initialize = { id: m.id, message: m };
        }
        if (!fallbackInput) {
          remember(m.id);
          noteLogcat(m);
        }
      } else if (c.kind === "notification" && c.message.method === "notifications/initialized") {
        initialized = ev;
      } else if (c.kind === "notification" && c.message.method === "notifications/cancelled") {
        // The app drops a cancelled request's answer (MCP cancellation): nothing will come.
        const id = (c.message.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof id === "string" || typeof id === "number") forget(id);
      }
      if (switching) await switching;
      if (exitCode !== null) return;
      if (!(await sink(ev))) {
        // The socket is gone: wait for the switch, then give the line to the standalone server.
        await appGone.promise;
        switching ??= switchToStandalone();
        await switching;
        if (exitCode !== null) return;
        if (c.kind === "request") forget((c.message as { id: JsonRpcId }).id);
        await sink(ev);
      }
    }
  })();

  const gone = appGone.promise.then(async () => {
    switching ??= switchToStandalone();
    await switching;
    return "gone" as const;
  });
  const first = await Promise.race([
    stdinLoop.then(() => "client" as const),
    gone,
    (opts.stop ?? new Promise<never>(() => {})).then(() => "stop" as const),
  ]);
  if (first === "client" || first === "stop") {
    // The client went away (or a signal): the app sees the connection end; builds carry on there.
    leaving = fallbackInput === null && switching === null;
    if (first === "client" && leaving && open.size > 0) {
      // Keep the socket open until the app has answered what is in flight (a half-close would not
      // do: a Deno socket whose input ends is closed, so the app could not answer).
      await boundedWait(
        Promise.race([allAnswered.promise, socketLoop, opts.stop ?? new Promise<never>(() => {})]),
        RELAY_DRAIN_MS,
      );
    }
    try {
      opts.conn.close();
    } catch { /* closed */ }
    if (first === "stop") stdinReader.cancel().catch(() => {});
    await socketLoop;
    if (fallbackInput) {
      await (fallbackInput as WritableStreamDefaultWriter<Uint8Array>).close().catch(() => {});
      const code = await fallbackDone!;
      out.releaseLock();
      return code;
    }
    out.releaseLock();
    return 0;
  }
  try {
    opts.conn.close();
  } catch { /* closed */ }
  if (exitCode !== null) {
    stdinReader.cancel().catch(() => {});
    out.releaseLock();
    return exitCode;
  }
  // Standalone now: the stdin loop feeds it until the client closes stdin.
  const stopped = await Promise.race([
    stdinLoop.then(() => "client" as const),
    (opts.stop ?? new Promise<never>(() => {})).then(() => "stop" as const),
  ]);
  if (stopped === "stop") stdinReader.cancel().catch(() => {});
  await (fallbackInput as WritableStreamDefaultWriter<Uint8Array> | null)?.close().catch(() => {});
  const code = await fallbackDone!;
  out.releaseLock();
  return code;
}
