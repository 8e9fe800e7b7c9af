import {
  type BuildLine,
  BuildOutputParser,
  type Diagnostic,
  MAX_LINE_CHARS,
} from "../../lib/build/build_parser.ts";
import { parseBuildOutput } from "./parse_build_output.ts";
import { MAX_DIAGNOSTICS } from "../../lib/build/diagnostic_tally.ts";
import { MAX_MESSAGE_CHARS } from "../../lib/build/shared/diagnostic.ts";
import { decodeGradleOutput, detectEncoding } from "../../lib/build/build_output_decode.ts";
import { diagnosticLine, presentDiagnostic } from "../../lib/build/shared/diagnostic_view.ts";
import { fileUriToPath, parseGradleDuration } from "../../lib/build/build_parser_patterns.ts";
import { benchParse } from "../../scripts/bench_build_parser.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";

const gradleOutput = realFixtures("gradle");

const TESTDATA = new URL("./testdata/", import.meta.url);

function real(name: string) {
  return parseBuildOutput(decodeGradleOutput(gradleOutput.bytes(name)));
}
function own(name: string) {
  return parseBuildOutput(decodeGradleOutput(Deno.readFileSync(new URL(name, TESTDATA))));
}

type Loc = [file: string | null, line: number | null, column: number | null];
function diag(
  severity: Diagnostic["severity"],
  source: Diagnostic["source"],
  [file, line, column]: Loc,
  message: string,
  extra: { task?: string; rule?: string; dependency?: string } = {},
): Diagnostic {
  return { severity, source, file, line, column, message, ...extra };
}
const NO_LOC: Loc = [null, null, null];

// ---------------------------------------------------------------- real fixtures, one per file

Deno.test({
  name: "parseBuildOutput() reads Kotlin file:// URIs with Windows drives and spaces",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("kotlin_unresolved_reference_windows_uri_stacktrace.txt");
    const file =
      "C:/Android Development/dex_reader/DexReader/app/src/main/java/com/decoutkhanqindev/dexreader/data/utils/IsoDateAdapter.kt";
    const task = ":app:compileDebugKotlin";
    assertEquals(summary.diagnostics, [
      diag("error", "kotlin", [file, 8, 25], "Unresolved reference 'DateTimeAgo'.", { task }),
      diag("error", "kotlin", [file, 18, 22], "Unresolved reference 'DateTimeAgo'.", { task }),
      diag("error", "kotlin", [file, 33, 17], "Unresolved reference 'DateTimeAgo'.", { task }),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [task]);
    assertEquals(summary.duration_text, "37s");
    assertEquals(summary.duration_ms, 37_000);
    assertEquals(summary.actionable_tasks, {
      total: 34,
      executed: 34,
      up_to_date: 0,
      from_cache: 0,
    });
    assertEquals(summary.diagnostics_truncated, false);
  },
});

Deno.test({
  name: "parseBuildOutput() reads kapt javac errors with caret columns",
  ignore: !gradleOutput.present,
  fn() {
    const { summary, lines } = real("kapt_javac_syntax_errors.txt");
    const f =
      "/workspace/app/src/main/java/com/synapse/social/studioasinc/FragInboxChatsActivity.java";
    const task = ":app:kaptReleaseKotlin";
    const e = (line: number, column: number, message: string) =>
      diag("error", "kapt", [f, line, column], message, { task });
    assertEquals(summary.diagnostics, [
      e(814, 60, "';' expected"),
      e(814, 97, "';' expected"),
      e(817, 34, "illegal start of type"),
      e(818, 30, "')' or ',' expected"),
      e(819, 26, "illegal start of type"),
      e(820, 22, "')' or ',' expected"),
      e(832, 15, "'catch' without 'try'"),
      e(522, 13, "'try' without 'catch', 'finally' or resource declarations"),
      e(838, 32, "';' expected"),
      e(842, 9, "illegal start of expression"),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [task]);
    assertEquals(summary.duration_ms, 14_000);
    assertEquals(summary.actionable_tasks, {
      total: 42,
      executed: 29,
      up_to_date: 1,
      from_cache: 12,
    });
    // The source and caret lines belong to the error they follow.
    const caret = lines.find((l) => l.text.trim() === "^")!;
    assertEquals(caret.kind, "error");
    const cached = lines.find((l) => l.text.includes("extractReleaseNativeSymbolTables"))!;
    assertEquals(cached.outcome, "FROM-CACHE");
  },
});

Deno.test({
  name: "parseBuildOutput() attributes Kotlin errors under kspXxxKotlin to KSP",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("ksp_task_failed_kotlin_syntax_gradle9.txt");
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "ksp",
        [
          "C:/Users/UNLOST/Downloads/EcoScanner/app/src/main/java/com/ecotracker/ui/auth/LoginFragment.kt",
          22,
          13,
        ],
        "Expecting member declaration",
        { task: ":app:kspDebugKotlin" },
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [":app:kspDebugKotlin"]);
    assertEquals(summary.duration_ms, 4_000);
  },
});

