import { assertEquals } from "../assert.ts";
import { classifyLine, LineWriter, readLines, RpcCode } from "../../lib/mcp/jsonrpc.ts";

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
  const batch = classifyLine("[]");
  assertEquals(batch.kind === "invalid" && batch.error.code, RpcCode.invalidRequest);
  const noVersion = classifyLine('{"id":3,"method":"ping"}');
  assertEquals(noVersion.kind === "invalid" && noVersion.id, 3);
  const badParams = classifyLine('{"jsonrpc":"2.0","id":4,"method":"x","params":[1]}');
  assertEquals(badParams.kind === "invalid" && badParams.error.code, RpcCode.invalidRequest);
  const badId = classifyLine('{"jsonrpc":"2.0","id":{},"method":"x"}');
  assertEquals(badId.kind === "invalid" && badId.id, null);
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
  assertEquals(lines, [null, "ok"]);
});

Deno.test("readLines() keeps multi-byte characters split across chunks", async () => {
  const bytes = new TextEncoder().encode('"é€"\n');
  const lines = await Array.fromAsync(readLines(streamOf([bytes.slice(0, 2), bytes.slice(2)])));
  assertEquals(lines, ['"é€"']);
});

Deno.test("LineWriter.send() writes one JSON message per line, in order", async () => {
  const chunks: string[] = [];
  const dec = new TextDecoder();
  const w = new LineWriter(new WritableStream({ write: (c) => void chunks.push(dec.decode(c)) }));
  await Promise.all([1, 2, 3].map((id) => w.send({ jsonrpc: "2.0", id, result: { s: "a\nb" } })));
  await w.close();
  assertEquals(chunks.map((c) => JSON.parse(c).id), [1, 2, 3]);
  assertEquals(chunks.every((c) => c.endsWith("\n") && c.indexOf("\n") === c.length - 1), true);
});
