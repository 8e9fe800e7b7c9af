/**
 * UI flows: `run_ui_flow` runs a Maestro flow (a project file or inline YAML) on keynobi's own UI
 * engine (lib/ui/shared/flows/) and records the run in the device's open debug session; `export_ui_flow`
 * writes the UI actions an agent took in a debug session as a flow run_ui_flow accepts.
 * Everything is checked before the first step runs: the YAML, every step and selector, the
 * runFlow files, the variables, each link's scheme and the package scope of clearState.
 */
import { z } from "zod";
import { invalidParams } from "../../core/errors.ts";
import { dirname, isAbsolute, join, normalize } from "../../core/path.ts";
import { readProjectFile } from "../../core/project_paths.ts";
import { validateDeepLink } from "../../core/validation.ts";
import { clearAppData, openDeepLink, stopApp } from "../../android/app_control.ts";
import { launchApp } from "../../android/launch.ts";
import { readInputMethodDump } from "../../android/input_method.ts";
import { projectLinkSchemes } from "../../project/link_schemes.ts";
import { dumpTellsKeyboard, keyboardState } from "../../ui/shared/keyboard_signal.ts";
import {
  type FlowDevice,
  type FlowReport,
  runFlow,
  type StepReport,
} from "../../ui/shared/flows/flow_runner.ts";
import { type Flow, flowAppIds, type FlowStep } from "../../ui/shared/flows/flow_types.ts";
import {
  DEFAULT_FLOW_LOOKUP_MS,
  DEFAULT_FLOW_TIMEOUT_MS,
  FLOW_FAILURE_ROWS,
  FLOW_SCREENSHOT_MAX_DIMENSION,
  MAX_FLOW_BYTES,
  MAX_FLOW_ENV_VALUE_CHARS,
  MAX_FLOW_ENV_VARS,
  MAX_FLOW_LOOKUP_MS,
  MAX_FLOW_TIMEOUT_MS,
} from "../../ui/shared/flows/flow_limits.ts";
import { agentOrigin, type ToolContext } from "../context.ts";
import { ToolError } from "../../core/errors.ts";
import { isDebugSessionId } from "../../sessions/session_model.ts";
import { listSessionSummaries, readSession } from "../../sessions/session_store.ts";
import { exportFlow } from "../../ui/shared/flows/flow_export.ts";
import type { RecordedStep } from "../../ui/shared/flows/flow_record.ts";
import { defineTool } from "../define_tool.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { requireScope, serialParam } from "../params.ts";
import { listData } from "./render.ts";
import { encodeBase64 } from "./screenshot.ts";
import { UI_QUERY_TIMEOUT_MS } from "./act.ts";

/**
 * The flow parser, loaded on the first flow: npm `yaml` costs ~300 ms to import on this machine,
 * which tools/list (answered once the registry is loaded) must not wait for.
 */
async function parser() {
  return (await import("../../ui/shared/flows/flow_parse.ts")).parseFlow;
}

/** Where a runFlow `file` points: beside the including file, inside the project. */
function flowPath(from: string, file: string): string {
  const base = from === "inline" ? "." : dirname(from);
  const p = normalize(join(base, file));
  if (isAbsolute(file) || p === ".." || p.startsWith("../")) {
    throw invalidParams(`runFlow file ${file}: it must stay inside the project`);
  }
  return p;
}

/** `NAME=value` entries → variables; refused when one is not that. */
function envOf(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const m = e.match(/^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s);
    if (!m) throw invalidParams(`env: ${JSON.stringify(e.slice(0, 40))} is not NAME=value`);
    out[m[1]] = m[2];
  }
  return out;
}

async function loadFlow(ctx: ToolContext, args: {
  flow?: string;
  flow_path?: string;
  env?: string[];
}): Promise<Flow> {
  if ((args.flow === undefined) === (args.flow_path === undefined)) {
    throw invalidParams("Pass flow (the YAML text) or flow_path (a file of the project), not both");
  }
  const root = ctx.project?.root ?? null;
  const readFile = root === null ? undefined : async (path: string) => {
    const f = await readProjectFile(root, path, MAX_FLOW_BYTES + 1);
    if (f.truncated || f.bytes > MAX_FLOW_BYTES) {
      throw invalidParams(`Flow ${path} is ${f.bytes} bytes, the limit is ${MAX_FLOW_BYTES}`);
    }
    return f.text;
  };
  const env = envOf(args.env ?? []);
  if (args.flow_path !== undefined) {
    if (readFile === undefined) {
      throw invalidParams("flow_path needs an open project; pass the flow's text as flow instead");
    }
    const path = flowPath("inline", args.flow_path);
    return await (await parser())(await readFile(path), {
      source: path,
      env,
      readFile,
      resolvePath: flowPath,
    });
  }
  return await (await parser())(args.flow!, {
    source: "inline",
    env,
    readFile,
    resolvePath: flowPath,
  });
}