Deno.test({
  name: "parseBuildOutput() takes AAPT2 errors from What went wrong, not the stack trace",
  ignore: !gradleOutput.present,
  fn() {
    const { summary, lines } = real("aapt2_resource_linking_failed_windows_stacktrace.txt");
    const task = ":app:processReleaseResources";
    const msg = "attribute android:singleSelection not found.";
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "aapt2",
        ["D:\\I_Tuoi_Versetti\\app\\src\\main\\res\\layout\\activity_main.xml", 189, null],
        msg,
        { task },
      ),
      diag(
        "error",
        "aapt2",
        [
          "D:\\I_Tuoi_Versetti\\app\\src\\main\\res\\layout\\activity_study_assistant.xml",
          312,
          null,
        ],
        msg,
        { task },
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [task]);
    assertEquals(summary.duration_ms, 30_000);
    assert(lines.filter((l) => l.kind === "stack").length > 100, "stack trace lines classified");
    const caused = lines.find((l) => l.text.startsWith("Caused by: com.android.builder"))!;
    assertEquals(caused.kind, "stack");
  },
});

Deno.test({
  name: "parseBuildOutput() reads the Lint text report with rule ids and underline columns",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("lint_vital_text_report_11_errors_windows_paths.txt");
    const root =
      "D:\\My Folder\\Project\\WorldCupApp\\WorldCupApp_AdMob_Ads\\app\\src\\main\\java\\com\\worldcuptracking\\";
    const msg =
      "When using `setHasFixedSize() in an RecyclerView, wrap_content cannot be used as a value for size in the scrolling direction.";
    const e = (file: string, line: number, column: number) =>
      diag("error", "lint", [root + file, line, column], msg, { rule: "InvalidSetHasFixedSize" });
    // 11 entries, of which two are printed twice identically: 9 distinct problems.
    assertEquals(summary.diagnostics, [
      e("fragment\\GroupFragment.java", 55, 9),
      e("fragment\\GroupFragment.java", 79, 9),
      e("fragment\\MatchFragment.java", 70, 9),
      e("fragment\\MatchFragment.java", 89, 9),
      e("activity\\NewsFeedActivity.java", 200, 17),
      e("activity\\StadiumListActivity.java", 57, 9),
      e("activity\\StadiumListActivity.java", 138, 17),
      e("activity\\TeamActivity.java", 34, 9),
      e("activity\\TeamProfileActivity.java", 61, 9),
    ]);
    assertEquals(summary.status, "unknown");
    assertEquals(summary.failed_tasks, []);
    assertEquals(summary.duration_ms, undefined);
  },
});

Deno.test({
  name: "parseBuildOutput() turns an SDK-location failure into one Gradle diagnostic",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("sdk_location_not_found_dependencies_of_task.txt");
    assertEquals(summary.diagnostics, [
      diag(
        "warning",
        "gradle",
        NO_LOC,
        "The following problems were found when resolving the SDK location:\nWhere: sdk.dir property in local.properties file. Problem: Directory does not exist",
      ),
      diag(
        "error",
        "gradle",
        NO_LOC,
        "Could not determine the dependencies of task ':app:compileDebugJavaWithJavac'.\nSDK location not found. Define a valid SDK location with an ANDROID_HOME environment variable or by setting the sdk.dir path in your project's local properties file at '/app/local.properties'.",
        { task: ":app:compileDebugJavaWithJavac" },
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, []);
    assertEquals(summary.duration_text, "11s");
    assertEquals(summary.duration_ms, 11_000);
    assertEquals(summary.current_task, null);
  },
});

Deno.test({
  name: "parseBuildOutput() reads a successful flavored release build",
  ignore: !gradleOutput.present,
  fn() {
    const { summary, lines } = real("success_bundle_prod_release_flavor_r8_lintvital.txt");
    assertEquals(summary.diagnostics, []);
    assertEquals(summary.status, "success");
    assertEquals(summary.failed_tasks, []);
    assertEquals(summary.duration_text, "2m 55s");
    assertEquals(summary.duration_ms, 175_000);
    assertEquals(summary.current_task, ":app:bundleProdRelease");
    assertEquals(summary.actionable_tasks, {
      total: 52,
      executed: 28,
      up_to_date: 24,
      from_cache: 0,
    });
    assertEquals(lines.filter((l) => l.kind === "task" || l.kind === "task_outcome").length, 60);
  },
});

Deno.test({
  name: "parseBuildOutput() strips ANSI and keeps configuration-time warnings",
  ignore: !gradleOutput.present,
  fn() {
    const { summary, lines } = real("success_multimodule_ansi_config_cache_stored.txt");
    assertEquals(summary.diagnostics, [
      diag(
        "warning",
        "gradle",
        NO_LOC,
        "The option setting 'android.testoptions.manageddevices.emulator.gpu=swiftshader_indirect' is experimental.",
      ),
      diag(
        "warning",
        "kotlin",
        NO_LOC,
        "⚠️ Deprecated Gradle Property 'kotlin.experimental.tryK2' Used\nThe `kotlin.experimental.tryK2` deprecated property is used in your build.\nSolution:\nIt is unsupported, please stop using it.",
      ),
    ]);
    assertEquals(summary.status, "success");
    assertEquals(summary.duration_ms, 33_000);
    assertEquals(summary.actionable_tasks, {
      total: 81,
      executed: 1,
      up_to_date: 80,
      from_cache: 0,
    });
    assert(lines.every((l) => !l.text.includes("\x1b")), "no escape codes left");
    assertEquals(lines.find((l) => l.text === "Configuration cache entry stored.")?.kind, "info");
  },
});

Deno.test({
  name: "parseBuildOutput() survives a hard-wrapped UTF-16LE PowerShell capture",
  ignore: !gradleOutput.present,
  fn() {
    const bytes = gradleOutput.bytes("utf16le_powershell_wrapped_check_aar_metadata_failure.txt");
    assertEquals(detectEncoding(bytes), "utf-16le");
    const { summary } = parseBuildOutput(decodeGradleOutput(bytes));
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [":app:checkReleaseAarMetadata"]);
    assertEquals(summary.duration_ms, 10_000);
    assertEquals(summary.diagnostics.length, 1);
    const [d] = summary.diagnostics;
    assertEquals(
      [d.severity, d.source, d.file, d.line, d.column, d.task],
      ["error", "gradle", null, null, null, ":app:checkReleaseAarMetadata"],
    );
    assert(d.message.startsWith("Execution failed for task\n':app:checkReleaseAarMetadata'."));
    assertStringIncludes(d.message, "desugar_jdk_libs version to be\n2.1.4 or above");
  },
});

