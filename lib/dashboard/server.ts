/**
 * The dashboard's HTTP server, started by `keynobi app` only (never by an MCP server, and no MCP
 * tool reaches it): 127.0.0.1 on an ephemeral port or `--ui-port`. Every request passes
 * `checkRequest` (lib/dashboard/security.ts) before any route runs. It serves one page, its
 * script and its styles from strings built into the binary (lib/dashboard/page/), the live feed
 * (server-sent events), a few reads the page asks for on demand (lib/dashboard/reads.ts: older
 * build lines, a debug session's timeline, the last screenshot, a recording), and the user's
 * confirmed actions. The responses and body reads are lib/dashboard/responses.ts's.
 */
import { log } from "../core/log.ts";
import { ActionRefused, DashboardActions, parseAction } from "./actions.ts";
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
import { PAGE_MODULES } from "./page/page_script.ts";
import { PAGE_STYLES } from "./page/page_styles.ts";
import { buildLogLines, debugSessionPage, lastScreenshot, recordingDownload } from "./reads.ts";
import { asset, COMMON_HEADERS, json, readBody, text } from "./responses.ts";

export { MAX_BODY_BYTES } from "./responses.ts";
export { TIMELINE_EVENTS } from "./reads.ts";

/** Highest port `--ui-port` takes (0: the system picks one). */
const MAX_PORT = 65_535;

interface DashboardOptions {
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

/** What the routes answer from. */
interface Routes {
  host: DashboardHost;
  hub: LiveHub;
  actions: DashboardActions;
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
  const routes: Routes = { host, hub: new LiveHub(host), actions: new DashboardActions(host) };
  let port = wanted;
  const server = Deno.serve(
    { hostname, port: wanted, onListen: () => {} },
    (req) => handle(routes, req, port, secrets),
  );
  port = (server.addr as Deno.NetAddr).port;
  const origin = dashboardOrigin(port);
  return {
    port,
    origin,
    url: `${origin}/?${LOGIN_PARAM}=${secrets.login}`,
    hub: routes.hub,
    actions: routes.actions,
    async close() {
      routes.hub.close();
      await server.shutdown();
    },
  };
}

/** Check the request (security.ts), log in with the launch secret, else route it. */
async function handle(
  routes: Routes,
  req: Request,
  port: number,
  secrets: DashboardSecrets,
): Promise<Response> {
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
    if (req.method === "GET" || req.method === "HEAD") return await get(routes, url);
    if (req.method === "POST") return await post(routes, req, url.pathname);
    return text(405, "Method not allowed", { allow: "GET, HEAD, POST" });
  } catch (e) {
    if (e instanceof ActionRefused) return json({ error: e.message, ...e.data }, 400);
    log.warn(`dashboard: ${req.method} ${url.pathname} failed: ${(e as Error).message}`);
    return json({ error: `The app could not answer: ${(e as Error).message}` }, 500);
  }
}

async function get({ host, hub }: Routes, url: URL): Promise<Response> {
  const path = url.pathname;
  if (path === "/") return asset(PAGE_HTML, "text/html; charset=utf-8");
  // The page's script modules: exactly page_script.ts's table (any other path stays 404).
  const script = PAGE_MODULES.get(path);
  if (script !== undefined) return asset(script, "text/javascript; charset=utf-8");
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
  if (m) return await buildLogLines(host.dataDir, Number(m[1]), url);
  m = /^\/api\/sessions\/([a-z0-9-]{1,40})$/.exec(path);
  if (m) return await debugSessionPage(host.dataDir, m[1]);
  m = /^\/api\/recordings\/([^/]{1,170})$/.exec(path);
  if (m) return await recordingDownload(host.dataDir, decodeURIComponent(m[1]));
  m = /^\/api\/devices\/([A-Za-z0-9._:\-]{1,128})\/screenshot$/.exec(path);
  if (m) return lastScreenshot(host, m[1]);
  return text(404, "Not found");
}

/** The user's confirmed actions: prepare, run, and the copies the page made. */
async function post({ hub, actions }: Routes, req: Request, path: string): Promise<Response> {
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
