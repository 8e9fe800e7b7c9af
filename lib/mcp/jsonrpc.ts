/**
 * JSON-RPC 2.0 framing, as MCP's stdio transport defines it: one message per line, UTF-8, no
 * embedded newlines. This file parses and checks one message and splits a byte stream into lines;
 * it routes nothing (the SDK's `Server` does, lib/mcp/session.ts). Batches are refused: no protocol
 * revision we negotiate has them (lib/mcp/session.ts SUPPORTED_PROTOCOL_VERSIONS).
 */
import { joinBytes } from "../core/bytes.ts";

export type JsonRpcId = string | number;

interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId; result: unknown }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: JsonRpcErrorObject };

type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** JSON-RPC and MCP error codes. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP: resources/read of an unknown URI. */
  resourceNotFound: -32002,
  /**
   * Ours (JSON-RPC's server-defined range): the session already runs its maximum of requests;
   * nothing was started, the same request can be sent again once an answer arrives.
   */
  serverBusy: -32050,
} as const;

/** An error that crosses the wire as a JSON-RPC error response (the SDK reads code/message/data). */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
  toObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Longest line (stdio) or body (HTTP) we accept from a client; a longer one is answered -32700. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Exact ids. A JSON number beyond ±(2^53 − 1) or with a fraction does not survive `JSON.parse`
 * (9007199254740993 reads as 9007199254740992, which may be another request's id), and the SDK
 * accepts only integer ids. Such an id (and a cancellation's `requestId` or a `progressToken` in the
 * same form) is carried inside the process as this prefix plus the client's exact digits, and
 * written back as those digits, so the client gets its own id back. A string id that starts with
 * the prefix is refused, so the two can never be confused.
 */
const EXACT_NUMBER_PREFIX = "\uFFFFkeynobi-exact-number:";
const EXACT_NUMBER_TEXT = /"\uFFFFkeynobi-exact-number:(-?[0-9][0-9.eE+-]*)"/g;
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

type Classified =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "invalid"; id: JsonRpcId | null; error: JsonRpcErrorObject };

/** Parse and classify one line. Pure: the caller decides what to answer. */
export function classifyLine(line: string): Classified {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      kind: "invalid",
      id: null,
      error: { code: RpcCode.parseError, message: "Parse error: the line is not valid JSON" },
    };
  }
  if (usesReservedPrefix(value)) {
    return invalid(null, "Invalid request: ids must not start with U+FFFF");
  }
  if (needsExactNumbers(value)) return classifyValue(parseKeepingExactNumbers(line), true);
  return classifyValue(value, false);
}

/**
 * Classify an already-parsed message. `exactTokens`: the value came from `classifyLine`, which
 * may have carried unsafe numbers as exact tokens; elsewhere (HTTP) such ids are refused.
 */
export function classifyValue(value: unknown, exactTokens = false): Classified {
  if (Array.isArray(value)) {
    return invalid(
      null,
      "Invalid request: batches are not supported (MCP 2025-06-18 and later): send one message " +
        "per line",
    );
  }
  if (typeof value !== "object" || value === null) {
    return invalid(null, "Invalid request: not a JSON object");
  }
  const m = value as Record<string, unknown>;
  const id = m.id;
  const idOk = (typeof id === "string" &&
    (!id.startsWith(EXACT_NUMBER_PREFIX) || (exactTokens && isExactNumberToken(id)))) ||
    (typeof id === "number" && Number.isSafeInteger(id));
  if (m.jsonrpc !== "2.0") {
    return invalid(idOk ? id as JsonRpcId : null, 'Invalid request: jsonrpc must be "2.0"');
  }
  if (typeof m.method === "string") {
    if (
      m.params !== undefined &&
      (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))
    ) {
      return invalid(idOk ? id as JsonRpcId : null, "Invalid request: params must be an object");
    }
    if (id === undefined) {
      return { kind: "notification", message: m as unknown as JsonRpcNotification };
    }
    if (!idOk) {
      return invalid(
        null,
        typeof id === "number"
          ? `Invalid request: id ${id} cannot be held exactly: use a string or an integer ` +
            "within ±9007199254740991"
          : "Invalid request: id must be a string or a number",
      );
    }
    return { kind: "request", message: m as unknown as JsonRpcRequest };
  }
  if (idOk && ("result" in m || "error" in m)) {
    return { kind: "response", message: m as unknown as JsonRpcResponse };
  }
  return invalid(idOk ? id as JsonRpcId : null, "Invalid request: no method");
}

function invalid(id: JsonRpcId | null, message: string): Classified {
  return { kind: "invalid", id, error: { code: RpcCode.invalidRequest, message } };
}

function isUnsafeNumber(v: unknown): boolean {
  return typeof v === "number" && !Number.isSafeInteger(v);
}

function isExactNumberToken(s: string): boolean {
  return s.startsWith(EXACT_NUMBER_PREFIX) && JSON_NUMBER.test(s.slice(EXACT_NUMBER_PREFIX.length));
}

/** Whether the client put a string with our internal prefix where ids go. */
function usesReservedPrefix(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  const params = m.params as Record<string, unknown> | undefined;
  const meta = typeof params === "object" && params !== null
    ? params._meta as Record<string, unknown> | undefined
    : undefined;
  return [m.id, params?.requestId, typeof meta === "object" && meta ? meta.progressToken : null]
    .some((x) => typeof x === "string" && x.startsWith(EXACT_NUMBER_PREFIX));
}

