/**
 * Running Gradle and reading its builds: `run_gradle_task`, `run_tests` (trusted projects only,
 * through the task policy), `get_build_status`, `get_build_errors`, `get_build_log`,
 * `cancel_build`. Thin adapters over the build worker (`ctx.builds`) and lib/build's history.
 */
import { z } from "zod";
import { ToolError } from "../../core/errors.ts";
import { readSettings } from "../../core/settings.ts";
import {
  getBuildRecord,
  latestBuildRecord,
  listBuildRecords,
  markOrphanedBuilds,
} from "../../build/shared/build_history.ts";
import { type BuildRecord, describeOrigin } from "../../build/shared/build_record.ts";
import { DEFAULT_TAIL_LINES, MAX_TAIL_LINES, readLogTail } from "../../build/shared/build_log.ts";
import { getActiveVariant } from "../../project/variants.ts";
import type { ToolOutput } from "../../mcp/tool_def.ts";
import { defineTool } from "../define_tool.ts";
import { appModel, resolveTasks, runInBuildWorker } from "../../build/shared/build_setup.ts";
import type { Settings } from "../../core/settings.ts";
import { diagnosticLine, presentDiagnostic } from "../../build/shared/diagnostic_view.ts";
import { agentOrigin, buildCall, modeLine, projectRoot, type ToolContext } from "../context.ts";

/** Diagnostics a build's answer lists inline (get_build_errors has them all). */
const INLINE_DIAGNOSTICS = 10;
/** get_build_errors: default and maximum count. */
const DEFAULT_ERRORS = 50;
const MAX_ERRORS = 200;
/** get_build_errors: the largest `offset` (past the kept diagnostics it lists nothing). */
const MAX_ERRORS_OFFSET = 100_000;
/** Most build ids a session may look back to. */
const BUILD_ID = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

async function runBuild(
  ctx: ToolContext,
  settings: Settings,
  kind: "gradle_task" | "tests",
  resolved: { tasks: string[]; variant: string | null; module: string | null },
): Promise<ToolOutput> {
  const result = await runInBuildWorker(buildCall(ctx, settings), kind, resolved, (secs, task) => {
    ctx.request.progress(secs, undefined, `${secs} s elapsed${task ? ` — > Task ${task}` : ""}`);
  });
  return renderBuild(ctx, result.record, result.tail);
}

function renderBuild(ctx: ToolContext, r: BuildRecord, tail: string[]): ToolOutput {
  const root = projectRoot(ctx);
  const diags = (r.diagnostics as Parameters<typeof presentDiagnostic>[1][]).map((d) =>
    presentDiagnostic(root, d)
  );
  const errors = diags.filter((d) => d.severity === "error");
  const structured = {
    build_id: r.id,
    status: r.status,
    tasks: r.tasks,
    variant: r.variant,
    duration_ms: r.duration_ms,
    summary: r.summary,
    error_count: r.error_count,
    warning_count: r.warning_count,
    errors: errors.slice(0, INLINE_DIAGNOSTICS),
    failed_tasks: r.failed_tasks,
    apks: r.apks,
    reason: r.reason,
    cancelled_by: r.cancelled_by,
    mode: ctx.session.mode,
    standalone_reason: ctx.session.standaloneReason,
  };
  const lines = [`${r.summary} (build #${r.id})`];
  for (const apk of r.apks) {
    lines.push(
      `APK ${apk.variant}: ${apk.path}${apk.application_id ? ` (${apk.application_id})` : ""}, ${
        Math.round(apk.bytes / 1024)
      } KiB${apk.sha256 ? `, sha256 ${apk.sha256.slice(0, 12)}…` : ""}`,
    );
  }
  for (const d of errors.slice(0, INLINE_DIAGNOSTICS)) lines.push(diagnosticLine(d));
  if (r.status === "failed") {
    if (errors.length === 0 && tail.length) {
      lines.push("Last lines of output:", ...tail.slice(-12).map((l) => `  ${l}`));
    }
    lines.push(
      `Next: get_build_errors for every diagnostic${
        errors.length > INLINE_DIAGNOSTICS ? ` (${errors.length} errors)` : ""
      }, get_build_log for the output.`,
    );
  } else if (r.warning_count > 0) {
    lines.push(`${r.warning_count} warning(s): get_build_errors lists them.`);
  }
  lines.push(modeLine(ctx));
  const text = lines.join("\n");
  if (r.status === "success") return { structured, text };
  throw new ToolError(r.status === "cancelled" ? "cancelled" : "build_failed", text, structured);
}

