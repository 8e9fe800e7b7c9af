/**
 * The early `initialize` answer (lib/mcp/early_initialize.ts) through our LineTransport reading
 * ahead of a real session, against the same lines sent to a session that was connected from the
 * start (the SDK path): the bytes written are the same, a first plain `initialize` is answered
 * before the session exists, everything else waits for it and is answered by it, in order, and
 * the session learns the client's name.
 */
import { assert, assertEquals } from "../assert.ts";
import type { McpSessionOptions } from "../../lib/mcp/server.ts";
import { createMcpSession, type McpSession } from "../../lib/mcp/session.ts";
import { LineTransport } from "../../lib/mcp/line_transport.ts";
import { RequestGate } from "../../lib/mcp/request_gate.ts";
import { earlyAnswers, type EarlyInitialize } from "../../lib/mcp/early_initialize.ts";
import { classifyLine } from "../../lib/mcp/jsonrpc.ts";
import { linePair } from "./_line_pair.ts";
import { TOOLS } from "../../lib/tools/registry.ts";
import { toolListing } from "../../lib/mcp/server.ts";
import { waitUntil } from "../wait.ts";

// deno-lint-ignore no-explicit-any
let sessionTools: McpSessionOptions<any>["tools"] = [];

function options(): McpSessionOptions<Record<string, never>> {
  return {
    version: "1.2.3",
    title: "Keynobi (test)",
    instructions: 'Test instructions: \u00e9 \u2014 "quoted"\nsecond line',
    tools: sessionTools,
    enabledToolsets: ["core", "ui", "device-admin"],
    hasProject: false,
    makeContext: () => ({}),
    resources: { list: () => Promise.resolve([]), read: () => Promise.reject(new Error("none")) },
    prompts: [],
  };
}

const line = (m: unknown) => JSON.stringify(m) + "\n";
const LAST_ID = "last-ping";
const lastPing = line({ jsonrpc: "2.0", id: LAST_ID, method: "ping" });
const isLast = (l: string) => JSON.parse(l).id === LAST_ID;

/** Lines through a session connected from the start: what the SDK path writes. */
async function sdkPath(input: string[]): Promise<string[]> {
  await using pair = await linePair(options());
  for (const l of input) await pair.write(l);
  await pair.write(lastPing);
  await pair.next((m) => m.id === LAST_ID);
  return [...pair.lines];
}

/** Collects what a transport writes, line by line. */
function sink() {
  const lines: string[] = [];
  const dec = new TextDecoder();
  let buf = "";
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      buf += dec.decode(chunk, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    },
  });
  return { lines, stream };
}

/**
 * Lines through a transport reading ahead with the early answer; the session is made and connected
 * only after every line was read (as when the SDK loads slowly). Returns what was written before
 * the session existed, all that was written, and the session.
 */
async function earlyPath(input: string[], listing: unknown[] | null = null): Promise<{
  before: string[];
  all: string[];
  session: McpSession<Record<string, never>>;
  early: EarlyInitialize | undefined;
}> {
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  const out = sink();
  const gate = new RequestGate();
  const transport = new LineTransport(pipe.readable, out.stream, { gate });
  const seen: { early?: EarlyInitialize } = {};
  const o = options();
  transport.readAhead(earlyAnswers(o, () => listing, (e) => (seen.early = e)));
  const writer = pipe.writable.getWriter();
  const enc = new TextEncoder();
  // Queued, not awaited: reading ahead stops before the end of the input in some cases.
  const writes = input.map((l) => writer.write(enc.encode(l)));
  // Read ahead as far as it goes (every message, or until it paused), every answer written.
  const messages = input.filter((l) => classifyLine(l.trimEnd()).kind !== "invalid").length;
  await waitUntil(() => {
    const ahead = transport.ahead;
    return ahead !== null && (ahead.paused || ahead.read === messages) &&
      transport.queuedBytes === 0;
  }, "reading ahead to stop");
  const before = [...out.lines];
  const session = createMcpSession({ ...o, gate });
  if (seen.early) session.handlers.initialize(seen.early.params);
  await session.server.connect(transport);
  assertEquals(transport.waiting, 0);
  await Promise.all(writes);
  await writer.write(enc.encode(lastPing));
  await waitUntil(() => out.lines.some(isLast), "the last ping's answer");
  await writer.close().catch(() => {});
  await session.close();
  return { before, all: [...out.lines], session, early: seen.early };
}

