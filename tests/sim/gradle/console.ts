/**
 * Gradle 8.9's console text, written from the shapes of real logs (tests/../shared/fixtures/real/
 * gradle): task headers, the `FAILURE` / `What went wrong` / `Try` block, the result and
 * actionable-task lines, and each failure scenario's diagnostics with paths into the sample
 * project. Pure: every function returns lines; the runner prints them.
 *
 * Streams follow Gradle: lifecycle and warning output (task headers, `w:`, test results, `BUILD
 * …`) go to stdout; error output (`e:`, javac errors, the failure block) goes to stderr.
 */
import type { Anchor, Anchors, ModuleModel, Variant } from "./manifest.ts";
import { locate } from "./manifest.ts";

export const GRADLE_VERSION = "8.9";

/** `lifecycle` and `warn` go to stdout and are hidden by `-q`; `error` goes to stderr. */
export type Level = "lifecycle" | "warn" | "error";
export interface Line {
  level: Level;
  text: string;
}

const L = (text: string): Line => ({ level: "lifecycle", text });
const W = (text: string): Line => ({ level: "warn", text });
const E = (text: string): Line => ({ level: "error", text });

export function versionBanner(os: string): string {
  return [
    "",
    "------------------------------------------------------------",
    `Gradle ${GRADLE_VERSION}`,
    "------------------------------------------------------------",
    "",
    "Build time:    2024-07-11 14:37:41 UTC",
    "Revision:      not a real build (keynobi simulator)",
    "",
    "Kotlin:        1.9.23",
    "Groovy:        3.0.21",
    "Ant:           Apache Ant(TM) version 1.10.13 compiled on January 4 2023",
    "Launcher JVM:  17.0.12 (Eclipse Adoptium 17.0.12+7)",
    "Daemon JVM:    /usr/lib/jvm/java-17 (no JDK specified, using current Java home)",
    `OS:            ${os}`,
    "",
  ].join("\n");
}

export function daemonLines(noDaemon: boolean, firstBuild: boolean): Line[] {
  if (noDaemon) {
    return [
      L(
        "To honour the JVM settings for this build a single-use Daemon process will be forked. " +
          `For more on this, please refer to https://docs.gradle.org/${GRADLE_VERSION}/userguide/` +
          "gradle_daemon.html#sec:disabling_the_daemon in the Gradle documentation.",
      ),
      L("Daemon will be stopped at the end of the build "),
    ];
  }
  return firstBuild ? [L("Starting a Gradle Daemon (subsequent builds will be faster)")] : [];
}

export function taskHeader(path: string, state?: string): Line {
  return L(`> Task ${path}${state ? " " + state : ""}`);
}

export interface TryOptions {
  stacktrace: boolean;
  /** Task or project selection failures first point at `gradlew tasks` / `gradlew projects`. */
  list?: "tasks" | "projects";
}

/** `FAILURE: …` through the `* Try:` block (and `* Exception is:` with --stacktrace). */
export function failureBlock(
  whatWentWrong: string[],
  opts: TryOptions,
  exception?: string,
): Line[] {
  const out: Line[] = [
    E(""),
    E("FAILURE: Build failed with an exception."),
    E(""),
    E("* What went wrong:"),
    ...whatWentWrong.map(E),
    E(""),
    E("* Try:"),
  ];
  if (opts.list) {
    out.push(E(`> Run gradlew ${opts.list} to get a list of available ${opts.list}.`));
    out.push(
      E(
        "> For more on name expansion, please refer to https://docs.gradle.org/" +
          `${GRADLE_VERSION}/userguide/command_line_interface.html#sec:name_abbreviation in the ` +
          "Gradle documentation.",
      ),
    );
  }
  if (!opts.stacktrace) out.push(E("> Run with --stacktrace option to get the stack trace."));
  out.push(
    E("> Run with --info or --debug option to get more log output."),
    E("> Run with --scan to get full insights."),
    E("> Get more help at https://help.gradle.org."),
  );
  if (opts.stacktrace && exception) {
    out.push(
      E(""),
      E("* Exception is:"),
      E(exception),
      E(
        "\tat org.gradle.api.internal.tasks.execution.ExecuteActionsTaskExecuter.lambda$executeIfValid$1(ExecuteActionsTaskExecuter.java:130)",
      ),
      E("\tat org.gradle.internal.Try$Failure.ifSuccessfulOrElse(Try.java:282)"),
      E(
        "\tat org.gradle.api.internal.tasks.execution.ExecuteActionsTaskExecuter.execute(ExecuteActionsTaskExecuter.java:116)",
      ),
      E("\tat org.gradle.internal.work.DefaultWorkerLeaseService.withLocks(DefaultWorkerLeaseService.java:263)"),
    );
  }
  out.push(E(""));
  return out;
}

