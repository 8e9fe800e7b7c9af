/**
 * `--http [HOST:]PORT`: where the streamable HTTP transport listens, and which bearer token it
 * requires: `KEYNOBI_HTTP_TOKEN` when set (required off loopback), else on loopback the install's
 * token (lib/mcp/http_token.ts), or none when the user opted out for a single-user machine.
 */

export interface HttpAddress {
  /** The host to bind, as Deno.serve takes it (IPv6 without brackets). */
  hostname: string;
  /** 0 lets the system choose; the listening line names the port it chose. */
  port: number;
}

/** The host bound when `--http` names only a port. */
export const DEFAULT_HTTP_HOST = "127.0.0.1";
/** The path MCP is served at (http://HOST:PORT/mcp). */
export const HTTP_MCP_PATH = "/mcp";
/** The port `keynobi setup` prints in the HTTP registration lines. */
export const SETUP_HTTP_PORT = 8848;
/** Shortest and longest `KEYNOBI_HTTP_TOKEN` accepted. */
const MIN_HTTP_TOKEN_CHARS = 16;
const MAX_HTTP_TOKEN_CHARS = 4096;

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/** Parse `[HOST:]PORT`; throws a TypeError naming the accepted forms. */
export function parseHttpAddress(text: string): HttpAddress {
  const usage = `--http takes [HOST:]PORT, e.g. 8848, 127.0.0.1:8848 or [::1]:8848, got "${text}"`;
  let host = DEFAULT_HTTP_HOST;
  let portText = text;
  const v6 = /^\[([^\]]+)\]:(.*)$/.exec(text);
  if (v6) {
    host = v6[1];
    portText = v6[2];
    if (!IPV6.test(host) || !host.includes(":")) throw new TypeError(usage);
  } else if (text.includes(":")) {
    const i = text.lastIndexOf(":");
    host = text.slice(0, i);
    portText = text.slice(i + 1);
    if (host.includes(":")) throw new TypeError(`${usage} (write an IPv6 address in brackets)`);
    if (!IPV4.test(host) && !HOSTNAME.test(host)) throw new TypeError(usage);
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new TypeError(usage);
  return { hostname: host, port: Number(portText) };
}

/** Whether a bind address only accepts connections from this machine. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** `http://HOST:PORT` for a bound address (IPv6 in brackets). */
export function originOf(hostname: string, port: number): string {
  return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

/** The bearer token an `--http` server requires. */
export type HttpAuth =
  | { kind: "token"; token: string }
  /** The install's token (`<data dir>/http-token`), created when missing. */
  | { kind: "install" }
  /** `--http-no-token` / `KEYNOBI_HTTP_NO_TOKEN=1` on loopback: every local user is served. */
  | { kind: "none" };

/**
 * Decide the token for this bind from `KEYNOBI_HTTP_TOKEN` (`token`) and the opt-out (`noToken`):
 * the environment's token, checked; on loopback without one, the install's token, or none when
 * opted out; off loopback the environment's token is required, opted out or not. Throws a
 * TypeError saying what to do.
 */
export function httpAuthFor(
  address: HttpAddress,
  token: string | undefined | null,
  noToken = false,
): HttpAuth {
  const t = token ?? "";
  if (t === "") {
    if (isLoopback(address.hostname)) return noToken ? { kind: "none" } : { kind: "install" };
    throw new TypeError(
      `--http ${address.hostname}:${address.port} is not a loopback address: set ` +
        `KEYNOBI_HTTP_TOKEN to a secret of at least ${MIN_HTTP_TOKEN_CHARS} characters (clients ` +
        "send it as Authorization: Bearer <token>), or bind 127.0.0.1" +
        (noToken ? " (--http-no-token applies to loopback only)" : ""),
    );
  }
  if (noToken) {
    throw new TypeError(
      "KEYNOBI_HTTP_TOKEN is set and --http-no-token (or KEYNOBI_HTTP_NO_TOKEN) asks for no " +
        "token: drop one of them",
    );
  }
  if (t.length < MIN_HTTP_TOKEN_CHARS || t.length > MAX_HTTP_TOKEN_CHARS) {
    throw new TypeError(
      `KEYNOBI_HTTP_TOKEN must be ${MIN_HTTP_TOKEN_CHARS} to ${MAX_HTTP_TOKEN_CHARS} characters, ` +
        `got ${t.length}`,
    );
  }
  if (!/^[\x21-\x7e]+$/.test(t)) {
    throw new TypeError(
      "KEYNOBI_HTTP_TOKEN must be printable ASCII without spaces (it travels in an HTTP header)",
    );
  }
  return { kind: "token", token: t };
}
