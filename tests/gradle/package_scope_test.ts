import { parseAndroidModel } from "../../lib/gradle/android_model.ts";
import {
  buildPackageScope,
  checkPackageScope,
  inPackageScope,
  matchesSuffixes,
  MAX_SCOPE_SUFFIXES,
  type PackageScope,
  projectPackageScope,
} from "../../lib/gradle/package_scope.ts";
import { parseProperties } from "../../lib/gradle/properties.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { tempDir, writeTree } from "./_fixture.ts";

const gradleFiles = realFixtures("gradle-files");
const real = gradleFiles.text;

const EXAMPLE = [
  "android {",
  '  defaultConfig { applicationId = "com.example.app" }',
  '  buildTypes { debug { applicationIdSuffix = ".debug" }\n create("qa") { applicationIdSuffix = "qa" } }',
  '  flavorDimensions += "mode"',
  '  productFlavors {\n create("demo") { applicationIdSuffix = ".demo" }\n create("full") { }',
  '    create("partner") { applicationId = "com.partner.x" }\n  }',
  "}",
].join("\n");

const exampleScope = () => buildPackageScope([parseAndroidModel(EXAMPLE)]);

const refused = (scope: PackageScope, pkg: string): ToolError => {
  const e = assertThrows(() => checkPackageScope(scope, pkg, false));
  assert(e instanceof ToolError && e.code === "invalid_params", String(e));
  return e;
};

Deno.test("buildPackageScope() collects ids and dotted suffixes in order", () => {
  assertEquals(exampleScope(), {
    application_ids: ["com.example.app", "com.partner.x"],
    suffixes: [".demo", ".debug", ".qa"],
    built_ids: [],
  });
});

Deno.test("matchesSuffixes() takes suffixes in order, each at most once", () => {
  const s = [".demo", ".debug"];
  assert(matchesSuffixes("", s));
  assert(matchesSuffixes(".demo", s));
  assert(matchesSuffixes(".demo.debug", s));
  assert(!matchesSuffixes(".debug.demo", s), "out of order");
  assert(!matchesSuffixes(".debug.debug", s), "used twice");
  assert(!matchesSuffixes("le", s));
  // Overlapping suffixes need more than a greedy scan.
  assert(matchesSuffixes(".a.b.c", [".a", ".a.b", ".c"]));
});

Deno.test("inPackageScope(): com.example.app.demo.debug in, com.example.apple out", () => {
  const scope = exampleScope();
  for (
    const pkg of [
      "com.example.app",
      "com.example.app.demo",
      "com.example.app.debug",
      "com.example.app.demo.debug",
      "com.example.app.demo.qa",
      "com.partner.x.debug",
    ]
  ) assert(inPackageScope(scope, pkg), pkg);
  for (
    const pkg of [
      "com.example.apple",
      "com.example.app.debug.demo",
      "com.example.app.evil",
      "com.example",
      "com.android.settings",
    ]
  ) assert(!inPackageScope(scope, pkg), pkg);
});

Deno.test("checkPackageScope() refuses a foreign package naming the project's ids", () => {
  const e = refused(exampleScope(), "com.android.chrome");
  assertStringIncludes(e.message, "com.example.app, com.partner.x");
  assertStringIncludes(e.message, ".debug");
  assertStringIncludes(e.message, "allow_foreign_package: true");
  assertStringIncludes(e.message, "only when the user asked");
  checkPackageScope(exampleScope(), "com.example.app.demo.debug", false);
  checkPackageScope(exampleScope(), "com.android.chrome", true);
});

Deno.test("checkPackageScope() with no ids refuses every package the same way", () => {
  const empty = buildPackageScope([]);
  const e = refused(empty, "com.example.app");
  assertStringIncludes(e.message, "no application id was found");
  assertStringIncludes(e.message, "allow_foreign_package: true");
  checkPackageScope(empty, "com.example.app", true);
});

Deno.test("checkPackageScope() accepts exact built ids from output metadata", () => {
  const scope = buildPackageScope([], ["com.built.only.nightly"]);
  checkPackageScope(scope, "com.built.only.nightly", false);
  refused(scope, "com.built.only");
});

