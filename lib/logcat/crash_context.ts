/**
 * A crash's context: lines of the crashing process, and lines of other processes that name it
 * (its pid or process name: the activity manager's `Process … has died`, `Force finishing …`),
 * at most CRASH_CONTEXT_BEFORE before its first line and CRASH_CONTEXT_AFTER after it, and at most
 * CRASH_CONTEXT_WINDOW_MS away. The lines before it are read late (when first asked for, or before
 * the ring drops what the scan would read); the lines after it are taken as they are stored.
 */
import type { ProcessTable } from "./enrich.ts";
import { levelLetter } from "./line_parser.ts";
import type { RingStore } from "./ring_store.ts";
import { ContextFacts } from "./context_scan.ts";
import { WindowedSearch } from "./next_match.ts";
import { clockIn } from "./log_clock.ts";
import { mentionsPid, NAMES_NO_PID, NAMES_SEVERAL_PIDS } from "./pid_mentions.ts";
import type { Crash, CrashRecord, PendingBefore } from "./crash_record.ts";

export const CRASH_CONTEXT_BEFORE = 20;
const CRASH_CONTEXT_AFTER = 20;
export const CRASH_CONTEXT_WINDOW_MS = 10_000;
/** Entries looked at for a crash's context before it, and after it. */
export const CRASH_CONTEXT_SCAN_LINES = 5_000;
/**
 * Crashes whose context before them is still to be read (at most; past it the oldest is read
 * now). A crash's context is read when it is first asked for, or before the ring evicts the
 * oldest entry its scan may read; a crash dropped before then (MAX_CRASHES_PER_DEVICE newer
 * ones came) is never read. Dropped ones leave the queue in order, so it holds about the kept
 * crashes.
 */
const MAX_PENDING_CONTEXT = 2 * 200;

/** A stored line as logcat prints it (`threadtime`). */
export function formatLine(
  time: string,
  pid: number,
  tid: number,
  level: number,
  tag: string,
  message: string,
): string {
  return `${time} ${String(pid).padStart(5)} ${String(tid).padStart(5)} ${
    levelLetter(level)
  } ${tag}: ${message}`;
}

/** A pid the context facts keep as a number (others are checked by mentionsPid alone). */
function isPlainPid(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && pid <= 0x7fffffff;
}

/**
 * mentionsPid(message, pid) for a pid > 0, knowing what the message names (`mention`, from
 * PidMentionFinder.mentionIn).
 */
function namesPid(message: string, mention: number, pid: number): boolean {
  if (mention === NAMES_NO_PID) return false;
  if (!isPlainPid(pid) || mention === NAMES_SEVERAL_PIDS) return mentionsPid(message, pid);
  return mention === pid;
}

/** One device's crash contexts: those waiting to be read before, those collecting after. */
export class CrashContext {
  readonly #store: RingStore;
  readonly #procs: ProcessTable;
  /** What the crash-context scans read of each slot, learnt once (see context_scan.ts). */
  #facts = new ContextFacts();
  /** Crashes whose context before them is not read yet, oldest first (see MAX_PENDING_CONTEXT). */
  #pending: PendingBefore[] = [];
  #reader = (p: PendingBefore): string[] => this.#readBefore(p);
  /** Crashes still collecting the lines after them. */
  #needAfter: CrashRecord[] = [];
  /** Bumped when the crashes waiting for context (or their pids) change; see #afterNames. */
  #needVersion = 0;
  #namesFor = -1;
  #namesProcs = -1;
  /** The process names those crashes look for, each searched along the chunk. */
  #names: WindowedSearch[] = [];
  #nameSearches = new Map<string, WindowedSearch>();

  constructor(store: RingStore, procs: ProcessTable) {
    this.#store = store;
    this.#procs = procs;
  }

  /** Whether some crash still collects the lines after it. */
  get waiting(): boolean {
    return this.#needAfter.length !== 0;
  }

  /** A new crash: its context before it is recorded to be read later, the lines after it taken. */
  watch(r: Crash): void {
    this.#deferBefore(r);
    this.#needAfter.push(r);
    this.#needVersion++;
  }

  /** A watched crash's pid changed (its trace named it). */
  pidChanged(): void {
    this.#needVersion++;
  }

