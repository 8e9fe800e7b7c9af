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

/** Entry `e`'s value in `memo`. */
function read(memo: FrameMemo, e: number): Value {
  return {
    bytes: memo.valueBytes(e).slice(memo.valueStart(e), memo.valueEnd(e)),
    lines: memo.lineCount(e),
    ambiguous: memo.ambiguous(e),
    omitted: memo.omitted(e),
  };
}

/** Whether entry `e` of `memo` holds `v` (a loop: most checks pass; assertEquals tells a diff). */
function holds(memo: FrameMemo, e: number, v: Value): boolean {
  const bytes = memo.valueBytes(e);
  const from = memo.valueStart(e);
  if (memo.valueEnd(e) - from !== v.bytes.length) return false;
  for (let i = 0; i < v.bytes.length; i++) if (bytes[from + i] !== v.bytes[i]) return false;
  return memo.lineCount(e) === v.lines && memo.ambiguous(e) === v.ambiguous &&
    memo.omitted(e) === v.omitted;
}

/** A growable output, as retrace_text.ts's ByteOut: its array is replaced when it grows. */
class Out {
  bytes = new Uint8Array(16);
  length = 0;
  write(b: Uint8Array): void {
    if (this.length + b.length > this.bytes.length) {
      const next = new Uint8Array(Math.max(2 * this.bytes.length, this.length + b.length));
      next.set(this.bytes.subarray(0, this.length));
      this.bytes = next;
    }
    this.bytes.set(b, this.length);
    this.length += b.length;
  }
}

/** An entry of the model: its key's id, value, cost and round. */
interface Kept {
  id: number;
  value: Value;
  round: number;
}

/**
 * The model the memo should agree with, in plain arrays: entries oldest first; a full count
 * forgets the oldest sealed entry when a frame is added; a round's frames adjacent in both
 * arrays (at most 2 bytes apart) make one run, and sealing counts what its runs span and then
 * forgets the oldest until the budget holds; a round is let go with its last entry.
 */
class Model {
  /** Entries oldest first, from `head` on (those before it forgotten). */
  all: Kept[] = [];
  head = 0;
  byId = new Map<number, Kept>();
  /** Each kept round's span in bytes, and its entries still kept, by round. */
  spans = new Map<number, number>();
  kept = new Map<number, number>();
  round = 0;
  /** The open round's entries, and its runs: [keyFrom, keyTo, valueFrom, valueTo] each. */
  open = 0;
  runs: number[][] = [];
  constructor(readonly max: number, readonly budget: number) {}

  /** What the round's runs span with [kFrom, kTo) and [vFrom, vTo) added, and the runs. */
  withFrame(kFrom: number, kTo: number, vFrom: number, vTo: number): [number, number[][]] {
    const runs = this.runs.map((r) => [...r]);
    const last = runs.at(-1);
    if (last && kFrom - last[1] <= 2 && vFrom - last[3] <= 2) [last[1], last[3]] = [kTo, vTo];
    else runs.push([kFrom, kTo, vFrom, vTo]);
    return [runs.reduce((n, r) => n + r[1] - r[0] + r[3] - r[2], 0), runs];
  }

  get size(): number {
    return this.all.length - this.head;
  }

  get cost(): number {
    let c = 0;
    for (const s of this.spans.values()) c += s;
    return c + 32 * (this.size - this.open);
  }

  find(id: number): Kept | undefined {
    return this.byId.get(id);
  }

  add(id: number, value: Value, kFrom: number, kTo: number, vFrom: number, vTo: number): void {
    const [bytes, runs] = this.withFrame(kFrom, kTo, vFrom, vTo);
    if (bytes + 32 * (this.open + 1) > this.budget) return;
    if (this.size >= this.max) {
      if (this.size === this.open) return;
      this.forgetOldest();
    }
    const e = { id, value, round: this.round };
    this.all.push(e);
    this.byId.set(id, e);
    this.kept.set(this.round, (this.kept.get(this.round) ?? 0) + 1);
    this.open++;
    this.runs = runs;
  }

