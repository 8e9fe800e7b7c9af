/**
 * One frame line of a trace retraced from bytes to bytes: the frame read from the trace's UTF-8
 * bytes (readFrame, what trace_frames.ts's FRAME matches), its class found by its bytes, the one
 * inline chain whose range holds its line read in place from the mapping (as class_bytes.ts's
 * groupsOf reads it), and the original frames written straight into the output (writeFrame, as
 * retrace_text.ts's object path prints them). No string or object is made per frame: a new
 * trace's 1,000 frames each name a class never read, and the decoding, the objects and the
 * collector after them were most of its time.
 * Only the common case is written here: a plain ASCII line with a line number that exactly one
 * chain's range holds (no alternatives), at most MAX_LINES_PER_FRAME frames long. For any other
 * frame writeFrame declines (-1) and retrace_text.ts reads it with the object path, which prints
 * the same; tests/retrace/frame_bytes_test.ts checks both print the same for every corpus member.
 * Pure.
 */
import {
  CLASS_NOT_PLAIN,
  type IndexView,
  type MappingIndex,
  NO_SOURCE,
  ROW,
  ROW_FIRST,
  ROW_META_END,
  ROW_OBF_START,
  ROW_SOURCE,
  ROW_START,
  SOURCE_UNKNOWN,
} from "./mapping_index.ts";
import {
  AFTER_OTHER,
  CLASS_META,
  HASH,
  hashBytes,
  KIND,
  KINDS,
  mayHold,
  MEMBER,
  MEMBER_META,
  NOT_ASCII,
  RANGE,
  READ_RANGE,
  RECORD,
  recordEnd,
  START,
} from "./member_lines.ts";
import {
  firstByte,
  isSpace,
  memberSpan,
  methodLineAt,
  MIN_END,
  MIN_START,
  NAME_FROM,
  NONE,
  OPEN,
  ORIG_END,
  ORIG_START,
  rangeHolds,
  read,
  SOURCE_FILE_HEAD,
  span,
  SPAN_FROM,
  SPAN_TO,
  SPAN_TRIMMED,
  synthesizedMark,
} from "./line_bytes.ts";

/** Lines one input frame expands to at most (retrace_text.ts prints the rest as a count). */
export const MAX_LINES_PER_FRAME = 256;

/** A growable output of bytes, decoded once when the whole text is written. */
export class ByteOut {
  bytes: Uint8Array;
  length = 0;
  constructor(size: number) {
    this.bytes = new Uint8Array(Math.max(1024, size));
  }

  /** Room for `n` more bytes. */
  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  byte(c: number): void {
    this.room(1);
    this.bytes[this.length++] = c;
  }

  /** `from[start, end)` appended. */
  copy(from: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.room(n);
    // A name or a line is short: a loop, not a subarray object per copy.
    if (n > 64) this.bytes.set(from.subarray(start, end), this.length);
    else {
      const to = this.bytes;
      for (let k = 0, at = this.length; k < n; k++) to[at + k] = from[start + k];
    }
    this.length += n;
  }

  /** A byte appended where room() made room (unchecked: the hot path makes room once). */
  put(c: number): void {
    this.bytes[this.length++] = c;
  }

  /** `from[start, end)` appended where room() made room. */
  putRange(from: Uint8Array, start: number, end: number): void {
    const to = this.bytes;
    let at = this.length;
    for (let k = start; k < end; k++) to[at++] = from[k];
    this.length = at;
  }

