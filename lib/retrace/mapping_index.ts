/**
 * The compact index of one mapping file, held by the retrace worker (lib/retrace/retrace_service.ts):
 * the file's bytes as read (one byte per byte, never a JS string of the whole file), where each
 * class block starts (a `Uint32Array`, file order), two open-addressing hash tables from the
 * obfuscated and the original class name to the block (FNV-1a of the name's bytes, checked
 * against the class line, whose offsets are kept, on a hit), and the member and metadata lines of
 * every block (lib/retrace/member_lines.ts, 16 bytes a line). About 40 bytes per class and 16
 * per member line beside the file, so a cached mapping costs about 1.3× its size, plus one bounded
 * cache:
 * frames retraced before (lib/retrace/frame_memo.ts: `frameBudget`, an eighth of the file, and
 * its table): at most about 1.5× the file in all, within DESIGN.md's 4×. A class is read
 * from the bytes each time a frame names it, never kept (lib/retrace/class_bytes.ts).
 * `memoryBytes` is what all of it may cost at most, the figure lib/retrace/mapping_cache.ts
 * budgets with. Pure: takes the bytes, does no I/O.
 */
import { CLASS_LINE, type ClassMapping, lazyClassBlock } from "./mapping.ts";
import { classAt } from "./class_bytes.ts";
import { FrameMemo, memoTableBytes, type RememberedFrame } from "./frame_memo.ts";
import {
  hashBytes,
  type MemberLines,
  MemberLinesBuilder,
  memberLinesBytes,
} from "./member_lines.ts";
import { type MappingHeader, MAX_MAPPING_BYTES, readMappingHeader } from "./shared/mapping_file.ts";

/** Retraced frames remembered per mapping at most (a trace seen again costs lookups only). */
const MAX_REMEMBERED_FRAMES = 100_000;
/** What a remembered frame costs at least (frame_memo.ts's frameCost of a one-line frame). */
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

/** Bytes of remembered frames a mapping of `fileBytes` keeps at most: an eighth, 16 KiB–16 MiB. */
export function frameBudget(fileBytes: number): number {
  return clamp(Math.floor(fileBytes / 8), 16 * 1024, 16 * 1024 * 1024);
}

/**
 * The class tables' bytes for `classes` classes: start, two hashes, the class line's three
 * offsets, two tables of 2× slots.
 */
