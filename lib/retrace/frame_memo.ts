/**
 * The frame lines one mapping retraced before, and their retrace (lib/retrace/retrace_text.ts):
 * a trace seen again costs a lookup per frame. Kept as bytes, as the retrace reads and writes
 * them (the UTF-8 of a trace in, an output buffer out), so remembering a frame allocates no JS
 * object or string, and a hit is copied out as it stands.
 *
 * A retrace is one round: `begin(keys, values)` names the trace's bytes and its output, `add()`
 * remembers a frame by its offsets in them (nothing is copied), and `seal()` copies each run of
 * frames adjacent in both, their lines and then their retrace, into one new segment (two copies
 * per run, not two per frame: a frame's ~150 bytes written one by one into a ring of megabytes
 * that had left the cache cost ~1 µs a frame, a quarter of a new trace). A frame added in the
 * round is found in it too, its bytes read where they are.
 *
 * Entries sit in a ring in the order they came, the oldest forgotten first past `maxEntries` or
 * `budgetBytes`; a segment is let go with its last entry. An open-addressing table of their
 * hashes (linear probing, removal by backward shift, so no tombstones) finds them, a hash match
 * then compared byte for byte. Not a `Map`: on this machine a lookup or insertion in a Map of
 * 30,000 strings costs 1–2.5 µs (its table and keys are cold), and a new trace makes one of each
 * per frame; here a miss is a probe of a packed table (each slot holds its entry's hash beside
 * it), and forgetting is O(1).
 *
 * The budget counts each entry's frameCost (its numbers, its line's and its retrace's bytes) and,
 * of a segment, the line ends between the frames of a run: kept segments are within it. A
 * round's segment is at most the budget (an add that would make it larger is declined), so while
 * it is sealed the segments hold at most twice the budget; one let go is the collector's. Pure.
 */

/** Entries a memo starts with room for (it doubles up to its maximum). */
const INITIAL_ENTRIES = 1024;
/** What an entry counts as beside its bytes: its numbers and its table slots, roughly. */
const ENTRY_COST = 32;

// An entry's numbers in #fields, FIELDS apart: its segment (ROUND + its run while its round is
// open), its key's offset there and its end, its value's and the value's end, the key's hash,
// and the value's lines, omitted, ambiguous.
const SEGMENT = 0;
const KEY = 1;
const KEY_END = 2;
const VALUE = 3;
const END = 4;
const HASH = 5;
const LINES = 6;
const OMITTED = 7;
const AMBIGUOUS = 8;
const FIELDS = 9;
/** The SEGMENT of an entry of the open round (plus its run): its bytes are the round's own. */
const ROUND = 0x8000_0000;
/**
 * Bytes between two frames of the round that still leave them in one run (a line end, `\r\n`):
 * a run is copied as one span, and what it spans besides its frames is counted in the budget.
 */
const RUN_GAP = 2;
/** Numbers per run in #runs: its keys' span and its values'. */
const RUN = 4;

/**
 * What remembering a key of `keyBytes` bytes with a value of `valueBytes` bytes counts as
 * against the budget: its bytes and ENTRY_COST for its numbers. Pure.
 */
export function frameCost(keyBytes: number, valueBytes: number): number {
  return ENTRY_COST + keyBytes + valueBytes;
}

/** Where a round's values are written: read again at `seal()` (it may have grown meanwhile). */
interface RoundValues {
  readonly bytes: Uint8Array;
}

/**
 * Frame lines (as bytes) → their retrace (as bytes, with its line count, whether it was
 * ambiguous, how many frames it left out), the newest kept within `maxEntries` entries and
 * `budgetBytes`. An entry is a number valid until the next `add()` or `seal()`.
 */
