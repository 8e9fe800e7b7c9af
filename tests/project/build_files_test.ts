import { join } from "node:path";
import {
  isApplicationBuild,
  moduleDir,
  parseCatalogPlugins,
  parsePlugins,
  parseSettings,
  readGradleProject,
  stripComments,
} from "../../lib/project/build_files.ts";
import { assert, assertEquals } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "./_fixture.ts";

const gradleFiles = realFixtures("gradle-files");
const real = gradleFiles.text;

Deno.test("stripComments() keeps strings that contain comment markers", () => {
  const src = 'url = "https://x//y" // gone\n/* block\n include(":no") */ include(":yes")';
  const out = stripComments(src);
  assert(out.includes('"https://x//y"'));
  assert(!out.includes("gone"));
  assert(!out.includes(":no"));
  assertEquals(out.split("\n").length, 3, "newlines kept");
});

Deno.test("parseSettings() reads Kotlin DSL includes and rootProject.name", () => {
  const s = parseSettings(
    [
      "pluginManagement { repositories { google() } }",
      'rootProject.name = "My App"',
      'include(":app")',
      'include(":core:data", ":feature:home")',
      "include(",
      '    ":wear",',
      ")",
      'includeBuild("build-logic")',
      '// include(":commented")',
      'project(":wear").projectDir = file("apps/wear")',
    ].join("\n"),
  );
  assertEquals(s.rootProjectName, "My App");
  assertEquals(s.modules, [":app", ":core:data", ":feature:home", ":wear"]);
  assertEquals(moduleDir(":core:data", s.projectDirs), "core/data");
  assertEquals(moduleDir(":wear", s.projectDirs), "apps/wear");
});

Deno.test("parseSettings() reads Groovy includes, continued lines and custom folders", () => {
  const s = parseSettings(
    [
      "rootProject.name = 'groovy-app'",
      "include ':app', ':lib'",
      "include ':a',",
      "        ':b'",
      "include 'plain'",
      "include ':app'",
      "project(':lib').projectDir = new File(rootDir, 'libs/lib')",
    ].join("\n"),
  );
  assertEquals(s.rootProjectName, "groovy-app");
  assertEquals(s.modules, [":app", ":lib", ":a", ":b", ":plain"]);
  assertEquals(s.projectDirs, { ":lib": "libs/lib" });
});

Deno.test("isApplicationBuild() recognises ids, apply plugin, aliases and convention plugins", () => {
  assert(isApplicationBuild('plugins { id("com.android.application") }'));
  assert(isApplicationBuild("plugins { id 'com.android.application' }"));
  assert(isApplicationBuild("apply plugin: 'com.android.application'"));
  assert(isApplicationBuild('apply(plugin = "com.android.application")'));
  assert(isApplicationBuild("plugins { alias(libs.plugins.android.application) }"));
  assert(isApplicationBuild('plugins { id("nowinandroid.android.application") }'));
  assert(!isApplicationBuild('plugins { id("com.android.library") }'));
  assert(
    !isApplicationBuild(
      'plugins {\n  id("com.android.application") version "8.5.0" apply false\n}',
    ),
  );
  assert(!isApplicationBuild("plugins { alias(libs.plugins.android.application) apply false }"));
  assert(!isApplicationBuild('// id("com.android.application")\nplugins { id("java") }'));
  assert(!isApplicationBuild("plugins { alias(libs.plugins.android) }"), "unresolved alias");
  const catalog = parseCatalogPlugins(
    [
      "[versions]",
      'agp = "8.5.0"',
      "[plugins]",
      'android = { id = "com.android.application", version.ref = "agp" }',
      'android-lib = "com.android.library:8.5.0"',
      "[libraries]",
      'x = { module = "a:b", version = "1" }',
    ].join("\n"),
  );
  assertEquals([...catalog.entries()], [
    ["android", "com.android.application"],
    ["android.lib", "com.android.library"],
  ]);
  assert(isApplicationBuild("plugins { alias(libs.plugins.android) }", catalog));
  assert(!isApplicationBuild("plugins { alias(libs.plugins.android.lib) }", catalog));
});

