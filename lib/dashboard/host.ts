/**
 * What `keynobi app` hands the dashboard: its own state (status, the open project, switching it)
 * and the runtime it shares with attached sessions. The dashboard reads these and the data
 * directory's files; it keeps no state of its own beyond what the page is shown.
 */
import type { Env } from "../core/env.ts";
import type { ActivityLog } from "../mcp/activity_log.ts";
import type { BuildClient } from "../build/shared/build_client.ts";
import type { LogcatClient } from "../logcat/shared/logcat_client.ts";
import type { AdbClient } from "../adb/client.ts";
import type { UiObserver } from "./ui_observer.ts";

/** One attached session as the app lists it (`keynobi status`). */
export interface AttachedView {
  session_id: string;
  pid: number;
  client_name: string | null;
  version: string;
  project: string | null;
  follows_app: boolean;
  since: string;
}

export interface AppStatusView {
  app: {
    pid: number;
    version: string;
    project: string | null;
    started_at: string;
    uptime_s: number;
    socket: string;
  };
  attached: AttachedView[];
}

export type OpenOutcome =
  | { ok: true; project: string; previous: string | null }
  | { ok: false; reason: string };

export interface DashboardHost {
  env: Env;
  cwd: string;
  dataDir: string;
  adb: AdbClient;
  builds: BuildClient;
  logcat: LogcatClient;
  activity: ActivityLog;
  ui: UiObserver;
  status(): AppStatusView;
  /** `keynobi open`: the same function the socket's `open` query runs. */
  openProject(path: string): Promise<OpenOutcome>;
  /** The registration commands `keynobi setup` prints. */
  setupCommands(): string[];
  /** The shipped SKILL.md. */
  skill(): Promise<string>;
}
