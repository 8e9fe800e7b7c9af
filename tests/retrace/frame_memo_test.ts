import { assert, assertEquals } from "../assert.ts";
import { frameCost, FrameMemo, memoTableBytes } from "../../lib/retrace/frame_memo.ts";
import { hashBytes as keyHash } from "../../lib/retrace/member_lines.ts";

/** Deterministic pseudo-random numbers (xorshift32). */
function rng(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

const utf8 = new TextEncoder();

/** Key `id`'s bytes: 1–300 of them, the same for the same id. */
function keyOf(id: number): Uint8Array {
  const r = rng(id * 7919 + 13);
  const key = new Uint8Array(1 + Math.floor(r() * 300));
  for (let i = 0; i < key.length; i++) key[i] = Math.floor(r() * 256);
  return key;
}

/** A remembered value: its bytes and fields. */
interface Value {
  bytes: Uint8Array;
  lines: number;
  ambiguous: boolean;
  omitted: number;
}

/** What the reference keeps: a value, its key's id and its cost. */
interface Want {
  id: number;
  cost: number;
  value: Value;
}

/** Entry `e`'s value in `memo`. */
function read(memo: FrameMemo, e: number): Value {
  return {
    bytes: memo.arena.slice(memo.valueStart(e), memo.valueEnd(e)),
    lines: memo.lineCount(e),
    ambiguous: memo.ambiguous(e),
    omitted: memo.omitted(e),
  };
}

/** Whether entry `e` of `memo` holds `v`. */
function holds(memo: FrameMemo, e: number, v: Value): boolean {
  const from = memo.valueStart(e);
  if (memo.valueEnd(e) - from !== v.bytes.length) return false;
  for (let i = 0; i < v.bytes.length; i++) if (memo.arena[from + i] !== v.bytes[i]) return false;
  return memo.lineCount(e) === v.lines && memo.ambiguous(e) === v.ambiguous &&
    memo.omitted(e) === v.omitted;
}

/** A key's bytes as a string, for the reference Map. */
function keyName(key: Uint8Array): string {
  return key.join(",");
}

/** Looks `key` up in `memo` from inside a larger array (at `at`): the entry, or -1. */
function findIn(memo: FrameMemo, scratch: Uint8Array, key: Uint8Array, at: number): number {
  scratch.set(key, at);
  const to = at + key.length;
  return memo.find(scratch, at, to, keyHash(scratch, at, to));
}

/** The arena's bound the module comment gives: budget + the widest entry kept. */
function arenaBound(budget: number, widest: number): number {
  return Math.ceil(budget + widest);
}

/** The reference: a Map in insertion order, the oldest dropped first, as the memo should. */
class RefMemo {
  readonly map = new Map<string, Want>();
  cost = 0;
  constructor(readonly max: number, readonly budget: number) {}

  set(key: string, want: Want): void {
    if (want.cost > this.budget || this.map.has(key)) return;
    for (const [oldest, v] of this.map) {
      if (this.map.size < this.max && this.cost + want.cost <= this.budget) break;
      this.map.delete(oldest);
      this.cost -= v.cost;
    }
    this.map.set(key, want);
    this.cost += want.cost;
  }
}

/** The keys the Map test draws from (they repeat, so lookups hit and miss), and their names. */
const KEYS = Array.from({ length: 3_000 }, (_, id) => keyOf(id));
const NAMES = KEYS.map(keyName);

/** Runs 20,000 lookups (and a set on each miss) on a memo of `max` and `budget` against a Map. */
function checkAgainstMap(max: number, budget: number, seed: number): void {
  const memo = new FrameMemo(max, budget);
  const ref = new RefMemo(max, budget);
  const keys = KEYS;
  const names = NAMES;
  const scratch = new Uint8Array(2_048);
  const r = rng(seed);
  let widest = 0;
  let setBytes = 0;
  for (let k = 0; k < 20_000; k++) {
    const id = Math.floor(r() * keys.length);
    const key = keys[id];
    const at = Math.floor(r() * 400);
    const e = findIn(memo, scratch, key, at);
    const want = ref.map.get(names[id]);
    assertEquals(e >= 0, want !== undefined, `lookup ${k} of key ${id} (${max}, ${budget})`);
    if (want) {
      if (!holds(memo, e, want.value)) assertEquals(read(memo, e), want.value, `key ${id}`);
      continue;
    }
    // A value of 0–300 bytes (0 now and then), in the same array as the key or another.
    const len = r() < 0.05 ? 0 : 1 + Math.floor(r() * 300);
    const inScratch = r() < 0.5;
    const value = inScratch ? scratch : new Uint8Array(len + 10);
    const vFrom = inScratch ? 1_000 + Math.floor(r() * 500) : Math.floor(r() * 10);
    for (let i = 0; i < len; i++) value[vFrom + i] = Math.floor(r() * 256);
    const lines = len === 0 ? 0 : 1 + Math.floor(r() * 5);
    const ambiguous = r() < 0.3;
    const omitted = r() < 0.2 ? Math.floor(r() * 1_000) : 0;
    const h = keyHash(scratch, at, at + key.length);
    memo.set(scratch, at, at + key.length, h, value, vFrom, vFrom + len, lines, ambiguous, omitted);
    const cost = frameCost(key.length, len);
    const bytes = value.slice(vFrom, vFrom + len);
    ref.set(names[id], { id, cost, value: { bytes, lines, ambiguous, omitted } });
    if (cost <= budget) {
      widest = Math.max(widest, key.length + len);
      setBytes += key.length + len;
    }
    assertEquals(memo.size, ref.map.size, `size after set ${k}`);
    assertEquals(memo.costBytes, ref.cost, `cost after set ${k}`);
    assert(memo.arena.length <= arenaBound(budget, widest), `arena ${memo.arena.length}`);
    assert(memo.tableBytes <= memoTableBytes(max) + arenaBound(budget, widest));
    // A few entries kept: all of them checked after each set (a wrap or growth may move them).
    if (ref.map.size <= 16 || k % 1_009 === 0) checkAll(memo, ref, keys, scratch, false);
  }
  assert(memo.size <= max && memo.costBytes <= budget);
  // A small budget makes the arena wrap: far more bytes went in than it holds.
  if (budget < 1e6) assert(setBytes > 4 * memo.arena.length, `${setBytes} bytes set`);
  checkAll(memo, ref, keys, scratch, true);
  assertEquals(findIn(memo, scratch, utf8.encode("\tat never.seen(SourceFile:1)"), 0), -1);
}

/**
 * Every key the reference keeps is found with its value (the sizes being equal, no other key
 * is); with `misses`, every key of `keys` it does not keep is not found either.
 */
function checkAll(
  memo: FrameMemo,
  ref: RefMemo,
  keys: Uint8Array[],
  scratch: Uint8Array,
  misses: boolean,
): void {
  assertEquals(memo.size, ref.map.size);
  for (const want of ref.map.values()) {
    const e = findIn(memo, scratch, keys[want.id], 7);
    assert(e >= 0, `key ${want.id} kept`);
    // A loop first (this runs after most sets), the full comparison when it differs.
    if (!holds(memo, e, want.value)) assertEquals(read(memo, e), want.value);
  }
  if (!misses) return;
  for (let id = 0; id < keys.length; id++) {
    const found = findIn(memo, scratch, keys[id], 3) >= 0;
    assertEquals(found, ref.map.has(keyName(keys[id])), `lookup of key ${id}`);
  }
}

Deno.test("FrameMemo keeps the newest frames within its count and bytes, as a Map in order would", () => {
  const pairs = [
    [50, 1e9],
    [5_000, 1e9],
    [100_000, 40_000],
    [7, 1e9],
    [1, 1e9],
    [1_000, 2_000],
    [3, 700],
    [100_000, 650],
    [100_000, 5_000],
    [100_000, 300_000],
    [2_000, 1_000_000],
    // Evicting by count (or a budget just past the first arena) while the arena is still small:
    // it wraps, then has to grow while wrapped.
    [200, 1e9],
    [230, 1e9],
    [100_000, 70_000],
  ];
  for (const [i, [max, budget]] of pairs.entries()) checkAgainstMap(max, budget, i + 1);
});

Deno.test("FrameMemo moves a wrapped log's entries in order when its arena grows", () => {
  // Three entries at most, 16,000 bytes each: the fifth wraps to 0 in the first 64 KiB arena,
  // and the sixth (40,000 bytes) fits neither after it nor in 64 KiB, so the arena grows.
  const memo = new FrameMemo(3, 1e6);
  const sizes = [16_000, 16_000, 16_000, 16_000, 16_000, 40_000];
  const key = (i: number) => utf8.encode(`\tat w.${i}(SourceFile)`);
  const value = (i: number, len: number) => new Uint8Array(len).map((_, j) => (i * 31 + j) % 251);
  const find = (i: number) =>
    memo.find(key(i), 0, key(i).length, keyHash(key(i), 0, key(i).length));
  const starts: number[] = [];
  for (const [i, len] of sizes.entries()) {
    const k = key(i);
    const v = value(i, len - k.length);
    memo.set(k, 0, k.length, keyHash(k, 0, k.length), v, 0, v.length, i, i % 2 === 0, i * 3);
    starts.push(memo.valueStart(find(i)) - k.length);
  }
  assertEquals(starts.slice(0, 5), [0, 16_000, 32_000, 48_000, 0]);
  assert(memo.arena.length > 64 * 1024, `arena ${memo.arena.length}`);
  for (let i = 0; i < sizes.length; i++) {
    const e = find(i);
    assertEquals(e >= 0, i >= 3, `entry ${i}`);
    if (e < 0) continue;
    const v = memo.arena.slice(memo.valueStart(e), memo.valueEnd(e));
    assertEquals(v, value(i, sizes[i] - key(i).length));
    assertEquals([memo.lineCount(e), memo.ambiguous(e), memo.omitted(e)], [i, i % 2 === 0, i * 3]);
  }
  // The older part (entry 3) first, then entry 4, then the new one.
  const at = (i: number) => memo.valueStart(find(i));
  assert(at(3) < at(4) && at(4) < at(5), `${at(3)} ${at(4)} ${at(5)}`);
});

Deno.test("hashBytes, the key hash, is FNV-1a of the bytes in its range", () => {
  const b = utf8.encode("xfoobary");
  assertEquals(keyHash(b, 0, 0), 0x811c9dc5);
  assertEquals(keyHash(utf8.encode("a"), 0, 1), 0xe40c292c);
  assertEquals(keyHash(b, 1, 7), 0xbf9cf968);
  assertEquals(keyHash(b, 1, 7), keyHash(utf8.encode("foobar"), 0, 6));
});

Deno.test("FrameMemo does not keep a frame costing more than its whole budget", () => {
  const memo = new FrameMemo(10, 200);
  const big = new Uint8Array(500).fill(120);
  const a = utf8.encode("a");
  memo.set(a, 0, 1, keyHash(a, 0, 1), big, 0, 500, 1, false, 0);
  assertEquals(memo.size, 0);
  assertEquals(memo.costBytes, 0);
  assertEquals(memo.find(a, 0, 1, keyHash(a, 0, 1)), -1);
  // One exactly at the budget is kept.
  const b = utf8.encode("b");
  memo.set(b, 0, 1, keyHash(b, 0, 1), big, 0, 200 - 32 - 1, 1, true, 3);
  const e = memo.find(b, 0, 1, keyHash(b, 0, 1));
  assert(e >= 0);
  assertEquals(memo.valueEnd(e) - memo.valueStart(e), 167);
  assertEquals(memo.costBytes, 200);
  assert(memo.tableBytes <= memoTableBytes(10) + arenaBound(200, 168));
});

Deno.test("FrameMemo keeps a key set twice once, with its first value", () => {
  const memo = new FrameMemo(10, 10_000);
  const line = utf8.encode("\tat o.a(SourceFile:1)|at com.example.A.b(A.kt:3)|at c.D.e(D.kt:9)");
  const k = line.indexOf(124);
  const h = keyHash(line, 0, k);
  memo.set(line, 0, k, h, line, k + 1, line.length, 2, false, 0);
  memo.set(line, 0, k, h, line, k + 1, k + 5, 1, true, 4);
  assertEquals(memo.size, 1);
  assertEquals(memo.costBytes, frameCost(k, line.length - k - 1));
  const e = memo.find(line, 0, k, h);
  const value = new TextDecoder().decode(memo.arena.subarray(memo.valueStart(e), memo.valueEnd(e)));
  assertEquals(value, "at com.example.A.b(A.kt:3)|at c.D.e(D.kt:9)");
  assertEquals([memo.lineCount(e), memo.ambiguous(e), memo.omitted(e)], [2, false, 0]);
});

Deno.test("FrameMemo keeps zero-length values, and an empty key", () => {
  const memo = new FrameMemo(1_000, 8_000);
  const empty = new Uint8Array(0);
  const keys = Array.from({ length: 500 }, (_, i) => utf8.encode(`\tat z.${i}(SourceFile)`));
  for (const key of keys) {
    memo.set(key, 0, key.length, keyHash(key, 0, key.length), empty, 0, 0, 0, false, 0);
  }
  memo.set(empty, 0, 0, keyHash(empty, 0, 0), empty, 0, 0, 0, true, 1);
  let kept = 0;
  let cost = 0;
  for (const key of keys) {
    const e = memo.find(key, 0, key.length, keyHash(key, 0, key.length));
    if (e < 0) continue;
    kept++;
    cost += frameCost(key.length, 0);
    assertEquals(memo.valueStart(e), memo.valueEnd(e));
    assertEquals([memo.lineCount(e), memo.ambiguous(e), memo.omitted(e)], [0, false, 0]);
  }
  const e = memo.find(empty, 0, 0, keyHash(empty, 0, 0));
  assert(e >= 0);
  assertEquals([memo.valueEnd(e) - memo.valueStart(e), memo.ambiguous(e), memo.omitted(e)], [
    0,
    true,
    1,
  ]);
  assertEquals(memo.size, kept + 1);
  assertEquals(memo.costBytes, cost + frameCost(0, 0));
  assert(memo.costBytes <= 8_000 && kept < keys.length);
});

Deno.test("FrameMemo tells keys of one hash apart by their bytes", () => {
  const memo = new FrameMemo(64, 1e6);
  const key = (i: number) => utf8.encode(`k${String(i).padStart(3, "0")}`);
  // Every key given hash 5: one probe run, compared byte for byte, forgotten by backward shift.
  for (let i = 0; i < 200; i++) {
    const k = key(i);
    const v = utf8.encode(`v${i}`);
    memo.set(k, 0, k.length, 5, v, 0, v.length, 1, false, i);
    for (let j = Math.max(0, i - 70); j <= i; j++) {
      const e = memo.find(key(j), 0, 4, 5);
      assertEquals(e >= 0 ? memo.omitted(e) : -1, j > i - 64 ? j : -1, `key ${j} after ${i}`);
    }
  }
  assertEquals(memo.size, 64);
});

Deno.test("memoTableBytes bounds tableBytes less the arena as the ring grows", () => {
  for (const max of [1, 7, 1_000, 1_025, 5_000]) {
    const memo = new FrameMemo(max, 1e9);
    const k = new Uint8Array(4);
    const view = new DataView(k.buffer);
    for (let i = 0; i < max + 10; i++) {
      view.setUint32(0, i);
      memo.set(k, 0, 4, keyHash(k, 0, 4), k, 0, 0, 0, false, 0);
      assert(memo.tableBytes - memo.arena.byteLength <= memoTableBytes(max), `${max}: ${i}`);
    }
    assertEquals(memo.size, max);
  }
});
