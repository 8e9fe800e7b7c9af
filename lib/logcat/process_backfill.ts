/**
 * A pid's process learnt late (a crash's trace or the activity manager named it): the earlier
 * lines of that pid that had no process get it too, back to another process with the same pid.
 */
import { Cat, type ProcessTable } from "./enrich.ts";
import type { RingStore } from "./ring_store.ts";

/** Entries scanned back when a crash names the process of earlier lines. */
const BACKFILL_SCAN_LIMIT = 50_000;

/** pid → process in the table; earlier unattributed lines of that pid get it (bounded scan). */
export function attributeProcess(
  store: RingStore,
  procs: ProcessTable,
  pid: number,
  process: string,
): void {
  if (!procs.set(pid, process)) return;
  const idx = procs.of(pid);
  const s = store;
  const n = Math.min(s.size, BACKFILL_SCAN_LIMIT);
  for (let i = s.size - 1; i >= s.size - n; i--) {
    const slot = s.slot(i);
    if (s.pid[slot] !== pid) continue;
    const had = s.proc[slot];
    if (had >= 0 && had !== idx) break; // an earlier process with the same pid
    if (had < 0) {
      s.proc[slot] = idx;
      if (s.category[slot] === Cat.system && procs.packages[idx]) s.category[slot] = Cat.app;
    }
  }
}
