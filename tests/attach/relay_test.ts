/**
 * The relay over a real unix socket, with a scripted app on the other end: what it remembers of
 * the requests it forwarded, and what it answers for them when the app goes.
 */
import { assert, assertEquals } from "../assert.ts";
import { classifyLine } from "../../lib/mcp/jsonrpc.ts";
import {
  answeredIdOf,
  MAX_RELAY_OPEN_REQUESTS,
  RELAY_PARSE_MAX_CHARS,
  runRelay,
  withNewline,
} from "../../lib/attach/relay.ts";

Deno.test("runRelay() remembers at most MAX_RELAY_OPEN_REQUESTS open requests, the newest, and none cancelled", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-relay-" });
  const path = `${dir}/app.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  try {
    const total = MAX_RELAY_OPEN_REQUESTS + 44;
    const cancelled = new Set([total - 1, total - 2]);
    // The app reads every line and answers none, then goes away.
    const appSide = (async () => {
      const conn = await listener.accept();
      const reader = conn.readable.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      const wanted = total + cancelled.size;
      while (text.split("\n").length - 1 < wanted) {
        const r = await reader.read();
        if (r.done) break;
        text += r.value;
      }
      reader.releaseLock();
      conn.close();
    })();
    const conn = await Deno.connect({ transport: "unix", path });
    const lines: string[] = [];
    for (let id = 0; id < total; id++) {
      lines.push(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
    }
    for (const id of cancelled) {
      lines.push(JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id },
      }));
    }
    const stdinText = lines.map((l) => l + "\n").join("");
    const stdin = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(stdinText));
        // stdin stays open: the client is still there when the app goes.
      },
    });
    const out: string[] = [];
    const stdout = new WritableStream<Uint8Array>({
      write(chunk) {
        out.push(...new TextDecoder().decode(chunk).split("\n").filter((l) => l !== ""));
      },
    });
    let gone = -1;
    const code = await runRelay({
      stdin,
      stdout,
      conn,
      socketReader: conn.readable.getReader(),
      rest: new Uint8Array(),
      fallback: null,
      onAppGone: (open) => (gone = open),
    });
    await appSide;
    assertEquals(code, 1, "--attach-only: the relay exits when the app goes");
    const answered = out.map((l) => JSON.parse(l).id as number);
    // The newest MAX_RELAY_OPEN_REQUESTS were remembered; the two cancelled among them forgotten.
    const expected = Array.from(
      { length: MAX_RELAY_OPEN_REQUESTS },
      (_, i) => total - MAX_RELAY_OPEN_REQUESTS + i,
    ).filter((id) => !cancelled.has(id));
    assertEquals(gone, expected.length);
    assert(answered.every((id) => !cancelled.has(id)), "no answer for a cancelled request");
    assertEquals(answered.sort((a, b) => a - b), expected, "the oldest were forgotten");
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runRelay() tells large answers by their ends, forwards them whole, and still answers what the app left open", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-relay-" });
  const path = `${dir}/app.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const big = "iVBORw0KGgo".repeat(RELAY_PARSE_MAX_CHARS / 4);
  const content = { content: [{ type: "image", data: big, mimeType: "image/png" }] };
  // What the app writes, in this order; then it goes away.
  const appLines = [
    // The SDK's order (id last), read at the ends: 1, 2 and "s-1" are answered.
    JSON.stringify({ result: content, jsonrpc: "2.0", id: 1 }),
    JSON.stringify({ error: { code: -32603, message: big }, jsonrpc: "2.0", id: 2 }),
    JSON.stringify({ result: content, jsonrpc: "2.0", id: "s-1" }),
    // Another order, parsed: 3 is answered.
    JSON.stringify({ jsonrpc: "2.0", id: 3, result: content }),
    // A large request of the app's own with id 4 is no answer for the client's 4
    // (in the SDK's order too, id last); an answer whose text names id 5 answers 6 only.
    JSON.stringify({ method: "sampling/createMessage", params: { big }, jsonrpc: "2.0", id: 4 }),
    JSON.stringify({ result: { text: `${big},"jsonrpc":"2.0","id":5}` }, jsonrpc: "2.0", id: 6 }),
  ];
  try {
    const appSide = (async () => {
      const conn = await listener.accept();
      const reader = conn.readable.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (text.split("\n").length - 1 < 7) {
        const r = await reader.read();
        if (r.done) break;
        text += r.value;
      }
      reader.releaseLock();
      const w = conn.writable.getWriter();
      await w.write(new TextEncoder().encode(appLines.map((l) => l + "\n").join("")));
      // Nothing more: the client's requests 4, 5 and 7 stay open when the app goes.
      await new Promise((r) => setTimeout(r, 100));
      conn.close();
    })();
    const conn = await Deno.connect({ transport: "unix", path });
    const ids = [1, 2, "s-1", 3, 4, 5, 6, 7];
    const stdinText = ids.slice(0, 7).map((id) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } }) + "\n"
    ).join("");
    let extra: ReadableStreamDefaultController<Uint8Array>;
    const stdin = new ReadableStream<Uint8Array>({
      start(c) {
        extra = c;
        c.enqueue(new TextEncoder().encode(stdinText));
      },
    });
    let chunks = "";
    const stdout = new WritableStream<Uint8Array>({
      write(chunk) {
        chunks += new TextDecoder().decode(chunk);
      },
    });
    setTimeout(() => {
      extra.enqueue(new TextEncoder().encode(
        JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }) + "\n",
      ));
    }, 10);
    const code = await runRelay({
      stdin,
      stdout,
      conn,
      socketReader: conn.readable.getReader(),
      rest: new Uint8Array(),
      fallback: null,
    });
    await appSide;
    assertEquals(code, 1);
    const out = chunks.split("\n").filter((l) => l !== "");
    assertEquals(out.slice(0, appLines.length), appLines, "every line of the app's, whole");
    const leftOpen = out.slice(appLines.length).map((l) => JSON.parse(l).id);
    assertEquals(leftOpen, [4, 5, 7]);
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("answeredIdOf() tells the id a line answers as parsing the whole line would, reading only a long one's ends", () => {
  const big = "iVBORw0KGgo".repeat(RELAY_PARSE_MAX_CHARS / 4);
  const wide = "é€𝄞".repeat(RELAY_PARSE_MAX_CHARS / 8);
  const cases: [string, unknown][] = [
    ['{"result":{},"jsonrpc":"2.0","id":1}', 1],
    ['{"jsonrpc":"2.0","id":"a","result":{}}', "a"],
    ['{"jsonrpc":"2.0","id":2,"method":"ping"}', null],
    ['{"jsonrpc":"2.0","method":"notifications/progress"}', null],
    ["not json", null],
    [JSON.stringify({ result: { big }, jsonrpc: "2.0", id: 3 }), 3],
    [JSON.stringify({ result: { wide }, jsonrpc: "2.0", id: "s-é" }), "s-é"],
    [JSON.stringify({ error: { code: 1, message: wide }, jsonrpc: "2.0", id: 4 }), 4],
    [JSON.stringify({ jsonrpc: "2.0", id: 5, result: { big } }), 5],
    [JSON.stringify({ method: "x", params: { big }, jsonrpc: "2.0", id: 6 }), null],
    [`{"result":{"t":"${big}"},"jsonrpc":"2.0","id":7`, null],
  ];
  const enc = new TextEncoder();
  for (const [line, id] of cases) {
    assertEquals(answeredIdOf(enc.encode(line)), id, line.slice(0, 80));
  }
  // An id JSON numbers cannot hold exactly: the digits the client wrote, as classifyLine keeps them.
  const exact = `{"result":{"t":"${big}"},"jsonrpc":"2.0","id":18446744073709551616}`;
  const parsed = classifyLine(exact);
  assert(parsed.kind === "response");
  assertEquals(answeredIdOf(enc.encode(exact)), (parsed.message as { id: unknown }).id);
  assertEquals(answeredIdOf(new Uint8Array([0x7b, 0xff, 0x7d])), null);
});

Deno.test("withNewline() writes a line and its LF as one array, the line's own when its LF follows it", () => {
  const enc = new TextEncoder();
  const chunk = enc.encode('{"id":1}\n{"id":2}\r\n{"id":3}');
  const first = chunk.subarray(0, 8);
  const one = withNewline(first);
  assert(one.buffer === chunk.buffer, "the chunk's own bytes, no copy");
  assertEquals(new TextDecoder().decode(one), '{"id":1}\n');
  // Its `\r` dropped, or at the chunk's end: a copy with a LF.
  for (const line of [chunk.subarray(9, 17), chunk.subarray(19)]) {
    const out = withNewline(line);
    assert(out.buffer !== chunk.buffer);
    assertEquals(new TextDecoder().decode(out), new TextDecoder().decode(line) + "\n");
  }
  assertEquals(chunk[17], 13, "the chunk is unchanged");
  assertEquals(withNewline(new Uint8Array()), new Uint8Array([10]));
});
