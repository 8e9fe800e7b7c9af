/**
 * One build as the history keeps it: its shape (who started it, how it ended, its diagnostics,
 * APKs, R8 mappings, provenance and log), who started or cancelled it in words, and the bounds and
 * checks every record read back from the file passes through (normalizeRecord). Pure.
 */
import { isRecord } from "../../core/json.ts";
import { clip } from "../../core/text.ts";
import { type BuildLogInfo, buildLogPath } from "./build_log.ts";
import type { BuiltApk } from "./built_apks.ts";
import { MAX_CHANGED_FILES, MAX_HASHED_BUILD_FILES, type Provenance } from "./provenance.ts";
import {
  type BuildMapping,
  isSha256,
  MAX_MAPPINGS_PER_BUILD,
} from "../../retrace/shared/mapping_store.ts";

const MAX_TASK_CHARS = 256;
const MAX_TASKS_PER_RECORD = 32;
export const MAX_SUMMARY_CHARS = 300;
const MAX_REASON_CHARS = 1_000;
const MAX_PATH_CHARS = 4_096;
const MAX_ORIGIN_FIELD_CHARS = 200;
/** Diagnostics kept per record, by count… */
export const MAX_DIAGNOSTICS_PER_RECORD = 100;
/** …and by serialized size. */
const MAX_DIAGNOSTICS_BYTES = 64 * 1024;
const MAX_FAILED_TASKS_PER_RECORD = 50;
const MAX_APKS_PER_RECORD = 32;

export const BuildStatus = {
  running: "running",
  success: "success",
  failed: "failed",
  cancelled: "cancelled",
  timeout: "timeout",
  /** It was `running` but the keynobi process that ran it is gone (killed, crashed). */
  interrupted: "interrupted",
} as const;
export type BuildStatus = typeof BuildStatus[keyof typeof BuildStatus];
export type FinishedStatus = Exclude<BuildStatus, "running">;

export const BuildKind = { gradleTask: "gradle_task", tests: "tests" } as const;
export type BuildKind = typeof BuildKind[keyof typeof BuildKind];

/** Who started or cancelled a build. */
export type Origin =
  | { kind: "app" }
  | { kind: "appQuit" }
  /** The keynobi process itself, stopping a build as it exits. */
  | { kind: "shutdown" }
  | { kind: "agent"; session_id: string; client_name: string | null; standalone: boolean };

/** Who started or cancelled a build, in words. Pure. */
export function describeOrigin(origin: Origin | null | undefined): string {
  if (!origin) return "unknown";
  if (origin.kind === "app") return "the Keynobi app";
  if (origin.kind === "appQuit") return "Keynobi quitting";
  if (origin.kind === "shutdown") return "keynobi shutting down";
  return `an agent (${origin.client_name ?? "unknown client"}${
    origin.standalone ? ", standalone" : ""
  })`;
}

export interface BuildRecord {
  /** Increasing across processes, never reused (see the module comment). */
  id: number;
  /** The canonical project root. */
  project: string;
  /** The task as asked (`:app:assembleDebug`). */
  task: string;
  tasks: string[];
  variant: string | null;
  module: string | null;
  kind: BuildKind;
  status: BuildStatus;
  /** ISO 8601. */
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  exit_code: number | null;
  /** One line. */
  summary: string;
  error_count: number;
  warning_count: number;
  diagnostics: unknown[];
  failed_tasks: string[];
  origin: Origin;
  cancelled_by: Origin | null;
  /** Why it failed, timed out or was cancelled. */
  reason: string | null;
  /** The keynobi process that ran it. */
  pid: number;
  /** That process's executable (to tell a reused PID from it). */
  binary: string;
  gradle_pid: number | null;
  apks: BuiltApk[];
  /** The R8 mappings this build wrote, as kept in `<data dir>/mappings/` (lib/retrace). */
  mappings: BuildMapping[];
  provenance: Provenance | null;
  log: BuildLogInfo;
}

const oneLine = (s: string, max: number) => clip(s.replace(/\s*[\r\n]+\s*/g, " ").trim(), max);

function str(v: unknown, max: number): string | null {
  return typeof v === "string" ? clip(v, max) : null;
}

function int(v: unknown): number | null {
  return typeof v === "number" && Number.isSafeInteger(v) ? v : null;
}

function count(v: unknown): number {
  const n = int(v);
  return n !== null && n >= 0 ? n : 0;
}

function strings(v: unknown, maxItems: number, maxChars: number): string[] {
  if (!Array.isArray(v)) return [];
  return v.filter((s): s is string => typeof s === "string").slice(0, maxItems)
    .map((s) => clip(s, maxChars));
}

/** A valid origin, bounded, or `null`. Pure. */
export function parseOrigin(v: unknown): Origin | null {
  if (!isRecord(v)) return null;
  if (v.kind === "app") return { kind: "app" };
  if (v.kind === "appQuit") return { kind: "appQuit" };
  if (v.kind === "shutdown") return { kind: "shutdown" };
  if (v.kind === "agent" && typeof v.session_id === "string") {
    return {
      kind: "agent",
      session_id: clip(v.session_id, MAX_ORIGIN_FIELD_CHARS),
      client_name: str(v.client_name, MAX_ORIGIN_FIELD_CHARS),
      standalone: v.standalone === true,
    };
  }
  return null;
}

