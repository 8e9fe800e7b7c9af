import { parseAndroidModel } from "../../lib/project/android_model.ts";
import {
  defaultVariant,
  getActiveVariant,
  listVariants,
  MAX_ACTIVE_VARIANT_PROJECTS,
  MAX_VARIANTS,
  setActiveVariant,
  storedVariant,
  taskPath,
  validateVariant,
  variantName,
  withActiveVariant,
} from "../../lib/project/variants.ts";
import { readSettings, updateSettings } from "../../lib/core/settings.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { parseProperties } from "../../lib/core/properties.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { tempDir } from "./_fixture.ts";

const gradleFiles = realFixtures("gradle-files");
const real = gradleFiles.text;
const testdata = (name: string) =>
  Deno.readTextFileSync(new URL(`testdata/${name}`, import.meta.url));

const twoDims = () =>
  parseAndroidModel(testdata("model_kotlin_two_dims.gradle.kts"), {
    properties: parseProperties("VERSION_CODE=1\nTARGET_SDK=34\n"),
  });

Deno.test("variantName() camel-cases flavors then build type", () => {
  assertEquals(variantName(["demo", "free"], "debug"), "demoFreeDebug");
  assertEquals(variantName([], "release"), "release");
  assertEquals(variantName(["x"], "staging"), "xStaging");
});

Deno.test("taskPath() prefixes the module, and only a colon for the root project", () => {
  assertEquals(taskPath(":app", "assemble", "demoDebug"), ":app:assembleDemoDebug");
  assertEquals(taskPath(":", "install", "debug"), ":installDebug");
  assertEquals(taskPath(":a:b", "test", "debug", "UnitTest"), ":a:b:testDebugUnitTest");
});

Deno.test("listVariants() is the flavor product × build types, with tasks and application ids", () => {
  const variants = listVariants(twoDims());
  // 2 modes × 2 tiers × 4 build types, flavors and build types in name order.
  assertEquals(variants.length, 16);
  assertEquals(variants.slice(0, 4).map((v) => v.name), [
    "demoFreeBenchmark",
    "demoFreeDebug",
    "demoFreeRelease",
    "demoFreeStaging",
  ]);
  const v = variants.find((x) => x.name === "demoFreeDebug")!;
  assertEquals(v, {
    name: "demoFreeDebug",
    build_type: "debug",
    flavors: ["demo", "free"],
    application_id: "com.example.app.demo.free.debug",
    assemble_task: ":app:assembleDemoFreeDebug",
    install_task: ":app:installDemoFreeDebug",
    test_task: ":app:testDemoFreeDebugUnitTest",
    connected_test_task: ":app:connectedDemoFreeDebugAndroidTest",
  });
  const byName = (n: string) => variants.find((x) => x.name === n)!;
  assertEquals(byName("fullPaidRelease").application_id, "com.example.app");
  assertEquals(byName("fullPaidStaging").application_id, "com.example.app.staging", "dot added");
  assertEquals(byName("fullPaidBenchmark").application_id, null, "computed suffix → unknown");
});

Deno.test("listVariants() without flavors lists just the build types", () => {
  const m = parseAndroidModel('android { defaultConfig { applicationId = "a.b" } }', {
    module: ":",
  });
  const variants = listVariants(m);
  assertEquals(variants.map((v) => v.name), ["debug", "release"]);
  assertEquals(variants[0].assemble_task, ":assembleDebug");
  assertEquals(variants[0].application_id, "a.b");
});

Deno.test("listVariants() uses the namespace when there is no applicationId", () => {
  const m = parseAndroidModel(
    'android {\n namespace = "n.s"\n buildTypes { debug { applicationIdSuffix = ".d" } }\n}',
  );
  assertEquals(listVariants(m).map((v) => v.application_id), ["n.s.d", "n.s"]);
});

