import { join } from "node:path";
import { mapEnv } from "../../lib/core/env.ts";
import { projectsCommand, trustCommand, untrustCommand } from "../../lib/cli/trust.ts";
import { isTrusted } from "../../lib/project/trust.ts";
import { assertEquals, assertMatch } from "../assert.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "../project/_fixture.ts";

function io(home: string, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      env: mapEnv({ HOME: home, KEYNOBI_HOME: join(home, ".kn") }),
      cwd,
      stdout: (l: string) => out.push(l),
      stderr: (l: string) => err.push(l),
    },
  };
}

Deno.test("trustCommand() trusts the canonical Gradle root and says what it means", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  const t = io(tmp.path, proj);
  assertEquals(await trustCommand(["app"], t.io), 0);
  assertEquals(t.out[0], `Trusted: ${proj}`);
  assertMatch(t.out.join("\n"), /gradlew and Gradle build scripts/);
  assertEquals(await isTrusted(join(tmp.path, ".kn"), proj), true);
  const again = io(tmp.path, proj);
  assertEquals(await trustCommand(["."], again.io), 0);
  assertEquals(again.out, [`Already trusted: ${proj}`]);
});

Deno.test("trustCommand() refuses a non-folder and a folder without a Gradle build", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(join(tmp.path, "file"), "");
  const a = io(tmp.path, tmp.path);
  assertEquals(await trustCommand(["file"], a.io), 1);
  assertMatch(a.err[0], /not an existing folder/);
  await Deno.mkdir(join(tmp.path, "plain"));
  const b = io(tmp.path, tmp.path);
  assertEquals(await trustCommand(["plain"], b.io), 1);
  assertMatch(b.err[0], /not in a Gradle build/);
  const c = io(tmp.path, tmp.path);
  assertEquals(await trustCommand([], c.io), 2);
  assertMatch(c.err[0], /^Usage: keynobi trust <path>/);
});

Deno.test("untrustCommand() revokes, and says so when nothing was trusted", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  await trustCommand([proj], io(tmp.path, tmp.path).io);
  const a = io(tmp.path, tmp.path);
  assertEquals(await untrustCommand(["proj"], a.io), 0);
  assertEquals(a.out[0], `Untrusted: ${proj}`);
  assertEquals(await isTrusted(join(tmp.path, ".kn"), proj), false);
  const b = io(tmp.path, tmp.path);
  assertEquals(await untrustCommand(["proj"], b.io), 0);
  assertMatch(b.out[0], /^Not trusted: .*nothing changed/);
});

Deno.test("projectsCommand() lists trusted projects and the last active one", async () => {
  await using tmp = await tempDir();
  const empty = io(tmp.path, tmp.path);
  assertEquals(await projectsCommand([], empty.io), 0);
  assertMatch(empty.out[0], /No trusted projects/);
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  await trustCommand([proj], io(tmp.path, tmp.path).io);
  const t = io(tmp.path, tmp.path);
  assertEquals(await projectsCommand([], t.io), 0);
  assertEquals(t.out[0], "Trusted projects:");
  assertMatch(t.out[1], new RegExp(`^  ${proj}  \\(trusted `));
  assertEquals(t.out[2], "Last active project: none");
});
