import { join } from "node:path";
import { parseAndroidModel } from "../../lib/project/android_model.ts";
import {
  apkDirsFor,
  findApk,
  listBuiltApplicationIds,
  parseOutputMetadata,
} from "../../lib/project/apk_outputs.ts";
import { validateVariant } from "../../lib/project/variants.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { tempDir, writeTree } from "./_fixture.ts";

const gradleFiles = realFixtures("gradle-files");
const real = gradleFiles.text;

const metadata = (variant: string, id: string, files: string[]) =>
  JSON.stringify({
    version: 3,
    artifactType: { type: "APK", kind: "Directory" },
    applicationId: id,
    variantName: variant,
    elements: files.map((f) => ({
      type: "SINGLE",
      filters: [],
      attributes: [],
      versionCode: 9,
      versionName: "9.0",
      outputFile: f,
    })),
    elementType: "File",
  });

const BUILD = [
  "android {",
  '  defaultConfig { applicationId = "com.example.app"\n versionCode = 4\n versionName = "4.0" }',
  '  buildTypes { getByName("debug") { applicationIdSuffix = ".debug" } }',
  '  flavorDimensions += listOf("mode", "tier")',
  "  productFlavors {",
  '    create("demo") { dimension = "mode"\n applicationIdSuffix = ".demo" }',
  '    create("full") { dimension = "mode" }',
  '    create("free") { dimension = "tier" }',
  "  }",
  "}",
].join("\n");

const model = () => ({ ...parseAndroidModel(BUILD, { module: ":app" }), dir: "app" });
const APK = "PK\u0003\u0004 not really an apk";

Deno.test("parseOutputMetadata() reads AGP's fields and rejects other JSON", () => {
  const m = parseOutputMetadata(metadata("demoDebug", "a.b", ["x.apk"]));
  assertEquals(m, {
    variantName: "demoDebug",
    applicationId: "a.b",
    elements: [{ outputFile: "x.apk", versionCode: 9, versionName: "9.0" }],
  });
  assertEquals(parseOutputMetadata("{"), null);
  assertEquals(parseOutputMetadata("[]"), null);
  assertEquals(parseOutputMetadata('{"variantName": 3, "elements": []}'), null);
  assertEquals(
    parseOutputMetadata('{"variantName":"d","applicationId":"a b;rm","elements":[]}')
      ?.applicationId,
    null,
    "an id that is not a package name is dropped",
  );
});

Deno.test("apkDirsFor() is AGP's combined-flavor folder, then the nested one", () => {
  const m = model();
  assertEquals(apkDirsFor("app", validateVariant(m, "demoFreeDebug")), [
    "app/build/outputs/apk/demoFree/debug",
    "app/build/outputs/apk/demo/free/debug",
  ]);
  const plain = parseAndroidModel("android {}");
  assertEquals(apkDirsFor("", validateVariant(plain, "release")), ["build/outputs/apk/release"]);
});

Deno.test("findApk() uses output-metadata.json and matches the variant exactly", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "app/build/outputs/apk/demoFree/debug/output-metadata.json": metadata(
      "demoFreeDebug",
      "com.example.app.demo.debug",
      ["app-demo-free-debug.apk"],
    ),
    "app/build/outputs/apk/demoFree/debug/app-demo-free-debug.apk": APK,
    "app/build/outputs/apk/demoFree/debug/stale-other.apk": APK,
  });
  const r = await findApk(dir.path, { model: model(), variant: "demoFreeDebug" });
  assert(r.found, JSON.stringify(r));
  assertEquals(r.path, "app/build/outputs/apk/demoFree/debug/app-demo-free-debug.apk");
  assertEquals(r.absolute_path, join(dir.path, r.path));
  assertEquals(r.application_id, "com.example.app.demo.debug");
  assertEquals([r.version_code, r.version_name], [9, "9.0"]);
  assertEquals(r.output_metadata, true);
});

Deno.test("findApk() refuses metadata of another variant in the folder", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "app/build/outputs/apk/fullFree/debug/output-metadata.json": metadata(
      "fullFreeRelease",
      "com.example.app",
      ["app.apk"],
    ),
    "app/build/outputs/apk/fullFree/debug/app.apk": APK,
  });
  const r = await findApk(dir.path, { model: model(), variant: "fullFreeDebug" });
  assert(!r.found);
  assertStringIncludes(r.reason, "is for variant fullFreeRelease");
  assertStringIncludes(r.reason, ":app:assembleFullFreeDebug");
});

Deno.test("findApk() without metadata takes the folder's single APK and the computed id", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "app/build/outputs/apk/full/free/debug/app-full-free-debug.apk": APK,
  });
  const r = await findApk(dir.path, { model: model(), variant: "fullFreeDebug" });
  assert(r.found, JSON.stringify(r));
  assertEquals(r.path, "app/build/outputs/apk/full/free/debug/app-full-free-debug.apk");
  assertEquals(r.application_id, "com.example.app.debug");
  assertEquals([r.version_code, r.version_name], [4, "4.0"]);
  assertEquals(r.output_metadata, false);
});

