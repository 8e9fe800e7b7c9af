/**
 * Hostile framing over the real stdio of `keynobi --mcp`: a 20 MiB line, invalid UTF-8, a batch,
 * a duplicate id and an id beyond 2^53 — each gets a clear error (or its exact id back) and the
 * server goes on serving the lines after it.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { initializeRequest, keynobiArgv, startWorld } from "./harness.ts";

Deno.test("stdio: hostile lines are answered and the next line is served", async () => {
  await using world = await startWorld();
  const child = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(["--mcp"]),
    env: world.env,
    clearEnv: true,
    cwd: world.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const enc = new TextEncoder();
  const w = child.stdin.getWriter();
  const line = (m: unknown) => enc.encode(JSON.stringify(m) + "\n");
  const output = new Response(child.stdout).text();
  await w.write(line(initializeRequest("t", "0")));
  // 20 MiB in one line, written in 1 MiB pieces.
  await w.write(enc.encode('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"'));
  const mib = new Uint8Array(1024 * 1024).fill(0x78);
  for (let i = 0; i < 20; i++) await w.write(mib);
  await w.write(enc.encode('"}}\n'));
  await w.write(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a])); // {"\xff"}
  await w.write(enc.encode('[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n'));
  await w.write(enc.encode('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n'));
  await w.write(line({ jsonrpc: "2.0", id: 4, method: "ping" }));
  await w.close();
  const text = await output;
  assertEquals((await child.status).code, 0);
  const lines = text.trim().split("\n");
  const msgs = lines.map((l) => JSON.parse(l));
  for (const m of msgs) assertEquals(m.jsonrpc, "2.0");
  const errors = msgs.filter((m) => m.error);
  assertEquals(errors.map((m) => [m.id, m.error.code]), [[null, -32700], [null, -32700], [
    null,
    -32600,
  ]]);
  assertStringIncludes(errors[0].error.message, "MAX_MESSAGE_BYTES");
  assertStringIncludes(errors[1].error.message, "UTF-8");
  assertStringIncludes(errors[2].error.message, "batches");
  assert(
    lines.some((l) => /"id":9007199254740993[,}]/.test(l) && JSON.parse(l).result),
    `the exact id comes back: ${text.slice(0, 500)}`,
  );
  assertEquals(msgs.filter((m) => m.id === 2).length, 0, "the 20 MiB line never ran");
  assertEquals(msgs.find((m) => m.id === 4)?.result, {});
});
