/**
 * The queries over a device's stored entries: the newest matching ones (level, tag, text,
 * package, crash lines), with the text index ruling blocks out, and the tags most stored.
 */
import type { ProcessTable } from "./enrich.ts";
import { EntryFlag, type RingStore } from "./ring_store.ts";
import { QUERY_BUILD_BLOCKS, TEXT_BLOCK_ENTRIES, TextIndex, textPairs } from "./text_index.ts";

export interface EntryQuery {
  count: number;
  minLevel?: number;
  tag?: string;
  /** Case-insensitive substring of the message. */
  text?: string;
  package?: string;
  onlyCrashes?: boolean;
  /** Only entries older than this seq (the cursor of a partial answer). */
  beforeSeq?: number;
}

/**
 * Messages one query tests against its text without the index's help (stale blocks, right after
 * a burst, before idle time has built them): a few ms of a plain scan in the worker (the first
 * query after a 1M-line burst measured 8–12 ms with its block builds; 65,536 gave 17–18 ms, too
 * close to the 20 ms budget). Beyond, the answer is partial and says where to continue.
 */
export const MAX_TEXT_SCAN_ENTRIES = 32_768;

/** The slots a query found and, when it stopped at MAX_TEXT_SCAN_ENTRIES, where it stopped. */
export interface SlotScan {
  /** Newest first. */
  slots: number[];
  /** The seq of the oldest entry examined when the scan was cut; null when it was complete. */
  stoppedAt: number | null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Index of the newest entry older than `seq` (-1: none). */
function newestBefore(s: RingStore, seq: number): number {
  let lo = 0, hi = s.size - 1, at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (s.seq[s.slot(mid)] < seq) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at;
}

/** Which process indexes are the package's (its name or its processes' package), or null. */
function packageProcs(procs: ProcessTable, pkg: string | undefined): Uint8Array | null {
  if (pkg === undefined) return null;
  const match = new Uint8Array(procs.names.length);
  procs.packages.forEach((p, i) => {
    if (p === pkg || procs.names[i] === pkg) match[i] = 1;
  });
  return match;
}

/**
 * The newest `q.count` matching entries, newest first. A text query tests at most
 * MAX_TEXT_SCAN_ENTRIES messages itself (blocks the index rules out cost nothing): when it
 * stops there, what it found is exact for every entry down to `stoppedAt`, and a query with
 * `beforeSeq: stoppedAt` continues below.
 */
export function queryScan(s: RingStore, procs: ProcessTable, q: EntryQuery): SlotScan {
  const out: number[] = [];
  const scan: SlotScan = { slots: out, stoppedAt: null };
  if (q.count <= 0) return scan;
  const minLevel = q.minLevel ?? 0;
  const tag = q.tag;
  const re = q.text ? new RegExp(escapeRegExp(q.text), "i") : null;
  const procMatch = packageProcs(procs, q.package);
  const onlyCrashes = q.onlyCrashes === true;
  const pairs = re !== null ? textPairs(q.text!) : null;
  const index = s.textIndex;
  let checked = -1;
  let builds = QUERY_BUILD_BLOCKS;
  let tested = 0;
  const first = q.beforeSeq === undefined ? s.size - 1 : newestBefore(s, q.beforeSeq);
  for (let i = first; i >= 0; i--) {
    const slot = s.slot(i);
    if (pairs !== null) {
      const block = TextIndex.blockOf(slot);
      if (block !== checked) {
        checked = block;
        // A stale block is built by the first few queries that meet it, else scanned.
        let build = true;
        if (index.isStale(block)) {
          build = builds > 0;
          if (build) builds--;
        }
        if (!index.mayContain(block, pairs, s, build)) {
          // Nothing in this block can match: skip its slots below this one in one step.
          i -= slot - block * TEXT_BLOCK_ENTRIES;
          continue;
        }
      }
    }
    if (s.level[slot] < minLevel) continue;
    if (onlyCrashes && !(s.flags[slot] & EntryFlag.crash)) continue;
    if (tag !== undefined && s.tag[slot] !== tag) continue;
    if (procMatch !== null) {
      const p = s.proc[slot];
      if (p < 0 || !procMatch[p]) continue;
    }
    if (re !== null) {
      const hit = re.test(s.messageOf(slot));
      if (++tested >= MAX_TEXT_SCAN_ENTRIES && i > 0 && (!hit || out.length + 1 < q.count)) {
        if (hit) out.push(slot);
        scan.stoppedAt = s.seq[slot];
        break;
      }
      if (!hit) continue;
    }
    out.push(slot);
    if (out.length >= q.count) break;
  }
  return scan;
}

/** Tags by entries kept, most first. */
export function topTags(s: RingStore, n: number): { tag: string; count: number }[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < s.size; i++) {
    const t = s.tag[s.slot(i)];
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n)
    .map(([tag, count]) => ({ tag, count }));
}
