/**
 * One logcat line → its fields, by hand-written scanning (no regex on the hot path).
 *
 * Formats (PROTOCOLS.md §6, liblog logprint.cpp `android_log_formatLogLine`):
 * - threadtime: `MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message` (tag padded to 8, never cut);
 *   with `-v year` the date is `YYYY-MM-DD`; with `-v uid` a uid (number or a name of at most 5
 *   characters) comes before the pid.
 * - time: `MM-DD HH:MM:SS.mmm L/TAG     ( PID): message`; brief, old logcat's default, is the same
 *   without the time: `L/TAG     ( PID): message`.
 * - Android Studio's copy format: `YYYY/MM/DD HH:MM:SS.mmm PID TID Level tag message`.
 * - `--------- beginning of main` dividers, printed by logcat itself.
 * Anything else is `raw`: a continuation of the previous entry, or a malformed line, which the
 * pipeline keeps either way. A trailing `\r` (CRLF captures, even `\r\r\n`) is dropped.
 */

import { LEVEL_WORDS, levelOfChar } from "./shared/levels.ts";

export {
  Level,
  LEVEL_LETTERS,
  type LevelLetter,
  levelLetter,
  parseLevelName,
} from "./shared/levels.ts";

export const LineKind = { entry: 0, divider: 1, raw: 2, empty: 3 } as const;
export type LineKind = typeof LineKind[keyof typeof LineKind];

/** A parsed line. Fields other than `kind` and `message` are meaningful for `entry` only. */
interface ParsedLine {
  kind: LineKind;
  /** The time as printed (`04-04 10:53:33.874`, `2024-04-04 …`, `2023/02/26 …`). */
  time: string;
  pid: number;
  tid: number;
  /** `Level.*`. */
  level: number;
  tag: string;
  /** For `raw` lines the whole line; for dividers the buffer name. */
  message: string;
}

/** Reused by `parseLineInto` callers that do not keep the object. */
export function emptyParsedLine(): ParsedLine {
  return { kind: LineKind.empty, time: "", pid: -1, tid: -1, level: 0, tag: "", message: "" };
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** End of the time prefix at `at` (bounded by `end`), or `at` when the line does not start with
 * one. */
function timeEnd(s: string, at: number, end: number): number {
  const n = end - at;
  // MM-DD HH:MM:SS.mmm (18)
  if (
    n >= 18 && s.charCodeAt(at + 2) === 45 && s.charCodeAt(at + 5) === 32 &&
    s.charCodeAt(at + 8) === 58 && s.charCodeAt(at + 11) === 58 && s.charCodeAt(at + 14) === 46 &&
    isDigit(s.charCodeAt(at)) && isDigit(s.charCodeAt(at + 17))
  ) {
    let e = at + 15;
    while (e < end && isDigit(s.charCodeAt(e))) e++;
    return e;
  }
  // YYYY-MM-DD HH:MM:SS.mmm or YYYY/MM/DD … (23)
  const sep = s.charCodeAt(at + 4);
  if (
    n >= 23 && (sep === 45 || sep === 47) && s.charCodeAt(at + 7) === sep &&
    s.charCodeAt(at + 10) === 32 && s.charCodeAt(at + 13) === 58 && s.charCodeAt(at + 16) === 58 &&
    s.charCodeAt(at + 19) === 46 && isDigit(s.charCodeAt(at)) && isDigit(s.charCodeAt(at + 22))
  ) {
    let e = at + 20;
    while (e < end && isDigit(s.charCodeAt(e))) e++;
    return e;
  }
  return at;
}

function skipSpaces(s: string, i: number, end: number): number {
  while (i < end && s.charCodeAt(i) === 32) i++;
  return i;
}

function tokenEnd(s: string, i: number, end: number): number {
  while (i < end && s.charCodeAt(i) !== 32) i++;
  return i;
}

function intOf(s: string, start: number, end: number): number {
  if (start >= end) return NaN;
  let n = 0;
  let i = start;
  let neg = false;
  if (s.charCodeAt(i) === 45) {
    neg = true;
    i++;
    if (i >= end) return NaN;
  }
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return NaN;
    n = n * 10 + (c - 48);
  }
  return neg ? -n : n;
}

