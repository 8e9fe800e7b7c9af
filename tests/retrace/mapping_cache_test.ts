/**
 * The one memory budget of all cached mappings, at scaled-down bounds (the bench measures the
 * real ones at the 512 MB limit): evict before loading, refuse with the reason what cannot fit.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { estimateMappingCost, MappingCache } from "../../lib/retrace/mapping_cache.ts";

const MB = 1024 * 1024;

function mapping(bytes: number, tag: string): Uint8Array {
  const lines: string[] = [];
  let n = 0;
  for (let k = 0; n < bytes; k++) {
    const l = `com.${tag}.C${k} -> ${tag}${k}:\n    1:9:void run(int):10:18 -> a`;
    lines.push(l);
    n += l.length + 1;
  }
  return new TextEncoder().encode(lines.join("\n") + "\n");
}

Deno.test("MappingCache evicts the least recently used before it reads a mapping that would not fit", async () => {
  const a = mapping(3 * MB, "a");
  const b = mapping(3 * MB, "b");
  const budget = Math.ceil(estimateMappingCost(a.length) * 1.5);
  const cache = new MappingCache({ budgetBytes: budget, maxMappings: 3 });
  const reads: string[] = [];
  const read = (name: string, data: Uint8Array) => () => {
    // When a read starts, the room was already made.
    reads.push(`${name}:${cache.stats().mappings.map((m) => m.key).join(",")}`);
    return Promise.resolve(data);
  };
  await cache.load("a", a.length, read("a", a), "mapping a");
  assertEquals((await cache.load("a", a.length, read("a", a), "mapping a")).classCount > 0, true);
  await cache.load("b", b.length, read("b", b), "mapping b");
  assertEquals(reads, ["a:", "b:"], "a read once, and evicted before b was read");
  assertEquals(cache.stats().mappings.map((m) => m.key), ["b"]);
  assert(cache.usedBytes <= budget);
});

Deno.test("MappingCache keeps at most maxMappings, and several loads at once run one by one", async () => {
  const small = mapping(200 * 1024, "s");
  const cache = new MappingCache({ budgetBytes: 64 * MB, maxMappings: 2 });
  let reading = 0;
  let most = 0;
  const read = async () => {
    most = Math.max(most, ++reading);
    await new Promise((r) => setTimeout(r, 5));
    reading--;
    return small;
  };
  await Promise.all(["x", "y", "z"].map((k) => cache.load(k, small.length, read, k)));
  assertEquals(most, 1, "one load at a time");
  assertEquals(cache.stats().mappings.map((m) => m.key), ["y", "z"]);
});

Deno.test("MappingCache refuses, with the reason and without reading, a mapping that cannot fit alone", async () => {
  const cache = new MappingCache({ budgetBytes: 8 * MB });
  await cache.load("kept", 1024, () => Promise.resolve(mapping(1024, "k")), "small");
  let read = false;
  const e = await assertRejects(
    () =>
      cache.load("big", 20 * MB, () => {
        read = true;
        return Promise.resolve(new Uint8Array(0));
      }, "the mapping big.txt"),
    ToolError,
  );
  assertEquals(e.code, "invalid_request");
  assertStringIncludes(e.message, "the mapping big.txt");
  assertStringIncludes(e.message, "retrace memory budget of 8.0 MB");
  assertEquals(read, false);
  assertEquals(cache.stats().mappings.map((m) => m.key), ["kept"], "nothing evicted for it");
  const over = await assertRejects(
    () => cache.load("huge", 600 * MB, () => Promise.resolve(new Uint8Array(0)), "huge"),
    ToolError,
  );
  assertStringIncludes(over.message, "more than the 536870912 (512 MB) keynobi reads");
});

Deno.test("MappingCache refuses a budget or count out of its bounds", () => {
  for (
    const bad of [{ budgetBytes: 1 }, { budgetBytes: 1.5 * MB }, { maxMappings: 0 }, {
      maxMappings: 99,
    }]
  ) {
    let threw = false;
    try {
      new MappingCache(bad);
    } catch (e) {
      threw = e instanceof RangeError;
    }
    assert(threw, JSON.stringify(bad));
  }
});
