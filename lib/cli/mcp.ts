/**
 * `keynobi --mcp`: pick the project, try to attach to a running Keynobi app, else serve standalone:
 * on stdio until the client closes stdin, or with `--http` over streamable HTTP until a signal.
 * Every MCP session is one `createSession` (lib/mcp/session.ts) fed by the registry; the workers
 * (builds, logcat, UI) and the ADB client are shared by the sessions of this process.
 */
import { AdbClient } from "../adb/client.ts";
import { BuildClient } from "../gradle/build_client.ts";
import { LogcatClient } from "../logcat/logcat_client.ts";
import { SessionRecorder } from "../sessions/session_recorder.ts";
import { resolveAdbServerAddress } from "../adb/server_address.ts";
import { UiClient } from "../ui/client.ts";
import { discoveryDirs, explicitEndpoint, type GrpcEndpoint } from "../emulator/discovery.ts";
import { ActionPacer, chooseInterval } from "../ui/actions.ts";
import { readSettings, setLastActiveProject } from "../core/settings.ts";
import { attachSocketPath, ensureDataDir, resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { log } from "../core/log.ts";
import { selectProject } from "../gradle/project_root.ts";
import { ActivityLog } from "../mcp/activity_log.ts";
import { buildInstructions } from "../mcp/instructions.ts";
import { LineTransport } from "../mcp/line_transport.ts";
import type { RequestExtras } from "../mcp/server.ts";
import type { Session } from "../mcp/session.ts";
import { type HttpAddress, httpTokenFor } from "../mcp/http_address.ts";
import {
  currentSessionRecord,
  pruneStaleSessionRecords,
  removeSessionRecord,
  writeSessionRecord,
} from "../mcp/session_records.ts";
import { type ToolsetName, TOOLSETS } from "../mcp/tool_def.ts";
import type { ToolContext } from "../tools/context.ts";
import { PROMPTS } from "../tools/prompts.ts";
import { TOOLS } from "../tools/registry.ts";
import { projectResources } from "../tools/resources.ts";
import { VERSION } from "../version.ts";

export interface McpLaunchOptions {
  project: string | null;
  attachOnly: boolean;
  toolsets: ToolsetName[] | null;
  /** `--min-interval-ms` (null: the `mcp.min_action_interval_ms` setting, else 300 ms). */
  minIntervalMs?: number | null;
  /** `--grpc HOST:PORT` (null: `KEYNOBI_GRPC`, else discovery files only). */
  grpc?: string | null;
  env: Env;
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  /** `--http [HOST:]PORT`: serve streamable HTTP instead of stdio. */
  http?: HttpAddress | null;
}

/**
 * How long a signal's shutdown waits for each step (stopping the build, answering what is in
 * flight, the workers, the bookkeeping) before going on; the process then exits whatever is left.
 */
export const SHUTDOWN_GRACE_MS = 5_000;

/** Resolve with `p`, or after `ms` with undefined; the timer never outlives the wait. */
async function withinGrace<T>(p: Promise<T>, ms = SHUTDOWN_GRACE_MS): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<undefined>((r) => timer = setTimeout(r, ms, undefined)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long `keynobi --mcp` waits for the app's socket before running standalone. */
export const ATTACH_TIMEOUT_MS = 1500;

/** Why this process cannot attach; `null` would mean an app accepted (not possible yet). */
async function attachRefusal(dataDir: string): Promise<string> {
  const path = attachSocketPath(dataDir);
  try {
    await Deno.lstat(path);
  } catch {
    return "no Keynobi app is running";
  }
  // A socket is there but this release has no app to speak the handshake with; a socket that
  // does not answer is stale.
  let conn: Deno.UnixConn | null = null;
  const timer = new Promise<null>((r) => setTimeout(r, ATTACH_TIMEOUT_MS, null));
  try {
    conn = await Promise.race([Deno.connect({ transport: "unix", path }), timer]);
  } catch {
    return `the Keynobi app socket ${path} does not answer (stale)`;
  } finally {
    conn?.close();
  }
  return conn
    ? "this keynobi release cannot attach to the Keynobi app yet"
    : "the Keynobi app did not answer in time";
}

/**
 * The ADB client for this session. A malformed ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT does
 * not stop the server: every device tool answers with the setting's error instead, and the project
 * tools keep working.
 */
function makeAdbClient(env: Env): AdbClient {
  try {
    return new AdbClient({ address: resolveAdbServerAddress(env), env, startServer: true });
  } catch (e) {
    log.warn((e as Error).message);
    return new AdbClient({
      address: { host: "127.0.0.1", port: 5037 },
      env,
      startServer: false,
      connector: () => Promise.reject(e),
    });
  }
}

export async function runMcp(opts: McpLaunchOptions): Promise<number> {
  // Start loading the SDK's Server now: its import is most of start-up, and overlaps the disk
  // reads below (data dir, project selection, the attach socket).
  const sessionModule = import("../mcp/session.ts");
  sessionModule.catch(() => {});
  const httpModule = opts.http ? import("../mcp/http_server.ts") : null;
  httpModule?.catch(() => {});
  // Signals always start the shutdown, whatever is in flight (before start-up finished too).
  const signalled = Promise.withResolvers<"signal">();
  const onSignal = () => signalled.resolve("signal");
  for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, onSignal);
  try {
    return await serve(opts, sessionModule, httpModule, signalled.promise);
  } finally {
    for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(sig, onSignal);
  }
}

async function serve(
  opts: McpLaunchOptions,
  sessionModule: Promise<typeof import("../mcp/session.ts")>,
  httpModule: Promise<typeof import("../mcp/http_server.ts")> | null,
  signalled: Promise<"signal">,
): Promise<number> {
  let httpToken: string | null = null;
  if (opts.http) {
    try {
      httpToken = httpTokenFor(opts.http, opts.env.get("KEYNOBI_HTTP_TOKEN"));
    } catch (e) {
      console.error(`keynobi: ${(e as Error).message}`);
      return 2;
    }
  }
  const dataDir = await ensureDataDir(resolveDataDir(opts.env));
  let project;
  try {
    project = await selectProject({ argument: opts.project ?? undefined, cwd: opts.cwd, dataDir });
  } catch (e) {
    console.error(`keynobi: ${(e as Error).message}`);
    return 2;
  }
  const reason = await attachRefusal(dataDir);
  if (opts.attachOnly) {
    console.error(`keynobi: cannot attach to the Keynobi app: ${reason} (--attach-only)`);
    return 2;
  }
  const enabledToolsets = opts.toolsets ?? [...TOOLSETS];
  const session = {
    mode: "standalone" as const,
    standaloneReason: reason,
    followsApp: false,
    pinnedProject: null,
  };
  const adb = makeAdbClient(opts.env);
  const builds = new BuildClient({ dataDir, version: VERSION });
  const logcat = new LogcatClient({ dataDir, address: adb.address });
  let grpc: GrpcEndpoint | null = null;
  const grpcValue = opts.grpc ?? opts.env.get("KEYNOBI_GRPC") ?? "";
  if (grpcValue !== "") {
    try {
      grpc = explicitEndpoint(
        grpcValue,
        opts.env.get("KEYNOBI_GRPC_TOKEN"),
        opts.grpc ? "--grpc" : "KEYNOBI_GRPC",
      );
    } catch (e) {
      console.error(`keynobi: ${(e as Error).message}`);
      return 2;
    }
  }
  const ui = new UiClient({
    dataDir,
    adbServer: adb.address,
    discoveryDirs: discoveryDirs({ os: Deno.build.os, uid: userId(), env: (n) => opts.env.get(n) }),
    grpc,
    instrumentationRunning: () => builds.instrumentationRunning(),
  });
  const sessions = new SessionRecorder(dataDir);
  const actionInterval = async () =>
    chooseInterval(
      opts.minIntervalMs ?? null,
      opts.minIntervalMs == null
        ? (await readSettings(dataDir).catch(() => null))?.mcp?.min_action_interval_ms
        : undefined,
    );
  const activity = new ActivityLog(dataDir, { pid: Deno.pid });
  const started = performance.now();
  const housekeeping = (async () => {
    await activity.rotateIfNeeded();
    // The project this server serves becomes the one a later server without a project (and no
    // Gradle build in its working directory) falls back to.
    if (project !== null && project.selectedBy !== "last_active_project") {
      await setLastActiveProject(dataDir, project.root).catch((e) =>
        log.warn(`Cannot remember the last active project: ${(e as Error).message}`)
      );
    }
    await pruneStaleSessionRecords(dataDir);
    await writeSessionRecord(
      dataDir,
      currentSessionRecord({ project: project?.root ?? null, reason, version: VERSION }),
    );
    await activity.append({
      kind: "lifecycle",
      name: "server",
      duration_ms: 0,
      status: "ok",
      summary: `Server started (standalone: ${reason})` +
        (opts.http ? ` over streamable HTTP on port ${opts.http.port}` : ""),
    });
  })().catch((e) => log.warn(`start-up bookkeeping failed: ${(e as Error).message}`));

  const served = TOOLS.filter((t) => enabledToolsets.includes(t.toolset));
  const instructions = buildInstructions({
    mode: "standalone",
    standaloneReason: reason,
    enabledToolsets,
    tools: served,
    project: project?.root ?? null,
  });
  const { createSession } = await sessionModule;
  /** One MCP session: its own id, client, requests and UI pacing; the process's workers. */
  const newSession = (sessionId?: string): Session<ToolContext> => {
    const uiActions = new ActionPacer(actionInterval);
    const makeContext = (signal: AbortSignal, request: RequestExtras): ToolContext => ({
      adb,
      sessions,
      builds,
      ui,
      uiActions,
      logcat,
      env: opts.env,
      dataDir,
      project,
      session,
      signal,
      request,
    });
    const s: Session<ToolContext> = createSession<ToolContext>({
      sessionId,
      version: VERSION,
      title: "Keynobi (standalone)",
      instructions,
      tools: TOOLS,
      enabledToolsets,
      hasProject: project !== null,
      makeContext,
      resources: projectResources((signal): ToolContext =>
        makeContext(signal, s.handlers.resourceExtras())
      ),
      prompts: PROMPTS,
      // Entries wait for the start-up entry so the log reads in order; tool results never wait.
      activity: { append: (entry) => housekeeping.then(() => activity.append(entry)) },
    });
    return s;
  };

  let stopReason: "signal" | "client" = "client";
  let closeTransport: () => Promise<void> = () => Promise.resolve();
  try {
    if (httpModule) {
      const { serveHttp } = await httpModule;
      let http;
      try {
        http = serveHttp({
          address: opts.http!,
          token: httpToken,
          newSession: (sessionId) => newSession(sessionId) as Session<unknown>,
          onListen: (url) => console.error(`keynobi: serving MCP over streamable HTTP at ${url}`),
        });
      } catch (e) {
        console.error(
          `keynobi: cannot listen on ${opts.http!.hostname}:${opts.http!.port}: ` +
            `${(e as Error).message}`,
        );
        return 1;
      }
      closeTransport = () => http.close();
      const first = await Promise.race([signalled, http.finished.then(() => "failed" as const)]);
      if (first === "failed") return 1;
      stopReason = "signal";
      await withinGrace(builds.shutdown("keynobi was stopped by a signal"));
      await withinGrace(http.close());
    } else {
      const s = newSession();
      const transport = new LineTransport(opts.stdin, opts.stdout, { gate: s.gate });
      closeTransport = () => transport.close();
      await s.server.connect(transport);
      const first = await Promise.race([signalled, transport.ended.then(() => "client" as const)]);
      const second = first === "signal"
        ? first
        // The client went away: a build it started finishes and is recorded (bounded by the build
        // timeout) before this server exits, unless a signal comes first.
        : await Promise.race([signalled, s.drain().then(() => "drained" as const)]);
      if (second === "signal") {
        stopReason = "signal";
        // Stop the build (recorded as such), then answer what is in flight.
        await withinGrace(builds.shutdown("keynobi was stopped by a signal"));
        await withinGrace(s.close());
      }
    }
    await withinGrace(builds.shutdown("keynobi exited"));
    builds.close();
    ui.close();
    await withinGrace(sessions.syncCrashes().catch(() => {}));
    await withinGrace(sessions.close());
    await withinGrace(logcat.close());
  } finally {
    await withinGrace(housekeeping);
    await withinGrace(
      activity.append({
        kind: "lifecycle",
        name: "server",
        duration_ms: Math.round(performance.now() - started),
        status: "ok",
        summary: stopReason === "signal" ? "Server stopped by a signal" : "Server stopped",
      }).catch(() => {}),
    );
    await withinGrace(removeSessionRecord(dataDir, Deno.pid).catch(() => {}));
    await withinGrace(closeTransport());
  }
  return 0;
}

/** The user id for `/run/user/<uid>` (null where the platform or the grants do not say). */
function userId(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}
