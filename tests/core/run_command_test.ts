import { assert, assertEquals, assertMatch } from "../assert.ts";
import { runCommand } from "../../lib/core/run_command.ts";

const OPTS = { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 };

Deno.test("runCommand() returns the exit code and both outputs", async () => {
  const r = await runCommand("sh", ["-c", "echo out; echo err >&2; exit 3"], OPTS);
  assertEquals(r, {
    code: 3,
    stdout: "out\n",
    stderr: "err\n",
    timedOut: false,
    notFound: false,
    error: null,
  });
});

Deno.test("runCommand() passes env and cwd", async () => {
  const cwd = await Deno.realPath(await Deno.makeTempDir({ prefix: "keynobi-run-" }));
  try {
    const r = await runCommand("sh", ["-c", 'echo "$KEYNOBI_RUN_TEST"; pwd'], {
      ...OPTS,
      env: { KEYNOBI_RUN_TEST: "hello" },
      cwd,
    });
    assertEquals([r.code, r.stdout], [0, `hello\n${cwd}\n`]);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

/** Whether process `pid` still runs (`ps` shows it, and not as a zombie waiting to be reaped). */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const state = new TextDecoder().decode(out.stdout).trim();
  return state !== "" && !state.startsWith("Z");
}

Deno.test("runCommand() kills a command that exceeds its timeout", async () => {
  // The background sleep keeps the pipes open after its parent shell is killed: runCommand must
  // answer while it still lives, not when it ends (20 s later) and the pipes close.
  const r = await runCommand("sh", ["-c", "sleep 20 & echo $!; wait"], {
    ...OPTS,
    timeoutMs: 300,
  });
  const grandchild = Number(r.stdout.trim());
  try {
    assertEquals([r.code, r.timedOut, r.notFound], [null, true, false]);
    assertMatch(r.error ?? "", /did not finish within 300 ms/);
    assert(Number.isSafeInteger(grandchild) && grandchild > 1, `no pid in ${r.stdout}`);
    assert(await alive(grandchild), "runCommand waited for the pipe holder to end");
  } finally {
    if (Number.isSafeInteger(grandchild) && grandchild > 1) {
      try {
        Deno.kill(grandchild, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
});

Deno.test("runCommand() caps stdout and stderr at maxOutputBytes", async () => {
  const script = "i=0; while [ $i -lt 200 ]; do echo aaaaaaaaa; echo bbbbbbbbb >&2; " +
    "i=$((i+1)); done";
  const r = await runCommand("sh", ["-c", script], { ...OPTS, maxOutputBytes: 1_005 });
  assertEquals(r.code, 0);
  assertEquals(r.stdout, "aaaaaaaaa\n".repeat(100) + "aaaaa");
  assertEquals(r.stderr, "bbbbbbbbb\n".repeat(100) + "bbbbb");
});

Deno.test("runCommand() reports a missing command as notFound without throwing", async () => {
  const r = await runCommand("/nonexistent/keynobi-no-such-command", [], OPTS);
  assertEquals([r.code, r.timedOut, r.notFound, r.stdout, r.stderr], [null, false, true, "", ""]);
  assert(r.error !== null && r.error !== "");
});

Deno.test("runCommand() streams every stdout chunk to onStdout, past the cap", async () => {
  const chunks: Uint8Array[] = [];
  const r = await runCommand("sh", [
    "-c",
    "i=0; while [ $i -lt 300 ]; do echo line$i; " +
    "i=$((i+1)); done; echo done >&2",
  ], {
    ...OPTS,
    maxOutputBytes: 16,
    onStdout: (chunk) => chunks.push(chunk.slice()),
  });
  const streamed = new TextDecoder().decode(
    new Uint8Array(chunks.flatMap((c) => [...c])),
  );
  const expected = Array.from({ length: 300 }, (_, i) => `line${i}\n`).join("");
  assertEquals([r.code, r.stdout, r.stderr], [0, "", "done\n"]);
  assertEquals(streamed, expected);
});
