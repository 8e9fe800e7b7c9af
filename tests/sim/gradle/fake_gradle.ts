/**
 * The simulator's `gradlew`: a Deno program that answers like Gradle 8.9 with AGP 8 for the
 * sample projects. The sim writes each project's `gradlew` as
 * `exec deno run … fake_gradle.ts --sim-control <control.json> --sim-journal <journal.jsonl> -- "$@"`.
 *
 * It selects tasks as Gradle does, prints their headers over time (`task_delay_ms`), fails per
 * the control file's scenario with the real console shape, writes APKs, bundles,
 * `output-metadata.json` and test reports, and appends one journal line per invocation. SIGTERM
 * and SIGINT end it at once (exit 143 / 130, journaled); a closed stdout ends it too.
 *
 * Imports nothing remote and nothing from lib/: it stands in for real Gradle.
 */
import { basename, dirname, join, relative } from "node:path";
import {
  aabBytes,
  apkBytes,
  apkFileName,
  type BuildIdentity,
  junitXml,
  outputMetadata,
} from "./artifacts.ts";
import { type GradleArgs, parseGradleArgs, usageError } from "./cli.ts";
import { type R8Output, sampleR8 } from "./r8.ts";
import {
  aaptError,
  actionableLine,
  AnchorError,
  connectedDir,
  connectedTests,
  daemonLines,
  dependencyResolution,
  failureBlock,
  type FailureOutput,
  helpTask,
  installFailure,
  javaError,
  kotlinError,
  kotlinWarning,
  type Line,
  lintError,
  noBuild,
  resultLine,
  type ScenarioContext,
  sdkLocation,
  taskHeader,
  tasksTask,
  type TestRun,
  unitTests,
  versionBanner,
} from "./console.ts";
import {
  type ControlSettings,
  type GradleRun,
  type Outcome,
  parseControl,
  type Scenario,
  scenarioFor,
  settingsFor,
} from "./control.ts";
import { MANIFEST_FILE, parseManifest, type ProjectModel } from "./manifest.ts";
import {
  excludeTasks,
  moduleTasks,
  type PlannedTask,
  selectTasks,
  type TaskEffect,
} from "./tasks.ts";

/** Largest source file the fake reads to place a diagnostic. */
export const MAX_SOURCE_BYTES = 1024 * 1024;
/** Pause when output moves between stdout and stderr, so readers of both see it in order. */
export const STREAM_SWITCH_PAUSE_MS = 5;
/** Largest journal the fake reads to number its build; beyond it the size estimates the count. */
export const MAX_JOURNAL_SCAN_BYTES = 8 * 1024 * 1024;

const enc = new TextEncoder();

class StdoutClosed extends Error {}

/** What R8 makes of each minified variant of this run (variant name → mapping and rewrites). */
const r8Outputs = new Map<string, R8Output>();

interface RunState {
  journal: string | null;
  run: GradleRun;
  done: boolean;
}

const state: RunState = {
  journal: null,
  done: false,
  run: {
    t: new Date().toISOString(),
    cwd: Deno.cwd(),
    argv: [],
    env: {
      JAVA_HOME: Deno.env.get("JAVA_HOME") ?? null,
      ANDROID_HOME: Deno.env.get("ANDROID_HOME") ?? null,
      ANDROID_SDK_ROOT: Deno.env.get("ANDROID_SDK_ROOT") ?? null,
    },
    pid: Deno.pid,
    project: null,
    tasks: [],
    scenario: null,
    build: 0,
    outcome: "success",
    exit_code: 0,
    outputs: [],
  },
};

/** Journals the run (once) and exits. Synchronous so signal handlers can use it. */
function finish(outcome: Outcome, code: number): never {
  if (!state.done) {
    state.done = true;
    state.run.outcome = outcome;
    state.run.exit_code = code;
    if (state.journal) {
      try {
        Deno.writeTextFileSync(state.journal, JSON.stringify(state.run) + "\n", { append: true });
      } catch { /* the sim is gone; nothing to tell */ }
    }
  }
  Deno.exit(code);
}

function writeAll(f: { writeSync(p: Uint8Array): number }, bytes: Uint8Array) {
  let at = 0;
  while (at < bytes.length) at += f.writeSync(bytes.subarray(at));
}

class Console {
  #last: "out" | "err" | null = null;
  constructor(readonly quiet: boolean) {}