  seal(): void {
    const spanned = this.runs.reduce((n, r) => n + r[1] - r[0] + r[3] - r[2], 0);
    if (this.open > 0) this.spans.set(this.round, spanned);
    this.open = 0;
    this.runs = [];
    this.round++;
    while (this.cost > this.budget && this.size > 0) this.forgetOldest();
  }

  forgetOldest(): void {
    const e = this.all[this.head++];
    this.byId.delete(e.id);
    const left = this.kept.get(e.round)! - 1;
    this.kept.set(e.round, left);
    if (left === 0) this.spans.delete(e.round);
  }
}

/** The keys the model test draws from (they repeat, so lookups hit and miss). */
const KEYS = Array.from({ length: 3_000 }, (_, id) => keyOf(id));

/**
 * Runs rounds of 1–60 lines (a lookup each, and an add on each miss) on a memo of `max` and
 * `budget` against the model, ~12,000 lines in all.
 */
function checkAgainstModel(max: number, budget: number, seed: number): void {
  const memo = new FrameMemo(max, budget);
  const model = new Model(max, budget);
  const r = rng(seed);
  let lines = 0;
  while (lines < 12_000) {
    // A round's "trace": its lines one after another, a few bytes apart, in one array.
    const n = 1 + Math.floor(r() * 60);
    const ids = Array.from({ length: n }, () => Math.floor(r() * KEYS.length));
    const at: number[] = [];
    let size = 0;
    for (const id of ids) {
      size += Math.floor(r() * 4);
      at.push(size);
      size += KEYS[id].length;
    }
    const keys = new Uint8Array(size);
    ids.forEach((id, k) => keys.set(KEYS[id], at[k]));
    const out = new Out();
    memo.begin(keys, out);
    for (const [k, id] of ids.entries()) {
      lines++;
      const from = at[k];
      const to = from + KEYS[id].length;
      const h = keyHash(keys, from, to);
      const e = memo.find(keys, from, to, h);
      const want = model.find(id);
      assertEquals(e >= 0, want !== undefined, `line ${lines}: key ${id} (${max}, ${budget})`);
      if (want) {
        if (!holds(memo, e, want.value)) assertEquals(read(memo, e), want.value, `key ${id}`);
        continue;
      }
      // A value of 0–300 bytes (0 now and then), a few bytes after the last.
      out.write(new Uint8Array(Math.floor(r() * 3)));
      const len = r() < 0.05 ? 0 : 1 + Math.floor(r() * 300);
      const bytes = new Uint8Array(len).map(() => Math.floor(r() * 256));
      const vFrom = out.length;
      out.write(bytes);
      const value = {
        bytes,
        lines: len === 0 ? 0 : 1 + Math.floor(r() * 5),
        ambiguous: r() < 0.3,
        omitted: r() < 0.2 ? Math.floor(r() * 1_000) : 0,
      };
      memo.add(from, to, h, vFrom, out.length, value.lines, value.ambiguous, value.omitted);
      model.add(id, value, from, to, vFrom, out.length);
      assertEquals(memo.size, model.size, `size after line ${lines}`);
    }
    memo.seal();
    model.seal();
    assertEquals(memo.size, model.size, `size after round ${model.round}`);
    assertEquals(memo.costBytes, model.cost, `cost after round ${model.round}`);
    assert(memo.costBytes <= budget && memo.size <= max);
    assert(memo.tableBytes <= memoTableBytes(max) + budget, `${memo.tableBytes} bytes`);
    if (model.round % 97 === 0) checkAll(memo, model);
  }
  checkAll(memo, model);
}