Deno.test({
  name: "parseBuildOutput() uses AGPBI JSON positions and dedupes the repeated AAPT line",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("from_issues/aapt2_agpbi_json_hebrew_attr.txt");
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "aapt2",
        ["Simple-Calculator/app/src/main/res/values-he/string.xml", 13, 5],
        "resource attr/איך עובד לחצן (נקה) (aka com.simplemobiletools.calculator.debug:attr/איך עובד לחצן (נקה)) not found.",
        { task: ":app:processDebugResources" },
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [":app:processDebugResources"]);
  },
});

Deno.test({
  name: "parseBuildOutput() reads configuration cache problems with their task",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real(
      "from_issues/configuration_cache_problems_task_project_at_execution.txt",
    );
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "configuration_cache",
        NO_LOC,
        "invocation of 'Task.project' at execution time is unsupported.",
        { task: ":app:generateDebugFeatureFlag" },
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, []);
    assertEquals(summary.duration_ms, 1_000);
  },
});

Deno.test({
  name: "parseBuildOutput() gives one diagnostic per missing artifact",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("from_issues/dependency_resolution_could_not_find_artifact.txt");
    const task = ":app:compileDebugJavaWithJavac";
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "dependency_resolution",
        NO_LOC,
        "Could not find com.appeaser.sublimepickerlibrary:sublimepickerlibrary:2.1.2.\nRequired by:\nproject :app",
        { task, dependency: "com.appeaser.sublimepickerlibrary:sublimepickerlibrary:2.1.2" },
      ),
      diag(
        "error",
        "dependency_resolution",
        NO_LOC,
        "Could not find com.archit.calendar:awesome-calendar:2.0.0.\nRequired by:\nproject :app",
        { task, dependency: "com.archit.calendar:awesome-calendar:2.0.0" },
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, []);
    assertEquals(summary.duration_ms, undefined);
  },
});

Deno.test({
  name: "parseBuildOutput() keeps the variant mismatch under its unresolved project",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("from_issues/dependency_resolution_no_matching_variant.txt");
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "dependency_resolution",
        NO_LOC,
        "Could not resolve project :wizpeerTourGuideFe.\nRequired by:\nproject :app\nNo matching configuration of project :wizpeerTourGuideFe was found. The consumer was configured to find a library for use during compile-time, preferably optimized for Android, as well as attribute 'com.android.build.api.attributes.BuildTypeAttr' with value 'debug', attribute 'com.android.build.api.attributes.AgpVersionAttr' with value '8.2.1', attribute 'org.jetbrains.kotlin.platform.type' with value 'androidJvm' but:\n- None of the consumable configurations have attributes.",
        { task: ":app:compileDebugJavaWithJavac" },
      ),
    ]);
    assertEquals(summary.status, "failed");
  },
});

