import { join } from "node:path";
import { mapEnv } from "../../lib/core/env.ts";
import {
  ensureDataDir,
  resolveDataDir,
  sessionsDir,
  settingsPath,
} from "../../lib/core/data_dir.ts";
import { assert, assertEquals } from "../assert.ts";
import { tempDir } from "../project/_fixture.ts";

Deno.test("resolveDataDir() prefers KEYNOBI_HOME, else HOME/.keynobi, else USERPROFILE", () => {
  assertEquals(resolveDataDir(mapEnv({ KEYNOBI_HOME: "/x/k", HOME: "/h" })), "/x/k");
  assertEquals(resolveDataDir(mapEnv({ HOME: "/h" })), "/h/.keynobi");
  assertEquals(resolveDataDir(mapEnv({ USERPROFILE: "/u" })), "/u/.keynobi");
  let threw = false;
  try {
    resolveDataDir(mapEnv({}));
  } catch (e) {
    threw = /KEYNOBI_HOME/.test((e as Error).message);
  }
  assert(threw, "no home is an error naming KEYNOBI_HOME");
});

Deno.test("ensureDataDir() creates with 0700 and tightens a looser folder", async () => {
  await using tmp = await tempDir();
  const dir = join(tmp.path, "data");
  await ensureDataDir(dir);
  assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
  await Deno.chmod(dir, 0o755);
  await ensureDataDir(dir);
  assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
  assertEquals(settingsPath(dir), join(dir, "settings.json"));
  assertEquals(sessionsDir(dir), join(dir, "mcp-sessions"));
});