/** Every key of KEYS is found exactly when the model keeps it, with its value. */
function checkAll(memo: FrameMemo, model: Model): void {
  const scratch = new Uint8Array(400);
  for (let id = 0; id < KEYS.length; id++) {
    scratch.set(KEYS[id], 5);
    const to = 5 + KEYS[id].length;
    const e = memo.find(scratch, 5, to, keyHash(scratch, 5, to));
    const want = model.find(id);
    assertEquals(e >= 0, want !== undefined, `lookup of key ${id}`);
    if (want && !holds(memo, e, want.value)) assertEquals(read(memo, e), want.value, `key ${id}`);
  }
}

Deno.test("FrameMemo keeps the newest frames within its count and bytes, as its model does", () => {
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
    [200, 1e9],
    [1_500, 80_000],
  ];
  for (const [i, [max, budget]] of pairs.entries()) checkAgainstModel(max, budget, i + 1);
});

Deno.test("FrameMemo finds a frame of the open round in the round's own arrays", () => {
  const memo = new FrameMemo(100, 1e6);
  const keys = utf8.encode("\tat a.b(SourceFile:1)\n\tat a.c(SourceFile:2)");
  const out = new Out();
  memo.begin(keys, out);
  const h = keyHash(keys, 0, 21);
  out.write(utf8.encode("    at com.example.A.run(A.kt:3)"));
  memo.add(0, 21, h, 0, out.length, 1, false, 0);
  // The output grows into a new array: the round's values are read where they are now.
  out.write(new Uint8Array(100));
  const e = memo.find(utf8.encode("\tat a.b(SourceFile:1)"), 0, 21, h);
  assert(e >= 0);
  assert(memo.valueBytes(e) === out.bytes);
  assertEquals(read(memo, e).bytes, utf8.encode("    at com.example.A.run(A.kt:3)"));
  assertEquals(memo.costBytes, 0);
  memo.seal();
  // Sealed, it is its own copy: the round's arrays may be written over.
  keys.fill(0);
  out.bytes.fill(0);
  const s = memo.find(utf8.encode("\tat a.b(SourceFile:1)"), 0, 21, h);
  assertEquals(new TextDecoder().decode(read(memo, s).bytes), "    at com.example.A.run(A.kt:3)");
  assertEquals(memo.costBytes, 21 + 32 + frameCost(0, 0));
  assertEquals(memo.find(keys, 22, keys.length, keyHash(keys, 22, keys.length)), -1);
});

Deno.test("FrameMemo declines a round's frames past its budget, and frames with no round", () => {
  const memo = new FrameMemo(10, 200);
  const a = utf8.encode("a".repeat(150));
  memo.add(0, 1, keyHash(a, 0, 1), 0, 1, 1, false, 0);
  assertEquals(memo.size, 0);
  const out = new Out();
  out.write(new Uint8Array(100));
  memo.begin(a, out);
  // 1 + 100 + 32 > 200 - … : the first fits exactly (its span and its cost are the budget).
  memo.add(0, 68, keyHash(a, 0, 68), 0, 100, 1, false, 0);
  assertEquals(memo.size, 1);
  memo.add(70, 71, keyHash(a, 70, 71), 0, 100, 1, false, 0);
  assertEquals(memo.size, 1);
  memo.seal();
  assertEquals(memo.costBytes, 200);
  // A new round making room: the old round goes when the new one is sealed past the budget.
  memo.begin(a, out);
  memo.add(0, 10, keyHash(a, 0, 10), 0, 10, 1, true, 3);
  assertEquals(memo.size, 2);
  memo.seal();
  assertEquals([memo.size, memo.costBytes], [1, 52]);
  const e = memo.find(a, 0, 10, keyHash(a, 0, 10));
  assertEquals([memo.lineCount(e), memo.ambiguous(e), memo.omitted(e)], [1, true, 3]);
});