const runGradleTask = defineTool({
  name: "run_gradle_task",
  toolset: "core",
  kind: "O",
  description:
    "Build in the trusted project and wait: returns errors with file and line, and the " +
    "APKs written. Publishing/uninstall tasks are refused. Sends progress; cancellable.",
  params: {
    task: z.string().max(2000).describe(
      "Task(s): assembleDebug, :app:assembleDemoDebug, clean build",
    ),
    variant: z.string().max(200).optional().describe(
      "Completes a verb task: assemble + demoDebug → :app:assembleDemoDebug",
    ),
  },
  needsProject: true,
  async run(args, ctx) {
    const settings = await readSettings(ctx.dataDir);
    const resolved = await resolveTasks(projectRoot(ctx), settings, args.task, args.variant);
    return await runBuild(ctx, settings, "gradle_task", resolved);
  },
});

const runTests = defineTool({
  name: "run_tests",
  toolset: "core",
  kind: "O",
  description:
    "Run the app's tests (unit, connected on devices, or a test task) and wait; result, " +
    "trust and task policy as for run_gradle_task.",
  params: {
    test_type: z.string().max(300).describe(
      "unit, connected, or a test task (:feature:testDebugUnitTest)",
    ),
    variant: z.string().max(200).optional().describe(
      "Default: the active variant",
    ),
  },
  needsProject: true,
  async run(args, ctx) {
    const root = projectRoot(ctx);
    const settings = await readSettings(ctx.dataDir);
    if (args.test_type === "unit" || args.test_type === "connected") {
      const model = await appModel(root);
      const variant = args.variant ?? (await getActiveVariant(ctx.dataDir, root, model))
        .variant?.name;
      if (!variant) throw new ToolError("invalid_params", "The app module has no variants to test");
      const verb = args.test_type === "unit" ? "test" : "connected";
      const task = `${model.module === ":" ? "" : model.module}:${verb}`;
      return await runBuild(
        ctx,
        settings,
        "tests",
        await resolveTasks(root, settings, task, variant),
      );
    }
    const resolved = await resolveTasks(root, settings, args.test_type, args.variant);
    return await runBuild(ctx, settings, "tests", resolved);
  },
});

function recordSummary(r: BuildRecord) {
  return {
    build_id: r.id,
    status: r.status,
    summary: r.summary,
    tasks: r.tasks,
    variant: r.variant,
    started_at: r.started_at,
    finished_at: r.finished_at,
    duration_ms: r.duration_ms,
    error_count: r.error_count,
    warning_count: r.warning_count,
    origin: r.origin,
    cancelled_by: r.cancelled_by,
    reason: r.reason,
  };
}

async function pickRecord(ctx: ToolContext, id: number | undefined): Promise<BuildRecord> {
  const root = projectRoot(ctx);
  const r = id === undefined
    ? await latestBuildRecord(ctx.dataDir, root)
    : await getBuildRecord(ctx.dataDir, id);
  if (!r || r.project !== root) {
    throw new ToolError(
      "not_found",
      id === undefined
        ? "No build of this project is recorded yet: run run_gradle_task first"
        : `No build #${id} of this project is recorded: get_build_status lists the latest`,
    );
  }
  return r;
}

