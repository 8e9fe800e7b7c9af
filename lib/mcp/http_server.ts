/**
 * `keynobi --mcp --http [HOST:]PORT`: MCP over the SDK's web-standard streamable HTTP transport on
 * `Deno.serve`. One SDK session (lib/mcp/session.ts) per `Mcp-Session-Id`, each with its own state
 * as a stdio session has; `DELETE` ends one, idle ones expire, and their number is bounded.
 *
 * In front of the SDK's transport, every request is checked here first: the path, the `Origin`
 * (a page from another site is refused: DNS-rebinding protection) and on loopback the `Host`, the
 * bearer token (compared in constant time; see lib/mcp/http_address.ts), the body size (read with a
 * cap, never whole), UTF-8 and JSON, one message per body (no batches), exact ids, the session,
 * and the session's in-flight bound and duplicate ids. Each refusal is a JSON-RPC error body with
 * the HTTP status that says what happened; the server keeps serving.
 *
 * Clients that never send DELETE (a conformance run, an inspector's CLI, bare `initialize` POSTs)
 * must not lock the others out: a session whose client never sent `notifications/initialized` is
 * ended after `HTTP_HANDSHAKE_MS` without a request, and when the bound is reached a new session
 * takes the place of one with nothing in flight, such a half-open one first (idle ≥
 * `HTTP_HANDSHAKE_GRACE_MS`), else the least recently used one idle ≥ `HTTP_EVICT_IDLE_MS`. Only
 * when none qualifies is it 503, with `Retry-After` saying when the first one will.
 */
import { readCapped } from "../core/bytes.ts";
import { HTTP_MCP_PATH, type HttpAddress } from "./http_address.ts";
import { rpcError, unknownHttpSession } from "./http_errors.ts";
import { HttpRequestGuard } from "./http_guard.ts";
import { HTTP_HANDSHAKE_GRACE_MS, type HttpSession, HttpSessionTable } from "./http_sessions.ts";
import { classifyValue, type JsonRpcId, MAX_MESSAGE_BYTES, RpcCode } from "./jsonrpc.ts";
import { admissionError } from "./request_gate.ts";
import type { McpSession } from "./session.ts";

export { HTTP_HANDSHAKE_GRACE_MS };

/** Sessions one HTTP server holds at once; a new one over the bound is refused (503). */
export const MAX_HTTP_SESSIONS = 32;
export const MAX_HTTP_SESSIONS_LIMIT = 1024;
/** A session without a request for this long (and none in flight) is ended. */
export const HTTP_SESSION_IDLE_MS = 30 * 60_000;
export const HTTP_SESSION_IDLE_MS_MAX = 24 * 60 * 60_000;
/** A session whose client never completed initialization is ended after this long idle. */
export const HTTP_HANDSHAKE_MS = 10_000;
/** When the bound is reached, the least recently used session idle this long gives its place. */
export const HTTP_EVICT_IDLE_MS = 60_000;
/** Largest request body read; larger is refused (413) before it is parsed. */
export const MAX_HTTP_BODY_BYTES = MAX_MESSAGE_BYTES;

export interface HttpServeOptions {
  address: HttpAddress;
  /** The bearer token every request must carry (decided by `httpAuthFor`), or null. */
  token: string | null;
  newSession(sessionId: string): McpSession<unknown>;
  onListen?(url: string): void;
  maxSessions?: number;
  idleMs?: number;
  maxBodyBytes?: number;
  /** Least idle time before a full server evicts an initialized session (HTTP_EVICT_IDLE_MS). */
  evictIdleMs?: number;
}

/** One JSON-RPC message read from a POST body. */
type PostedMessage = {
  value: unknown;
  c: Exclude<ReturnType<typeof classifyValue>, { kind: "invalid" }>;
};

function bounded(v: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
  }
  return v;
}

