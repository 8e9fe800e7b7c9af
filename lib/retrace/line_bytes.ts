/**
 * One line of a mapping read in place from its bytes, for lib/retrace/class_bytes.ts (a class's
 * members as objects) and lib/retrace/frame_bytes.ts (a frame written straight to bytes): a
 * method line's range, names and original lines (methodLineAt, as lib/retrace/mapping.ts's
 * parseMethodLine reads the text), a class's R8 `sourceFile` line, a member's `synthesized`
 * mark. Pure.
 */
import { metadataId } from "./mapping.ts";
import { digitsAt, lastArrow, num } from "./member_lines.ts";

const utf8 = new TextDecoder();

/** `bytes[from, to)` as text. */
export function text(bytes: Uint8Array, from: number, to: number): string {
  return utf8.decode(bytes.subarray(from, to));
}

/** The line `[at, end)` without its `\r`, as text. */
export function lineText(bytes: Uint8Array, at: number, end: number): string {
  return text(bytes, at, end > at && bytes[end - 1] === 13 ? end - 1 : end);
}

/** The ASCII characters `String.prototype.trim` removes. */
export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Where memberSpan found a member line's parts last: past its indentation, its ends. */
export const span = new Int32Array(3);
/** Past the indentation; the end without `\r`; the end without trailing space (trim()'s). */
export const SPAN_FROM = 0, SPAN_TO = 1, SPAN_TRIMMED = 2;

/** The parts of the recorded member line `bytes[at, le)` into `span`. */
export function memberSpan(bytes: Uint8Array, at: number, le: number): void {
  let i = at;
  while (i < le && (bytes[i] === 32 || bytes[i] === 9)) i++;
  let e = le;
  while (e > i && isSpace(bytes[e - 1])) e--;
  span[SPAN_FROM] = i;
  span[SPAN_TO] = bytes[le - 1] === 13 ? le - 1 : le;
  span[SPAN_TRIMMED] = e;
}

/** Whether the line `[i, e)` (trailing spaces dropped) ends with `name`'s characters. */
export function endsWith(bytes: Uint8Array, i: number, e: number, name: string): boolean {
  if (e - i < name.length) return false;
  const at = e - name.length;
  for (let k = 0; k < name.length; k++) if (bytes[at + k] !== name.charCodeAt(k)) return false;
  return true;
}

/** What methodLineAt read of the line last: its numbers and offsets (one buffer, no object). */
export const read = new Float64Array(9);
export const MIN_START = 0, MIN_END = 1, TYPE_FROM = 2, TYPE_TO = 3, NAME_FROM = 4, OPEN = 5;
export const CLOSE = 6, ORIG_START = 7, ORIG_END = 8;
/** A number the line does not give (a range, an original line). */
export const NONE = -1;

function blank(bytes: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isSpace(bytes[k])) return false;
  return true;
}

/** Where `c` first is in `bytes[from, to)`, or -1. */
export function firstByte(bytes: Uint8Array, c: number, from: number, to: number): number {
  for (let k = from; k < to; k++) if (bytes[k] === c) return k;
  return -1;
}

/**
 * parseMethodLine (lib/retrace/mapping.ts) over the ASCII line `bytes[i, e)` (`i`: past its
 * indentation, `e`: its end, `\r` dropped) whose text after its last ` -> ` is a name of
 * `obfLength` characters once trimmed (the caller saw the name end the line), read in place into
 * `read`; false when it is no method line.
 */
