/**
 * The text-query prefilter never changes an answer: querySlots with a text equals a plain scan of
 * every stored message, on the real captures and crafted lines, before and after the ring wraps,
 * after a clear and a resize; and a text found nowhere skips almost every block.
 */
import { assert, assertEquals } from "../assert.ts";
import { DevicePipeline } from "../../lib/logcat/pipeline.ts";
import { MAX_TEXT_SCAN_ENTRIES } from "../../lib/logcat/entry_query.ts";
import { TEXT_BLOCK_ENTRIES, TextIndex, textPairs } from "../../lib/logcat/text_index.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

function corpus(): string[] {
  const lines: string[] = [];
  if (HAVE_REAL) {
    for (const f of Deno.readDirSync(REAL_LOGCAT)) {
      if (f.isFile && f.name.endsWith(".txt")) {
        lines.push(...Deno.readTextFileSync(new URL(f.name, REAL_LOGCAT)).split("\n"));
      }
    }
  }
  const words = ["Alpha", "beta", "GAMMA", "délta", "Ωmega", "x", "Zz", "socket", "Timeout"];
  for (let i = 0; i < 3000; i++) {
    const msg = [words[i % 9], words[(i * 7) % 9], String(i), words[(i * 5) % 9]].join(" ");
    lines.push(
      `04-04 10:53:33.${String(i % 1000).padStart(3, "0")}  542  ${1500 + (i % 7)} I Tag${
        i % 13
      }: ${msg}`,
    );
  }
  return lines;
}

const NEEDLES = [
  "no-such-text-anywhere",
  "alpha beta",
  "ALPHA",
  "zz gamma",
  "socketTIMEOUT",
  "délta",
  "Ωmega",
  "x",
  "12",
  "Exception",
  "at com.",
  "Caused by",
  ": ",
  "qq",
];

function expected(p: DevicePipeline, text: string, count: number): number[] {
  const s = p.store;
  const re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
  const out: number[] = [];
  for (let i = s.size - 1; i >= 0 && out.length < count; i--) {
    if (re.test(s.messageOf(s.slot(i)))) out.push(s.slot(i));
  }
  return out;
}

function checkAll(p: DevicePipeline, what: string) {
  for (const text of NEEDLES) {
    for (const count of [1, 50, 100_000]) {
      assertEquals(p.querySlots({ count, text }), expected(p, text, count), `${what}: ${text}`);
    }
  }
}

Deno.test("text queries answer exactly what a plain scan finds, through wraps, clear, resize", () => {
  const lines = corpus();
  const p = new DevicePipeline("t", { capacity: 5_000 });
  p.ingestText(lines.slice(0, 1000).join("\n") + "\n");
  checkAll(p, "partly filled");
  for (let k = 0; k < 5; k++) p.ingestText(lines.join("\n") + "\n");
  assert(p.store.evicted > 0);
  checkAll(p, "wrapped");
  // Writes after the index was built mark their blocks stale.
  p.ingestText("04-04 10:53:34.000  542  1500 I Late: no-such-text-anywhere after all\n");
  assertEquals(p.querySlots({ count: 5, text: "no-such-TEXT-anywhere" }).length, 1);
  checkAll(p, "written after a build");
  p.store.resize(1_000);
  checkAll(p, "resized");
  p.clear();
  assertEquals(p.querySlots({ count: 5, text: "alpha" }), []);
  p.ingestText(lines.slice(0, 2000).join("\n") + "\n");
  checkAll(p, "after clear");
});

Deno.test("a text found nowhere skips almost every block without scanning its messages", () => {
  const p = new DevicePipeline("t", { capacity: 10_000 });
  p.ingestText(corpus().join("\n") + "\n");
  const s = p.store;
  const pairs = textPairs("no-such-text-anywhere")!;
  let passed = 0;
  for (let b = 0; b < s.textIndex.blocks; b++) {
    if (s.textIndex.mayContain(b, pairs, s)) passed++;
  }
  // A block may hold every pair of the text by chance (or by hash collision), but few do.
  assert(passed * 10 <= s.textIndex.blocks, `${passed} of ${s.textIndex.blocks} blocks passed`);
  assertEquals(s.textIndex.dirtyCount(), 0);
  assertEquals(TextIndex.blockOf(TEXT_BLOCK_ENTRIES * 3 + 5), 3);
  // Texts the prefilter cannot decide are scanned.
  assertEquals(textPairs("x"), null);
  assertEquals(textPairs("Ωmega"), null);
});

Deno.test("buildDirty builds stale blocks in rounds and leaves the one being written", () => {
  const p = new DevicePipeline("t", { capacity: 2_000 });
  p.ingestText(corpus().slice(0, 1500).join("\n") + "\n");
  const idx = p.store.textIndex;
  const blocks = idx.blocks;
  assertEquals(idx.dirtyCount(), blocks);
  const writing = TextIndex.blockOf(p.store.newestSlot());
  assertEquals(idx.buildDirty(p.store, 3, writing), blocks - 3 - 1);
  assertEquals(idx.buildDirty(p.store, 1_000, writing), 0);
  assertEquals(idx.dirtyCount(), 1);
});

Deno.test("right after a burst a text query stops at its scan bound, says where, and continues exactly", () => {
  const total = MAX_TEXT_SCAN_ENTRIES * 2 + 5_000;
  const p = new DevicePipeline("emu", { capacity: total });
  const rare = new Set([10, 20, MAX_TEXT_SCAN_ENTRIES + 3, total - 7]);
  const chunk: string[] = [];
  for (let i = 0; i < total; i++) {
    chunk.push(
      `04-04 10:53:33.${String(i % 1000).padStart(3, "0")}  542  1500 I Tag: ${
        rare.has(i) ? `needle Found ${i}` : `plain line ${i}`
      }`,
    );
    if (chunk.length === 4096 || i === total - 1) {
      p.ingestText(chunk.join("\n") + "\n");
      chunk.length = 0;
    }
  }
  const want = expected(p, "needle found", 10);
  assertEquals(want.length, rare.size);
  // Nothing is indexed yet: the first query tests at most the bound, then stops and says where.
  const first = p.queryScan({ count: 10, text: "needle found" });
  assert(first.stoppedAt !== null, "the first query after the burst is cut");
  assertEquals(first.slots, want.filter((s) => p.store.seq[s] >= first.stoppedAt!));
  // Continuing from the cursor until complete gives exactly the plain scan's answer.
  const got = [...first.slots];
  let cursor: number | null = first.stoppedAt;
  let pages = 1;
  while (cursor !== null) {
    const next = p.queryScan({ count: 10 - got.length, text: "needle found", beforeSeq: cursor });
    for (const s of next.slots) assert(p.store.seq[s] < cursor, "a page holds only older entries");
    got.push(...next.slots);
    cursor = next.stoppedAt;
    assert(++pages < 20, "the pages end");
  }
  assertEquals(got, want);
  // Once indexed, the same query is whole in one answer.
  p.store.textIndex.buildDirty(p.store, p.store.textIndex.blocks);
  const indexed = p.queryScan({ count: 10, text: "needle found" });
  assertEquals(indexed.stoppedAt, null);
  assertEquals(indexed.slots, want);
  // A query without text is never cut; before_seq alone pages by seq.
  const older = p.queryScan({ count: 3, beforeSeq: p.store.seq[want[1]] });
  assertEquals(older.stoppedAt, null);
  assertEquals(
    older.slots.map((s) => p.store.seq[s]),
    [1, 2, 3].map((k) => p.store.seq[want[1]] - k),
  );
});