/** `1m 19s`, `2s`: Gradle's very terse duration, at least one second. */
export function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m ${s % 60}s`;
}

export function resultLine(ok: boolean, ms: number): Line {
  return L(`BUILD ${ok ? "SUCCESSFUL" : "FAILED"} in ${duration(ms)}`);
}

/** `17 actionable tasks: 17 executed` / `52 actionable tasks: 28 executed, 24 up-to-date`. */
export function actionableLine(executed: number, upToDate: number): Line | null {
  const total = executed + upToDate;
  if (total === 0) return null;
  const parts: string[] = [];
  if (executed) parts.push(`${executed} executed`);
  if (upToDate) parts.push(`${upToDate} up-to-date`);
  return L(`${total} actionable task${total === 1 ? "" : "s"}: ${parts.join(", ")}`);
}

// --- scenario diagnostics ---------------------------------------------------------------------

/** A file's text by path relative to the project root (the runner reads it). */
export type ReadSource = (rel: string) => string | null;

export interface ScenarioContext {
  root: string;
  anchors: Anchors;
  read: ReadSource;
  module: ModuleModel;
  variant: Variant | null;
  taskPath: string;
  stacktrace: boolean;
  device: string;
}

export class AnchorError extends Error {
  override name = "AnchorError";
}

function place(ctx: ScenarioContext, a: Anchor | undefined, what: string) {
  if (!a) throw new AnchorError(`${what} has no anchor in .sim-gradle.json`);
  const text = ctx.read(a.file);
  if (text === null) throw new AnchorError(`${what}: ${a.file} does not exist`);
  const at = locate(text, a);
  if (!at) throw new AnchorError(`${what}: '${a.find}' is not in ${a.file}`);
  return { ...at, abs: `${ctx.root}/${a.file}` };
}

/** `file:///tmp/x%20y/A.kt`, as Kotlin prints a File's URI. */
export function fileUri(abs: string): string {
  return "file://" +
    abs.split("/").map((p) =>
      encodeURIComponent(p).replace(/%40/g, "@").replace(/%2B/g, "+").replace(/%24/g, "$")
    ).join("/");
}

export interface FailureOutput {
  /** Printed after the task header(s), before the failure block. */
  inline: Line[];
  /** `FAILED` is printed on the header before `inline` (Kotlin, javac) or on a repeat after it. */
  headerFirst: boolean;
  whatWentWrong: string[];
  exception: string;
}

function executionFailed(path: string): string {
  return `Execution failed for task '${path}'.`;
}

export function kotlinError(ctx: ScenarioContext): FailureOutput {
  const anchors = ctx.anchors.kotlin_error ?? [];
  if (!anchors.length) throw new AnchorError("kotlin_error has no anchor in .sim-gradle.json");
  const inline = anchors.map((a) => {
    const p = place(ctx, a, "kotlin_error");
    return E(`e: ${fileUri(p.abs)}:${p.line}:${p.col} Unresolved reference '${a.name ?? a.find}'.`);
  });
  return {
    inline,
    headerFirst: true,
    whatWentWrong: [
      executionFailed(ctx.taskPath),
      "> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction",
      "   > Compilation error. See log for more details",
    ],
    exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(ctx.taskPath)}`,
  };
}

export function kotlinWarning(ctx: ScenarioContext): Line[] {
  const a = ctx.anchors.kotlin_warning;
  const p = place(ctx, a, "kotlin_warning_success");
  return [W(`w: ${fileUri(p.abs)}:${p.line}:${p.col} ${a!.message}`)];
}

export function javaError(ctx: ScenarioContext): FailureOutput {
  const a = ctx.anchors.java_error;
  const p = place(ctx, a, "java_error");
  // javac puts the caret just after the token that should have been followed by ';'.
  const caretCol = p.col + a!.find.length - (a!.name ? a!.find.indexOf(a!.name) : 0);
  return {
    inline: [
      E(`${p.abs}:${p.line}: error: ';' expected`),
      E(p.text),
      E(" ".repeat(Math.max(0, caretCol - 1)) + "^"),
      E("1 error"),
    ],
    headerFirst: true,
    whatWentWrong: [
      executionFailed(ctx.taskPath),
      "> Compilation failed; see the compiler error output for details.",
    ],
    exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(ctx.taskPath)}`,
  };
}