const init = (id: unknown, params: unknown, extra: Record<string, unknown> = {}) =>
  line({ jsonrpc: "2.0", id, method: "initialize", params, ...extra });
const initialized = line({ jsonrpc: "2.0", method: "notifications/initialized" });
const list = (id: unknown, params?: unknown) =>
  line({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) });

Deno.test("a plain initialize is answered before the session exists, with the SDK path's bytes", async () => {
  const cases = [
    init(1, {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "a", version: "1" },
    }),
    init("s-1", { protocolVersion: "2025-06-18", capabilities: { roots: {} } }),
    init(0, { protocolVersion: "2024-11-05", clientInfo: { name: "x".repeat(300), version: "1" } }),
    init(7, { protocolVersion: "2025-03-26", capabilities: {} }), // not offered: the latest
    init(8, { protocolVersion: "1999-01-01", other: [1, 2] }),
    init(-9007199254740991, { protocolVersion: "2025-11-25" }),
    // Ids JSON.parse cannot hold exactly: carried as exact tokens, written back as sent.
    '{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n',
    '{"jsonrpc":"2.0","id":1.50,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n',
  ];
  for (const c of cases) {
    const sdk = await sdkPath([c]);
    const early = await earlyPath([c]);
    assertEquals(early.before.length, 1, c);
    assertEquals(early.before[0], sdk[0], c);
    assertEquals(early.all, sdk, c);
  }
});

Deno.test("anything but a plain first initialize waits for the session and gets its answer", async () => {
  const cases: string[][] = [
    [init(1, { protocolVersion: "2025-11-25", _meta: { progressToken: 5 } })],
    [init(1, { protocolVersion: "2025-11-25", task: { ttl: 1000 } })],
    [init(1, { protocolVersion: "2025-11-25" }, { extra: true })],
    [init(1, { capabilities: {} })],
    [init(1, { protocolVersion: 20251125 })],
    [line({ jsonrpc: "2.0", id: 1, method: "initialize" })],
    [line({ jsonrpc: "2.0", method: "initialize", params: { protocolVersion: "2025-11-25" } })],
    [line({ jsonrpc: "2.0", id: 1, method: "ping" }), init(2, { protocolVersion: "2025-11-25" })],
  ];
  for (const c of cases) {
    const sdk = await sdkPath(c);
    const early = await earlyPath(c);
    assertEquals(early.before, [], c.join(""));
    assertEquals(early.early, undefined, c.join(""));
    assertEquals(early.all, sdk, c.join(""));
  }
});

