import { assertEquals, assertStringIncludes } from "../../assert.ts";
import { DEFAULT_CONTROL, parseControl, scenarioFor, settingsFor } from "./control.ts";

Deno.test("settingsFor() layers defaults, the top level and the project entry", () => {
  const c = parseControl(JSON.stringify({
    default: "java_error",
    tasks: { assembleDemoDebug: "kotlin_error" },
    projects: { "sample-kts": { task_delay_ms: 0, tasks: { lintDemoDebug: "lint_error" } } },
  }));
  const kts = settingsFor(c, "sample-kts");
  assertEquals(kts.default, "java_error");
  assertEquals(kts.task_delay_ms, 0);
  assertEquals(kts.tasks, { assembleDemoDebug: "kotlin_error", lintDemoDebug: "lint_error" });
  assertEquals(settingsFor(c, "other").task_delay_ms, DEFAULT_CONTROL.task_delay_ms);
  assertEquals(settingsFor(parseControl(null), "x"), DEFAULT_CONTROL);
});

Deno.test("scenarioFor() matches as typed, by name or by path, else the default", () => {
  const s = settingsFor(
    parseControl('{"tasks": {":app:assembleDemoDebug": "aapt_error", "aDR": "hang"}}'),
    "p",
  );
  const req = (typed: string, name: string) => ({
    typed,
    names: [name],
    paths: [`:app:${name}`],
  });
  assertEquals(scenarioFor(s, [req("assembleDemoDebug", "assembleDemoDebug")]), "aapt_error");
  assertEquals(scenarioFor(s, [req("aDR", "assembleDemoRelease")]), "hang");
  assertEquals(scenarioFor(s, [req("clean", "clean")]), "success");
});

Deno.test("parseControl() refuses unknown scenarios and out-of-range delays", () => {
  for (
    const [text, want] of [
      ['{"default": "boom"}', "control.default is not one of success"],
      ['{"task_delay_ms": 600000}', "task_delay_ms is not an integer in 0..60000"],
      ['{"projects": {"a": {"tasks": {"x": 1}}}}', "projects.a.tasks.x is not one of"],
      ["[1]", "not an object"],
    ]
  ) {
    let msg = "";
    try {
      parseControl(text);
    } catch (e) {
      msg = (e as Error).message;
    }
    assertStringIncludes(msg, want);
  }
});