const getBuildStatus = defineTool({
  name: "get_build_status",
  toolset: "core",
  kind: "R",
  description: "Is a build running? Returns it (task, elapsed time, current task) or the latest: " +
    "status, summary, who started or cancelled it.",
  params: {},
  needsProject: true,
  async run(_args, ctx) {
    const root = projectRoot(ctx);
    const running = await ctx.builds.status();
    // A record left `running` by a keynobi process that is gone is reported as interrupted.
    await markOrphanedBuilds(ctx.dataDir).catch(() => {});
    const latest = await latestBuildRecord(ctx.dataDir, root);
    const recent = (await listBuildRecords(ctx.dataDir, { project: root, limit: 5 })).map(
      recordSummary,
    );
    // Still running after the orphan check, yet not in this server's slot: another keynobi
    // process's build (its record is written when it ends; until then its summary is empty).
    // (This process's own build reads so for a moment too, while it starts: recorded, not spawned.)
    const recordedRunning = !running && latest?.status === "running" ? latest : null;
    const starting = recordedRunning?.pid === Deno.pid ? recordedRunning : null;
    const other = recordedRunning && !starting ? recordedRunning : null;
    const elsewhere = other && {
      build_id: other.id,
      pid: other.pid,
      tasks: other.tasks,
      started_at: other.started_at,
      elapsed_ms: Math.max(0, Date.now() - Date.parse(other.started_at)),
    };
    const structured = {
      status: running ? "running" : latest?.status ?? "none",
      running,
      running_elsewhere: elsewhere,
      latest: latest ? recordSummary(latest) : null,
      recent,
      summary: running
        ? `Build #${running.id} running: ${running.tasks.join(" ")} for ${
          Math.round(running.elapsed_ms / 1000)
        } s${running.current_task ? `, at ${running.current_task}` : ""}`
        : starting
        ? `Build #${starting.id} starting: ${starting.tasks.join(" ")}`
        : elsewhere
        ? `Build #${elsewhere.build_id} running in keynobi process ${elsewhere.pid} since ` +
          `${elsewhere.started_at} (${Math.round(elsewhere.elapsed_ms / 1000)} s), task ` +
          `${elsewhere.tasks.join(" ")}: that process reports its progress and can cancel it; ` +
          "get_build_status here shows how it ended once it has"
        : latest?.summary ?? "No build recorded for this project yet",
      origin: running?.origin ?? latest?.origin ?? null,
      cancelled_by: running ? null : latest?.cancelled_by ?? null,
      mode: ctx.session.mode,
      standalone_reason: ctx.session.standaloneReason,
    };
    const lines = [structured.summary];
    if (structured.origin) lines.push(`Started by ${describeOrigin(structured.origin)}`);
    if (structured.cancelled_by) {
      lines.push(`Cancelled by ${describeOrigin(structured.cancelled_by)}`);
    }
    if (!running && latest?.reason) lines.push(`Reason: ${latest.reason}`);
    lines.push(modeLine(ctx));
    return { structured, text: lines.join("\n") };
  },
});

/**
 * One page of a build's diagnostics: the exact totals come from the record's counts, the listed
 * ones from what it kept (errors first); what is cut says how many more and how to get them.
 */
function errorsPage(
  r: BuildRecord,
  all: ReturnType<typeof presentDiagnostic>[],
  includeWarnings: boolean,
  offset: number,
  limit: number,
) {
  const total = r.error_count + (includeWarnings ? r.warning_count : 0);
  const kept = all.length;
  const shown = all.slice(offset, offset + limit);
  const end = offset + shown.length;
  const more = Math.max(0, total - end);
  /** Reported by the build but beyond what the history keeps of it. */
  const notKept = Math.max(0, total - kept);
  const lines: string[] = [];
  if (more > 0 || offset > 0) {
    lines.push(
      shown.length > 0
        ? `Listed ${offset + 1}–${end} of ${total}; ${more} more.`
        : `Nothing listed from offset ${offset}: ${kept} of ${total} are kept.`,
    );
    if (end < kept) lines.push(`Next: get_build_errors offset=${end} for the next page.`);
    if (notKept > 0) {
      lines.push(
        `The history keeps the first ${kept} of this build's ${total}; ` +
          `the other ${notKept} are only in its output (get_build_log).`,
      );
    }
  }
  return {
    structured: {
      total,
      offset,
      listed: shown.length,
      more,
      truncated: more > 0,
      next_offset: end < kept ? end : null,
      not_kept: notKept,
    },
    shown,
    lines,
  };
}