Deno.test({
  name: "parseBuildOutput() reads R8 missing-class errors",
  ignore: !gradleOutput.present,
  fn() {
    const { summary } = real("from_issues/r8_missing_classes_minifyReleaseWithR8.txt");
    assertEquals(summary.diagnostics, [
      diag(
        "error",
        "r8",
        NO_LOC,
        "Missing classes detected while running R8. Please add the missing classes or apply additional keep rules that are generated in (...)\\build\\app\\outputs\\mapping\\release\\missing_rules.txt.",
      ),
      diag(
        "error",
        "r8",
        NO_LOC,
        "Missing class com.google.j2objc.annotations.ReflectionSupport (referenced from: com.google.common.util.concurrent.AbstractFuture)",
      ),
    ]);
    assertEquals(summary.status, "failed");
    assertEquals(summary.failed_tasks, [":app:minifyReleaseWithR8"]);
  },
});

// ---------------------------------------------------------------- our own outputs (always run)

Deno.test("parseBuildOutput() reads Kotlin old and new location syntax and w: warnings", () => {
  const { summary } = own("kotlin_old_and_new_syntax.txt");
  const cart = "/home/dev/Shop/app/src/main/java/com/example/shop/Cart.kt";
  const checkout = "/home/dev/My Shop/app/src/main/java/com/example/shop/Checkout.kt";
  const task = ":app:compileDebugKotlin";
  assertEquals(summary.diagnostics, [
    diag("warning", "kotlin", [cart, 12, 9], "Variable 'total' is never used", { task }),
    diag("error", "kotlin", [cart, 30, 17], "Unresolved reference: price", { task }),
    diag(
      "error",
      "kotlin",
      [checkout, 7, 5],
      "Type mismatch: inferred type is String but Int was expected",
      { task },
    ),
    diag(
      "warning",
      "kotlin",
      [checkout, 40, 13],
      "'onBackPressed(): Unit' is deprecated. Deprecated in Java",
      { task },
    ),
  ]);
  assertEquals(summary.status, "failed");
  assertEquals(summary.failed_tasks, [task]);
  assertEquals(summary.duration_text, "1m 2s");
  assertEquals(summary.duration_ms, 62_000);
  assertEquals(summary.actionable_tasks, { total: 12, executed: 2, up_to_date: 9, from_cache: 1 });
});

Deno.test("parseBuildOutput() attaches javac source, caret and symbol lines", () => {
  const { summary, lines } = own("javac_caret_and_warnings.txt");
  const f = "/src/app/src/main/java/com/example/Main.java";
  const task = ":app:compileDebugJavaWithJavac";
  assertEquals(summary.diagnostics, [
    diag(
      "error",
      "java",
      [f, 21, 9],
      "cannot find symbol\nsymbol:   variable Helper\nlocation: class Main",
      { task },
    ),
    diag(
      "warning",
      "java",
      [f, 35, 31],
      "[deprecation] getColor(int) in Resources has been deprecated",
      { task },
    ),
    diag(
      "warning",
      "java",
      NO_LOC,
      "[options] source value 8 is obsolete and will be removed in a future release",
      { task },
    ),
  ]);
  assertEquals(summary.failed_tasks, [task]);
  assertEquals(summary.duration_ms, 3_000);
  assertEquals(lines.find((l) => l.text.startsWith("  symbol:"))?.kind, "error");
  assertEquals(lines.find((l) => l.text === "1 error")?.kind, "summary");
  assertEquals(lines.find((l) => l.text.startsWith("Note: "))?.kind, "info");
});

Deno.test("parseBuildOutput() reads a successful build: 1m 19s is 79000 ms", () => {
  const { summary, lines } = own("success_1m19s.txt");
  assertEquals(summary, {
    status: "success",
    duration_text: "1m 19s",
    duration_ms: 79_000,
    failed_tasks: [],
    current_task: ":app:assembleDebug",
    actionable_tasks: { total: 40, executed: 3, up_to_date: 35, from_cache: 2 },
    diagnostics: [],
    diagnostics_truncated: false,
    error_count: 0,
    warning_count: 0,
  });
  assertEquals(
    lines.slice(0, 5).map((l): [string, string | undefined, string | undefined] => [
      l.kind,
      l.task,
      l.outcome,
    ]),
    [
      ["info", undefined, undefined],
      ["task_outcome", ":app:preBuild", "UP-TO-DATE"],
      ["task_outcome", ":app:mergeDebugNativeDebugMetadata", "NO-SOURCE"],
      ["task_outcome", ":app:checkKotlinGradlePluginConfigurationErrors", "SKIPPED"],
      ["task", ":app:compileDebugKotlin", undefined],
    ],
  );
});