Deno.test("listVariants() is bounded by MAX_VARIANTS", () => {
  const flavors = (dim: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${dim}${i} { dimension "${dim}" }`).join("\n");
  const m = parseAndroidModel(
    `android {\n flavorDimensions "a", "b"\n productFlavors {\n${flavors("a", 40)}\n${
      flavors("b", 40)
    }\n }\n}`,
  );
  assertEquals(listVariants(m).length, MAX_VARIANTS);
});

Deno.test("validateVariant() returns the exact variant and refuses others listing valid ones", () => {
  const m = twoDims();
  assertEquals(validateVariant(m, "fullPaidDebug").build_type, "debug");
  const e = assertThrows(() => validateVariant(m, "fullpaiddebug"));
  assert(e instanceof ToolError && e.code === "invalid_params");
  assertStringIncludes(e.message, "did you mean fullPaidDebug?");
  assertStringIncludes(e.message, "demoFreeDebug");
  assertThrows(() => validateVariant(m, "debug"), (err) => {
    assert(err instanceof ToolError && err.code === "invalid_params");
  });
});

Deno.test("defaultVariant() is the first debug variant", () => {
  assertEquals(defaultVariant(listVariants(twoDims()))?.name, "demoFreeDebug");
  assertEquals(defaultVariant([]), null);
});

Deno.test("withActiveVariant() keeps other projects and bounds the number of projects", () => {
  let all: Record<string, unknown> = { "/other": { ":app": "x" }, "/p": "junk" };
  all = withActiveVariant(all, "/p", ":app", "demoDebug");
  assertEquals(storedVariant(all, "/p", ":app"), "demoDebug");
  assertEquals(storedVariant(all, "/other", ":app"), "x");
  for (let i = 0; i < MAX_ACTIVE_VARIANT_PROJECTS + 5; i++) {
    all = withActiveVariant(all, `/r${i}`, ":app", "debug");
  }
  assertEquals(Object.keys(all).length, MAX_ACTIVE_VARIANT_PROJECTS);
  assertEquals(storedVariant(all, "/other", ":app"), null, "the oldest project was dropped");
  assertEquals(storedVariant(all, `/r${MAX_ACTIVE_VARIANT_PROJECTS + 4}`, ":app"), "debug");
});

Deno.test("setActiveVariant() persists per canonical root and module; getActiveVariant() reads it", async () => {
  await using data = await tempDir();
  await using project = await tempDir();
  const m = twoDims();
  const before = await getActiveVariant(data.path, project.path, m);
  assertEquals(before.source, "default");
  assertEquals(before.variant?.name, "demoFreeDebug");

  // Through a non-canonical spelling of the same folder.
  await setActiveVariant(data.path, `${project.path}/./`, m, "fullPaidRelease");
  const settings = await readSettings(data.path);
  assertEquals(storedVariant(settings.active_variants, project.path, ":app"), "fullPaidRelease");
  const after = await getActiveVariant(data.path, project.path, m);
  assertEquals(after.source, "settings");
  assertEquals(after.variant?.name, "fullPaidRelease");

  await assertRejects(() => setActiveVariant(data.path, project.path, m, "nope"), (e) => {
    assert(e instanceof ToolError && e.code === "invalid_params");
  });
  assertEquals(
    storedVariant((await readSettings(data.path)).active_variants, project.path, ":app"),
    "fullPaidRelease",
    "a refused variant changes nothing",
  );
});

Deno.test("getActiveVariant() falls back to the default when the stored variant is gone", async () => {
  await using data = await tempDir();
  await using project = await tempDir();
  await updateSettings(data.path, (s) => {
    s.active_variants = { [project.path]: { ":app": "removedFlavorDebug" } };
    s.unknown_field = 1;
  });
  const got = await getActiveVariant(data.path, project.path, twoDims());
  assertEquals(got.source, "default");
  assertEquals(got.stale_variant, "removedFlavorDebug");
  await setActiveVariant(data.path, project.path, twoDims(), "demoPaidDebug");
  assertEquals((await readSettings(data.path)).unknown_field, 1, "unknown fields are kept");
});

Deno.test({
  name: "listVariants() on real files: iNews flavor override, Home Assistant empty suffix",
  ignore: !gradleFiles.present,
  fn() {
    const inews = listVariants(parseAndroidModel(real("inews_app_build.gradle.kts")));
    assertEquals(inews.map((v) => [v.name, v.application_id]), [
      ["devDebug", "com.nisaefendioglu.newsapp.dev.debug"],
      ["devRelease", "com.nisaefendioglu.newsapp.dev"],
      ["prodDebug", "com.nisaefendioglu.newsapp.debug"],
      ["prodRelease", "com.nisaefendioglu.newsapp"],
    ]);
    const ha = listVariants(parseAndroidModel(real("home-assistant_app_build.gradle.kts")));
    assertEquals(
      ha.find((v) => v.name === "fullDebug")?.application_id,
      "io.homeassistant.companion.android.debug",
    );
    assertEquals(
      ha.find((v) => v.name === "minimalDebug")?.application_id,
      "io.homeassistant.companion.android.minimal.debug",
    );
    const tusky = listVariants(parseAndroidModel(real("tusky_app_build.gradle.kts")));
    assertEquals(tusky.map((v) => v.name), [
      "blueDebug",
      "blueRelease",
      "greenDebug",
      "greenRelease",
    ]);
    assertEquals(tusky[2].application_id, "com.keylesspalace.tusky.test");
  },
});
