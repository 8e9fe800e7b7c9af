/**
 * The frame lines one mapping retraced before, and their retrace (lib/retrace/retrace_text.ts):
 * a trace seen again costs a lookup per frame. Kept as bytes, as the retrace reads and writes
 * them (the UTF-8 of a trace in, an output buffer out): a key and its value are copied into one
 * byte arena, so remembering a frame allocates no JS object or string, and a hit is copied out
 * of the arena as it stands.
 *
 * Entries sit in a ring in the order they came, the oldest forgotten first past `maxEntries` or
 * `budgetBytes`; an open-addressing table of their hashes (linear probing, removal by backward
 * shift, so no tombstones) finds them, a hash match then compared byte for byte. Not a `Map`:
 * on this machine a lookup or insertion in a Map of 30,000 strings costs 1–2.5 µs (its table and
 * keys are cold), and a new trace makes one of each per frame; here a miss is a probe of a
 * packed table (each slot holds its entry's hash beside it), and forgetting is O(1).
 *
 * The arena is a log in ring order too: each entry's key then value right after the newest
 * one's, and when they do not fit before the arena's end, at offset 0 (the log wraps), in the
 * room the oldest left. It grows (doubling, the live bytes copied to the new one's start) up to
 * `budgetBytes + widest` bytes, `widest` being the most key + value bytes of one entry kept so
 * far: within one entry of the budget, and below twice it (an entry costing more than the budget
 * is not kept). That size is the least this proof needs for a wrap never to forget an entry the
 * count and budget rule keeps (so what is kept is exactly the newest entries within both bounds):
 * once that rule has made room, the live bytes L and the new entry's n have L + n ≤ budget − 32.
 * - The log is [s, e) and e + n > C, the arena's size: then s = e − L > C − n − L ≥ widest + 32
 *   > n, so [0, n) is free.
 * - The log is [s, end) then [0, e): the entry at 0, of m ≤ widest bytes, wrapped because
 *   end + m > C, and it is live while [s, end) is; the room s − e = end − L > C − m − L ≥
 *   budget − L ≥ n + 32.
 * Below that size the arena grows instead of wrapping onto live bytes. Twice the budget would
 * also do, simply, but the caller counts the arena as the budget: this keeps it one entry off.
 * Pure.
 */

/** Entries a memo starts with room for (it doubles up to its maximum). */
const INITIAL_ENTRIES = 1024;
/** Arena bytes a memo starts with at most (it doubles up to its bound, see above). */
const INITIAL_ARENA = 64 * 1024;
/** Offsets are 32-bit: the arena's bound is cut here (a budget of 4 GiB is not expected). */
const ARENA_MAX = 0xffff_ffff;
/** What an entry counts as beside its bytes: its numbers and its table slots, roughly. */
const ENTRY_COST = 32;

// An entry's numbers in #fields, FIELDS apart: its key's offset in the arena, its value's
// (the key's end), the value's end, the key's hash, and the value's lines, omitted, ambiguous.
const KEY = 0;
const VALUE = 1;
const END = 2;
const HASH = 3;
const LINES = 4;
const OMITTED = 5;
const AMBIGUOUS = 6;
const FIELDS = 7;

/**
 * What remembering a key of `keyBytes` bytes with a value of `valueBytes` bytes counts as
 * against the budget: its bytes and ENTRY_COST for its numbers. Pure.
 */
export function frameCost(keyBytes: number, valueBytes: number): number {
  return ENTRY_COST + keyBytes + valueBytes;
}

