import { containerElementName, maskStrings } from "../../lib/project/gradle_script_scan.ts";
import {
  MAX_PRODUCT_FLAVORS,
  parseAndroidModel,
  parseManifestPackage,
  readAndroidModel,
} from "../../lib/project/android_model.ts";
import { parseProperties } from "../../lib/core/properties.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { tempDir, writeTree } from "./_fixture.ts";

const gradleFiles = realFixtures("gradle-files");
const real = gradleFiles.text;
const testdata = (name: string) =>
  Deno.readTextFileSync(new URL(`testdata/${name}`, import.meta.url));

const byName = <T extends { name: string }>(list: T[], name: string): T => {
  const found = list.find((x) => x.name === name);
  assert(found, `no ${name} in ${list.map((x) => x.name).join(", ")}`);
  return found;
};

Deno.test("maskStrings() blanks string contents and keeps positions", () => {
  const src = 'a = "x{y}" + \'z\'\nb = """m\n{"""';
  const mask = maskStrings(src);
  assertEquals(mask.length, src.length);
  assert(!mask.includes("{y}"));
  assertEquals(mask.split("\n").length, src.split("\n").length);
  assert(mask.startsWith("a = \"    \" + ' '"), mask);
});

Deno.test("containerElementName() reads Kotlin and Groovy element headers", () => {
  assertEquals(containerElementName("debug"), "debug");
  assertEquals(containerElementName('create("green")'), "green");
  assertEquals(containerElementName('register("core")'), "core");
  assertEquals(containerElementName('getByName("release")'), "release");
  assertEquals(containerElementName('named("debug").configure'), "debug");
  assertEquals(containerElementName("val staging by creating"), "staging");
  assertEquals(containerElementName("else"), null);
  assertEquals(containerElementName("all"), null);
  assertEquals(containerElementName("if (x)"), null);
});

Deno.test("parseAndroidModel() reads a Kotlin DSL file with vals, properties and two dimensions", () => {
  const props = parseProperties("VERSION_CODE=42\nTARGET_SDK=34\n");
  const m = parseAndroidModel(testdata("model_kotlin_two_dims.gradle.kts"), {
    properties: props,
    module: "app",
  });
  assertEquals(m.module, ":app");
  assertEquals(m.namespace, "com.example.app.ns");
  assertEquals(m.application_id, "com.example.app");
  assertEquals(m.application_id_source, "val");
  assertEquals(m.compile_sdk, 35);
  assertEquals(m.min_sdk, 24);
  assertEquals(m.target_sdk, 34);
  assertEquals(m.version_code, 42);
  assertEquals(m.version_name, "2.1.0");
  assertEquals(m.build_types.map((b) => b.name), ["debug", "release", "staging", "benchmark"]);
  assertEquals(byName(m.build_types, "debug").application_id_suffix, ".debug");
  assertEquals(byName(m.build_types, "release").minify_enabled, true);
  assertEquals(byName(m.build_types, "staging").application_id_suffix, "staging");
  assertEquals(byName(m.build_types, "staging").minify_enabled, false);
  const bench = byName(m.build_types, "benchmark");
  assertEquals(bench.application_id_suffix, null);
  assertEquals(bench.unresolved, ["application_id_suffix"]);
  assertEquals(m.flavor_dimensions, ["mode", "tier"]);
  assertEquals(m.product_flavors.map((f) => [f.name, f.dimension, f.application_id_suffix]), [
    ["full", "mode", null],
    ["demo", "mode", ".demo"],
    ["paid", "tier", null],
    ["free", "tier", ".free"],
  ]);
  assertEquals(m.unresolved, []);
});

Deno.test("parseAndroidModel() leaves properties unresolved when gradle.properties lacks them", () => {
  const m = parseAndroidModel(testdata("model_kotlin_two_dims.gradle.kts"));
  assertEquals(m.version_code, null);
  assertEquals(m.target_sdk, null);
  assertEquals(m.unresolved.sort(), ["target_sdk", "version_code"]);
});