/** Whether an id-like field of this message holds a number `JSON.parse` may have changed. */
function needsExactNumbers(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  if (isUnsafeNumber(m.id)) return true;
  const params = m.params as Record<string, unknown> | undefined;
  if (typeof params !== "object" || params === null) return false;
  if (isUnsafeNumber(params.requestId)) return true;
  const meta = params._meta as Record<string, unknown> | undefined;
  return typeof meta === "object" && meta !== null && isUnsafeNumber(meta.progressToken);
}

/**
 * Parse again, reading the source text of `id`, `params.requestId` and `params._meta.progressToken`
 * (only those places: a tool argument named `id` is the tool's business).
 */
function parseKeepingExactNumbers(line: string): unknown {
  const seen: { holder: unknown; key: string; source: string }[] = [];
  const root = JSON.parse(
    line,
    function (this: unknown, key, value, context?: { source?: string }) {
      if (
        typeof value === "number" && context?.source !== undefined &&
        (key === "id" || key === "requestId" || key === "progressToken")
      ) {
        seen.push({ holder: this, key, source: context.source });
      }
      return value;
    },
  );
  const params = root?.params;
  for (const s of seen) {
    const h = s.holder as Record<string, unknown>;
    const at = (s.key === "id" && h === root) ||
      (s.key === "requestId" && h === params) ||
      (s.key === "progressToken" && h === params?._meta);
    if (at && isUnsafeNumber(h[s.key])) h[s.key] = EXACT_NUMBER_PREFIX + s.source;
  }
  return root;
}

/** An id as the client wrote it, for messages (exact tokens shown as their digits). */
export function idText(id: JsonRpcId | null): string {
  if (typeof id === "string" && id.startsWith(EXACT_NUMBER_PREFIX)) {
    return id.slice(EXACT_NUMBER_PREFIX.length);
  }
  return JSON.stringify(id);
}

/** One message as a line, with exact ids written back as the client's digits. */
export function encodeMessage(message: unknown): string {
  const text = JSON.stringify(message);
  return text.includes(EXACT_NUMBER_PREFIX) ? text.replace(EXACT_NUMBER_TEXT, "$1") : text;
}

/** What `readLines` yields: a line, or why a line was dropped (each reported once). */
export type LineEvent = string | { dropped: "too_long" | "invalid_utf8" };

/**
 * Split a byte stream into lines (LF, with an optional CR before it), each at most `maxBytes`.
 * An overlong line is reported once and the rest of it skipped; a line that is not UTF-8 is
 * reported instead of being read with replacement characters.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes = MAX_MESSAGE_BYTES,
): AsyncGenerator<LineEvent> {
  const reader = stream.getReader();
  try {
    yield* linesOf(reader, maxBytes);
  } finally {
    reader.releaseLock();
  }
}

/** The same as `readLines`, from a reader the caller owns (so it can cancel a pending read). */
export async function* linesOf(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes = MAX_MESSAGE_BYTES,
): AsyncGenerator<LineEvent> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for await (const bytes of byteLinesOf(reader, maxBytes)) {
    if (!(bytes instanceof Uint8Array)) {
      yield bytes;
      continue;
    }
    let line: string;
    try {
      line = decoder.decode(bytes);
    } catch {
      yield { dropped: "invalid_utf8" };
      continue;
    }
    if (line.trim() !== "") yield line;
  }
}

/** What `byteLinesOf` yields: a line's bytes, or that a line was too long (once per line). */
type ByteLineEvent = Uint8Array | { dropped: "too_long" };

/**
 * Split a byte stream into lines (LF, with an optional CR before it, neither kept), each at most
 * `maxBytes`, as bytes: for a caller that passes lines on without reading them (the relay), which
 * decoding and encoding again cost milliseconds a megabyte. Empty lines are skipped; an overlong
 * line is reported once and the rest of it skipped.
 */
export async function* byteLinesOf(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes = MAX_MESSAGE_BYTES,
): AsyncGenerator<ByteLineEvent> {
  let chunks: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  const finish = (): Uint8Array | null => {
    let line = chunks.length === 1 ? chunks[0] : joinBytes(chunks, size);
    if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    return line.length === 0 ? null : line;
  };
  while (true) {
    const { value: chunk, done } = await reader.read();
    if (done) break;
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (!skipping) {
        if (size + piece.length > maxBytes) {
          skipping = true;
          chunks = [];
          size = 0;
          yield { dropped: "too_long" };
        } else if (piece.length > 0) {
          // A piece the line ends in is this chunk's own (the reader hands each chunk once);
          // one that runs on into the next chunk is copied.
          chunks.push(nl === -1 ? piece.slice() : piece);
          size += piece.length;
        }
      }
      if (nl === -1) break;
      if (!skipping) {
        const line = finish();
        if (line !== null) yield line;
      }
      skipping = false;
      chunks = [];
      size = 0;
      start = nl + 1;
    }
  }
  if (!skipping && size > 0) {
    const line = finish();
    if (line !== null) yield line;
  }
}

/** The error answered for a line `readLines` dropped. */
export function droppedLineError(why: "too_long" | "invalid_utf8", maxBytes: number) {
  return why === "too_long"
    ? {
      code: RpcCode.parseError,
      message: `Parse error: message longer than ${maxBytes} bytes (MAX_MESSAGE_BYTES); ` +
        "nothing in it was read",
    }
    : { code: RpcCode.parseError, message: "Parse error: the line is not valid UTF-8" };
}
