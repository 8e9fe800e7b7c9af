/**
 * A device's tags interned: one shared string per distinct tag, found by the characters of the
 * line it is read from, so a tag seen before costs no string at all, and what the ingest path
 * asks of a tag (its traits, a small number) is worked out once per tag.
 */
import { copyOf } from "./string_copy.ts";

/** Distinct tags interned per device; beyond, the table starts over. */
const MAX_INTERNED_TAGS = 8_192;
/** Slots of the tag table (a power of two, twice MAX_INTERNED_TAGS: probes stay short). */
const TAG_TABLE_SLOTS = 16_384;

/** An open-addressing table keyed by a tag's characters. */
export class TagTable {
  /** The traits of the tag the last `intern` returned. */
  traits = 0;
  #keys: (string | undefined)[] = new Array(TAG_TABLE_SLOTS);
  #hashes = new Int32Array(TAG_TABLE_SLOTS);
  #traits = new Uint8Array(TAG_TABLE_SLOTS);
  #count = 0;
  readonly #traitsOf: (tag: string) => number;
  readonly #emptyTraits: number;

  /** `traitsOf(tag)`: a tag's traits (0 to 255), asked once per interned tag. */
  constructor(traitsOf: (tag: string) => number) {
    this.#traitsOf = traitsOf;
    this.#emptyTraits = traitsOf("");
  }

  /**
   * The tag `text[start, end)` as one shared string per distinct tag. A new tag is copied out of
   * the chunk so the table does not keep chunks alive. Sets `traits` to the tag's.
   */
  intern(text: string, start: number, end: number): string {
    const n = end - start;
    if (n <= 0) {
      this.traits = this.#emptyTraits;
      return "";
    }
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
      if (hashes[at] === h && k.length === n && text.startsWith(k, start)) {
        this.traits = this.#traits[at];
        return k;
      }
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
    const traits = this.#traitsOf(tag);
    this.#traits[at] = traits;
    this.traits = traits;
    this.#count++;
    return tag;
  }
}
