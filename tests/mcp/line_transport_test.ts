/**
 * Hostile framing through our LineTransport and a real session (in-memory pipe): every bad line
 * gets a clear error and the session goes on serving; ids come back exact; the in-flight bound
 * answers busy; a client that stops reading stops being read, and nothing is lost.
 */
import { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { defineTool } from "../../lib/mcp/tool_def.ts";
import type { McpSessionOptions } from "../../lib/mcp/server.ts";
import { createMcpSession } from "../../lib/mcp/session.ts";
import { LineTransport } from "../../lib/mcp/line_transport.ts";
import { linePair, type Msg } from "./_line_pair.ts";
import { waitUntil } from "../wait.ts";

interface Ctx {
  signal: AbortSignal;
}

const gates = new Map<string, PromiseWithResolvers<void>>();
const hold = defineTool<Ctx, { key: z.ZodString }>({
  name: "hold_open",
  toolset: "core",
  kind: "R",
  description: "Answers when the test releases its key, or when cancelled",
  params: { key: z.string().max(20).describe("key") },
  async run(args, ctx) {
    const g = Promise.withResolvers<void>();
    gates.set(args.key, g);
    ctx.signal.addEventListener("abort", () => g.reject(new Error("aborted")));
    await g.promise;
    return { structured: { key: args.key }, text: args.key };
  },
});

function options(): McpSessionOptions<Ctx> {
  return {
    version: "1.0.0",
    title: "Keynobi (test)",
    instructions: "test",
    tools: [hold],
    enabledToolsets: ["core"],
    hasProject: true,
    makeContext: (signal) => ({ signal }),
    resources: { list: () => Promise.resolve([]), read: () => Promise.reject(new Error("none")) },
    prompts: [],
  };
}

const line = (m: unknown) => JSON.stringify(m) + "\n";
const ping = (id: unknown) => line({ jsonrpc: "2.0", id, method: "ping" });

async function stillServes(pair: { request(m: string): Promise<Msg> }) {
  assertEquals((await pair.request("ping")).result, {});
}

Deno.test("invalid JSON, invalid UTF-8 and non-messages get -32700/-32600, then serving goes on", async () => {
  await using pair = await linePair(options());
  await pair.write("this is not json\n");
  await pair.write(new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a])); // {"\xc3(" }
  await pair.write(line([1, 2]));
  await pair.write("42\n");
  await pair.write(line({ jsonrpc: "1.0", id: 5, method: "ping" }));
  await pair.write(line({ jsonrpc: "2.0", id: true, method: "ping" }));
  await stillServes(pair);
  const errors = pair.sent.filter((m) => m.error);
  assertEquals(errors.map((m) => [m.id, m.error.code]), [
    [null, -32700],
    [null, -32700],
    [null, -32600],
    [null, -32600],
    [5, -32600],
    [null, -32600],
  ]);
  assertStringIncludes(errors[1].error.message, "UTF-8");
  assertStringIncludes(errors[2].error.message, "batches are not supported");
});

Deno.test("a 20 MiB line is refused once without being read, and the next line is served", async () => {
  await using pair = await linePair(options());
  const chunk = "x".repeat(1024 * 1024);
  const head = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"';
  await pair.write(head);
  for (let i = 0; i < 20; i++) await pair.write(chunk);
  await pair.write('"}}\n');
  await stillServes(pair);
  const errors = pair.sent.filter((m) => m.error);
  assertEquals(errors.length, 1);
  assertEquals(errors[0].id, null);
  assertEquals(errors[0].error.code, -32700);
  assertStringIncludes(errors[0].error.message, "MAX_MESSAGE_BYTES");
  assertEquals(pair.sent.filter((m) => m.id === 1 && m.result).length, 0, "the long one never ran");
});

Deno.test("a duplicate id in flight is answered with id null; the first keeps its answer", async () => {
  await using pair = await linePair(options());
  const call = (id: number, key: string) =>
    line({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "hold_open", arguments: { key } },
    });
  await pair.write(call(7, "first"));
  await waitUntil(() => gates.has("first"), "the first call to reach its handler");
  await pair.write(call(7, "second"));
  const dup = await pair.next((m) => m.error && m.id === null);
  assertEquals(dup.error.code, -32600);
  assertStringIncludes(dup.error.message, "id 7 is already in use");
  gates.get("first")!.resolve();
  const first = await pair.next((m) => m.id === 7);
  assertEquals(first.result.structuredContent, { key: "first" });
  assertEquals(gates.has("second"), false, "the duplicate never ran");
  gates.clear();
});