/** What String.prototype.trim removes (WhiteSpace and LineTerminator; also what `\s` matches). */
export function isTrimmedSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** `end` moved back over trailing white space (as trimEnd), not before `start`. */
function trimEndAt(s: string, start: number, end: number): number {
  while (end > start && isTrimmedSpace(s.charCodeAt(end - 1))) end--;
  return end;
}

/** `start` moved over leading white space (as trimStart), not past `end`. */
function trimStartAt(s: string, start: number, end: number): number {
  while (start < end && isTrimmedSpace(s.charCodeAt(start))) start++;
  return start;
}

/**
 * A parsed line as offsets into the text it lies in (no string per field): what the ingest path
 * uses. `text.slice(timeStart, timeEnd)` etc. are ParsedLine's fields.
 */
export interface LineSpan {
  kind: LineKind;
  timeStart: number;
  timeEnd: number;
  pid: number;
  tid: number;
  level: number;
  tagStart: number;
  tagEnd: number;
  /** For `raw` lines the whole line; for dividers the buffer name. */
  msgStart: number;
  msgEnd: number;
}

export function emptyLineSpan(): LineSpan {
  return {
    kind: LineKind.empty,
    timeStart: 0,
    timeEnd: 0,
    pid: -1,
    tid: -1,
    level: 0,
    tagStart: 0,
    tagEnd: 0,
    msgStart: 0,
    msgEnd: 0,
  };
}

function spanRaw(out: LineSpan, start: number, end: number): LineSpan {
  out.kind = start === end ? LineKind.empty : LineKind.raw;
  out.timeStart = start;
  out.timeEnd = start;
  out.pid = -1;
  out.tid = -1;
  out.level = 0;
  out.tagStart = start;
  out.tagEnd = start;
  out.msgStart = start;
  out.msgEnd = end;
  return out;
}

/** Drops trailing `\r`s (CRLF captures) and a trailing `\n`. */
export function trimLineEnd(line: string): string {
  let end = line.length;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== 13 && c !== 10) break;
    end--;
  }
  return end === line.length ? line : line.slice(0, end);
}

const DIVIDER = "--------- ";

/** Whether `s[at, end)` starts with `prefix`. */
function startsWithAt(s: string, at: number, end: number, prefix: string): boolean {
  if (end - at < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) {
    if (s.charCodeAt(at + k) !== prefix.charCodeAt(k)) return false;
  }
  return true;
}

/** Index of char code `c` in `s[from, end)`, or -1. */
function charIndexIn(s: string, c: number, from: number, end: number): number {
  for (let i = from; i < end; i++) if (s.charCodeAt(i) === c) return i;
  return -1;
}

/** Index of `needle` (not empty) wholly inside `s[from, end)`, or -1. */
export function indexIn(s: string, needle: string, from: number, end: number): number {
  const c0 = needle.charCodeAt(0);
  const last = end - needle.length;
  outer: for (let i = from; i <= last; i++) {
    if (s.charCodeAt(i) !== c0) continue;
    for (let k = 1; k < needle.length; k++) {
      if (s.charCodeAt(i + k) !== needle.charCodeAt(k)) continue outer;
    }
    return i;
  }
  return -1;
}

/**
 * Finds a string (or a pattern) in `text[from, end)` with the engine's own search over the whole
 * text, remembering where the last search from `from` on found the first match: while searches
 * come in increasing `from` over one text (the lines of a chunk, in order), a later search at or
 * before that match has the same answer and costs nothing, so a chunk is searched about once in
 * all, however many of its lines lack the needle. Exact: a match is one wholly inside the range.
 */
export class ForwardSearch {
  #text: string | null = null;
  #from = 0;
  /** Where the first match at or after #from starts (-1: none up to the end of #text). */
  #at = -1;
  #len = 0;
  readonly #needle: string | null;
  readonly #pattern: RegExp | null;

