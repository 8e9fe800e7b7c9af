/**
 * What a crash's context scan (lines before a crash that are its process's or name it) reads of
 * each ring slot, remembered so the next crash's scan over the same slots does not redo it. In a
 * crash-dense log every slot is looked at by dozens of crashes (one every ~84 lines, each looking
 * up to CRASH_CONTEXT_SCAN_LINES back), and re-reading the time and searching the message each
 * time was the largest cost of ingest.
 *
 * Exact, never approximate: it only remembers facts, and a fact is used only while the slot (or
 * the block) holds what it held when the fact was learnt.
 * - per slot: the time as clockMs (given at ingest), and whether the message can name any pid at
 *   all (`(` or `pid` + one of ` :=` + an optional white space, then a digit — every match of
 *   mentionsPid has that shape), learnt the first time a scan needs it;
 * - per block of CONTEXT_BLOCK_ENTRIES slots and process name: whether any message of the block
 *   contains the name, learnt by the first scan that needs it, forgotten when a slot of the block
 *   is written.
 * A slot is trusted only when the sequence number it was recorded with is still the ring's for
 * that slot (a resize or clear moves or drops entries behind the pipeline's back).
 */

import type { MessageColumns } from "./text_index.ts";

/** Slots per block of the name cache (a power of two). */
export const CONTEXT_BLOCK_ENTRIES = 128;
const BLOCK_SHIFT = 7;
/** Process names whose per-block answers are remembered; beyond, the cache starts over. */
export const MAX_CONTEXT_NAMES = 32;

/** A digit that a pid mention (as mentionsPid reads them) may start at. */
const PID_MENTION = /\(\d|pid[ :=]\s?\d/i;

const UNKNOWN = 0, NO = 1, YES = 2;

interface NameBlocks {
  /** Per block: the block's write count + 1 when `hitSlot` was learnt (0: never). */
  at: Float64Array;
  /** Per block: the first slot found holding the name (-1: none holds it). */
  hitSlot: Int32Array;
}

export class ContextScanCache {
  #capacity = 0;
  /** Per slot: the seq it was recorded with (NaN: nothing recorded). */
  #seq = new Float64Array(0);
  #clock = new Float64Array(0);
  #mention = new Uint8Array(0);
  /** Per block: slots written since the cache started. */
  #writes = new Float64Array(0);
  #names = new Map<string, NameBlocks>();

  /** Resets the cache for a ring of `capacity` slots (after a clear or resize). */
  reset(capacity: number): void {
    this.#capacity = capacity;
    this.#seq = new Float64Array(capacity).fill(Number.NaN);
    this.#clock = new Float64Array(capacity);
    this.#mention = new Uint8Array(capacity);
    this.#writes = new Float64Array(Math.ceil(capacity / CONTEXT_BLOCK_ENTRIES));
    this.#names.clear();
  }

  /** Starts over when the ring's capacity is not the cache's (the ring was resized). */
  sync(capacity: number): void {
    if (capacity !== this.#capacity) this.reset(capacity);
  }

  /** The ring wrote `slot` with `seq`; `clock` is clockMs of its time (null: none). */
  record(capacity: number, slot: number, seq: number, clock: number | null): void {
    if (capacity !== this.#capacity) this.reset(capacity);
    this.#seq[slot] = seq;
    this.#clock[slot] = clock === null ? Number.NaN : clock;
    this.#mention[slot] = UNKNOWN;
    this.#writes[slot >>> BLOCK_SHIFT]++;
  }

  /** Whether what was recorded for `slot` is still what the ring holds there (after `sync`). */
  valid(slot: number, seq: number): boolean {
    return this.#seq[slot] === seq;
  }

  /** The recorded clock of a valid slot (NaN: the time has none). */
  clock(slot: number): number {
    return this.#clock[slot];
  }

  /** Whether a valid slot's message may name some pid (false: mentionsPid is false for all). */
  mayNamePid(slot: number, messages: MessageColumns): boolean {
    let m = this.#mention[slot];
    if (m === UNKNOWN) {
      const text = messages.text[slot]!;
      m = PID_MENTION.test(text.slice(messages.msgStart[slot], messages.msgEnd[slot])) ? YES : NO;
      this.#mention[slot] = m;
    }
    return m === YES;
  }

  /**
   * Whether some message of `block` may contain `name`; false only when none does. Learns the
   * answer for the whole block when every slot of it is valid (`messages`/`seqs` are the ring's
   * columns; after `sync`); otherwise answers true (scan the slots). `newest` is the ring's newest
   * slot: in the block being written, only the slots written since the answer was learnt are read
   * again (the ring writes a block's slots in order).
   */
  blockMayContain(
    block: number,
    name: string,
    messages: MessageColumns,
    seqs: Float64Array,
    newest: number,
  ): boolean {
    let nb = this.#names.get(name);
    if (nb === undefined) {
      if (this.#names.size >= MAX_CONTEXT_NAMES) this.#names.clear();
      const blocks = this.#writes.length;
      nb = { at: new Float64Array(blocks), hitSlot: new Int32Array(blocks).fill(-1) };
      this.#names.set(name, nb);
    }
    const stamp = this.#writes[block] + 1;
    const learnt = nb.at[block];
    if (learnt === stamp) return nb.hitSlot[block] >= 0;
    const from = block << BLOCK_SHIFT;
    let first = from;
    let hitSlot = -1;
    if (learnt > 0 && newest >= from && newest < from + CONTEXT_BLOCK_ENTRIES) {
      const since = stamp - learnt;
      if (since <= newest - from + 1) {
        // Only slots newest-since+1 … newest changed; an earlier hit still stands.
        first = newest - since + 1;
        const had = nb.hitSlot[block];
        if (had >= 0 && had < first) hitSlot = had;
      }
    }
    if (hitSlot < 0) {
      if (first !== from && nb.hitSlot[block] >= 0) first = from; // its hit was overwritten
      const to = Math.min(from + CONTEXT_BLOCK_ENTRIES, this.#capacity);
      const { text, msgStart, msgEnd } = messages;
      for (let s = first; s < to; s++) {
        const m = text[s];
        if (m === undefined) continue; // an empty slot
        if (seqs[s] !== this.#seq[s]) return true; // not recorded by the cache: not known
        if (m.slice(msgStart[s], msgEnd[s]).includes(name)) {
          hitSlot = s;
          break;
        }
      }
    }
    nb.at[block] = stamp;
    nb.hitSlot[block] = hitSlot;
    return hitSlot >= 0;
  }
}
