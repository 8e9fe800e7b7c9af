/**
 * The sample projects' task graph as Gradle with AGP 8 prints it, and Gradle's task selection:
 * paths (`:app:x`, `app:x`, `x` in every project), camel-case abbreviations with Gradle's
 * `NameMatcher` rules, and its exact "not found" / "is ambiguous" messages. Pure.
 *
 * Abbreviations match by prefix, as in Gradle: `aDD` matches `assembleDemoDebug` and also
 * `assembleDemoDebugAndroidTest` and `assembleDemoDebugUnitTest`, so real Gradle (and this fake)
 * reports it ambiguous (and `bDD` also matches `buildDemoDebugPreBundle`); `bunDD` or `tDDUT` name
 * one task.
 */
import { type ModuleModel, type ProjectModel, type Variant, variantsOf } from "./manifest.ts";

export type TaskState = "UP-TO-DATE" | "NO-SOURCE" | "SKIPPED";

/** What a task does besides printing its header (the runner performs it). */
export type TaskEffect =
  | "compile_kotlin"
  | "compile_java"
  | "process_resources"
  | "lint"
  | "minify"
  | "package_apk"
  | "package_bundle"
  | "unit_test"
  | "connected_test"
  | "install"
  | "clean";

export interface PlannedTask {
  /** `:app:assembleDemoDebug` */
  path: string;
  name: string;
  module: ModuleModel | null;
  variant: Variant | null;
  /** Fixed outcome printed after the header; undefined = executed. */
  state?: TaskState;
  /** A lifecycle task has no actions: never counted as actionable. */
  lifecycle?: boolean;
  effect?: TaskEffect;
}

type Spec = Omit<PlannedTask, "path" | "module" | "variant">;

const t = (name: string, extra: Partial<Spec> = {}): Spec => ({ name, ...extra });
const UTD = "UP-TO-DATE" as const;

/** preBuild … compileJavaWithJavac for one variant. */
function compileChain(m: ModuleModel, v: Variant): Spec[] {
  const V = v.cap;
  return [
    t("preBuild", { state: UTD, lifecycle: true }),
    t(`pre${V}Build`, { state: UTD, lifecycle: true }),
    ...(m.kotlin ? [t("checkKotlinGradlePluginConfigurationErrors", { state: "SKIPPED" })] : []),
    t(`generate${V}BuildConfig`),
    t(`check${V}AarMetadata`),
    t(`generate${V}ResValues`),
    t(`map${V}SourceSetPaths`),
    t(`generate${V}Resources`, { state: UTD, lifecycle: true }),
    t(`merge${V}Resources`),
    t(`package${V}Resources`),
    t(`parse${V}LocalResources`),
    t(`create${V}CompatibleScreenManifests`),
    t(`extractDeepLinks${V}`),
    t(`process${V}MainManifest`),
    t(`process${V}Manifest`),
    t(`process${V}ManifestForPackage`),
    t(`process${V}Resources`, { effect: "process_resources" }),
    ...(m.kotlin ? [t(`compile${V}Kotlin`, { effect: "compile_kotlin" })] : []),
    t(`javaPreCompile${V}`),
    t(`compile${V}JavaWithJavac`, { effect: "compile_java" }),
  ];
}

function dexChain(v: Variant): Spec[] {
  const V = v.cap;
  const shrink = v.buildType.minify === true;
  return [
    t(`merge${V}Shaders`),
    t(`compile${V}Shaders`, { state: "NO-SOURCE" }),
    t(`generate${V}Assets`, { state: UTD, lifecycle: true }),
    t(`merge${V}Assets`),
    t(`compress${V}Assets`),
    t(`check${V}DuplicateClasses`),
    t(`desugar${V}FileDependencies`),
    ...(shrink ? [t(`minify${V}WithR8`, { effect: "minify" })] : [
      t(`dexBuilder${V}`),
      t(`mergeExtDex${V}`),
      t(`mergeDex${V}`),
    ]),
    t(`merge${V}JniLibFolders`),
    t(`merge${V}NativeLibs`, { state: "NO-SOURCE" }),
    t(`strip${V}DebugSymbols`, { state: "NO-SOURCE" }),
  ];
}

function lintVital(v: Variant): Spec[] {
  if (v.buildType.name !== "release") return [];
  const V = v.cap;
  return [
    t(`generate${V}LintVitalReportModel`),
    t(`lintVitalAnalyze${V}`),
    t(`lintVitalReport${V}`),
    t(`lintVital${V}`, { effect: "lint" }),
  ];
}