/** The options' bounds, each checked. */
function boundsOf(opts: HttpServeOptions) {
  const maxSessions = bounded(
    opts.maxSessions ?? MAX_HTTP_SESSIONS,
    1,
    MAX_HTTP_SESSIONS_LIMIT,
    "maxSessions",
  );
  const idleMs = bounded(
    opts.idleMs ?? HTTP_SESSION_IDLE_MS,
    1,
    HTTP_SESSION_IDLE_MS_MAX,
    "idleMs",
  );
  const maxBodyBytes = bounded(
    opts.maxBodyBytes ?? MAX_HTTP_BODY_BYTES,
    1,
    MAX_HTTP_BODY_BYTES,
    "maxBodyBytes",
  );
  const evictIdleMs = Math.min(
    idleMs,
    bounded(opts.evictIdleMs ?? HTTP_EVICT_IDLE_MS, 1, HTTP_SESSION_IDLE_MS_MAX, "evictIdleMs"),
  );
  return {
    maxSessions,
    idleMs,
    maxBodyBytes,
    evictIdleMs,
    handshakeMs: Math.min(idleMs, HTTP_HANDSHAKE_MS),
  };
}

/** Serve MCP over streamable HTTP at `opts.address` until `close`. */
export function serveHttp(opts: HttpServeOptions): HttpMcpServer {
  return new HttpMcpServer(opts);
}

export class HttpMcpServer {
  /** The endpoint's URL once listening (the port the system chose for port 0). */
  readonly ready: Promise<string>;
  /** Resolves when the HTTP server has stopped. */
  readonly finished: Promise<void>;
  readonly #sessions: HttpSessionTable;
  readonly #guard: HttpRequestGuard;
  readonly #server: Deno.HttpServer;
  #closing = false;