Deno.test("parseAndroidModel() reads Groovy: command syntax, bare property names, flavor ids", () => {
  const m = parseAndroidModel(testdata("model_groovy_flavors.gradle"), {
    dialect: "groovy",
    properties: new Map([["APP_ID", "org.example.groovy"]]),
  });
  assertEquals(m.application_id, "org.example.groovy");
  assertEquals(m.application_id_source, "property");
  assertEquals(m.compile_sdk, 34);
  assertEquals(m.min_sdk, 21);
  assertEquals(m.target_sdk, 33);
  assertEquals(m.version_code, 7);
  assertEquals(m.version_name, null, "an interpolated computed value is never guessed");
  assert(m.unresolved.includes("version_name"));
  assertEquals(m.flavor_dimensions, ["channel"]);
  assertEquals(byName(m.product_flavors, "beta").application_id_suffix, ".beta");
  assertEquals(byName(m.product_flavors, "partner").application_id, "com.partner.app");
  assertEquals(byName(m.product_flavors, "stable").dimension, "channel");
  assertEquals(byName(m.build_types, "debug").minify_enabled, false);
});

Deno.test("parseAndroidModel() does not resolve bare names in Kotlin from gradle.properties", () => {
  const m = parseAndroidModel(
    "android { defaultConfig { applicationId = APP_ID } }",
    { properties: new Map([["APP_ID", "x.y"]]), dialect: "kotlin" },
  );
  assertEquals(m.application_id, null);
  assertEquals(m.application_id_source, "unresolved");
});

Deno.test("parseAndroidModel() resolves `by project` vals, concatenation and templates", () => {
  const m = parseAndroidModel(
    [
      "val APP_ID: String by project",
      'val SUFFIX = ".x"',
      "android {",
      '  namespace = APP_ID + ".ns"',
      "  defaultConfig {",
      '    applicationId = "${APP_ID}$SUFFIX"',
      "  }",
      "}",
    ].join("\n"),
    { properties: new Map([["APP_ID", "org.p"]]) },
  );
  assertEquals(m.namespace, "org.p.ns");
  assertEquals(m.application_id, "org.p.x");
  assertEquals(m.application_id_source, "property");
});

Deno.test("parseAndroidModel() defaults debug and release, reads every flavorDimensions form", () => {
  const forms: [string, string[]][] = [
    ['flavorDimensions += "color"', ["color"]],
    ['flavorDimensions("v")', ["v"]],
    ['flavorDimensions("a", "b")', ["a", "b"]],
    ["flavorDimensions = ['default']", ["default"]],
    ['flavorDimensions.add("x")', ["x"]],
    ['flavorDimensions.addAll(listOf("x", "y"))', ["x", "y"]],
    ["flavorDimensions 'market', 'api'", ["market", "api"]],
    ['flavorDimensions = listOf("a")\n  flavorDimensions += "b"', ["a", "b"]],
  ];
  for (const [stmt, dims] of forms) {
    const m = parseAndroidModel(`android {\n  ${stmt}\n}`);
    assertEquals(m.flavor_dimensions, dims, stmt);
    assertEquals(m.build_types.map((b) => b.name), ["debug", "release"], stmt);
  }
});

Deno.test("parseAndroidModel() reads every SDK level form", () => {
  const forms: [string, number][] = [
    ["compileSdk = 35", 35],
    ["compileSdkVersion 34", 34],
    ["compileSdkVersion(33)", 33],
    ['compileSdkVersion "android-31"', 31],
    ["compileSdk {\n version = release(36)\n }", 36],
  ];
  for (const [stmt, level] of forms) {
    assertEquals(parseAndroidModel(`android {\n  ${stmt}\n}`).compile_sdk, level, stmt);
  }
  const m = parseAndroidModel(
    "android {\n defaultConfig {\n  minSdk 24\n  targetSdkVersion(33)\n }\n}",
  );
  assertEquals([m.min_sdk, m.target_sdk], [24, 33]);
  const computed = parseAndroidModel("android {\n compileSdk = libs.versions.sdk.get().toInt()\n}");
  assertEquals(computed.compile_sdk, null);
  assertEquals(computed.unresolved, ["compile_sdk"]);
});

Deno.test("parseAndroidModel() ignores comments, strings and other blocks", () => {
  const m = parseAndroidModel(
    [
      '// android { defaultConfig { applicationId = "com.comment" } }',
      'val s = "android { defaultConfig { applicationId = \\"com.string\\" } }"',
      'signingConfigs { create("release") { } }',
      "android {",
      "  signingConfigs {",
      '    create("release") { storeFile = file("x") }',
      "  }",
      "  defaultConfig {",
      '    applicationId = "com.real"',
      '    manifestPlaceholders["x"] = "$applicationId"',
      "  }",
      "}",
    ].join("\n"),
  );
  assertEquals(m.application_id, "com.real");
  assertEquals(m.application_id_source, "literal");
  assertEquals(m.build_types.map((b) => b.name), ["debug", "release"]);
});

