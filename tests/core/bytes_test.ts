import { assert, assertEquals } from "../assert.ts";
import { concatBytes, joinBytes } from "../../lib/core/bytes.ts";

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
