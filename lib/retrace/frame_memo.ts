/**
 * The frame lines one mapping retraced before, and their retrace (lib/retrace/retrace_text.ts):
 * a trace seen again costs a lookup per frame. Entries sit in a ring in the order they came, the
 * oldest forgotten first past `maxEntries` or `budgetBytes`; an open-addressing table of their
 * hashes (linear probing, removal by backward shift, so no tombstones) finds them. Not a `Map`:
 * on this machine a lookup or insertion in a Map of 30,000 strings costs 1–2.5 µs (its table and
 * keys are cold), and a new trace makes one of each per frame; here a miss is a probe of a
 * packed hash array, and forgetting is O(1). Pure.
 */

/** A frame line's retrace. */
export interface RememberedFrame {
  /** Its output lines joined by `\n`: one flat string kept, not an array of them. */
  text: string;
  /** How many lines `text` has. */
  lineCount: number;
  ambiguous: boolean;
  /** Frames past `MAX_LINES_PER_FRAME` (lib/retrace/retrace_text.ts) not printed. */
  omitted: number;
}

/** Entries a memo starts with room for (it doubles up to its maximum). */
const INITIAL_ENTRIES = 1024;

/** FNV-1a (32 bits) of `s`'s UTF-16 units. Pure. */
function lineHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** What remembering `line`'s `frame` is counted as: 32 bytes and the characters of its lines. */
export function frameCost(line: string, frame: RememberedFrame): number {
  return 64 + line.length * 2 + 32 * frame.lineCount +
    (frame.text.length - (frame.lineCount - 1)) * 2;
}

export class FrameMemo {
  readonly maxEntries: number;
  readonly budgetBytes: number;
  #keys: (string | undefined)[] = [];
  #frames: (RememberedFrame | undefined)[] = [];
  #hashes: Uint32Array;
  #costs: Float64Array;
  /** Slot → entry + 1 (0: empty); twice the entries' room, a power of two. */
  #table: Int32Array;
  /** The oldest entry, and how many there are (ring order). */
  #tail = 0;
  #count = 0;
  #cost = 0;
  /** The line get() was asked last, and its hash (set() follows a miss). */
  #askedLine = "";
  #askedHash = 0;

  constructor(maxEntries: number, budgetBytes: number) {
    this.maxEntries = Math.max(1, maxEntries);
    this.budgetBytes = budgetBytes;
    const room = Math.min(INITIAL_ENTRIES, this.maxEntries);
    this.#hashes = new Uint32Array(room);
    this.#costs = new Float64Array(room);
    this.#table = new Int32Array(tableSize(room));
  }

  get size(): number {
    return this.#count;
  }

  /** The bytes the entries are counted as now. */
  get costBytes(): number {
    return this.#cost;
  }

  /** The bytes of the memo's own arrays now (its table, hashes and costs, the key slots). */
  get tableBytes(): number {
    return this.#table.byteLength + this.#hashes.byteLength + this.#costs.byteLength +
      this.#hashes.length * 16;
  }

  get(line: string): RememberedFrame | undefined {
    const h = lineHash(line);
    this.#askedLine = line;
    this.#askedHash = h;
    const e = this.#find(line, h);
    return e < 0 ? undefined : this.#frames[e];
  }

  /**
   * Remembers `frame` for `line`, which get() did not find (a line already kept is not kept
   * twice); the oldest are forgotten until it fits. A frame costing more than the whole budget
   * is not kept.
   */
  set(line: string, frame: RememberedFrame): void {
    const cost = frameCost(line, frame);
    if (cost > this.budgetBytes) return;
    const h = line === this.#askedLine ? this.#askedHash : lineHash(line);
    if (this.#find(line, h) >= 0) return;
    while (
      this.#count > 0 && (this.#count >= this.maxEntries || this.#cost + cost > this.budgetBytes)
    ) {
      this.#forgetOldest();
    }
    if (this.#count === this.#hashes.length) this.#grow();
    const room = this.#hashes.length;
    const e = (this.#tail + this.#count) % room;
    this.#keys[e] = line;
    this.#frames[e] = frame;
    this.#hashes[e] = h;
    this.#costs[e] = cost;
    this.#count++;
    this.#cost += cost;
    this.#place(e, h);
  }

  /** The entry holding `line` (hash `h`), or -1. */
  #find(line: string, h: number): number {
    const table = this.#table;
    const mask = table.length - 1;
    for (let slot = h & mask;; slot = (slot + 1) & mask) {
      const v = table[slot];
      if (v === 0) return -1;
      if (this.#hashes[v - 1] === h && this.#keys[v - 1] === line) return v - 1;
    }
  }

  #place(e: number, h: number): void {
    const table = this.#table;
    const mask = table.length - 1;
    let slot = h & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = e + 1;
  }

  #forgetOldest(): void {
    const e = this.#tail;
    const table = this.#table;
    const mask = table.length - 1;
    let i = this.#hashes[e] & mask;
    while (table[i] !== e + 1) i = (i + 1) & mask;
    // Backward shift: later entries of the run move up into the hole their probe passes.
    table[i] = 0;
    for (let j = (i + 1) & mask; table[j] !== 0; j = (j + 1) & mask) {
      const home = this.#hashes[table[j] - 1] & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (between) continue;
      table[i] = table[j];
      table[j] = 0;
      i = j;
    }
    this.#cost -= this.#costs[e];
    this.#keys[e] = undefined;
    this.#frames[e] = undefined;
    this.#tail = (e + 1) % this.#hashes.length;
    this.#count--;
  }

  /** Twice the room (up to `maxEntries`), the entries moved to its start, the table made again. */
  #grow(): void {
    const old = this.#hashes.length;
    const room = Math.min(old * 2, this.maxEntries);
    const keys: (string | undefined)[] = [];
    const frames: (RememberedFrame | undefined)[] = [];
    const hashes = new Uint32Array(room);
    const costs = new Float64Array(room);
    for (let k = 0; k < this.#count; k++) {
      const e = (this.#tail + k) % old;
      keys.push(this.#keys[e]);
      frames.push(this.#frames[e]);
      hashes[k] = this.#hashes[e];
      costs[k] = this.#costs[e];
    }
    this.#keys = keys;
    this.#frames = frames;
    this.#hashes = hashes;
    this.#costs = costs;
    this.#tail = 0;
    this.#table = new Int32Array(tableSize(room));
    for (let k = 0; k < this.#count; k++) this.#place(k, hashes[k]);
  }
}

/** What a memo's own arrays cost at most with `maxEntries` (mapping_index's memoryBytes). */
export function memoTableBytes(maxEntries: number): number {
  return tableSize(maxEntries) * 4 + maxEntries * (4 + 8 + 16);
}

function tableSize(entries: number): number {
  let size = 16;
  while (size < entries * 2) size *= 2;
  return size;
}
