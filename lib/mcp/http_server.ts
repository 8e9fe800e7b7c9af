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
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { readCapped } from "../core/bytes.ts";
import { sameBytes, sha256Bytes } from "../core/hash.ts";
import { HTTP_MCP_PATH, type HttpAddress, isLoopback, originOf } from "./http_address.ts";
import { classifyValue, type JsonRpcId, MAX_MESSAGE_BYTES, RpcCode } from "./jsonrpc.ts";
import { admissionError } from "./request_gate.ts";
import type { Session } from "./session.ts";

/** Sessions one HTTP server holds at once; a new one over the bound is refused (503). */
export const MAX_HTTP_SESSIONS = 32;
export const MAX_HTTP_SESSIONS_LIMIT = 1024;
/** A session without a request for this long (and none in flight) is ended. */
export const HTTP_SESSION_IDLE_MS = 30 * 60_000;
export const HTTP_SESSION_IDLE_MS_MAX = 24 * 60 * 60_000;
/** A session whose client never completed initialization is ended after this long idle. */
export const HTTP_HANDSHAKE_MS = 10_000;
/** When the bound is reached, a half-open session idle this long gives its place to a new one. */
export const HTTP_HANDSHAKE_GRACE_MS = 1_000;
/** When the bound is reached, the least recently used session idle this long gives its place. */
export const HTTP_EVICT_IDLE_MS = 60_000;
/** Largest request body read; larger is refused (413) before it is parsed. */
export const MAX_HTTP_BODY_BYTES = MAX_MESSAGE_BYTES;

export interface HttpServeOptions {
  address: HttpAddress;
  /** The bearer token every request must carry (decided by `httpAuthFor`), or null. */
  token: string | null;
  newSession(sessionId: string): Session<unknown>;
  onListen?(url: string): void;
  maxSessions?: number;
  idleMs?: number;
  maxBodyBytes?: number;
  /** Least idle time before a full server evicts an initialized session (HTTP_EVICT_IDLE_MS). */
  evictIdleMs?: number;
}

export interface HttpMcpServer {
  /** The endpoint's URL once listening (the port the system chose for port 0). */
  ready: Promise<string>;
  /** Resolves when the HTTP server has stopped. */
  finished: Promise<void>;
  sessionCount(): number;
  /** End every session (aborting what is in flight) and stop listening. */
  close(): Promise<void>;
}

interface Entry {
  session: Session<unknown>;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** The client sent `notifications/initialized`. */
  initialized: boolean;
}

const JSON_HEADERS = { "content-type": "application/json" };

function rpcError(
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

function bounded(v: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
  }
  return v;
}