Deno.test({
  name: "isApplicationBuild() on real app build files (Groovy and Kotlin DSL)",
  ignore: !gradleFiles.present,
  fn() {
    for (
      const name of [
        "antennapod_app_build.gradle",
        "wikipedia_app_build.gradle",
        "home-assistant_app_build.gradle.kts",
        "inews_app_build.gradle.kts",
        "tusky_app_build.gradle.kts",
      ]
    ) {
      assert(isApplicationBuild(real(name)), name);
    }
    const fossify = real("fossify-calculator_app_build.gradle.kts");
    assertEquals(parsePlugins(fossify).aliases.includes("android"), true);
    const catalog = new Map([["android", "com.android.application"]]);
    assert(isApplicationBuild(fossify, catalog), "fossify through its catalog alias");
  },
});

Deno.test("readGradleProject() maps modules, application modules and resource files", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, SAMPLE_PROJECT);
  const info = await readGradleProject(tmp.path);
  assertEquals(info.name, "Sample");
  assertEquals(info.settings_file, "settings.gradle.kts");
  assertEquals(info.modules, [
    { path: ":app", dir: "app", build_file: "app/build.gradle.kts", application: true },
    { path: ":lib", dir: "lib", build_file: "lib/build.gradle.kts", application: false },
  ]);
  assertEquals(info.application_modules, [":app"]);
  assertEquals(info.files, {
    manifest: "app/src/main/AndroidManifest.xml",
    "app-build-gradle": "app/build.gradle.kts",
    "build-gradle": "build.gradle.kts",
    "gradle-settings": "settings.gradle.kts",
  });
});

Deno.test({
  name: "readGradleProject() serves Groovy files (a real Groovy app build file)",
  ignore: !gradleFiles.present,
  async fn() {
    await using tmp = await tempDir();
    await writeTree(tmp.path, {
      "settings.gradle": "include ':app'\n",
      "build.gradle": "buildscript {}\n",
      "app/build.gradle": real("antennapod_app_build.gradle"),
      "app/src/main/AndroidManifest.xml": "<manifest/>",
    });
    const info = await readGradleProject(tmp.path);
    assertEquals(info.files, {
      manifest: "app/src/main/AndroidManifest.xml",
      "app-build-gradle": "app/build.gradle",
      "build-gradle": "build.gradle",
      "gradle-settings": "settings.gradle",
    });
  },
});

Deno.test("readGradleProject() resolves catalog aliases and ignores files that leave the project", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "p");
  await writeTree(tmp.path, {
    "p/settings.gradle.kts": 'include(":app", ":wear")',
    "p/gradle/libs.versions.toml": '[plugins]\nandroid = { id = "com.android.application" }\n',
    "p/app/build.gradle.kts": "plugins { alias(libs.plugins.android) }",
    "outside/build.gradle.kts": 'plugins { id("com.android.application") }',
    "outside/AndroidManifest.xml": "<manifest/>",
  });
  await Deno.mkdir(join(root, "wear"));
  await Deno.symlink(
    join(tmp.path, "outside/build.gradle.kts"),
    join(root, "wear/build.gradle.kts"),
  );
  await Deno.mkdir(join(root, "app/src/main"), { recursive: true });
  await Deno.symlink(
    join(tmp.path, "outside/AndroidManifest.xml"),
    join(root, "app/src/main/AndroidManifest.xml"),
  );
  const info = await readGradleProject(root);
  assertEquals(info.application_modules, [":app"]);
  assertEquals(info.modules[1], {
    path: ":wear",
    dir: "wear",
    build_file: null,
    application: false,
  });
  assertEquals(info.files.manifest, null, "a manifest symlinked outside is not served");
  assertEquals(info.files["app-build-gradle"], "app/build.gradle.kts");
  assertEquals(info.files["build-gradle"], null);
});

Deno.test("readGradleProject() treats a single-module build's root as the app", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, {
    "settings.gradle": "rootProject.name = 'solo'",
    "build.gradle": "apply plugin: 'com.android.application'",
    "src/main/AndroidManifest.xml": "<manifest/>",
  });
  const info = await readGradleProject(tmp.path);
  assertEquals(info.application_modules, [":"]);
  assertEquals(info.files.manifest, "src/main/AndroidManifest.xml");
  assertEquals(info.files["app-build-gradle"], "build.gradle");
});

Deno.test("readGradleProject() serves no app files with two application modules", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, {
    "settings.gradle.kts": 'include(":a", ":b")',
    "a/build.gradle.kts": 'plugins { id("com.android.application") }',
    "b/build.gradle.kts": 'plugins { id("com.android.application") }',
  });
  const info = await readGradleProject(tmp.path);
  assertEquals(info.application_modules, [":a", ":b"]);
  assertEquals([info.files.manifest, info.files["app-build-gradle"]], [null, null]);
});