/**
 * Frame lines (as bytes) → their retrace (as bytes, with its line count, whether it was
 * ambiguous, how many frames it left out), the newest kept within `maxEntries` entries and
 * `budgetBytes` of `frameCost`. An entry is a number valid until the next `set()`.
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
  #arena: Uint8Array;
  #tail = 0;
  #count = 0;
  #cost = 0;
  /** The newest entry's end in the arena: where the next goes if it fits (0 when empty). */
  #head = 0;
  /** While the log wraps, where its older part ends. */
  #wrapEnd = 0;
  /** The most key + value bytes of one entry kept so far (the arena's bound is budget + it). */
  #widest = 0;

  constructor(maxEntries: number, budgetBytes: number) {
    this.maxEntries = Math.max(1, Math.floor(maxEntries));
    this.budgetBytes = budgetBytes;
    this.#room = Math.min(INITIAL_ENTRIES, this.maxEntries);
    this.#fields = new Uint32Array(this.#room * FIELDS);
    const slots = tableSlots(this.#room);
    this.#table = new Int32Array(slots * 2);
    this.#mask = slots - 1;
    this.#arena = new Uint8Array(Math.max(0, Math.min(INITIAL_ARENA, Math.ceil(budgetBytes))));
  }

  /** Entries kept. */
  get size(): number {
    return this.#count;
  }

  /** The sum of `frameCost` of the entries kept. */
  get costBytes(): number {
    return this.#cost;
  }

  /** The bytes of the memo's own arrays now: its table, its entries' numbers and the arena. */
  get tableBytes(): number {
    return this.#table.byteLength + this.#fields.byteLength + this.#arena.byteLength;
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
      if (f[at + VALUE] - key === len && same(this.#arena, key, bytes, from, len)) return v - 1;
    }
  }

  /** The arena, where entries' values are read; another array after a `set()` may grow it. */
  get arena(): Uint8Array {
    return this.#arena;
  }

  /** Entry `e`'s value's offset in `arena`. */
  valueStart(e: number): number {
    return this.#fields[e * FIELDS + VALUE];
  }

  /** Where entry `e`'s value ends in `arena`. */
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
   * Remembers key bytes[kFrom,kTo) (hash h) → value value[vFrom,vTo) with its lineCount,
   * ambiguous, omitted; the oldest are forgotten until it fits; not kept when
   * frameCost > budgetBytes or the key is already kept. `bytes` and `value` may be the same
   * array (distinct ranges) but never the arena itself.
   */
  set(
    bytes: Uint8Array,
    kFrom: number,
    kTo: number,
    h: number,
    value: Uint8Array,
    vFrom: number,
    vTo: number,
    lineCount: number,
    ambiguous: boolean,
    omitted: number,
  ): void {
    const keyLen = kTo - kFrom;
    const n = keyLen + vTo - vFrom;
    const cost = frameCost(keyLen, vTo - vFrom);
    if (cost > this.budgetBytes) return;
    if (this.find(bytes, kFrom, kTo, h) >= 0) return;
    while (
      this.#count > 0 && (this.#count >= this.maxEntries || this.#cost + cost > this.budgetBytes)
    ) {
      this.#forgetOldest();
    }
    if (this.#count === this.#room) this.#growRoom();
    if (n > this.#widest) this.#widest = n;
    const at = this.#place(n);
    // Byte loops, not set(subarray): a subarray is an object, and frames are short.
    const arena = this.#arena;
    for (let i = 0; i < keyLen; i++) arena[at + i] = bytes[kFrom + i];
    for (let i = vFrom, j = at + keyLen; i < vTo; i++, j++) arena[j] = value[i];
    const e = (this.#tail + this.#count) % this.#room;
    const f = this.#fields;
    const base = e * FIELDS;
    f[base + KEY] = at;
    f[base + VALUE] = at + keyLen;
    f[base + END] = at + n;
    f[base + HASH] = h;
    f[base + LINES] = lineCount;
    f[base + OMITTED] = omitted;
    f[base + AMBIGUOUS] = ambiguous ? 1 : 0;
    this.#head = at + n;
    this.#count++;
    this.#cost += cost;
    this.#index(e, h);
  }

  /**
   * Where the new entry's `n` bytes go: after the newest, else at 0 (the wrap) if the oldest
   * left room there, else in a larger arena. At the arena's bound they always fit (the proof
   * atop); forgetting the oldest instead is left only for a bound cut by ARENA_MAX.
   */
  #place(n: number): number {
    for (;;) {
      const s = this.#count > 0 ? this.#fields[this.#tail * FIELDS + KEY] : 0;
      const e = this.#head;
      if (e >= s) {
        // The log is [s, e): after it, or before it (strictly, so a wrapped log has e < s).
        if (e + n <= this.#arena.length) return e;
        if (n < s) {
          this.#wrapEnd = e;
          return 0;
        }
      } else if (e + n < s) return e;
      if (this.#arena.length < this.#arenaBound()) this.#growArena(n);
      else if (this.#count > 0) this.#forgetOldest();
      else throw new RangeError(`FrameMemo: ${n} bytes exceed its arena's bound`);
    }
  }

  /** The arena's size at most: budgetBytes + #widest (see the module comment), ≤ ARENA_MAX. */
  #arenaBound(): number {
    return Math.min(ARENA_MAX, Math.ceil(this.budgetBytes + this.#widest));
  }

  /**
   * A larger arena, twice the size (or the live bytes and `n` if more, or the bound if less),
   * the live bytes moved to its start in order: the older part of a wrapped log, then the rest.
   */
  #growArena(n: number): void {
    const live = this.#cost - ENTRY_COST * this.#count;
    const size = Math.min(this.#arenaBound(), Math.max(this.#arena.length * 2, live + n));
    const next = new Uint8Array(size);
    const old = this.#arena;
    const f = this.#fields;
    const s = this.#count > 0 ? f[this.#tail * FIELDS + KEY] : 0;
    const e = this.#head;
    const olderEnd = e >= s ? e : this.#wrapEnd;
    next.set(old.subarray(s, olderEnd), 0);
    if (e < s) next.set(old.subarray(0, e), olderEnd - s);
    for (let k = 0; k < this.#count; k++) {
      const at = ((this.#tail + k) % this.#room) * FIELDS;
      // Of a wrapped log, the entries at or past s are the older part; those before it follow.
      const shift = f[at + KEY] >= s ? -s : olderEnd - s;
      f[at + KEY] += shift;
      f[at + VALUE] += shift;
      f[at + END] += shift;
    }
    this.#arena = next;
    this.#head = live;
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
    this.#cost -= ENTRY_COST + f[base + END] - f[base + KEY];
    this.#tail = (e + 1) % this.#room;
    // Empty, the log starts again at 0.
    if (--this.#count === 0) this.#head = 0;
  }
}

/** Whether a[from, from + len) and b[bFrom, bFrom + len) hold the same bytes. */
function same(a: Uint8Array, from: number, b: Uint8Array, bFrom: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[from + i] !== b[bFrom + i]) return false;
  return true;
}

/**
 * What a memo's own arrays cost at most with `maxEntries` entries (the arena NOT included: the
 * caller counts it apart, as the budget; it is at most budgetBytes + the widest entry's bytes,
 * see the module comment). For mapping_index's memoryBytes.
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
