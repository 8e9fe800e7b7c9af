/**
 * What the build tools share: the application module a call means, the model of it, task names
 * with a variant, the JDK and SDK a build gets, and how diagnostics and records read for a model.
 */
import { relative } from "node:path";
import { describeJava } from "../android/jdk.ts";
import { findSdk } from "../android/sdk.ts";
import { invalidParams } from "../core/errors.ts";
import { isInside } from "../core/project_paths.ts";
import { readSettings } from "../core/settings.ts";
import { isTrusted, untrustedBuildError } from "../gradle/trust.ts";
import { validateModule } from "../core/validation.ts";
import { type ModuleModel, readAndroidModel } from "../gradle/android_model.ts";
import { readGradleProject } from "../gradle/build_files.ts";
import type { Diagnostic } from "../gradle/build_parser_patterns.ts";
import type { Origin } from "../gradle/build_history.ts";
import { checkGradleTask } from "../gradle/task_policy.ts";
import { validateVariant } from "../gradle/variants.ts";
import { inspectWrapper } from "../gradle/wrapper.ts";
import type { ToolContext } from "./context.ts";
import {
  boundBuildTimeoutMs,
  type BuildRunResult,
  DEFAULT_BUILD_TIMEOUT_SEC,
} from "../gradle/build_protocol.ts";

/** Most tasks one run_gradle_task call may name. */
export const MAX_TASKS_PER_BUILD = 8;
/** How often a build in progress reports (`notifications/progress`). */
export const BUILD_PROGRESS_INTERVAL_MS = 2_000;

/** The project root of a session (the server refuses project tools without one). */
export function projectRoot(ctx: ToolContext): string {
  if (!ctx.project) throw invalidParams("No Android project is open");
  return ctx.project.root;
}

/**
 * The application module a call means: `module` (`:app`, `app`, or a task path like
 * `:app:assembleDebug`), else the project's only application module.
 */
export async function resolveAppModule(
  ctx: ToolContext,
  module: string | undefined,
  param = "module",
): Promise<{ path: string; dir: string; apps: string[] }> {
  const root = projectRoot(ctx);
  const info = await readGradleProject(root);
  const apps = info.application_modules;
  if (module !== undefined) {
    let path = module.trim();
    if (path.startsWith(":") && path.split(":").length > 2) {
      // A task path (`:mobile:assembleDebug`): the module is everything before the last segment.
      path = path.slice(0, path.lastIndexOf(":")) || ":";
    }
    if (path !== ":") validateModule(path.replace(/^:/, "").replaceAll(":", "/"), param);
    if (!path.startsWith(":")) path = `:${path}`;
    const found = info.modules.find((m) => m.path === path);
    if (!found) {
      throw invalidParams(
        `Unknown ${param} ${JSON.stringify(module)}: the project's modules are ${
          info.modules.map((m) => m.path).join(", ") || "none"
        }`,
      );
    }
    return { path: found.path, dir: found.dir, apps };
  }
  if (apps.length === 1) {
    const m = info.modules.find((x) => x.path === apps[0])!;
    return { path: m.path, dir: m.dir, apps };
  }
  throw invalidParams(
    apps.length === 0
      ? `The project has no application module (none applies com.android.application): pass ${param}`
      : `The project has several application modules (${apps.join(", ")}): pass ${param}`,
  );
}

/** Verbs whose task name ends with the variant it builds (`assembleFullDebug`). */
const OUTPUT_VERBS = ["assemble", "bundle", "install", "package"] as const;

/**
 * The variant a task path names (`:app:assembleFullDebug` → `fullDebug`), when its last segment is
 * an output verb followed by exactly one of `variants`; else `null`. Pure.
 */
export function variantOfTask(task: string, variants: readonly string[]): string | null {
  const name = task.slice(task.lastIndexOf(":") + 1);
  for (const verb of OUTPUT_VERBS) {
    if (!name.startsWith(verb) || name.length === verb.length) continue;
    const rest = name.slice(verb.length);
    const v = variants.find((x) => cap(x) === rest);
    if (v !== undefined) return v;
  }
  return null;
}