Deno.test("buildPackageScope() falls back to the namespace and bounds suffixes", () => {
  const ns = buildPackageScope([parseAndroidModel('android {\n namespace = "n.s"\n}')]);
  assertEquals(ns.application_ids, ["n.s"]);
  const many = Array.from(
    { length: MAX_SCOPE_SUFFIXES + 10 },
    (_, i) => `  f${i} { applicationIdSuffix ".s${i}" }`,
  ).join("\n");
  const big = buildPackageScope([
    parseAndroidModel(`android {\n productFlavors {\n${many}\n }\n}`, { dialect: "groovy" }),
  ]);
  assertEquals(big.suffixes.length, MAX_SCOPE_SUFFIXES);
});

Deno.test("projectPackageScope() reads application modules and their build outputs", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "settings.gradle.kts": 'include(":app", ":lib")\n',
    "app/build.gradle.kts": 'plugins { id("com.android.application") }\n' + EXAMPLE,
    "lib/build.gradle.kts":
      'plugins { id("com.android.library") }\nandroid { namespace = "com.example.lib" }\n',
    "app/build/outputs/apk/full/nightly/output-metadata.json": JSON.stringify({
      version: 3,
      applicationId: "com.example.app.nightly",
      variantName: "fullNightly",
      elements: [],
    }),
  });
  const scope = await projectPackageScope(dir.path);
  assertEquals(scope.application_ids, ["com.example.app", "com.partner.x"]);
  assertEquals(scope.built_ids, ["com.example.app.nightly"]);
  assert(inPackageScope(scope, "com.example.app.nightly"));
  assert(!inPackageScope(scope, "com.example.lib"), "library modules are not apps");
});

Deno.test("projectPackageScope() reads the root build file of a single-module project", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "settings.gradle": "rootProject.name = 'solo'\n",
    "build.gradle":
      "apply plugin: 'com.android.application'\nandroid { defaultConfig { applicationId 'org.solo' } }\n",
  });
  const scope = await projectPackageScope(dir.path);
  assertEquals(scope.application_ids, ["org.solo"]);
  const none = await tempDir();
  await using _none = none;
  await writeTree(none.path, { "settings.gradle": "" });
  assertEquals(await projectPackageScope(none.path), {
    application_ids: [],
    suffixes: [],
    built_ids: [],
  });
});

Deno.test({
  name: "buildPackageScope() on the real build files",
  ignore: !gradleFiles.present,
  fn() {
    const tusky = buildPackageScope([parseAndroidModel(real("tusky_app_build.gradle.kts"))]);
    assert(inPackageScope(tusky, "com.keylesspalace.tusky.test"));
    assert(!inPackageScope(tusky, "com.keylesspalace.tuskyx"));

    const ha = buildPackageScope([parseAndroidModel(real("home-assistant_app_build.gradle.kts"))]);
    assertEquals(ha.suffixes, [".minimal", ".debug"], "the explicit empty suffix adds nothing");
    assert(inPackageScope(ha, "io.homeassistant.companion.android.minimal.debug"));

    const inews = buildPackageScope([parseAndroidModel(real("inews_app_build.gradle.kts"))]);
    assertEquals(inews.application_ids, [
      "com.nisaefendioglu.newsapp",
      "com.nisaefendioglu.newsapp.dev",
    ]);
    assert(inPackageScope(inews, "com.nisaefendioglu.newsapp.dev.debug"));
    // The stale Studio-wizard metadata names another app; only build/outputs counts.
    refused(inews, "com.rafsan.newsapp");

    const fossify = buildPackageScope([
      parseAndroidModel(real("fossify-calculator_app_build.gradle.kts"), {
        properties: parseProperties(real("fossify-calculator_gradle.properties")),
      }),
    ]);
    assert(inPackageScope(fossify, "org.fossify.math.debug"));

    const wiki = buildPackageScope([
      parseAndroidModel(real("wikipedia_app_build.gradle"), { dialect: "groovy" }),
    ]);
    assert(inPackageScope(wiki, "org.wikipedia.alpha"));
    assert(!inPackageScope(wiki, "org.wikipedia.beta.alpha"), "suffixes only in order");
    assert(!inPackageScope(wiki, "org.wikipediax"));

    // AntennaPod has neither applicationId nor namespace in the build file.
    const ap = buildPackageScope([
      parseAndroidModel(real("antennapod_app_build.gradle"), { dialect: "groovy" }),
    ]);
    assertEquals(ap.application_ids, []);
    refused(ap, "de.danoeh.antennapod");
  },
});