export class FrameMemo {
  readonly maxEntries: number;
  readonly budgetBytes: number;
  /** FIELDS numbers per entry, `#room` entries: a ring from `#tail`, `#count` long. */
  #fields: Uint32Array;
  #room: number;
  /** Slot pairs: entry + 1 (0: empty) and its key's hash; twice the room's slots, a power of 2. */
  #table: Int32Array;
  #mask: number;
  #tail = 0;
  #count = 0;
  /**
   * Sealed segments, oldest first: segment `#base + i` is `#segments[i]`, those before `#head`
   * let go (null), the array cut when they are half of it.
   */
  #segments: (Uint8Array | null)[] = [];
  /** How many entries of each of `#segments` are still kept. */
  #segmentEntries: number[] = [];
  #base = 0;
  #head = 0;
  /** The sealed segments' bytes and ENTRY_COST per entry (the round's counted when sealed). */
  #cost = 0;
  /** The open round: its keys' and values' arrays, and how many entries it added. */
  #keys: Uint8Array | null = null;
  #values: RoundValues | null = null;
  #roundEntries = 0;
  /** The round's runs of frames adjacent in both arrays: RUN numbers each, `#runCount` of them. */
  #runs = new Uint32Array(64 * RUN);
  #runCount = 0;
  /** The bytes the round's runs span. */
  #runBytes = 0;