const getBuildErrors = defineTool({
  name: "get_build_errors",
  toolset: "core",
  kind: "R",
  description:
    "A build's errors, then warnings: file, line, column, message, tool (kotlin, java, " +
    "aapt2, r8, lint…); latest unless build_id.",
  params: {
    build_id: BUILD_ID.optional().describe("Build number; default the latest"),
    include_warnings: z.boolean().optional().describe("Default true"),
    limit: z.number().int().min(1).max(MAX_ERRORS).optional().describe(
      `Most returned (default ${DEFAULT_ERRORS})`,
    ),
    offset: z.number().int().min(0).max(MAX_ERRORS_OFFSET).optional().describe("Skip"),
  },
  needsProject: true,
  async run(args, ctx) {
    const r = await pickRecord(ctx, args.build_id);
    const root = projectRoot(ctx);
    const includeWarnings = args.include_warnings !== false;
    const all = (r.diagnostics as Parameters<typeof presentDiagnostic>[1][])
      .map((d) => presentDiagnostic(root, d))
      .filter((d) => includeWarnings || d.severity === "error");
    const page = errorsPage(
      r,
      all,
      includeWarnings,
      args.offset ?? 0,
      args.limit ?? DEFAULT_ERRORS,
    );
    const structured = {
      build_id: r.id,
      status: r.status,
      error_count: r.error_count,
      warning_count: r.warning_count,
      diagnostics: page.shown,
      ...page.structured,
    };
    const head =
      `Build #${r.id} ${r.status}: ${r.error_count} error(s), ${r.warning_count} warning(s)`;
    const lines = [head, ...page.shown.map(diagnosticLine), ...page.lines];
    if (r.status === "failed" && r.error_count === 0) {
      lines.push(
        `No diagnostic was recognised${
          r.reason ? `: ${r.reason}` : ""
        }; get_build_log shows the output`,
      );
    }
    return { structured, text: lines.join("\n") };
  },
});

const getBuildLog = defineTool({
  name: "get_build_log",
  toolset: "core",
  kind: "R",
  description:
    "The last lines of a build's raw Gradle output (latest unless build_id), for a failure " +
    "its errors do not explain.",
  params: {
    lines: z.number().int().min(1).max(MAX_TAIL_LINES).optional().describe(
      `Lines from the end (default ${DEFAULT_TAIL_LINES}, setting mcp.default_build_log_lines)`,
    ),
    build_id: BUILD_ID.optional().describe("Build number; default the latest"),
  },
  needsProject: true,
  async run(args, ctx) {
    const r = await pickRecord(ctx, args.build_id);
    const settings = await readSettings(ctx.dataDir);
    const fallback = Number(settings.mcp?.default_build_log_lines ?? DEFAULT_TAIL_LINES);
    const n = args.lines ??
      (Number.isInteger(fallback)
        ? Math.min(Math.max(1, fallback), MAX_TAIL_LINES)
        : DEFAULT_TAIL_LINES);
    if (!r.log?.path) {
      throw new ToolError("not_found", `Build #${r.id} kept no log`);
    }
    const tail = await readLogTail(r.log.path, n);
    const structured = { build_id: r.id, status: r.status, ...tail };
    return {
      structured,
      text: [`Build #${r.id} (${r.status}), last ${tail.lines.length} line(s):`, ...tail.lines]
        .join("\n"),
    };
  },
});

const cancelBuild = defineTool({
  name: "cancel_build",
  toolset: "core",
  kind: "W",
  description:
    "Stop the Gradle build this keynobi runs, whoever started it; recorded as cancelled by " +
    "this agent.",
  params: {},
  needsProject: true,
  async run(_args, ctx) {
    const cancelled = await ctx.builds.cancel(agentOrigin(ctx));
    const structured = { cancelled: cancelled !== null, build: cancelled };
    return {
      structured,
      text: cancelled
        ? `Cancelling build #${cancelled.id} (${
          cancelled.tasks.join(" ")
        }); get_build_status shows when it stopped`
        : "No build is running in this keynobi process",
    };
  },
});

export const gradleTools = [
  runGradleTask,
  runTests,
  getBuildStatus,
  getBuildErrors,
  getBuildLog,
  cancelBuild,
];
