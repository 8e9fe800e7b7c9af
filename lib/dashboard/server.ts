/**
 * The dashboard's HTTP server, started by `keynobi app` only (never by an MCP server, and no MCP
 * tool reaches it): 127.0.0.1 on an ephemeral port or `--ui-port`. Every request passes
 * `checkRequest` (lib/dashboard/security.ts) before any route runs. It serves one page, its
 * script and its styles from strings built into the binary (lib/dashboard/page/), the live feed
 * (server-sent events), a few reads the page asks for on demand (older build lines, a debug
 * session's timeline, the last screenshot), and the user's confirmed actions.
 */
import { buildLogPath } from "../build/shared/build_log.ts";
import { readSession } from "../sessions/session_store.ts";
import { sessionView, timelinePage } from "../sessions/session_query.ts";
import { readCapped } from "../core/bytes.ts";
import { openRegularNoFollow, SafeOpenError } from "../core/safe_open.ts";
import { join as joinPath } from "../core/path.ts";
import {
  isRecordingName,
  MAX_RECORDING_BYTES,
  recordingsDir,
} from "../android/screen_recording.ts";
import { log } from "../core/log.ts";
import { ActionRefused, DashboardActions, parseAction } from "./actions.ts";
import { DEFAULT_BACKWARD_LINES, MAX_BACKWARD_LINES, readLinesBefore } from "./file_window.ts";
import type { DashboardHost } from "./host.ts";
import { LiveHub } from "./live.ts";
import {
  assertLoopbackBind,
  checkRequest,
  DASHBOARD_HOST,
  dashboardOrigin,
  type DashboardSecrets,
  LOGIN_PARAM,
  newSecrets,
  sessionCookie,
} from "./security.ts";
import { FAVICON_SVG, PAGE_HTML } from "./page/page_html.ts";
import { PAGE_SCRIPT } from "./page/page_script.ts";
import { PAGE_STYLES } from "./page/page_styles.ts";

/** Largest request body read (an action is a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Timeline events a debug session's view returns. */
export const TIMELINE_EVENTS = 200;
/** Highest port `--ui-port` takes (0: the system picks one). */
export const MAX_PORT = 65_535;

export interface DashboardOptions {
  /** 0 (default) lets the system pick a free port. */
  port?: number;
  /** Only "127.0.0.1" is accepted; anything else throws before binding. */
  hostname?: string;
}

export interface Dashboard {
  port: number;
  origin: string;
  /** The URL to open (it carries the launch secret; anyone with it can use the dashboard). */
  url: string;
  hub: LiveHub;
  actions: DashboardActions;
  close(): Promise<void>;
}

const COMMON_HEADERS: Record<string, string> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cross-origin-resource-policy": "same-origin",
};

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { ...COMMON_HEADERS, "content-type": "application/json; charset=utf-8" },
  });
}

function asset(body: string, type: string): Response {
  return new Response(body, {
    headers: { ...COMMON_HEADERS, "content-type": type, "content-security-policy": CSP },
  });
}

async function readBody(req: Request): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) {
    throw new ActionRefused("Send the action as application/json");
  }
  if (!req.body) throw new ActionRefused("The request has no body");
  const all = await readCapped(req.body, MAX_BODY_BYTES);
  if (all === null) throw new ActionRefused(`The request body is over ${MAX_BODY_BYTES} bytes`);
  try {
    return JSON.parse(new TextDecoder().decode(all));
  } catch {
    throw new ActionRefused("The request body is not valid JSON");
  }
}

