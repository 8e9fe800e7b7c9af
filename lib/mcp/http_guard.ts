/**
 * What every streamable HTTP request is checked for before anything reads its body: the path, the
 * `Origin` (a page from another site is refused: DNS-rebinding protection), on loopback the
 * `Host`, and the bearer token (compared in constant time; see lib/mcp/http_address.ts).
 */
import { sameBytes, sha256Bytes } from "../core/hash.ts";
import { HTTP_MCP_PATH, isLoopback, originOf } from "./http_address.ts";
import { rpcError } from "./http_errors.ts";
import { RpcCode } from "./jsonrpc.ts";

export class HttpRequestGuard {
  readonly #loopback: boolean;
  readonly #tokenDigest: Promise<Uint8Array> | null;
  #allowedOrigins = new Set<string>();
  #allowedHosts = new Set<string>();

  constructor(readonly hostname: string, token: string | null) {
    this.#loopback = isLoopback(hostname);
    this.#tokenDigest = token === null ? null : sha256Bytes(token);
  }

  /** The server listens on `port`: its origins and hosts are known. Returns its own origin. */
  listening(port: number): string {
    const own = originOf(this.hostname, port);
    const names = this.#loopback
      ? [this.hostname, "localhost", "127.0.0.1", "[::1]"]
      : [this.hostname];
    const hostOf = (n: string) => `${n.includes(":") && !n.startsWith("[") ? `[${n}]` : n}:${port}`;
    this.#allowedOrigins = new Set(
      [own, ...names.map((n) => `http://${hostOf(n)}`)].map((s) => s.toLowerCase()),
    );
    this.#allowedHosts = new Set(names.map(hostOf).map((s) => s.toLowerCase()));
    return own;
  }

  /** The refusal for a request that fails a check, or null. */
  async refusal(req: Request): Promise<Response | null> {
    const url = new URL(req.url);
    if (url.pathname !== HTTP_MCP_PATH) {
      return rpcError(
        404,
        null,
        RpcCode.invalidRequest,
        `Not Found: MCP is served at ${HTTP_MCP_PATH}`,
      );
    }
    return this.#originRefusal(req) ?? this.#hostRefusal(req) ?? await this.#tokenRefusal(req);
  }

  #originRefusal(req: Request): Response | null {
    const origin = req.headers.get("origin");
    if (origin === null || this.#allowedOrigins.has(origin.toLowerCase())) return null;
    return rpcError(
      403,
      null,
      RpcCode.invalidRequest,
      `Forbidden: Origin ${JSON.stringify(origin.slice(0, 200))} is not this server's ` +
        `(${[...this.#allowedOrigins][0]}); pages from other sites may not call it`,
    );
  }

  #hostRefusal(req: Request): Response | null {
    const host = (req.headers.get("host") ?? "").toLowerCase();
    if (!this.#loopback || this.#allowedHosts.has(host)) return null;
    return rpcError(
      403,
      null,
      RpcCode.invalidRequest,
      `Forbidden: Host ${JSON.stringify(host.slice(0, 200))} is not this server's loopback ` +
        `address (${[...this.#allowedHosts].join(", ")})`,
    );
  }

  async #tokenRefusal(req: Request): Promise<Response | null> {
    if (!this.#tokenDigest) return null;
    const auth = req.headers.get("authorization") ?? "";
    const m = /^Bearer (.+)$/.exec(auth);
    const ok = m !== null && sameBytes(await sha256Bytes(m[1]), await this.#tokenDigest);
    if (ok) return null;
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