  /** A crash leaves the kept ones (dropped, or merged): its context is read no more. */
  forget(r: CrashRecord): void {
    const q = this.#pending;
    for (let i = 0; i < q.length; i++) {
      if (q[i].record === r) {
        q[i].dropped = true;
        break;
      }
    }
    this.#trimPending();
    const a = this.#needAfter.indexOf(r);
    if (a >= 0) this.#needAfter.splice(a, 1);
  }

  /** Before an entry is added: a full ring evicts its oldest, so the scans that may read it run. */
  beforeAdd(): void {
    const s = this.#store;
    const q = this.#pending;
    while (q.length !== 0 && s.size === s.capacity && q[0].low <= s.evicted) {
      q[0].record.readBefore();
      this.#trimPending();
    }
  }

  /** An entry was stored at `slot`. */
  stored(slot: number, seq: number): void {
    this.#facts.record(this.#store.capacity, slot, seq);
  }

  /**
   * While crashes wait for the lines after them (`waiting`): the line just stored at `slot`. Its
   * facts are read now (in order along the chunk, where it is cheapest) and kept for the next
   * crash's scan back; a line that is no crash's own is offered to the waiting crashes.
   */
  lineAfter(
    slot: number,
    ofCrash: boolean,
    src: string,
    timeStart: number,
    timeEnd: number,
    pid: number,
    tid: number,
    level: number,
    tag: string,
    msgStart: number,
    msgEnd: number,
  ): void {
    const clock = clockIn(src, timeStart, timeEnd) ?? Number.NaN;
    const mention = this.#facts.learnWithClock(this.#store, slot, clock);
    if (ofCrash) return;
    let named = mention !== NAMES_NO_PID;
    if (!named) {
      const names = this.#afterNames();
      for (let k = 0; k < names.length && !named; k++) {
        named = names[k].foundIn(src, msgStart, msgEnd);
      }
    }
    let message: string | null = null;
    let line: string | null = null;
    for (let i = this.#needAfter.length - 1; i >= 0; i--) {
      const r = this.#needAfter[i];
      const start = r.clock;
      // (NaN, no clock, is never late.)
      const late = start !== null && clock - start > CRASH_CONTEXT_WINDOW_MS;
      if (late || ++r.afterScanned > CRASH_CONTEXT_SCAN_LINES) {
        this.#needAfter.splice(i, 1);
        continue;
      }
      const own = pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid);
      if (!own && !named) continue;
      message ??= src.slice(msgStart, msgEnd);
      if (!own && !this.#about(r, pid, message, mention)) continue;
      line ??= formatLine(src.slice(timeStart, timeEnd), pid, tid, level, tag, message);
      r.contextAfter.push(line);
      if (r.contextAfter.length >= CRASH_CONTEXT_AFTER) this.#needAfter.splice(i, 1);
    }
  }

  /** Reads every pending context before (the ring is about to move or drop entries). */
  settle(): void {
    const q = this.#pending;
    for (let i = 0; i < q.length; i++) if (!q[i].dropped) q[i].record.readBefore();
    q.length = 0;
  }

  /** The crashes go: their contexts before them are never read. */
  clear(): void {
    for (const p of this.#pending) p.dropped = true;
    this.#pending.length = 0;
    this.#facts.reset(this.#store.capacity);
    this.#needAfter.length = 0;
  }

  /** The name of `pid`'s process when it is long enough to look for (else null). */
  #nameOf(pid: number): string | null {
    const proc = this.#procs.of(pid);
    const name = proc >= 0 ? this.#procs.names[proc] : null;
    return name !== null && name.length > 3 ? name : null;
  }

  /**
   * The process names the crashes waiting for context look for, each as a search along the
   * chunk (a line containing none of them, and naming no pid, is about none of those crashes but
   * its own process's). Rebuilt when those crashes or the process table changed.
   */
  #afterNames(): WindowedSearch[] {
    const procs = this.#procs;
    if (this.#namesFor === this.#needVersion && this.#namesProcs === procs.version) {
      return this.#names;
    }
    const searches = new Map<string, WindowedSearch>();
    for (const r of this.#needAfter) {
      const name = this.#nameOf(r.pid);
      if (name !== null && !searches.has(name)) {
        searches.set(name, this.#nameSearches.get(name) ?? new WindowedSearch(name));
      }
    }
    this.#nameSearches = searches;
    this.#names = [...searches.values()];
    this.#namesFor = this.#needVersion;
    this.#namesProcs = procs.version;
    return this.#names;
  }