export function aaptError(ctx: ScenarioContext): FailureOutput {
  const a = ctx.anchors.aapt_error;
  const p = place(ctx, a, "aapt_error");
  return {
    inline: [],
    headerFirst: true,
    whatWentWrong: [
      executionFailed(ctx.taskPath),
      "> A failure occurred while executing com.android.build.gradle.internal.res.LinkApplicationAndroidResourcesTask$TaskAction",
      "   > Android resource linking failed",
      `     ERROR: ${p.abs}:${p.line}: AAPT: error: attribute ${a!.name ?? a!.find} not found.`,
      "         ",
    ],
    exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(ctx.taskPath)}`,
  };
}

export function lintError(ctx: ScenarioContext): FailureOutput {
  const a = ctx.anchors.lint_error;
  const p = place(ctx, a, "lint_error");
  const width = (a!.name ?? a!.find).length;
  const issue = [
    `${p.abs}:${p.line}: Error: ${a!.message} [${a!.id}]`,
    p.text,
    " ".repeat(p.col - 1) + "~".repeat(width),
  ];
  const v = ctx.variant?.name ?? "debug";
  const taskName = ctx.taskPath.split(":").pop()!;
  const report =
    `${ctx.root}/${ctx.module.dir}/build/intermediates/lint_intermediate_text_report/${v}/` +
    `${taskName.replace(/^lint/, "lintReport")}/lint-results-${v}.txt`;
  return {
    inline: [L("Lint found 1 errors, 0 warnings. First failure:"), L(""), ...issue.map(L)],
    headerFirst: true,
    whatWentWrong: [
      executionFailed(ctx.taskPath),
      "> Lint found errors in the project; aborting build.",
      "  ",
      "  Fix the issues identified by lint, or create a baseline to see only new errors.",
      "  To create a baseline, run `gradlew updateLintBaseline` after adding the following to the module's build.gradle file:",
      "  ```",
      "  android {",
      "      lint {",
      '          baseline = file("lint-baseline.xml")',
      "      }",
      "  }",
      "  ```",
      "  For more details, see https://developer.android.com/studio/write/lint#snapshot",
      "  ",
      "  Lint found 1 errors, 0 warnings. First failure:",
      "  ",
      ...issue.map((x) => "  " + x),
      "  ",
      "  The full lint text report is located at:",
      `    ${report}`,
    ],
    exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(ctx.taskPath)}`,
  };
}

export interface TestRun {
  lines: Line[];
  failure: FailureOutput | null;
  /** class, and per test its failure text (undefined = passed). */
  results: { className: string; tests: { name: string; failure?: string }[] };
}

export function unitTests(ctx: ScenarioContext, fail: boolean): TestRun {
  const a = ctx.anchors.unit_test!;
  const simple = a.class.split(".").pop()!;
  const tests = a.tests.map((name) => ({ name, failure: undefined as string | undefined }));
  const lines: Line[] = [];
  let failure: FailureOutput | null = null;
  if (fail) {
    const p = place(ctx, { file: a.file, find: a.failing.find }, "test_failure");
    const file = a.file.split("/").pop()!;
    const t = tests.find((x) => x.name === a.failing.test) ?? tests[0];
    t.failure = `${a.failing.message}\n\tat ${a.class}.${t.name}(${file}:${p.line})`;
    lines.push(
      L(""),
      L(`${simple} > ${t.name} FAILED`),
      L(`    ${a.failing.message.split(":")[0]} at ${file}:${p.line}`),
      L(""),
      L(`${tests.length} tests completed, 1 failed`),
    );
    const taskName = ctx.taskPath.split(":").pop()!;
    failure = {
      inline: [],
      headerFirst: false,
      whatWentWrong: [
        executionFailed(ctx.taskPath),
        `> There were failing tests. See the report at: ${
          fileUri(`${ctx.root}/${ctx.module.dir}/build/reports/tests/${taskName}/index.html`)
        }`,
      ],
      exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(ctx.taskPath)}`,
    };
  }
  return { lines, failure, results: { className: a.class, tests } };
}

/** Where AGP puts connected test results for a variant: `debug/flavors/demo` or `debug`. */
export function connectedDir(v: Variant | null): string {
  if (!v) return "debug";
  return v.flavor ? `${v.buildType.name}/flavors/${v.flavor}` : v.buildType.name;
}

