/**
 * What a crash's context (the lines before a crash that are its process's or name it) reads of
 * each ring slot, learnt once per stored entry and kept in typed columns, so that gathering the
 * context is one tight loop over numbers instead of a time parse and a text search per slot per
 * crash (in a crash-dense log every slot is looked at by dozens of crashes: one every ~84 lines,
 * each looking up to CRASH_CONTEXT_SCAN_LINES back).
 *
 * Per slot:
 * - `clock`: clockMs of the entry's time (NaN: none);
 * - `mention`: the pid its message names (PidMentionFinder.mentionIn: NAMES_NO_PID,
 *   NAMES_SEVERAL_PIDS or the one pid), read along the chunk;
 * - per process name being looked for (at most MAX_CONTEXT_NAMES at once), whether the message
 *   contains it (a bit of `nameHit`, valid where the same bit of `nameKnown` is set).
 *
 * Facts are learnt in forward runs, where searching the text of many messages at once costs one
 * native search per match rather than one per message: the pipeline learns a stored line's facts
 * at once while crashes wait for context after it (along the chunk, in order: NextMatch), and a
 * crash's scan back, meeting a slot not learnt yet, learns the run of up to LEARN_RUN_ENTRIES
 * unlearnt slots ending there, oldest first, searching only that run's text. Exact, never
 * approximate: a fact is used only while the slot holds the entry it was learnt for (the seq
 * recorded with it; a resize or clear moves or drops entries behind the pipeline's back, and a
 * capacity change starts over).
 */

import { clockIn } from "./log_clock.ts";
import { PidMentionFinder } from "./pid_mentions.ts";
import type { RingStore } from "./ring_store.ts";

/** Process names whose per-slot answers are kept at once (one bit each of a byte per slot). */
const MAX_CONTEXT_NAMES = 8;
/** Most slots a scan back learns in one forward run. */
const LEARN_RUN_ENTRIES = 128;

/** A name being looked for: its bit in `nameKnown`/`nameHit`. */
interface NameSlot {
  name: string;
  bit: number;
  /** When it was last asked for (to give the least recently used bit to a new name). */
  used: number;
}

export class ContextFacts {
  #capacity = 0;
  /** Per slot: the seq its facts were learnt for (NaN: none). */
  seqOf = new Float64Array(0);
  /** Per slot: 1 when `clock` and `mention` hold the facts of the entry of seq `seqOf`. */
  known = new Uint8Array(0);
  clock = new Float64Array(0);
  mention = new Int32Array(0);
  nameKnown = new Uint8Array(0);
  nameHit = new Uint8Array(0);
  #names: NameSlot[] = [];
  #tick = 0;
  /** The ingest path's (in chunk order) and the scans' (runs going back), kept apart. */
  #ingestFinder = new PidMentionFinder();
  #scanFinder = new PidMentionFinder();

  /** Forgets everything, for a ring of `capacity` slots (after a clear or resize). */
  reset(capacity: number): void {
    this.#capacity = capacity;
    this.seqOf = new Float64Array(capacity).fill(Number.NaN);
    this.known = new Uint8Array(capacity);
    this.clock = new Float64Array(capacity);
    this.mention = new Int32Array(capacity);
    this.nameKnown = new Uint8Array(capacity);
    this.nameHit = new Uint8Array(capacity);
    this.#names = [];
    this.#ingestFinder.reset();
    this.#scanFinder.reset();
  }

