/**
 * `keynobi app`: the long-lived keynobi every agent shares. It runs in the foreground until
 * SIGINT/SIGTERM, prints one ready line on stderr, and owns the workers (builds, logcat, UI) and
 * their state, the open project (`AppProject`), the dashboard and `<data dir>/mcp.sock`, whose
 * server is lib/attach/app_server.ts: each accepted attach is one more MCP session
 * (`attachedSessions`, lib/cli/attached_session.ts) on this runtime.
 */
import { ensureDataDir, resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import type { GrpcEndpoint } from "../emulator/shared/discovery.ts";
import {
  type ProjectSelection,
  selectProject,
  setLastActiveProject,
} from "../project/project_root.ts";
import type { McpSession } from "../mcp/session.ts";
import { VERSION } from "../version.ts";
import { MAX_ATTACHED_SESSIONS } from "../attach/handshake.ts";
import { type ClaimedSocket, claimSocket, SocketClaimError } from "../attach/socket_file.ts";
import { queryApp } from "../attach/attach_client.ts";
import { LogcatShares } from "../attach/logcat_shares.ts";
import { AppServer, withinQuitStep as within } from "../attach/app_server.ts";
import { closeRuntime, createRuntime, type Runtime } from "./runtime.ts";
import { setupCommandNow } from "./setup.ts";
import { AppProject } from "./app_project.ts";
import { attachedSessions } from "./attached_session.ts";
import { readSkill } from "../tools/resources.ts";
import { UiObserver } from "../dashboard/ui_observer.ts";
import type { Dashboard } from "../dashboard/server.ts";
import type { AppStatusView } from "../dashboard/host.ts";

interface AppOptions {
  project: string | null;
  /** The dashboard's port on 127.0.0.1 (0: the system picks one); null: no dashboard. */
  uiPort?: number | null;
  env: Env;
  cwd: string;
  minIntervalMs: number | null;
  grpc: GrpcEndpoint | null;
  stderr(line: string): void;
  /** Resolves when the app should quit (SIGINT/SIGTERM in the CLI). */
  stop: Promise<unknown>;
}

export async function runApp(opts: AppOptions): Promise<number> {
  const claimed = await claimApp(opts);
  if (typeof claimed === "number") return claimed;
  const { dataDir, socket } = claimed;
  const { createMcpSession } = await import("../mcp/session.ts");
  const rt = createRuntime({
    env: opts.env,
    dataDir,
    minIntervalMs: opts.minIntervalMs,
    grpc: opts.grpc,
    owner: "the Keynobi app",
  });
  const logcatShares = new LogcatShares(rt.logcat);
  const startedAt = new Date();
  const project = new AppProject(dataDir, claimed.project, rt.activity);
  await recordAppStart(rt, project);
  let dashboard: Dashboard | null = null;
  const newAttachedSession = attachedSessions(rt, project, logcatShares, createMcpSession);
  const server = new AppServer({
    socket,
    activity: rt.activity,
    builds: rt.builds,
    logcatShares,
    project: () => project.root,
    status: () => ({ ...status(), dashboard: dashboard?.url ?? null }),
    openProject: (path) => project.open(path),
    newAttachedSession: (req) => newAttachedSession(req) as McpSession<unknown>,
  });
  const status = (): AppStatusView => ({
    app: {
      pid: Deno.pid,
      version: VERSION,
      project: project.root,
      started_at: startedAt.toISOString(),
      uptime_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
      socket: socket.path,
    },
    attached: server.attachedSessions(),
  });
  if (opts.uiPort !== null && opts.uiPort !== undefined) {
    dashboard = await startAppDashboard(opts, opts.uiPort, rt, project, status);
    if (dashboard === null) {
      await socket.release();
      await within(closeRuntime(rt, within));
      return 1;
    }
  }
  server.start();
  opts.stderr(
    `keynobi app ${VERSION} ready: pid ${Deno.pid}, listening on ${socket.path}, project ` +
      `${project.root ?? "none"} (up to ${MAX_ATTACHED_SESSIONS} sessions)`,
  );
  if (dashboard) {
    opts.stderr(
      `keynobi app dashboard: open ${dashboard.url} (this machine only; keep it private)`,
    );
  }

  await opts.stop;
  server.refuseNew();
  await within(dashboard?.close() ?? Promise.resolve());
  await server.quit();
  await within(closeRuntime(rt, within));
  await within(rt.activity.append({
    kind: "lifecycle",
    name: "app",
    duration_ms: Math.round(Date.now() - startedAt.getTime()),
    status: "ok",
    summary: "App stopped",
  }));
  return 0;
}

/** The data directory, the project and the socket, or the exit code when one cannot be had. */
async function claimApp(
  opts: AppOptions,
): Promise<{ dataDir: string; project: ProjectSelection | null; socket: ClaimedSocket } | number> {
  let dataDir: string;
  let project: ProjectSelection | null;
  try {
    dataDir = await ensureDataDir(resolveDataDir(opts.env));
    project = await selectProject({
      argument: opts.project ?? undefined,
      cwd: opts.cwd,
      dataDir,
    });
  } catch (e) {
    opts.stderr(`keynobi: ${(e as Error).message}`);
    return 2;
  }
  try {
    const socket = await claimSocket(dataDir, async () => {
      const r = await queryApp(dataDir, { status: 1 });
      const pid = (r?.app as { pid?: unknown } | undefined)?.pid;
      return typeof pid === "number" ? pid : null;
    });
    return { dataDir, project, socket };
  } catch (e) {
    opts.stderr(`keynobi: cannot start keynobi app: ${(e as Error).message}`);
    return e instanceof SocketClaimError ? 2 : 1;
  }
}

async function recordAppStart(rt: Runtime, project: AppProject): Promise<void> {
  if (project.root !== null) {
    await setLastActiveProject(project.dataDir, project.root).catch(() => {});
  }
  await rt.activity.rotateIfNeeded().catch(() => {});
  await rt.activity.append({
    kind: "lifecycle",
    name: "app",
    duration_ms: 0,
    status: "ok",
    summary: `App started — project: ${project.root ?? "none"}`,
  });
}

/** The dashboard on 127.0.0.1:`port`, or null (said on stderr) when it cannot listen. */
async function startAppDashboard(
  opts: AppOptions,
  port: number,
  rt: Runtime,
  project: AppProject,
  status: () => AppStatusView,
): Promise<Dashboard | null> {
  const ui = new UiObserver();
  ui.watch(rt.ui);
  try {
    const { startDashboard } = await import("../dashboard/server.ts");
    const { httpTokenPath, installHttpToken } = await import("../mcp/http_token.ts");
    // The HTTP lines carry the install's token; when it cannot be read, the shell reads it.
    const httpToken = await installHttpToken(rt.dataDir).catch(() =>
      `$(cat ${JSON.stringify(httpTokenPath(rt.dataDir))})`
    );
    return startDashboard({
      env: opts.env,
      cwd: opts.cwd,
      dataDir: rt.dataDir,
      adb: rt.adb,
      builds: rt.builds,
      logcat: rt.logcat,
      activity: rt.activity,
      ui,
      status,
      openProject: (path) => project.open(path),
      setupCommands: () => setupCommandNow([], { token: httpToken }),
      skill: readSkill,
    }, { port });
  } catch (e) {
    opts.stderr(
      `keynobi: cannot start the dashboard on 127.0.0.1:${port}: ` +
        `${(e as Error).message} (choose another --ui-port, or --no-ui)`,
    );
    return null;
  }
}
