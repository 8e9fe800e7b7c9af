/**
 * The MCP sessions of one streamable HTTP server, by `Mcp-Session-Id`: opening one on the SDK's
 * transport, ending one, the idle sweep, and making room when the bound is reached (a half-open
 * session first, else the least recently used one; see lib/mcp/http_server.ts).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JsonRpcId } from "./jsonrpc.ts";
import type { McpSession } from "./session.ts";

/** When the bound is reached, a half-open session idle this long gives its place to a new one. */
export const HTTP_HANDSHAKE_GRACE_MS = 1_000;

export interface HttpSession {
  mcpSession: McpSession<unknown>;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** The client sent `notifications/initialized`. */
  initialized: boolean;
}

interface HttpSessionBounds {
  maxSessions: number;
  /** An initialized session idle this long (nothing in flight) is ended. */
  idleMs: number;
  /** A half-open one idle this long is ended. */
  handshakeMs: number;
  /** Least idle time before a full table gives an initialized session's place. */
  evictIdleMs: number;
  maxBodyBytes: number;
}

export class HttpSessionTable {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(
    readonly bounds: HttpSessionBounds,
    readonly newMcpSession: (sessionId: string) => McpSession<unknown>,
  ) {
    const every = Math.max(10, Math.min(5_000, Math.floor(bounds.handshakeMs / 2)));
    this.#sweeper = setInterval(() => this.sweep(), every);
  }

  get size(): number {
    return this.#sessions.size;
  }

  get full(): boolean {
    return this.#sessions.size >= this.bounds.maxSessions;
  }

  get(sid: string): HttpSession | undefined {
    return this.#sessions.get(sid);
  }

  async end(sid: string): Promise<void> {
    const e = this.#sessions.get(sid);
    if (!e) return;
    this.#sessions.delete(sid);
    await e.mcpSession.close();
    await e.transport.close().catch(() => {});
  }

  /** End the sessions idle past their bound with nothing in flight. */
  sweep(): void {
    const now = performance.now();
    for (const [sid, e] of this.#sessions) {
      const limit = e.initialized ? this.bounds.idleMs : this.bounds.handshakeMs;
      if (now - e.lastSeen > limit && e.mcpSession.gate.size === 0) void this.end(sid);
    }
  }

  /**
   * Make room for one more session: end the half-open one idle longest, else the least recently
   * used one, if it qualifies. Otherwise the seconds until the first one will (for Retry-After).
   */
  makeRoom(): number | null {
    const now = performance.now();
    let victim: [string, HttpSession] | null = null;
    let wait = Infinity;
    for (const [sid, e] of this.#sessions) {
      const left = e.lastSeen + this.#evictableAfter(e) - now;
      if (e.mcpSession.gate.size > 0 || left > 0) {
        wait = Math.min(wait, e.mcpSession.gate.size > 0 ? this.#evictableAfter(e) : left);
        continue;
      }
      if (
        victim === null || (victim[1].initialized && !e.initialized) ||
        (victim[1].initialized === e.initialized && e.lastSeen < victim[1].lastSeen)
      ) victim = [sid, e];
    }
    if (victim !== null) {
      void this.end(victim[0]);
      return null;
    }
    return Math.max(1, Math.ceil(wait / 1000));
  }

  /** A new session, connected to its own SDK transport. */
  async open(): Promise<HttpSession> {
    const sid = crypto.randomUUID();
    const mcpSession = this.newMcpSession(sid);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sid,
      onsessionclosed: (closed: string) => {
        // DELETE: forget it now; `end` closes it (the SDK closes its transport after this).
        const e = this.#sessions.get(closed);
        this.#sessions.delete(closed);
        if (e) void e.mcpSession.close();
      },
      maxRequestBodySize: this.bounds.maxBodyBytes,
    });
    // An answer frees its id in the gate, whoever sent it (the SDK answers some itself).
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
      const m = message as { id?: JsonRpcId | null; method?: string };
      if (m.method === undefined && m.id !== undefined && m.id !== null) {
        mcpSession.gate.settle(m.id);
      }
      return send(message, options);
    };
    await mcpSession.server.connect(transport);
    const entry = { mcpSession, transport, lastSeen: performance.now(), initialized: false };
    this.#sessions.set(sid, entry);
    return entry;
  }

  /** Stop sweeping and end every session (aborting what is in flight). */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.keys()].map((sid) => this.end(sid)));
  }

  /** The idle time after which a full table may give this session's place to a new one. */
  #evictableAfter(e: HttpSession): number {
    return e.initialized
      ? this.bounds.evictIdleMs
      : Math.min(this.bounds.evictIdleMs, HTTP_HANDSHAKE_GRACE_MS);
  }
}
