/**
 * The fake `gradlew` as a child process: what it prints, writes, journals, and how it stops.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { type Simulator, startSimulator } from "./mod.ts";
import { readAxmlManifest, readStoredZip } from "./gradle/_zip_reader.ts";

const dec = new TextDecoder();

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function gradlew(sim: Simulator, project: string, args: string[]): Promise<Result> {
  const dir = sim.projects[project];
  const out = await new Deno.Command(`${dir}/gradlew`, {
    args,
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

function lines(s: string): string[] {
  return s.split("\n");
}

function sourceLine(path: string, line: number): Promise<string> {
  return Deno.readTextFile(path).then((t) => t.split("\n")[line - 1]);
}

async function sha256(path: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function fastSim(): Promise<Simulator> {
  const sim = await startSimulator();
  await sim.gradle("sample-kts").setTaskDelay(0);
  await sim.gradle("sample-groovy").setTaskDelay(0);
  return sim;
}

Deno.test("gradlew assembleDemoDebug prints tasks in order and writes the APK and its metadata", async () => {
  await using sim = await startSimulator();
  const r = await gradlew(sim, "sample-kts", [
    "assembleDemoDebug",
    "--console=plain",
    "--no-daemon",
  ]);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.stderr, "");
  const out = lines(r.stdout);
  assertMatch(out[0], /^To honour the JVM settings for this build a single-use Daemon process/);
  const order = [
    "> Task :app:preBuild UP-TO-DATE",
    "> Task :app:preDemoDebugBuild UP-TO-DATE",
    "> Task :app:generateDemoDebugResources UP-TO-DATE",
    "> Task :app:mergeDemoDebugResources",
    "> Task :app:processDemoDebugResources",
    "> Task :app:compileDemoDebugKotlin",
    "> Task :app:compileDemoDebugJavaWithJavac",
    "> Task :app:dexBuilderDemoDebug",
    "> Task :app:mergeDexDemoDebug",
    "> Task :app:packageDemoDebug",
    "> Task :app:assembleDemoDebug",
  ];
  const at = order.map((l) => out.indexOf(l));
  assert(at.every((i) => i > 0), `all present: ${JSON.stringify(at)}`);
  assert(at.every((i, k) => k === 0 || i > at[k - 1]), `in order: ${JSON.stringify(at)}`);
  const tail = out.slice(-4);
  assertEquals(tail[0], "");
  assertMatch(tail[1], /^BUILD SUCCESSFUL in \d+s$/);
  const executed = out.filter((l) =>
    /^> Task \S+$/.test(l) && l !== "> Task :app:assembleDemoDebug"
  );
  assertEquals(tail[2], `${executed.length} actionable tasks: ${executed.length} executed`);
  assertEquals(tail[3], "");

  const dir = `${sim.projects["sample-kts"]}/app/build/outputs/apk/demo/debug`;
  const meta = JSON.parse(await Deno.readTextFile(`${dir}/output-metadata.json`));
  assertEquals(meta.version, 3);
  assertEquals(meta.artifactType, { type: "APK", kind: "Directory" });
  assertEquals(meta.applicationId, "com.example.keynobi.sample.demo.debug");
  assertEquals(meta.variantName, "demoDebug");
  assertEquals(meta.elementType, "File");
  assertEquals(meta.elements, [{
    type: "SINGLE",
    filters: [],
    attributes: [],
    versionCode: 3,
    versionName: "1.2.0-demo",
    outputFile: "app-demo-debug.apk",
  }]);
  const apk = await Deno.readFile(`${dir}/app-demo-debug.apk`);
  const entries = readStoredZip(apk);
  assertEquals([...entries.keys()], [
    "AndroidManifest.xml",
    "classes.dex",
    "resources.arsc",
    "META-INF/",
    "META-INF/MANIFEST.MF",
  ]);
  assertEquals(readAxmlManifest(entries.get("AndroidManifest.xml")!), {
    package: "com.example.keynobi.sample.demo.debug",
    versionCode: 3,
    versionName: "1.2.0-demo",
  });

  const [run] = await sim.gradle("sample-kts").readJournal();
  assertEquals(run.argv, ["assembleDemoDebug", "--console=plain", "--no-daemon"]);
  assertEquals(run.outcome, "success");
  assertEquals(run.exit_code, 0);
  assertEquals(run.scenario, "success");
  assertEquals(run.cwd, sim.projects["sample-kts"]);
  assertEquals(run.tasks.at(-1), ":app:assembleDemoDebug");
  assertEquals(run.outputs, [
    "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
    "app/build/outputs/apk/demo/debug/output-metadata.json",
  ]);
  assertEquals(typeof run.pid, "number");
  assert("JAVA_HOME" in run.env && "ANDROID_HOME" in run.env && "ANDROID_SDK_ROOT" in run.env);
});

Deno.test("gradlew: each build writes different APK bytes; clean deletes app/build", async () => {
  await using sim = await fastSim();
  const apk = `${
    sim.projects["sample-kts"]
  }/app/build/outputs/apk/full/release/app-full-release.apk`;
  assertEquals((await gradlew(sim, "sample-kts", ["assembleFullRelease"])).code, 0);
  const first = await sha256(apk);
  const r = await gradlew(sim, "sample-kts", ["assembleFullRelease"]);
  assertEquals(r.code, 0);
  assert(!r.stdout.includes("Starting a Gradle Daemon"), "the daemon is already running");
  assertStringIncludes(r.stdout, "> Task :app:minifyFullReleaseWithR8\n");
  assertStringIncludes(r.stdout, "> Task :app:lintVitalFullRelease\n");
  assert(first !== await sha256(apk), "build number changes the bytes");
  const c = await gradlew(sim, "sample-kts", ["clean"]);
  assertEquals(c.code, 0);
  assertStringIncludes(c.stdout, "> Task :app:clean\n");
  let gone = false;
  await Deno.stat(`${sim.projects["sample-kts"]}/app/build`).catch(() => gone = true);
  assert(gone, "app/build removed");
  const runs = await sim.gradle("sample-kts").readJournal();
  assertEquals(runs.map((x) => x.build), [1, 2, 3]);
});

Deno.test("gradlew: no flavors → no flavor folder; bundle writes an .aab; assemble builds all", async () => {
  await using sim = await fastSim();
  const root = sim.projects["sample-groovy"];
  assertEquals((await gradlew(sim, "sample-groovy", ["assemble"])).code, 0);
  for (const bt of ["debug", "release"]) {
    const meta = JSON.parse(
      await Deno.readTextFile(`${root}/app/build/outputs/apk/${bt}/output-metadata.json`),
    );
    assertEquals(meta.variantName, bt);
    assertEquals(meta.elements[0].outputFile, `app-${bt}.apk`);
    assertEquals(
      meta.applicationId,
      bt === "debug" ? "com.example.keynobi.groovy.debug" : "com.example.keynobi.groovy",
    );
    assert((await Deno.stat(`${root}/app/build/outputs/apk/${bt}/app-${bt}.apk`)).isFile);
  }
  const b = await gradlew(sim, "sample-kts", [":app:bunDR"]);
  assertEquals(b.code, 0, b.stderr);
  assertStringIncludes(b.stdout, "> Task :app:bundleDemoRelease\n");
  const aab = `${
    sim.projects["sample-kts"]
  }/app/build/outputs/bundle/demoRelease/app-demo-release.aab`;
  assert(readStoredZip(await Deno.readFile(aab)).has("base/manifest/AndroidManifest.xml"));
});

Deno.test("gradlew: abbreviations expand like Gradle's; ambiguous ones fail with candidates", async () => {
  await using sim = await fastSim();
  const t = await gradlew(sim, "sample-kts", ["tDDUT"]);
  assertEquals(t.code, 0, t.stderr);
  assertStringIncludes(t.stdout, "> Task :app:testDemoDebugUnitTest\n");
  const xml = await Deno.readTextFile(
    `${sim.projects["sample-kts"]}/app/build/test-results/testDemoDebugUnitTest/` +
      "TEST-com.example.keynobi.sample.GreetingFormatterTest.xml",
  );
  assertStringIncludes(xml, 'tests="2" skipped="0" failures="0"');

  const a = await gradlew(sim, "sample-kts", [":app:aDD"]);
  assertEquals(a.code, 1);
  const err = lines(a.stderr);
  assertEquals(err.slice(0, 6), [
    "",
    "FAILURE: Build failed with an exception.",
    "",
    "* What went wrong:",
    "Cannot locate tasks that match ':app:aDD' as task 'aDD' is ambiguous in project ':app'. " +
    "Candidates are: 'assembleDemoDebug', 'assembleDemoDebugAndroidTest', 'assembleDemoDebugUnitTest'.",
    "",
  ]);
  assertEquals(err[6], "* Try:");
  assertEquals(err[7], "> Run gradlew tasks to get a list of available tasks.");
  assertMatch(a.stdout, /BUILD FAILED in \d+s\n$/);

  const u = await gradlew(sim, "sample-kts", ["aDD"]);
  assertStringIncludes(
    u.stderr,
    "Task 'aDD' is ambiguous in root project 'KeynobiSample' and its subprojects. Candidates are: " +
      "'assembleDemoDebug', 'assembleDemoDebugAndroidTest', 'assembleDemoDebugUnitTest'.\n",
  );
  const runs = await sim.gradle("sample-kts").readJournal();
  assertEquals(runs.map((x) => x.outcome), [
    "success",
    "task_selection_failed",
    "task_selection_failed",
  ]);
  assertEquals(runs[1].tasks, []);
});

Deno.test("gradlew: an unknown task fails with Gradle's message, Try lines and exit 1", async () => {
  await using sim = await fastSim();
  const r = await gradlew(sim, "sample-groovy", ["assembel"]);
  assertEquals(r.code, 1);
  assertEquals(lines(r.stderr).slice(3, 15), [
    "* What went wrong:",
    "Task 'assembel' not found in root project 'KeynobiGroovy' and its subprojects. " +
    "Some candidates are: 'assemble'.",
    "",
    "* Try:",
    "> Run gradlew tasks to get a list of available tasks.",
    "> For more on name expansion, please refer to https://docs.gradle.org/8.9/userguide/" +
    "command_line_interface.html#sec:name_abbreviation in the Gradle documentation.",
    "> Run with --stacktrace option to get the stack trace.",
    "> Run with --info or --debug option to get more log output.",
    "> Run with --scan to get full insights.",
    "> Get more help at https://help.gradle.org.",
    "",
    "",
  ]);
  assertMatch(
    r.stdout,
    /^Starting a Gradle Daemon \(subsequent builds will be faster\)\nBUILD FAILED in \d+s\n$/,
  );
  const q = await gradlew(sim, "sample-groovy", [":app:foo", "-q"]);
  assertEquals(q.code, 1);
  assertEquals(q.stdout, "", "-q hides lifecycle output");
  assertStringIncludes(
    q.stderr,
    "Cannot locate tasks that match ':app:foo' as task 'foo' not found in project ':app'.",
  );
  const bad = await gradlew(sim, "sample-groovy", ["--frobnicate"]);
  assertEquals(bad.code, 1);
  assertStringIncludes(bad.stderr, "Unknown command-line option '--frobnicate'.\n");
  const runs = await sim.gradle("sample-groovy").readJournal();
  assertEquals(runs.map((x) => x.outcome), [
    "task_selection_failed",
    "task_selection_failed",
    "usage_error",
  ]);
});

Deno.test("gradlew --version prints the Gradle 8.9 banner", async () => {
  await using sim = await fastSim();
  const r = await gradlew(sim, "sample-kts", ["--version"]);
  assertEquals(r.code, 0);
  const out = lines(r.stdout);
  assertEquals(out.slice(0, 4), [
    "",
    "------------------------------------------------------------",
    "Gradle 8.9",
    "------------------------------------------------------------",
  ]);
  assertMatch(r.stdout, /\nKotlin: {8}1\.9\.23\n/);
  assertMatch(r.stdout, /\nOS: {12}\S+ /);
  assertEquals((await sim.gradle("sample-kts").readJournal())[0].outcome, "version");
});

Deno.test("gradlew kotlin_error: e: lines point at real lines of MainActivity.kt", async () => {
  await using sim = await fastSim();
  await sim.gradle("sample-kts").setScenario("assembleDemoDebug", "kotlin_error");
  const root = sim.projects["sample-kts"];
  const r = await gradlew(sim, "sample-kts", ["assembleDemoDebug", "--stacktrace"]);
  assertEquals(r.code, 1);
  assertStringIncludes(r.stdout, "\n> Task :app:compileDemoDebugKotlin FAILED\n");
  assert(!r.stdout.includes("> Task :app:compileDemoDebugJavaWithJavac"), "stops at the failure");
  const e = lines(r.stderr).filter((l) => l.startsWith("e: "));
  assertEquals(e.length, 2);
  const file = `${root}/app/src/main/java/com/example/keynobi/sample/MainActivity.kt`;
  for (const l of e) {
    const m = /^e: file:\/\/(\/.+\.kt):(\d+):(\d+) Unresolved reference '(\w+)'\.$/.exec(l);
    assert(m, l);
    assertEquals(m[1], file);
    const src = await sourceLine(m[1], Number(m[2]));
    assert(src.slice(Number(m[3]) - 1).startsWith(m[4]), `${m[4]} at ${m[2]}:${m[3]}: ${src}`);
  }
  assertStringIncludes(
    r.stderr,
    "* What went wrong:\nExecution failed for task ':app:compileDemoDebugKotlin'.\n" +
      "> A failure occurred while executing org.jetbrains.kotlin.compilerRunner." +
      "GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction\n" +
      "   > Compilation error. See log for more details\n",
  );
  assertStringIncludes(r.stderr, "* Exception is:\norg.gradle.api.tasks.TaskExecutionException:");
  assert(!r.stderr.includes("Run with --stacktrace option"), "not offered with --stacktrace");
  assertMatch(r.stdout, /\nBUILD FAILED in \d+s\n\d+ actionable tasks: \d+ executed\n$/);
  // Another task of the same project is not affected.
  assertEquals((await gradlew(sim, "sample-kts", ["assembleFullDebug"])).code, 0);
  const runs = await sim.gradle("sample-kts").readJournal();
  assertEquals(runs.map((x) => [x.scenario, x.outcome, x.exit_code]), [
    ["kotlin_error", "build_failed", 1],
    ["success", "success", 0],
  ]);
});

Deno.test("gradlew java_error: javac line, source line and caret", async () => {
  await using sim = await fastSim();
  await sim.gradle("sample-groovy").setScenario("default", "java_error");
  const r = await gradlew(sim, "sample-groovy", ["assembleDebug"]);
  assertEquals(r.code, 1);
  assertStringIncludes(r.stdout, "\n> Task :app:compileDebugJavaWithJavac FAILED\n");
  const err = lines(r.stderr);
  const i = err.findIndex((l) => l.includes(": error: ';' expected"));
  const m = /^(\/.+\.java):(\d+): error: ';' expected$/.exec(err[i]);
  assert(m, err[i]);
  const src = await sourceLine(m[1], Number(m[2]));
  assertEquals(err[i + 1], src);
  assertMatch(err[i + 2], /^ +\^$/);
  assertEquals(src[err[i + 2].length - 2], ")", "caret just after the statement");
  assertEquals(err[i + 3], "1 error");
  assertStringIncludes(
    r.stderr,
    "Execution failed for task ':app:compileDebugJavaWithJavac'.\n" +
      "> Compilation failed; see the compiler error output for details.\n",
  );
});

Deno.test("gradlew aapt_error: ERROR line with the layout's absolute path and a real line", async () => {
  await using sim = await fastSim();
  await sim.gradle("sample-kts").setScenario(":app:assembleFullDebug", "aapt_error");
  const r = await gradlew(sim, "sample-kts", ["assembleFullDebug"]);
  assertEquals(r.code, 1);
  assertStringIncludes(r.stdout, "\n> Task :app:processFullDebugResources FAILED\n");
  const m = /\n {5}ERROR: (\/.+\.xml):(\d+): AAPT: error: attribute (\S+) not found\.\n/.exec(
    r.stderr,
  );
  assert(m, r.stderr);
  assertEquals(m[1], `${sim.projects["sample-kts"]}/app/src/main/res/layout/activity_main.xml`);
  assertStringIncludes(await sourceLine(m[1], Number(m[2])), `${m[3]}=`);
  assertStringIncludes(
    r.stderr,
    "Execution failed for task ':app:processFullDebugResources'.\n" +
      "> A failure occurred while executing com.android.build.gradle.internal.res." +
      "LinkApplicationAndroidResourcesTask$TaskAction\n   > Android resource linking failed\n",
  );
});

Deno.test("gradlew sdk_location and dependency_resolution fail before any task runs", async () => {
  await using sim = await fastSim();
  const g = sim.gradle("sample-kts");
  await g.setScenario("default", "sdk_location");
  const s = await gradlew(sim, "sample-kts", ["assembleDemoDebug"]);
  assertEquals(s.code, 1);
  assert(!s.stdout.includes("> Task"), s.stdout);
  assertStringIncludes(
    s.stderr,
    "Could not determine the dependencies of task ':app:compileDemoDebugJavaWithJavac'.\n" +
      "> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment " +
      "variable or by setting the sdk.dir path in your project's local properties file at " +
      `'${sim.projects["sample-kts"]}/local.properties'.\n`,
  );
  await g.setScenario("default", "dependency_resolution");
  const d = await gradlew(sim, "sample-kts", ["assembleDemoDebug"]);
  assertEquals(d.code, 1);
  assert(!d.stdout.includes("> Task"), d.stdout);
  assertStringIncludes(
    d.stderr,
    "Could not determine the dependencies of task ':app:compileDemoDebugKotlin'.\n" +
      "> Could not resolve all task dependencies for configuration ':app:demoDebugCompileClasspath'.\n" +
      "   > Could not find androidx.core:core-ktx:1.13.1.\n     Required by:\n         project :app\n",
  );
  assertMatch(d.stdout, /BUILD FAILED in \d+s\n$/);
  const runs = await g.readJournal();
  assertEquals(runs.map((x) => x.outcome), ["configuration_failed", "configuration_failed"]);
});

Deno.test("gradlew require_sdk: fails without ANDROID_HOME, builds with it", async () => {
  await using sim = await fastSim();
  await sim.gradle("sample-groovy").requireSdk(true);
  const dir = sim.projects["sample-groovy"];
  const env = { ...Deno.env.toObject() };
  delete env.ANDROID_HOME;
  delete env.ANDROID_SDK_ROOT;
  const run = (extra: Record<string, string>) =>
    new Deno.Command(`${dir}/gradlew`, {
      args: ["assembleDebug"],
      cwd: dir,
      env: { ...env, ...extra },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
  const no = await run({});
  assertEquals(no.code, 1);
  assertStringIncludes(dec.decode(no.stderr), "> SDK location not found.");
  const yes = await run({ ANDROID_HOME: sim.sdkRoot });
  assertEquals(yes.code, 0, dec.decode(yes.stderr));
  const runs = await sim.gradle("sample-groovy").readJournal();
  assertEquals(runs[1].env.ANDROID_HOME, sim.sdkRoot);
  assertEquals(runs[0].env.ANDROID_HOME, null);
});

Deno.test("gradlew lint_error: lint text with a real line, aborting the build", async () => {
  await using sim = await fastSim();
  await sim.gradle("sample-kts").setScenario("default", "lint_error");
  const r = await gradlew(sim, "sample-kts", ["lintDemoDebug"]);
  assertEquals(r.code, 1);
  assertStringIncludes(r.stdout, "\n> Task :app:lintDemoDebug FAILED\n");
  const m = /\n(\/.+\.kt):(\d+): Error: (.+) \[NewApi\]\n(.*)\n( *)(~+)\n/.exec(r.stdout);
  assert(m, r.stdout);
  const src = await sourceLine(m[1], Number(m[2]));
  assertEquals(m[4], src);
  assertEquals(src.slice(m[5].length, m[5].length + m[6].length), "now");
  assertStringIncludes(
    r.stderr,
    "Execution failed for task ':app:lintDemoDebug'.\n> Lint found errors in the project; aborting build.\n",
  );
  // A debug assemble has no lint task: the scenario has nothing to fail.
  assertEquals((await gradlew(sim, "sample-kts", ["assembleDemoDebug"])).code, 0);
});

Deno.test("gradlew kotlin_warning_success: a w: line, then success", async () => {
  await using sim = await fastSim();
  await sim.gradle("sample-kts").setScenario("default", "kotlin_warning_success");
  const r = await gradlew(sim, "sample-kts", ["assembleDemoDebug"]);
  assertEquals(r.code, 0);
  const m = /\n> Task :app:compileDemoDebugKotlin\nw: file:\/\/(\/.+\.kt):(\d+):(\d+) (.+)\n/.exec(
    r.stdout,
  );
  assert(m, r.stdout);
  const src = await sourceLine(m[1], Number(m[2]));
  assert(src.slice(Number(m[3]) - 1).startsWith("onBackPressed"), src);
  assertMatch(r.stdout, /\nBUILD SUCCESSFUL in \d+s\n/);
});

Deno.test("gradlew test_failure: unit and connected tests fail in Gradle's shape", async () => {
  await using sim = await fastSim();
  const g = sim.gradle("sample-kts");
  await g.setScenario("default", "test_failure");
  const u = await gradlew(sim, "sample-kts", ["testDemoDebugUnitTest"]);
  assertEquals(u.code, 1);
  const m =
    /\n> Task :app:testDemoDebugUnitTest\n\nGreetingFormatterTest > formatsName FAILED\n {4}org\.junit\.ComparisonFailure at GreetingFormatterTest\.kt:(\d+)\n\n2 tests completed, 1 failed\n\n> Task :app:testDemoDebugUnitTest FAILED\n/
      .exec(u.stdout);
  assert(m, u.stdout);
  const test = `${
    sim.projects["sample-kts"]
  }/app/src/test/java/com/example/keynobi/sample/GreetingFormatterTest.kt`;
  assertStringIncludes(await sourceLine(test, Number(m[1])), 'assertEquals("Hi, Ada!"');
  assertStringIncludes(u.stderr, "> There were failing tests. See the report at: file:///");

  const c = await gradlew(sim, "sample-kts", ["connectedDemoDebugAndroidTest"]);
  assertEquals(c.code, 1);
  assertStringIncludes(
    c.stdout,
    "\n> Task :app:connectedDemoDebugAndroidTest\nStarting 2 tests on Pixel_8_API_35(AVD) - 15\n",
  );
  assertStringIncludes(
    c.stdout,
    "com.example.keynobi.sample.MainActivityTest > tapIncrementsCounter[Pixel_8_API_35(AVD) - 15] FAILED \n",
  );
  assertStringIncludes(
    c.stdout,
    "Tests on Pixel_8_API_35(AVD) - 15 failed: There was 1 failure(s).\n",
  );
  assertStringIncludes(c.stdout, "\n> Task :app:connectedDemoDebugAndroidTest FAILED\n");

  await g.setScenario("default", "success");
  const ok = await gradlew(sim, "sample-kts", ["conDDAT"]);
  assertEquals(ok.code, 0, ok.stderr);
  assertStringIncludes(
    ok.stdout,
    "Pixel_8_API_35(AVD) - 15 Tests 2/2 completed. (0 skipped) (0 failed)\n" +
      "Finished 2 tests on Pixel_8_API_35(AVD) - 15\n",
  );
});

/** Spawns gradlew and resolves once stdout has shown `marker`. */
async function spawnUntil(sim: Simulator, project: string, args: string[], marker: string) {
  const dir = sim.projects[project];
  const child = new Deno.Command(`${dir}/gradlew`, {
    args,
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  let seen = "";
  while (!seen.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += dec.decode(value);
  }
  return { child, reader, seen };
}

Deno.test("gradlew stops at once on SIGTERM (exit 143) and the journal records it", async () => {
  await using sim = await startSimulator();
  await sim.gradle("sample-kts").setTaskDelay(200);
  const { child, reader, seen } = await spawnUntil(
    sim,
    "sample-kts",
    ["assembleDemoDebug"],
    "> Task :app:preBuild",
  );
  assertStringIncludes(seen, "> Task :app:preBuild UP-TO-DATE");
  child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"late">((r) => timer = setTimeout(() => r("late"), 1000));
  const status = await Promise.race([child.status, deadline]);
  clearTimeout(timer);
  if (status === "late") child.kill("SIGKILL");
  while (!(await reader.read()).done) { /* drain */ }
  await child.stderr.cancel();
  assert(status !== "late", "exited within 1 s of SIGTERM");
  assertEquals((await child.status).code, 143);
  const runs = await sim.gradle("sample-kts").readJournal();
  assertEquals(runs.length, 1);
  assertEquals([runs[0].outcome, runs[0].exit_code], ["sigterm", 143]);
});

Deno.test("gradlew hang: still running after 500 ms, killed by SIGTERM", async () => {
  await using sim = await fastSim();
  const g = sim.gradle("sample-kts");
  await g.setScenario("default", "hang");
  await g.hangAt("compileDemoDebugKotlin");
  const { child, reader, seen } = await spawnUntil(
    sim,
    "sample-kts",
    ["assembleDemoDebug"],
    "> Task :app:compileDemoDebugKotlin",
  );
  assert(!seen.includes("javaPreCompile"), seen);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const early = await Promise.race([
    child.status.then(() => "exited"),
    new Promise((r) => timer = setTimeout(() => r("running"), 500)),
  ]);
  clearTimeout(timer);
  child.kill("SIGTERM");
  const status = await child.status;
  while (!(await reader.read()).done) { /* drain */ }
  await child.stderr.cancel();
  assertEquals(early, "running");
  assertEquals(status.code, 143);
  assertEquals((await g.readJournal())[0].outcome, "sigterm");
});

Deno.test("gradlew exits when its stdout is closed", async () => {
  await using sim = await startSimulator();
  await sim.gradle("sample-kts").setTaskDelay(30);
  const { child, reader } = await spawnUntil(sim, "sample-kts", ["assembleDemoDebug"], "> Task");
  await reader.cancel();
  const status = await child.status;
  await child.stderr.cancel();
  assertEquals(status.code, 141);
  assertEquals((await sim.gradle("sample-kts").readJournal())[0].outcome, "stdout_closed");
});

Deno.test("sim.gradle() refuses unknown projects and scenarios; control is per project", async () => {
  await using sim = await fastSim();
  let threw = false;
  try {
    sim.gradle("nope");
  } catch (e) {
    threw = e instanceof RangeError && e.message.includes("sample-kts");
  }
  assert(threw, "unknown project is a RangeError naming the known ones");
  let rejected = false;
  // deno-lint-ignore no-explicit-any
  await sim.gradle("sample-kts").setScenario("default", "explode" as any).catch(() =>
    rejected = true
  );
  assert(rejected);
  await sim.gradle("sample-kts").setScenario("default", "java_error");
  assertEquals((await gradlew(sim, "sample-groovy", ["assembleDebug"])).code, 0);
  assertEquals((await gradlew(sim, "sample-kts", ["assembleDemoDebug"])).code, 1);
  const all = (await Deno.readTextFile(sim.gradleJournalPath)).trim().split("\n");
  assertEquals(all.map((l) => JSON.parse(l).project), ["sample-groovy", "sample-kts"]);
  const control = JSON.parse(await Deno.readTextFile(sim.gradleControlPath));
  assertEquals(control.projects["sample-kts"].default, "java_error");
});
