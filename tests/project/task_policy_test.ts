import {
  BLOCKED_TASK_PATTERNS,
  blockedPatternFor,
  checkGradleTask,
  MAX_GRADLE_TASK_LENGTH,
  taskHumps,
  UNRESTRICTED_SETTING,
} from "../../lib/project/task_policy.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";

const restricted = { allowUnrestricted: false };
const unrestricted = { allowUnrestricted: true };

const refusal = (task: string, opts = restricted): ToolError => {
  const e = assertThrows(() => checkGradleTask(task, opts), undefined);
  assert(e instanceof ToolError && e.code === "invalid_params", `${task}: ${e}`);
  return e;
};

Deno.test("taskHumps() splits camel case, upper-case runs and separators", () => {
  assertEquals(taskHumps("pRB"), ["p", "r", "b"]);
  assertEquals(taskHumps("pubRel"), ["pub", "rel"]);
  assertEquals(taskHumps("PRB"), ["p", "r", "b"]);
  assertEquals(taskHumps("upload2Play"), ["upload2", "play"]);
  assertEquals(taskHumps("my-task_name.x"), ["my", "task", "name", "x"]);
  assertEquals(taskHumps("assembleDebug"), ["assemble", "debug"]);
});

Deno.test("checkGradleTask() allows everyday tasks and their abbreviations", () => {
  for (
    const task of [
      "assembleDebug",
      "aD",
      "build",
      "clean",
      "test",
      "lint",
      "check",
      "tasks",
      "help",
      "dependencies",
      "installDebug",
      "iD",
      "connectedAndroidTest",
      "connectedCheck",
      "bundleRelease",
      ":app:assembleDemoDebug",
      "app:assembleDebug",
      ":feature-login:testDebugUnitTest",
      "testDebugUnitTest",
      "lintVitalRelease",
      "processDebugResources",
      "preBuild",
      "prepareKotlinBuildScriptModel",
      "projects",
      "properties",
      "updateLintBaseline",
      "signingReport",
      "compileDebugKotlin",
      "mapDebugSourceSetPaths",
      "assemblePlayDebug",
      "installPlayRelease",
      "bundleReleaseToMavenLocal",
      "pixel6Api34DebugAndroidTest",
      ":publish:assembleDebug",
      "assembleP",
      "testC",
    ]
  ) assertEquals(checkGradleTask(task, restricted), task, task);
});

Deno.test("checkGradleTask() refuses every blocked pattern spelled out", () => {
  const cases: [string, string][] = [
    ["publish", "publish*"],
    ["publishReleaseBundle", "publish*"],
    ["publishToMavenLocal", "publish*"],
    [":app:publishBundle", "publish*"],
    ["promoteArtifact", "promote*"],
    ["uploadCrashlyticsMappingFileRelease", "upload*"],
    ["uploadArchives", "upload*"],
    ["uninstallAll", "uninstall*"],
    ["uninstallDebug", "uninstall*"],
    ["closeAndReleaseRepository", "closeAndRelease*"],
    ["closeAndReleaseStagingRepositories", "closeAndRelease*"],
    ["releaseToMavenCentral", "*ToMavenCentral"],
    ["bootstrapPlayStoreListing", "*PlayStore*"],
    ["generatePlayStoreAssets", "*PlayStore*"],
    ["PUBLISH", "publish*"],
    ["publishing", "publish*"],
  ];
  for (const [task, glob] of cases) {
    const e = refusal(task);
    assertStringIncludes(e.message, glob, task);
    assertStringIncludes(e.message, UNRESTRICTED_SETTING, task);
    assertEquals(e.data?.blocked_pattern, glob, task);
  }
});

