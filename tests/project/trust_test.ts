import { join } from "node:path";
import { readSettings } from "../../lib/core/settings.ts";
import { isTrusted, listProjects, trustProject, untrustProject } from "../../lib/project/trust.ts";
import { setLastActiveProject } from "../../lib/project/project_root.ts";
import { assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "./_fixture.ts";

Deno.test("trustProject() trusts the Gradle root of a subfolder; isTrusted() reads it", async () => {
  await using tmp = await tempDir();
  const data = join(tmp.path, "data");
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  assertEquals(await isTrusted(data, proj), false);
  const r = await trustProject(data, join(proj, "app", "src"));
  assertEquals(r, { root: proj, alreadyTrusted: false });
  assertEquals(await isTrusted(data, proj), true);
  assertEquals(await isTrusted(data, join(proj, "lib")), true, "a subfolder is in the same build");
  assertEquals((await trustProject(data, proj)).alreadyTrusted, true);
});

Deno.test("isTrusted() does not extend to a nested Gradle build", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, { ...SAMPLE_PROJECT, "nested/settings.gradle": "" });
  await trustProject(join(tmp.path, "data"), proj);
  assertEquals(await isTrusted(join(tmp.path, "data"), join(proj, "nested")), false);
});

Deno.test("isTrusted() follows symlinks to the canonical root", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  await Deno.symlink(proj, join(tmp.path, "link"));
  await trustProject(join(tmp.path, "data"), join(tmp.path, "link"));
  assertEquals(await isTrusted(join(tmp.path, "data"), proj), true);
  const s = await readSettings(join(tmp.path, "data"));
  assertEquals(Object.keys(s.trusted_projects), [proj]);
});

Deno.test("trustProject() refuses a missing folder and a folder with no Gradle build", async () => {
  await using tmp = await tempDir();
  await Deno.mkdir(join(tmp.path, "plain"));
  const data = join(tmp.path, "data");
  const e1 = await assertRejects(() => trustProject(data, join(tmp.path, "missing")));
  assertMatch((e1 as Error).message, /not an existing folder/);
  const e2 = await assertRejects(() => trustProject(data, join(tmp.path, "plain")));
  assertMatch((e2 as Error).message, /not in a Gradle build/);
  assertEquals((await listProjects(data)).projects, []);
});

Deno.test("untrustProject() removes by root and by a deleted folder's path", async () => {
  await using tmp = await tempDir();
  const data = join(tmp.path, "data");
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  await trustProject(data, proj);
  assertEquals(await untrustProject(data, join(tmp.path, "other")), []);
  await Deno.remove(proj, { recursive: true });
  const listed = await listProjects(data);
  assertEquals(listed.projects.map((p) => [p.root, p.exists]), [[proj, false]]);
  assertEquals(await untrustProject(data, proj), [proj]);
  assertEquals(await isTrusted(data, proj), false);
});

Deno.test("setLastActiveProject() stores the canonical root; listProjects() reports it", async () => {
  await using tmp = await tempDir();
  const data = join(tmp.path, "data");
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  assertEquals(await setLastActiveProject(data, join(proj, "app")), proj);
  assertEquals((await listProjects(data)).last_active_project, proj);
});