function eachStep(steps: readonly FlowStep[], f: (s: FlowStep) => void): void {
  for (const s of steps) {
    f(s);
    if (s.cmd === "runFlow" || s.cmd === "repeat") eachStep(s.steps, f);
  }
}

/** The checks that need the project: link schemes, and clearState's package scope. */
async function checkFlow(ctx: ToolContext, flow: Flow, allowForeign: boolean | undefined) {
  const schemes = ctx.project ? await projectLinkSchemes(ctx.project.root) : [];
  const cleared = new Set<string>();
  eachStep(flow.steps, (s) => {
    if (s.cmd === "openLink") {
      validateDeepLink(s.link, `openLink (${s.source} line ${s.line ?? "?"})`, schemes);
    }
    if (s.cmd === "clearState" || s.cmd === "launchApp" && s.clearState) cleared.add(s.appId);
  });
  for (const pkg of cleared) await requireScope(ctx, pkg, allowForeign);
}

function device(ctx: ToolContext, serial: string): FlowDevice {
  const opts = { signal: ctx.signal };
  return {
    act: async (p) =>
      await ctx.ui.act({ ...p, serial, minIntervalMs: await ctx.uiActionIntervalMs() }, opts),
    flowFind: (p) => ctx.ui.flowFind({ ...p, serial }, opts),
    settle: (maxMs, maxRows) =>
      ctx.ui.settle({
        serial,
        baseline: "none",
        maxRows: maxRows ?? FLOW_FAILURE_ROWS,
        options: { maxMs, loadingWaitMs: maxMs },
        internal: true,
      }, opts),
    async keyboardShown() {
      const now = await ctx.ui.observe(
        { serial, maxRows: 1, activity: false, internal: true },
        opts,
      );
      const dumpsys = dumpTellsKeyboard(now.list)
        ? null
        : await readInputMethodDump(ctx.adb, serial, callOpts(ctx, UI_QUERY_TIMEOUT_MS));
      return keyboardState(now.list, dumpsys)?.shown ?? false;
    },
    async screenSize() {
      const t = await ctx.ui.tree({ serial, maxNodes: 1 }, opts);
      return { width: t.width, height: t.height };
    },
    async launch(appId, o) {
      if (o.clearState) await clearAppData(ctx.adb, serial, appId, callOpts(ctx));
      if (o.stopApp) await stopApp(ctx.adb, serial, appId, callOpts(ctx));
      const r = await launchApp(ctx.adb, serial, appId, undefined, callOpts(ctx));
      const s = await ctx.ui.settle({
        serial,
        baseline: "none",
        maxRows: 1,
        options: { maxMs: 10_000, loadingWaitMs: 10_000 },
        internal: true,
      }, opts);
      return `${o.clearState ? "cleared its data, " : ""}launched ${r.component ?? appId}` +
        `${r.timing?.total_ms != null ? ` in ${r.timing.total_ms} ms` : ""}; ` +
        `${s.settled ? `settled in ${s.settleMs} ms` : `still changing after ${s.settleMs} ms`}`;
    },
    async stop(appId) {
      const r = await stopApp(ctx.adb, serial, appId, callOpts(ctx));
      return r.was_running ? `stopped ${appId}` : `${appId} was not running`;
    },
    async clearState(appId) {
      await clearAppData(ctx.adb, serial, appId, callOpts(ctx));
      return `cleared the data of ${appId}`;
    },
    async openLink(link) {
      const r = await openDeepLink(ctx.adb, serial, link, undefined, callOpts(ctx));
      return `opened ${link}${r.report.activity ? ` in ${r.report.activity}` : ""}`;
    },
    async screenshot() {
      const r = await ctx.ui.screenshot({
        serial,
        maxDimension: FLOW_SCREENSHOT_MAX_DIMENSION,
        fullSize: false,
        format: "jpeg",
      }, opts);
      return { data: encodeBase64(r.image), mimeType: r.mimeType };
    },
  };
}

