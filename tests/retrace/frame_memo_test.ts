import { assert, assertEquals } from "../assert.ts";
import { frameCost, FrameMemo, type RememberedFrame } from "../../lib/retrace/frame_memo.ts";

function frame(text: string): RememberedFrame {
  return { text, lineCount: 1, ambiguous: false, omitted: 0 };
}

/** Deterministic pseudo-random numbers (xorshift32). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

Deno.test("FrameMemo keeps the newest frames within its count and bytes, as a Map in order would", () => {
  for (const [max, budget] of [[50, 1e9], [5_000, 1e9], [100_000, 40_000], [7, 1e9]]) {
    const memo = new FrameMemo(max, budget);
    // The reference: a Map in insertion order, the oldest dropped first.
    const ref = new Map<string, { f: RememberedFrame; cost: number }>();
    let refCost = 0;
    const r = rng(max);
    for (let k = 0; k < 20_000; k++) {
      // Lines repeat, so lookups hit, miss, and a kept line is never kept twice.
      const line = `\tat o.${Math.floor(r() * 3_000).toString(36)}.a(SourceFile:${k % 7})`;
      const got = memo.get(line);
      assertEquals(got, ref.get(line)?.f, `lookup ${k} of ${line}`);
      if (got) continue;
      const f = frame(`at com.example.C${k}.m(C.kt:${k})`);
      memo.set(line, f);
      const cost = frameCost(line, f);
      while (ref.size > 0 && (ref.size >= max || refCost + cost > budget)) {
        const [oldest, v] = ref.entries().next().value!;
        ref.delete(oldest);
        refCost -= v.cost;
      }
      ref.set(line, { f, cost });
      refCost += cost;
      assertEquals(memo.size, ref.size);
      assertEquals(memo.costBytes, refCost);
    }
    assert(memo.size <= max && memo.costBytes <= budget);
    // Every line kept is found, every line forgotten is not.
    for (const [line, v] of ref) assertEquals(memo.get(line), v.f);
    assertEquals(memo.get("\tat never.seen(SourceFile:1)"), undefined);
  }
});

Deno.test("FrameMemo does not keep a frame costing more than its whole budget", () => {
  const memo = new FrameMemo(10, 200);
  memo.set("a", frame("x".repeat(500)));
  assertEquals(memo.size, 0);
  assertEquals(memo.get("a"), undefined);
  memo.set("b", frame("y"));
  assertEquals(memo.get("b")?.text, "y");
});