export async function appModel(ctx: ToolContext, module?: string): Promise<ModuleModel> {
  const m = await resolveAppModule(ctx, module);
  return await readAndroidModel(projectRoot(ctx), m.path);
}

/** Verbs a variant can complete: `assemble` + `demoDebug` → `assembleDemoDebug`. */
const VARIANT_VERBS: Record<string, (v: string) => string> = {
  assemble: (v) => `assemble${cap(v)}`,
  bundle: (v) => `bundle${cap(v)}`,
  install: (v) => `install${cap(v)}`,
  lint: (v) => `lint${cap(v)}`,
  test: (v) => `test${cap(v)}UnitTest`,
  connected: (v) => `connected${cap(v)}AndroidTest`,
  connectedAndroidTest: (v) => `connected${cap(v)}AndroidTest`,
};

const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/**
 * The Gradle tasks a call asks for, each through the task policy. With `variant`, one verb task
 * (`assemble`, `:app:bundle`, `test`, …) is completed with the variant's name.
 */
export async function resolveTasks(
  ctx: ToolContext,
  task: string,
  variant: string | undefined,
): Promise<{ tasks: string[]; variant: string | null; module: string | null }> {
  const settings = await readSettings(ctx.dataDir);
  const allowUnrestricted = settings.mcp?.allow_unrestricted_gradle === true;
  const names = task.trim().split(/\s+/).filter((t) => t !== "");
  if (names.length === 0) throw invalidParams("task is empty: pass a task like assembleDebug");
  if (names.length > MAX_TASKS_PER_BUILD) {
    throw invalidParams(
      `task names ${names.length} tasks; at most ${MAX_TASKS_PER_BUILD} per build`,
    );
  }
  for (const n of names) checkGradleTask(n, { allowUnrestricted });
  if (variant === undefined) {
    const module = names.length === 1 && names[0].startsWith(":")
      ? names[0].slice(0, names[0].lastIndexOf(":")) || null
      : null;
    return { tasks: names, variant: null, module };
  }
  if (names.length !== 1) {
    throw invalidParams("variant completes one task: pass a single task like assemble with it");
  }
  const t = names[0];
  const cut = t.lastIndexOf(":");
  const verb = t.slice(cut + 1);
  const make = VARIANT_VERBS[verb];
  if (!make) {
    throw invalidParams(
      `variant completes a task verb (${Object.keys(VARIANT_VERBS).join(", ")}), and ` +
        `${
          JSON.stringify(t)
        } is not one: pass task: assemble with variant: ${variant}, or a full ` +
        "task name without variant",
    );
  }
  const module = await resolveAppModule(ctx, cut > 0 ? t.slice(0, cut) : undefined, "task");
  const model = await readAndroidModel(projectRoot(ctx), module.path);
  const v = validateVariant(model, variant);
  const full = `${module.path === ":" ? "" : module.path}:${make(v.name)}`;
  checkGradleTask(full, { allowUnrestricted });
  return { tasks: [full], variant: v.name, module: module.path };
}

/** Refuse before anything runs when the user has not trusted the project. */
export async function requireTrusted(ctx: ToolContext): Promise<string> {
  const root = projectRoot(ctx);
  if (!(await isTrusted(ctx.dataDir, root))) throw untrustedBuildError(root);
  return root;
}

/** The build timeout from settings, bounded. */
export async function buildTimeoutMs(ctx: ToolContext): Promise<number> {
  const s = await readSettings(ctx.dataDir);
  return boundBuildTimeoutMs(Number(s.mcp?.build_timeout_sec ?? DEFAULT_BUILD_TIMEOUT_SEC) * 1000);
}

