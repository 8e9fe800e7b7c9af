import { join } from "node:path";
import { mapEnv } from "../../../lib/core/env.ts";
import { trustProject } from "../../../lib/project/trust.ts";
import { selectProject } from "../../../lib/project/project_root.ts";
import { projectTools } from "../../../lib/tools/project/project.ts";
import type { ToolContext } from "../../../lib/tools/context.ts";
import type { AdbClient } from "../../../lib/adb/client.ts";
import { assert, assertEquals, assertMatch } from "../../assert.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "../../project/_fixture.ts";
import { testToolContext } from "../../tool_context.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

function tool(name: string) {
  const t = projectTools.find((t) => t.name === name);
  assert(t, `${name} is defined`);
  return t;
}

async function context(tmp: string, cwd: string, followsApp = false): Promise<ToolContext> {
  const data = join(tmp, "data");
  return testToolContext({
    adb: { serverVersion: () => Promise.reject(new Error("no server")) } as unknown as AdbClient,
    env: mapEnv({ HOME: join(tmp, "home"), KEYNOBI_HOME: data, PATH: "" }),
    dataDir: data,
    project: await selectProject({ cwd, dataDir: data }),
    session: {
      mode: followsApp ? "attached" : "standalone",
      standaloneReason: followsApp ? null : "the Keynobi app is not running",
      followsApp,
      pinnedProject: null,
    },
  });
}

Deno.test("projectTools are read-only core tools that work without a project", () => {
  assertEquals(projectTools.map((t) => t.name), ["get_project_info", "run_health_check"]);
  for (const t of projectTools) {
    assertEquals([t.toolset, t.kind, t.needsProject === true], ["core", "R", false]);
    assertEquals(Object.keys(t.params), []);
  }
});

Deno.test("get_project_info reports the project, trust and mode", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  const ctx = await context(tmp.path, join(proj, "app"));
  let out = await tool("get_project_info").run({}, ctx);
  const s = out.structured as Json;
  assertEquals(s.project.root, proj);
  assertEquals(s.project.name, "Sample");
  assertEquals(s.project.selected_by, "working_directory");
  assertEquals(s.project.application_modules, [":app"]);
  assertEquals(s.project.modules.map((m: { path: string }) => m.path), [":app", ":lib"]);
  assertEquals(s.project.build_files["gradle-settings"], "settings.gradle.kts");
  assertEquals(s.project.gradle_wrapper.gradle_version, "8.7");
  assertEquals([s.mode, s.standalone_reason, s.follows_app, s.pinned_project, s.open], [
    "standalone",
    "the Keynobi app is not running",
    false,
    null,
    true,
  ]);
  assertEquals(s.trusted, false);
  assertMatch(s.trust_hint, new RegExp(`^Ask the user to run \`keynobi trust ${proj}\``));
  assert("java" in s && typeof s.java.ok === "boolean");
  assertMatch(
    out.text,
    /^Project: Sample at .* \(selected by working_directory\)\nModules \(\* = application\): :app\*, :lib/,
  );

  await trustProject(ctx.dataDir, proj);
  out = await tool("get_project_info").run({}, await context(tmp.path, proj, true));
  const t = out.structured as Json;
  assertEquals([t.trusted, t.trust_hint, t.project.selected_by, t.mode], [
    true,
    null,
    "app",
    "attached",
  ]);
});

Deno.test("get_project_info answers (not an error) when no project is selected", async () => {
  await using tmp = await tempDir();
  await Deno.mkdir(join(tmp.path, "empty"));
  const out = await tool("get_project_info").run(
    {},
    await context(tmp.path, join(tmp.path, "empty")),
  );
  const s = out.structured as Json;
  assertEquals([s.project, s.open, s.trusted], [null, false, false]);
  assertMatch(s.hint, /No Android project is selected/);
  assertMatch(out.text, /^No project selected\./);
});

Deno.test("run_health_check answers with every check", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  const out = await tool("run_health_check").run({}, await context(tmp.path, proj));
  const s = out.structured as Json;
  assertEquals(Object.keys(s.checks).sort(), [
    "adb",
    "android_cli",
    "android_sdk",
    "gradle_wrapper",
    "java",
    "project",
    "settings",
  ]);
  assertEquals(s.checks.adb.server_running, false);
  assertEquals(s.all_ok, false);
  assertEquals(s.checks.project.name, "Sample");
  assertMatch(out.text, /^Health: problems found/);
});
