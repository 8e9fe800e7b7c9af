/** What every tool handler receives from the server session that calls it, and what it reads there. */
import type { AdbClient } from "../adb/client.ts";
import { invalidParams } from "../core/errors.ts";
import type { Settings } from "../core/settings.ts";
import type { Origin } from "../build/shared/build_record.ts";
import type { BuildCall } from "../build/shared/build_setup.ts";
import type { BuildClient } from "../build/shared/build_client.ts";
import type { LogcatClient } from "../logcat/shared/logcat_client.ts";
import type { RetraceClient } from "../retrace/shared/retrace_client.ts";
import type { Env } from "../core/env.ts";
import type { UiClient } from "../ui/shared/client.ts";
import type { ProjectSelection } from "../project/project_root.ts";
import type { RequestExtras } from "../mcp/server.ts";
import type { DebugSessionRecorder } from "../sessions/session_recorder.ts";
import type { ScreenRecorder } from "../android/screen_recording.ts";

export interface McpSessionMode {
  mode: "standalone" | "attached";
  /** Why this server runs standalone (`null` when attached). */
  standaloneReason: string | null;
  followsApp: boolean;
  pinnedProject: string | null;
  /** Attached: the app's open project right now (it can change with `keynobi open`). */
  appProject?: () => string | null;
}

export interface ToolContext {
  adb: AdbClient;
  /** This process's build slot (the build worker). */
  builds: BuildClient;
  /** This process's logcat worker: streams, buffers, crash groups. */
  logcat: LogcatClient;
  /** This process's UI worker: captures, element lists and handles, settling. */
  ui: UiClient;
  /** This process's retrace worker: mappings read, indexed and looked up off the main thread. */
  retrace: RetraceClient;
  /** The minimum gap between two UI actions on one device now (flag or setting; the worker paces). */
  uiActionIntervalMs: () => Promise<number>;
  env: Env;
  /** This process's one writer of debug sessions (queued, written in the background). */
  sessions: DebugSessionRecorder;
  /** This process's screen recordings in progress, one per device. */
  recorder: ScreenRecorder;
  /** The data directory (`KEYNOBI_HOME`, default `~/.keynobi`), created with mode 0700. */
  dataDir: string;
  /** The project this session serves, or `null` when none was found. */
  project: ProjectSelection | null;
  session: McpSessionMode;
  /** Aborted when the client cancels the request or the server shuts down. */
  signal: AbortSignal;
  /** Progress, the client's name and the session id of the request being served. */
  request: RequestExtras;
}

/** The project root of a session (the server refuses project tools without one). */
export function projectRoot(ctx: ToolContext): string {
  if (!ctx.project) throw invalidParams("No Android project is open");
  return ctx.project.root;
}

/** Who asked, as build and session records name it. */
export function agentOrigin(ctx: ToolContext): Origin {
  return {
    kind: "agent",
    session_id: ctx.request.sessionId,
    client_name: ctx.request.clientName,
    standalone: ctx.session.mode === "standalone",
  };
}

/** The session's mode as the build tools' last line says it. */
export function modeLine(ctx: ToolContext): string {
  return ctx.session.mode === "standalone"
    ? `[mode: standalone (${ctx.session.standaloneReason ?? "no app"})]`
    : "[mode: attached]";
}

/** A build for this call: the session's project, the settings read once for the call, the caller. */
export function buildCall(ctx: ToolContext, settings: Settings): BuildCall {
  return {
    root: projectRoot(ctx),
    settings,
    env: ctx.env,
    builds: ctx.builds,
    origin: agentOrigin(ctx),
    signal: ctx.signal,
  };
}
