/**
 * The compact index of one mapping file, held by the retrace worker (lib/retrace/retrace_service.ts):
 * the file's bytes as read (one byte per byte, never a JS string of the whole file), where each
 * class block starts (a `Uint32Array`, file order), two open-addressing hash tables from the
 * obfuscated and the original class name to the block (FNV-1a of the name's bytes, checked
 * against the class line, whose offsets are kept, on a hit), each class's source file, and the
 * member and metadata lines of every block with their minified ranges (lib/retrace/member_lines.ts,
 * 16 bytes a line), all read in one pass. About 40 bytes per class and 16
 * per member line beside the file, so a cached mapping costs about 1.3× its size, plus one bounded
 * cache:
 * frames retraced before (lib/retrace/frame_memo.ts: `frameBudget`, an eighth of the file, and
 * its table): at most about 1.5× the file in all, within DESIGN.md's 4×. A class is read
 * from the bytes each time a frame names it, never kept (lib/retrace/class_bytes.ts).
 * `memoryBytes` is what all of it may cost at most, the figure lib/retrace/mapping_cache.ts
 * budgets with. Pure: takes the bytes, does no I/O.
 */
import {
  CLASS_LINE,
  type ClassMapping,
  lazyClassBlock,
  metadataId,
  SYNTHETIC_SOURCE_FILE,
} from "./mapping.ts";
import { classAt } from "./class_bytes.ts";
import { FrameMemo, memoTableBytes } from "./frame_memo.ts";
import { lineText, SOURCE_FILE_HEAD, sourceFileEnd, SYNTHESIZED } from "./line_bytes.ts";
import {
  CLASS_META,
  hashBytes,
  KIND,
  KINDS,
  MemberLinesBuilder,
  plainAscii,
  RECORD,
  recordEnd,
  START,
} from "./member_lines.ts";
import { type MappingHeader, MAX_MAPPING_BYTES, readMappingHeader } from "./shared/mapping_file.ts";

/**
 * Numbers per class in the index's rows, and where each is: the block's start, the hashes of its
 * obfuscated and original names, its real source file (classSource), where its class line names
 * the obfuscated class, its first recorded line and past its last metadata line
 * (lib/retrace/member_lines.ts).
 */
export const ROW = 8;
export const ROW_START = 0;
const ROW_OBF_HASH = 1;
const ROW_ORIG_HASH = 2;
export const ROW_SOURCE = 3;
export const ROW_OBF_START = 4;
const ROW_OBF_END = 5;
export const ROW_FIRST = 6;
export const ROW_META_END = 7;
/**
 * Set in a row's ROW_META_END when its class line is not plain ASCII (lib/retrace/member_lines.ts's
 * plainAscii): the byte path leaves such a class to the object path without reading the line.
 */
export const CLASS_NOT_PLAIN = 0x80000000;
/** ROW_META_END without CLASS_NOT_PLAIN. */
const META_END_MASK = 0x7fffffff;
/** A ROW_SOURCE: the class has no real source file (none recorded, or R8's synthetic one). */
export const NO_SOURCE = 0;
/** A ROW_SOURCE: the file cannot be read in place (written another way, a class line not plain). */
export const SOURCE_UNKNOWN = 0xffff_ffff;

const SYNTHESIZED_LINE = new TextEncoder().encode(`# {"id":"${SYNTHESIZED}"}`);
const SYNTHETIC_FILE = new TextEncoder().encode(SYNTHETIC_SOURCE_FILE);

/** Whether `a[af, at)` holds the bytes of `b`. */
function holds(a: Uint8Array, af: number, at: number, b: Uint8Array): boolean {
  if (at - af !== b.length) return false;
  for (let k = 0; k < b.length; k++) if (a[af + k] !== b[k]) return false;
  return true;
}

/**
 * Class `k`'s ROW_SOURCE, read once when the mapping is indexed, as retrace_text.ts's
 * realSourceFile reads the class: the record + 1 of its last R8 `sourceFile` line (the file name
 * then in that line, sourceFileEnd), NO_SOURCE, or SOURCE_UNKNOWN.
 */
