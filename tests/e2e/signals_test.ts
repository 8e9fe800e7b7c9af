/**
 * Signals always start the shutdown (issue 10 item 8): after the client closed stdin while a
 * build still runs, SIGTERM stops the server (it does not wait out the build timeout), and a
 * server whose stdin read is stuck on a FIFO that nobody writes still ends on SIGTERM.
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { E2E_WAIT, initializeRequest, keynobiArgv, runKeynobi, startWorld } from "./harness.ts";
import { waitUntil } from "../wait.ts";

const enc = new TextEncoder();
const line = (m: unknown) => enc.encode(JSON.stringify(m) + "\n");
const INIT = initializeRequest("t", "0");

async function readUntil(r: ReadableStreamDefaultReader<Uint8Array>, pred: (s: string) => boolean) {
  let text = "";
  const dec = new TextDecoder();
  while (!pred(text)) {
    const { value, done } = await r.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
  }
  return text;
}

Deno.test("SIGTERM after stdin closed stops a server that waits for its build", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  assertEquals((await runKeynobi(world, ["trust", project])).code, 0);
  await world.sim.gradle("sample-kts").hangAt("compileDemoDebugKotlin");
  const child = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(["--mcp", "--project", project]),
    env: world.env,
    clearEnv: true,
    cwd: world.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  const r = child.stdout.getReader();
  await w.write(line(INIT));
  await readUntil(r, (t) => t.includes('"id":1'));
  await w.write(line({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
  }));
  // Wait until Gradle runs its hung task, then go away as a client.
  let id = 2;
  await waitUntil(
    async () => {
      id++;
      await w.write(line({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "get_build_status", arguments: {} },
      }));
      const status = await readUntil(r, (t) => t.includes(`"id":${id}`));
      return status.includes('"current_task":"');
    },
    "Gradle to run its hung task",
    E2E_WAIT,
  );
  await w.close();
  child.kill("SIGTERM");
  const done = await child.status;
  assertEquals(done.code, 0);
  r.releaseLock();
  await child.stdout.cancel().catch(() => {});
  const log = await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`);
  assertStringIncludes(log, "Server stopped by a signal");
});

Deno.test("SIGTERM ends a server whose stdin is a FIFO nobody writes to", async () => {
  await using world = await startWorld();
  const fifo = `${world.home}/stdin.fifo`;
  const mk = await new Deno.Command("mkfifo", { args: [fifo] }).output().catch(() => null);
  if (!mk?.success) {
    console.log("skipped: no mkfifo");
    return;
  }
  // The writer side stays open (so the server's read blocks) but never writes.
  const holder = new Deno.Command("sh", {
    args: ["-c", `exec 3>"${fifo}"; sleep 60`],
    stdin: "null",
  }).spawn();
  const child = new Deno.Command("sh", {
    args: ["-c", `exec "$0" "$@" < "${fifo}"`, Deno.execPath(), ...keynobiArgv(["--mcp"])],
    env: world.env,
    clearEnv: true,
    cwd: world.home,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const err = child.stderr.getReader();
  // Started once the session record exists.
  const records = `${world.dataDir}/mcp-sessions`;
  await waitUntil(
    async () => (await Array.fromAsync(Deno.readDir(records)).catch(() => [])).length > 0,
    "the session record",
    E2E_WAIT,
  );
  child.kill("SIGTERM");
  const done = await child.status;
  holder.kill("SIGKILL");
  await holder.status;
  err.releaseLock();
  await child.stderr.cancel().catch(() => {});
  const out = await new Response(child.stdout).text();
  assertEquals(done.code, 0);
  assertEquals(out, "");
});