Deno.test("parseAndroidModel() reports no applicationId as source none", () => {
  const m = parseAndroidModel("android {\n namespace 'a.b'\n}", { manifestPackage: "c.d" });
  assertEquals(m.application_id, null);
  assertEquals(m.application_id_source, "none");
  assertEquals(m.namespace, "a.b");
  assertEquals(m.manifest_package, "c.d");
  const empty = parseAndroidModel("");
  assertEquals(empty.namespace, null);
  assertEquals(empty.build_types.length, 2);
});

Deno.test("parseAndroidModel() bounds the number of product flavors", () => {
  const flavors = Array.from({ length: MAX_PRODUCT_FLAVORS + 20 }, (_, i) => `  f${i} { }`);
  const m = parseAndroidModel(`android {\n productFlavors {\n${flavors.join("\n")}\n }\n}`);
  assertEquals(m.product_flavors.length, MAX_PRODUCT_FLAVORS);
});

Deno.test("parseManifestPackage() reads the package attribute", () => {
  assertEquals(
    parseManifestPackage('<?xml version="1.0"?>\n<manifest xmlns:android="x"\n package="de.a.b">'),
    "de.a.b",
  );
  assertEquals(parseManifestPackage("<manifest xmlns:android='x'>"), null);
});

// Real build files from public projects (see ../shared/fixtures/real/gradle-files/SOURCES.md).

Deno.test({
  name: "parseAndroidModel() reads Tusky: top-level val, namespace twice, += dimension",
  ignore: !gradleFiles.present,
  fn() {
    const m = parseAndroidModel(real("tusky_app_build.gradle.kts"));
    assertEquals(m.application_id, "com.keylesspalace.tusky");
    assertEquals(m.application_id_source, "val");
    assertEquals(m.namespace, "com.keylesspalace.tusky");
    assertEquals([m.compile_sdk, m.min_sdk, m.target_sdk], [33, 23, 33]);
    assertEquals([m.version_code, m.version_name], [100, "21.0"]);
    assertEquals(m.flavor_dimensions, ["color"]);
    assertEquals(m.product_flavors.map((f) => [f.name, f.dimension, f.application_id_suffix]), [
      ["blue", "color", null],
      ["green", "color", ".test"],
    ]);
    assertEquals(byName(m.build_types, "release").minify_enabled, true);
  },
});

Deno.test({
  name: "parseAndroidModel() reads Wikipedia: Groovy, namespace at the end, computed versionName",
  ignore: !gradleFiles.present,
  fn() {
    const m = parseAndroidModel(real("wikipedia_app_build.gradle"), { dialect: "groovy" });
    assertEquals(m.application_id, "org.wikipedia");
    assertEquals(m.application_id_source, "literal");
    assertEquals(m.namespace, "org.wikipedia");
    assertEquals([m.compile_sdk, m.min_sdk, m.target_sdk, m.version_code], [37, 23, 37, 50602]);
    assertEquals(m.version_name, null);
    assertEquals(m.flavor_dimensions, ["default"]);
    assertEquals(m.product_flavors.map((f) => f.name), [
      "dev",
      "prod",
      "alpha",
      "beta",
      "fdroid",
      "custom",
    ]);
    assertEquals(byName(m.product_flavors, "dev").application_id_suffix, ".dev");
    assertEquals(byName(m.product_flavors, "prod").application_id_suffix, null);
    assertEquals(byName(m.build_types, "debug").minify_enabled, false);
  },
});

Deno.test({
  name: "parseAndroidModel() reads AntennaPod: no applicationId, no namespace, Groovy dimension",
  ignore: !gradleFiles.present,
  fn() {
    const m = parseAndroidModel(real("antennapod_app_build.gradle"), { dialect: "groovy" });
    assertEquals(m.application_id, null);
    assertEquals(m.application_id_source, "none");
    assertEquals(m.namespace, null);
    assertEquals(m.compile_sdk, null);
    assert(m.unresolved.includes("compile_sdk"));
    assertEquals([m.version_code, m.version_name], [1080195, "1.8.1"]);
    assertEquals(byName(m.build_types, "debug").application_id_suffix, ".debug");
    assertEquals(m.product_flavors.map((f) => [f.name, f.dimension]), [
      ["free", "market"],
      ["play", "market"],
    ]);
  },
});