  /** Starts over when the ring's capacity is not the facts' (the ring was resized). */
  sync(capacity: number): void {
    if (capacity !== this.#capacity) this.reset(capacity);
  }

  /** The ring wrote `slot` with the entry of `seq`: nothing is known of it yet. */
  record(capacity: number, slot: number, seq: number): void {
    if (capacity !== this.#capacity) this.reset(capacity);
    this.seqOf[slot] = seq;
    this.known[slot] = 0;
    this.nameKnown[slot] = 0;
  }

  /** Whether the clock and mention of `slot` are its entry's (after `sync`). */
  isKnown(s: RingStore, slot: number): boolean {
    return this.known[slot] === 1 && this.seqOf[slot] === s.seq[slot];
  }

  /**
   * Learns the clock and mention of `slot`'s entry on the ingest path (in chunk order), with the
   * clock already read (it needs it anyway); returns the mention.
   */
  learnWithClock(s: RingStore, slot: number, clock: number): number {
    if (this.seqOf[slot] !== s.seq[slot]) this.nameKnown[slot] = 0;
    this.seqOf[slot] = s.seq[slot];
    this.clock[slot] = clock;
    const m = this.#ingestFinder.mentionIn(s.text[slot]!, s.msgStart[slot], s.msgEnd[slot]);
    this.mention[slot] = m;
    this.known[slot] = 1;
    return m;
  }

  /**
   * Learns the clock and mention of the entry at index `i` (not learnt) and of the unlearnt ones
   * just before it, up to LEARN_RUN_ENTRIES and not below index `low`, oldest first.
   */
  learnRun(s: RingStore, i: number, low: number): void {
    const stop = Math.max(low, i - LEARN_RUN_ENTRIES + 1);
    let j = i;
    while (j > stop && !this.isKnown(s, s.slot(j - 1))) j--;
    const finder = this.#scanFinder;
    for (let k = j; k <= i;) {
      const e = segmentEnd(s, k, i);
      const { sub, base } = segmentText(s, k, e);
      for (; k <= e; k++) {
        const slot = s.slot(k);
        if (this.seqOf[slot] !== s.seq[slot]) this.nameKnown[slot] = 0;
        this.seqOf[slot] = s.seq[slot];
        this.clock[slot] = clockIn(s.text[slot]!, s.timeStart[slot], s.timeEnd[slot]) ??
          Number.NaN;
        this.mention[slot] = finder.mentionIn(sub, s.msgStart[slot] - base, s.msgEnd[slot] - base);
        this.known[slot] = 1;
      }
    }
  }

  /** The bit of `name`'s answers (given a bit when it has none). */
  nameBit(name: string): number {
    return this.#nameSlot(name).bit;
  }

  /**
   * Learns whether the message at index `i` (learnt, its name bit not) contains the name of
   * `bit`, and likewise for the run before it (as learnRun).
   */
  learnNameRun(s: RingStore, i: number, low: number, bit: number): void {
    const ns = this.#names.find((n) => n.bit === bit)!;
    const stop = Math.max(low, i - LEARN_RUN_ENTRIES + 1);
    let j = i;
    while (j > stop) {
      const slot = s.slot(j - 1);
      if (!this.isKnown(s, slot) || (this.nameKnown[slot] & bit) !== 0) break;
      j--;
    }
    const name = ns.name;
    const len = name.length;
    for (let k = j; k <= i;) {
      const e = segmentEnd(s, k, i);
      const { sub, base } = segmentText(s, k, e);
      // The name's matches in the run's text, in order; a message holds one when a match lies
      // wholly inside it.
      let at = sub.indexOf(name);
      for (; k <= e; k++) {
        const slot = s.slot(k);
        const start = s.msgStart[slot] - base, end = s.msgEnd[slot] - base;
        if (at >= 0 && at < start) at = sub.indexOf(name, start);
        this.nameKnown[slot] |= bit;
        if (at >= 0 && at + len <= end) this.nameHit[slot] |= bit;
        else this.nameHit[slot] &= ~bit;
      }
    }
  }

  /** The bit of `name`, given the least recently used one's when all are taken. */
  #nameSlot(name: string): NameSlot {
    const tick = ++this.#tick;
    for (const ns of this.#names) {
      if (ns.name === name) {
        ns.used = tick;
        return ns;
      }
    }
    let ns: NameSlot;
    if (this.#names.length < MAX_CONTEXT_NAMES) {
      ns = { name, bit: 1 << this.#names.length, used: tick };
      this.#names.push(ns);
    } else {
      ns = this.#names.reduce((a, b) => (b.used < a.used ? b : a));
      ns.name = name;
      ns.used = tick;
      const keep = ~ns.bit & 0xff;
      const known = this.nameKnown;
      for (let i = 0; i < known.length; i++) known[i] &= keep;
    }
    return ns;
  }
}

/**
 * The last index from `k` (up to `i`) whose message continues the same text after the previous
 * one's (entries read from one chunk, in order).
 */
function segmentEnd(s: RingStore, k: number, i: number): number {
  let last = s.slot(k);
  const text = s.text[last];
  let e = k;
  while (e < i) {
    const next = s.slot(e + 1);
    if (s.text[next] !== text || s.msgStart[next] < s.msgEnd[last]) break;
    e++;
    last = next;
  }
  return e;
}

/** The text from the message at index `k` to the end of the one at `e` (one segment). */
function segmentText(s: RingStore, k: number, e: number): { sub: string; base: number } {
  const first = s.slot(k), last = s.slot(e);
  const base = s.msgStart[first];
  return { sub: s.text[first]!.slice(base, s.msgEnd[last]), base };
}
