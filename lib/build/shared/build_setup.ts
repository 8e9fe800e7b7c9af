/**
 * What a build needs before it starts, worked out on the main thread: the application module a
 * call means and its model, the tasks (each through the task policy, a verb completed with a
 * variant), trust, the JDK, SDK, wrapper and timeout, and the request to the build worker
 * (lib/build/shared/build_client.ts), which checks trust again right before it spawns. A caller reads
 * `settings.json` once per call and hands the same `Settings` to every step.
 */
import { describeJava } from "../../android/jdk.ts";
import { findSdk } from "../../android/sdk.ts";
import type { Env } from "../../core/env.ts";
import { invalidParams } from "../../core/errors.ts";
import type { Settings } from "../../core/settings.ts";
import { validateModule } from "../../core/validation.ts";
import { type ModuleModel, readAndroidModel } from "../../project/android_model.ts";
import { readGradleProject } from "../../project/build_files.ts";
import type { BuildClient } from "./build_client.ts";
import type { Origin } from "./build_record.ts";
import {
  boundBuildTimeoutMs,
  type BuildRunParams,
  type BuildRunResult,
  DEFAULT_BUILD_TIMEOUT_SEC,
} from "./build_protocol.ts";
import { checkGradleTask } from "../../project/task_policy.ts";
import { isTrustedIn, untrustedBuildError } from "../../project/trust.ts";
import { validateVariant } from "../../project/variants.ts";
import { inspectWrapper } from "../../project/wrapper.ts";

/** Most tasks one run_gradle_task call may name. */
export const MAX_TASKS_PER_BUILD = 8;
/** How often a build in progress reports (`notifications/progress`). */
const BUILD_PROGRESS_INTERVAL_MS = 2_000;

/**
 * The application module a call means: `module` (`:app`, `app`, or a task path like
 * `:app:assembleDebug`), else the project's only application module.
 */
async function resolveAppModule(
  root: string,
  module: string | undefined,
  param = "module",
): Promise<{ path: string; dir: string; apps: string[] }> {
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

/** The Android model of the application module a call means. */
export async function appModel(root: string, module?: string): Promise<ModuleModel> {
  const m = await resolveAppModule(root, module);
  return await readAndroidModel(root, m.path);
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

interface ResolvedTasks {
  tasks: string[];
  variant: string | null;
  module: string | null;
}

/**
 * The Gradle tasks a call asks for, each through the task policy (`mcp.allow_unrestricted_gradle`
 * of `settings`). With `variant`, one verb task (`assemble`, `:app:bundle`, `test`, …) is
 * completed with the variant's name.
 */
export async function resolveTasks(
  root: string,
  settings: Settings,
  task: string,
  variant: string | undefined,
): Promise<ResolvedTasks> {
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
  const module = await resolveAppModule(root, cut > 0 ? t.slice(0, cut) : undefined, "task");
  const model = await readAndroidModel(root, module.path);
  const v = validateVariant(model, variant);
  const full = `${module.path === ":" ? "" : module.path}:${make(v.name)}`;
  checkGradleTask(full, { allowUnrestricted });
  return { tasks: [full], variant: v.name, module: module.path };
}

/** Refuse before anything runs when the user has not trusted the project. */
export async function requireTrusted(root: string, settings: Settings): Promise<string> {
  if (!(await isTrustedIn(settings, root))) throw untrustedBuildError(root);
  return root;
}

/** The build timeout from settings (`mcp.build_timeout_sec`), bounded. */
export function buildTimeoutMs(settings: Settings): number {
  return boundBuildTimeoutMs(
    Number(settings.mcp?.build_timeout_sec ?? DEFAULT_BUILD_TIMEOUT_SEC) * 1000,
  );
}

/** The JDK, SDK and wrapper facts a trusted build runs with. */
async function buildEnvironment(env: Env, settings: Settings, root: string) {
  const [java, sdk, wrapper] = await Promise.all([
    describeJava({ env, settings, projectRoot: root, trusted: true, versionFromReleaseFile: true }),
    findSdk({ env, settings, projectRoot: root, trusted: true }),
    inspectWrapper(root),
  ]);
  return { java, sdk, wrapper };
}

/** A build to run: where, with which settings (read once by the caller), for whom. */
export interface BuildCall {
  root: string;
  settings: Settings;
  env: Env;
  builds: Pick<BuildClient, "run">;
  origin: Origin;
  signal: AbortSignal;
}

/**
 * Run resolved tasks in the build worker with the project's JDK, SDK and timeout, calling `onTick`
 * every BUILD_PROGRESS_INTERVAL_MS with the seconds elapsed and the current task. Refuses an
 * untrusted project before anything runs.
 */
export async function runInBuildWorker(
  call: BuildCall,
  kind: BuildRunParams["kind"],
  resolved: ResolvedTasks,
  onTick: (secs: number, currentTask: string | null) => void,
): Promise<BuildRunResult> {
  const root = await requireTrusted(call.root, call.settings);
  const [env, project] = await Promise.all([
    buildEnvironment(call.env, call.settings, root),
    readGradleProject(root),
  ]);
  const started = performance.now();
  let lastTask: string | null = null;
  const timer = setInterval(
    () => onTick(Math.round((performance.now() - started) / 1000), lastTask),
    BUILD_PROGRESS_INTERVAL_MS,
  );
  try {
    return await call.builds.run({
      project: root,
      tasks: resolved.tasks,
      kind,
      variant: resolved.variant,
      module: resolved.module,
      origin: call.origin,
      timeoutMs: buildTimeoutMs(call.settings),
      javaHome: env.java.java_home,
      androidHome: env.sdk.path,
      appModuleDirs: project.modules.filter((m) => m.application).map((m) => m.dir),
      gradleVersion: env.wrapper.gradle_version,
      jdkVersion: env.java.version,
    }, {
      signal: call.signal,
      onProgress: (_ms, task) => {
        lastTask = task;
      },
    });
  } finally {
    clearInterval(timer);
  }
}