function assembleChain(m: ModuleModel, v: Variant): Spec[] {
  const V = v.cap;
  return [
    ...compileChain(m, v),
    ...dexChain(v),
    t(`validateSigning${V}`),
    t(`write${V}AppMetadata`),
    t(`write${V}SigningConfigVersions`),
    ...lintVital(v),
    t(`package${V}`, { effect: "package_apk" }),
    t(`create${V}ApkListingFileRedirect`),
    t(`assemble${V}`, { lifecycle: true }),
  ];
}

function bundleChain(m: ModuleModel, v: Variant): Spec[] {
  const V = v.cap;
  return [
    ...compileChain(m, v),
    ...dexChain(v),
    ...lintVital(v),
    t(`build${V}PreBundle`),
    t(`package${V}Bundle`),
    t(`sign${V}Bundle`, { effect: "package_bundle" }),
    t(`produce${V}BundleIdeListingFile`),
    t(`create${V}BundleListingFileRedirect`),
    t(`bundle${V}`, { lifecycle: true }),
  ];
}

function unitTestChain(m: ModuleModel, v: Variant, hasTests: boolean): Spec[] {
  const V = v.cap;
  const src = hasTests ? {} : { state: "NO-SOURCE" as const };
  return [
    ...compileChain(m, v),
    t(`pre${V}UnitTestBuild`, { state: UTD, lifecycle: true }),
    t(`process${V}UnitTestJavaRes`, { state: "NO-SOURCE" }),
    ...(m.kotlin ? [t(`compile${V}UnitTestKotlin`, src)] : []),
    t(`compile${V}UnitTestJavaWithJavac`, m.kotlin ? { state: "NO-SOURCE" } : src),
    t(`test${V}UnitTest`, hasTests ? { effect: "unit_test" } : src),
  ];
}

function androidTestChain(m: ModuleModel, v: Variant, hasTests: boolean): Spec[] {
  const V = v.cap;
  return [
    ...assembleChain(m, v),
    t(`pre${V}AndroidTestBuild`, { state: UTD, lifecycle: true }),
    t(`process${V}AndroidTestResources`),
    ...(m.kotlin ? [t(`compile${V}AndroidTestKotlin`)] : []),
    t(`compile${V}AndroidTestJavaWithJavac`, m.kotlin ? { state: "NO-SOURCE" } : {}),
    t(`dexBuilder${V}AndroidTest`),
    t(`package${V}AndroidTest`),
    t(`assemble${V}AndroidTest`, { lifecycle: true }),
    t(`connected${V}AndroidTest`, hasTests ? { effect: "connected_test" } : { state: "NO-SOURCE" }),
  ];
}

function lintChain(m: ModuleModel, v: Variant): Spec[] {
  const V = v.cap;
  return [
    ...compileChain(m, v),
    t(`generate${V}LintReportModel`),
    t(`lintAnalyze${V}`),
    t(`lintReport${V}`),
    t(`lint${V}`, { effect: "lint" }),
  ];
}

/** The chains that define a module's tasks, each ending in its goal task. */
function chainsOf(p: ProjectModel, m: ModuleModel): Spec[][] {
  const out: Spec[][] = [];
  const hasUnit = p.anchors.unit_test !== undefined;
  const hasAndroid = p.anchors.android_test !== undefined;
  for (const v of variantsOf(m)) {
    out.push(assembleChain(m, v), bundleChain(m, v), unitTestChain(m, v, hasUnit), lintChain(m, v));
    out.push([...assembleChain(m, v), t(`install${v.cap}`, { effect: "install" })]);
    out.push([t(`uninstall${v.cap}`)]);
    out.push([...unitTestChain(m, v, hasUnit).slice(0, -1), t(`assemble${v.cap}UnitTest`)]);
    if (v.buildType.name === "debug") out.push(androidTestChain(m, v, hasAndroid));
  }
  return out;
}

