/**
 * `keynobi --mcp`: pick the project, try to attach to a running Keynobi app, else serve standalone
 * on stdio until the client closes stdin.
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
import { ABORTED, raceAbort } from "../core/abortable.ts";
import { selectProject } from "../gradle/project_root.ts";
import { ActivityLog } from "../mcp/activity_log.ts";
import { buildInstructions } from "../mcp/instructions.ts";
import { classifyLine, LineWriter, readLines, RpcCode } from "../mcp/jsonrpc.ts";
import { McpServer, type RequestExtras } from "../mcp/server.ts";
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
  const uiActions = new ActionPacer(async () =>
    chooseInterval(
      opts.minIntervalMs ?? null,
      opts.minIntervalMs == null
        ? (await readSettings(dataDir).catch(() => null))?.mcp?.min_action_interval_ms
        : undefined,
    )
  );
  const sessions = new SessionRecorder(dataDir);
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
      summary: `Server started (standalone: ${reason})`,
    });
  })().catch((e) => log.warn(`start-up bookkeeping failed: ${(e as Error).message}`));

  const served = TOOLS.filter((t) => enabledToolsets.includes(t.toolset));
  const server: McpServer<ToolContext> = new McpServer<ToolContext>({
    version: VERSION,
    title: "Keynobi (standalone)",
    instructions: buildInstructions({
      mode: "standalone",
      standaloneReason: reason,
      enabledToolsets,
      tools: served,
      project: project?.root ?? null,
    }),
    tools: TOOLS,
    enabledToolsets,
    hasProject: project !== null,
    makeContext,
    resources: projectResources((signal): ToolContext =>
      makeContext(signal, server.resourceExtras())
    ),
    prompts: PROMPTS,
    // Entries wait for the start-up entry so the log reads in order; tool results never wait.
    activity: { append: (entry) => housekeeping.then(() => activity.append(entry)) },
  });

  const writer = new LineWriter(opts.stdout);
  const send = (m: Parameters<LineWriter["send"]>[0]) => writer.send(m);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, onSignal);
  try {
    const lines = readLines(opts.stdin);
    while (true) {
      // raceAbort, not Promise.race against one pending promise: that kept every request read.
      const next = await raceAbort(lines.next(), stop.signal);
      if (next === ABORTED || next.done) break;
      if (next.value === null) {
        void send({
          jsonrpc: "2.0",
          id: null,
          error: { code: RpcCode.parseError, message: "Parse error: message too long" },
        });
        continue;
      }
      server.handle(classifyLine(next.value), send);
    }
    if (stop.signal.aborted) {
      // Stopped by a signal: stop the build (recorded as such), then answer what is in flight.
      await builds.shutdown("keynobi was stopped by a signal");
      await server.close();
    } else {
      // The client went away: a build it started finishes and is recorded (bounded by the build
      // timeout) before this server exits.
      await server.drain();
    }
    await builds.shutdown("keynobi exited");
    builds.close();
    ui.close();
    await sessions.syncCrashes().catch(() => {});
    await sessions.close();
    await logcat.close();
  } finally {
    for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(sig, onSignal);
    await housekeeping;
    await activity.append({
      kind: "lifecycle",
      name: "server",
      duration_ms: Math.round(performance.now() - started),
      status: "ok",
      summary: "Server stopped",
    }).catch(() => {});
    await removeSessionRecord(dataDir, Deno.pid).catch(() => {});
    await writer.close();
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
