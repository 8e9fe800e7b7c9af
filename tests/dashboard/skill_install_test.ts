import { assertEquals, assertRejects } from "../assert.ts";
import {
  installSkill,
  SkillInstallRefused,
  skillPaths,
  skillStatus,
} from "../../lib/dashboard/skill_install.ts";

const SHIPPED = "---\nname: keynobi\ndescription: test\n---\nUse keynobi.\n";

Deno.test("skill installer: installs through a rename, then says installed", async () => {
  const home = await Deno.makeTempDir();
  const p = skillPaths(home);
  assertEquals((await skillStatus(home, SHIPPED)).state, "missing");
  const st = await installSkill(home, SHIPPED, { replace: false });
  assertEquals(st.state, "installed");
  assertEquals(await Deno.readTextFile(p.file), SHIPPED);
  const names = [...Deno.readDirSync(p.folder)].map((e) => e.name);
  assertEquals(names, ["SKILL.md"], "no temporary file left");
  await Deno.remove(home, { recursive: true });
});

Deno.test("skill installer: a different SKILL.md or a symlink needs replace; then it is replaced", async () => {
  const home = await Deno.makeTempDir();
  const p = skillPaths(home);
  await Deno.mkdir(p.folder, { recursive: true });
  await Deno.writeTextFile(p.file, "my own skill\n");
  assertEquals((await skillStatus(home, SHIPPED)).state, "different");
  await assertRejects(() => installSkill(home, SHIPPED, { replace: false }), SkillInstallRefused);
  assertEquals(await Deno.readTextFile(p.file), "my own skill\n", "unchanged");
  await installSkill(home, SHIPPED, { replace: true });
  assertEquals(await Deno.readTextFile(p.file), SHIPPED);

  // A symlink (even to the shipped text) counts as different; replacing swaps the link itself.
  const elsewhere = `${home}/elsewhere.md`;
  await Deno.writeTextFile(elsewhere, SHIPPED);
  await Deno.remove(p.file);
  await Deno.symlink(elsewhere, p.file);
  const st = await skillStatus(home, SHIPPED);
  assertEquals([st.state, st.detail], ["different", "SKILL.md is a symlink"]);
  await assertRejects(() => installSkill(home, SHIPPED, { replace: false }), SkillInstallRefused);
  await Deno.writeTextFile(elsewhere, "target kept\n");
  await installSkill(home, SHIPPED, { replace: true });
  assertEquals((await Deno.lstat(p.file)).isSymlink, false);
  assertEquals(await Deno.readTextFile(elsewhere), "target kept\n", "the link's target untouched");
  await Deno.remove(home, { recursive: true });
});

Deno.test("skill installer: a keynobi folder resolving outside ~/.claude/skills is refused", async () => {
  const home = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  const p = skillPaths(home);
  await Deno.mkdir(p.skills, { recursive: true });
  await Deno.symlink(outside, p.folder);
  assertEquals((await skillStatus(home, SHIPPED)).state, "outside");
  for (const replace of [false, true]) {
    const e = await assertRejects(
      () => installSkill(home, SHIPPED, { replace }),
      SkillInstallRefused,
    );
    assertEquals(e.message.includes("outside"), true, e.message);
  }
  assertEquals([...Deno.readDirSync(outside)], [], "nothing written outside");
  await Deno.remove(home, { recursive: true });
  await Deno.remove(outside, { recursive: true });
});
