/**
 * The crash tools: `get_crash_logs` and `get_crash_stack_trace`, over the crashes and crash
 * groups the logcat worker read, deobfuscated by the retrace worker (lib/retrace) when asked.
 */
import { z } from "zod";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { describeFrame, type Frame, type Throwable } from "../../logcat/shared/crash_frames.ts";
import type {
  CrashGroup,
  CrashSummary,
  RederiveParams,
  TraceResult,
} from "../../logcat/shared/logcat_protocol.ts";
import { describeAnrReasons } from "../../logcat/shared/anr_reasons.ts";
import { defineTool } from "../define_tool.ts";
import { retraceCrashes, type RetraceResult } from "../../sessions/retrace_crash.ts";
import { projectRoot, type ToolContext } from "../context.ts";
import { CRASH_GROUP_ID, DEFAULT_CRASH_COUNT, MAX_CRASH_COUNT } from "./logcat.ts";
import { optionalPackageParam } from "../params.ts";
import { MAX_TRACE_CHARS } from "../../retrace/shared/retrace_protocol.ts";
import { appendAll } from "../../core/arrays.ts";

/** get_crash_logs with `retrace: true` deobfuscates the newest this many crash groups. */
const MAX_RETRACED_CRASH_GROUPS = 5;

const retraceParam = z.boolean().optional().describe("Deobfuscate (R8)");

/** `retrace` of traces: the matching (lib/sessions/retrace_crash.ts) and the retrace worker. */
async function retraceAll(ctx: ToolContext, ts: readonly TraceResult[]): Promise<RetraceResult[]> {
  const rs = await retraceCrashes(
    ctx.dataDir,
    ctx.adb,
    ctx.retrace,
    ts.map((t) => ({ serial: t.crash.device, package: t.crash.package, trace: t.trace })),
    ctx.signal,
  );
  rs.forEach((r, i) => {
    const t = ts[i];
    // The device told us which APK it has: a session of another APK is no longer the current one.
    if (r.device?.apk_sha256 && t.crash.package) {
      ctx.sessions.record({
        type: "device_apk",
        serial: t.crash.device,
        package: t.crash.package,
        apk_sha256: r.device.apk_sha256,
        at: new Date(),
      });
    }
  });
  return rs;
}

/**
 * The newest `MAX_RETRACED_CRASH_GROUPS` groups among `crashes`, each retraced: their traces in
 * one logcat answer, one retrace request per mapping, then their new names in one logcat answer.
 */
async function retraceGroups(
  ctx: ToolContext,
  crashes: readonly CrashSummary[],
): Promise<(RetraceResult & { crash_group_id: string; first_app_frame: string | null })[]> {
  const groups: string[] = [];
  // `crashes` is newest first.
  for (const c of crashes) {
    if (groups.length >= MAX_RETRACED_CRASH_GROUPS) break;
    if (!groups.includes(c.crash_group_id)) groups.push(c.crash_group_id);
  }
  const traces = await ctx.logcat.traces(groups, ctx.signal);
  const found: { id: string; t: TraceResult }[] = [];
  traces.forEach((t, i) => {
    if (t) found.push({ id: groups[i], t });
  });
  const rs = await retraceAll(ctx, found.map((f) => f.t));
  const named = await withRetracedNames(ctx, found.map((f) => f.t), rs);
  return found.map((f, i) => ({
    crash_group_id: f.id,
    ...rs[i],
    first_app_frame: named[i].group.first_app_frame,
  }));
}

/**
 * Each trace with every field derived from names read again from its retraced text (the logcat
 * worker parses them, all in one answer): the frames and which are the app's, the first app
 * frame, the type and message, and the summary's and group's first app frame. Nothing derived
 * keeps an obfuscated name (a library's `n.d.c` stays the first app frame no longer once it reads
 * androidx.browser). A trace that was not retraced is returned as it was.
 */