Deno.test("findApk() reports several matching APKs instead of picking one", async () => {
  await using dir = await tempDir();
  await writeTree(dir.path, {
    "app/build/outputs/apk/demoFree/release/output-metadata.json": metadata(
      "demoFreeRelease",
      "com.example.app.demo",
      ["app-arm64-v8a-release.apk", "app-x86_64-release.apk"],
    ),
    "app/build/outputs/apk/demoFree/release/app-arm64-v8a-release.apk": APK,
    "app/build/outputs/apk/demoFree/release/app-x86_64-release.apk": APK,
  });
  const r = await findApk(dir.path, { model: model(), variant: "demoFreeRelease" });
  assert(!r.found);
  assertStringIncludes(r.reason, "2 APKs match variant demoFreeRelease");
  assertStringIncludes(r.reason, "app-x86_64-release.apk");
});

Deno.test("findApk() says where it looked when nothing was built", async () => {
  await using dir = await tempDir();
  const r = await findApk(dir.path, { model: model(), variant: "demoFreeDebug" });
  assert(!r.found);
  assertStringIncludes(r.reason, "app/build/outputs/apk/demoFree/debug does not exist");
  assertStringIncludes(r.reason, "build it with :app:assembleDemoFreeDebug");
});

Deno.test("findApk() never returns an APK that resolves outside the project", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  await writeTree(outside.path, { "evil.apk": APK, "debug/app.apk": APK });
  await writeTree(dir.path, {
    "app/build/outputs/apk/demoFree/debug/output-metadata.json": metadata(
      "demoFreeDebug",
      "com.example.app.demo.debug",
      ["app.apk", "../../../../../../../evil.apk"],
    ),
  });
  await Deno.symlink(
    join(outside.path, "evil.apk"),
    join(dir.path, "app/build/outputs/apk/demoFree/debug/app.apk"),
  );
  const r = await findApk(dir.path, { model: model(), variant: "demoFreeDebug" });
  assert(!r.found, JSON.stringify(r));
  assertStringIncludes(r.reason, "leaves the folder");

  // A whole output folder symlinked out of the project.
  await Deno.mkdir(join(dir.path, "app/build/outputs/apk/fullFree"), { recursive: true });
  await Deno.symlink(
    join(outside.path, "debug"),
    join(dir.path, "app/build/outputs/apk/fullFree/debug"),
  );
  const r2 = await findApk(dir.path, { model: model(), variant: "fullFreeDebug" });
  assert(!r2.found, JSON.stringify(r2));
  assertStringIncludes(
    r2.reason,
    "app/build/outputs/apk/fullFree/debug resolves outside the project",
  );
});

Deno.test("findApk() refuses an unknown variant with invalid_params", async () => {
  await using dir = await tempDir();
  await assertRejects(() => findApk(dir.path, { model: model(), variant: "demoDebug" }), (e) => {
    assert(e instanceof ToolError && e.code === "invalid_params");
    assertStringIncludes(e.message, "demoFreeDebug");
  });
});

Deno.test("listBuiltApplicationIds() collects ids from every module's metadata", async () => {
  await using outside = await tempDir();
  await using dir = await tempDir();
  await writeTree(outside.path, {
    "x/output-metadata.json": metadata("debug", "com.outside", []),
  });
  await writeTree(dir.path, {
    "app/build/outputs/apk/demoFree/debug/output-metadata.json": metadata("a", "com.a.debug", []),
    "app/build/outputs/apk/full/free/release/output-metadata.json": metadata("b", "com.a", []),
    "wear/build/outputs/apk/debug/output-metadata.json": metadata("debug", "com.w", []),
    "wear/build/outputs/apk/broken/output-metadata.json": "{",
    "lib/build/outputs/apk/debug/output-metadata.json": metadata("debug", "com.lib", []),
  });
  await Deno.symlink(join(outside.path, "x"), join(dir.path, "app/build/outputs/apk/linked"));
  const ids = await listBuiltApplicationIds(dir.path, [{ dir: "app" }, { dir: "wear" }]);
  assertEquals(ids.sort(), ["com.a", "com.a.debug", "com.w"]);
  assertEquals(await listBuiltApplicationIds(dir.path, [{ dir: "missing" }]), []);
});

Deno.test({
  name: "findApk() on iNews' real output-metadata.json (devDebug)",
  ignore: !gradleFiles.present,
  async fn() {
    await using dir = await tempDir();
    await writeTree(dir.path, {
      "settings.gradle.kts": 'include(":app")\n',
      "app/build.gradle.kts": real("inews_app_build.gradle.kts"),
      "app/build/outputs/apk/dev/debug/output-metadata.json": real(
        "inews_outputs/apk_dev_debug_output-metadata.json",
      ),
      "app/build/outputs/apk/dev/debug/app-dev-debug.apk": APK,
      // The stale Studio-wizard metadata sits in app/prod/release, outside build/outputs.
      "app/prod/release/output-metadata.json": real(
        "inews_outputs/prod_release_output-metadata.json",
      ),
    });
    const m = {
      ...parseAndroidModel(real("inews_app_build.gradle.kts"), { module: ":app" }),
      dir: "app",
    };
    const r = await findApk(dir.path, { model: m, variant: "devDebug" });
    assert(r.found, JSON.stringify(r));
    assertEquals(r.application_id, "com.nisaefendioglu.newsapp.dev.debug");
    assertEquals(r.application_id, validateVariant(m, "devDebug").application_id);
    assertEquals(r.path, "app/build/outputs/apk/dev/debug/app-dev-debug.apk");
    const prod = await findApk(dir.path, { model: m, variant: "prodRelease" });
    assert(!prod.found);
    assertEquals(await listBuiltApplicationIds(dir.path, [{ dir: "app" }]), [
      "com.nisaefendioglu.newsapp.dev.debug",
    ]);
  },
});