Deno.test("over the in-flight bound a request is answered busy (-32050) with its id", async () => {
  await using pair = await linePair({ ...options(), maxInFlight: 2 });
  for (const [id, key] of [[1, "a"], [2, "b"], [3, "c"]] as const) {
    await pair.write(line({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "hold_open", arguments: { key } },
    }));
  }
  const busy = await pair.next((m) => m.id === 3);
  assertEquals(busy.error.code, -32050);
  assertEquals(busy.error.data, { retry: true, max_in_flight: 2 });
  assertStringIncludes(busy.error.message, "send it again");
  // A cancelled request frees its slot too (and is not answered).
  await waitUntil(() => gates.has("b"), "call b to reach its handler");
  await pair.notify("notifications/cancelled", { requestId: 2 });
  gates.get("a")!.resolve();
  await pair.next((m) => m.id === 1);
  await pair.session.drain();
  assertEquals(pair.session.gate.size, 0);
  await stillServes(pair);
  assertEquals(pair.sent.filter((m) => m.id === 2).length, 0);
  gates.clear();
});

Deno.test("ids beyond 2^53 come back exactly and do not collide", async () => {
  await using pair = await linePair(options());
  await pair.write(ping(0).replace('"id":0', '"id":9007199254740993'));
  await pair.write(ping(0).replace('"id":0', '"id":9007199254740992'));
  await stillServes(pair);
  assert(pair.lines.some((l) => l.includes('"id":9007199254740993')), pair.lines.join("\n"));
  assert(pair.lines.some((l) => l.includes('"id":9007199254740992')));
});

Deno.test("an invalid pagination cursor is -32602; 2025-03-26 is not negotiated", async () => {
  await using pair = await linePair(options());
  for (
    const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]
  ) {
    const r = await pair.request(method, { cursor: "bogus" });
    assertEquals(r.error?.code, -32602, method);
    assertStringIncludes(r.error.message, "cursor");
  }
  const init = (v: string) =>
    pair.request("initialize", {
      protocolVersion: v,
      capabilities: {},
      clientInfo: { name: "t", version: "0" },
    });
  assertEquals((await init("2025-03-26")).result.protocolVersion, "2025-11-25");
  assertEquals((await init("2025-06-18")).result.protocolVersion, "2025-06-18");
  assertEquals((await init("2024-11-05")).result.protocolVersion, "2024-11-05");
  assertEquals((await pair.request("initialize", {})).error.code, -32602);
  const unknown = await pair.request("no/such/method");
  assertEquals(unknown.error.code, -32601);
  assertStringIncludes(unknown.error.message, "no/such/method");
});

Deno.test("a client that stops reading stops being read; nothing is lost when it reads again", async () => {
  const dec = new TextDecoder();
  let release = Promise.withResolvers<void>();
  let blocked = true;
  let text = "";
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (blocked) await release.promise;
      text += dec.decode(chunk, { stream: true });
    },
  }, { highWaterMark: 1 });
  const MAX_QUEUED = 4096;
  await using pair = await linePair(options(), { output, maxQueuedBytes: MAX_QUEUED });
  const N = 5000;
  let accepted = 0;
  const writing = (async () => {
    for (let i = 0; i < N; i++) {
      await pair.write(ping(i));
      accepted++;
    }
  })();
  // Wait until the transport has stopped reading: the input backs up and stays put.
  let last = -1;
  await waitUntil(
    () => {
      const still = accepted === last;
      last = accepted;
      return still;
    },
    "the transport to stop taking lines",
    { intervalMs: 50 },
  );
  assert(accepted < N, `the transport kept reading (${accepted} of ${N} lines taken)`);
  const answer = '{"jsonrpc":"2.0","id":4999,"result":{}}\n'.length;
  assert(
    pair.transport.queuedBytes <= MAX_QUEUED + 64 * answer,
    `output queue ${pair.transport.queuedBytes} bytes`,
  );
  blocked = false;
  release.resolve();
  release = Promise.withResolvers<void>();
  await writing;
  await waitUntil(() => text.split("\n").length - 1 >= N, `${N} answers`);
  const ids = new Set(text.trim().split("\n").map((l) => JSON.parse(l).id));
  assertEquals(ids.size, N, "every request answered once");
});

Deno.test("the same transport serves a session over a Unix-socket connection", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-sock-" });
  const path = `${dir}/mcp.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  try {
    const accepted = listener.accept();
    const client = await Deno.connect({ transport: "unix", path });
    const conn = await accepted;
    const session = createMcpSession(options());
    const transport = new LineTransport(conn.readable, conn.writable, { gate: session.gate });
    await session.server.connect(transport);
    const w = client.writable.getWriter();
    await w.write(new TextEncoder().encode("not json\n" + ping(1)));
    const r = client.readable.getReader();
    let text = "";
    while (text.split("\n").length < 3) {
      const { value, done } = await r.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const [bad, pong] = text.trim().split("\n").map((l) => JSON.parse(l));
    assertEquals(bad.error.code, -32700);
    assertEquals(pong, { jsonrpc: "2.0", id: 1, result: {} });
    await w.close();
    await transport.ended;
    await session.close();
    await r.cancel();
    for (const c of [client, conn]) {
      try {
        c.close();
      } catch { /* its streams closed it already */ }
    }
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
