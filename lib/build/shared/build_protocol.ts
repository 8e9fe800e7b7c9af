/**
 * The build worker's messages (workers/build.ts ↔ lib/build/shared/build_client.ts). The worker owns the
 * build slot: one Gradle build at a time per process, the `gradlew` child, output parsing, the raw
 * log and the history record.
 */
import type { BuildRecord, Origin } from "./build_record.ts";

/**
 * Longest the build worker's `build.shutdown` waits for a stopped build to be recorded and its
 * lock released: the kill grace (3 s), the output drain (2 s) and 5 s to record.
 */
export const SHUTDOWN_WAIT_MS = 10_000;

/** The build timeout (`mcp.build_timeout_sec`): its default and the range both sides bound it to. */
export const DEFAULT_BUILD_TIMEOUT_SEC = 600;
export const MIN_BUILD_TIMEOUT_SEC = 1;
export const MAX_BUILD_TIMEOUT_SEC = 6 * 60 * 60;

/** A build timeout in ms within MIN..MAX_BUILD_TIMEOUT_SEC; the default when not a finite number. */
export function boundBuildTimeoutMs(ms: number): number {
  if (!Number.isFinite(ms)) return DEFAULT_BUILD_TIMEOUT_SEC * 1000;
  return Math.min(Math.max(ms, MIN_BUILD_TIMEOUT_SEC * 1000), MAX_BUILD_TIMEOUT_SEC * 1000);
}

export interface BuildRunParams {
  /** Canonical Gradle root; the worker checks again that it is trusted. */
  project: string;
  /** Gradle task paths, already checked by the task policy. */
  tasks: string[];
  kind: "gradle_task" | "tests";
  variant: string | null;
  module: string | null;
  origin: Origin;
  timeoutMs: number;
  /** `JAVA_HOME` for Gradle (the resolved JDK), when one was found. */
  javaHome: string | null;
  /** `ANDROID_HOME` for Gradle, when an SDK was found. */
  androidHome: string | null;
  /** Application modules' folders (relative), to find the APKs this build wrote. */
  appModuleDirs: string[];
  gradleVersion: string | null;
  jdkVersion: string | null;
}

export interface BuildRunResult {
  record: BuildRecord;
  /** The last lines of output (for a failure's message). */
  tail: string[];
}

export interface RunningBuild {
  id: number;
  project: string;
  tasks: string[];
  origin: Origin;
  started_at: string;
  elapsed_ms: number;
  current_task: string | null;
}

export type BuildMethods = {
  "build.run": { params: BuildRunParams; result: BuildRunResult };
  "build.cancel": { params: { by: Origin }; result: { cancelled: RunningBuild | null } };
  "build.status": { params: null; result: { running: RunningBuild | null } };
  /** Stop any running build (keynobi is exiting): recorded as cancelled with the reason. */
  "build.shutdown": { params: { reason: string }; result: { stopped: boolean } };
};