/** Diagnostics bounded by count and by serialized size. Pure. */
export function boundDiagnostics(v: unknown): unknown[] {
  if (!Array.isArray(v)) return [];
  const out: unknown[] = [];
  let bytes = 0;
  for (const d of v.slice(0, MAX_DIAGNOSTICS_PER_RECORD)) {
    const size = JSON.stringify(d)?.length ?? 0;
    if (bytes + size > MAX_DIAGNOSTICS_BYTES) break;
    bytes += size;
    out.push(d);
  }
  return out;
}

function parseApks(v: unknown): BuiltApk[] {
  if (!Array.isArray(v)) return [];
  const out: BuiltApk[] = [];
  for (const a of v.slice(0, MAX_APKS_PER_RECORD)) {
    if (!isRecord(a) || typeof a.path !== "string") continue;
    out.push({
      module: str(a.module, MAX_TASK_CHARS) ?? "",
      variant: str(a.variant, MAX_TASK_CHARS) ?? "",
      path: clip(a.path, MAX_PATH_CHARS),
      sha256: str(a.sha256, 64),
      bytes: count(a.bytes),
      application_id: str(a.application_id, MAX_TASK_CHARS),
      metadata_sha256: str(a.metadata_sha256, 64),
    });
  }
  return out;
}

function parseMappings(v: unknown): BuildMapping[] {
  if (!Array.isArray(v)) return [];
  const out: BuildMapping[] = [];
  for (const m of v.slice(0, MAX_MAPPINGS_PER_BUILD)) {
    if (!isRecord(m) || !isSha256(m.sha256)) continue;
    out.push({
      module: str(m.module, MAX_TASK_CHARS) ?? "",
      variant: str(m.variant, MAX_TASK_CHARS) ?? "",
      map_id: typeof m.map_id === "string" && /^[0-9a-f]{1,64}$/i.test(m.map_id)
        ? m.map_id.toLowerCase()
        : null,
      sha256: m.sha256,
      bytes: count(m.bytes),
    });
  }
  return out;
}

function parseProvenance(v: unknown): Provenance | null {
  if (!isRecord(v)) return null;
  const files: Record<string, string> = {};
  if (isRecord(v.build_files)) {
    for (const [k, h] of Object.entries(v.build_files).slice(0, MAX_HASHED_BUILD_FILES)) {
      if (typeof h === "string") files[clip(k, MAX_PATH_CHARS)] = clip(h, 64);
    }
  }
  return {
    commit: str(v.commit, 64),
    branch: str(v.branch, MAX_TASK_CHARS),
    dirty: typeof v.dirty === "boolean" ? v.dirty : null,
    changed_files: strings(v.changed_files, MAX_CHANGED_FILES, MAX_PATH_CHARS),
    changed_file_count: count(v.changed_file_count),
    no_commit_because: str(v.no_commit_because, MAX_REASON_CHARS),
    gradle_version: str(v.gradle_version, 64),
    jdk_version: str(v.jdk_version, 64),
    build_files: files,
  };
}

const STATUSES = new Set<string>(Object.values(BuildStatus));

/** Whether `v` is one of the statuses. Pure. */
export function isBuildStatus(v: unknown): v is BuildStatus {
  return typeof v === "string" && STATUSES.has(v);
}

/**
 * A record as stored: every field present, bounded, of the right type; `null` when it has no
 * valid id, project or status. Pure (`dataDir` only names the default log path).
 */
export function normalizeRecord(v: unknown, dataDir: string): BuildRecord | null {
  if (!isRecord(v)) return null;
  const id = int(v.id);
  if (id === null || id < 1 || typeof v.project !== "string") return null;
  if (typeof v.status !== "string" || !STATUSES.has(v.status)) return null;
  const logInfo = isRecord(v.log) ? v.log : {};
  return {
    id,
    project: clip(v.project, MAX_PATH_CHARS),
    task: str(v.task, MAX_TASK_CHARS) ?? "",
    tasks: strings(v.tasks, MAX_TASKS_PER_RECORD, MAX_TASK_CHARS),
    variant: str(v.variant, MAX_TASK_CHARS),
    module: str(v.module, MAX_TASK_CHARS),
    kind: v.kind === BuildKind.tests ? BuildKind.tests : BuildKind.gradleTask,
    status: v.status as BuildStatus,
    started_at: str(v.started_at, 64) ?? "",
    finished_at: str(v.finished_at, 64),
    duration_ms: int(v.duration_ms),
    exit_code: int(v.exit_code),
    summary: typeof v.summary === "string" ? oneLine(v.summary, MAX_SUMMARY_CHARS) : "",
    error_count: count(v.error_count),
    warning_count: count(v.warning_count),
    diagnostics: boundDiagnostics(v.diagnostics),
    failed_tasks: strings(v.failed_tasks, MAX_FAILED_TASKS_PER_RECORD, MAX_TASK_CHARS),
    origin: parseOrigin(v.origin) ?? { kind: "app" },
    cancelled_by: parseOrigin(v.cancelled_by),
    reason: str(v.reason, MAX_REASON_CHARS),
    pid: count(v.pid),
    binary: str(v.binary, MAX_PATH_CHARS) ?? "",
    gradle_pid: int(v.gradle_pid),
    apks: parseApks(v.apks),
    mappings: parseMappings(v.mappings),
    provenance: parseProvenance(v.provenance),
    log: {
      path: str(logInfo.path, MAX_PATH_CHARS) ?? buildLogPath(dataDir, id),
      bytes: count(logInfo.bytes),
      lines: count(logInfo.lines),
      truncated: logInfo.truncated === true,
    },
  };
}