export function tableBytes(classes: number): number {
  return classes * 24 + 2 * tableSize(classes) * 4;
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

export class MappingIndex {
  readonly header: MappingHeader;
  /** The file's size in bytes. */
  readonly fileBytes: number;
  readonly #bytes: Uint8Array;
  /** Offset of each class line, file order. */
  readonly #starts: Uint32Array;
  readonly #obfHash: Uint32Array;
  readonly #origHash: Uint32Array;
  /** Slot → class number + 1 (0: empty). */
  readonly #obfTable: Int32Array;
  readonly #origTable: Int32Array;
  readonly #lines: MemberLines;
  /** Each class line's end, and where its obfuscated name starts and ends (its `:`). */
  readonly #lineEnds: Uint32Array;
  readonly #obfStarts: Uint32Array;
  readonly #obfEnds: Uint32Array;
  readonly #decoder = new TextDecoder("utf-8", { fatal: false });
  readonly #frames: FrameMemo;

  constructor(
    bytes: Uint8Array,
    header: MappingHeader,
    starts: Uint32Array,
    obf: Uint32Array,
    orig: Uint32Array,
    lines: MemberLines,
    classLines: { ends: Uint32Array; obfStarts: Uint32Array; obfEnds: Uint32Array },
  ) {
    this.#bytes = bytes;
    this.fileBytes = bytes.length;
    this.header = header;
    this.#starts = starts;
    this.#obfHash = obf;
    this.#origHash = orig;
    this.#obfTable = buildTable(obf);
    this.#origTable = buildTable(orig);
    this.#lines = lines;
    this.#lineEnds = classLines.ends;
    this.#obfStarts = classLines.obfStarts;
    this.#obfEnds = classLines.obfEnds;
    this.#frames = new FrameMemo(rememberedFrames(bytes.length), frameBudget(bytes.length));
  }

  /** Classes in the mapping. */
  get classCount(): number {
    return this.#starts.length;
  }

  /**
   * What this index may cost at most: the file, the tables, and both caches full. The mapping
   * cache budgets with it.
   */
  get memoryBytes(): number {
    return this.fileBytes + this.#starts.byteLength + this.#obfHash.byteLength +
      this.#lineEnds.byteLength + this.#obfStarts.byteLength + this.#obfEnds.byteLength +
      this.#origHash.byteLength + this.#obfTable.byteLength + this.#origTable.byteLength +
      memberLinesBytes(this.#lines) + this.#frames.budgetBytes +
      memoTableBytes(this.#frames.maxEntries) + INDEX_OVERHEAD_BYTES;
  }

  /** Estimated bytes the remembered frames hold now. */
  get cachedBytes(): { frames: number } {
    return { frames: this.#frames.costBytes };
  }

  /** The class whose obfuscated name is `name`, or `null`. */
  byObfuscated(name: string): ClassMapping | null {
    const k = this.#find(this.#obfTable, this.#obfHash, name, 2);
    return k < 0 ? null : this.#read(k, name, 2);
  }

  /** The class whose original name is `name`, or `null` (used for inlined frames' files). */
  byOriginal(name: string): ClassMapping | null {
    const k = this.#find(this.#origTable, this.#origHash, name, 1);
    return k < 0 ? null : this.#read(k, name, 1);
  }

  /** A frame line retraced before (see lib/retrace/retrace_text.ts), or `undefined`. */
  rememberedFrame(line: string): RememberedFrame | undefined {
    return this.#frames.get(line);
  }

  /** Remembers a frame's retrace; the oldest are forgotten past the count or byte bound. */
  rememberFrame(line: string, frame: RememberedFrame): void {
    this.#frames.set(line, frame);
  }

  /** The class number named `name` in the table (`group` 1: original, 2: obfuscated), or -1. */
  #find(table: Int32Array, hashes: Uint32Array, name: string, group: 1 | 2): number {
    const h = hashString(name);
    const mask = table.length - 1;
    for (let slot = h & mask;; slot = (slot + 1) & mask) {
      const entry = table[slot];
      if (entry === 0) return -1;
      const k = entry - 1;
      if (hashes[k] === h && this.#names(k, group, name)) return k;
    }
  }

  #end(k: number): number {
    return k + 1 < this.#starts.length ? this.#starts[k + 1] : this.#bytes.length;
  }

  /** Whether class `k`'s line names `name` (`group` 1: original, 2: obfuscated). */
  #names(k: number, group: 1 | 2, name: string): boolean {
    const start = this.#starts[k];
    const nl = this.#lineEnds[k];
    const from = group === 1 ? start : this.#obfStarts[k];
    const to = group === 1 ? this.#obfStarts[k] - 4 : this.#obfEnds[k];
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

  /**
   * Class `k`, found by its name `name` (`group` 1: original, 2: obfuscated), read from the
   * bytes each time: a class object kept for later traces was garbage the collector copied
   * again and again, and reading one again is a hash lookup and a few recorded lines.
   */
  #read(k: number, name: string, group: 1 | 2): ClassMapping {
    const bytes = this.#bytes;
    const start = this.#starts[k];
    const end = this.#end(k);
    // A class line that is not ASCII: its block decoded, its members read when a frame names one.
    const text = () => lazyClassBlock(this.#decoder.decode(bytes.subarray(start, end)));
    const nl = this.#lineEnds[k];
    const obf = this.#obfStarts[k];
    const at = [obf - 4, obf, this.#obfEnds[k]] as const;
    // #find checked the class line names `name`: that name is not decoded again.
    return classAt(bytes, start, end, nl, at, text, this.#lines, k, name, group) ?? text();
  }
}

function buildTable(hashes: Uint32Array): Int32Array {
  const table = new Int32Array(tableSize(hashes.length));
  const mask = table.length - 1;
  // In file order, so the first class of a (broken) mapping that repeats a name is found first.
  for (let k = 0; k < hashes.length; k++) {
    let slot = hashes[k] & mask;
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
  const starts = new U32List();
  const obf = new U32List();
  const orig = new U32List();
  const lines = new MemberLinesBuilder();
  const lineEnds = new U32List();
  const obfStarts = new U32List();
  const obfEnds = new U32List();
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
        starts.push(pos);
        orig.push(hashBytes(bytes, pos, at[0]));
        obf.push(hashBytes(bytes, at[1], at[2]));
        lineEnds.push(nl);
        obfStarts.push(at[1]);
        obfEnds.push(at[2]);
        lines.startClass();
        pos = nl + 1;
        continue;
      }
    }
    lines.line(bytes, pos, nl);
    pos = nl + 1;
  }
  const s = starts.done();
  const headEnd = Math.min(s.length > 0 ? s[0] : n, MAX_HEADER_BYTES);
  const header = readMappingHeader(new TextDecoder().decode(bytes.subarray(0, headEnd)));
  return new MappingIndex(bytes, header, s, obf.done(), orig.done(), lines.done(), {
    ends: lineEnds.done(),
    obfStarts: obfStarts.done(),
    obfEnds: obfEnds.done(),
  });
}