export function connectedTests(ctx: ScenarioContext, fail: boolean): TestRun {
  const a = ctx.anchors.android_test!;
  const dev = ctx.device;
  const n = a.tests.length;
  const tests = a.tests.map((name) => ({ name, failure: undefined as string | undefined }));
  const lines: Line[] = [L(`Starting ${n} tests on ${dev}`), L("")];
  let failure: FailureOutput | null = null;
  if (fail) {
    const p = place(ctx, { file: a.file, find: a.failing.find }, "test_failure");
    const file = a.file.split("/").pop()!;
    const t = tests.find((x) => x.name === a.failing.test) ?? tests[0];
    t.failure = `${a.failing.message}\n\tat ${a.class}.${t.name}(${file}:${p.line})`;
    lines.push(
      L(`${a.class} > ${t.name}[${dev}] FAILED `),
      L(`\t${a.failing.message}`),
      L(`\tat ${a.class}.${t.name}(${file}:${p.line})`),
      L(""),
      L(`Tests on ${dev} failed: There was 1 failure(s).`),
    );
    failure = {
      inline: [],
      headerFirst: false,
      whatWentWrong: [
        executionFailed(ctx.taskPath),
        `> There were failing tests. See the report at: ${
          fileUri(
            `${ctx.root}/${ctx.module.dir}/build/reports/androidTests/connected/${
              connectedDir(ctx.variant)
            }/index.html`,
          )
        }`,
      ],
      exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(ctx.taskPath)}`,
    };
  } else {
    lines.push(L(`${dev} Tests ${n}/${n} completed. (0 skipped) (0 failed)`));
    lines.push(L(`Finished ${n} tests on ${dev}`));
  }
  return { lines, failure, results: { className: a.class, tests } };
}

export function installFailure(taskPath: string): FailureOutput {
  return {
    inline: [],
    headerFirst: true,
    whatWentWrong: [
      executionFailed(taskPath),
      "> com.android.builder.testing.api.DeviceException: No connected devices!",
    ],
    exception: `org.gradle.api.tasks.TaskExecutionException: ${executionFailed(taskPath)}`,
  };
}

export function sdkLocation(root: string, firstCompile: string | null, module: string): string[] {
  return [
    firstCompile
      ? `Could not determine the dependencies of task '${firstCompile}'.`
      : `A problem occurred configuring project '${module}'.`,
    "> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment " +
    "variable or by setting the sdk.dir path in your project's local properties file at " +
    `'${root}/local.properties'.`,
  ];
}

export function dependencyResolution(compileTask: string, v: Variant, m: ModuleModel): string[] {
  const dep = m.dependencies[0] ?? "com.example.keynobi:missing:1.0.0";
  return [
    `Could not determine the dependencies of task '${compileTask}'.`,
    `> Could not resolve all task dependencies for configuration '${m.path}:${v.name}CompileClasspath'.`,
    `   > Could not find ${dep}.`,
    "     Required by:",
    `         project ${m.path}`,
  ];
}

export function noBuild(dir: string): string[] {
  return [
    `Directory '${dir}' does not contain a Gradle build.`,
    "",
    "A Gradle build's root directory should contain one of the possible settings files: " +
    "settings.gradle, settings.gradle.kts, settings.gradle.dcl.",
    "",
    "To create a new Gradle build in this directory run 'gradlew init'",
  ];
}

export function helpTask(): Line[] {
  return [
    L(""),
    L("Welcome to Gradle 8.9."),
    L(""),
    L("To run a build, run gradlew <task> ..."),
    L(""),
    L("To see a list of available tasks, run gradlew tasks"),
    L(""),
    L("To see more detail about a task, run gradlew help --task <task>"),
    L(""),
    L("To see a list of command-line options, run gradlew --help"),
    L(""),
    L("For more detail on using Gradle, see https://docs.gradle.org/8.9/userguide/command_line_interface.html"),
    L(""),
    L("For troubleshooting, visit https://help.gradle.org"),
    L(""),
  ];
}

export function tasksTask(rootProject: string, names: string[]): Line[] {
  return [
    L(""),
    L("------------------------------------------------------------"),
    L(`Tasks runnable from root project '${rootProject}'`),
    L("------------------------------------------------------------"),
    L(""),
    L("Build tasks"),
    L("-----------"),
    ...names.map((n) => L(n)),
    L(""),
  ];
}