export function serveHttp(opts: HttpServeOptions): HttpMcpServer {
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
  const maxBody = bounded(
    opts.maxBodyBytes ?? MAX_HTTP_BODY_BYTES,
    1,
    MAX_HTTP_BODY_BYTES,
    "maxBodyBytes",
  );
  const evictIdleMs = Math.min(
    idleMs,
    bounded(opts.evictIdleMs ?? HTTP_EVICT_IDLE_MS, 1, HTTP_SESSION_IDLE_MS_MAX, "evictIdleMs"),
  );
  const handshakeMs = Math.min(idleMs, HTTP_HANDSHAKE_MS);
  const loopback = isLoopback(opts.address.hostname);
  const tokenDigest = opts.token === null ? null : sha256Bytes(opts.token);
  const sessions = new Map<string, Entry>();
  const ready = Promise.withResolvers<string>();
  let allowedOrigins = new Set<string>();
  let allowedHosts = new Set<string>();
  let closing = false;

  const end = async (id: string) => {
    const e = sessions.get(id);
    if (!e) return;
    sessions.delete(id);
    await e.session.close();
    await e.transport.close().catch(() => {});
  };

  const sweep = () => {
    const now = performance.now();
    for (const [id, e] of sessions) {
      const limit = e.initialized ? idleMs : handshakeMs;
      if (now - e.lastSeen > limit && e.session.gate.size === 0) void end(id);
    }
  };
  const sweeper = setInterval(sweep, Math.max(10, Math.min(5_000, Math.floor(handshakeMs / 2))));

  /** The idle time after which a full server may give this session's place to a new one. */
  const evictableAfter = (e: Entry) =>
    e.initialized ? evictIdleMs : Math.min(evictIdleMs, HTTP_HANDSHAKE_GRACE_MS);

  /**
   * Make room for one more session: end the half-open one idle longest, else the least recently
   * used one, if it qualifies. Otherwise the seconds until the first one will (for Retry-After).
   */
  const makeRoom = (): number | null => {
    const now = performance.now();
    let victim: [string, Entry] | null = null;
    let wait = Infinity;
    for (const [id, e] of sessions) {
      const left = e.lastSeen + evictableAfter(e) - now;
      if (e.session.gate.size > 0 || left > 0) {
        wait = Math.min(wait, e.session.gate.size > 0 ? evictableAfter(e) : left);
        continue;
      }
      if (
        victim === null || (victim[1].initialized && !e.initialized) ||
        (victim[1].initialized === e.initialized && e.lastSeen < victim[1].lastSeen)
      ) victim = [id, e];
    }
    if (victim !== null) {
      void end(victim[0]);
      return null;
    }
    return Math.max(1, Math.ceil(wait / 1000));
  };

  async function open(): Promise<Entry> {
    const id = crypto.randomUUID();
    const session = opts.newSession(id);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: (sid: string) => {
        // DELETE: forget it now; `end` closes it (the SDK closes its transport after this).
        const e = sessions.get(sid);
        sessions.delete(sid);
        if (e) void e.session.close();
      },
      maxRequestBodySize: maxBody,
    });
    // An answer frees its id in the gate, whoever sent it (the SDK answers some itself).
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
      const m = message as { id?: JsonRpcId | null; method?: string };
      if (m.method === undefined && m.id !== undefined && m.id !== null) {
        session.gate.settle(m.id);
      }
      return send(message, options);
    };
    await session.server.connect(transport);
    const entry = { session, transport, lastSeen: performance.now(), initialized: false };
    sessions.set(id, entry);
    return entry;
  }

  async function post(req: Request): Promise<Response> {
    // MCP-Protocol-Version is checked by the SDK's transport (400 for a revision it does not
    // know). It accepts 2025-03-26 there, which we never negotiate but which changes nothing for a
    // single message; clients (the conformance suite among them) send it after initialize.
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
    const sid = req.headers.get("mcp-session-id");
    const isInitialize = c.kind === "request" && c.message.method === "initialize";
    let entry: Entry;
    if (sid === null) {
      if (!isInitialize) {
        return rpcError(
          400,
          c.kind === "request" ? c.message.id : null,
          RpcCode.invalidRequest,
          "Bad Request: no Mcp-Session-Id header: start a session with initialize, then send " +
            "the Mcp-Session-Id it answers with on every request",
        );
      }
      if (sessions.size >= maxSessions) sweep();
      const retryAfter = sessions.size >= maxSessions ? makeRoom() : null;
      if (retryAfter !== null) {
        return rpcError(
          503,
          c.message.id,
          RpcCode.serverBusy,
          `Server busy: ${maxSessions} sessions are open (MAX_HTTP_SESSIONS), all in use: end ` +
            `one with DELETE, or retry in ${retryAfter} s, when one will have been idle long ` +
            "enough to give its place",
          { "retry-after": String(retryAfter) },
        );
      }
      entry = await open();
    } else {
      const found = sessions.get(sid);
      if (!found) return unknownSession(sid);
      entry = found;
    }
    entry.lastSeen = performance.now();
    if (c.kind === "notification" && c.message.method === "notifications/initialized") {
      entry.initialized = true;
    }
    const id = c.kind === "request" ? c.message.id : null;
    if (id !== null) {
      const a = entry.session.gate.admit(id);
      if (a === "duplicate") {
        return rpcError(400, null, ...errorArgs(admissionError(a, id, entry.session.gate.max)));
      }
      if (a === "busy") {
        const e = admissionError(a, id, entry.session.gate.max);
        return rpcError(200, id, e.code, e.message, {}, e.data);
      }
    }
    let res: Response;
    try {
      res = await entry.transport.handleRequest(req, { parsedBody: value });
    } catch (e) {
      if (id !== null) entry.session.gate.settle(id);
      throw e;
    }
    // Refused by the SDK's own checks (Accept, Content-Type, …): no handler will settle it.
    if (id !== null && res.status >= 400) entry.session.gate.settle(id);
    if (sid === null && res.status >= 400) void end(entry.session.sessionId);
    return res;
  }

  function unknownSession(sid: string): Response {
    return rpcError(
      404,
      null,
      -32001,
      `Session not found: ${
        JSON.stringify(sid.slice(0, 80))
      } is not an open session (ended with DELETE, ` +
        "expired after being idle, given its place to a new session when the server was full, or " +
        "from a server that has restarted): send initialize again",
    );
  }

  async function handle(req: Request): Promise<Response> {
    if (closing) {
      return rpcError(503, null, RpcCode.serverBusy, "Service Unavailable: keynobi is stopping");
    }
    const url = new URL(req.url);
    if (url.pathname !== HTTP_MCP_PATH) {
      return rpcError(
        404,
        null,
        RpcCode.invalidRequest,
        `Not Found: MCP is served at ${HTTP_MCP_PATH}`,
      );
    }
    const origin = req.headers.get("origin");
    if (origin !== null && !allowedOrigins.has(origin.toLowerCase())) {
      return rpcError(
        403,
        null,
        RpcCode.invalidRequest,
        `Forbidden: Origin ${JSON.stringify(origin.slice(0, 200))} is not this server's ` +
          `(${[...allowedOrigins][0]}); pages from other sites may not call it`,
      );
    }
    const host = (req.headers.get("host") ?? "").toLowerCase();
    if (loopback && !allowedHosts.has(host)) {
      return rpcError(
        403,
        null,
        RpcCode.invalidRequest,
        `Forbidden: Host ${JSON.stringify(host.slice(0, 200))} is not this server's loopback ` +
          `address (${[...allowedHosts].join(", ")})`,
      );
    }
    if (tokenDigest) {
      const auth = req.headers.get("authorization") ?? "";
      const m = /^Bearer (.+)$/.exec(auth);
      const ok = m !== null && sameBytes(await sha256Bytes(m[1]), await tokenDigest);
      if (!ok) {
        return rpcError(
          401,
          null,
          RpcCode.invalidRequest,
          m === null
            ? "Unauthorized: send Authorization: Bearer <token> (keynobi setup --http prints " +
              "the registration with it; or KEYNOBI_HTTP_TOKEN when the server has it set)"
            : "Unauthorized: the bearer token is not this server's (the one keynobi setup " +
              "--http prints, or KEYNOBI_HTTP_TOKEN when the server has it set)",
          { "www-authenticate": 'Bearer realm="keynobi"' },
        );
      }
    }
    switch (req.method) {
      case "POST":
        return await post(req);
      case "GET":
      case "DELETE": {
        const sid = req.headers.get("mcp-session-id");
        if (sid === null) {
          return rpcError(
            400,
            null,
            RpcCode.invalidRequest,
            `Bad Request: ${req.method} needs the Mcp-Session-Id header of an open session`,
          );
        }
        const entry = sessions.get(sid);
        if (!entry) return unknownSession(sid);
        entry.lastSeen = performance.now();
        return await entry.transport.handleRequest(req);
      }
      default:
        return rpcError(
          405,
          null,
          RpcCode.invalidRequest,
          `Method Not Allowed: ${req.method.slice(0, 20)}; MCP over HTTP uses POST, GET and DELETE`,
          { allow: "GET, POST, DELETE" },
        );
    }
  }

  const server = Deno.serve({
    hostname: opts.address.hostname,
    port: opts.address.port,
    onListen: ({ port }) => {
      const own = originOf(opts.address.hostname, port);
      const names = loopback
        ? [opts.address.hostname, "localhost", "127.0.0.1", "[::1]"]
        : [opts.address.hostname];
      allowedOrigins = new Set(
        [
          own,
          ...names.map((n) =>
            `http://${n.includes(":") && !n.startsWith("[") ? `[${n}]` : n}:${port}`
          ),
        ].map((s) => s.toLowerCase()),
      );
      allowedHosts = new Set(
        names.map((n) => `${n.includes(":") && !n.startsWith("[") ? `[${n}]` : n}:${port}`)
          .map((s) => s.toLowerCase()),
      );
      const url = `${own}${HTTP_MCP_PATH}`;
      opts.onListen?.(url);
      ready.resolve(url);
    },
    onError: (e) => {
      console.error(`keynobi: HTTP request failed: ${e instanceof Error ? e.message : String(e)}`);
      return rpcError(500, null, RpcCode.internalError, "Internal error");
    },
  }, handle);

  return {
    ready: ready.promise,
    finished: server.finished,
    sessionCount: () => sessions.size,
    async close() {
      if (closing) return await server.finished;
      closing = true;
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.keys()].map(end));
      await server.shutdown();
    },
  };
}

function errorArgs(e: { code: number; message: string }): [number, string] {
  return [e.code, e.message];
}
