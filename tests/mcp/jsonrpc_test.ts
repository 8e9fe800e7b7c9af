import { assertEquals } from "../assert.ts";
import {
  byteLinesOf,
  classifyLine,
  encodeMessage,
  type LineEvent,
  readLines,
  RpcCode,
} from "../../lib/mcp/jsonrpc.ts";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return ReadableStream.from(chunks.map((c) => typeof c === "string" ? enc.encode(c) : c));
}

Deno.test("classifyLine() sorts requests, notifications, responses and garbage", () => {
  assertEquals(classifyLine('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind, "request");
  assertEquals(
    classifyLine('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind,
    "notification",
  );
  assertEquals(classifyLine('{"jsonrpc":"2.0","id":"a","result":{}}').kind, "response");
  const parse = classifyLine("{nope");
  assertEquals(parse.kind === "invalid" && parse.error.code, RpcCode.parseError);
  const batch = classifyLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  assertEquals(batch.kind === "invalid" && batch.error.code, RpcCode.invalidRequest);
  assertEquals(batch.kind === "invalid" && batch.error.message.includes("batches"), true);
  const noVersion = classifyLine('{"id":3,"method":"ping"}');
  assertEquals(noVersion.kind === "invalid" && noVersion.id, 3);
  const badParams = classifyLine('{"jsonrpc":"2.0","id":4,"method":"x","params":[1]}');
  assertEquals(badParams.kind === "invalid" && badParams.error.code, RpcCode.invalidRequest);
  const badId = classifyLine('{"jsonrpc":"2.0","id":{},"method":"x"}');
  assertEquals(badId.kind === "invalid" && badId.id, null);
});

Deno.test("ids JSON numbers cannot hold exactly come back as the client wrote them", () => {
  for (const raw of ["9007199254740993", "-9007199254740993", "12345678901234567890123", "1.5"]) {
    const c = classifyLine(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
    assertEquals(c.kind, "request", raw);
    if (c.kind !== "request") continue;
    // Two ids that JSON.parse would merge stay apart.
    assertEquals(typeof c.message.id, "string");
    const out = encodeMessage({ jsonrpc: "2.0", id: c.message.id, result: {} });
    assertEquals(out, `{"jsonrpc":"2.0","id":${raw},"result":{}}`);
  }
  const a = classifyLine('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
  const b = classifyLine('{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}');
  assertEquals(a.kind === "request" && b.kind === "request" && a.message.id !== b.message.id, true);
  // A cancellation and a progress token in the same form match the request's id.
  const cancel = classifyLine(
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}',
  );
  assertEquals(
    cancel.kind === "notification" && a.kind === "request" &&
      cancel.message.params?.requestId === a.message.id,
    true,
  );
  const progress = classifyLine(
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",' +
      '"arguments":{"id":9007199254740993},"_meta":{"progressToken":18446744073709551616}}}',
  );
  if (progress.kind !== "request") throw new Error("not a request");
  // Tool arguments are the tool's: untouched.
  assertEquals((progress.message.params?.arguments as { id: unknown }).id, 9007199254740992);
  const token = (progress.message.params?._meta as { progressToken: unknown }).progressToken;
  assertEquals(
    encodeMessage({ method: "notifications/progress", params: { progressToken: token } }),
    '{"method":"notifications/progress","params":{"progressToken":18446744073709551616}}',
  );
  // Safe integers stay numbers; a client string with our internal prefix is refused.
  const safe = classifyLine('{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}');
  assertEquals(safe.kind === "request" && safe.message.id, 9007199254740991);
  const forged = classifyLine(
    `{"jsonrpc":"2.0","id":"\\uffffkeynobi-exact-number:5","method":"ping"}`,
  );
  assertEquals(forged.kind, "invalid");
});

Deno.test("readLines() joins split chunks, drops CR and blank lines", async () => {
  const lines = await Array.fromAsync(
    readLines(streamOf(['{"a":', '1}\r\n\n{"b"', ":2}\n", '{"c":3}'])),
  );
  assertEquals(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
});

Deno.test("readLines() reports an overlong line once and recovers at the next newline", async () => {
  const big = "x".repeat(50);
  const lines = await Array.fromAsync(readLines(streamOf([big, big, "\nok\n"]), 64));
  assertEquals(lines, [{ dropped: "too_long" }, "ok"] as LineEvent[]);
});

Deno.test("readLines() keeps multi-byte characters split across chunks", async () => {
  const bytes = new TextEncoder().encode('"é€"\n');
  const lines = await Array.fromAsync(readLines(streamOf([bytes.slice(0, 2), bytes.slice(2)])));
  assertEquals(lines, ['"é€"']);
});

Deno.test("readLines() reports a line that is not UTF-8 instead of guessing", async () => {
  const bad = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]);
  const lines = await Array.fromAsync(readLines(streamOf([bad, "{}\n"])));
  assertEquals(lines, [{ dropped: "invalid_utf8" }, "{}"] as LineEvent[]);
});

Deno.test("byteLinesOf() splits bytes as readLines() does, without reading them", async () => {
  const dec = new TextDecoder();
  const lines = async (chunks: (string | Uint8Array)[], max?: number) => {
    const reader = streamOf(chunks).getReader();
    const out = await Array.fromAsync(byteLinesOf(reader, max));
    return out.map((l) => l instanceof Uint8Array ? dec.decode(l) : l);
  };
  assertEquals(await lines(['{"a":', '1}\r\n\n{"b"', ":2}\n", '{"c":3}']), [
    '{"a":1}',
    '{"b":2}',
    '{"c":3}',
  ]);
  const big = "x".repeat(50);
  assertEquals(await lines([big, big, "\nok\n"], 64), [{ dropped: "too_long" }, "ok"]);
  // Bytes that are not UTF-8 pass as they came (the relay passes the app's lines on).
  const reader = streamOf([new Uint8Array([0x7b, 0xff, 0x7d, 0x0a])]).getReader();
  assertEquals(await Array.fromAsync(byteLinesOf(reader)), [new Uint8Array([0x7b, 0xff, 0x7d])]);
});
