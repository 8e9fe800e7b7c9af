/**
 * The attach path under the faults a local peer causes: an app socket that accepts and closes at
 * once, a client that closes stdin right after its requests, requests cancelled before the app
 * goes. `keynobi --mcp` is driven over raw stdin/stdout lines, as a client that pipelines does.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  INITIALIZED,
  initializeRequest,
  keynobiArgv,
  startApp,
  startWorld,
  type World,
} from "./harness.ts";
import { waitUntil } from "../wait.ts";

const SERIAL = "emulator-5554";

const INITIALIZE = initializeRequest("raw");

/** A JSON-RPC line the server wrote: the fields of the answers these tests read. */
interface RpcLine {
  id?: number;
  result: {
    serverInfo: { title: string };
    instructions: string;
    structuredContent?: unknown;
  };
}

/** `keynobi --mcp` with its stdin and stdout as JSON lines. */
function spawnMcp(world: World, args: readonly string[] = []) {
  const child = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(["--mcp", ...args]),
    env: world.env,
    clearEnv: true,
    cwd: world.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  const lines: RpcLine[] = [];
  const reading = (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    }
  })();
  const stderr = new Response(child.stderr).text();
  return {
    lines,
    send: (...messages: unknown[]) =>
      w.write(new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join(""))),
    end: () => w.close().catch(() => {}),
    /** Wait for the exit, with stdout read to its end. */
    async exit(): Promise<{ code: number; stderr: string }> {
      const status = await child.status;
      await reading;
      return { code: status.code, stderr: await stderr };
    },
  };
}

Deno.test("keynobi --mcp answers initialize standalone when the app socket accepts and closes at once", async () => {
  await using world = await startWorld();
  await Deno.mkdir(world.dataDir, { recursive: true, mode: 0o700 });
  // What the app does with MAX_PENDING_HANDSHAKES pending or while quitting: accept, close.
  const listener = Deno.listen({ transport: "unix", path: `${world.dataDir}/mcp.sock` });
  let accepted = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      accepted++;
      conn.close();
    }
  })();
  try {
    for (let trial = 0; trial < 3; trial++) {
      const p = spawnMcp(world);
      await p.send(INITIALIZE, INITIALIZED, { jsonrpc: "2.0", id: 2, method: "ping" });
      await p.end();
      const { code, stderr } = await p.exit();
      assertEquals(code, 0, stderr);
      assertEquals(p.lines.map((l) => l.id), [1, 2], stderr);
      assertEquals(p.lines[0].result.serverInfo.title, "Keynobi (standalone)");
      assertStringIncludes(p.lines[0].result.instructions, "the Keynobi app");
      assert(!stderr.includes("BadResource"), stderr);
    }
    assertEquals(accepted, 3, "each server tried the socket");
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("an attached client that closes stdin right after its requests gets every answer", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  for (let trial = 0; trial < 3; trial++) {
    const p = spawnMcp(world);
    const calls = [10, 11, 12].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_devices", arguments: {} },
    }));
    await p.send(INITIALIZE, INITIALIZED, ...calls);
    await p.end();
    const { code, stderr } = await p.exit();
    assertEquals(code, 0, stderr);
    assertEquals(p.lines.map((l) => l.id).sort(), [1, 10, 11, 12], stderr);
    assertStringIncludes(p.lines[0].result.serverInfo.title, "attached");
    for (const l of p.lines.slice(1)) {
      assertStringIncludes(JSON.stringify(l.result.structuredContent), SERIAL);
    }
  }
  assert(app.stderr() !== "");
});

Deno.test("requests the client cancelled are not answered 'send it again' when the app goes", async () => {
  await using world = await startWorld();
  const app = await startApp(world);
  const p = spawnMcp(world);
  const waits = [20, 21, 22, 23, 24].map((id) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "wait_for_element",
      arguments: {
        device_serial: SERIAL,
        selector: { text: "Never on screen" },
        timeout_ms: 30_000,
      },
    },
  }));
  await p.send(INITIALIZE, INITIALIZED, ...waits);
  await waitUntil(() => p.lines.length >= 1, "the initialize answer");
  await p.send(
    ...waits.map((w) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: w.id, reason: "the test cancelled it" },
    })),
    { jsonrpc: "2.0", id: 30, method: "ping" },
  );
  await waitUntil(() => p.lines.some((l) => l.id === 30), "the ping's answer");
  await app.stop("SIGKILL");
  await app[Symbol.asyncDispose]().catch(() => {});
  // The relay switches to standalone; the session carries on there.
  await p.send({ jsonrpc: "2.0", id: 31, method: "ping" });
  await waitUntil(() => p.lines.some((l) => l.id === 31), "the standalone ping's answer", {
    timeoutMs: 30_000,
  });
  await p.end();
  const { code, stderr } = await p.exit();
  assertEquals(code, 0, stderr);
  const againAnswers = p.lines.filter((l) => waits.some((w) => w.id === l.id));
  assertEquals(againAnswers, [], "a cancelled request gets no answer, 'send it again' neither");
});
