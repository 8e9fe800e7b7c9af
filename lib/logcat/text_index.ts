/**
 * A prefilter for case-insensitive text queries over the ring: for each block of
 * `TEXT_BLOCK_ENTRIES` consecutive slots, a bit set of the character-class pairs its messages
 * contain (ASCII: letters case folded, digits and common punctuation each a class of their own).
 * A query whose text holds a pair a block lacks cannot match anything in that block, so the scan
 * skips it whole; a text that matches nothing usually skips every block.
 *
 * Exact, never approximate: a block is skipped only when no message in it can contain the text.
 * Queries are `RegExp(text, "i")` without the `u` flag, where a non-ASCII character never matches
 * an ASCII one, so for an ASCII text every pair of adjacent characters of a match is an ASCII pair
 * of one message. Texts with other characters, or shorter than two, are not prefiltered.
 *
 * A block's set is built in idle time between reads (`buildDirty`), or by a query for the first
 * few stale blocks it meets (the rest it scans), and kept until a slot of the block is written
 * again (the ring marks it dirty): writes cost one byte store, a steady stream re-indexes only the
 * blocks it overwrote, and a query right after a burst costs a plain scan, not a build.
 */

/** Where each slot's message lies: `text[slot].slice(msgStart[slot], msgEnd[slot])`. */
export interface MessageColumns {
  readonly text: readonly (string | undefined)[];
  readonly msgStart: Int32Array;
  readonly msgEnd: Int32Array;
}

/** Slots per block (a power of two). */
export const TEXT_BLOCK_ENTRIES = 128;
const BLOCK_SHIFT = 7;
/** Stale blocks one query builds itself (the rest are scanned and left to idle time). */
export const QUERY_BUILD_BLOCKS = 64;
/** Bits per block's pair set (a power of two): 512 bytes per 128 entries. */
const TEXT_BLOCK_BITS = 4096;
const WORDS = TEXT_BLOCK_BITS / 32;

/** Characters with a class of their own (besides letters, case folded, and digits). */
const OWN_CLASS = " .:-_/()=,[]{}\"'#@$%&*+;<>?!|~^`\\\t";

/**
 * ASCII → one of 64 classes: a-z (A-Z folded onto them), 0-9, the common punctuation above, and
 * one shared class for the rest. A pair of classes is one of 64 × 64 = 4096 bits, so pairs of
 * letters, digits and common punctuation never share a bit.
 */
const CLASS = (() => {
  const t = new Uint8Array(128).fill(63);
  for (let c = 97; c <= 122; c++) t[c] = t[c - 32] = c - 97;
  for (let c = 48; c <= 57; c++) t[c] = 26 + c - 48;
  for (let k = 0; k < OWN_CLASS.length && 36 + k < 63; k++) t[OWN_CLASS.charCodeAt(k)] = 36 + k;
  return t;
})();
const FOLD = CLASS;

function pairBit(a: number, b: number): number {
  return (a << 6) | b;
}

/** The pair bits of an ASCII text, or null when it cannot be prefiltered. */
export function textPairs(text: string): Uint16Array | null {
  if (text.length < 2) return null;
  const out = new Uint16Array(text.length - 1);
  let prev = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return null;
    const f = FOLD[c];
    if (prev >= 0) out[i - 1] = pairBit(prev, f);
    prev = f;
  }
  return out;
}

/** Sets the pair bits of `m` in the block at `base` (the hot loop of a build). */
function addPairs(bits: Uint32Array, base: number, m: string, start: number, end: number): void {
  let prev = -1;
  for (let i = start; i < end; i++) {
    const c = m.charCodeAt(i);
    if (c >= 128) {
      prev = -1;
      continue;
    }
    const f = FOLD[c];
    if (prev >= 0) {
      const p = (prev << 6) | f;
      bits[base + (p >>> 5)] |= 1 << (p & 31);
    }
    prev = f;
  }
}

export class TextIndex {
  #bits: Uint32Array;
  /** 1 = the block's set is stale (a slot was written since it was built). */
  #dirty: Uint8Array;
  #blocks: number;

  constructor(capacity: number) {
    this.#blocks = Math.ceil(capacity / TEXT_BLOCK_ENTRIES);
    this.#bits = new Uint32Array(this.#blocks * WORDS);
    this.#dirty = new Uint8Array(this.#blocks).fill(1);
  }

  get blocks(): number {
    return this.#blocks;
  }

  /** The block of a slot. */
  static blockOf(slot: number): number {
    return slot >>> BLOCK_SHIFT;
  }

  /** A slot was written. */
  touch(slot: number): void {
    this.#dirty[slot >>> BLOCK_SHIFT] = 1;
  }

  /** Every block is stale (the ring was cleared or resized). */
  touchAll(): void {
    this.#dirty.fill(1);
  }

  /** Whether `block`'s set is stale. */
  isStale(block: number): boolean {
    return this.#dirty[block] === 1;
  }

  /** Blocks whose set must be rebuilt before use. */
  dirtyCount(): number {
    let n = 0;
    for (let b = 0; b < this.#blocks; b++) n += this.#dirty[b];
    return n;
  }

  /**
   * Whether a message in `block` may contain a text with these pairs. A stale block's set is
   * built when `build` is true; otherwise it answers true (scan the block): building costs about
   * ten times a plain scan, so a query builds only a few (QUERY_BUILD_BLOCKS) and leaves the rest
   * to idle time.
   */
  mayContain(
    block: number,
    pairs: Uint16Array,
    messages: MessageColumns,
    build = true,
  ): boolean {
    if (this.#dirty[block]) {
      if (!build) return true;
      this.#build(block, messages);
    }
    const base = block * WORDS;
    const bits = this.#bits;
    for (let i = 0; i < pairs.length; i++) {
      const p = pairs[i];
      if ((bits[base + (p >>> 5)] & (1 << (p & 31))) === 0) return false;
    }
    return true;
  }

  /** Rebuilds up to `maxBlocks` stale blocks except `skip` (the one being written); returns how
   * many stale blocks remain. */
  buildDirty(messages: MessageColumns, maxBlocks: number, skip = -1): number {
    let built = 0;
    let left = 0;
    for (let b = 0; b < this.#blocks; b++) {
      if (!this.#dirty[b] || b === skip) continue;
      if (built < maxBlocks) {
        this.#build(b, messages);
        built++;
      } else left++;
    }
    return left;
  }

  #build(block: number, messages: MessageColumns): void {
    const bits = this.#bits;
    const base = block * WORDS;
    bits.fill(0, base, base + WORDS);
    const from = block << BLOCK_SHIFT;
    const { text, msgStart, msgEnd } = messages;
    const to = Math.min(text.length, from + TEXT_BLOCK_ENTRIES);
    for (let slot = from; slot < to; slot++) {
      const m = text[slot];
      if (m !== undefined) addPairs(bits, base, m, msgStart[slot], msgEnd[slot]);
    }
    this.#dirty[block] = 0;
  }
}
