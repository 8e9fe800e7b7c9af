import { join } from "node:path";
import { mapEnv } from "../../lib/core/env.ts";
import { trustProject } from "../../lib/project/trust.ts";
import { selectProject } from "../../lib/project/project_root.ts";
import {
  type AdbServerProbe,
  parseAdbVersion,
  renderHealth,
  runHealthCheck,
} from "../../lib/project/health.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { fakeSdk, SAMPLE_PROJECT, tempDir, writeScript, writeTree } from "./_fixture.ts";

const answering: AdbServerProbe = { serverVersion: () => Promise.resolve(41) };
const silent: AdbServerProbe = {
  serverVersion: () => Promise.reject(new Error("connection refused")),
};

async function world(tmp: string) {
  const home = join(tmp, "home");
  const data = join(tmp, "data");
  const proj = join(tmp, "proj");
  const sdk = join(tmp, "sdk");
  const projSdk = join(tmp, "project-sdk");
  const jdk = join(tmp, "jdk");
  await writeTree(proj, SAMPLE_PROJECT);
  await Deno.chmod(join(proj, "gradlew"), 0o755);
  await fakeSdk(sdk);
  await fakeSdk(projSdk);
  await writeScript(join(jdk, "bin", "java"), `echo 'openjdk version "17.0.15" 2025-04-15' >&2`);
  const env = mapEnv({
    HOME: home,
    KEYNOBI_HOME: data,
    ANDROID_HOME: sdk,
    JAVA_HOME: jdk,
    PATH: "",
  });
  return { home, data, proj, sdk, projSdk, jdk, env };
}

const seams = {
  jdkLocations: { androidStudio: [], jdkParents: [] },
  sdkDefaults: [],
  androidCliDirs: [],
};

Deno.test("parseAdbVersion() reads both version lines", () => {
  assertEquals(
    parseAdbVersion(
      "Android Debug Bridge version 1.0.41\nVersion 35.0.2-12147458\nInstalled as /x/adb\n",
    ),
    { version: "1.0.41", tools_version: "35.0.2-12147458" },
  );
  assertEquals(parseAdbVersion("garbage"), { version: null, tools_version: null });
});

Deno.test("runHealthCheck() is all ok for a complete setup; android_cli does not count", async () => {
  await using tmp = await tempDir();
  const w = await world(tmp.path);
  const project = await selectProject({ cwd: w.proj, dataDir: w.data });
  const report = await runHealthCheck({
    env: w.env,
    dataDir: w.data,
    project,
    adb: answering,
    ...seams,
  });
  const c = report.checks;
  assertEquals(report.all_ok, true, renderHealth(report));
  assertEquals([c.java.source, c.java.major_version], ["installedJdk", 17]);
  assertEquals([c.android_sdk.path, c.android_sdk.source], [w.sdk, "ANDROID_HOME"]);
  assertEquals(
    [c.adb.ok, c.adb.path, c.adb.version, c.adb.server_running, c.adb.server_version],
    [true, join(w.sdk, "platform-tools", "adb"), "1.0.41", true, 41],
  );
  assertEquals([c.gradle_wrapper.ok, c.gradle_wrapper.gradle_version], [true, "8.7"]);
  assertEquals([c.project.ok, c.project.name, c.project.selected_by], [
    true,
    "Sample",
    "working_directory",
  ]);
  assertEquals(c.project.trusted, false);
  assertMatch(c.project.trust_hint ?? "", new RegExp(`keynobi trust ${w.proj}`));
  assertEquals(c.android_cli.installed, false);
  assertMatch(renderHealth(report), /^Health: all ok\n- java: ok 17\.0\.15/);
});

