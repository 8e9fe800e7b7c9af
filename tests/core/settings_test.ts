import { join } from "node:path";
import { normalizeSettings, readSettings, updateSettings } from "../../lib/core/settings.ts";
import { settingsPath } from "../../lib/core/data_dir.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { tempDir } from "../project/_fixture.ts";

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
