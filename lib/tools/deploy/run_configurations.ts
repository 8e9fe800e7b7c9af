/**
 * The run-configuration tools (`list_run_configurations`, `build_run_configuration`,
 * `run_run_configuration`): adapters over lib/project/run_configs.ts + run_plan.ts and lib/deploy
 * (install, install records, launch). Builds go through the same path as `run_gradle_task`
 * (trust, task policy, build slot, timeout, progress, cancellation, the agent as origin).
 */
import { projectLinkSchemes } from "../../project/link_schemes.ts";
import { z } from "zod";
import { AVD_TOOL_TIMEOUT_MS } from "../devices/avds.ts";
import type { AdbDevice } from "../../adb/client.ts";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { isTrusted } from "../../project/trust.ts";
import { runningAvds } from "../../android/emulator_launch.ts";
import { readAndroidModel } from "../../project/android_model.ts";
import { findApk } from "../../project/apk_outputs.ts";
import { readGradleProject } from "../../project/build_files.ts";
import { listBuildRecords, MAX_BUILD_RECORDS } from "../../build/shared/build_history.ts";
import { type BuildRecord } from "../../build/shared/build_record.ts";
import { sha256File } from "../../build/shared/built_apks.ts";
import {
  type AppModuleVariants,
  type ListedConfiguration,
  loadRunConfigs,
  loadSharedConfigs,
  mergeConfigs,
  recordLastDevice,
} from "../../project/run_configs.ts";
import {
  type CannotRun,
  type PlanFacts,
  resolveBuild,
  resolvePlan,
} from "../../project/run_plan.ts";
import { listVariants } from "../../project/variants.ts";
import type { ToolOutput } from "../../mcp/tool_def.ts";
import { defineTool } from "../define_tool.ts";
import { type AppModuleDir, openCheckedApk } from "../../deploy/apk_file.ts";
import {
  apkManifestOf,
  type DeployDeps,
  installAndRecord,
  launchInstalled,
} from "../../deploy/deploy.ts";
import { matchBuildRecord, recordedLine } from "../../sessions/installed_builds.ts";
import { logReferenceTime, readDisplayed } from "../../android/launch.ts";
import { requireTrusted, resolveTasks, runInBuildWorker } from "../../build/shared/build_setup.ts";
import { readSettings, type Settings } from "../../core/settings.ts";
import { agentOrigin, buildCall, projectRoot, type ToolContext } from "../context.ts";
import { launchOp } from "../../sessions/session_events.ts";
import { callOpts } from "../device_args.ts";
import { serialFilterParam } from "../params.ts";

/** Longest configuration name accepted as a parameter. */
const MAX_CONFIG_NAME_PARAM = 200;

const configNameParam = z.string().max(MAX_CONFIG_NAME_PARAM).describe(
  "From list_run_configurations",
);

export function deployDeps(ctx: ToolContext): DeployDeps {
  return {
    adb: ctx.adb,
    dataDir: ctx.dataDir,
    origin: agentOrigin(ctx),
    recordedBy: ctx.session.mode,
    sessions: ctx.sessions,
  };
}

export async function appModuleDirs(root: string): Promise<AppModuleDir[]> {
  const info = await readGradleProject(root);
  return info.modules.filter((m) => m.application).map((m) => ({ path: m.path, dir: m.dir }));
}

async function appModuleVariants(root: string): Promise<AppModuleVariants[]> {
  const out: AppModuleVariants[] = [];
  for (const m of await appModuleDirs(root)) {
    const model = await readAndroidModel(root, m.path).catch(() => null);
    out.push({ module: m.path, variants: model ? listVariants(model) : [] });
  }
  return out;
}

/** A monotonically growing progress counter (the server requires progress to grow). */
function progressOf(ctx: ToolContext) {
  let n = 0;
  return (message: string) => ctx.request.progress(++n, undefined, message);
}

// ── install_apk ─────────────────────────────────────────────────────────────────────────────

// ── Run configurations ─────────────────────────────────────────────────────────────────────

interface Loaded {
  root: string;
  configurations: ListedConfiguration[];
  problems: string[];
  facts: PlanFacts;
  devices: AdbDevice[];
  sharedSha: string | null;
}