Deno.test("parseBuildOutput() handles several failures, * Where: and explained tasks", () => {
  const { summary } = own("multi_failure_where_continue.txt");
  assertEquals(summary.diagnostics, [
    diag(
      "error",
      "kotlin",
      ["/w/lib/src/main/kotlin/Lib.kt", 3, 1],
      "Expecting a top level declaration",
      { task: ":lib:compileDebugKotlin" },
    ),
    diag(
      "error",
      "gradle",
      NO_LOC,
      "Execution failed for task ':app:mergeDebugResources'.\nA failure occurred while executing com.android.build.gradle.internal.res.ResourceCompilerRunnable\nResource compilation failed (Failed to compile values resource file /w/app/build/intermediates/incremental/debug/mergeDebugResources/merged.dir/values/values.xml. Cause: java.lang.IllegalStateException: Can not extract resource from com.android.aaptcompiler.ParsedResource@1a2b3c.). Check logs for more details.",
      { task: ":app:mergeDebugResources" },
    ),
    diag(
      "error",
      "gradle",
      ["/w/app/build.gradle", 42, null],
      "A problem occurred evaluating project ':app'.\nCould not find method compileOnlyy() for arguments [com.example:dep:1.0] on object of type org.gradle.api.internal.artifacts.dsl.dependencies.DefaultDependencyHandler.",
    ),
  ]);
  assertEquals(summary.status, "failed");
  assertEquals(summary.failed_tasks, [":lib:compileDebugKotlin", ":app:mergeDebugResources"]);
  assertEquals(summary.duration_ms, 950);
});

Deno.test("BuildOutputParser.push() classifies lines as they stream", () => {
  const p = new BuildOutputParser();
  const kinds = (ls: string[]) => ls.map((l) => p.push(l).kind);
  assertEquals(p.currentTask, null);
  assertEquals(kinds(["> Task :app:compileDebugKotlin"]), ["task"]);
  assertEquals(p.currentTask, ":app:compileDebugKotlin");
  const line: BuildLine = p.push("e: file:///a/B.kt:1:2 Boom\r");
  assertEquals(line, {
    text: "e: file:///a/B.kt:1:2 Boom",
    kind: "error",
    task: ":app:compileDebugKotlin",
  });
  assertEquals(
    kinds([
      "> Task :app:compileDebugKotlin FAILED",
      "\u001b[31mFAILURE: Build failed with an exception.\u001b[0m",
      "* What went wrong:",
      "Execution failed for task ':app:compileDebugKotlin'.",
      "* Try:",
      "> Run with --stacktrace option to get the stack trace.",
      "",
      "* Exception is:",
      "org.gradle.api.tasks.TaskExecutionException: Execution failed",
      "\tat org.gradle.Foo.bar(Foo.java:1)",
      "BUILD FAILED in 2s",
      "3 actionable tasks: 3 executed",
    ]),
    [
      "task_outcome",
      "error",
      "error",
      "error",
      "info",
      "info",
      "other",
      "stack",
      "stack",
      "stack",
      "summary",
      "summary",
    ],
  );
  const s = p.finish();
  assertEquals(s.diagnostics, [
    diag("error", "kotlin", ["/a/B.kt", 1, 2], "Boom", { task: ":app:compileDebugKotlin" }),
  ]);
  assertEquals(s.actionable_tasks, { total: 3, executed: 3, up_to_date: 0, from_cache: 0 });
  assert(p.finish() === s, "finish() is idempotent");
  assertThrows(() => p.push("more"));
});

Deno.test("BuildOutputParser counts past its cap, once each, and keeps room for errors", () => {
  const p = new BuildOutputParser();
  p.push("> Task :app:compileDebugKotlin FAILED");
  for (let i = 0; i < MAX_DIAGNOSTICS + 30; i++) p.push(`w: file:///a/W.kt:${i + 1}:1 Unused`);
  for (let i = 0; i < 266; i++) p.push(`e: file:///a/B.kt:${i + 1}:5 Unresolved reference 'x'`);
  // Gradle's second copy, inside What went wrong, counts nothing new.
  p.push("* What went wrong:");
  p.push("Execution failed for task ':app:compileDebugKotlin'.");
  for (let i = 0; i < 266; i++) p.push(`> e: file:///a/B.kt:${i + 1}:5 Unresolved reference 'x'`);
  const s = p.finish();
  assertEquals([s.error_count, s.warning_count], [266, MAX_DIAGNOSTICS + 30]);
  const kept = (sev: string) => s.diagnostics.filter((d) => d.severity === sev).length;
  assertEquals([kept("error"), kept("warning")], [MAX_DIAGNOSTICS, MAX_DIAGNOSTICS]);
  assertEquals(s.diagnostics_truncated, true);
  assertEquals(p.diagnosticCount, 266 + MAX_DIAGNOSTICS + 30);
});