  async print(lines: Line[]) {
    for (const l of lines) {
      if (this.quiet && l.level !== "error") continue;
      const stream = l.level === "error" ? "err" : "out";
      if (this.#last && this.#last !== stream) await sleep(STREAM_SWITCH_PAUSE_MS);
      this.#last = stream;
      try {
        writeAll(stream === "out" ? Deno.stdout : Deno.stderr, enc.encode(l.text + "\n"));
      } catch (e) {
        if (stream === "out") throw new StdoutClosed(String(e));
        // stderr closed: keep going, as a JVM would.
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function readText(path: string, max = MAX_SOURCE_BYTES): string | null {
  try {
    const st = Deno.statSync(path);
    if (!st.isFile || st.size > max) return null;
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

function osLine(): string {
  const arch = Deno.build.arch === "x86_64" ? "amd64" : Deno.build.arch;
  const name = Deno.build.os === "linux"
    ? "Linux"
    : Deno.build.os === "darwin"
    ? "Mac OS X"
    : Deno.build.os;
  let release = "";
  try {
    release = Deno.osRelease();
  } catch { /* no --allow-sys */ }
  return `${name} ${release} ${arch}`.replace(/\s+/g, " ");
}

function findBuildRoot(start: string): string | null {
  let dir = start;
  for (let i = 0; i < 64; i++) {
    for (const f of ["settings.gradle.kts", "settings.gradle"]) {
      try {
        if (Deno.statSync(join(dir, f)).isFile) return dir;
      } catch { /* keep looking */ }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

function buildNumber(journal: string): number {
  try {
    const st = Deno.statSync(journal);
    if (st.size > MAX_JOURNAL_SCAN_BYTES) return Math.floor(st.size / 300) + 1;
    const text = Deno.readTextFileSync(journal);
    return text.split("\n").filter((l) => l.trim() !== "").length + 1;
  } catch {
    return 1;
  }
}

function sdkConfigured(root: string): boolean {
  if (Deno.env.get("ANDROID_HOME") || Deno.env.get("ANDROID_SDK_ROOT")) return true;
  const props = readText(join(root, "local.properties"));
  const m = props && /^sdk\.dir\s*=\s*(.+)$/m.exec(props);
  if (!m) return false;
  try {
    return Deno.statSync(m[1].trim().replace(/\\:/g, ":")).isDirectory;
  } catch {
    return false;
  }
}

const FAILING_EFFECT: Partial<Record<Scenario, TaskEffect[]>> = {
  kotlin_error: ["compile_kotlin"],
  java_error: ["compile_java"],
  aapt_error: ["process_resources"],
  lint_error: ["lint"],
  test_failure: ["unit_test", "connected_test"],
};

interface Build {
  root: string;
  model: ProjectModel;
  args: GradleArgs;
  settings: ControlSettings;
  scenario: Scenario;
  tasks: PlannedTask[];
  console: Console;
  started: number;
}

function ctxFor(b: Build, task: PlannedTask): ScenarioContext {
  return {
    root: b.root,
    anchors: b.model.anchors,
    read: (rel) => readText(join(b.root, rel)),
    module: task.module ?? b.model.modules[0],
    variant: task.variant,
    taskPath: task.path,
    stacktrace: b.args.stacktrace,
    device: b.settings.connected_device,
  };
}

function record(b: Build, abs: string) {
  state.run.outputs.push(relative(b.root, abs));
}

function writeFile(b: Build, abs: string, data: Uint8Array | string) {
  Deno.mkdirSync(dirname(abs), { recursive: true });
  if (typeof data === "string") Deno.writeTextFileSync(abs, data);
  else Deno.writeFileSync(abs, data);
  record(b, abs);
}

function identity(task: PlannedTask, b?: Build): BuildIdentity {
  const m = task.module!;
  return {
    variant: task.variant!,
    versionCode: m.version_code,
    minSdk: m.min_sdk,
    launcherActivity: m.launcher_activity,
    build: state.run.build,
    r8: r8Outputs.get(task.variant!.name)?.table,
    defects: b?.scenario === "ui_regression" ? ["sign_in"] : [],
  };
}

function apkPath(b: Build, task: PlannedTask): string {
  const m = task.module!;
  const v = task.variant!;
  return join(
    b.root,
    m.dir,
    "build/outputs/apk",
    ...(v.flavor ? [v.flavor] : []),
    v.buildType.name,
    apkFileName(m.dir, v),
  );
}

function writeTestResults(b: Build, task: PlannedTask, run: TestRun, dir: string) {
  const xml = junitXml(run.results.className, run.results.tests, state.run.t.slice(0, 19));
  writeFile(
    b,
    join(b.root, task.module!.dir, "build", dir, `TEST-${run.results.className}.xml`),
    xml,
  );
}

/** Performs a task's effect; returns its inline lines and failure (if the scenario says so). */
function perform(
  b: Build,
  task: PlannedTask,
): { lines: Line[]; failure: FailureOutput | null } {
  const ctx = ctxFor(b, task);
  const fails = FAILING_EFFECT[b.scenario]?.includes(task.effect!) ?? false;
  switch (task.effect) {
    case "compile_kotlin":
      if (fails) return { lines: [], failure: kotlinError(ctx) };
      if (b.scenario === "kotlin_warning_success") {
        return { lines: kotlinWarning(ctx), failure: null };
      }
      break;
    case "compile_java":
      if (fails) return { lines: [], failure: javaError(ctx) };
      break;
    case "process_resources":
      if (fails) return { lines: [], failure: aaptError(ctx) };
      break;
    case "lint":
      if (fails) return { lines: [], failure: lintError(ctx) };
      break;
    case "minify": {
      const r8 = r8Outputs.get(task.variant!.name);
      if (r8) {
        writeFile(
          b,
          join(
            b.root,
            task.module!.dir,
            "build/outputs/mapping",
            task.variant!.name,
            "mapping.txt",
          ),
          r8.mapping,
        );
      }
      break;
    }
    case "package_apk": {
      const apk = apkPath(b, task);
      writeFile(b, apk, apkBytes(identity(task, b)));
      const m = task.module!;
      writeFile(
        b,
        join(dirname(apk), "output-metadata.json"),
        outputMetadata(task.variant!, m.version_code, m.min_sdk, basename(apk)),
      );
      break;
    }
    case "package_bundle": {
      const v = task.variant!;
      const m = task.module!;
      const aab = join(
        b.root,
        m.dir,
        "build/outputs/bundle",
        v.name,
        `${m.dir}-${[...(v.flavor ? [v.flavor] : []), v.buildType.name].join("-")}.aab`,
      );
      writeFile(b, aab, aabBytes(identity(task)));
      break;
    }
    case "unit_test": {
      const run = unitTests(ctx, fails);
      writeTestResults(b, task, run, `test-results/${task.name}`);
      return { lines: run.lines, failure: run.failure };
    }
    case "connected_test": {
      const run = connectedTests(ctx, fails);
      writeTestResults(
        b,
        task,
        run,
        `outputs/androidTest-results/connected/${connectedDir(task.variant)}`,
      );
      return { lines: run.lines, failure: run.failure };
    }
    case "install":
      return { lines: [], failure: installFailure(task.path) };
    case "clean":
      if (task.module) {
        try {
          Deno.removeSync(join(b.root, task.module.dir, "build"), { recursive: true });
        } catch { /* nothing to clean */ }
      }
      break;
  }
  if (task.name === "help" && !task.module) return { lines: helpTask(), failure: null };
  if (task.name === "tasks" && !task.module) {
    const names = b.model.modules.flatMap((m) => [...moduleTasks(b.model, m).plans.keys()]);
    return { lines: tasksTask(b.model.root_project, [...new Set(names)].sort()), failure: null };
  }
  return { lines: [], failure: null };
}

function hangIndex(b: Build): number {
  const at = b.settings.hang_at;
  if (at) {
    const i = b.tasks.findIndex((x) => x.name === at || x.path === at);
    if (i >= 0) return i;
  }
  if (b.scenario !== "hang") return -1;
  const compile = b.tasks.findIndex((x) =>
    x.effect === "compile_kotlin" || x.effect === "compile_java"
  );
  return compile >= 0 ? compile : b.tasks.length - 1;
}

async function failWith(b: Build, lines: string[], outcome: Outcome, exception: string, counts?: {
  executed: number;
  upToDate: number;
}): Promise<never> {
  await b.console.print(failureBlock(lines, { stacktrace: b.args.stacktrace }, exception));
  await b.console.print([resultLine(false, Date.now() - b.started)]);
  const a = counts && actionableLine(counts.executed, counts.upToDate);
  if (a) await b.console.print([a]);
  finish(outcome, 1);
}

async function execute(b: Build): Promise<void> {
  const compileTask = b.tasks.find((x) => x.effect === "compile_kotlin") ??
    b.tasks.find((x) => x.effect === "compile_java");
  const firstModule = b.tasks.find((x) => x.module)?.module ?? null;
  const configException = "org.gradle.api.GradleException: configuration failed";
  if (
    firstModule &&
    (b.scenario === "sdk_location" || b.settings.require_sdk && !sdkConfigured(b.root))
  ) {
    const javac = b.tasks.find((x) => x.effect === "compile_java");
    if (b.scenario !== "sdk_location") state.run.scenario = "sdk_location";
    await failWith(
      b,
      sdkLocation(b.root, javac?.path ?? null, firstModule.path),
      "configuration_failed",
      configException,
    );
  }
  if (b.scenario === "dependency_resolution" && compileTask) {
    await failWith(
      b,
      dependencyResolution(compileTask.path, compileTask.variant!, compileTask.module!),
      "configuration_failed",
      configException,
    );
  }
  if (b.args.dryRun) {
    await b.console.print(b.tasks.map((x) => ({ level: "lifecycle", text: `${x.path} SKIPPED` })));
    await b.console.print([
      { level: "lifecycle", text: "" },
      resultLine(true, Date.now() - b.started),
    ]);
    finish("success", 0);
  }
  const upToDate = b.settings.up_to_date && b.scenario === "success" &&
    b.tasks.filter((x) => x.effect === "package_apk").every((x) => {
      try {
        return Deno.statSync(apkPath(b, x)).isFile;
      } catch {
        return false;
      }
    }) && b.tasks.some((x) => x.effect === "package_apk");
  for (const x of b.tasks) {
    if (x.effect === "minify" && x.variant && !r8Outputs.has(x.variant.name)) {
      r8Outputs.set(x.variant.name, await sampleR8(x.variant.applicationId));
    }
  }
  const hang = hangIndex(b);
  let executed = 0;
  let utd = 0;
  for (let i = 0; i < b.tasks.length; i++) {
    const task = b.tasks[i];
    if (i > 0 && b.settings.task_delay_ms > 0) await sleep(b.settings.task_delay_ms);
    const fixed = task.state ?? (upToDate && !task.lifecycle ? "UP-TO-DATE" : undefined);
    if (i === hang) {
      await b.console.print([taskHeader(task.path)]);
      // Gradle stuck in a task: no output, no exit, until a signal ends the process.
      setInterval(() => {}, 1 << 30);
      return await new Promise<never>(() => {});
    }
    if (!task.lifecycle) {
      if (fixed === "UP-TO-DATE") utd++;
      else if (!fixed) executed++;
    }
    if (fixed) {
      await b.console.print([taskHeader(task.path, fixed)]);
      continue;
    }
    let out: { lines: Line[]; failure: FailureOutput | null };
    try {
      out = perform(b, task);
    } catch (e) {
      if (!(e instanceof AnchorError)) throw e;
      await b.console.print([{
        level: "error",
        text: `keynobi simulator: cannot run scenario ${b.scenario} in ${b.root}: ${e.message}`,
      }]);
      finish("sim_error", 2);
    }
    const { lines, failure } = out;
    if (failure) {
      if (failure.headerFirst) {
        await b.console.print([{ level: "lifecycle", text: "" }, taskHeader(task.path, "FAILED")]);
        await b.console.print([...failure.inline, ...lines]);
      } else {
        await b.console.print([{ level: "lifecycle", text: "" }, taskHeader(task.path), ...lines]);
        await b.console.print([{ level: "lifecycle", text: "" }, taskHeader(task.path, "FAILED")]);
      }
      await failWith(b, failure.whatWentWrong, "build_failed", failure.exception, {
        executed,
        upToDate: utd,
      });
    }
    if (lines.length) {
      await b.console.print([{ level: "lifecycle", text: "" }, taskHeader(task.path), ...lines]);
      await b.console.print([{ level: "lifecycle", text: "" }]);
    } else {
      await b.console.print([taskHeader(task.path)]);
    }
  }
  await b.console.print([
    { level: "lifecycle", text: "" },
    resultLine(true, Date.now() - b.started),
  ]);
  const a = actionableLine(executed, utd);
  if (a) await b.console.print([a]);
  if (b.settings.leave_daemon) {
    // Gradle's daemon outlives the client, in its process group, holding none of its output.
    const daemon = new Deno.Command(Deno.execPath(), {
      args: ["eval", "setInterval(() => {}, 1 << 30)"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    daemon.unref();
    state.run.daemon_pid = daemon.pid;
  }
  finish("success", 0);
}

async function main(argv: string[]): Promise<void> {
  const started = Date.now();
  let control: string | null = null;
  let i = 0;
  for (; i < argv.length; i++) {
    if (argv[i] === "--") {
      i++;
      break;
    }
    if (argv[i] === "--sim-control") control = argv[++i] ?? null;
    else if (argv[i] === "--sim-journal") state.journal = argv[++i] ?? null;
  }
  const gradleArgv = argv.slice(i);
  state.run.argv = gradleArgv;
  if (state.journal) state.run.build = buildNumber(state.journal);

  Deno.addSignalListener("SIGTERM", () => finish("sigterm", 143));
  Deno.addSignalListener("SIGINT", () => finish("sigint", 130));

  // Best effort before parsing, so even `--version` or a usage error is journaled per project.
  const early = findBuildRoot(Deno.cwd());
  if (early) state.run.project = basename(early);

  const parsed = parseGradleArgs(gradleArgv);
  const quietConsole = new Console(false);
  if (!parsed.ok) {
    await quietConsole.print([{ level: "error", text: usageError(parsed.message) }]);
    finish("usage_error", 1);
  }
  const args = parsed.args;
  const con = new Console(args.quiet);
  if (args.version) {
    await quietConsole.print([{ level: "lifecycle", text: versionBanner(osLine()) }]);
    finish("version", 0);
  }
  if (args.help) {
    await quietConsole.print([{ level: "lifecycle", text: usageError("").trimStart() }]);
    finish("help", 0);
  }
  if (args.flags.has("--stop")) {
    await con.print([{ level: "lifecycle", text: "Stopping Daemon(s)" }, {
      level: "lifecycle",
      text: "1 Daemon stopped",
    }]);
    finish("no_build", 0);
  }
  if (args.flags.has("--status")) {
    await con.print([{ level: "lifecycle", text: "No Gradle daemons are running." }]);
    finish("no_build", 0);
  }

  const start = args.projectDir ? join(Deno.cwd(), args.projectDir) : Deno.cwd();
  const root = findBuildRoot(start);
  const tryOpts = { stacktrace: args.stacktrace };
  if (!root) {
    await con.print(failureBlock(noBuild(start), tryOpts, "org.gradle.api.GradleException"));
    await con.print([resultLine(false, Date.now() - started)]);
    finish("configuration_failed", 1);
  }
  state.run.project = basename(root);
  const manifestText = readText(join(root, MANIFEST_FILE));
  if (manifestText === null) {
    await con.print([{
      level: "error",
      text:
        `keynobi simulator: ${root} has no ${MANIFEST_FILE}: only the sample projects can be built`,
    }]);
    finish("sim_error", 2);
  }
  let model: ProjectModel;
  let settings: ControlSettings;
  try {
    model = parseManifest(manifestText);
    settings = settingsFor(parseControl(control ? readText(control) : null), basename(root));
  } catch (e) {
    await con.print([{ level: "error", text: `keynobi simulator: ${(e as Error).message}` }]);
    finish("sim_error", 2);
  }

  await con.print(daemonLines(args.noDaemon, state.run.build === 1));
  const requests = args.tasks.length ? args.tasks : ["help"];
  const sel = selectTasks(model, requests);
  if (!sel.ok) {
    await con.print(
      failureBlock(
        [sel.error.message],
        { ...tryOpts, list: sel.error.list },
        `org.gradle.execution.TaskSelectionException: ${sel.error.message}`,
      ),
    );
    await con.print([resultLine(false, Date.now() - started)]);
    finish("task_selection_failed", 1);
  }
  const tasks = excludeTasks(sel.tasks, args.excluded);
  state.run.tasks = tasks.map((x) => x.path);
  // Per requested task: what was typed, and the goal names/paths it resolved to.
  const requested = requests.map((typed) => {
    const one = selectTasks(model, [typed]);
    const goal = one.ok ? one.tasks.filter((x) => x.name === one.tasks.at(-1)!.name) : [];
    return { typed, names: goal.map((x) => x.name), paths: goal.map((x) => x.path) };
  });
  const scenario = scenarioFor(settings, requested);
  state.run.scenario = scenario;
  await execute({ root, model, args, settings, scenario, tasks, console: con, started });
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    if (e instanceof StdoutClosed) finish("stdout_closed", 141);
    try {
      Deno.stderr.writeSync(enc.encode(`keynobi simulator: fake Gradle crashed: ${e}\n`));
    } catch { /* stderr gone too */ }
    finish("sim_error", 2);
  }
}
