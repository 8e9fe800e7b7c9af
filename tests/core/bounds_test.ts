import { assertEquals } from "../assert.ts";
import { boundedInt } from "../../lib/core/bounds.ts";

Deno.test("boundedInt() floors into its range, and takes the default for what is not a finite number", () => {
  assertEquals(boundedInt(7.9, 5, 1, 10), 7);
  assertEquals(boundedInt(0, 5, 1, 10), 1);
  assertEquals(boundedInt(-3, 5, 0, 10), 0);
  assertEquals(boundedInt(1e12, 5, 1, 10), 10);
  for (const v of [undefined, null, "7", Number.NaN, Infinity, -Infinity, {}]) {
    assertEquals(boundedInt(v, 5, 1, 10), 5, String(v));
  }
});
