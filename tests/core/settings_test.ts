import { join } from "node:path";
import {
  isTrusted,
  listProjects,
  normalizeSettings,
  readSettings,
  setLastActiveProject,
  trustProject,
  untrustProject,
  updateSettings,
} from "../../lib/core/settings.ts";
import { settingsPath } from "../../lib/core/data_dir.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "../gradle/_fixture.ts";

Deno.test("readSettings() returns defaults for a missing file", async () => {
  await using tmp = await tempDir();
  assertEquals(await readSettings(join(tmp.path, "data")), { version: 1, trusted_projects: {} });
});

Deno.test("readSettings() warns and uses defaults for corrupt JSON; updateSettings() refuses", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(settingsPath(tmp.path), "{ not json");
  const warnings: string[] = [];
  const s = await readSettings(tmp.path, { warn: (m) => warnings.push(m) });
  assertEquals(s.trusted_projects, {});
  assertEquals(warnings.length, 1);
  assertMatch(warnings[0], /not valid JSON/);
  const e = await assertRejects(() => updateSettings(tmp.path, () => {}));
  assert(e instanceof ToolError && e.code === "io_error");
  assertMatch((e as Error).message, /fix the file or delete it/);
  assertEquals(await Deno.readTextFile(settingsPath(tmp.path)), "{ not json", "left untouched");
});

Deno.test("normalizeSettings() drops wrong types and keeps unknown fields", () => {
  const { settings, problems } = normalizeSettings({
    version: 1,
    trusted_projects: { "/a": { trusted_at: "t" }, "/b": 3 },
    java_home: 5,
    mcp: { build_timeout_sec: "x", allow_unrestricted_gradle: true, extra: 1 },
    future_field: { x: 1 },
  });
  assertEquals(Object.keys(settings.trusted_projects), ["/a"]);
  assertEquals(settings.java_home, undefined);
  assertEquals(settings.mcp, { allow_unrestricted_gradle: true, extra: 1 });
  assertEquals(settings.future_field, { x: 1 });
  assertEquals(problems.length, 3);
});

Deno.test("updateSettings() keeps fields it does not know and writes atomically", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(
    settingsPath(tmp.path),
    JSON.stringify({ version: 1, trusted_projects: {}, active_variants: { "/p": { app: "x" } } }),
  );
  await updateSettings(tmp.path, (s) => {
    s.sdk_path = "/sdk";
  });
  const raw = JSON.parse(await Deno.readTextFile(settingsPath(tmp.path)));
  assertEquals(raw.active_variants, { "/p": { app: "x" } });
  assertEquals(raw.sdk_path, "/sdk");
  const leftovers = [...Deno.readDirSync(tmp.path)].filter((e) => e.name.endsWith(".tmp"));
  assertEquals(leftovers.length, 0);
});

Deno.test("updateSettings() serializes concurrent writers (no lost update)", async () => {
  await using tmp = await tempDir();
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      updateSettings(tmp.path, (s) => {
        s.trusted_projects[`/p${i}`] = { trusted_at: "t" };
      })),
  );
  assertEquals(Object.keys((await readSettings(tmp.path)).trusted_projects).length, 8);
});

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