Deno.test("BuildOutputParser caps diagnostics, messages and line length", () => {
  const p = new BuildOutputParser();
  p.push("> Task :app:compileDebugKotlin FAILED");
  for (let i = 0; i < MAX_DIAGNOSTICS + 5; i++) p.push(`e: file:///a/B.kt:${i + 1}:1 Boom`);
  p.push(`e: file:///a/C.kt:1:1 ${"x".repeat(MAX_MESSAGE_CHARS * 2)}`);
  const long = p.push("y".repeat(MAX_LINE_CHARS + 100));
  const s = p.finish();
  assertEquals(s.diagnostics.length, MAX_DIAGNOSTICS);
  assertEquals(s.diagnostics_truncated, true);
  assertEquals(s.error_count, MAX_DIAGNOSTICS + 6, "every error is counted, kept or not");
  assertEquals(s.warning_count, 0);
  assertEquals(long.text.length, MAX_LINE_CHARS);

  const q = new BuildOutputParser();
  q.push(`e: file:///a/C.kt:1:1 ${"x".repeat(MAX_MESSAGE_CHARS * 2)}`);
  const [d] = q.finish().diagnostics;
  assertEquals(d.message.length, MAX_MESSAGE_CHARS);
  assert(d.message.endsWith("…"));
});

Deno.test("BuildOutputParser keeps a failure explained only by What went wrong", () => {
  const { summary } = parseBuildOutput([
    "> Task :app:bad FAILED",
    "",
    "FAILURE: Build failed with an exception.",
    "",
    "* What went wrong:",
    "Execution failed for task ':app:bad'.",
    "> Boom from a plugin",
    "",
    "BUILD FAILED in 1s",
  ].join("\n"));
  assertEquals(summary.diagnostics, [
    diag("error", "gradle", NO_LOC, "Execution failed for task ':app:bad'.\nBoom from a plugin", {
      task: ":app:bad",
    }),
  ]);
});

Deno.test("parseBuildOutput() reads warn-mode configuration cache problems as warnings", () => {
  const { summary } = parseBuildOutput([
    "Configuration cache entry stored with 2 problems.",
    "2 problems were found storing the configuration cache.",
    "- Build file 'app/build.gradle': line 12: read system property 'user.home'",
    "- Task `:app:foo` of type `Foo`: invocation of 'Task.project' at execution time is unsupported.",
    "",
    "See the complete report at file:///w/build/reports/configuration-cache/x.html",
    "BUILD SUCCESSFUL in 5s",
  ].join("\n"));
  assertEquals(summary.diagnostics, [
    diag(
      "warning",
      "configuration_cache",
      ["app/build.gradle", 12, null],
      "read system property 'user.home'",
    ),
    diag(
      "warning",
      "configuration_cache",
      NO_LOC,
      "invocation of 'Task.project' at execution time is unsupported.",
      { task: ":app:foo" },
    ),
  ]);
  assertEquals(summary.status, "success");
});

Deno.test("decodeGradleOutput() detects UTF-16 by BOM or NULs, strips BOM, CR and ANSI", () => {
  const text = "> Task :a FAILED\r\n\u001b[1mBUILD FAILED\u001b[0m in 1s\rdone é";
  const want = "> Task :a FAILED\nBUILD FAILED in 1s\ndone é";
  const le = new Uint8Array(text.length * 2);
  const be = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    le[2 * i] = c & 0xff;
    le[2 * i + 1] = c >> 8;
    be[2 * i] = c >> 8;
    be[2 * i + 1] = c & 0xff;
  }
  const cat = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) out.set(p, (o += p.length) - p.length);
    return out;
  };
  assertEquals(detectEncoding(le), "utf-16le");
  assertEquals(detectEncoding(be), "utf-16be");
  assertEquals(decodeGradleOutput(le), want);
  assertEquals(decodeGradleOutput(be), want);
  assertEquals(decodeGradleOutput(cat(new Uint8Array([0xff, 0xfe]), le)), want);
  assertEquals(decodeGradleOutput(cat(new Uint8Array([0xfe, 0xff]), be)), want);
  const utf8 = new TextEncoder().encode(text);
  assertEquals(detectEncoding(utf8), "utf-8");
  assertEquals(decodeGradleOutput(utf8), want);
  assertEquals(decodeGradleOutput(cat(new Uint8Array([0xef, 0xbb, 0xbf]), utf8)), want);
  assertEquals(decodeGradleOutput(new Uint8Array()), "");
});

Deno.test("fileUriToPath() and parseGradleDuration() handle the printed forms", () => {
  assertEquals(
    fileUriToPath("file:///C:/Android%20Development/x.kt"),
    "C:/Android Development/x.kt",
  );
  assertEquals(fileUriToPath("file:///home/a%2Bb/x.kt"), "/home/a+b/x.kt");
  assertEquals(fileUriToPath("file:///bad%zz.kt"), "/bad%zz.kt");
  assertEquals(parseGradleDuration("1h 2m 3s"), 3_723_000);
  assertEquals(parseGradleDuration("450ms"), 450);
  assertEquals(parseGradleDuration("soon"), null);
});

Deno.test("benchParse() reports a throughput for the lines it was given", () => {
  const lines = own("kotlin_old_and_new_syntax.txt").lines.map((l) => l.text);
  const r = benchParse(lines, 3);
  assertEquals(r.lines, lines.length * 3);
  assertEquals(r.rounds, 3);
  assertEquals(r.diagnostics, 4);
  assert(r.linesPerSecond > 0);
});