export function methodLineAt(bytes: Uint8Array, i: number, e: number, obfLength: number): boolean {
  const arrow = lastArrow(bytes, i, e);
  if (arrow < 0) return false;
  let t = e;
  while (t > arrow + 4 && isSpace(bytes[t - 1])) t--;
  if (t - obfLength < arrow + 4 || !blank(bytes, arrow + 4, t - obfLength)) return false;
  const open = firstByte(bytes, 40, i, arrow);
  if (open < 0) return false;
  const close = firstByte(bytes, 41, open, arrow);
  if (close < 0) return false;
  let from = i;
  read[MIN_START] = read[MIN_END] = NONE;
  if (digitsAt(bytes, from, e) && bytes[num[1]] === 58) {
    const a = num[0];
    if (!digitsAt(bytes, num[1] + 1, e) || bytes[num[1]] !== 58) return false;
    read[MIN_START] = a;
    read[MIN_END] = num[0];
    from = num[1] + 1;
  }
  let space = open - 1;
  while (space >= from && bytes[space] !== 32) space--;
  if (space < from || space + 1 === open) return false;
  let typeFrom = from;
  let typeTo = space;
  while (typeFrom < typeTo && isSpace(bytes[typeFrom])) typeFrom++;
  while (typeTo > typeFrom && isSpace(bytes[typeTo - 1])) typeTo--;
  if (typeFrom === typeTo) return false;
  read[ORIG_START] = read[ORIG_END] = NONE;
  let k = close + 1;
  if (bytes[k] === 58) {
    if (!digitsAt(bytes, k + 1, e)) return false;
    read[ORIG_START] = num[0];
    k = num[1];
    if (bytes[k] === 58) {
      if (!digitsAt(bytes, k + 1, e)) return false;
      read[ORIG_END] = num[0];
      k = num[1];
    }
  }
  if (!blank(bytes, k, arrow)) return false;
  read[TYPE_FROM] = typeFrom;
  read[TYPE_TO] = typeTo;
  read[NAME_FROM] = space + 1;
  read[OPEN] = open;
  read[CLOSE] = close;
  return true;
}

export function orNull(v: number): number | null {
  return v === NONE ? null : v;
}
/** Whether the indented metadata line `bytes[at, end)` marks its member synthesized. */
export function synthesizedMark(bytes: Uint8Array, at: number, end: number): boolean {
  const text = lineText(bytes, at, end);
  let i = 0;
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  return metadataId(text.slice(i))?.id === SYNTHESIZED;
}

/**
 * The minified range a member line `bytes[i, e)` starts with, as methodLineAt reads it, into
 * `read` (MIN_START/MIN_END, NONE for none); false when its `a:` is not followed by `b:` (no
 * method line then).
 */
function rangeAt(bytes: Uint8Array, i: number, e: number): boolean {
  read[MIN_START] = read[MIN_END] = NONE;
  if (!digitsAt(bytes, i, e) || bytes[num[1]] !== 58) return true;
  const a = num[0];
  if (!digitsAt(bytes, num[1] + 1, e) || bytes[num[1]] !== 58) return false;
  read[MIN_START] = a;
  read[MIN_END] = num[0];
  return true;
}

/** Whether the member line `bytes[i, e)` starts with a minified range that holds `line`. */
export function rangeHolds(bytes: Uint8Array, i: number, e: number, line: number): boolean {
  return rangeAt(bytes, i, e) && read[MIN_START] !== NONE && read[MIN_START] <= line &&
    line <= read[MIN_END];
}
export const SYNTHESIZED = "com.android.tools.r8.synthesized";

/** The bytes a class's `sourceFile` line starts with, as R8 writes it. */
export const SOURCE_FILE_HEAD = new TextEncoder().encode('# {"id":"sourceFile","fileName":"');

/**
 * Where the file name of the metadata line `[p, le)` ends when the line is exactly R8's
 * `# {"id":"sourceFile","fileName":"X"}` with X plain ASCII and no escape (what metadataId()
 * reads of it, without decoding the line and parsing its JSON; X starts at `p +
 * SOURCE_FILE_HEAD.length`); -1 for any other line.
 */
export function sourceFileEnd(bytes: Uint8Array, p: number, le: number): number {
  const n = SOURCE_FILE_HEAD.length;
  if (le - p < n + 2) return -1;
  for (let k = 0; k < n; k++) if (bytes[p + k] !== SOURCE_FILE_HEAD[k]) return -1;
  let q = p + n;
  while (q < le) {
    const c = bytes[q];
    if (c === 34) break;
    if (c < 32 || c >= 0x7f || c === 92) return -1;
    q++;
  }
  // `"}` ends the line (a `\r` before its `\n` allowed).
  const tail = bytes[le - 1] === 13 ? le - 1 : le;
  if (q + 2 !== tail || bytes[q] !== 34 || bytes[q + 1] !== 125) return -1;
  return q;
}