async function loadAll(ctx: ToolContext, needDevices: boolean): Promise<Loaded> {
  const root = projectRoot(ctx);
  let variants: AppModuleVariants[] | null = null;
  const modules = async () => variants ??= await appModuleVariants(root);
  const info = await readGradleProject(root);
  const stored = await loadRunConfigs(ctx.dataDir, root, modules, info.name || "app");
  const shared = await loadSharedConfigs(ctx.dataDir, root);
  const merged = mergeConfigs(stored, shared);
  let devices: AdbDevice[] = [];
  let avdNames = new Map<string, string>();
  if (needDevices) {
    devices = await ctx.adb.listDevices(callOpts(ctx, AVD_TOOL_TIMEOUT_MS));
    if (merged.configurations.some((c) => c.target.kind === "avd")) {
      avdNames = await runningAvds(ctx.adb, devices, callOpts(ctx));
    }
  }
  return {
    root,
    configurations: merged.configurations,
    problems: merged.problems,
    devices,
    sharedSha: shared.sha256,
    facts: {
      trusted: await isTrusted(ctx.dataDir, root),
      sharedApproved: shared.approved,
      modules: await modules(),
      devices: devices.map((d) => ({ serial: d.serial, state: d.state, model: d.model ?? null })),
      avdNames,
    },
  };
}

function findConfig(l: Loaded, name: string): ListedConfiguration {
  const c = l.configurations.find((x) => x.name === name);
  if (c) return c;
  throw invalidParams(
    `Unknown run configuration ${JSON.stringify(name)}: the project's are ${
      l.configurations.map((x) => JSON.stringify(x.name)).join(", ") || "none"
    }; call list_run_configurations`,
  );
}

/** A reason a configuration cannot run, as the error the spec asks for. */
function cannotRunError(c: ListedConfiguration, why: CannotRun): ToolError {
  const message = `Cannot run ${c.name}: ${why.reason}${why.hint ? `; ${why.hint}` : ""}`;
  const data = { configuration: c.name, cannot_run: why.reason, kind: why.kind };
  if (why.kind === "untrusted" || why.kind === "choose_device") return invalidParams(message, data);
  if (why.kind === "no_device" || why.kind === "avd_not_running") {
    return new ToolError("device_not_found", message, data);
  }
  return new ToolError("invalid_request", message, data);
}

const taskOf = (c: ListedConfiguration, facts: PlanFacts) => {
  const b = resolveBuild(c, { ...facts, trusted: true, sharedApproved: true });
  return b.ok ? b.task : c.task;
};

const listRunConfigurations = defineTool({
  name: "list_run_configurations",
  toolset: "core",
  kind: "R",
  description:
    "The project's run configurations (by default one per app module and debug variant), " +
    "each with what it would do now or why it cannot run.",
  params: {},
  needsProject: true,
  async run(_args, ctx) {
    const l = await loadAll(ctx, true);
    const entries = l.configurations.map((c) => {
      const plan = resolvePlan(c, l.facts);
      return {
        name: c.name,
        module: c.module,
        variant: c.variant,
        task: taskOf(c, l.facts),
        launch: c.launch,
        target: c.target,
        last_device: c.last_device,
        logcat_filter: c.logcat_filter,
        shared: c.shared,
        active: c.active,
        ...(plan.ok
          ? { plan: plan.summary, device: plan.device }
          : { cannot_run: plan.reason, ...(plan.hint ? { hint: plan.hint } : {}) }),
      };
    });
    const structured = {
      count: entries.length,
      active: l.configurations.find((c) => c.active)?.name ?? null,
      configurations: entries,
      trusted: l.facts.trusted,
      shared_file_sha256: l.sharedSha,
      shared_approved: l.facts.sharedApproved,
      problems: l.problems,
    };
    const lines = entries.length === 0
      ? ["No run configurations: the project has no application module"]
      : entries.map((e) =>
        `${e.active ? "*" : " "} ${e.name}${e.shared ? " [shared]" : ""}: ${
          "plan" in e ? e.plan : `cannot run: ${e.cannot_run}${e.hint ? ` (${e.hint})` : ""}`
        }`
      );
    for (const p of l.problems) lines.push(`Note: ${p}`);
    return { structured, text: lines.join("\n") };
  },
});

interface ConfigBuild {
  record: BuildRecord;
  tail: string[];
}

/** The configuration's task through run_gradle_task's path. */
async function buildConfig(
  ctx: ToolContext,
  settings: Settings,
  c: ListedConfiguration,
  task: string,
  variant: string,
  phase: (m: string) => void,
): Promise<ConfigBuild> {
  const resolved = await resolveTasks(projectRoot(ctx), settings, task, undefined);
  return await runInBuildWorker(
    buildCall(ctx, settings),
    "gradle_task",
    { tasks: resolved.tasks, variant, module: c.module },
    (secs, t) => phase(`building ${c.name}: ${secs} s${t ? ` — > Task ${t}` : ""}`),
  );
}