function intParam(url: URL, name: string, min: number, max: number): number | null {
  const v = url.searchParams.get(name);
  if (v === null) return null;
  if (!/^\d{1,15}$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ActionRefused(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
  }
  return Number(v);
}

/** Start the dashboard for `host`. Throws for a non-loopback hostname or a bad port. */
export function startDashboard(host: DashboardHost, opts: DashboardOptions = {}): Dashboard {
  const hostname = opts.hostname ?? DASHBOARD_HOST;
  assertLoopbackBind(hostname);
  const wanted = opts.port ?? 0;
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > MAX_PORT) {
    throw new RangeError(`The dashboard port must be 0..${MAX_PORT}, got ${wanted}`);
  }
  const secrets: DashboardSecrets = newSecrets();
  const hub = new LiveHub(host);
  const actions = new DashboardActions(host);
  let port = wanted;

  /** A kept screen recording, as a download: a plain name in the recordings folder only. */
  const recording = async (name: string): Promise<Response> => {
    if (!isRecordingName(name)) return text(404, "No such recording");
    let file;
    try {
      file = await openRegularNoFollow(joinPath(recordingsDir(host.dataDir), name));
    } catch (e) {
      if (e instanceof SafeOpenError) return text(404, "No such recording (removed or pruned)");
      throw e;
    }
    try {
      if (file.size > MAX_RECORDING_BYTES) return text(413, "Recording too large to serve");
      const bytes = new Uint8Array(file.size);
      let off = 0;
      while (off < bytes.length) {
        const n = await file.read(bytes.subarray(off), off);
        if (n === 0) break;
        off += n;
      }
      return new Response(bytes.subarray(0, off), {
        headers: {
          ...COMMON_HEADERS,
          "content-type": "video/mp4",
          "content-disposition": `attachment; filename="${name}"`,
        },
      });
    } finally {
      await file.close();
    }
  };

  const route = async (req: Request, url: URL): Promise<Response> => {
    const path = url.pathname;
    if (req.method === "GET" || req.method === "HEAD") {
      if (path === "/") return asset(PAGE_HTML, "text/html; charset=utf-8");
      if (path === "/app.js") return asset(PAGE_SCRIPT, "text/javascript; charset=utf-8");
      if (path === "/app.css") return asset(PAGE_STYLES, "text/css; charset=utf-8");
      if (path === "/favicon.svg" || path === "/favicon.ico") {
        return asset(FAVICON_SVG, "image/svg+xml");
      }
      if (path === "/api/state") return json(await hub.snapshot());
      if (path === "/api/events") return await hub.connect();
      if (path === "/api/skill") {
        // The shipped skill, for the user to copy into a client other than Claude Code.
        return new Response(await host.skill(), {
          headers: { ...COMMON_HEADERS, "content-type": "text/markdown; charset=utf-8" },
        });
      }
      let m = /^\/api\/builds\/(\d{1,15})\/log$/.exec(path);
      if (m) {
        const before = intParam(url, "before", 0, Number.MAX_SAFE_INTEGER);
        const lines = intParam(url, "lines", 1, MAX_BACKWARD_LINES) ?? DEFAULT_BACKWARD_LINES;
        try {
          const r = await readLinesBefore(buildLogPath(host.dataDir, Number(m[1])), before, lines);
          return json({ build_id: Number(m[1]), ...r });
        } catch (e) {
          if (e instanceof Deno.errors.NotFound) {
            return json({ error: `Build #${m[1]} has no log (pruned or never written)` }, 404);
          }
          throw e;
        }
      }
      m = /^\/api\/sessions\/([a-z0-9-]{1,40})$/.exec(path);
      if (m) {
        const s = await readSession(host.dataDir, m[1]);
        if (!s) return json({ error: `No debug session ${m[1]} (unknown or pruned)` }, 404);
        return json({
          session: sessionView(s, new Date()),
          ...timelinePage(s.events, TIMELINE_EVENTS),
          crashes: s.crashes.slice(-20).map(({ lines: _lines, ...c }) => c),
        });
      }
      m = /^\/api\/recordings\/([^/]{1,170})$/.exec(path);
      if (m) return await recording(decodeURIComponent(m[1]));
      m = /^\/api\/devices\/([A-Za-z0-9._:\-]{1,128})\/screenshot$/.exec(path);
      if (m) {
        const shot = host.ui.get(m[1])?.screenshot;
        if (!shot?.image) return text(404, "No screenshot kept for this device");
        return new Response(shot.image.slice(), {
          headers: { ...COMMON_HEADERS, "content-type": shot.mime },
        });
      }
      return text(404, "Not found");
    }
    if (req.method === "POST") {
      if (path === "/api/actions/prepare") {
        return json(await actions.prepare(parseAction(await readBody(req))));
      }
      if (path === "/api/actions/run") {
        const body = await readBody(req) as { token?: unknown } | null;
        const outcome = await actions.run(body?.token);
        // The page sees the result of its action right away, not at the next refresh.
        await hub.changed().catch(() => {});
        return json(outcome);
      }
      if (path === "/api/actions/copied") {
        const body = await readBody(req) as { what?: unknown } | null;
        if (body?.what !== "setup_commands" && body?.what !== "skill") {
          throw new ActionRefused(`"what" must be "setup_commands" or "skill"`);
        }
        const what = body.what === "skill" ? "the agent skill" : "the MCP setup commands";
        await actions.record(`copy_${body.what}`, { ok: true, message: `Copied ${what}` });
        return json({ ok: true, message: `Copied ${what}` });
      }
      return text(404, "Not found");
    }
    return text(405, "Method not allowed", { allow: "GET, HEAD, POST" });
  };

  const server = Deno.serve({
    hostname,
    port: wanted,
    onListen: () => {},
  }, async (req) => {
    const url = new URL(req.url);
    const verdict = checkRequest(
      {
        method: req.method,
        url,
        host: req.headers.get("host"),
        origin: req.headers.get("origin"),
        cookie: req.headers.get("cookie"),
      },
      port,
      secrets,
    );
    if (!verdict.ok) return text(verdict.status, verdict.message);
    if (verdict.login) {
      return new Response(null, {
        status: 303,
        headers: { ...COMMON_HEADERS, location: "/", "set-cookie": sessionCookie(secrets.session) },
      });
    }
    try {
      return await route(req, url);
    } catch (e) {
      if (e instanceof ActionRefused) return json({ error: e.message, ...e.data }, 400);
      log.warn(`dashboard: ${req.method} ${url.pathname} failed: ${(e as Error).message}`);
      return json({ error: `The app could not answer: ${(e as Error).message}` }, 500);
    }
  });
  port = (server.addr as Deno.NetAddr).port;
  const origin = dashboardOrigin(port);
  return {
    port,
    origin,
    url: `${origin}/?${LOGIN_PARAM}=${secrets.login}`,
    hub,
    actions,
    async close() {
      hub.close();
      await server.shutdown();
    },
  };
}