async function withRetracedNames(
  ctx: ToolContext,
  ts: readonly TraceResult[],
  retraces: readonly RetraceResult[],
): Promise<TraceResult[]> {
  const at: number[] = [];
  const asks: RederiveParams[] = [];
  ts.forEach((t, i) => {
    if (retraces[i].status !== "retraced") return;
    const kind = t.crash.kind === "anr" || t.crash.kind === "native" ? t.crash.kind : "java";
    at.push(i);
    asks.push({
      kind,
      trace: retraces[i].trace,
      process: t.crash.process,
      package: t.crash.package,
    });
  });
  const out = [...ts];
  if (asks.length === 0) return out;
  const derived = await ctx.logcat.rederive(asks, ctx.signal);
  at.forEach((i, k) => {
    const d = derived[k] ?? null;
    if (d === null) return;
    const t = ts[i];
    const first = describeFrame(d.first_app_frame);
    const type = d.exception_type ?? t.crash.exception_type;
    out[i] = {
      ...t,
      crash: { ...t.crash, exception_type: type, message: d.message, first_app_frame: first },
      group: { ...t.group, exception_type: type, message: d.message, first_app_frame: first },
      frames: d.frames,
      omitted_frames: d.omitted_frames,
      more: d.more,
      causes: d.causes,
      suppressed: d.suppressed,
      first_app_frame: d.first_app_frame,
    };
  });
  return out;
}

const getCrashLogs = defineTool({
  name: "get_crash_logs",
  toolset: "core",
  kind: "R",
  description: "After a crash or ANR: the newest from logcat (Java, ANR, native) with " +
    "crash_group_id, and their groups (type, top app frames, counts, first/last seen).",
  params: {
    count: z.number().int().min(1).max(MAX_CRASH_COUNT).optional().describe(
      `Most returned (default ${DEFAULT_CRASH_COUNT})`,
    ),
    retrace: retraceParam,
  },
  async run(args, ctx) {
    const r = await ctx.logcat.crashes(args.count ?? DEFAULT_CRASH_COUNT, ctx.signal);
    const retraced = args.retrace === true ? await retraceGroups(ctx, r.crashes) : null;
    const lines = r.groups.map((g) =>
      `${g.crash_group_id} ×${g.count} ${g.kind} ${g.exception_type ?? "?"}${
        g.message ? `: ${g.message.split("\n")[0].slice(0, 200)}` : ""
      } [${g.package ?? g.process ?? "?"}] last ${g.last_seen}${
        g.first_app_frame ? ` at ${g.first_app_frame}` : ""
      }${anrReasonsLine(g)}`
    );
    const text = r.total_crashes === 0
      ? "No crashes or ANRs in the logcat buffer (start_logcat streams it)."
      : [
        `${r.crashes.length} newest of ${r.total_crashes} crashes, ${r.groups.length} group(s):`,
        ...lines,
        ...(retraced ?? []).map((x) =>
          `${x.crash_group_id}: ${x.status} — ${x.mapping_line}${
            x.status === "retraced" && x.first_app_frame ? `; at ${x.first_app_frame}` : ""
          }`
        ),
        "Next: get_crash_stack_trace with a crash_group_id.",
      ].join("\n");
    return {
      structured: { ...r, count: r.crashes.length, ...(retraced ? { retraced } : {}) },
      text,
    };
  },
});

/** An ANR group's reasons on their own line (`\n  reasons: 2× …; 1× …`), else "". */
function anrReasonsLine(g: CrashGroup): string {
  const r = g.anr_reasons;
  return r && r.reasons.length > 0 ? `\n  reasons: ${describeAnrReasons(r)}` : "";
}

function frameLine(f: Frame): string {
  return `    ${f.raw}${f.app ? "   <- app" : ""}`;
}

function throwableLines(label: string, t: Throwable): string[] {
  const out = [`${label}${t.type ?? "?"}${t.message ? `: ${t.message}` : ""}`];
  appendAll(out, t.frames.map(frameLine));
  if (t.more !== null) out.push(`    ... ${t.more} more`);
  return out;
}

function renderTrace(t: TraceResult): string {
  const c = t.crash;
  const lines = [
    `${c.kind} crash in ${
      c.package ?? c.process ?? "?"
    } (pid ${c.pid}) on ${c.device} at ${c.time}` +
    `${t.thread ? `, thread ${t.thread}` : ""}; group ${t.group.crash_group_id} seen ` +
    `${t.group.count}×`,
    `${c.exception_type ?? "?"}${c.message ? `: ${c.message}` : ""}`,
    ...t.frames.map(frameLine),
  ];
  const reasons = anrReasonsLine(t.group);
  if (reasons) lines.splice(2, 0, reasons.trimStart());
  if (t.more !== null) lines.push(`    ... ${t.more} more`);
  // As the JVM prints them: each throwable's suppressed ones indented under it, then its cause.
  const suppressedUnder = (i: number) => {
    for (const x of t.suppressed ?? []) {
      if (x.suppressed_by !== i) continue;
      appendAll(lines, throwableLines("Suppressed: ", x).map((l) => `    ${l}`));
      for (const y of x.causes) {
        appendAll(lines, throwableLines("Caused by: ", y).map((l) => `    ${l}`));
      }
    }
  };
  suppressedUnder(-1);
  t.causes.forEach((cause, i) => {
    appendAll(lines, throwableLines("Caused by: ", cause));
    suppressedUnder(i);
  });
  lines.push(`First app frame: ${describeFrame(t.first_app_frame) ?? "none"}`);
  return lines.join("\n");
}

