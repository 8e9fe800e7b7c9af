/**
 * The state one keynobi process shares between its MCP sessions: the ADB client, the three
 * workers (builds, logcat, UI), the debug-session recorder and the activity log; and the factory
 * that makes one MCP session over them. A standalone `keynobi --mcp` has one runtime and one
 * session (or one per HTTP session); `keynobi app` has one runtime and a session per attached
 * client, so every attached agent shares one build slot, one logcat buffer per device and one UI
 * lock per device.
 */
import { AdbClient } from "../adb/client.ts";
import { BuildClient } from "../build/shared/build_client.ts";
import { LogcatClient } from "../logcat/shared/logcat_client.ts";
import { RetraceClient } from "../retrace/shared/retrace_client.ts";
import { DebugSessionRecorder } from "../sessions/session_recorder.ts";
import { ScreenRecorder } from "../android/screen_recording.ts";
import { resolveAdbServerAddress } from "../adb/server_address.ts";
import { UiClient } from "../ui/shared/client.ts";
import { discoveryDirs, type GrpcEndpoint } from "../emulator/shared/discovery.ts";
import { chooseInterval } from "../ui/shared/limits.ts";
import { readSettings } from "../core/settings.ts";
import type { Env } from "../core/env.ts";
import { log } from "../core/log.ts";
import { ActivityLog } from "../mcp/activity_log.ts";
import type { ActivitySink, RequestExtras } from "../mcp/server.ts";
import type { McpSession } from "../mcp/session.ts";
import type { RequestGate } from "../mcp/request_gate.ts";
import type { ToolsetName } from "../mcp/tool_def.ts";
import type { ProjectSelection } from "../project/project_root.ts";
import type { McpSessionMode, ToolContext } from "../tools/context.ts";
import { PROMPTS } from "../tools/prompts.ts";
import { TOOLS } from "../tools/registry.ts";
import { projectResources } from "../tools/resources.ts";
import { VERSION } from "../version.ts";
import { bundledListing } from "./bundle.ts";

export interface Runtime {
  env: Env;
  dataDir: string;
  adb: AdbClient;
  builds: BuildClient;
  logcat: LogcatClient;
  ui: UiClient;
  retrace: RetraceClient;
  sessions: DebugSessionRecorder;
  recorder: ScreenRecorder;
  activity: ActivityLog;
  actionInterval(): Promise<number>;
}

/**
 * The ADB client. A malformed ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT does not stop the
 * server: every device tool answers with the setting's error instead, and the project tools keep
 * working.
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

/** The user id for `/run/user/<uid>` (null where the platform or the grants do not say). */
function userId(): number | null {
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}

export function createRuntime(opts: {
  env: Env;
  dataDir: string;
  minIntervalMs: number | null;
  grpc: GrpcEndpoint | null;
  /** The activity log, when the caller opened it first (default: a new one for this process). */
  activity?: ActivityLog;
  /** Who runs the builds, for their messages (default "this keynobi server"). */
  owner?: string;
}): Runtime {
  const { env, dataDir } = opts;
  const adb = makeAdbClient(env);
  const builds = new BuildClient({ dataDir, version: VERSION, owner: opts.owner });
  const logcat = new LogcatClient({ dataDir, address: adb.address });
  const ui = new UiClient({
    dataDir,
    adbServer: adb.address,
    discoveryDirs: discoveryDirs({ os: Deno.build.os, uid: userId(), env: (n) => env.get(n) }),
    grpc: opts.grpc,
    instrumentationRunning: () => builds.instrumentationRunning(),
  });
  return {
    env,
    dataDir,
    adb,
    builds,
    logcat,
    ui,
    retrace: new RetraceClient({ dataDir }),
    sessions: new DebugSessionRecorder(dataDir),
    recorder: new ScreenRecorder(adb),
    activity: opts.activity ?? new ActivityLog(dataDir, { pid: Deno.pid }),
    actionInterval: async () =>
      chooseInterval(
        opts.minIntervalMs,
        opts.minIntervalMs == null
          ? (await readSettings(dataDir).catch(() => null))?.mcp?.min_action_interval_ms
          : undefined,
      ),
  };
}

/** Close the workers and the recorder, each step bounded by `within`. */
export async function closeRuntime(
  rt: Runtime,
  within: <T>(p: Promise<T>) => Promise<T | undefined>,
): Promise<void> {
  rt.builds.close();
  rt.ui.close();
  rt.retrace.close();
  await within(rt.recorder.closeAll());
  await within(rt.sessions.syncCrashes().catch(() => {}));
  await within(rt.sessions.close());
  await within(rt.logcat.close());
}

export interface ToolSessionSpec {
  sessionId?: string;
  /** The gate of a transport that was reading before the session existed. */
  gate?: RequestGate;
  title: string;
  instructions: string;
  enabledToolsets: readonly ToolsetName[];
  /** The project a request sees, asked per request (an attached session may follow the app). */
  project(): ProjectSelection | null;
  mode: McpSessionMode;
  /** Why project tools are refused now, or null (a pinned session the app switched away from). */
  projectRefusal?: () => string | null;
  activity: ActivitySink;
  /** The logcat client this session sees (the app's shared view); default the runtime's. */
  logcat?(sessionId: string): LogcatClient;
}

type CreateSession = typeof import("../mcp/session.ts").createMcpSession;

/** One MCP session on the runtime: its own id, client, requests and UI pacing. */
export function newToolSession(
  rt: Runtime,
  spec: ToolSessionSpec,
  createSession: CreateSession,
): McpSession<ToolContext> {
  const sessionId = spec.sessionId ?? crypto.randomUUID();
  const logcat = spec.logcat?.(sessionId) ?? rt.logcat;
  const makeContext = (signal: AbortSignal, request: RequestExtras): ToolContext => ({
    adb: rt.adb,
    sessions: rt.sessions,
    recorder: rt.recorder,
    builds: rt.builds,
    ui: rt.ui,
    retrace: rt.retrace,
    uiActionIntervalMs: rt.actionInterval,
    logcat,
    env: rt.env,
    dataDir: rt.dataDir,
    project: spec.project(),
    session: spec.mode,
    signal,
    request,
  });
  const s: McpSession<ToolContext> = createSession<ToolContext>({
    sessionId,
    gate: spec.gate,
    version: VERSION,
    title: spec.title,
    instructions: spec.instructions,
    tools: TOOLS,
    enabledToolsets: spec.enabledToolsets,
    hasProject: () => spec.project() !== null,
    projectRefusal: spec.projectRefusal,
    makeContext,
    resources: projectResources((signal): ToolContext =>
      makeContext(signal, s.handlers.resourceExtras())
    ),
    prompts: PROMPTS,
    activity: spec.activity,
    // The bundle lists its tools from the listing built with it; from source: null.
    listed: bundledListing(import.meta.url),
  });
  return s;
}