  constructor(maxEntries: number, budgetBytes: number) {
    this.maxEntries = Math.max(1, Math.floor(maxEntries));
    this.budgetBytes = budgetBytes;
    this.#room = Math.min(INITIAL_ENTRIES, this.maxEntries);
    this.#fields = new Uint32Array(this.#room * FIELDS);
    const slots = tableSlots(this.#room);
    this.#table = new Int32Array(slots * 2);
    this.#mask = slots - 1;
  }

  /** Entries kept (the open round's included). */
  get size(): number {
    return this.#count;
  }

  /** What the sealed entries count as against the budget (the open round's when it is sealed). */
  get costBytes(): number {
    return this.#cost;
  }

  /** The bytes of the memo's own arrays now: its table, its entries' numbers and its segments. */
  get tableBytes(): number {
    let segments = 0;
    for (const s of this.#segments) segments += s?.byteLength ?? 0;
    return this.#table.byteLength + this.#fields.byteLength + segments;
  }

  /**
   * Opens a round: the frames added until `seal()` are the lines of `keys` and their retrace in
   * `values.bytes`. A round still open is sealed first.
   */
  begin(keys: Uint8Array, values: RoundValues): void {
    if (this.#keys) this.seal();
    this.#keys = keys;
    this.#values = values;
    this.#roundEntries = 0;
    this.#runCount = 0;
    this.#runBytes = 0;
  }

  /**
   * Closes the round: what its entries span is copied into a new segment, and the oldest
   * entries are forgotten until the kept ones are within the budget again.
   */
  seal(): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#keys = null;
    this.#values = null;
    if (!keys || !values || this.#roundEntries === 0) return;
    const segment = new Uint8Array(this.#runBytes);
    const runs = this.#runs;
    // Each run's keys then its values, run after run; each run's shift kept in place of its
    // spans' starts (what an offset of the round's arrays adds to be one of the segment).
    for (let r = 0, at = 0; r < this.#runCount * RUN; r += RUN) {
      const keyFrom = runs[r];
      const keyBytes = runs[r + 1] - keyFrom;
      const valueFrom = runs[r + 2];
      segment.set(keys.subarray(keyFrom, keyFrom + keyBytes), at);
      segment.set(values.bytes.subarray(valueFrom, runs[r + 3]), at + keyBytes);
      runs[r] = at - keyFrom;
      runs[r + 2] = at + keyBytes - valueFrom;
      at += keyBytes + runs[r + 3] - valueFrom;
    }
    const id = this.#base + this.#segments.length;
    const f = this.#fields;
    const n = this.#roundEntries;
    // The round's entries are the newest n of the ring.
    for (let k = this.#count - n; k < this.#count; k++) {
      const at = ((this.#tail + k) % this.#room) * FIELDS;
      const r = (f[at + SEGMENT] - ROUND) * RUN;
      // Shifts are small negatives as well: Uint32 arithmetic wraps them right.
      f[at + SEGMENT] = id;
      f[at + KEY] += runs[r];
      f[at + KEY_END] += runs[r];
      f[at + VALUE] += runs[r + 2];
      f[at + END] += runs[r + 2];
    }
    this.#segments.push(segment);
    this.#segmentEntries.push(n);
    this.#cost += segment.byteLength + ENTRY_COST * n;
    this.#roundEntries = 0;
    this.#runCount = 0;
    this.#runBytes = 0;
    while (this.#cost > this.budgetBytes && this.#count > 0) this.#forgetOldest();
  }

  /** The entry whose key is bytes[from, to) (its hash `h`: member_lines.ts's hashBytes of them), or -1. */
  find(bytes: Uint8Array, from: number, to: number, h: number): number {
    const table = this.#table;
    const mask = this.#mask;
    const f = this.#fields;
    const hash = h | 0;
    const len = to - from;
    for (let slot = h & mask;; slot = (slot + 1) & mask) {
      const v = table[2 * slot];
      if (v === 0) return -1;
      if (table[2 * slot + 1] !== hash) continue;
      const at = (v - 1) * FIELDS;
      const key = f[at + KEY];
      if (f[at + KEY_END] - key !== len) continue;
      const segment = f[at + SEGMENT];
      const held = segment >= ROUND ? this.#keys! : this.#segments[segment - this.#base]!;
      if (same(held, key, bytes, from, len)) return v - 1;
    }
  }

  /** The array entry `e`'s value is in (a segment, or the open round's values). */
  valueBytes(e: number): Uint8Array {
    const segment = this.#fields[e * FIELDS + SEGMENT];
    return segment >= ROUND ? this.#values!.bytes : this.#segments[segment - this.#base]!;
  }

  /** Entry `e`'s value's offset in `valueBytes(e)`. */
  valueStart(e: number): number {
    return this.#fields[e * FIELDS + VALUE];
  }

  /** Where entry `e`'s value ends in `valueBytes(e)`. */
  valueEnd(e: number): number {
    return this.#fields[e * FIELDS + END];
  }

  /** The output lines entry `e`'s value holds (0 when it is empty). */
  lineCount(e: number): number {
    return this.#fields[e * FIELDS + LINES];
  }

  /** Whether entry `e`'s frame was retraced ambiguously. */
  ambiguous(e: number): boolean {
    return this.#fields[e * FIELDS + AMBIGUOUS] !== 0;
  }

  /** Frames entry `e`'s retrace left out (past MAX_LINES_PER_FRAME of retrace_text.ts). */
  omitted(e: number): number {
    return this.#fields[e * FIELDS + OMITTED];
  }

  /**
   * Remembers the round's key keys[kFrom, kTo) (hash h, which find() did not find) → its value
   * values.bytes[vFrom, vTo) with its lineCount, ambiguous, omitted. Keys and values come in the
   * order they are in their arrays (each after the last one's start). Declined when no round is
   * open, when the round's segment would pass the budget, or when the count is full of the
   * round's own entries; the oldest sealed entry is forgotten when the count is full.
   */
  add(
    kFrom: number,
    kTo: number,
    h: number,
    vFrom: number,
    vTo: number,
    lineCount: number,
    ambiguous: boolean,
    omitted: number,
  ): void {
    if (!this.#keys || vTo < vFrom) return;
    // The frame joins the last run when it follows it in both arrays, else starts one.
    const runs = this.#runs;
    const last = (this.#runCount - 1) * RUN;
    const joins = last >= 0 && kFrom >= runs[last + 1] && kFrom - runs[last + 1] <= RUN_GAP &&
      vFrom >= runs[last + 3] && vFrom - runs[last + 3] <= RUN_GAP;
    const grows = joins
      ? (kTo - runs[last + 1]) + (vTo - runs[last + 3])
      : (kTo - kFrom) + (vTo - vFrom);
    const bytes = this.#runBytes + grows;
    if (bytes + ENTRY_COST * (this.#roundEntries + 1) > this.budgetBytes) return;
    if (this.#count >= this.maxEntries) {
      if (this.#count === this.#roundEntries) return;
      this.#forgetOldest();
    }
    if (this.#count === this.#room) this.#growRoom();
    const e = (this.#tail + this.#count) % this.#room;
    const f = this.#fields;
    const base = e * FIELDS;
    if (!joins) this.#newRun(kFrom, vFrom);
    const run = (this.#runCount - 1) * RUN;
    this.#runs[run + 1] = kTo;
    this.#runs[run + 3] = vTo;
    this.#runBytes = bytes;
    f[base + SEGMENT] = ROUND + this.#runCount - 1;
    f[base + KEY] = kFrom;
    f[base + KEY_END] = kTo;
    f[base + VALUE] = vFrom;
    f[base + END] = vTo;
    f[base + HASH] = h;
    f[base + LINES] = lineCount;
    f[base + OMITTED] = omitted;
    f[base + AMBIGUOUS] = ambiguous ? 1 : 0;
    this.#count++;
    this.#roundEntries++;
    this.#index(e, h);
  }

  /** A new run of the round, from `kFrom` and `vFrom`. */
  #newRun(kFrom: number, vFrom: number): void {
    if ((this.#runCount + 1) * RUN > this.#runs.length) {
      const next = new Uint32Array(this.#runs.length * 2);
      next.set(this.#runs);
      this.#runs = next;
    }
    const at = this.#runCount++ * RUN;
    this.#runs[at] = this.#runs[at + 1] = kFrom;
    this.#runs[at + 2] = this.#runs[at + 3] = vFrom;
  }

  /** Twice the room (up to `maxEntries`) for a full ring, its entries moved to its start. */
  #growRoom(): void {
    const old = this.#room;
    const room = Math.min(old * 2, this.maxEntries);
    const f = this.#fields;
    const next = new Uint32Array(room * FIELDS);
    const tail = this.#tail * FIELDS;
    next.set(f.subarray(tail, old * FIELDS), 0);
    next.set(f.subarray(0, tail), old * FIELDS - tail);
    this.#fields = next;
    this.#room = room;
    this.#tail = 0;
    const slots = tableSlots(room);
    this.#table = new Int32Array(slots * 2);
    this.#mask = slots - 1;
    for (let e = 0; e < this.#count; e++) this.#index(e, next[e * FIELDS + HASH]);
  }

  /** Puts entry `e` (its key's hash `h`) in the first free slot from its home. */
  #index(e: number, h: number): void {
    const table = this.#table;
    const mask = this.#mask;
    let slot = h & mask;
    while (table[2 * slot] !== 0) slot = (slot + 1) & mask;
    table[2 * slot] = e + 1;
    table[2 * slot + 1] = h;
  }

  /** Forgets the oldest entry (a sealed one), and its segment with its last entry. */
  #forgetOldest(): void {
    const e = this.#tail;
    const base = e * FIELDS;
    const f = this.#fields;
    const table = this.#table;
    const mask = this.#mask;
    let i = f[base + HASH] & mask;
    while (table[2 * i] !== e + 1) i = (i + 1) & mask;
    // Backward shift: later entries of the run move up into the hole their probe passes.
    table[2 * i] = 0;
    for (let j = (i + 1) & mask; table[2 * j] !== 0; j = (j + 1) & mask) {
      const home = table[2 * j + 1] & mask;
      const between = i <= j ? i < home && home <= j : i < home || home <= j;
      if (between) continue;
      table[2 * i] = table[2 * j];
      table[2 * i + 1] = table[2 * j + 1];
      table[2 * j] = 0;
      i = j;
    }
    this.#cost -= ENTRY_COST;
    // The oldest entry is of the oldest segment: entries and segments are in the same order.
    const head = this.#head;
    if (--this.#segmentEntries[head] === 0) {
      this.#cost -= this.#segments[head]!.byteLength;
      this.#segments[head] = null;
      if (++this.#head >= 1024 && 2 * this.#head >= this.#segments.length) {
        this.#segments.splice(0, this.#head);
        this.#segmentEntries.splice(0, this.#head);
        this.#base += this.#head;
        this.#head = 0;
      }
    }
    this.#tail = (e + 1) % this.#room;
    this.#count--;
  }
}

/** Whether a[from, from + len) and b[bFrom, bFrom + len) hold the same bytes. */
function same(a: Uint8Array, from: number, b: Uint8Array, bFrom: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[from + i] !== b[bFrom + i]) return false;
  return true;
}

/**
 * What a memo's own arrays cost at most with `maxEntries` entries (its segments NOT included:
 * the caller counts them apart, as twice the budget, see the module comment). For
 * mapping_index's memoryBytes.
 */
export function memoTableBytes(maxEntries: number): number {
  const entries = Math.max(1, Math.floor(maxEntries));
  return tableSlots(entries) * 8 + entries * FIELDS * 4;
}

/** Table slots for `entries`: a power of two, at least twice them (so probes stay short). */
function tableSlots(entries: number): number {
  let size = 16;
  while (size < entries * 2) size *= 2;
  return size;
}