  /**
   * Whether a line is the crashing process's, or another's naming it (pid or process name);
   * `mention` is what the line names (PidMentionFinder.mentionIn).
   */
  #about(r: CrashRecord, pid: number, message: string, mention: number): boolean {
    if (pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid)) return true;
    if (r.pid > 0 && namesPid(message, mention, r.pid)) return true;
    const name = this.#nameOf(r.pid);
    return name !== null && message.includes(name);
  }

  /** Records what the scan of the crash's context before it needs, to be read later. */
  #deferBefore(r: Crash): void {
    const s = this.#store;
    const n = Math.min(s.size, CRASH_CONTEXT_SCAN_LINES);
    const p: PendingBefore = {
      record: r,
      read: this.#reader,
      P: r.pid,
      reporter: r.kind !== "anr" ? r.reporterPid : Number.NaN,
      name: this.#nameOf(r.pid),
      // The window's start, as a number NaN compares false with (null times never end the scan).
      limit: r.clock === null ? Number.NaN : r.clock - CRASH_CONTEXT_WINDOW_MS,
      newest: s.evicted + s.size - 1,
      low: s.evicted + s.size - n,
      dropped: false,
    };
    const q = this.#pending;
    q.push(p);
    r.deferBefore(p);
    if (q.length > MAX_PENDING_CONTEXT) q[0].record.readBefore();
    this.#trimPending();
  }

  #trimPending(): void {
    const q = this.#pending;
    let k = 0;
    while (k < q.length && q[k].dropped) k++;
    if (k > 0) q.splice(0, k);
  }

  /**
   * The crash's context before it: the newest lines about it, within the time window (newest
   * first, back to the first line older than the window or CRASH_CONTEXT_SCAN_LINES entries),
   * as the ring held them when the crash was read (`p`'s positions count evictions).
   * One loop over the facts each slot's entry has learnt (context_scan.ts); a message is read
   * only for a line it takes, or that names several pids.
   */
  #readBefore(p: PendingBefore): string[] {
    const s = this.#store;
    const out: string[] = [];
    const newest = p.newest - s.evicted;
    const low = p.low - s.evicted;
    if (low < 0 || newest < low) return out;
    const P = p.P;
    const reporter = p.reporter;
    const name = p.name;
    const ctx = this.#facts;
    ctx.sync(s.capacity);
    const bit = name === null ? 0 : ctx.nameBit(name);
    const { seq, pid: pids } = s;
    const { seqOf, known, clock, mention, nameKnown, nameHit } = ctx;
    const plain = isPlainPid(P);
    const limit = p.limit;
    const capacity = s.capacity;
    let slot = s.slot(newest);
    for (let i = newest; i >= low && out.length < CRASH_CONTEXT_BEFORE; i--) {
      if (i !== newest) slot = slot === 0 ? capacity - 1 : slot - 1;
      if (known[slot] !== 1 || seqOf[slot] !== seq[slot]) ctx.learnRun(s, i, low);
      if (clock[slot] < limit) break;
      const pid = pids[slot];
      if (pid !== P && pid !== reporter) {
        let named = false;
        if (P > 0) {
          const m = mention[slot];
          if (m !== NAMES_NO_PID) {
            named = plain
              ? m === P || (m === NAMES_SEVERAL_PIDS && mentionsPid(s.messageOf(slot), P))
              : mentionsPid(s.messageOf(slot), P);
          }
        }
        if (!named && bit !== 0) {
          if ((nameKnown[slot] & bit) === 0) ctx.learnNameRun(s, i, low, bit);
          named = (nameHit[slot] & bit) !== 0;
        }
        if (!named) continue;
      }
      out.push(
        formatLine(
          s.timeOf(slot),
          s.pid[slot],
          s.tid[slot],
          s.level[slot],
          s.tag[slot],
          s.messageOf(slot),
        ),
      );
    }
    return out.reverse();
  }
}