/** Aggregate tasks: name → the variant goal tasks they run, in order. */
function aggregatesOf(m: ModuleModel): Map<string, string[]> {
  const vs = variantsOf(m);
  const agg = new Map<string, string[]>();
  const add = (name: string, goals: string[]) =>
    agg.set(name, [...(agg.get(name) ?? []), ...goals]);
  add("assemble", vs.map((v) => `assemble${v.cap}`));
  add("bundle", vs.map((v) => `bundle${v.cap}`));
  add("test", vs.map((v) => `test${v.cap}UnitTest`));
  add(
    "lint",
    vs.filter((v) => v.buildType.name === "debug").slice(0, 1).map((v) => `lint${v.cap}`),
  );
  add(
    "connectedAndroidTest",
    vs.filter((v) => v.buildType.name === "debug").map((v) => `connected${v.cap}AndroidTest`),
  );
  add("connectedCheck", agg.get("connectedAndroidTest")!);
  add("check", [...agg.get("lint")!, ...agg.get("test")!]);
  add("build", [...agg.get("assemble")!, ...agg.get("check")!]);
  add("uninstallAll", vs.map((v) => `uninstall${v.cap}`));
  for (const bt of m.build_types) {
    const C = bt.name.charAt(0).toUpperCase() + bt.name.slice(1);
    const of = vs.filter((v) => v.buildType.name === bt.name);
    if (m.flavors.length) {
      add(`assemble${C}`, of.map((v) => `assemble${v.cap}`));
      add(`bundle${C}`, of.map((v) => `bundle${v.cap}`));
    }
  }
  for (const f of m.flavors) {
    const C = f.name.charAt(0).toUpperCase() + f.name.slice(1);
    add(`assemble${C}`, vs.filter((v) => v.flavor === f.name).map((v) => `assemble${v.cap}`));
  }
  return agg;
}

/** Tasks every project has (Gradle's help tasks); the root project has only these. */
export const HELP_TASKS = [
  "buildEnvironment",
  "dependencies",
  "help",
  "init",
  "javaToolchains",
  "outgoingVariants",
  "projects",
  "properties",
  "tasks",
  "wrapper",
] as const;

export interface ModuleTasks {
  module: ModuleModel;
  /** Every task name, with the ordered plan that runs it. */
  plans: Map<string, Spec[]>;
}

function variantOfTask(m: ModuleModel, name: string): Variant | null {
  let best: Variant | null = null;
  for (const v of variantsOf(m)) {
    if (name.includes(v.cap) && (!best || v.cap.length > best.cap.length)) best = v;
  }
  return best;
}

/** Each task name of a module and the plan (its dependencies, then itself) that runs it. */
export function moduleTasks(p: ProjectModel, m: ModuleModel): ModuleTasks {
  const plans = new Map<string, Spec[]>();
  for (const chain of chainsOf(p, m)) {
    chain.forEach((s, i) => {
      if (!plans.has(s.name)) plans.set(s.name, chain.slice(0, i + 1));
    });
  }
  for (const [name, goals] of aggregatesOf(m)) {
    const plan: Spec[] = [];
    for (const g of goals) plan.push(...(plans.get(g) ?? []));
    plan.push(t(name, { lifecycle: true, state: goals.length ? undefined : UTD }));
    plans.set(name, plan);
  }
  plans.set("clean", [t("clean", { effect: "clean" })]);
  for (const h of HELP_TASKS) if (!plans.has(h)) plans.set(h, [t(h)]);
  return { module: m, plans };
}

/** Expands specs into planned tasks of a module, keeping the first of duplicates. */
function plan(mt: ModuleTasks, name: string): PlannedTask[] {
  const specs = mt.plans.get(name) ?? [];
  return specs.map((s) => ({
    ...s,
    path: `${mt.module.path}:${s.name}`,
    module: mt.module,
    variant: variantOfTask(mt.module, s.name),
  }));
}

// --- Gradle's NameMatcher -------------------------------------------------------------------

