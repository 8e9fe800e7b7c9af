import { assert, assertEquals } from "../../assert.ts";
import { parseManifest } from "./manifest.ts";
import { camelPattern, matchName, moduleTasks, selectTasks } from "./tasks.ts";

const model = parseManifest(
  await Deno.readTextFile(new URL("../projects/sample-kts/.sim-gradle.json", import.meta.url)),
);

Deno.test("camelPattern() lets each hump take lower-case letters and digits", () => {
  const p = camelPattern("aDD");
  assert(p.test("assembleDemoDebug"));
  assert(p.test("assembleDemoDebugUnitTest"), "a prefix match, as Gradle's lookingAt()");
  assert(!p.test("compileDemoDebugKotlin"));
  assert(camelPattern("pRB").test("publishReleaseBundle"));
  assert(!camelPattern("aDD").test("xassembleDemoDebug"));
});

Deno.test("matchName() prefers exact, then case-insensitive, then camel-case, then suggests", () => {
  const items = ["assemble", "assembleDebug", "assembleDebugUnitTest", "build", "bundleDebug"];
  assertEquals(matchName("assembleDebug", items), { kind: "found", name: "assembleDebug" });
  assertEquals(matchName("ASSEMBLE", items), { kind: "found", name: "assemble" });
  assertEquals(matchName("bunD", items), { kind: "found", name: "bundleDebug" });
  assertEquals(matchName("aD", items), {
    kind: "ambiguous",
    candidates: ["assembleDebug", "assembleDebugUnitTest"],
  });
  assertEquals(matchName("asemble", items), { kind: "missing", candidates: ["assemble"] });
  assertEquals(matchName("zzz", items), { kind: "missing", candidates: [] });
});

Deno.test("selectTasks() runs a variant's chain once, in order, across several requests", () => {
  const s = selectTasks(model, ["clean", ":app:assembleDemoDebug", "app:tDDUT"]);
  assert(s.ok);
  const paths = s.tasks.map((t) => t.path);
  assertEquals(paths[0], ":app:clean");
  assertEquals(new Set(paths).size, paths.length, "no task twice");
  assert(paths.indexOf(":app:assembleDemoDebug") < paths.indexOf(":app:testDemoDebugUnitTest"));
  assertEquals(paths.at(-1), ":app:testDemoDebugUnitTest");
  const v = s.tasks.find((t) => t.name === "packageDemoDebug")!.variant!;
  assertEquals([v.name, v.applicationId, v.versionName], [
    "demoDebug",
    "com.example.keynobi.sample.demo.debug",
    "1.2.0-demo",
  ]);
});

Deno.test("selectTasks() answers with Gradle's messages for unknown projects and tasks", () => {
  const p = selectTasks(model, ["lib:assemble"]);
  assert(!p.ok);
  assertEquals(
    p.error.message,
    "Cannot locate tasks that match 'lib:assemble' as project 'lib' not found in root project " +
      "'KeynobiSample'.",
  );
  assertEquals(p.error.list, "projects");
  const t = selectTasks(model, ["assembleDemoDebugg"]);
  assert(!t.ok);
  assertEquals(
    t.error.message,
    "Task 'assembleDemoDebugg' not found in root project 'KeynobiSample' and its subprojects. " +
      "Some candidates are: 'assembleDemoDebug'.",
  );
});

Deno.test("moduleTasks() has per-variant, aggregate and policy-relevant tasks", () => {
  const names = new Set(moduleTasks(model, model.modules[0]).plans.keys());
  for (
    const n of [
      "assembleDemoDebug",
      "assembleFullRelease",
      "assembleDebug",
      "assembleDemo",
      "bundleDemoRelease",
      "installDemoDebug",
      "uninstallAll",
      "connectedDemoDebugAndroidTest",
      "testFullReleaseUnitTest",
      "lintVitalFullRelease",
      "build",
      "clean",
    ]
  ) assert(names.has(n), n);
  assert(!names.has("connectedDemoReleaseAndroidTest"), "android tests only for debug");
});
