/**
 * The lines of a mapping's class blocks a lookup reads, found once while the mapping is indexed
 * (lib/retrace/mapping_index.ts): every line with ` -> ` (a member, or what may read as one),
 * with the FNV-1a hash of the name after its last arrow and its minified range, and every `#`
 * line with `"id"` (JSON metadata), each as its offset, length and kind. A lookup of one
 * obfuscated method name for a frame's line (lib/retrace/frame_bytes.ts, class_bytes.ts) then
 * reads only the lines whose hash is that name's and whose range holds the line, and a class's
 * `sourceFile` without walking its block: walking every ~1.4 KB block a new trace names was most
 * of that trace's time (its bytes are cold in a mapping of 50 MB). 16 bytes per recorded line,
 * 4 per class. Pure.
 */

/** A line with ` -> `: a member line, or one that only a member lookup can tell is not. */
export const MEMBER = 0;
/** An indented `#` line with `"id"`: metadata about the member line above it. */
export const MEMBER_META = 1;
/** An unindented `#` line with `"id"`: metadata about the class. */
export const CLASS_META = 2;
/** The kind's bits. */
export const KIND = 3;
/** An unrecorded line that is not blank comes before this one (it ends an inline chain). */
export const AFTER_OTHER = 4;
/**
 * The line is not plain ASCII (a byte over 0x7f, or a control byte but tab and CR): a lookup
 * reads the class as decoded text instead.
 */
export const NOT_ASCII = 8;

/** The recorded lines of every class, in file order. */
interface MemberLines {
  /**
   * `RECORD` numbers per recorded line, one line's next to each other (a lookup reads a class's
   * lines in a row, so they share cache lines): at `START` its offset, at `RANGE` a MEMBER line's
   * minified range packed (packRange; NO_RANGE for others), at `HASH` the FNV-1a of a MEMBER
   * line's name after its last ` -> ` (trimmed; 0 for others), at `KINDS` its kind and flags in
   * the low 4 bits and its length above them (recordEnd).
   */
  records: Uint32Array;
  /** Class k's recorded lines are `[first[k], first[k + 1])`. */
  first: Uint32Array;
  /** Past class k's last CLASS_META line (`first[k]`: it has none): its metadata is before. */
  metaEnd: Uint32Array;
}

/** Numbers per recorded line in `records`, and where each is. */
export const RECORD = 4;
export const START = 0;
export const RANGE = 1;
export const HASH = 2;
export const KINDS = 3;

/** Where a line's length starts in its KINDS number. */
const LENGTH_SHIFT = 4;
/** The length of a line of 2^28 − 1 bytes or more: its end is looked for (recordEnd). */
const LONG_LINE = 0x0fff_ffff;

/**
 * A line's minified range `a:b:` as one number, `a` in the high 16 bits: a lookup tells whether
 * it holds a frame's line without reading the line (mayHold). A line without a range, or whose
 * `a:` is not followed by `b:` (no method line), never holds; a range past 65,534 is read from
 * the line (line_bytes.ts's rangeHolds).
 */
const NO_RANGE = 0xffff_0000;
/** The range is past what 16 bits hold: read it from the line. */
export const READ_RANGE = 0xffff_ffff;
const MAX_PACKED_LINE = 0xfffe;

/** Where record `r` of `rec` ends in `bytes`: its `\n`, or the file's end. */
export function recordEnd(bytes: Uint8Array, rec: Uint32Array, r: number): number {
  const at = rec[r + START];
  const n = rec[r + KINDS] >>> LENGTH_SHIFT;
  if (n !== LONG_LINE) return at + n;
  const nl = bytes.indexOf(10, at);
  return nl < 0 ? bytes.length : nl;
}

/**
 * Whether the packed range `range` may hold `line`: false when it cannot, true when it does or
 * is READ_RANGE (the caller then reads the line).
 */
export function mayHold(range: number, line: number): boolean {
  return range === READ_RANGE || ((range >>> 16) <= line && line <= (range & 0xffff));
}

/**
 * The decimal digits at `i` in `bytes[i, e)` into `num` (value, end), as mapping.ts's
 * readNumber reads them; whether there was one. Shared with lib/retrace/line_bytes.ts.
 */
export function digitsAt(bytes: Uint8Array, i: number, e: number): boolean {
  let j = i;
  let v = 0;
  while (j < e) {
    const c = bytes[j];
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    j++;
  }
  num[0] = v;
  num[1] = j;
  return j !== i;
}

/** What digitsAt read last: the number, and where its digits end. */
export const num = new Float64Array(2);

/**
 * The range the member line `bytes[i, e)` (past its indentation, `\r` dropped) starts with,
 * packed, as line_bytes.ts's rangeHolds reads it.
 */