/** The JDK, SDK and wrapper facts a trusted build runs with. */
export async function buildEnvironment(ctx: ToolContext, root: string) {
  const settings = await readSettings(ctx.dataDir);
  const [java, sdk, wrapper] = await Promise.all([
    describeJava({
      env: ctx.env,
      settings,
      projectRoot: root,
      trusted: true,
      versionFromReleaseFile: true,
    }),
    findSdk({ env: ctx.env, settings, projectRoot: root, trusted: true }),
    inspectWrapper(root),
  ]);
  return { java, sdk, wrapper };
}

export function agentOrigin(ctx: ToolContext): Origin {
  return {
    kind: "agent",
    session_id: ctx.request.sessionId,
    client_name: ctx.request.clientName,
    standalone: ctx.session.mode === "standalone",
  };
}

export function modeLine(ctx: ToolContext): string {
  return ctx.session.mode === "standalone"
    ? `[mode: standalone (${ctx.session.standaloneReason ?? "no app"})]`
    : "[mode: attached]";
}

/** A diagnostic as the model reads it: path relative to the project when inside it. */
/**
 * A diagnostic as the tools return it: its file relative to the project when inside it, and
 * `outside_project` when an absolute path lies outside (a dependency's or the SDK's file).
 */
export function presentDiagnostic(root: string, d: Diagnostic) {
  const inside = d.file !== null && isInside(root, d.file);
  const file = d.file && inside ? relative(root, d.file) : d.file;
  const absolute = d.file !== null && /^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(d.file);
  return { ...d, file, ...(absolute && !inside ? { outside_project: true } : {}) };
}

export function diagnosticLine(d: ReturnType<typeof presentDiagnostic>): string {
  const where = d.file
    ? `${d.file}${d.line !== null ? `:${d.line}` : ""}${d.column !== null ? `:${d.column}` : ""} `
    : "";
  const marks = [
    d.generated ? "generated file" : null,
    "outside_project" in d ? "outside the project" : null,
    d.caused_at
      ? `caused at ${d.caused_at}${d.caused_at_file ? ` (${d.caused_at_file})` : ""}`
      : null,
  ].filter((m) => m !== null);
  return `${where}${d.severity}: ${d.message.split("\n")[0]}${d.task ? ` (${d.task})` : ""}` +
    (marks.length > 0 ? ` [${marks.join("; ")}]` : "");
}

/**
 * Run resolved tasks in the build worker with the project's JDK, SDK and timeout, calling `onTick`
 * every BUILD_PROGRESS_INTERVAL_MS with the seconds elapsed and the current task. Shared by the
 * build tools and the run configurations.
 */
export async function runInWorker(
  ctx: ToolContext,
  kind: "gradle_task" | "tests",
  resolved: { tasks: string[]; variant: string | null; module: string | null },
  onTick: (secs: number, currentTask: string | null) => void,
): Promise<BuildRunResult> {
  const root = await requireTrusted(ctx);
  const [env, timeoutMs, project] = await Promise.all([
    buildEnvironment(ctx, root),
    buildTimeoutMs(ctx),
    readGradleProject(root),
  ]);
  const started = performance.now();
  let lastTask: string | null = null;
  const timer = setInterval(
    () => onTick(Math.round((performance.now() - started) / 1000), lastTask),
    BUILD_PROGRESS_INTERVAL_MS,
  );
  try {
    return await ctx.builds.run({
      project: root,
      tasks: resolved.tasks,
      kind,
      variant: resolved.variant,
      module: resolved.module,
      origin: agentOrigin(ctx),
      timeoutMs,
      javaHome: env.java.java_home,
      androidHome: env.sdk.path,
      appModuleDirs: project.modules.filter((m) => m.application).map((m) => m.dir),
      gradleVersion: env.wrapper.gradle_version,
      jdkVersion: env.java.version,
    }, {
      signal: ctx.signal,
      onProgress: (_ms, task) => {
        lastTask = task;
      },
    });
  } finally {
    clearInterval(timer);
  }
}