Deno.test("runHealthCheck() ignores an untrusted project's local.properties and gradle.properties", async () => {
  await using tmp = await tempDir();
  const w = await world(tmp.path);
  const evilJdk = join(tmp.path, "evil-jdk");
  await writeScript(join(evilJdk, "bin", "java"), `echo 'openjdk version "21.0.1"' >&2`);
  await writeTree(w.proj, {
    "local.properties": `sdk.dir=${w.projSdk}\n`,
    "gradle.properties": `org.gradle.java.home=${evilJdk}\n`,
  });
  const env = mapEnv({ HOME: w.home, ANDROID_HOME: w.sdk, JAVA_HOME: w.jdk });
  const project = await selectProject({ cwd: w.proj, dataDir: w.data });
  let r = await runHealthCheck({ env, dataDir: w.data, project, adb: answering, ...seams });
  assertEquals([r.checks.android_sdk.source, r.checks.java.source], [
    "ANDROID_HOME",
    "installedJdk",
  ]);
  assertEquals(r.checks.java.java_home, w.jdk);
  await trustProject(w.data, w.proj);
  const noEnv = mapEnv({ HOME: w.home, JAVA_HOME: w.jdk });
  r = await runHealthCheck({ env: noEnv, dataDir: w.data, project, adb: answering, ...seams });
  assertEquals([r.checks.android_sdk.path, r.checks.android_sdk.source], [
    w.projSdk,
    "localProperties",
  ]);
  assertEquals([r.checks.java.java_home, r.checks.java.source], [
    evilJdk,
    "projectGradleProperties",
  ]);
  assertEquals([r.checks.project.trusted, r.checks.project.trust_hint], [true, null]);
});

Deno.test("runHealthCheck() without a project or ADB server says what to do", async () => {
  await using tmp = await tempDir();
  const w = await world(tmp.path);
  const env = mapEnv({ HOME: w.home, JAVA_HOME: w.jdk, PATH: "" });
  const r = await runHealthCheck({ env, dataDir: w.data, project: null, adb: silent, ...seams });
  assertEquals(r.all_ok, false);
  assertEquals([r.checks.project.ok, r.checks.gradle_wrapper.ok, r.checks.adb.ok], [
    false,
    false,
    false,
  ]);
  assertMatch(r.checks.project.hint ?? "", /No Android project is selected/);
  assertMatch(r.checks.adb.hint ?? "", /No adb found and no ADB server answers/);
  assert(renderHealth(r).includes("- project: FAIL"));
});

Deno.test("runHealthCheck() counts adb ok when the server answers without a local adb", async () => {
  await using tmp = await tempDir();
  const w = await world(tmp.path);
  const env = mapEnv({ HOME: w.home, JAVA_HOME: w.jdk, PATH: "" });
  const r = await runHealthCheck({ env, dataDir: w.data, project: null, adb: answering, ...seams });
  assertEquals([r.checks.adb.ok, r.checks.adb.path, r.checks.adb.server_running], [
    true,
    null,
    true,
  ]);
});

Deno.test("runHealthCheck() warns about settings keys keynobi ignores (the spec's camelCase)", async () => {
  await using tmp = await tempDir();
  const w = await world(tmp.path);
  await trustProject(w.data, w.proj);
  const path = join(w.data, "settings.json");
  const s = JSON.parse(await Deno.readTextFile(path));
  s.mcp = { allowUnrestrictedGradle: true, build_timeout_sec: 60 };
  s.lastActiveProject = w.proj;
  s.colour = "blue";
  await Deno.writeTextFile(path, JSON.stringify(s));
  const project = await selectProject({ cwd: w.proj, dataDir: w.data });
  const report = await runHealthCheck({
    env: w.env,
    dataDir: w.data,
    project,
    adb: answering,
    ...seams,
  });
  const c = report.checks.settings;
  assertEquals(c.ok, false);
  assertEquals(c.unknown_keys, [
    { key: "lastActiveProject", did_you_mean: "last_active_project" },
    { key: "colour", did_you_mean: null },
    { key: "mcp.allowUnrestrictedGradle", did_you_mean: "mcp.allow_unrestricted_gradle" },
  ]);
  const text = renderHealth(report);
  assertMatch(
    text,
    /mcp\.allowUnrestrictedGradle \(did you mean mcp\.allow_unrestricted_gradle\?\)/,
  );
  // Informational: it does not fail the whole check.
  assertEquals(report.all_ok, true, text);
});