function packRange(bytes: Uint8Array, i: number, e: number): number {
  if (!digitsAt(bytes, i, e) || bytes[num[1]] !== 58) return NO_RANGE;
  const a = num[0];
  if (!digitsAt(bytes, num[1] + 1, e) || bytes[num[1]] !== 58) return NO_RANGE;
  const b = num[0];
  if (a > MAX_PACKED_LINE || b > MAX_PACKED_LINE) return READ_RANGE;
  return ((a << 16) | b) >>> 0;
}

/** Bytes one recorded line costs in the index. */
export const BYTES_PER_LINE = 16;

/** A growable typed array of `make`'s kind. */
class Growable<T extends Uint32Array | Uint8Array> {
  data: T;
  length = 0;
  constructor(readonly make: (n: number) => T) {
    this.data = make(1024);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The filled part, exactly that long (the spare capacity dropped). */
  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** FNV-1a (32 bits) of `bytes[from, to)`. Pure. */
export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

/** Where the last ` -> ` of `bytes[from, to)` starts, or -1. */
export function lastArrow(bytes: Uint8Array, from: number, to: number): number {
  for (let k = to - 4; k >= from; k--) {
    if (bytes[k] === 32 && bytes[k + 1] === 45 && bytes[k + 2] === 62 && bytes[k + 3] === 32) {
      return k;
    }
  }
  return -1;
}

/** Whether `bytes[from, to)` is ASCII with no control byte but tabs and line ends. Pure. */
export function plainAscii(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = bytes[i];
    if (c >= 0x80 || (c < 32 && c !== 9 && c !== 10 && c !== 13)) return false;
  }
  return true;
}

/** Whether `bytes[from, to)` holds `"id"`. */
function hasId(bytes: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k + 4 <= to; k++) {
    if (bytes[k] === 34 && bytes[k + 1] === 105 && bytes[k + 2] === 100 && bytes[k + 3] === 34) {
      return true;
    }
  }
  return false;
}

/** Collects the recorded lines while lib/retrace/mapping_index.ts walks the mapping once. */
export class MemberLinesBuilder {
  readonly #records = new Growable((n) => new Uint32Array(n));
  readonly #first = new Growable((n) => new Uint32Array(n));
  readonly #metaEnd = new Growable((n) => new Uint32Array(n));
  #afterOther = false;
  #inClass = false;

  /** A class line: the lines after it are its own. */
  startClass(): void {
    this.#first.push(this.#records.length / RECORD);
    this.#metaEnd.push(this.#records.length / RECORD);
    this.#afterOther = false;
    this.#inClass = true;
  }

  /** The line `bytes[pos, nl)` that is no class line. */
  line(bytes: Uint8Array, pos: number, nl: number): void {
    if (!this.#inClass) return;
    let i = pos;
    while (i < nl && (bytes[i] === 32 || bytes[i] === 9)) i++;
    // Blank (a lone `\r` too): changes nothing, as for the member lookups.
    if (i === nl || (i === nl - 1 && bytes[i] === 13)) return;
    if (bytes[i] === 35) {
      if (!hasId(bytes, i, nl)) return;
      this.#record(pos, nl, 0, NO_RANGE, i > pos ? MEMBER_META : CLASS_META);
      if (i === pos) this.#metaEnd.data[this.#metaEnd.length - 1] = this.#records.length / RECORD;
      return;
    }
    const arrow = lastArrow(bytes, i, nl);
    if (arrow < 0) {
      this.#afterOther = true;
      return;
    }
    let t = nl;
    while (t > arrow + 4 && isSpace(bytes[t - 1])) t--;
    let s = arrow + 4;
    while (s < t && isSpace(bytes[s])) s++;
    // The whole line is checked now, so a lookup reads a plain line without checking it.
    const plain = plainAscii(bytes, i, nl);
    if (!plain) return this.#record(pos, nl, 0, NO_RANGE, MEMBER | NOT_ASCII);
    const range = packRange(bytes, i, nl > i && bytes[nl - 1] === 13 ? nl - 1 : nl);
    this.#record(pos, nl, hashBytes(bytes, s, t), range, MEMBER);
  }

  #record(pos: number, nl: number, hash: number, range: number, kind: number): void {
    this.#records.push(pos);
    this.#records.push(range);
    this.#records.push(hash);
    const flags = this.#afterOther ? kind | AFTER_OTHER : kind;
    this.#records.push(((Math.min(nl - pos, LONG_LINE) << LENGTH_SHIFT) | flags) >>> 0);
    this.#afterOther = false;
  }

  done(): MemberLines {
    const first = new Growable((n) => new Uint32Array(n));
    for (let k = 0; k < this.#first.length; k++) first.push(this.#first.data[k]);
    first.push(this.#records.length / RECORD);
    return { records: this.#records.done(), first: first.done(), metaEnd: this.#metaEnd.done() };
  }
}