Deno.test("FrameMemo keeps zero-length values, and an empty key", () => {
  const memo = new FrameMemo(1_000, 8_000);
  const lines = Array.from({ length: 500 }, (_, i) => `\tat z.${i}(SourceFile)`);
  const keys = utf8.encode(lines.join("\n"));
  const out = new Out();
  memo.begin(keys, out);
  let at = 0;
  const starts = lines.map((line) => (at += line.length + 1) - line.length - 1);
  for (const [i, line] of lines.entries()) {
    const from = starts[i];
    memo.add(from, from + line.length, keyHash(keys, from, from + line.length), 0, 0, 0, false, 0);
  }
  // The round spans more than the budget: its later lines were declined.
  const round = memo.size;
  assert(round > 0 && round < 500, `${round} kept`);
  memo.seal();
  const empty = new Uint8Array(0);
  memo.begin(empty, out);
  memo.add(0, 0, keyHash(empty, 0, 0), 0, 0, 0, true, 1);
  memo.seal();
  assert(memo.costBytes <= 8_000);
  const e = memo.find(empty, 0, 0, keyHash(empty, 0, 0));
  assert(e >= 0, "the newest, the empty key, is kept");
  assertEquals([memo.valueEnd(e) - memo.valueStart(e), memo.ambiguous(e), memo.omitted(e)], [
    0,
    true,
    1,
  ]);
  let kept = 0;
  for (const [i, line] of lines.entries()) {
    const from = starts[i];
    const f = memo.find(keys, from, from + line.length, keyHash(keys, from, from + line.length));
    if (f < 0) continue;
    kept++;
    assertEquals([memo.valueEnd(f) - memo.valueStart(f), memo.lineCount(f)], [0, 0]);
  }
  assertEquals(kept + 1, memo.size);
});

Deno.test("FrameMemo tells keys of one hash apart by their bytes", () => {
  const memo = new FrameMemo(64, 1e6);
  const key = (i: number) => utf8.encode(`k${String(i).padStart(3, "0")}`);
  // Every key given hash 5: one probe run, compared byte for byte, forgotten by backward shift.
  for (let i = 0; i < 200; i++) {
    const k = key(i);
    const out = new Out();
    out.write(utf8.encode(`v${i}`));
    memo.begin(k, out);
    memo.add(0, 4, 5, 0, out.length, 1, false, i);
    memo.seal();
    for (let j = Math.max(0, i - 70); j <= i; j++) {
      const e = memo.find(key(j), 0, 4, 5);
      assertEquals(e >= 0 ? memo.omitted(e) : -1, j > i - 64 ? j : -1, `key ${j} after ${i}`);
    }
  }
  assertEquals(memo.size, 64);
});

Deno.test("memoTableBytes bounds tableBytes less the segments as the ring grows", () => {
  for (const max of [1, 7, 1_000, 1_025, 5_000]) {
    const memo = new FrameMemo(max, 1e9);
    const k = new Uint8Array(4 * (max + 10));
    const view = new DataView(k.buffer);
    const out = new Out();
    memo.begin(k, out);
    for (let i = 0; i < max + 10; i++) {
      view.setUint32(4 * i, i);
      memo.add(4 * i, 4 * i + 4, keyHash(k, 4 * i, 4 * i + 4), 0, 0, 0, false, 0);
      if (i % 100 === 99) {
        memo.seal();
        memo.begin(k, out);
      }
      const segments = memo.tableBytes - (memoTableBytes(max) + 4 * (max + 10));
      assert(segments <= 0, `${max}: ${i}`);
    }
    memo.seal();
    assertEquals(memo.size, max);
  }
});

Deno.test("hashBytes, the key hash, is FNV-1a of the bytes in its range", () => {
  const b = utf8.encode("xfoobary");
  assertEquals(keyHash(b, 0, 0), 0x811c9dc5);
  assertEquals(keyHash(utf8.encode("a"), 0, 1), 0xe40c292c);
  assertEquals(keyHash(b, 1, 7), 0xbf9cf968);
  assertEquals(keyHash(b, 1, 7), keyHash(utf8.encode("foobar"), 0, 6));
});
