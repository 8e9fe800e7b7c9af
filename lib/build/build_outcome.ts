/**
 * What a build that ran is recorded as in the history: its outcome (success, failed, cancelled,
 * timed out), the summary line, exact counts and the first diagnostics (each cause pointed at its
 * source file), the APKs and R8 mappings a successful build wrote; or, for a build that could not
 * run, why. Runs in the build worker.
 */
import { ToolError } from "../core/errors.ts";
import { findClassSource } from "../project/source_lookup.ts";
import {
  type BuildMapping,
  findBuiltMappings,
  keepMapping,
} from "../retrace/shared/mapping_store.ts";
import type { BuildSummary } from "./build_parser.ts";
import { finishBuildRecord } from "./shared/build_history.ts";
import type { BuildLogInfo, BuildLogWriter } from "./shared/build_log.ts";
import type { BuildRunParams } from "./shared/build_protocol.ts";
import type { BuildRecord, Origin } from "./shared/build_record.ts";
import { collectBuiltApks } from "./shared/built_apks.ts";
import type { Diagnostic } from "./shared/diagnostic.ts";
import type { Provenance } from "./shared/provenance.ts";

/** How many diagnostics a history record keeps. */
const MAX_RECORDED_DIAGNOSTICS = 100;

/** Why a build was stopped before it ended by itself. */
export type StopReason =
  | { kind: "cancelled"; by: Origin; message: string }
  | { kind: "timeout"; message: string };

/** What a build had opened when it failed: its record and its log, to close and record. */
export interface Opened {
  record: BuildRecord | null;
  log: BuildLogWriter | null;
}

/** Records a build that could not run (it failed before or while reading its output). */
export async function recordCouldNotRun(dataDir: string, opened: Opened, e: Error): Promise<void> {
  if (!opened.record) return;
  await finishBuildRecord(dataDir, opened.record.id, {
    status: "failed",
    finished_at: new Date().toISOString(),
    summary: `Build could not run: ${e.message}`,
    reason: e.message,
    log: opened.log ? await opened.log.close().catch(() => null) ?? undefined : undefined,
  }).catch(() => {});
}

/** What a build that ran came to, for its record. */
interface Ran {
  summary: BuildSummary;
  /** Null when it was stopped before gradlew was spawned. */
  status: Deno.CommandStatus | null;
  reason: StopReason | null;
  startedAt: number;
  startedWall: number;
  gradlePid: number | null;
  provenance: Provenance | null;
  log: BuildLogInfo;
}

/** Records how a build that ran ended: outcome, exact counts, bounded diagnostics, APKs. */
export async function recordOutcome(
  dataDir: string,
  p: BuildRunParams,
  id: number,
  ran: Ran,
): Promise<BuildRecord> {
  const { summary, reason } = ran;
  const duration = Math.round(performance.now() - ran.startedAt);
  const outcome = reason?.kind === "cancelled"
    ? "cancelled"
    : reason?.kind === "timeout"
    ? "failed"
    : ran.status?.success
    ? "success"
    : "failed";
  const apks = outcome === "success"
    ? await collectBuiltApks(p.project, p.appModuleDirs, ran.startedWall).catch(() => [])
    : [];
  const mappings = outcome === "success"
    ? await keepBuiltMappings(dataDir, p.project, p.appModuleDirs, ran.startedWall)
    : [];
  const finished = await finishBuildRecord(dataDir, id, {
    status: outcome,
    finished_at: new Date().toISOString(),
    duration_ms: duration,
    exit_code: ran.status?.code ?? null,
    summary: summaryLine(
      outcome,
      p.tasks,
      duration,
      summary.failed_tasks,
      summary.error_count,
      reason,
    ),
    // Exact counts; the record keeps the first errors, then warnings (bounded).
    error_count: summary.error_count,
    warning_count: summary.warning_count,
    diagnostics: [
      ...summary.diagnostics.filter((d) => d.severity === "error"),
      ...summary.diagnostics.filter((d) => d.severity !== "error"),
    ].slice(0, MAX_RECORDED_DIAGNOSTICS),
    failed_tasks: summary.failed_tasks,
    cancelled_by: reason?.kind === "cancelled" ? reason.by : null,
    reason: reason ? reason.message : outcome === "failed" ? failureReason(summary) : null,
    gradle_pid: ran.gradlePid,
    apks,
    mappings,
    provenance: ran.provenance,
    log: ran.log,
  });
  if (!finished) {
    throw new ToolError(
      "io_error",
      `Build #${id} finished but its history record is gone (the history was reset)`,
    );
  }
  return finished;
}

function failureReason(summary: BuildSummary): string {
  const first = summary.diagnostics.find((d) => d.severity === "error");
  if (first) return first.message.split("\n")[0].slice(0, 300);
  if (summary.failed_tasks.length) return `task ${summary.failed_tasks[0]} failed`;
  return "Gradle exited with an error";
}

function summaryLine(
  outcome: string,
  tasks: string[],
  durationMs: number,
  failedTasks: string[],
  errors: number,
  reason: StopReason | null,
): string {
  const secs = (durationMs / 1000).toFixed(1);
  const what = tasks.join(" ");
  if (outcome === "success") return `BUILD SUCCESSFUL — ${what} in ${secs} s`;
  if (outcome === "cancelled") return `BUILD CANCELLED — task '${what}' was ${reason?.message}`;
  if (reason?.kind === "timeout") return `BUILD FAILED — ${what} ${reason.message}`;
  const failed = failedTasks.length ? `; failed: ${failedTasks.join(", ")}` : "";
  return `BUILD FAILED — ${what} in ${secs} s: ${errors} error${errors === 1 ? "" : "s"}${failed}`;
}

/** Keeps the R8 mappings a build wrote (lib/retrace/shared/mapping_store.ts); never fails it. */
async function keepBuiltMappings(
  dataDir: string,
  root: string,
  moduleDirs: readonly string[],
  sinceMs: number,
): Promise<BuildMapping[]> {
  const out: BuildMapping[] = [];
  try {
    for (const found of await findBuiltMappings(root, moduleDirs, sinceMs)) {
      const kept = await keepMapping(dataDir, found).catch(() => null);
      if (kept) out.push(kept);
    }
  } catch {
    // A mapping that cannot be kept only means its crashes will not retrace.
  }
  return out;
}

/** Diagnostics whose `caused_at` is looked up in the project, at most. */
const MAX_SOURCE_LOOKUPS = 10;

/** Gives each diagnostic that names a cause (`caused_at`) the file of that class, when found. */
export async function pointAtSources(root: string, diagnostics: Diagnostic[]): Promise<void> {
  let n = 0;
  for (const d of diagnostics) {
    if (d.caused_at === undefined || n++ >= MAX_SOURCE_LOOKUPS) continue;
    const file = await findClassSource(root, d.caused_at).catch(() => null);
    if (file !== null) d.caused_at_file = file;
  }
}