// ---------------------------------------------------------------- issue 11: the same discipline

Deno.test("a diagnostic Gradle prints again in What went wrong, indented, counts once", () => {
  const { summary } = own("javac_repeated_in_what_went_wrong.txt");
  const errors = summary.diagnostics.filter((d) => d.severity === "error");
  assertEquals(errors.length, 1, JSON.stringify(errors, null, 1));
  assertEquals(
    errors[0].file,
    "/home/dev/Shop/app/src/main/java/com/example/shop/CartActivity.java",
  );
  assertEquals([errors[0].line, errors[0].column], [42, 9], "the column of the task output's copy");
  assertStringIncludes(errors[0].message, "symbol:   class Strin");
});

Deno.test("two javac errors on one line at two columns stay two", () => {
  const { summary } = parseBuildOutput([
    "> Task :app:compileDebugJavaWithJavac FAILED",
    "/p/app/src/main/java/A.java:3: error: ';' expected",
    "    int a = 1 int b = 2",
    "             ^",
    "/p/app/src/main/java/A.java:3: error: ';' expected",
    "    int a = 1 int b = 2",
    "                       ^",
    "2 errors",
  ].join("\n"));
  assertEquals(summary.diagnostics.map((d) => d.column), [14, 24]);
});

Deno.test("a Hilt MissingBinding error keeps its chain, is marked generated and names its cause", () => {
  const { summary } = own("hilt_missing_binding_chain.txt");
  assertEquals(summary.diagnostics.length, 1, JSON.stringify(summary.diagnostics, null, 1));
  const d = summary.diagnostics[0];
  assertEquals(d.source, "java");
  assertEquals(d.generated, true);
  assertStringIncludes(
    d.message,
    "[Dagger/MissingBinding] com.example.movies.domain.GetMoviesUseCase",
  );
  assertEquals(d.chain?.[0], "com.example.movies.domain.GetMoviesUseCase is injected at");
  assert(
    d.chain!.includes("com.example.movies.ui.search.SearchViewModel(getMovies)"),
    JSON.stringify(d.chain),
  );
  assert(d.chain!.includes("It is also requested at:"));
  assertEquals(d.caused_at, "com.example.movies.ui.home.HomeViewModel(getMovies)");
});

Deno.test("a Dagger chain is bounded", () => {
  const lines = [
    "> Task :app:kaptDebugKotlin FAILED",
    "/p/app/build/tmp/kapt3/stubs/debug/com/x/AppComponent.java:8: error: [Dagger/MissingBinding] com.x.Api cannot be provided without an @Provides-annotated method.",
    "public abstract interface AppComponent {",
    "                ^",
  ];
  for (let i = 0; i < 500; i++) {
    lines.push(`      com.x.T${i} is injected at`, `          com.x.T${i + 1}(t${i})`);
  }
  const d = parseBuildOutput(lines.join("\n")).summary.diagnostics[0];
  assertEquals(d.chain!.length, 40);
  assertEquals(d.generated, true);
  assertEquals(d.caused_at, "com.x.T1(t0)");
});

Deno.test("presentDiagnostic() marks a file outside the project; the text line says so", async () => {
  const { presentDiagnostic, diagnosticLine } = await import(
    "../../lib/build/shared/diagnostic_view.ts"
  );
  const inside = presentDiagnostic("/home/dev/Shop", {
    severity: "error",
    source: "java",
    file: "/home/dev/Shop/app/build/generated/hilt/A.java",
    line: 3,
    column: null,
    message: "[Dagger/MissingBinding] x",
    generated: true,
    caused_at: "com.x.HomeViewModel(a)",
  });
  assertEquals(inside.file, "app/build/generated/hilt/A.java");
  assertEquals("outside_project" in inside, false);
  assertEquals(
    diagnosticLine(inside),
    "app/build/generated/hilt/A.java:3 error: [Dagger/MissingBinding] x " +
      "[generated file; caused at com.x.HomeViewModel(a)]",
  );
  const outside = presentDiagnostic("/home/dev/Shop", {
    severity: "warning",
    source: "kotlin",
    file: "/home/dev/.gradle/caches/lib/B.kt",
    line: 1,
    column: 1,
    message: "deprecated",
  });
  assertEquals(outside.outside_project, true);
  assertStringIncludes(diagnosticLine(outside), "[outside the project]");
});

Deno.test("old kapt's e:-prefixed javac error is one diagnostic with its chain, not one per line", () => {
  const { summary } = own("kapt_e_prefixed_dagger_chain.txt");
  const errors = summary.diagnostics.filter((d) => d.file !== null);
  assertEquals(errors.length, 1, JSON.stringify(summary.diagnostics, null, 1));
  const d = errors[0];
  assertEquals([d.source, d.line, d.column, d.generated], ["kapt", 6, 17, true]);
  assert(d.message.startsWith("[dagger.android.AndroidInjector.inject(T)] io.github.x.data.api"));
  assertEquals(d.chain?.length, 4);
  assertEquals(d.caused_at, "io.github.x.di.AppModule.provideContributorsRepository(api, …)");
  // Only kapt's own wrapper line besides it: no row per source, caret or chain line.
  assertEquals(summary.diagnostics.length, 2);
});