function stepData(s: StepReport) {
  return {
    index: s.index,
    command: s.command,
    status: s.status,
    detail: s.detail,
    ms: s.ms,
    source: s.source,
    line: s.line,
    ...(s.error ? { error: s.error } : {}),
  };
}

function stepLine(s: StepReport): string {
  const mark = s.status === "passed" ? "ok" : s.status === "skipped" ? "skipped" : "FAILED";
  return `${s.index}. ${s.command} ${mark} ${s.ms} ms: ${s.detail}`;
}

/** One line of the session timeline for a run. */
function flowRunSummary(name: string, r: FlowReport): string {
  return r.passed
    ? `flow ${name} passed: ${r.stepsRun} steps in ${r.durationMs} ms`
    : `flow ${name} failed at step ${r.failed!.index} ${r.failed!.command}: ${r.failed!.detail}`;
}

const runUiFlow = defineTool({
  name: "run_ui_flow",
  toolset: "ui",
  kind: "D",
  description: "Run a Maestro flow (YAML) on keynobi's UI engine: each step's outcome and " +
    "time, stopping at the first failure with the settled screen. Recorded in the debug session.",
  params: {
    device_serial: serialParam,
    flow: z.string().max(MAX_FLOW_BYTES).optional().describe("Flow YAML"),
    flow_path: z.string().max(1_024).optional().describe("Or a project file"),
    env: z.array(z.string().max(MAX_FLOW_ENV_VALUE_CHARS)).max(MAX_FLOW_ENV_VARS).optional()
      .describe("NAME=value for ${NAME}"),
    lookup_timeout_ms: z.number().int().min(0).max(MAX_FLOW_LOOKUP_MS).optional().describe(
      `Element wait (default ${DEFAULT_FLOW_LOOKUP_MS})`,
    ),
    timeout_ms: z.number().int().min(1_000).max(MAX_FLOW_TIMEOUT_MS).optional().describe(
      `Whole run (default ${DEFAULT_FLOW_TIMEOUT_MS})`,
    ),
    screenshot_on_failure: z.boolean().optional().describe("Add a small screenshot"),
    allow_foreign_package: z.boolean().optional().describe("clearState outside the project"),
  },
  async run(args, ctx) {
    const flow = await loadFlow(ctx, args);
    await checkFlow(ctx, flow, args.allow_foreign_package);
    const serial = await deviceFor(ctx, args.device_serial);
    const at = new Date();
    const r = await runFlow(flow, device(ctx, serial), {
      deadlineMs: args.timeout_ms ?? DEFAULT_FLOW_TIMEOUT_MS,
      lookupMs: args.lookup_timeout_ms,
      screenshotOnFailure: args.screenshot_on_failure,
    });
    const name = flow.name ?? flow.source;
    const apps = [...flowAppIds(flow.steps)];
    const appId = flow.appId ?? apps[0] ?? null;
    const failed = r.failed ? stepData(r.failed) : null;
    ctx.sessions.record({
      type: "event",
      serial,
      package: appId,
      event: {
        at,
        kind: "uiFlow",
        by: agentOrigin(ctx),
        summary: flowRunSummary(name, r),
        data: {
          flow: name,
          source: flow.source,
          passed: r.passed,
          steps_run: r.stepsRun,
          duration_ms: r.durationMs,
          failed_step: failed,
        },
      },
    });
    const head = r.passed
      ? `Flow ${name} passed on ${serial}: ${r.stepsRun} steps in ${r.durationMs} ms`
      : `Flow ${name} FAILED on ${serial} at step ${r.failed!.index} (${r.failed!.command}` +
        `${r.failed!.line !== null ? `, ${r.failed!.source} line ${r.failed!.line}` : ""}) after ` +
        `${r.durationMs} ms`;
    const lines = [head, ...r.steps.map(stepLine)];
    if (r.omittedSteps) lines.push(`(${r.omittedSteps} more steps passed, not listed)`);
    if (r.screen) lines.push("Screen at the failure:", r.screen.text);
    return {
      content: r.screenshots.map((s) => ({
        type: "image" as const,
        data: s.data,
        mimeType: s.mimeType,
      })),
      structured: {
        serial,
        flow: name,
        source: flow.source,
        app_id: appId,
        passed: r.passed,
        duration_ms: r.durationMs,
        steps_run: r.stepsRun,
        steps: r.steps.map(stepData),
        omitted_steps: r.omittedSteps,
        failed_step: failed,
        ...(r.screen ? listData(r.screen.list) : {}),
        screenshots: r.screenshots.map((s) => s.name),
      },
      text: lines.join("\n"),
    };
  },
});

