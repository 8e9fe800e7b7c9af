/**
 * The attach path under the faults a local peer causes: an app socket that accepts and closes at
 * once, a client that closes stdin right after its requests, requests cancelled before the app
 * goes. `keynobi --mcp` is driven over raw stdin/stdout lines, as a client that pipelines does.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { keynobiArgv, startWorld, type World } from "./harness.ts";

// deno-lint-ignore no-explicit-any
type J = any;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

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
  const lines: J[] = [];
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