Deno.test("checkGradleTask() refuses Gradle abbreviations that could expand to a blocked task", () => {
  const cases: [string, string][] = [
    ["pRB", "publish*"],
    ["pubRel", "publish*"],
    [":app:pubRel", "publish*"],
    ["pub", "publish*"],
    ["p", "publish*"],
    ["pu", "publish*"],
    ["pr", "promote*"],
    ["promo", "promote*"],
    ["up", "upload*"],
    ["uCMFR", "upload*"],
    ["u", "upload*"],
    ["uninstAll", "uninstall*"],
    ["uninst", "uninstall*"],
    ["closeAR", "closeAndRelease*"],
    ["cl", "closeAndRelease*"],
    ["close", "closeAndRelease*"],
    ["closeAndRel", "closeAndRelease*"],
    ["xTMC", "*ToMavenCentral"],
    ["fooToMC", "*ToMavenCentral"],
    ["fooToMavencentral", "*ToMavenCentral"],
    ["footomavencentral", "*ToMavenCentral"],
    ["bPS", "*PlayStore*"],
    ["bootstrapPS", "*PlayStore*"],
    ["bootstrapplaystore", "*PlayStore*"],
    ["genPlaySt", "*PlayStore*"],
    ["generatePlayStore-listing", "*PlayStore*"],
  ];
  for (const [task, glob] of cases) {
    const e = refusal(task);
    assertEquals(e.data?.blocked_pattern, glob, task);
    assertStringIncludes(e.message, "refused", task);
  }
  assertStringIncludes(refusal("pRB").message, "abbreviation");
});

Deno.test("checkGradleTask() lets blocked tasks through when unrestricted", () => {
  for (const task of ["publishReleaseBundle", "pRB", "uninstallAll", ":app:closeAR"]) {
    assertEquals(checkGradleTask(task, unrestricted), task);
  }
});

Deno.test("checkGradleTask() always refuses options, whitespace, metacharacters, empty, overlong", () => {
  const cases: [string, string][] = [
    ["", "empty"],
    ["   ", "empty"],
    ["-PsigningKey=x", "Gradle option"],
    ["--init-script", "Gradle option"],
    ["assembleDebug --offline", "whitespace"],
    ["assembleDebug\ntest", "whitespace"],
    ["assembleDebug;rm", '";"'],
    ["a|b", '"|"'],
    ["a&&b", '"&"'],
    ["$(id)", '"$"'],
    ["`id`", '"`"'],
    ["a>b", '">"'],
    ["app/assemble", '"/"'],
    ["a'b", '"\'"'],
    ["a\u0000b", "contains"],
    ["a*", '"*"'],
    ["a?", '"?"'],
    ['a"b', "contains"],
    ["a\\b", "contains"],
    ["\u0430ndroid", "contains"], // Cyrillic а
    ["a\u200bb", "contains"], // zero-width space
    ["ａｂｃ", "contains"], // fullwidth
    [":", "every part"],
    ["app::assemble", "every part"],
    [":app:", "every part"],
    ["::assemble", "every part"],
    [":app:-x", "every part"],
    ["x".repeat(MAX_GRADLE_TASK_LENGTH + 1), "the limit is"],
  ];
  for (const [task, detail] of cases) {
    for (const opts of [restricted, unrestricted]) {
      const e = refusal(task, opts);
      assertStringIncludes(e.message, detail, JSON.stringify(task));
    }
  }
  assertEquals(checkGradleTask("x".repeat(MAX_GRADLE_TASK_LENGTH), restricted).length, 256);
});

Deno.test("blockedPatternFor() agrees with every pattern's own example", () => {
  for (const p of BLOCKED_TASK_PATTERNS) {
    const example = p.glob.replace(/^\*/, "release").replace(/\*$/, "Everything");
    assertEquals(blockedPatternFor(example)?.glob, p.glob, example);
  }
  assertEquals(blockedPatternFor(""), null);
  assertEquals(blockedPatternFor("_"), null);
});

Deno.test("checkGradleTask() refusal messages are one sentence saying what to do", () => {
  for (const task of ["pRB", "-x", "a b", "a;b", ""]) {
    const e = refusal(task);
    assert(!e.message.endsWith("."), e.message);
    assert(/^[A-Z]/.test(e.message), e.message);
    assert(/pass|run|set/.test(e.message), e.message);
  }
});