/** Actions listed as left out, at most. */
const MAX_SKIPPED_LISTED = 50;

function recordedStep(v: unknown): RecordedStep | null {
  return v && typeof v === "object" && typeof (v as { do?: unknown }).do === "string"
    ? v as RecordedStep
    : null;
}

const exportUiFlow = defineTool({
  name: "export_ui_flow",
  toolset: "ui",
  kind: "R",
  description: "Your UI actions in a debug session as a Maestro flow for run_ui_flow (ids, then " +
    "text; points only as a last resort; password text as ${PASSWORD}). Save it under .maestro/.",
  params: {
    session_id: z.string().max(64).optional().describe("Default: the device's open session"),
    device_serial: serialParam,
    since_seq: z.number().int().min(0).optional().describe("Only actions after this event"),
  },
  async run(args, ctx) {
    if (args.session_id !== undefined && !isDebugSessionId(args.session_id)) {
      throw invalidParams(
        `Invalid session_id ${JSON.stringify(args.session_id.slice(0, 60))}: copy one from ` +
          "list_debug_sessions",
      );
    }
    await ctx.sessions.flush();
    let id = args.session_id;
    if (id === undefined) {
      const serial = await deviceFor(ctx, args.device_serial);
      const open = (await listSessionSummaries(ctx.dataDir))
        .filter((s) => s.serial === serial && s.state === "open")
        .sort((a, b) => a.last_event_at < b.last_event_at ? 1 : -1);
      if (!open.length) {
        throw new ToolError(
          "not_found",
          `No open debug session on ${serial}: install the app with install_apk (or ` +
            "run_run_configuration), act on it with the ui_* tools, then export",
          { serial },
        );
      }
      id = open[0].id;
    }
    const s = await readSession(ctx.dataDir, id);
    if (!s) {
      throw new ToolError("not_found", `No debug session ${id}: call list_debug_sessions`, {
        session_id: id,
      });
    }
    const actions = s.events.filter((e) =>
      e.kind === "agentAction" && e.data.ok === true && e.seq > (args.since_seq ?? 0) &&
      e.data.tool !== "run_ui_flow"
    ).map((e) => ({ tool: String(e.data.tool), step: recordedStep(e.data.flow_step) }));
    if (!actions.some((a) => a.step !== null)) {
      throw new ToolError(
        "not_found",
        `Debug session ${s.id} has no UI actions of an agent to export` +
          `${
            args.since_seq ? ` after event ${args.since_seq}` : ""
          }: act with the ui_* tools first`,
        { session_id: s.id },
      );
    }
    const out = exportFlow(
      s.package,
      actions,
      `Exported by keynobi from debug session ${s.id} (${s.package} on ${s.serial}).\n` +
        "Run it with run_ui_flow; save it under .maestro/ to keep it.",
    );
    // What run_ui_flow accepts: checked here, so an export never hands back a flow it refuses.
    await (await parser())(out.yaml, {
      source: "export",
      env: Object.fromEntries(out.variables.map((v) => [v, "x"])),
    });
    return {
      structured: {
        session_id: s.id,
        package: s.package,
        serial: s.serial,
        steps: out.steps,
        points: out.points,
        variables: out.variables,
        skipped: out.skipped.slice(0, MAX_SKIPPED_LISTED),
        flow: out.yaml,
      },
      text: `${out.steps} steps from ${actions.length} actions` +
        `${
          out.variables.length ? `; pass env ${out.variables.map((v) => `${v}=…`).join(", ")}` : ""
        }` +
        `${out.points ? `; ${out.points} by point (see the comments)` : ""}:\n${out.yaml}`,
    };
  },
});

export const flowTools = [runUiFlow, exportUiFlow];
