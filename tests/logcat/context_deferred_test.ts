/**
 * A crash's context before it is read when it is first asked for, or before the ring evicts an
 * entry its scan may read (MAX_PENDING_CONTEXT in lib/logcat/crash_context.ts); a crash dropped
 * before then is never read. That must never change an answer: the same lines go through two
 * pipelines, one asking every new crash for its context at once (context_scan_test.ts checks
 * those answers against a plain scan of the rule), the other asking only now and then; every
 * crash the second keeps must hold the first's context, through small rings that wrap faster
 * than the scan's reach, a clear and resizes.
 */
import { assert, assertEquals } from "../assert.ts";
import { DevicePipeline } from "../../lib/logcat/pipeline.ts";
import { CRASH_CONTEXT_SCAN_LINES } from "../../lib/logcat/crash_context.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

function realText(): string {
  if (!HAVE_REAL) return "";
  const files = [...Deno.readDirSync(REAL_LOGCAT)].map((e) => e.name).filter((f) =>
    f.endsWith(".txt")
  ).sort();
  return files.map((f) => Deno.readTextFileSync(new URL(f, REAL_LOGCAT))).join("\n");
}

function compare(capacity: number, moves: boolean): number {
  const text = realText();
  const lines = text.split("\n");
  const eager = new DevicePipeline("emu", { capacity });
  const lazy = new DevicePipeline("emu", { capacity });
  const eagerBefore = new Map<number, string[]>();
  let seen = 0;
  let compared = 0;
  const total = 60_000;
  let chunk: string[] = [];
  for (let k = 0; k < total; k++) {
    const l = lines[k % lines.length].replace(/\r+$/, "");
    eager.ingestLine(l);
    for (const r of eager.crashes) {
      if (r.id > seen) {
        seen = r.id;
        eagerBefore.set(r.id, r.contextBefore);
      }
    }
    chunk.push(l);
    if (chunk.length === 701 || k === total - 1) {
      // The lazy side reads chunks and asks for one crash's context now and then.
      lazy.ingestText(chunk.join("\n") + "\n");
      chunk = [];
      const some = lazy.crashes[(k / 701) % Math.max(1, lazy.crashes.length) | 0];
      if (some && (k / 701 | 0) % 3 === 0) {
        assertEquals(some.contextBefore, eagerBefore.get(some.id), `crash ${some.id}`);
      }
    }
    if (moves && chunk.length === 0) {
      // (between the lazy side's chunks)
      if (k === 701 * 29 - 1) {
        eager.store.resize(capacity / 8);
        lazy.store.resize(capacity / 8);
      }
      if (k === 701 * 50 - 1) {
        eager.store.resize(capacity);
        lazy.store.resize(capacity);
      }
      if (k === 701 * 64 - 1) {
        eager.clear();
        lazy.clear();
      }
    }
  }
  assertEquals(lazy.crashes.map((r) => r.id), eager.crashes.map((r) => r.id));
  for (const r of lazy.crashes) {
    assertEquals(r.contextBefore, eagerBefore.get(r.id), `crash ${r.id}`);
    if (r.contextBefore.length > 0) compared++;
  }
  return compared;
}

Deno.test("a crash's context read late equals the one read at once, in rings smaller than the scan", () => {
  if (!HAVE_REAL) return;
  assert(1_000 < CRASH_CONTEXT_SCAN_LINES);
  assert(compare(1_000, false) > 20, "kept crashes with context were compared");
  assert(compare(3_000, true) > 20, "kept crashes with context were compared");
});

Deno.test("a crash's context read late equals the one read at once, through a clear, in a big ring", () => {
  if (!HAVE_REAL) return;
  assert(compare(40_000, true) > 20, "kept crashes with context were compared");
});
