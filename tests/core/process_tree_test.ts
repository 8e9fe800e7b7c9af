import { assert, assertEquals, assertRejects } from "../assert.ts";
import {
  descendants,
  descendantsIn,
  killTree,
  listProcesses,
  parsePsTable,
  stillRunning,
} from "../../lib/core/process_tree.ts";
import { pollUntil } from "../wait.ts";

const PS_TABLE = `    1     0 Ss
  100     1 S
  200   100 S
  201   100 Z
  300   200 R+
  301   200 S
  400     1 S
garbage line
  500   300 S
`;

Deno.test("parsePsTable() reads pid, ppid and state and skips other lines", () => {
  const table = parsePsTable(PS_TABLE);
  assertEquals(table.length, 8);
  assertEquals(table[0], { pid: 1, ppid: 0, stat: "Ss" });
  assertEquals(table[4], { pid: 300, ppid: 200, stat: "R+" });
  assertEquals(parsePsTable("  7  3\n"), [{ pid: 7, ppid: 3, stat: "" }]);
});

Deno.test("descendantsIn() lists the whole tree, parents before children", () => {
  const table = parsePsTable(PS_TABLE);
  assertEquals(descendantsIn(table, 100), [200, 201, 300, 301, 500]);
  assertEquals(descendantsIn(table, 300), [500]);
  assertEquals(descendantsIn(table, 400), []);
  assertEquals(descendantsIn(table, 100, 2), [200, 201]);
});

Deno.test("descendantsIn() survives a cycle in a corrupt table", () => {
  const table = parsePsTable("10 11 S\n11 10 S\n12 11 S\n");
  assertEquals(descendantsIn(table, 10), [11, 12]);
});

Deno.test("stillRunning() treats zombies and missing PIDs as exited", () => {
  const table = parsePsTable(PS_TABLE);
  assertEquals(stillRunning(table, [200, 201, 999, 500]), [200, 500]);
});

/** `sh` that starts two sleeps and waits; `script` runs first (a trap, say). */
async function startTree(prefix = "") {
  const child = new Deno.Command("sh", {
    args: ["-c", `${prefix} sleep 60 & sleep 60 & wait`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const kids = await pollUntil(
    () => descendants(child.pid),
    (k) => k.length >= 2,
    "both background sleeps",
    { intervalMs: 20 },
  ).catch(() => descendants(child.pid));
  return {
    child,
    kids,
    async [Symbol.asyncDispose]() {
      for (const p of [child.pid, ...kids]) {
        try {
          Deno.kill(p, "SIGKILL");
        } catch { /* gone */ }
      }
      await child.status;
    },
  };
}

Deno.test("listProcesses() includes this process", async () => {
  const table = await listProcesses();
  assert(table !== null, "ps should run");
  assert(table.some((e) => e.pid === Deno.pid));
});

Deno.test("descendants() finds the sleeps a real sh started", async () => {
  await using tree = await startTree();
  assertEquals(tree.kids.length, 2);
  assertEquals(await descendants(Deno.pid).then((d) => d.includes(tree.child.pid)), true);
});

Deno.test("killTree() stops a shell and its children with SIGTERM", async () => {
  await using tree = await startTree();
  const result = await killTree(tree.child.pid, { graceMs: 3_000 });
  assertEquals(result.tree_known, true);
  assertEquals(result.signal, "SIGTERM");
  assertEquals(result.signalled.sort(), [tree.child.pid, ...tree.kids].sort());
  assertEquals(result.killed, []);
  assertEquals(result.remaining, []);
  const status = await tree.child.status;
  assertEquals(status.signal, "SIGTERM");
  const table = await listProcesses();
  assertEquals(stillRunning(table!, tree.kids), []);
});

Deno.test("killTree() SIGKILLs a tree that ignores SIGTERM after the grace period", async () => {
  await using tree = await startTree(`trap "" TERM;`);
  const result = await killTree(tree.child.pid, { graceMs: 300 });
  assertEquals(result.killed.sort(), [tree.child.pid, ...tree.kids].sort());
  assertEquals(result.remaining, []);
  const status = await tree.child.status;
  assertEquals(status.signal, "SIGKILL");
});

Deno.test("killTree() refuses init and non-PIDs", async () => {
  await assertRejects(() => killTree(1), RangeError);
  await assertRejects(() => killTree(0), RangeError);
  await assertRejects(() => killTree(-5), RangeError);
  await assertRejects(() => killTree(1.5), RangeError);
});

Deno.test("killTree() of a process that already exited reports nothing left", async () => {
  const child = new Deno.Command("sh", { args: ["-c", "exit 0"], stdout: "null" }).spawn();
  await child.status;
  const result = await killTree(child.pid, { graceMs: 200 });
  assertEquals(result.signalled, []);
  assertEquals(result.remaining, []);
});