function classSource(bytes: Uint8Array, rec: Uint32Array, first: number, metaEnd: number): number {
  let found = NO_SOURCE;
  let from = 0;
  let to = 0;
  for (let r = first * RECORD; r < metaEnd * RECORD; r += RECORD) {
    if ((rec[r + KINDS] & KIND) !== CLASS_META) continue;
    const p = rec[r + START];
    const le = recordEnd(bytes, rec, r);
    const q = sourceFileEnd(bytes, p, le);
    if (q >= 0) {
      found = r / RECORD + 1;
      from = p + SOURCE_FILE_HEAD.length;
      to = q;
      continue;
    }
    if (holds(bytes, p, bytes[le - 1] === 13 ? le - 1 : le, SYNTHESIZED_LINE)) continue;
    const meta = metadataId(lineText(bytes, p, le));
    if (meta?.id === "sourceFile" && meta.fileName !== undefined) return SOURCE_UNKNOWN;
  }
  return found !== NO_SOURCE && holds(bytes, from, to, SYNTHETIC_FILE) ? NO_SOURCE : found;
}

/** Retraced frames remembered per mapping at most (a trace seen again costs lookups only). */
const MAX_REMEMBERED_FRAMES = 100_000;
/**
 * What a remembered frame costs at least, about (frame_memo.ts's frameCost of a one-line frame:
 * its 32 and a short line's bytes twice, as the line and as its retrace).
 */
const MIN_FRAME_COST = 100;

/** Frames a mapping of `fileBytes` remembers at most: its frame budget's worth, ≤ 100,000. */
export function rememberedFrames(fileBytes: number): number {
  return Math.min(MAX_REMEMBERED_FRAMES, Math.ceil(frameBudget(fileBytes) / MIN_FRAME_COST));
}
/** Header bytes decoded for the map id and hash at most. */
const MAX_HEADER_BYTES = 64 * 1024;

/** Fixed cost of one index (the object, its maps, the decoder), counted in `memoryBytes`. */
const INDEX_OVERHEAD_BYTES = 16 * 1024;

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), hi);
}

/**
 * What the remembered frames' segments may hold at most with a budget of `budget` (frame_memo.ts:
 * the kept ones within it, and a round's while it is sealed, at most the budget too): twice it.
 */
export function memoBytes(budget: number): number {
  return 2 * budget;
}

/** Bytes of remembered frames a mapping of `fileBytes` keeps at most: an eighth, 16 KiB–16 MiB. */
export function frameBudget(fileBytes: number): number {
  return clamp(Math.floor(fileBytes / 8), 16 * 1024, 16 * 1024 * 1024);
}

/**
 * The class tables' bytes for `classes` classes: a row of ROW numbers each (its start, two
 * hashes, the class line's offsets, its recorded lines), two tables of 2× slots.
 */
export function tableBytes(classes: number): number {
  return (classes + 1) * ROW * 4 + 2 * tableSize(classes) * 4;
}

function tableSize(classes: number): number {
  let size = 16;
  while (size < classes * 2) size *= 2;
  return size;
}

const encoder = new TextEncoder();

