/**
 * `keynobi status [--json]`: the app (pid, version, project, uptime), every session attached to it
 * (pid, client, version, project, since) and every standalone server (an `--http` one with its
 * URL), naming version mismatches.
 * `keynobi open <path>`: switch the running app's project (only the user does this, never an
 * agent: no MCP tool can).
 */
import { resolve } from "../core/path.ts";
import { resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { listSessionRecords } from "../mcp/session_records.ts";
import { queryApp } from "../attach/attach_client.ts";
import type { AppStatusView, AttachedView } from "../dashboard/host.ts";
import { VERSION } from "../version.ts";

const RESTART_HINT = "restart your MCP client to use the new binary";

export async function statusCommand(
  io: { env: Env; stdout(line: string): void },
  opts: { json?: boolean } = {},
): Promise<number> {
  const dataDir = resolveDataDir(io.env);
  const [answer, records] = await Promise.all([
    queryApp(dataDir, { status: 1 }),
    listSessionRecords(dataDir),
  ]);
  const app = (answer?.app ?? null) as AppStatusView["app"] | null;
  const attached = (Array.isArray(answer?.attached) ? answer.attached : []) as AttachedView[];
  const reference = app?.version ?? VERSION;
  const mismatches: string[] = [];
  if (app && app.version !== VERSION) {
    mismatches.push(`the app runs ${app.version}, this binary is ${VERSION}`);
  }
  for (const a of attached) {
    if (a.version !== reference) {
      mismatches.push(
        `attached session pid ${a.pid} (${a.client_name ?? "unknown client"}) runs ${a.version}, ` +
          `the app ${reference}: ${RESTART_HINT}`,
      );
    }
  }
  for (const r of records) {
    if (r.version !== reference) {
      mismatches.push(
        `standalone server pid ${r.pid} runs ${r.version ?? "an older release"}, ` +
          `${app ? "the app" : "this binary"} ${reference}: ${RESTART_HINT}`,
      );
    }
  }
  if (opts.json) {
    io.stdout(JSON.stringify({
      version: VERSION,
      data_dir: dataDir,
      app,
      dashboard: typeof answer?.dashboard === "string" ? answer.dashboard : null,
      attached,
      standalone: records,
      version_mismatches: mismatches,
    }));
    return 0;
  }
  io.stdout(`keynobi ${VERSION}, data directory ${dataDir}`);
  if (app) {
    io.stdout(
      `app: pid ${app.pid}, version ${app.version}, project ${app.project ?? "none"}, ` +
        `up ${app.uptime_s} s (since ${app.started_at})`,
    );
    const dashboard = (answer?.dashboard ?? null) as string | null;
    io.stdout(`dashboard: ${typeof dashboard === "string" ? dashboard : "off (--no-ui)"}`);
    io.stdout(`attached sessions: ${attached.length ? attached.length : "none"}`);
    for (const a of attached) {
      io.stdout(
        `  pid ${a.pid}, client ${a.client_name ?? "unknown"}, version ${a.version}, project ` +
          `${a.project ?? "follows the app"}, since ${a.since}`,
      );
    }
  } else {
    io.stdout("app: not running (start it with keynobi app)");
  }
  if (records.length === 0) {
    io.stdout("standalone MCP servers: none");
  } else {
    io.stdout(`standalone MCP servers: ${records.length}`);
    for (const r of records) {
      io.stdout(
        `  pid ${r.pid}, since ${r.started_at}, version ${r.version ?? "unknown"}, project ` +
          `${r.project ?? "none"} (${r.reason})` +
          (r.http_url ? `, serving MCP over streamable HTTP at ${r.http_url}` : ""),
      );
    }
  }
  for (const m of mismatches) io.stdout(`version mismatch: ${m}`);
  return 0;
}

export async function openCommand(
  path: string,
  io: { env: Env; cwd: string; stdout(line: string): void; stderr(line: string): void },
): Promise<number> {
  const dataDir = resolveDataDir(io.env);
  let canonical: string;
  try {
    canonical = await Deno.realPath(resolve(io.cwd, path));
  } catch {
    io.stderr(`keynobi: cannot open ${path}: it is not an existing folder`);
    return 2;
  }
  const answer = await queryApp(dataDir, { open: 1, project: canonical });
  if (answer === null) {
    io.stderr("keynobi: no keynobi app is running: start it with keynobi app --project <path>");
    return 2;
  }
  if (answer.ok !== true) {
    io.stderr(`keynobi: the app refused: ${String(answer.reason ?? "no reason given")}`);
    return 2;
  }
  io.stdout(
    `The keynobi app now has ${answer.project} open` +
      (answer.previous ? ` (was ${answer.previous})` : "") +
      "; sessions that follow the app use it, pinned sessions of another project refuse " +
      "project tools",
  );
  return 0;
}