/** Characters of a `mapping` path at most. */
const MAX_MAPPING_PATH_CHARS = 4096;

/**
 * get_crash_stack_trace with `trace` and `mapping`: a trace the user already has (Play Console, a
 * bug report) retraced with a mapping of the project, read by the project-path rules in the
 * retrace worker. The text is the retraced trace alone, as `keynobi retrace` prints it.
 */
async function retraceGiven(
  ctx: ToolContext,
  args: {
    trace?: string;
    mapping?: string;
    package?: string;
    crash_group_id?: string;
    retrace?: boolean;
  },
) {
  if (args.trace === undefined || args.mapping === undefined || args.mapping === "") {
    throw invalidParams(
      "Retracing a trace you have takes both trace (its text) and mapping (a mapping.txt path " +
        "in the project, e.g. app/build/outputs/mapping/release/mapping.txt)",
    );
  }
  if (args.package !== undefined || args.crash_group_id !== undefined || args.retrace) {
    throw invalidParams(
      "trace and mapping retrace the trace you pass: drop package, crash_group_id and retrace " +
        "(those read a crash from logcat)",
    );
  }
  const root = projectRoot(ctx);
  const r = await ctx.retrace.run({
    mapping: { kind: "project", root, path: args.mapping },
    traces: [args.trace],
  }, ctx.signal);
  const out = r.outputs[0];
  return {
    structured: { mapping: args.mapping, ...r.mapping, stats: out.stats, trace: out.text },
    text: out.text,
  };
}

const getCrashStackTrace = defineTool({
  name: "get_crash_stack_trace",
  toolset: "core",
  kind: "R",
  description:
    "One crash parsed (newest, or of a package or group): exception, message, frames (app " +
    "ones marked), Caused-by chain, nearby lines.",
  params: {
    package: optionalPackageParam("The app's package"),
    crash_group_id: z.string().optional().describe("From get_crash_logs"),
    retrace: retraceParam,
    trace: z.string().max(MAX_TRACE_CHARS).optional().describe(
      "Or retrace this trace",
    ),
    mapping: z.string().max(MAX_MAPPING_PATH_CHARS).optional().describe(
      "Project's mapping.txt",
    ),
  },
  async run(args, ctx) {
    if (args.trace !== undefined || args.mapping !== undefined) {
      return await retraceGiven(ctx, args);
    }
    const pkg = args.package;
    const group = args.crash_group_id;
    if (group !== undefined && !CRASH_GROUP_ID.test(group)) {
      throw invalidParams(
        `Invalid crash_group_id ${JSON.stringify(group.slice(0, 40))}: it is 12 hex digits; ` +
          "copy one from get_crash_logs",
      );
    }
    const t = await ctx.logcat.trace({ package: pkg, crash_group_id: group }, ctx.signal);
    if (!t) {
      const what = [pkg ? `package ${pkg}` : null, group ? `group ${group}` : null]
        .filter((x) => x).join(" and ");
      throw new ToolError(
        "not_found",
        `No crash${what ? ` of ${what}` : ""} in the logcat buffer: call start_logcat, reproduce ` +
          "the crash, then get_crash_logs",
        { package: pkg ?? null, crash_group_id: group ?? null },
      );
    }
    if (args.retrace !== true) return { structured: { ...t }, text: renderTrace(t) };
    const [retrace] = await retraceAll(ctx, [t]);
    const [named] = await withRetracedNames(ctx, [t], [retrace]);
    return {
      structured: { ...named, retrace },
      text: [
        renderTrace(named),
        `Retrace: ${retrace.status} — ${retrace.mapping_line}`,
        ...(retrace.status === "retraced" ? [retrace.trace] : []),
      ].join("\n"),
    };
  },
});

export const crashTools = [getCrashLogs, getCrashStackTrace];