/** FNV-1a of `s`'s UTF-8 bytes (ASCII names, the usual case, without encoding them). */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      const b = encoder.encode(s);
      return hashBytes(b, 0, b.length);
    }
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** A growable `Uint32Array`. */
class U32List {
  data = new Uint32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The filled part, in an array of exactly that length (the spare capacity is dropped). */
  done(): Uint32Array {
    return this.data.slice(0, this.length);
  }
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

/**
 * Where the class line `bytes[p, e)` names its classes: `[origEnd, obfStart, obfEnd)` as offsets,
 * or `null` when it is no class line (`^(\S+) -> (\S+):\s*$`). Pure.
 */
function classLine(bytes: Uint8Array, p: number, e: number): [number, number, number] | null {
  let end = e;
  while (end > p && isSpace(bytes[end - 1])) end--;
  if (end - p < 6 || bytes[end - 1] !== 58) return null;
  let s = p;
  while (s < end && bytes[s] !== 32 && bytes[s] !== 9) s++;
  if (
    s === p || s + 4 >= end || bytes[s] !== 32 || bytes[s + 1] !== 45 || bytes[s + 2] !== 62 ||
    bytes[s + 3] !== 32
  ) return null;
  const obfStart = s + 4;
  const obfEnd = end - 1;
  if (obfEnd <= obfStart) return null;
  for (let i = obfStart; i < obfEnd; i++) if (isSpace(bytes[i])) return null;
  return [s, obfStart, obfEnd];
}

/** The index's arrays as they are: read in place by lib/retrace/frame_bytes.ts. */
export interface IndexView {
  /** The mapping file's bytes. */
  readonly bytes: Uint8Array;
  /** ROW numbers per class (ROW_START, ROW_SOURCE, …), and one row past the last class. */
  readonly rows: Uint32Array;
  /** The recorded member and metadata lines (lib/retrace/member_lines.ts's RECORD numbers each). */
  readonly records: Uint32Array;
}

export class MappingIndex {
  readonly header: MappingHeader;
  /** The file's size in bytes. */
  readonly fileBytes: number;
  readonly #bytes: Uint8Array;
  /**
   * ROW numbers per class, file order, and a last row past the last class (its ROW_START the file's
   * size, its ROW_FIRST the number of recorded lines): a class's numbers side by side, so finding and
   * reading one touches one run of memory, not one array per number.
   */
  readonly #rows: Uint32Array;
  /** Slot → class number + 1 (0: empty). */
  readonly #obfTable: Int32Array;
  readonly #origTable: Int32Array;
  /** The recorded member and metadata lines (lib/retrace/member_lines.ts). */
  readonly #records: Uint32Array;
  readonly #decoder = new TextDecoder("utf-8", { fatal: false });
  /**
   * The class `bytes[start, end)` read as decoded text (a class line or member that is not
   * plain ASCII): its members read when a frame names one. One function for every class.
   */
  readonly #decoded = (start: number, end: number): ClassMapping =>
    lazyClassBlock(this.#decoder.decode(this.#bytes.subarray(start, end)));
  readonly #frames: FrameMemo;
  /** What lib/retrace/frame_bytes.ts reads in place (never written). */
  readonly view: IndexView;

  constructor(bytes: Uint8Array, header: MappingHeader, rows: Uint32Array, records: Uint32Array) {
    this.#bytes = bytes;
    this.fileBytes = bytes.length;
    this.header = header;
    this.#rows = rows;
    this.#records = records;
    this.#obfTable = buildTable(rows, ROW_OBF_HASH);
    this.#origTable = buildTable(rows, ROW_ORIG_HASH);
    this.#frames = new FrameMemo(rememberedFrames(bytes.length), frameBudget(bytes.length));
    this.view = { bytes, rows, records };
  }

  /** Classes in the mapping. */
  get classCount(): number {
    return this.#rows.length / ROW - 1;
  }

  /**
   * What this index may cost at most: the file, the tables, and both caches full. The mapping
   * cache budgets with it.
   */
  get memoryBytes(): number {
    return this.fileBytes + this.#rows.byteLength + this.#obfTable.byteLength +
      this.#origTable.byteLength + this.#records.byteLength + memoBytes(this.#frames.budgetBytes) +
      memoTableBytes(this.#frames.maxEntries) + INDEX_OVERHEAD_BYTES;
  }

  /** Estimated bytes the remembered frames hold now. */
  get cachedBytes(): { frames: number } {
    return { frames: this.#frames.costBytes };
  }

  /** The class whose obfuscated name is `name`, or `null`. */
  byObfuscated(name: string): ClassMapping | null {
    const k = this.#find(this.#obfTable, ROW_OBF_HASH, name, 2);
    return k < 0 ? null : this.#read(k, name, 2);
  }

  /** The class whose original name is `name`, or `null` (used for inlined frames' files). */
  byOriginal(name: string): ClassMapping | null {
    const k = this.#find(this.#origTable, ROW_ORIG_HASH, name, 1);
    return k < 0 ? null : this.#read(k, name, 1);
  }

  /** The class whose obfuscated name is `b[from, to)` (UTF-8), its number, or -1. */
  obfuscatedClassAt(b: Uint8Array, from: number, to: number): number {
    return this.#findBytes(this.#obfTable, ROW_OBF_HASH, b, from, to, 2);
  }

  /** The class whose original name is `b[from, to)` (UTF-8), its number, or -1. */
  originalClassAt(b: Uint8Array, from: number, to: number): number {
    return this.#findBytes(this.#origTable, ROW_ORIG_HASH, b, from, to, 1);
  }

  /** Class `k` as a ClassMapping, read from the bytes (the object path of a frame). */
  classNumbered(k: number): ClassMapping {
    return this.#read(k, null, 2);
  }

  /**
   * The frames this mapping retraced before, as bytes (lib/retrace/frame_memo.ts): a trace seen
   * again costs a lookup and a copy per frame (lib/retrace/retrace_text.ts).
   */
  get frames(): FrameMemo {
    return this.#frames;
  }

  /** The class number named `name` in the table (`group` 1: original, 2: obfuscated), or -1. */
  #find(table: Int32Array, hash: number, name: string, group: 1 | 2): number {
    const h = hashString(name);
    const mask = table.length - 1;
    for (let slot = h & mask;; slot = (slot + 1) & mask) {
      const entry = table[slot];
      if (entry === 0) return -1;
      const k = entry - 1;
      if (this.#rows[k * ROW + hash] === h && this.#names(k, group, name)) return k;
    }
  }

  /** #find for the name `b[from, to)`, compared byte for byte with the class line's. */
  #findBytes(
    table: Int32Array,
    hash: number,
    b: Uint8Array,
    from: number,
    to: number,
    group: 1 | 2,
  ): number {
    const h = hashBytes(b, from, to);
    const mask = table.length - 1;
    const rows = this.#rows;
    const bytes = this.#bytes;
    for (let slot = h & mask;; slot = (slot + 1) & mask) {
      const entry = table[slot];
      if (entry === 0) return -1;
      const k = entry - 1;
      const row = k * ROW;
      if (rows[row + hash] !== h) continue;
      this.#touch(row);
      const at = group === 1 ? rows[row + ROW_START] : rows[row + ROW_OBF_START];
      const end = group === 1 ? rows[row + ROW_OBF_START] - 4 : rows[row + ROW_OBF_END];
      if (end - at !== to - from) continue;
      let same = true;
      for (let i = 0; i < to - from && same; i++) same = bytes[at + i] === b[from + i];
      if (same) return k;
    }
  }

  /**
   * Reads one byte of each of the cache lines a frame of the class at `row` reads next: its class
   * line's start, its first recorded line, and the line below the class line (R8 writes its
   * `sourceFile` there). Their misses, each ~170 ns in a mapping of 50 MB, then overlap instead
   * of coming one after the other. Changes nothing.
   */
  #touch(row: number): void {
    const rows = this.#rows;
    const bytes = this.#bytes;
    const records = this.#records;
    const record = Math.min(rows[row + ROW_FIRST] * RECORD, records.length - 1);
    touched ^= bytes[rows[row + ROW_START]] ^ (record >= 0 ? records[record] : 0) ^
      bytes[Math.min(rows[row + ROW_OBF_END] + 48, bytes.length - 1)];
  }

  /** Whether class `k`'s line names `name` (`group` 1: original, 2: obfuscated). */
  #names(k: number, group: 1 | 2, name: string): boolean {
    const row = k * ROW;
    const start = this.#rows[row + ROW_START];
    const nl = this.#lineEnd(k);
    const from = group === 1 ? start : this.#rows[row + ROW_OBF_START];
    const to = group === 1 ? this.#rows[row + ROW_OBF_START] - 4 : this.#rows[row + ROW_OBF_END];
    // ASCII names (the usual case) compare byte for byte; others as decoded text.
    if (to - from !== name.length) {
      return !isAscii(name) &&
        CLASS_LINE.exec(this.#decoder.decode(this.#bytes.subarray(start, nl)))?.[group] === name;
    }
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      if (c >= 0x80) {
        return CLASS_LINE.exec(this.#decoder.decode(this.#bytes.subarray(start, nl)))?.[group] ===
          name;
      }
      if (this.#bytes[from + i] !== c) return false;
    }
    return true;
  }

  /** Where class `k`'s line ends: its `\n` (or the file's end), after the obfuscated name. */
  #lineEnd(k: number): number {
    const nl = this.#bytes.indexOf(10, this.#rows[k * ROW + ROW_OBF_END]);
    return nl < 0 ? this.#bytes.length : nl;
  }

  /**
   * Class `k`, found by its name `name` (`group` 1: original, 2: obfuscated), read from the
   * bytes each time: a class object kept for later traces was garbage the collector copied
   * again and again, and reading one again is a hash lookup and a few recorded lines.
   */
  #read(k: number, name: string | null, group: 1 | 2): ClassMapping {
    const bytes = this.#bytes;
    const rows = this.#rows;
    const row = k * ROW;
    const start = rows[row + ROW_START];
    // The next row's start: the last class's is the file's end.
    const end = rows[row + ROW + ROW_START];
    const obf = rows[row + ROW_OBF_START];
    const at = [obf - 4, obf, rows[row + ROW_OBF_END]] as const;
    const lines = {
      records: this.#records,
      first: rows[row + ROW_FIRST],
      last: rows[row + ROW + ROW_FIRST],
      metaEnd: rows[row + ROW_META_END] & META_END_MASK,
    };
    // #find checked the class line names `name`: that name is not decoded again.
    return classAt(
      bytes,
      start,
      end,
      this.#lineEnd(k),
      at,
      this.#decoded,
      lines,
      name ?? undefined,
      group,
    ) ??
      this.#decoded(start, end);
  }
}

/** What #touch read (kept, so that the reads are not optimized away). */
let touched = 0;

/** The open-addressing table of the classes' hashes at `hash` in their rows. */
function buildTable(rows: Uint32Array, hash: number): Int32Array {
  const classes = rows.length / ROW - 1;
  const table = new Int32Array(tableSize(classes));
  const mask = table.length - 1;
  // In file order, so the first class of a (broken) mapping that repeats a name is found first.
  for (let k = 0; k < classes; k++) {
    let slot = rows[k * ROW + hash] & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = k + 1;
  }
  return table;
}

/** One pass over the mapping's bytes (or text): the header and where each class block is. Pure. */
export function indexMapping(input: Uint8Array | string): MappingIndex {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  if (bytes.length > MAX_MAPPING_BYTES) {
    throw new RangeError(
      `Cannot read the mapping: it has ${bytes.length} bytes, more than ${MAX_MAPPING_BYTES}`,
    );
  }
  const rows = new U32List();
  const lines = new MemberLinesBuilder();
  const n = bytes.length;
  let pos = 0;
  while (pos < n) {
    let nl = bytes.indexOf(10, pos);
    if (nl < 0) nl = n;
    const c = bytes[pos];
    // A class line starts with neither whitespace nor '#'.
    if (c !== 32 && c !== 9 && c !== 35 && c !== 13 && c !== 10) {
      const at = classLine(bytes, pos, nl);
      if (at) {
        // ROW_START, ROW_OBF_HASH, ROW_ORIG_HASH, ROW_SOURCE, ROW_OBF_START, ROW_OBF_END;
        // ROW_SOURCE, ROW_FIRST and ROW_META_END below (CLASS_NOT_PLAIN now).
        rows.push(pos);
        rows.push(hashBytes(bytes, at[1], at[2]));
        rows.push(hashBytes(bytes, pos, at[0]));
        rows.push(NO_SOURCE);
        rows.push(at[1]);
        rows.push(at[2]);
        rows.push(0);
        rows.push(plainAscii(bytes, pos, nl) ? 0 : CLASS_NOT_PLAIN);
        lines.startClass();
        pos = nl + 1;
        continue;
      }
    }
    lines.line(bytes, pos, nl);
    pos = nl + 1;
  }
  const member = lines.done();
  // The last row: past the last class.
  for (let k = 0; k < ROW; k++) rows.push(0);
  const r = rows.done();
  const classes = r.length / ROW - 1;
  for (let k = 0; k < classes; k++) {
    const row = k * ROW;
    r[row + ROW_FIRST] = member.first[k];
    r[row + ROW_SOURCE] = r[row + ROW_META_END] & CLASS_NOT_PLAIN
      ? SOURCE_UNKNOWN
      : classSource(bytes, member.records, member.first[k], member.metaEnd[k]);
    r[row + ROW_META_END] |= member.metaEnd[k];
  }
  r[classes * ROW + ROW_START] = n;
  r[classes * ROW + ROW_FIRST] = member.first[classes];
  const headEnd = Math.min(classes > 0 ? r[ROW_START] : n, MAX_HEADER_BYTES);
  const header = readMappingHeader(new TextDecoder().decode(bytes.subarray(0, headEnd)));
  return new MappingIndex(bytes, header, r, member.records);
}
