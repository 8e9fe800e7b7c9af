import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { type Anchor, locate, parseManifest, variantsOf } from "./manifest.ts";

const projects = new URL("../projects/", import.meta.url);

async function load(name: string) {
  const dir = new URL(`${name}/`, projects);
  return { dir, model: parseManifest(await Deno.readTextFile(new URL(".sim-gradle.json", dir))) };
}

Deno.test(".sim-gradle.json agrees with sample-kts/app/build.gradle.kts", async () => {
  const { dir, model } = await load("sample-kts");
  const build = await Deno.readTextFile(new URL("app/build.gradle.kts", dir));
  const m = model.modules[0];
  assertStringIncludes(build, `applicationId = "${m.application_id}"`);
  assertStringIncludes(build, `versionCode = ${m.version_code}`);
  assertStringIncludes(build, `versionName = "${m.version_name}"`);
  assertStringIncludes(build, `minSdk = ${m.min_sdk}`);
  for (const f of m.flavors) {
    assertStringIncludes(build, `create("${f.name}")`);
    if (f.application_id_suffix) {
      assertStringIncludes(build, `applicationIdSuffix = "${f.application_id_suffix}"`);
    }
  }
  for (const d of m.dependencies) assertStringIncludes(build, `"${d}"`);
  const settings = await Deno.readTextFile(new URL("settings.gradle.kts", dir));
  assertStringIncludes(settings, `rootProject.name = "${model.root_project}"`);
  assertEquals(variantsOf(m).map((v) => v.applicationId), [
    "com.example.keynobi.sample.demo.debug",
    "com.example.keynobi.sample.demo",
    "com.example.keynobi.sample.full.debug",
    "com.example.keynobi.sample.full",
  ]);
});

Deno.test(".sim-gradle.json agrees with sample-groovy/app/build.gradle (no flavors)", async () => {
  const { dir, model } = await load("sample-groovy");
  const build = await Deno.readTextFile(new URL("app/build.gradle", dir));
  const m = model.modules[0];
  assertStringIncludes(build, `applicationId '${m.application_id}'`);
  assertStringIncludes(build, `versionCode ${m.version_code}`);
  assert(!build.includes("productFlavors"));
  assertEquals(m.flavors, []);
  assertEquals(variantsOf(m).map((v) => [v.name, v.applicationId]), [
    ["debug", "com.example.keynobi.groovy.debug"],
    ["release", "com.example.keynobi.groovy"],
  ]);
});

Deno.test("every anchor of the sample projects points at its name in its file", async () => {
  for (const name of ["sample-kts", "sample-groovy"]) {
    const { dir, model } = await load(name);
    const a = model.anchors;
    const all: Anchor[] = [
      ...(a.kotlin_error ?? []),
      ...[a.kotlin_warning, a.java_error, a.aapt_error, a.lint_error].filter((x) =>
        x !== undefined
      ),
      ...[a.unit_test, a.android_test].filter((x) => x !== undefined).map((t) => ({
        file: t.file,
        find: t.failing.find,
      })),
    ];
    assert(all.length >= 3, name);
    for (const anchor of all) {
      const text = await Deno.readTextFile(new URL(anchor.file, dir));
      const at = locate(text, anchor);
      assert(at, `${name}: ${anchor.find}`);
      const rest = at.text.slice(at.col - 1);
      assert(rest.startsWith(anchor.name ?? anchor.find), `${name}: ${anchor.find} at ${at.col}`);
    }
  }
});

Deno.test("parseManifest() refuses a module without build types", () => {
  let msg = "";
  try {
    parseManifest(JSON.stringify({
      root_project: "x",
      modules: [{
        path: ":app",
        dir: "app",
        application_id: "a.b",
        version_code: 1,
        version_name: "1",
        build_types: [],
      }],
    }));
  } catch (e) {
    msg = (e as Error).message;
  }
  assertStringIncludes(msg, "module :app has no build types");
});
