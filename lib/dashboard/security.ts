/**
 * Who may talk to the dashboard, decided per request before any route runs. Pure except for
 * `newSecret` (the random source).
 *
 * - The dashboard binds 127.0.0.1 only (`DASHBOARD_HOST`); `assertLoopbackBind` refuses anything
 *   else, so no option or caller can put it on the network.
 * - `Host` must be exactly `127.0.0.1:<port>`: a page on another name that resolves to 127.0.0.1
 *   (DNS rebinding) is refused before the secret is even looked at.
 * - The per-launch secret: the URL the app prints carries it once (`/?k=<secret>`); that visit is
 *   answered with an HttpOnly, SameSite=Strict cookie holding a second secret and a redirect to
 *   `/` without it. Every other request needs the cookie; without it: 401 and nothing else.
 * - A state change (any method but GET/HEAD) also needs `Origin` equal to the dashboard's own
 *   origin (CSRF): a missing or foreign Origin is 403 and the route does not run.
 */
import { hexOf, sameBytes } from "../core/hash.ts";

const encoder = new TextEncoder();

/** The only address the dashboard listens on. */
export const DASHBOARD_HOST = "127.0.0.1";
/** The cookie that carries the session secret. */
const SESSION_COOKIE = "keynobi_dashboard";
/** The query parameter of the printed URL that carries the launch secret. */
export const LOGIN_PARAM = "k";
/** Random bytes in each secret (hex-encoded: twice as many characters). */
const SECRET_BYTES = 32;
/** Longest `Cookie` header looked at. */
const MAX_COOKIE_HEADER_CHARS = 8 * 1024;

export interface DashboardSecrets {
  /** In the printed URL; exchanged once per browser for the cookie. */
  login: string;
  /** The cookie's value. */
  session: string;
}

export function newSecret(bytes = SECRET_BYTES): string {
  return hexOf(crypto.getRandomValues(new Uint8Array(bytes)));
}

export function newSecrets(): DashboardSecrets {
  return { login: newSecret(), session: newSecret() };
}

/** Throws unless `hostname` is the loopback address the dashboard may bind. */
export function assertLoopbackBind(hostname: string): void {
  if (hostname !== DASHBOARD_HOST) {
    throw new RangeError(
      `The dashboard listens on ${DASHBOARD_HOST} only, never on ${JSON.stringify(hostname)}: ` +
        "open it from this machine",
    );
  }
}

/** The dashboard's origin for a port. */
export function dashboardOrigin(port: number): string {
  return `http://${DASHBOARD_HOST}:${port}`;
}

/** Equal strings, compared in time independent of where they differ. Pure. */
export function sameSecret(a: string, b: string): boolean {
  return sameBytes(encoder.encode(a), encoder.encode(b));
}

/** The value of cookie `name` in a `Cookie` header, or null. Pure. */
export function cookieValue(header: string | null, name: string): string | null {
  if (header === null || header.length > MAX_COOKIE_HEADER_CHARS) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

/** The `Set-Cookie` value for the session secret. Pure. */
export function sessionCookie(secret: string): string {
  return `${SESSION_COOKIE}=${secret}; HttpOnly; SameSite=Strict; Path=/`;
}

type Verdict =
  | { ok: true; login: boolean }
  | { ok: false; status: 401 | 403 | 421; message: string };

interface RequestFacts {
  method: string;
  /** The URL's path and query. */
  url: URL;
  host: string | null;
  origin: string | null;
  cookie: string | null;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * The decision for one request (see the module comment); `login: true` when it is the printed
 * URL's visit (the caller answers it with the cookie and a redirect). Pure.
 */
export function checkRequest(
  r: RequestFacts,
  port: number,
  secrets: DashboardSecrets,
): Verdict {
  const host = `${DASHBOARD_HOST}:${port}`;
  if (r.host === null || r.host.toLowerCase() !== host) {
    return {
      ok: false,
      status: 421,
      message: `Refused: the dashboard answers only to Host ${host}`,
    };
  }
  const safe = SAFE_METHODS.has(r.method);
  const login = r.url.searchParams.get(LOGIN_PARAM);
  if (safe && r.url.pathname === "/" && login !== null) {
    return sameSecret(login, secrets.login)
      ? { ok: true, login: true }
      : { ok: false, status: 401, message: "Unauthorized" };
  }
  const cookie = cookieValue(r.cookie, SESSION_COOKIE);
  if (cookie === null || !sameSecret(cookie, secrets.session)) {
    return { ok: false, status: 401, message: "Unauthorized" };
  }
  if (!safe && r.origin !== dashboardOrigin(port)) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: a change must come from the dashboard's own page (${
        dashboardOrigin(port)
      })`,
    };
  }
  return { ok: true, login: false };
}
