import { join } from "node:path";
import { findGradleRoot, selectProject } from "../../lib/project/project_root.ts";
import { setLastActiveProject } from "../../lib/project/project_root.ts";
import { assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "./_fixture.ts";

Deno.test("findGradleRoot() finds the nearest settings file, itself or a parent", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, { ...SAMPLE_PROJECT, "groovy/settings.gradle": "include ':a'\n" });
  assertEquals(await findGradleRoot(proj), proj);
  assertEquals(await findGradleRoot(join(proj, "app", "src", "main")), proj);
  assertEquals(await findGradleRoot(join(proj, "app", "build.gradle.kts")), proj);
  assertEquals(await findGradleRoot(join(proj, "groovy")), join(proj, "groovy"));
  assertEquals(await findGradleRoot(join(tmp.path, "missing")), null);
  assertEquals(await findGradleRoot(tmp.path), null);
});

Deno.test("selectProject() prefers the argument, resolved to its Gradle root", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  await Deno.mkdir(join(tmp.path, "plain"));
  const data = join(tmp.path, "data");
  assertEquals(await selectProject({ argument: "proj/app", cwd: tmp.path, dataDir: data }), {
    root: proj,
    requested: join(proj, "app"),
    selectedBy: "argument",
  });
  assertEquals(
    (await selectProject({ argument: "plain", cwd: tmp.path, dataDir: data }))?.root,
    join(tmp.path, "plain"),
    "a folder without a Gradle build is used as it is",
  );
  const e = await assertRejects(() =>
    selectProject({ argument: "nope", cwd: tmp.path, dataDir: data })
  );
  assertMatch((e as Error).message, /^Cannot use --project nope: .* is not an existing folder/);
});

Deno.test("selectProject() falls back to the working directory, then the last active project", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  await Deno.mkdir(join(tmp.path, "elsewhere"));
  const data = join(tmp.path, "data");
  assertEquals(
    (await selectProject({ cwd: join(proj, "lib"), dataDir: data }))?.selectedBy,
    "working_directory",
  );
  const cwd = join(tmp.path, "elsewhere");
  assertEquals(await selectProject({ cwd, dataDir: data }), null);
  await setLastActiveProject(data, proj);
  assertEquals(await selectProject({ cwd, dataDir: data }), {
    root: proj,
    requested: proj,
    selectedBy: "last_active_project",
  });
  assertEquals(await selectProject({ cwd, dataDir: data, useLastActive: false }), null);
  await Deno.remove(proj, { recursive: true });
  assertEquals(await selectProject({ cwd, dataDir: data }), null, "a deleted project is skipped");
});