Deno.test("what is read after the early answer is handed over in order, and the session knows the client", async () => {
  const input = [
    init(1, { protocolVersion: "2025-11-25", clientInfo: { name: "early-client", version: "2" } }),
    line({ jsonrpc: "2.0", method: "notifications/initialized" }),
    line({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    init(3, { protocolVersion: "2025-06-18", clientInfo: { name: "second", version: "2" } }),
    line({ jsonrpc: "2.0", id: 4, method: "ping" }),
    "not json\n",
    line({ jsonrpc: "2.0", id: 5, method: "no/such/method" }),
  ];
  const sdk = await sdkPath(input);
  const early = await earlyPath(input);
  assertEquals(early.before.length, 1); // the answer; the rest is read once the session is there
  assertEquals(JSON.parse(early.before[0]).id, 1);
  // The same answers.
  const byId = (ls: string[]) => ls.map((l) => JSON.parse(l)).map((m) => JSON.stringify(m.id));
  assertEquals(early.all.slice().sort(), sdk.slice().sort());
  assertEquals(
    byId(early.all.filter((l) => !l.includes("-32700"))),
    byId(sdk.filter((l) => !l.includes("-32700"))),
  );
  // The second initialize went through the session, which now knows that client.
  assertEquals(early.session.handlers.clientName, "second");
});

Deno.test("the early answer's client name reaches the session", async () => {
  const early = await earlyPath([
    init(1, { protocolVersion: "2025-11-25", clientInfo: { name: "early-client", version: "2" } }),
  ]);
  assertEquals(early.before.length, 1);
  assertEquals(early.session.handlers.clientName, "early-client");
});

Deno.test("reading ahead stops after the first message, and goes on once connected", async () => {
  const lines = [
    "not json\n", // answered while reading ahead: not a message
    line({ jsonrpc: "2.0", method: "notifications/first" }),
    line({ jsonrpc: "2.0", id: 1, method: "ping" }),
    "also not json\n",
    lastPing,
  ];
  let pulled = 0;
  const enc = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled < lines.length) c.enqueue(enc.encode(lines[pulled++]));
    },
  }, { highWaterMark: 0 });
  const out = sink();
  const gate = new RequestGate();
  const transport = new LineTransport(input, out.stream, { gate });
  transport.readAhead(() => ({ answer: null, more: false }));
  await waitUntil(() => transport.waiting === 1, "the first message");
  // Give the read loop many turns: it must not read on.
  for (let i = 0; i < 100; i++) await new Promise((r) => setTimeout(r, 0));
  assert(pulled <= 3, `read ${pulled} lines ahead`);
  assertEquals(transport.waiting, 1);
  assertEquals(out.lines.map((l) => JSON.parse(l).error?.code), [-32700]);
  assertEquals(gate.size, 0);
  const notified: string[] = [];
  const session = createMcpSession({ ...options(), gate });
  session.server.fallbackNotificationHandler = (n: { method: string }) => {
    notified.push(n.method);
    return Promise.resolve();
  };
  await session.server.connect(transport);
  await waitUntil(() => out.lines.some(isLast), "the last ping's answer");
  assertEquals(notified, ["notifications/first"]);
  // The ping's answer comes from the session; the refused lines' from the transport, on reading.
  const answered = out.lines.map((l) => JSON.parse(l)).map((m) => m.id ?? m.error?.code);
  assertEquals(answered.slice(1).sort(), [-32700, 1, LAST_ID].sort());
  assertEquals(answered[0], -32700);
  await session.close();
});

Deno.test("from a listing, initialized and a plain tools/list are taken too, with the session's bytes", async () => {
  sessionTools = TOOLS.slice(0, 4);
  try {
    const listing = sessionTools.map(toolListing);
    const cases: [string[], number][] = [
      // [lines, how many answers are written before the session exists]
      [[init(1, { protocolVersion: "2025-11-25" }), initialized, list(2)], 2],
      [[init(1, { protocolVersion: "2025-11-25" }), list("l", {})], 2],
      [[init(1, { protocolVersion: "2025-11-25" }), initialized, initialized, list(2)], 2],
      [[init(1, { protocolVersion: "2025-11-25" }), initialized, list(2, { cursor: "x" })], 1],
      [[init(1, { protocolVersion: "2025-11-25" }), initialized, list(2, { _meta: {} })], 1],
      [[
        init(1, { protocolVersion: "2025-11-25" }),
        line({ jsonrpc: "2.0", id: 3, method: "ping" }),
        list(2),
      ], 1],
      [[list(2), init(1, { protocolVersion: "2025-11-25" })], 0],
    ];
    for (const [c, early] of cases) {
      const sdk = await sdkPath(c);
      const got = await earlyPath(c, listing);
      assertEquals(got.before.length, early, c.join(""));
      assertEquals(got.all.slice().sort(), sdk.slice().sort(), c.join(""));
      for (const l of got.before) assert(sdk.includes(l), l);
    }
    // Without a listing (from source) tools/list waits for the session.
    const c = [init(1, { protocolVersion: "2025-11-25" }), initialized, list(2)];
    assertEquals((await earlyPath(c, null)).before.length, 1);
  } finally {
    sessionTools = [];
  }
});
