/**
 * JSON-RPC 2.0 over newline-delimited stdio, as MCP's stdio transport defines it: one message per
 * line, UTF-8, no embedded newlines. Batches are not part of MCP 2025-11-25 and are refused.
 *
 * We speak the protocol ourselves rather than through the SDK's `Server`: that class loads Ajv and
 * the experimental task machinery at import, which alone costs more than the whole start-up budget
 * (spawn → `initialize` answered ≤ 150 ms). The SDK's `Client` drives our server in the e2e tests.
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId; result: unknown }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: JsonRpcErrorObject };

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** JSON-RPC and MCP error codes. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** MCP: resources/read of an unknown URI. */
  resourceNotFound: -32002,
} as const;

/** An error that crosses the wire as a JSON-RPC error response. */
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

/** Longest line we accept from a client; a longer one is answered with a parse error. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export type Classified =
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
      error: { code: RpcCode.parseError, message: "Parse error" },
    };
  }
  if (Array.isArray(value)) {
    return {
      kind: "invalid",
      id: null,
      error: {
        code: RpcCode.invalidRequest,
        message: "Invalid request: batches are not supported",
      },
    };
  }
  if (typeof value !== "object" || value === null) {
    return invalid(null, "Invalid request: not a JSON object");
  }
  const m = value as Record<string, unknown>;
  const id = m.id;
  const idOk = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
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
    if (!idOk) return invalid(null, "Invalid request: id must be a string or a number");
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

/**
 * Split a byte stream into lines (LF, with an optional CR before it), each at most `maxBytes`.
 * An overlong line is reported as `null` once and the rest of it skipped.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  maxBytes = MAX_MESSAGE_BYTES,
): AsyncGenerator<string | null> {
  const decoder = new TextDecoder();
  let chunks: Uint8Array[] = [];
  let size = 0;
  let skipping = false;
  for await (const chunk of stream) {
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
          yield null;
        } else if (piece.length > 0) {
          chunks.push(piece.slice());
          size += piece.length;
        }
      }
      if (nl === -1) break;
      if (!skipping) {
        let line = decoder.decode(concat(chunks, size));
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (line.trim() !== "") yield line;
      }
      skipping = false;
      chunks = [];
      size = 0;
      start = nl + 1;
    }
  }
  if (!skipping && size > 0) {
    const line = decoder.decode(concat(chunks, size)).replace(/\r$/, "");
    if (line.trim() !== "") yield line;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Serializes writes so that two messages never interleave on the stream. */
export class LineWriter {
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #encoder = new TextEncoder();
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(stream: WritableStream<Uint8Array>) {
    this.#writer = stream.getWriter();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const bytes = this.#encoder.encode(JSON.stringify(message) + "\n");
    this.#queue = this.#queue.then(() => this.#writer.write(bytes)).catch(() => {
      // The client went away; nothing else can be sent.
      this.#closed = true;
    });
    return this.#queue;
  }

  async close(): Promise<void> {
    await this.#queue;
    this.#closed = true;
    try {
      this.#writer.releaseLock();
    } catch { /* already released */ }
  }
}