Deno.test({
  name: "parseAndroidModel() reads Home Assistant: named().configure, explicit empty suffix",
  ignore: !gradleFiles.present,
  fn() {
    const m = parseAndroidModel(real("home-assistant_app_build.gradle.kts"));
    assertEquals(m.application_id, "io.homeassistant.companion.android");
    assertEquals(byName(m.build_types, "debug").application_id_suffix, ".debug");
    assertEquals(m.flavor_dimensions, ["version"]);
    assertEquals(byName(m.product_flavors, "minimal").application_id_suffix, ".minimal");
    assertEquals(byName(m.product_flavors, "full").application_id_suffix, "");
    assertEquals(m.version_name, null);
    assert(m.unresolved.includes("version_name"));
  },
});

Deno.test({
  name: "parseAndroidModel() reads Fossify: project.property() from the root gradle.properties",
  ignore: !gradleFiles.present,
  fn() {
    const props = parseProperties(real("fossify-calculator_gradle.properties"));
    const m = parseAndroidModel(real("fossify-calculator_app_build.gradle.kts"), {
      properties: props,
    });
    assertEquals(m.application_id, "org.fossify.math");
    assertEquals(m.application_id_source, "property");
    assertEquals(m.namespace, "org.fossify.math");
    assertEquals([m.version_code, m.version_name], [10, "1.4.0"]);
    assertEquals(m.flavor_dimensions, ["variants"]);
    assertEquals(m.product_flavors.map((f) => f.name), ["core", "foss", "gplay"]);
    const without = parseAndroidModel(real("fossify-calculator_app_build.gradle.kts"));
    assertEquals(without.application_id, null);
    assertEquals(without.application_id_source, "unresolved");
  },
});

Deno.test({
  name: "parseAndroidModel() reads iNews: flavors that override applicationId",
  ignore: !gradleFiles.present,
  fn() {
    const m = parseAndroidModel(real("inews_app_build.gradle.kts"));
    assertEquals(m.application_id, "com.nisaefendioglu.newsapp");
    assertEquals(byName(m.product_flavors, "dev").application_id, "com.nisaefendioglu.newsapp.dev");
    assertEquals(byName(m.build_types, "debug").application_id_suffix, ".debug");
    assertEquals(byName(m.build_types, "release").minify_enabled, false);
    assertEquals(m.compile_sdk, null);
  },
});

// I/O through readProjectFile.

Deno.test("readAndroidModel() reads the module, root gradle.properties and manifest package", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "settings.gradle": "include ':mobile'\nproject(':mobile').projectDir = file('apps/phone')\n",
    "gradle.properties": "APP_ID=org.root\nVERSION_CODE=3\n",
    "apps/phone/gradle.properties": "VERSION_CODE=5\n",
    "apps/phone/build.gradle":
      "android {\n defaultConfig {\n  applicationId APP_ID\n  versionCode VERSION_CODE.toInteger()\n }\n}\n",
    "apps/phone/src/main/AndroidManifest.xml": '<manifest package="org.manifest"/>',
  });
  const m = await readAndroidModel(dir.path, ":mobile");
  assertEquals(m.module, ":mobile");
  assertEquals(m.dir, "apps/phone");
  assertEquals(m.build_file, "apps/phone/build.gradle");
  assertEquals(m.application_id, "org.root");
  assertEquals(m.version_code, 5, "the module's gradle.properties wins");
  assertEquals(m.manifest_package, "org.manifest");
});

Deno.test("readAndroidModel() refuses an unknown module and a module without a build file", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, { "settings.gradle.kts": 'include(":app", ":empty")\n' });
  await Deno.mkdir(`${dir.path}/empty`);
  await assertRejects(() => readAndroidModel(dir.path, ":nope"), (e) => {
    assert(e instanceof ToolError && e.code === "invalid_params");
    assertStringIncludes(e.message, ":app, :empty");
  });
  await assertRejects(() => readAndroidModel(dir.path, "empty"), (e) => {
    assert(e instanceof ToolError && e.code === "not_found");
  });
});

Deno.test("readAndroidModel() does not follow a build file symlinked out of the project", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  await writeTree(outside.path, {
    "build.gradle.kts": 'android { defaultConfig { applicationId = "evil" } }',
  });
  await writeTree(dir.path, { "settings.gradle.kts": 'include(":app")\n' });
  await Deno.mkdir(`${dir.path}/app`);
  await Deno.symlink(`${outside.path}/build.gradle.kts`, `${dir.path}/app/build.gradle.kts`);
  await assertRejects(() => readAndroidModel(dir.path, ":app"), (e) => {
    assert(e instanceof ToolError && e.code === "not_found");
  });
});