  constructor(opts: HttpServeOptions) {
    this.#sessions = new HttpSessionTable(boundsOf(opts), opts.newSession);
    this.#guard = new HttpRequestGuard(opts.address.hostname, opts.token);
    const ready = Promise.withResolvers<string>();
    this.ready = ready.promise;
    this.#server = Deno.serve({
      hostname: opts.address.hostname,
      port: opts.address.port,
      onListen: ({ port }) => {
        const url = `${this.#guard.listening(port)}${HTTP_MCP_PATH}`;
        opts.onListen?.(url);
        ready.resolve(url);
      },
      onError: (e) => {
        console.error(
          `keynobi: HTTP request failed: ${e instanceof Error ? e.message : String(e)}`,
        );
        return rpcError(500, null, RpcCode.internalError, "Internal error");
      },
    }, (req) => this.#handle(req));
    this.finished = this.#server.finished;
  }

  sessionCount(): number {
    return this.#sessions.size;
  }

  /** End every session (aborting what is in flight) and stop listening. */
  async close(): Promise<void> {
    if (this.#closing) return await this.#server.finished;
    this.#closing = true;
    await this.#sessions.close();
    await this.#server.shutdown();
  }

  async #handle(req: Request): Promise<Response> {
    if (this.#closing) {
      return rpcError(503, null, RpcCode.serverBusy, "Service Unavailable: keynobi is stopping");
    }
    const refused = await this.#guard.refusal(req);
    if (refused) return refused;
    switch (req.method) {
      case "POST":
        return await this.post(req);
      case "GET":
        return await this.get(req);
      case "DELETE":
        return await this.delete(req);
      default:
        return this.notAllowed(req);
    }
  }

  /** One JSON-RPC message: checked, admitted by its session's gate, handed to the SDK. */
  async post(req: Request): Promise<Response> {
    // MCP-Protocol-Version is checked by the SDK's transport (400 for a revision it does not
    // know). It accepts 2025-03-26 there, which we never negotiate but which changes nothing for a
    // single message; clients (the conformance suite among them) send it after initialize.
    const posted = await this.#readMessage(req);
    if (posted instanceof Response) return posted;
    const { value, c } = posted;
    const sid = req.headers.get("mcp-session-id");
    const entry = await this.#postedSession(sid, c);
    if (entry instanceof Response) return entry;
    entry.lastSeen = performance.now();
    if (c.kind === "notification" && c.message.method === "notifications/initialized") {
      entry.initialized = true;
    }
    const id = c.kind === "request" ? c.message.id : null;
    const refused = id === null ? null : admit(entry, id);
    if (refused) return refused;
    let res: Response;
    try {
      res = await entry.transport.handleRequest(req, { parsedBody: value });
    } catch (e) {
      if (id !== null) entry.mcpSession.gate.settle(id);
      throw e;
    }
    // Refused by the SDK's own checks (Accept, Content-Type, …): no handler will settle it.
    if (id !== null && res.status >= 400) entry.mcpSession.gate.settle(id);
    if (sid === null && res.status >= 400) void this.#sessions.end(entry.mcpSession.sessionId);
    return res;
  }

  /** The session's stream of server messages (the SDK's). */
  get(req: Request): Promise<Response> {
    return this.#forward(req);
  }

  /** End the session (the SDK answers, then `onsessionclosed` forgets it). */
  delete(req: Request): Promise<Response> {
    return this.#forward(req);
  }

  /** Every other verb (OPTIONS, PUT, …): 405 naming the three MCP uses. */
  notAllowed(req: Request): Response {
    return rpcError(
      405,
      null,
      RpcCode.invalidRequest,
      `Method Not Allowed: ${req.method.slice(0, 20)}; MCP over HTTP uses POST, GET and DELETE`,
      { allow: "GET, POST, DELETE" },
    );
  }

  /** GET and DELETE: to the open session the header names. */
  async #forward(req: Request): Promise<Response> {
    const sid = req.headers.get("mcp-session-id");
    if (sid === null) {
      return rpcError(
        400,
        null,
        RpcCode.invalidRequest,
        `Bad Request: ${req.method} needs the Mcp-Session-Id header of an open session`,
      );
    }
    const entry = this.#sessions.get(sid);
    if (!entry) return unknownHttpSession(sid);
    entry.lastSeen = performance.now();
    return await entry.transport.handleRequest(req);
  }

  /** The body as one message: size capped, UTF-8, JSON, a valid JSON-RPC shape. */
  async #readMessage(req: Request): Promise<PostedMessage | Response> {
    const maxBody = this.#sessions.bounds.maxBodyBytes;
    const declared = Number(req.headers.get("content-length") ?? "0");
    const tooLarge = () =>
      rpcError(
        413,
        null,
        RpcCode.parseError,
        `Payload Too Large: a request body is at most ${maxBody} bytes (MAX_HTTP_BODY_BYTES); ` +
          "nothing in it was read",
      );
    if (declared > maxBody) return tooLarge();
    const bytes = await readCapped(req.body, maxBody);
    if (bytes === null) return tooLarge();
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return rpcError(400, null, RpcCode.parseError, "Parse error: the body is not valid UTF-8");
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return rpcError(400, null, RpcCode.parseError, "Parse error: the body is not valid JSON");
    }
    const c = classifyValue(value);
    if (c.kind === "invalid") return rpcError(400, c.id, c.error.code, c.error.message);
    return { value, c };
  }

  /** The session a POST goes to: the header's, or for `initialize` without one a new one. */
  async #postedSession(
    sid: string | null,
    c: PostedMessage["c"],
  ): Promise<HttpSession | Response> {
    if (sid !== null) return this.#sessions.get(sid) ?? unknownHttpSession(sid);
    if (c.kind !== "request" || c.message.method !== "initialize") {
      return rpcError(
        400,
        c.kind === "request" ? c.message.id : null,
        RpcCode.invalidRequest,
        "Bad Request: no Mcp-Session-Id header: start a session with initialize, then send " +
          "the Mcp-Session-Id it answers with on every request",
      );
    }
    if (this.#sessions.full) this.#sessions.sweep();
    const retryAfter = this.#sessions.full ? this.#sessions.makeRoom() : null;
    if (retryAfter !== null) {
      const max = this.#sessions.bounds.maxSessions;
      return rpcError(
        503,
        c.message.id,
        RpcCode.serverBusy,
        `Server busy: ${max} sessions are open (MAX_HTTP_SESSIONS), all in use: end ` +
          `one with DELETE, or retry in ${retryAfter} s, when one will have been idle long ` +
          "enough to give its place",
        { "retry-after": String(retryAfter) },
      );
    }
    return await this.#sessions.open();
  }
}

/** Admit a request's id to its session's gate, or the refusal (a duplicate, over the bound). */
function admit(entry: HttpSession, id: JsonRpcId): Response | null {
  const gate = entry.mcpSession.gate;
  const a = gate.admit(id);
  if (a === "duplicate") {
    const e = admissionError(a, id, gate.max);
    return rpcError(400, null, e.code, e.message);
  }
  if (a === "busy") {
    const e = admissionError(a, id, gate.max);
    return rpcError(200, id, e.code, e.message, {}, e.data);
  }
  return null;
}