  /** A literal needle, or a global pattern of literal alternatives (no anchors, no lookaround). */
  constructor(needle: string | RegExp) {
    this.#needle = typeof needle === "string" ? needle : null;
    this.#pattern = typeof needle === "string" ? null : needle;
  }

  /**
   * The start of the first match wholly inside `text[from, end)`; -1 when there is none; -2
   * when the first match at or after `from` crosses `end` (a pattern only: a shorter alternative
   * might still fit, so the caller checks the range itself).
   */
  find(text: string, from: number, end: number): number {
    if (text !== this.#text || from < this.#from || (this.#at >= 0 && from > this.#at)) {
      this.#text = text;
      this.#from = from;
      if (this.#needle !== null) {
        this.#at = text.indexOf(this.#needle, from);
        this.#len = this.#needle.length;
      } else {
        const re = this.#pattern!;
        re.lastIndex = from;
        const m = re.exec(text);
        this.#at = m === null ? -1 : m.index;
        this.#len = m === null ? 0 : m[0].length;
      }
    }
    const at = this.#at;
    if (at < 0 || at >= end) return -1;
    if (at + this.#len <= end) return at;
    return this.#needle !== null ? -1 : -2;
  }

  /** Forgets the remembered text (it may be collected). */
  reset(): void {
    this.#text = null;
  }
}

/** The tag's separator, searched once per chunk (see ForwardSearch). */
const TAG_SEPARATOR = new ForwardSearch(": ");

/**
 * `L/TAG( PID): msg` at `i` (after the time `[start, t)` of `-v time`, or at the line's start for
 * `-v brief`), or null when the line is not written so.
 */
function levelSlashSpan(
  text: string,
  start: number,
  t: number,
  i: number,
  end: number,
  out: LineSpan,
): LineSpan | null {
  const level = levelOfChar(text.charCodeAt(i));
  // The pid is in the last parentheses before `): `: a tag may hold parentheses itself
  // (`I/SmartPower.com.x/10217(0)( 1829): …`).
  const close = indexIn(text, "): ", i + 2, end);
  const closeEnd = close >= 0 ? close : text.charCodeAt(end - 1) === 41 ? end - 1 : -1;
  if (closeEnd < 0) return null;
  let open = closeEnd - 1;
  while (open > i + 1 && text.charCodeAt(open) !== 40) open--; // (
  if (open <= i + 1) return null;
  const ps = trimStartAt(text, open + 1, closeEnd);
  const pe = trimEndAt(text, ps, closeEnd);
  const colon = charIndexIn(text, 58, ps, pe); // `uid:pid` with -v uid
  const pid = intOf(text, colon < 0 ? ps : colon + 1, pe);
  if (Number.isNaN(pid)) return null;
  out.kind = LineKind.entry;
  out.timeStart = start;
  out.timeEnd = t;
  out.pid = pid;
  out.tid = -1;
  out.level = level;
  out.tagStart = i + 2;
  out.tagEnd = trimEndAt(text, i + 2, open);
  out.msgStart = close < 0 ? end : close + 3;
  out.msgEnd = end;
  return out;
}

/**
 * Parses the line `text[start, end)` (without its newline) into `out` and returns it; the
 * offsets are into `text`. `parseLineInto` is this with strings.
 */
// deno-lint-ignore house/long-function -- ingest hot path: one pass, no call per field
export function parseSpanInto(text: string, start: number, end: number, out: LineSpan): LineSpan {
  // A byte-order mark before a line (the start of a file an editor saved, a UTF-16 capture decoded
  // without stripping it) is not part of it.
  if (start < end && text.charCodeAt(start) === 0xfeff) start++;
  if (start >= end) return spanRaw(out, start, start);
  const t = timeEnd(text, start, end);
  if (t === start) {
    // `-v brief` (old logcat's default): `L/TAG( PID): msg`, no time.
    if (
      end - start > 4 && text.charCodeAt(start + 1) === 47 && levelOfChar(text.charCodeAt(start))
    ) {
      const e = levelSlashSpan(text, start, start, start, end, out);
      if (e !== null) return e;
    }
    if (startsWithAt(text, start, end, DIVIDER)) {
      const rest = start + DIVIDER.length;
      const m = startsWithAt(text, rest, end, "beginning of ")
        ? rest + 13
        : startsWithAt(text, rest, end, "switch to ")
        ? rest + 10
        : -1;
      if (m >= 0) {
        const ms = trimStartAt(text, m, end);
        spanRaw(out, ms, trimEndAt(text, ms, end));
        out.kind = LineKind.divider;
        return out;
      }
    }
    return spanRaw(out, start, end);
  }
  let i = skipSpaces(text, t, end);
  if (i >= end) return spanRaw(out, start, end);

  // `-v time`: `L/TAG( PID): msg`
  if (i + 1 < end && text.charCodeAt(i + 1) === 47 && levelOfChar(text.charCodeAt(i))) {
    return levelSlashSpan(text, start, t, i, end, out) ?? spanRaw(out, start, end);
  }

  // threadtime (optionally with uid) or Android Studio: numbers, then a level, then tag. Only the
  // last two numbers (pid, tid) are kept; no array per line.
  let count = 0;
  let pid = -1;
  let tid = -1;
  let level = 0;
  let studio = false;
  for (let k = 0; k < 4; k++) {
    const te = tokenEnd(text, i, end);
    if (te === i) return spanRaw(out, start, end);
    if (te === i + 1 && count >= 2) {
      level = levelOfChar(text.charCodeAt(i));
      if (level) {
        i = te;
        break;
      }
    }
    let n = intOf(text, i, te);
    if (Number.isNaN(n)) {
      if (count >= 2) {
        const word = LEVEL_WORDS[text.slice(i, te)];
        if (word !== undefined) {
          level = word;
          studio = true;
          i = te;
          break;
        }
      }
      // A uid printed as a name (`root`, `shell`) before the pid.
      if (count !== 0 || te - i > 5) return spanRaw(out, start, end);
      n = -1;
    }
    pid = tid;
    tid = n;
    count++;
    i = skipSpaces(text, te, end);
  }
  if (!level || count < 2) return spanRaw(out, start, end);
  out.kind = LineKind.entry;
  out.timeStart = start;
  out.timeEnd = t;
  out.pid = pid;
  out.tid = tid;
  out.level = level;
  const ts = Math.min(i + 1, end);
  if (studio) {
    const te = tokenEnd(text, ts, end);
    out.tagStart = ts;
    out.tagEnd = te;
    out.msgStart = te < end ? te + 1 : end;
    out.msgEnd = end;
    return out;
  }
  // ` TAG     : message`; the tag may be empty (kernel lines) or hold spaces.
  const sep = TAG_SEPARATOR.find(text, ts, end);
  if (sep < 0) {
    const bare = text.charCodeAt(end - 1) === 58 ? end - 1 : end;
    out.tagStart = ts;
    out.tagEnd = trimEndAt(text, ts, Math.max(bare, ts));
    out.msgStart = end;
    out.msgEnd = end;
    return out;
  }
  let tagEnd = sep;
  while (tagEnd > ts && text.charCodeAt(tagEnd - 1) === 32) tagEnd--;
  out.tagStart = ts;
  out.tagEnd = trimEndAt(text, ts, tagEnd); // other white space too, as String.prototype.trimEnd
  out.msgStart = sep + 2;
  out.msgEnd = end;
  return out;
}

const SCRATCH_SPAN = emptyLineSpan();

/** Parses `line` (without its newline) into `out` and returns it. */
export function parseLineInto(line: string, out: ParsedLine): ParsedLine {
  const p = parseSpanInto(line, 0, line.length, SCRATCH_SPAN);
  out.kind = p.kind;
  out.time = line.slice(p.timeStart, p.timeEnd);
  out.pid = p.pid;
  out.tid = p.tid;
  out.level = p.level;
  out.tag = line.slice(p.tagStart, p.tagEnd);
  out.message = line.slice(p.msgStart, p.msgEnd);
  return out;
}

/** Convenience for tests and cold paths: a fresh object per line. */
export function parseLine(line: string): ParsedLine {
  return parseLineInto(trimLineEnd(line), emptyParsedLine());
}
