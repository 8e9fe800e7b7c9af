import { parseAndroidModel } from "../../lib/project/android_model.ts";
import { join } from "node:path";
import {
  buildPackageScope,
  checkPackageScope,
  inPackageScope,
  type PackageScope,
  projectPackageScope,
} from "../../lib/build/shared/package_scope.ts";
import { sha256Hex } from "../../lib/core/hash.ts";
import { finishBuildRecord, startBuildRecord } from "../../lib/build/shared/build_history.ts";
import { type Origin } from "../../lib/build/shared/build_record.ts";
import { trustProject } from "../../lib/project/trust.ts";
import { parseProperties } from "../../lib/core/properties.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { tempDir, writeTree } from "../project/_fixture.ts";

const gradleFiles = realFixtures("gradle-files");
const AGENT: Origin = { kind: "agent", session_id: "s-1", client_name: "t", standalone: true };
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
const ids = (scope: PackageScope) => scope.ids.map((e) => e.id).sort();

const refused = (scope: PackageScope, pkg: string): ToolError => {
  const e = assertThrows(() => checkPackageScope(scope, pkg, false));
  assert(e instanceof ToolError && e.code === "invalid_params", String(e));
  return e;
};

Deno.test("buildPackageScope() holds exactly the variants' ids, each with its variant", () => {
  const scope = exampleScope();
  assertEquals(ids(scope), [
    "com.example.app",
    "com.example.app.debug",
    "com.example.app.demo",
    "com.example.app.demo.debug",
    "com.example.app.demo.qa",
    "com.example.app.qa",
    "com.partner.x",
    "com.partner.x.debug",
    "com.partner.x.qa",
  ]);
  const e = scope.ids.find((x) => x.id === "com.example.app.demo.debug")!;
  assertEquals([e.kind, e.source], ["variant", "variant :app demoDebug"]);
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
      "com.example.app.debug.qa",
      "com.example.app.evil",
      "com.example",
      "com.android.settings",
    ]
  ) assert(!inPackageScope(scope, pkg), pkg);
});

Deno.test("two suffixes of one flavor dimension never combine (no variant has both)", () => {
  const model = parseAndroidModel([
    "android {",
    '  defaultConfig { applicationId = "com.sample" }',
    '  flavorDimensions += listOf("tier")',
    "  productFlavors {",
    '    create("demo") {\n dimension = "tier"\n applicationIdSuffix = ".demo"\n }',
    '    create("full") {\n dimension = "tier"\n applicationIdSuffix = ".full"\n }',
    "  }",
    "}",
  ].join("\n"));
  const scope = buildPackageScope([model]);
  assert(inPackageScope(scope, "com.sample.demo"));
  assert(inPackageScope(scope, "com.sample.full"));
  for (const pkg of ["com.sample.demo.full", "com.sample.full.demo", "com.sample"]) {
    refused(scope, pkg);
  }
});