function quote(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Gradle's camel-case pattern for an abbreviation: each hump may be followed by lower case. */
export function camelPattern(name: string, flags = ""): RegExp {
  const boundary = /((^|[\p{P}\p{S}])\p{Ll}+)|(\p{Lu}\p{Ll}*)/gu;
  let pos = 0;
  let src = "^";
  for (const m of name.matchAll(boundary)) {
    const prefix = name.slice(pos, m.index);
    if (prefix) src += quote(prefix);
    src += quote(m[0]) + "[\\p{Ll}\\p{Nd}]*";
    pos = m.index! + m[0].length;
  }
  src += quote(name.slice(pos));
  return new RegExp(src, "u" + flags);
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

export type MatchResult =
  | { kind: "found"; name: string }
  | { kind: "ambiguous"; candidates: string[] }
  | { kind: "missing"; candidates: string[] };

/** Gradle's `NameMatcher.find`: exact, case-insensitive, camel-case prefix, then close names. */
export function matchName(pattern: string, items: Iterable<string>): MatchResult {
  const all = [...new Set(items)].sort();
  if (all.includes(pattern)) return { kind: "found", name: pattern };
  const upper = pattern.toUpperCase();
  const camel = camelPattern(pattern);
  const camelI = camelPattern(pattern, "i");
  const ci = all.filter((c) => c.toUpperCase() === upper);
  const cs = all.filter((c) => camel.test(c));
  const csi = all.filter((c) => camelI.test(c));
  const found = ci.length ? ci : cs.length ? cs : csi;
  if (found.length === 1) return { kind: "found", name: found[0] };
  if (found.length > 1) return { kind: "ambiguous", candidates: found };
  const limit = Math.min(3, Math.floor(pattern.length / 2));
  return {
    kind: "missing",
    candidates: all.filter((c) => levenshtein(upper, c.toUpperCase()) <= limit),
  };
}

// --- task selection ---------------------------------------------------------------------------

export interface SelectionError {
  /** The `What went wrong` text. */
  message: string;
  /** `tasks` or `projects`: which list the first `* Try:` line offers. */
  list: "tasks" | "projects";
  kind: "missing" | "ambiguous";
}

export type Selection = { ok: true; tasks: PlannedTask[] } | { ok: false; error: SelectionError };

function candidates(c: string[]): string {
  return c.map((x) => `'${x}'`).join(", ");
}

/** Resolves command-line task requests to the ordered, de-duplicated tasks Gradle would run. */
export function selectTasks(p: ProjectModel, requests: string[]): Selection {
  const mods = p.modules.map((m) => moduleTasks(p, m));
  const rootName = `root project '${p.root_project}'`;
  const out: PlannedTask[] = [];
  const seen = new Set<string>();
  const push = (ts: PlannedTask[]) => {
    for (const x of ts) if (!seen.has(x.path)) (seen.add(x.path), out.push(x));
  };
  const rootTask = (name: string): PlannedTask => ({
    name,
    path: `:${name}`,
    module: null,
    variant: null,
  });
  for (const req of requests) {
    if (!req.includes(":")) {
      const names = new Set<string>(HELP_TASKS);
      for (const mt of mods) for (const n of mt.plans.keys()) names.add(n);
      const r = matchName(req, names);
      if (r.kind !== "found") {
        const what = r.kind === "ambiguous"
          ? `Task '${req}' is ambiguous in ${rootName} and its subprojects. Candidates are: ${
            candidates(r.candidates)
          }.`
          : `Task '${req}' not found in ${rootName} and its subprojects.` +
            (r.candidates.length ? ` Some candidates are: ${candidates(r.candidates)}.` : "");
        return { ok: false, error: { message: what, list: "tasks", kind: r.kind } };
      }
      // Help tasks run in the root project only; other names run in every project having them.
      if ((HELP_TASKS as readonly string[]).includes(r.name)) push([rootTask(r.name)]);
      else for (const mt of mods) if (mt.plans.has(r.name)) push(plan(mt, r.name));
      continue;
    }
    const parts = req.split(":");
    const taskName = parts.pop()!;
    const projectParts = parts.filter((x, i) => !(i === 0 && x === ""));
    let target: ModuleTasks | null = null;
    let where = rootName;
    if (projectParts.length) {
      const byName = new Map(mods.map((mt) => [mt.module.path.slice(1), mt]));
      const r = matchName(projectParts.join(":"), byName.keys());
      if (r.kind !== "found") {
        const what = r.kind === "ambiguous"
          ? `project '${projectParts.join(":")}' is ambiguous in ${rootName}. Candidates are: ${
            candidates(r.candidates)
          }.`
          : `project '${projectParts.join(":")}' not found in ${rootName}.` +
            (r.candidates.length ? ` Some candidates are: ${candidates(r.candidates)}.` : "");
        return {
          ok: false,
          error: {
            message: `Cannot locate tasks that match '${req}' as ${what}`,
            list: "projects",
            kind: r.kind,
          },
        };
      }
      target = byName.get(r.name)!;
      where = `project '${target.module.path}'`;
    }
    const names = target ? [...target.plans.keys()] : [...HELP_TASKS];
    const r = matchName(taskName, names);
    if (r.kind !== "found") {
      const what = r.kind === "ambiguous"
        ? `task '${taskName}' is ambiguous in ${where}. Candidates are: ${
          candidates(r.candidates)
        }.`
        : `task '${taskName}' not found in ${where}.` +
          (r.candidates.length ? ` Some candidates are: ${candidates(r.candidates)}.` : "");
      return {
        ok: false,
        error: {
          message: `Cannot locate tasks that match '${req}' as ${what}`,
          list: "tasks",
          kind: r.kind,
        },
      };
    }
    push(target ? plan(target, r.name) : [rootTask(r.name)]);
  }
  return { ok: true, tasks: out };
}

/** Drops `-x` excluded tasks (by name or path) from a selection. */
export function excludeTasks(tasks: PlannedTask[], excluded: string[]): PlannedTask[] {
  if (!excluded.length) return tasks;
  return tasks.filter((x) => !excluded.some((e) => e === x.name || e === x.path));
}
