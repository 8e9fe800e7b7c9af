/**
 * A device's tags interned: one shared string per distinct tag, found by the characters of the
 * line it is read from, so a tag seen before costs no string at all.
 */
import { copyOf } from "./string_copy.ts";

/** Distinct tags interned per device; beyond, the table starts over. */
const MAX_INTERNED_TAGS = 8_192;
/** Slots of the tag table (a power of two, twice MAX_INTERNED_TAGS: probes stay short). */
const TAG_TABLE_SLOTS = 16_384;

/** An open-addressing table keyed by a tag's characters. */
export class TagTable {
  #keys: (string | undefined)[] = new Array(TAG_TABLE_SLOTS);
  #hashes = new Int32Array(TAG_TABLE_SLOTS);
  #count = 0;

  /**
   * The tag `text[start, end)` as one shared string per distinct tag. A new tag is copied out of
   * the chunk so the table does not keep chunks alive.
   */
  intern(text: string, start: number, end: number): string {
    const n = end - start;
    if (n <= 0) return "";
    // A hash of the length and five characters (the comparison reads them all).
    let h = Math.imul(n, 0x01000193) ^ text.charCodeAt(start);
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(end - 1);
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(start + (n >> 1));
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(start + (n >> 2));
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(end - 1 - (n >> 2));
    h ^= h >>> 15;
    const keys = this.#keys;
    const hashes = this.#hashes;
    const mask = TAG_TABLE_SLOTS - 1;
    let at = h & mask;
    for (let k = keys[at]; k !== undefined; k = keys[at]) {
      if (hashes[at] === h && k.length === n && text.startsWith(k, start)) return k;
      at = (at + 1) & mask;
    }
    if (this.#count >= MAX_INTERNED_TAGS) {
      keys.fill(undefined);
      this.#count = 0;
      at = h & mask;
    }
    const tag = copyOf(text.slice(start, end));
    keys[at] = tag;
    hashes[at] = h;
    this.#count++;
    return tag;
  }
}