Deno.test("checkPackageScope() refuses a foreign package naming the project's ids and sources", () => {
  const e = refused(exampleScope(), "com.android.chrome");
  assertStringIncludes(e.message, "com.example.app.debug (variant :app fullDebug)");
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

Deno.test("checkPackageScope() accepts exact vetted build-output ids", () => {
  const scope = buildPackageScope([], [{
    id: "com.built.only.nightly",
    kind: "recorded_build_output",
    source: "x/output-metadata.json written by keynobi build #3",
  }]);
  checkPackageScope(scope, "com.built.only.nightly", false);
  refused(scope, "com.built.only");
});

Deno.test("buildPackageScope() falls back to the namespace", () => {
  const ns = buildPackageScope([parseAndroidModel('android {\n namespace = "n.s"\n}')]);
  assertEquals([...new Set(ids(ns))], ["n.s"]);
});

const EVIL_METADATA = JSON.stringify({
  version: 3,
  applicationId: "com.android.settings",
  variantName: "evilDebug",
  elements: [],
});

async function evilProject(dir: string) {
  await writeTree(dir, {
    "proj/settings.gradle.kts": 'include(":app", ":lib")\n',
    "proj/app/build.gradle.kts": 'plugins { id("com.android.application") }\n' + EXAMPLE,
    "proj/lib/build.gradle.kts":
      'plugins { id("com.android.library") }\nandroid { namespace = "com.example.lib" }\n',
    "proj/app/build/outputs/apk/evil/debug/output-metadata.json": EVIL_METADATA,
  });
  await Deno.mkdir(join(dir, "data"));
  return { root: await Deno.realPath(join(dir, "proj")), data: join(dir, "data") };
}

Deno.test("projectPackageScope(): an untrusted project's committed build outputs widen nothing", async () => {
  await using dir = await tempDir();
  const p = await evilProject(dir.path);
  const scope = await projectPackageScope(p.root, { dataDir: p.data });
  assert(!inPackageScope(scope, "com.android.settings"), "committed metadata was trusted");
  refused(scope, "com.android.settings");
  assert(inPackageScope(scope, "com.example.app.demo.debug"));
  assert(!inPackageScope(scope, "com.example.lib"), "library modules are not apps");
});

Deno.test("projectPackageScope(): a trusted project's build outputs count, named as such", async () => {
  await using dir = await tempDir();
  const p = await evilProject(dir.path);
  await trustProject(p.data, p.root);
  const scope = await projectPackageScope(p.root, { dataDir: p.data });
  const e = scope.ids.find((x) => x.id === "com.android.settings");
  assertEquals(e?.kind, "trusted_build_output");
  assertStringIncludes(e!.source, "app/build/outputs/apk/evil/debug/output-metadata.json");
});

Deno.test("projectPackageScope(): outputs keynobi's build history recorded count, by metadata hash", async () => {
  await using dir = await tempDir();
  const p = await evilProject(dir.path);
  const metaRel = "app/build/outputs/apk/full/nightly/output-metadata.json";
  const metaText = JSON.stringify({
    version: 3,
    applicationId: "com.example.app.nightly",
    variantName: "fullNightly",
    elements: [],
  });
  await writeTree(p.root, { [metaRel]: metaText });
  const rec = await startBuildRecord(p.data, { project: p.root, task: "assemble", origin: AGENT });
  await finishBuildRecord(p.data, rec.id, {
    status: "success",
    apks: [{
      module: ":app",
      variant: "fullNightly",
      path: "app/build/outputs/apk/full/nightly/app.apk",
      sha256: null,
      bytes: 1,
      application_id: "com.example.app.nightly",
      metadata_sha256: await sha256Hex(new TextEncoder().encode(metaText)),
    }],
  });
  const scope = await projectPackageScope(p.root, { dataDir: p.data });
  const e = scope.ids.find((x) => x.id === "com.example.app.nightly");
  assertEquals(e?.kind, "recorded_build_output");
  assertStringIncludes(e!.source, `keynobi build #${rec.id}`);
  assert(!inPackageScope(scope, "com.android.settings"), "unrecorded metadata does not count");
  // The same file edited afterwards no longer matches the record.
  await writeTree(p.root, { [metaRel]: metaText.replace("nightly", "nightlx") });
  const after = await projectPackageScope(p.root, { dataDir: p.data });
  assert(!after.ids.some((x) => x.kind === "recorded_build_output"));
});

Deno.test("projectPackageScope() reads the root build file of a single-module project", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "settings.gradle": "rootProject.name = 'solo'\n",
    "build.gradle":
      "apply plugin: 'com.android.application'\nandroid { defaultConfig { applicationId 'org.solo' } }\n",
  });
  const data = await Deno.makeTempDir();
  try {
    const scope = await projectPackageScope(dir.path, { dataDir: data });
    assertEquals(ids(scope), ["org.solo"]);
    const none = await tempDir();
    await using _none = none;
    await writeTree(none.path, { "settings.gradle": "" });
    assertEquals(await projectPackageScope(none.path, { dataDir: data }), {
      ids: [],
      unresolved_variants: [],
    });
  } finally {
    await Deno.remove(data, { recursive: true });
  }
});

Deno.test({
  name: "buildPackageScope() on the real build files",
  ignore: !gradleFiles.present,
  fn() {
    const tusky = buildPackageScope([parseAndroidModel(real("tusky_app_build.gradle.kts"))]);
    assert(inPackageScope(tusky, "com.keylesspalace.tusky.test"));
    assert(!inPackageScope(tusky, "com.keylesspalace.tuskyx"));

    const ha = buildPackageScope([parseAndroidModel(real("home-assistant_app_build.gradle.kts"))]);
    assert(inPackageScope(ha, "io.homeassistant.companion.android.minimal.debug"));

    const inews = buildPackageScope([parseAndroidModel(real("inews_app_build.gradle.kts"))]);
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
    assertEquals(ap.ids, []);
    refused(ap, "de.danoeh.antennapod");
  },
});