function buildText(r: BuildRecord, tail: string[]): string {
  const lines = [`${r.summary} (build #${r.id})`];
  if (r.status === "failed" && tail.length) {
    lines.push("Last lines of output:", ...tail.slice(-12).map((l) => `  ${l}`));
    lines.push("Next: get_build_errors for every diagnostic, get_build_log for the output.");
  }
  return lines.join("\n");
}

/** The APK the build wrote for the module and variant, else the current one with a note. */
async function pickApk(
  ctx: ToolContext,
  root: string,
  c: ListedConfiguration,
  variant: string,
  record: BuildRecord,
): Promise<{ path: string; written_by_this_build: boolean; note: string | null }> {
  const own = record.apks.find((a) => a.module === c.module && a.variant === variant);
  if (own) return { path: own.path, written_by_this_build: true, note: null };
  const model = await readAndroidModel(root, c.module);
  const found = await findApk(root, { model, variant, module: c.module });
  if (!found.found) {
    throw new ToolError(
      "not_found",
      `Build #${record.id} succeeded but no APK of ${c.module} ${variant} was found: ${found.reason}`,
      { build_id: record.id },
    );
  }
  const hash = await sha256File(found.absolute_path).catch(() => null);
  const history = await listBuildRecords(ctx.dataDir, { project: root, limit: MAX_BUILD_RECORDS });
  const match = hash ? matchBuildRecord(history, hash, root) : null;
  return {
    path: found.path,
    written_by_this_build: false,
    note: match
      ? `Gradle found it up to date: the APK was written by build #${match.record.id}`
      : "Gradle found it up to date: no recorded build lists this APK",
  };
}

const buildRunConfiguration = defineTool({
  name: "build_run_configuration",
  toolset: "core",
  kind: "O",
  description:
    "Build a run configuration's task (trust, task policy, progress, cancellation) and " +
    "return its APK. Never installs or launches.",
  params: {
    name: configNameParam,
  },
  needsProject: true,
  async run(args, ctx) {
    const settings = await readSettings(ctx.dataDir);
    const root = await requireTrusted(projectRoot(ctx), settings);
    const l = await loadAll(ctx, false);
    const c = findConfig(l, args.name);
    const b = resolveBuild(c, l.facts);
    if (!b.ok) throw cannotRunError(c, b);
    const phase = progressOf(ctx);
    phase(`building ${c.name}: ${b.task}`);
    const built = await buildConfig(ctx, settings, c, b.task, b.variant.name, phase);
    const r = built.record;
    const base = {
      configuration: c.name,
      module: c.module,
      variant: b.variant.name,
      task: b.task,
      build_id: r.id,
      result: buildText(r, built.tail),
    };
    if (r.status !== "success") {
      throw new ToolError(
        r.status === "cancelled" ? "cancelled" : "build_failed",
        base.result,
        { ...base, status: r.status },
      );
    }
    const apk = await pickApk(ctx, root, c, b.variant.name, r);
    const structured = {
      ...base,
      apk_path: apk.path,
      apk_written_by_this_build: apk.written_by_this_build,
      ...(apk.note ? { apk_note: apk.note } : {}),
    };
    return {
      structured,
      text: [base.result, `APK: ${apk.path}`, ...(apk.note ? [apk.note] : [])].join("\n"),
    };
  },
});

