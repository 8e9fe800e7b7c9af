import { assert, assertEquals } from "../assert.ts";
import { endBuildGroup, groupIsAlive, groupOf } from "../../lib/build/build_group.ts";
import { parseProcStatStart } from "../../lib/core/process_probe.ts";

Deno.test("parseProcStatStart() counts fields after the command's last ')'", () => {
  const line = "4242 (a) b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1 2 3";
  assertEquals(parseProcStatStart(line), "987654");
  assertEquals(parseProcStatStart("garbage"), null);
  assertEquals(parseProcStatStart("1 (x) S 1"), null);
});

Deno.test("endBuildGroup() ends a build's group only when the leader's start time matches", async () => {
  const child = new Deno.Command("sleep", { args: ["30"], detached: true, stdout: "null" }).spawn();
  try {
    const group = await groupOf(child.pid);
    assert(group !== null, "the start time of a running process is known");
    assertEquals(group.pgid, child.pid);
    // The same pid with another start time is a reused pid: not that build, left alone.
    const reused = { pgid: child.pid, start: `${group.start}0` };
    assertEquals(await groupIsAlive(reused), false);
    assertEquals(await endBuildGroup(reused), false);
    assert(await groupIsAlive(group), "still running");
    assertEquals(await endBuildGroup(group, 1_000), true);
    const status = await child.status;
    assertEquals(status.signal, "SIGTERM");
    assertEquals(await groupIsAlive(group), false);
    assertEquals(await endBuildGroup(group), false, "nothing left to end");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
  }
});