  /** A string appended as UTF-8. */
  text(s: string): void {
    this.room(s.length * 3);
    this.length += encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  /** A non-negative integer in decimal. */
  decimal(n: number): void {
    const s = n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : String(n).length;
    this.room(s);
    let v = n;
    for (let k = this.length + s - 1; k >= this.length; k--) {
      this.bytes[k] = 48 + (v % 10);
      v = Math.floor(v / 10);
    }
    this.length += s;
  }
}

const encoder = new TextEncoder();

/**
 * Where readFrame found the frame's parts last: the indentation's end, the class, the method
 * and the location (inside the parentheses) as offsets.
 */
export const frame = new Int32Array(7);
export const WS_END = 0, CLASS_FROM = 1, CLASS_TO = 2, METHOD_TO = 3, LOC_FROM = 4, LOC_TO = 5;
/** The location's line number, or NONE (readFrame sets it; `at` past the file's end). */
export const LOC_LINE = 6;
/** Where the location's file ends (its `:N`, or the location's end). */
let fileTo = 0;

/**
 * Whether the line `b[from, to)` is a plain ASCII frame as FRAME reads it
 * (`^(\s*)at\s+([^\s(]+)\.([^\s.(]+)\(([^()]*)\)\s*$`), its parts then in `frame`; false for
 * any other line, a frame with a byte over 0x7f included (the object path reads those).
 */
export function readFrame(b: Uint8Array, from: number, to: number): boolean {
  let i = from;
  while (i < to && isSpace(b[i])) i++;
  frame[WS_END] = i;
  if (i + 3 >= to || b[i] !== 97 || b[i + 1] !== 116 || !isSpace(b[i + 2])) return false;
  i += 3;
  while (i < to && isSpace(b[i])) i++;
  const token = i;
  let dot = -1;
  // Class and method: no space or `(`, the method after the last `.`.
  for (; i < to; i++) {
    const c = b[i];
    if (c === 40) break;
    if (c >= 0x80 || isSpace(c)) return false;
    if (c === 46) dot = i;
  }
  if (i === to || dot <= token || dot + 1 >= i) return false;
  const loc = ++i;
  for (; i < to; i++) {
    const c = b[i];
    if (c === 41) break;
    if (c === 40 || c >= 0x80) return false;
  }
  if (i === to) return false;
  const locTo = i;
  for (i++; i < to; i++) if (!isSpace(b[i])) return false;
  frame[CLASS_FROM] = token;
  frame[CLASS_TO] = dot;
  frame[METHOD_TO] = loc - 1;
  frame[LOC_FROM] = loc;
  frame[LOC_TO] = locTo;
  lineOf(b, loc, locTo);
  return true;
}

/** splitLocation (trace_frames.ts) of `b[from, to)`: LOC_LINE and fileTo. */
function lineOf(b: Uint8Array, from: number, to: number): void {
  frame[LOC_LINE] = NONE;
  fileTo = to;
  let colon = to - 1;
  while (colon >= from && b[colon] !== 58) colon--;
  const digits = to - colon - 1;
  if (colon <= from || digits < 1 || digits > 9) return;
  let line = 0;
  for (let i = colon + 1; i < to; i++) {
    const c = b[i];
    if (c < 48 || c > 57) return;
    line = line * 10 + (c - 48);
  }
  frame[LOC_LINE] = line;
  fileTo = colon;
}

/**
 * The chain's lines found by chainOf: per line, where it starts past its indentation, its name
 * and `(`, its original range (NONE when none) and whether it is synthesized.
 */
const LINE = 5;
const L_NAME = 0, L_OPEN = 1, L_ORIG_START = 2, L_ORIG_END = 3, L_SYNTH = 4;
let chain = new Int32Array(64 * LINE);
let chainLines = 0;
let chainMinStart = 0;

function pushLine(): void {
  if ((chainLines + 1) * LINE > chain.length) {
    const next = new Int32Array(chain.length * 2);
    next.set(chain);
    chain = next;
  }
  const at = chainLines++ * LINE;
  chain[at + L_NAME] = read[NAME_FROM];
  chain[at + L_OPEN] = read[OPEN];
  chain[at + L_ORIG_START] = read[ORIG_START];
  chain[at + L_ORIG_END] = read[ORIG_END];
  chain[at + L_SYNTH] = 0;
}

/** Whether `a[af, at)` and `b[bf, bt)` hold the same bytes. */
function sameBytes(a: Uint8Array, af: number, at: number, b: Uint8Array, bf: number): boolean {
  for (let k = 0; k < at - af; k++) if (a[af + k] !== b[bf + k]) return false;
  return true;
}

/**
 * groupsOf (class_bytes.ts) with a line, for the method `src[mFrom, mTo)` of the class whose
 * recorded lines are `[first, last)`: true when exactly one chain's range holds `line`, its lines
 * then in `chain`; false when none or several do, or a line it might read is not plain ASCII.
 */
function chainOf(
  v: IndexView,
  first: number,
  last: number,
  src: Uint8Array,
  mFrom: number,
  mTo: number,
  line: number,
): boolean {
  const { bytes, records: rec } = v;
  const h = hashBytes(src, mFrom, mTo);
  const obfLength = mTo - mFrom;
  let groups = 0;
  // Whether the last member line read was the chain's (metadata may mark it, a line may join it).
  let open = false;
  let minEnd = 0;
  chainLines = 0;
  const end = last * RECORD;
  for (let r = first * RECORD; r < end; r += RECORD) {
    const kind = rec[r + KINDS];
    // Most records: a plain member line of another name, which ends a chain (read first).
    if ((kind & (KIND | NOT_ASCII)) === MEMBER && rec[r + HASH] !== h) {
      open = false;
      continue;
    }
    if (kind & AFTER_OTHER) open = false;
    if (kind & NOT_ASCII) return false;
    if ((kind & KIND) === CLASS_META) continue;
    const at = rec[r + START];
    if ((kind & KIND) === MEMBER_META) {
      if (open && synthesizedMark(bytes, at, recordEnd(bytes, rec, r))) {
        chain[(chainLines - 1) * LINE + L_SYNTH] = 1;
      }
      continue;
    }
    // A line whose range does not hold `line` is not read: it breaks a chain either way.
    const range = rec[r + RANGE];
    if (rec[r + HASH] !== h || !mayHold(range, line)) {
      open = false;
      continue;
    }
    memberSpan(bytes, at, recordEnd(bytes, rec, r));
    const i = span[SPAN_FROM];
    const lineTo = span[SPAN_TO];
    const e = span[SPAN_TRIMMED];
    if (
      (range === READ_RANGE && !rangeHolds(bytes, i, lineTo, line)) || e - i < obfLength ||
      !sameBytes(bytes, e - obfLength, e, src, mFrom) || !methodLineAt(bytes, i, lineTo, obfLength)
    ) {
      open = false;
      continue;
    }
    if (open && read[MIN_START] === chainMinStart && read[MIN_END] === minEnd) {
      pushLine();
      continue;
    }
    if (++groups > 1) return false;
    chainMinStart = read[MIN_START];
    minEnd = read[MIN_END];
    pushLine();
    open = true;
  }
  return groups === 1;
}

/** What a source file lookup found: the file's offsets in the mapping's bytes. */
let sourceFrom = 0;
let sourceTo = 0;

/**
 * The real `sourceFile` of class `k` (-1: none) as class_bytes.ts's classAt and retrace_text.ts's
 * realSourceFile read it, into sourceFrom/sourceTo of the mapping's bytes: 1 found, 0 none, -1
 * when it cannot be read in place (mapping_index.ts's ROW_SOURCE, read when it was indexed).
 */
function sourceOf(v: IndexView, k: number): number {
  if (k < 0) return 0;
  const source = v.rows[k * ROW + ROW_SOURCE];
  if (source === NO_SOURCE) return 0;
  if (source === SOURCE_UNKNOWN) return -1;
  const { bytes, records } = v;
  const r = (source - 1) * RECORD;
  const le = recordEnd(bytes, records, r);
  // The line is R8's `# {"id":"sourceFile","fileName":"X"}`: X ends before its `"}`.
  sourceFrom = records[r + START] + SOURCE_FILE_HEAD.length;
  sourceTo = (bytes[le - 1] === 13 ? le - 1 : le) - 2;
  return 1;
}

/** The trace's file names kept as printed: `Unknown Source`, `Native Method`, `Unknown`. */
const KEPT_FILES = ["Unknown Source", "Native Method", "Unknown"].map((s) =>
  new TextEncoder().encode(s)
);
const JAVA = new TextEncoder().encode(".java");
const AT = new TextEncoder().encode("at ");

function keptFile(src: Uint8Array, from: number, to: number): boolean {
  for (const k of KEPT_FILES) {
    if (k.length === to - from && sameBytes(src, from, to, k, 0)) return true;
  }
  return false;
}

/** Where `c` last is in `b[from, to)`, or -1. */
function lastByte(b: Uint8Array, c: number, from: number, to: number): number {
  for (let k = to - 1; k >= from; k--) if (b[k] === c) return k;
  return -1;
}

/**
 * The file of the frame of class `bytes[cFrom, cTo)` (owner class `owner`) as retrace_text.ts's
 * fileFor names it, written to `out`; false when it cannot be told in place.
 */
function writeFile(
  index: MappingIndex,
  owner: number,
  cFrom: number,
  cTo: number,
  src: Uint8Array,
  out: ByteOut,
): boolean {
  const v = index.view;
  const { bytes, rows } = v;
  const lf = frame[LOC_FROM];
  if (keptFile(src, lf, fileTo)) {
    out.copy(src, lf, fileTo);
    return true;
  }
  // Room for the longest file it may write but a `sourceFile` (copied with its own check).
  out.room(cTo - cFrom + (fileTo - lf) + JAVA.length);
  const oFrom = rows[owner * ROW + ROW_START];
  const oTo = rows[owner * ROW + ROW_OBF_START] - 4;
  // A frame of the owner itself names it with the class line's own bytes.
  const isOwner = (cFrom === oFrom && cTo === oTo) ||
    (cTo - cFrom === oTo - oFrom && sameBytes(bytes, cFrom, cTo, bytes, oFrom));
  let found = sourceOf(v, isOwner ? owner : index.originalClassAt(bytes, cFrom, cTo));
  if (found < 0) return false;
  const dot = lastByte(bytes, 46, cFrom, cTo);
  if (found === 0) {
    const dollar = firstByte(bytes, 36, dot + 1 > cFrom ? dot + 1 : cFrom, cTo);
    if (dollar > cFrom) found = sourceOf(v, index.originalClassAt(bytes, cFrom, dollar));
    if (found < 0) return false;
  }
  if (found === 1) {
    out.copy(bytes, sourceFrom, sourceTo);
    return true;
  }
  // The outer class's simple name and the trace file's extension (`.java` without one).
  const simple = dot >= cFrom ? dot + 1 : cFrom;
  const inner = firstByte(bytes, 36, simple, cTo);
  out.putRange(bytes, simple, inner > simple ? inner : cTo);
  const ext = lastByte(src, 46, lf, fileTo);
  if (ext > lf && firstByte(src, 32, lf, fileTo) < 0) out.putRange(src, ext, fileTo);
  else out.putRange(JAVA, 0, JAVA.length);
  return true;
}

/**
 * The frame readFrame read last from the line `src[from, …)`, of class `k`, retraced into `out`
 * as retrace_text.ts's object path prints it: its lines (≥ 1), or -1 when it declines (see the
 * module comment), `out` then as it was.
 */
export function writeFrame(
  index: MappingIndex,
  k: number,
  src: Uint8Array,
  from: number,
  out: ByteOut,
): number {
  const line = frame[LOC_LINE];
  if (line === NONE) return -1;
  const v = index.view;
  const { rows } = v;
  const row = k * ROW;
  if (rows[row + ROW_META_END] & CLASS_NOT_PLAIN) return -1;
  const mFrom = frame[CLASS_TO] + 1;
  if (
    !chainOf(
      v,
      rows[row + ROW_FIRST],
      rows[row + ROW + ROW_FIRST],
      src,
      mFrom,
      frame[METHOD_TO],
      line,
    )
  ) {
    return -1;
  }
  if (chainLines > MAX_LINES_PER_FRAME) return -1;
  let real = 0;
  for (let j = 0; j < chainLines; j++) if (chain[j * LINE + L_SYNTH] === 0) real++;
  const start = out.length;
  let lines = 0;
  for (let j = 0; j < chainLines; j++) {
    const at = j * LINE;
    if (real > 0 && chain[at + L_SYNTH] === 1) continue;
    if (lines++ > 0) out.byte(10);
    if (!writeLine(index, k, src, from, at, line, out)) {
      out.length = start;
      return -1;
    }
  }
  return lines;
}

/** One original frame, the chain's line at `at`, as retrace_text.ts's frameLine prints it. */
function writeLine(
  index: MappingIndex,
  k: number,
  src: Uint8Array,
  from: number,
  at: number,
  line: number,
  out: ByteOut,
): boolean {
  const { bytes, rows } = index.view;
  const name = chain[at + L_NAME];
  const open = chain[at + L_OPEN];
  const dot = lastByte(bytes, 46, name, open);
  let cFrom = rows[k * ROW + ROW_START];
  let cTo = rows[k * ROW + ROW_OBF_START] - 4;
  let mFrom = name;
  if (dot > name) {
    cFrom = name;
    cTo = dot;
    mFrom = dot + 1;
  }
  const ws = frame[WS_END];
  // Room for all but the file: the indentation (a tab is four), `at `, the names, `.` and `(`.
  out.room(4 * (ws - from) + 5 + (cTo - cFrom) + (open - mFrom));
  for (let i = from; i < ws; i++) {
    if (src[i] === 9) out.putRange(SPACES, 0, 4);
    else out.put(src[i]);
  }
  out.putRange(AT, 0, AT.length);
  out.putRange(bytes, cFrom, cTo);
  out.put(46);
  out.putRange(bytes, mFrom, open);
  out.put(40);
  if (!writeFile(index, k, cFrom, cTo, src, out)) return false;
  const original = originalLine(chain[at + L_ORIG_START], chain[at + L_ORIG_END], line);
  if (original !== 0) {
    out.byte(58);
    out.decimal(original);
  }
  out.byte(41);
  return true;
}

const SPACES = new TextEncoder().encode("    ");

/** retrace_text.ts's originalLine for a chain whose range (from chainMinStart) holds `line`. */
function originalLine(origStart: number, origEnd: number, line: number): number {
  if (origStart === NONE) return line;
  if (origEnd === NONE || origEnd === origStart) return origStart;
  const mapped = origStart + (line - chainMinStart);
  return Math.min(Math.max(mapped, origStart), origEnd);
}