const runRunConfiguration = defineTool({
  name: "run_run_configuration",
  toolset: "device-admin",
  kind: "O",
  description:
    "Build, install and launch a run configuration on its device; returns the launch time. " +
    "Never starts an emulator. Progress per phase; cancelling stops the build only.",
  params: {
    name: configNameParam,
    device_serial: serialFilterParam("Device for a lastUsed/ask configuration"),
  },
  needsProject: true,
  // deno-lint-ignore house/long-function -- build, install, launch in order, each answering so far
  async run(args, ctx): Promise<ToolOutput> {
    const settings = await readSettings(ctx.dataDir);
    const root = await requireTrusted(projectRoot(ctx), settings);
    const requested = args.device_serial;
    const l = await loadAll(ctx, true);
    const c = findConfig(l, args.name);
    const plan = resolvePlan(c, l.facts, { requested });
    if (!plan.ok) throw cannotRunError(c, plan);
    // The task policy refuses before anything runs.
    await resolveTasks(root, settings, plan.task, undefined);
    const device = plan.device!;
    const phase = progressOf(ctx);
    const head = { configuration: c.name, plan: plan.summary, task: plan.task };
    phase(`building ${c.name}: ${plan.task}`);
    const built = await buildConfig(ctx, settings, c, plan.task, plan.variant, phase);
    const r = built.record;
    const buildResult = buildText(r, built.tail);
    if (r.status !== "success") {
      const outcome = r.status === "cancelled" ? "cancelled" : "build_failed";
      phase(outcome === "cancelled" ? "cancelled" : "failed");
      throw new ToolError(outcome === "cancelled" ? "cancelled" : "build_failed", buildResult, {
        ...head,
        outcome,
        result: `${c.name}: ${outcome === "cancelled" ? "build cancelled" : "build failed"}`,
        build_result: buildResult,
        build_id: r.id,
      });
    }
    const pick = await pickApk(ctx, root, c, plan.variant, r);
    const apk = await openCheckedApk(root, pick.path, await appModuleDirs(root));
    let manifest;
    let installed;
    try {
      manifest = await apkManifestOf(apk);
      phase(`installing ${manifest.package} on ${device.serial}`);
      // Once built, the install and launch run to their end (the request's cancellation stops
      // only the build), so the device is never left with a half-sent APK.
      installed = await installAndRecord(deployDeps(ctx), device.serial, apk, root, { manifest });
    } catch (e) {
      phase("failed");
      throw e;
    } finally {
      await apk.file.close();
    }
    await recordLastDevice(ctx.dataDir, root, c.name, device.serial);
    phase(`launching ${manifest.package}`);
    const opts = callOpts(ctx);
    const since = await logReferenceTime(ctx.adb, device.serial, opts).catch(() => null);
    let launch;
    try {
      const schemes = c.launch.kind === "deep_link" ? await projectLinkSchemes(root) : [];
      launch = await launchInstalled(ctx.adb, device.serial, manifest, c.launch, schemes);
    } catch (e) {
      phase("failed");
      throw e;
    }
    const rep = launch?.report ?? null;
    // The `Displayed` line logcat prints for exactly this package (null when the device logs none).
    const displayed = rep && c.launch.kind !== "deep_link"
      ? await readDisplayed(ctx.adb, device.serial, manifest.package, since, opts).catch(() => null)
      : null;
    phase("done");
    if (rep && launch && c.launch.kind !== "deep_link") {
      ctx.sessions.record(launchOp(device.serial, manifest.package, {
        total_ms: rep.total_ms,
        wait_ms: rep.wait_ms,
        launch_state: rep.launch_state,
        displayed_ms: displayed?.displayed_ms ?? null,
        fully_drawn_ms: displayed?.fully_drawn_ms ?? null,
        component: launch.component,
      }, agentOrigin(ctx)));
    }
    const timing = rep && c.launch.kind !== "deep_link"
      ? {
        total_ms: rep.total_ms,
        wait_ms: rep.wait_ms,
        launch_state: rep.launch_state,
        displayed_ms: displayed?.displayed_ms ?? null,
        fully_drawn_ms: displayed?.fully_drawn_ms ?? null,
      }
      : null;
    const structured = {
      ...head,
      outcome: "done",
      result: `${c.name}: built, installed on ${device.serial}${
        launch ? ` and launched ${launch.component}` : ""
      }`,
      build_result: buildResult,
      build_id: r.id,
      device,
      package: manifest.package,
      apk_path: apk.relative,
      apk_sha256: installed.sha256,
      apk_written_by_this_build: pick.written_by_this_build,
      ...(pick.note ? { apk_note: pick.note } : {}),
      launch: c.launch,
      launch_output: launch?.output ?? null,
      launch_timing: timing,
      logcat_filter: c.logcat_filter ?? "package:mine",
    };
    const lines = [
      structured.result,
      buildResult,
      `APK ${apk.relative}${pick.note ? ` (${pick.note})` : ""}`,
      timing && timing.total_ms !== null
        ? `Launch time: ${timing.total_ms} ms${
          timing.launch_state ? ` (${timing.launch_state.toLowerCase()})` : ""
        }${timing.wait_ms !== null ? `, wait ${timing.wait_ms} ms` : ""}`
        : launch
        ? "Launch time: not reported"
        : "Not launched (launch: none)",
      recordedLine(installed.record),
    ];
    return { structured, text: lines.join("\n") };
  },
});

export const runConfigurationTools = [
  listRunConfigurations,
  buildRunConfiguration,
  runRunConfiguration,
];