Deno.test("parseBuildOutput() names a missing dependency's coordinates, also when no leaf did", () => {
  const { summary } = parseBuildOutput([
    "* What went wrong:",
    "Execution failed for task ':app:checkDebugAarMetadata'.",
    "> Could not resolve all files for configuration ':app:debugRuntimeClasspath'.",
    "   > Failed to transform core-1.16.0.aar (androidx.core:core:1.16.0) to match attributes " +
    "{artifactType=android-aar-metadata}.",
    "",
    "* What went wrong:",
    "Could not determine the dependencies of task ':app:compileDebugKotlin'.",
    "> Could not resolve all task dependencies for configuration ':app:debugCompileClasspath'.",
    "   > Could not find any matches for com.example:widgets:2.+ as no versions of " +
    "com.example:widgets are available.",
    "     Required by:",
    "         project :app",
    "",
    "BUILD FAILED in 2s",
  ].join("\n"));
  const deps = summary.diagnostics.map((d) => [d.source, d.dependency]);
  assertEquals(deps, [
    ["dependency_resolution", "androidx.core:core:1.16.0"],
    ["dependency_resolution", "com.example:widgets:2.+"],
  ]);
  const lines = summary.diagnostics.map((d) => diagnosticLine(presentDiagnostic("/p", d)));
  assert(lines[0].includes("[dependency androidx.core:core:1.16.0]"), lines[0]);
  assert(lines[1].includes("com.example:widgets:2.+"), lines[1]);
  assert(!lines[1].includes("[dependency"), "no mark when the first line names it already");
});

Deno.test("parseBuildOutput() reads each manifest merger report line as one diagnostic at its place", () => {
  const { summary } = parseBuildOutput([
    "> Task :app:processReleaseMainManifest FAILED",
    "/w/app/src/main/AndroidManifest.xml:12:9-40 Error:",
    "\tAttribute application@label value=(@string/a) from AndroidManifest.xml:12:9-40",
    "\tis also present at [com.example:lib:1.0] AndroidManifest.xml:8:18-50 value=(b).",
    "[com.example:lib:1.0] /c/lib-1.0/AndroidManifest.xml Warning:",
    "        Namespace 'com.example' is used in multiple modules.",
    "/w/app/src/main/AndroidManifest.xml Error:",
    "\tValidation failed, exiting",
    "",
    "* What went wrong:",
    "Execution failed for task ':app:processReleaseMainManifest'.",
    "> Manifest merger failed with multiple errors, see logs",
    "",
    "BUILD FAILED in 3s",
  ].join("\n"));
  const got = summary.diagnostics.map((d) => [d.severity, d.source, d.file, d.line, d.column]);
  assertEquals(got, [
    ["error", "manifest_merger", "/w/app/src/main/AndroidManifest.xml", 12, 9],
    ["warning", "manifest_merger", "/c/lib-1.0/AndroidManifest.xml", null, null],
    ["error", "manifest_merger", "/w/app/src/main/AndroidManifest.xml", null, null],
  ]);
  assertEquals(summary.diagnostics[0].message.split("\n").length, 2, "both message lines");
  assertEquals(summary.diagnostics[1].dependency, "com.example:lib:1.0");
  assertEquals([summary.error_count, summary.warning_count], [2, 1], "the block adds nothing");
});

Deno.test("parseBuildOutput() keeps R8's listed missing classes in the one diagnostic", () => {
  const { summary } = parseBuildOutput([
    "> Task :app:minifyReleaseWithR8 FAILED",
    "ERROR: Missing classes detected while running R8. Please add the missing classes or apply " +
    "additional keep rules that are generated in /w/app/build/outputs/mapping/release/missing_rules.txt.",
    "ERROR: R8: Missing class com.example.a.Gone (referenced from: void com.example.b.Use.run())",
    "Missing class com.example.a.AlsoGone (referenced from: com.example.b.Other)",
    "",
    "* What went wrong:",
    "Execution failed for task ':app:minifyReleaseWithR8'.",
    "> A failure occurred while executing com.android.build.gradle.internal.tasks.R8Task$R8Runnable",
    "   > Compilation failed to complete",
    "",
    "BUILD FAILED in 9s",
  ].join("\n"));
  assertEquals(summary.error_count, 2);
  const r8 = summary.diagnostics.filter((d) => d.source === "r8").map((d) => d.message);
  assertEquals(r8[1].split("\n"), [
    "Missing class com.example.a.Gone (referenced from: void com.example.b.Use.run())",
    "Missing class com.example.a.AlsoGone (referenced from: com.example.b.Other)",
  ]);
});
