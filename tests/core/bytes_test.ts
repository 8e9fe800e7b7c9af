import { assert, assertEquals } from "../assert.ts";
import { concatBytes, joinBytes, readCapped } from "../../lib/core/bytes.ts";

Deno.test("concatBytes joins parts in order into a copy; joinBytes hands a single part back", () => {
  const a = new Uint8Array([1, 2]), b = new Uint8Array([]), c = new Uint8Array([3]);
  assertEquals(concatBytes([a, b, c]), new Uint8Array([1, 2, 3]));
  assertEquals(concatBytes([a, c], 3), new Uint8Array([1, 2, 3]));
  assertEquals(concatBytes([]), new Uint8Array([]));
  const copy = concatBytes([a]);
  assert(copy !== a && copy.buffer !== a.buffer, "concatBytes copies even one part");
  assert(joinBytes([a]) === a, "joinBytes does not copy one part");
  assertEquals(joinBytes([a, c]), new Uint8Array([1, 2, 3]));
});

Deno.test("readCapped() reads a stream to its end within the bound, else null and cancels it", async () => {
  const stream = (parts: number[][]) => {
    let cancelled = false;
    const queue = [...parts];
    const s = new ReadableStream<Uint8Array>({
      pull(c) {
        const p = queue.shift();
        if (p === undefined) c.close();
        else c.enqueue(new Uint8Array(p));
      },
      cancel() {
        cancelled = true;
      },
    });
    return { s, cancelled: () => cancelled };
  };
  const ok = stream([[1, 2], [3]]);
  assertEquals(await readCapped(ok.s, 3), new Uint8Array([1, 2, 3]));
  const big = stream([[1, 2], [3, 4]]);
  assertEquals(await readCapped(big.s, 3), null);
  assert(big.cancelled(), "the rest is not read");
  assertEquals(await readCapped(null, 3), new Uint8Array());
});
