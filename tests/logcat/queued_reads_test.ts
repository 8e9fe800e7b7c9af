/**
 * The logcat pump reads a chunk together with the chunks already queued behind it (a burst
 * becomes few large texts), up to INGEST_JOIN_BYTES, and never waits for one that is not there.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { INGEST_JOIN_BYTES, QueuedReads } from "../../lib/logcat/queued_reads.ts";

function controlled(): {
  stream: ReadableStream<Uint8Array>;
  c: ReadableStreamDefaultController<Uint8Array>;
} {
  let c!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (ctl) => void (c = ctl) });
  return { stream, c };
}

const chunk = (n: number, v: number) => new Uint8Array(n).fill(v);

Deno.test("queued chunks are joined in order, up to INGEST_JOIN_BYTES per read", async () => {
  const { stream, c } = controlled();
  const size = INGEST_JOIN_BYTES / 4 + 1;
  for (let v = 0; v < 9; v++) c.enqueue(chunk(size, v));
  c.close();
  const reads = new QueuedReads(stream.getReader());
  const got: Uint8Array[] = [];
  for (let r = await reads.read(); r !== null; r = await reads.read()) got.push(r);
  // Four chunks pass the bound: each read holds four, the last one what is left.
  assertEquals(got.map((g) => g.length), [4 * size, 4 * size, size]);
  const all = got.flatMap((g) => [...g.filter((_, i) => i % size === 0)]);
  assertEquals(all, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
});

Deno.test("a read does not wait for a chunk that is not queued yet", async () => {
  const { stream, c } = controlled();
  const reads = new QueuedReads(stream.getReader());
  c.enqueue(chunk(3, 1));
  assertEquals((await reads.read())!.length, 3);
  // Nothing queued: the read waits for the next chunk, then returns it with what came with it.
  const pending = reads.read();
  c.enqueue(chunk(5, 2));
  c.enqueue(chunk(7, 3));
  const r = await pending;
  assert(r !== null);
  assertEquals([...r].filter((_, i) => i === 0 || i === 5), [2, 3]);
  assertEquals(r.length, 12);
  c.close();
  assertEquals(await reads.read(), null);
});

Deno.test("chunks queued before a stream error are read, then the error is thrown", async () => {
  const { stream, c } = controlled();
  const reads = new QueuedReads(stream.getReader());
  c.enqueue(chunk(4, 9));
  const first = reads.read();
  await null;
  c.error(new Error("socket reset"));
  assertEquals((await first)!.length, 4);
  await assertRejects(() => reads.read(), /socket reset/);
});
