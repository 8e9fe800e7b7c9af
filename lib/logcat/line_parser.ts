/**
 * One logcat line → its fields, by hand-written scanning (no regex on the hot path).
 *
 * Formats (PROTOCOLS.md §6, liblog logprint.cpp `android_log_formatLogLine`):
 * - threadtime: `MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message` (tag padded to 8, never cut);
 *   with `-v year` the date is `YYYY-MM-DD`; with `-v uid` a uid (number or a name of at most 5
 *   characters) comes before the pid.
 * - time: `MM-DD HH:MM:SS.mmm L/TAG     ( PID): message`.
 * - Android Studio's copy format: `YYYY/MM/DD HH:MM:SS.mmm PID TID Level tag message`.
 * - `--------- beginning of main` dividers, printed by logcat itself.
 * Anything else is `raw`: a continuation of the previous entry, or a malformed line, which the
 * pipeline keeps either way. A trailing `\r` (CRLF captures, even `\r\r\n`) is dropped.
 */

/** Priority letters in increasing order; index = the numeric level we store. */
export const LEVEL_LETTERS = ["?", "V", "D", "I", "W", "E", "F", "S"] as const;
export type LevelLetter = typeof LEVEL_LETTERS[number];
export const Level = { unknown: 0, V: 1, D: 2, I: 3, W: 4, E: 5, F: 6, S: 7 } as const;

/** Android Studio's full level words. */
const LEVEL_WORDS: Record<string, number> = {
  Verbose: Level.V,
  Debug: Level.D,
  Info: Level.I,
  Warn: Level.W,
  Warning: Level.W,
  Error: Level.E,
  Fatal: Level.F,
  Assert: Level.F,
};

export const LineKind = { entry: 0, divider: 1, raw: 2, empty: 3 } as const;
export type LineKind = typeof LineKind[keyof typeof LineKind];

/** A parsed line. Fields other than `kind` and `message` are meaningful for `entry` only. */
export interface ParsedLine {
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

function levelOfChar(c: number): number {
  switch (c) {
    case 86: // V
      return Level.V;
    case 68: // D
      return Level.D;
    case 73: // I
      return Level.I;
    case 87: // W
      return Level.W;
    case 69: // E
      return Level.E;
    case 70: // F
      return Level.F;
    case 83: // S
      return Level.S;
    case 65: // A (assert, old devices)
      return Level.F;
    default:
      return 0;
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Length of the time prefix at 0, or 0 when the line does not start with one. */
function timeLength(s: string): number {
  // MM-DD HH:MM:SS.mmm (18)
  if (
    s.length >= 18 && s.charCodeAt(2) === 45 && s.charCodeAt(5) === 32 &&
    s.charCodeAt(8) === 58 && s.charCodeAt(11) === 58 && s.charCodeAt(14) === 46 &&
    isDigit(s.charCodeAt(0)) && isDigit(s.charCodeAt(17))
  ) {
    let end = 15;
    while (end < s.length && isDigit(s.charCodeAt(end))) end++;
    return end;
  }
  // YYYY-MM-DD HH:MM:SS.mmm or YYYY/MM/DD … (23)
  const sep = s.charCodeAt(4);
  if (
    s.length >= 23 && (sep === 45 || sep === 47) && s.charCodeAt(7) === sep &&
    s.charCodeAt(10) === 32 && s.charCodeAt(13) === 58 && s.charCodeAt(16) === 58 &&
    s.charCodeAt(19) === 46 && isDigit(s.charCodeAt(0)) && isDigit(s.charCodeAt(22))
  ) {
    let end = 20;
    while (end < s.length && isDigit(s.charCodeAt(end))) end++;
    return end;
  }
  return 0;
}

function skipSpaces(s: string, i: number): number {
  while (i < s.length && s.charCodeAt(i) === 32) i++;
  return i;
}

function tokenEnd(s: string, i: number): number {
  while (i < s.length && s.charCodeAt(i) !== 32) i++;
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

function setRaw(out: ParsedLine, line: string): ParsedLine {
  out.kind = line.length === 0 ? LineKind.empty : LineKind.raw;
  out.time = "";
  out.pid = -1;
  out.tid = -1;
  out.level = 0;
  out.tag = "";
  out.message = line;
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

/** Parses `line` (without its newline) into `out` and returns it. */
export function parseLineInto(line: string, out: ParsedLine): ParsedLine {
  if (line.length === 0) return setRaw(out, line);
  const t = timeLength(line);
  if (t === 0) {
    if (line.startsWith(DIVIDER)) {
      const rest = line.slice(DIVIDER.length);
      const m = rest.startsWith("beginning of ")
        ? rest.slice(13)
        : rest.startsWith("switch to ")
        ? rest.slice(10)
        : null;
      if (m !== null) {
        setRaw(out, m.trim());
        out.kind = LineKind.divider;
        return out;
      }
    }
    return setRaw(out, line);
  }
  const time = line.slice(0, t);
  let i = skipSpaces(line, t);
  if (i >= line.length) return setRaw(out, line);

  // `-v time`: `L/TAG( PID): msg`
  if (i + 1 < line.length && line.charCodeAt(i + 1) === 47 && levelOfChar(line.charCodeAt(i))) {
    const level = levelOfChar(line.charCodeAt(i));
    const open = line.indexOf("(", i + 2);
    const close = open < 0 ? -1 : line.indexOf("): ", open);
    const closeEnd = open < 0 ? -1 : (close < 0 && line.endsWith(")") ? line.length - 1 : close);
    if (open < 0 || closeEnd < 0) return setRaw(out, line);
    const pidText = line.slice(open + 1, closeEnd).trim();
    const colon = pidText.indexOf(":"); // `uid:pid` with -v uid
    const pid = intOf(pidText, colon + 1, pidText.length);
    if (Number.isNaN(pid)) return setRaw(out, line);
    out.kind = LineKind.entry;
    out.time = time;
    out.pid = pid;
    out.tid = -1;
    out.level = level;
    out.tag = line.slice(i + 2, open).trimEnd();
    out.message = close < 0 ? "" : line.slice(close + 3);
    return out;
  }

  // threadtime (optionally with uid) or Android Studio: numbers, then a level, then tag. Only the
  // last two numbers (pid, tid) are kept; no array per line.
  let count = 0;
  let pid = -1;
  let tid = -1;
  let level = 0;
  let studio = false;
  for (let k = 0; k < 4; k++) {
    const end = tokenEnd(line, i);
    if (end === i) return setRaw(out, line);
    if (end === i + 1 && count >= 2) {
      level = levelOfChar(line.charCodeAt(i));
      if (level) {
        i = end;
        break;
      }
    }
    let n = intOf(line, i, end);
    if (Number.isNaN(n)) {
      if (count >= 2) {
        const word = LEVEL_WORDS[line.slice(i, end)];
        if (word !== undefined) {
          level = word;
          studio = true;
          i = end;
          break;
        }
      }
      // A uid printed as a name (`root`, `shell`) before the pid.
      if (count !== 0 || end - i > 5) return setRaw(out, line);
      n = -1;
    }
    pid = tid;
    tid = n;
    count++;
    i = skipSpaces(line, end);
  }
  if (!level || count < 2) return setRaw(out, line);
  out.kind = LineKind.entry;
  out.time = time;
  out.pid = pid;
  out.tid = tid;
  out.level = level;
  if (studio) {
    const start = i + 1;
    const end = tokenEnd(line, start);
    out.tag = line.slice(start, end);
    out.message = end < line.length ? line.slice(end + 1) : "";
    return out;
  }
  // ` TAG     : message`; the tag may be empty (kernel lines) or hold spaces.
  const start = i + 1;
  const sep = line.indexOf(": ", start);
  if (sep < 0) {
    const bare = line.endsWith(":") ? line.length - 1 : -1;
    out.tag = (bare < 0 ? line.slice(start) : line.slice(start, bare)).trimEnd();
    out.message = "";
    return out;
  }
  let tagEnd = sep;
  while (tagEnd > start && line.charCodeAt(tagEnd - 1) === 32) tagEnd--;
  const before = line.charCodeAt(tagEnd - 1);
  out.tag = tagEnd === start ? "" : before <= 32 || before >= 128 // other whitespace: as String.prototype.trimEnd does
    ? line.slice(start, tagEnd).trimEnd()
    : line.slice(start, tagEnd);
  out.message = line.slice(sep + 2);
  return out;
}

/** Convenience for tests and cold paths: a fresh object per line. */
export function parseLine(line: string): ParsedLine {
  return parseLineInto(trimLineEnd(line), emptyParsedLine());
}

/** `V`…`F` (also the words `verbose`…`fatal`/`assert`, any case) → `Level.*`, else 0. */
export function parseLevelName(value: string): number {
  const v = value.trim();
  if (v.length === 1) return levelOfChar(v.toUpperCase().charCodeAt(0));
  const word = v.charAt(0).toUpperCase() + v.slice(1).toLowerCase();
  return LEVEL_WORDS[word] ?? 0;
}

export function levelLetter(level: number): LevelLetter {
  return LEVEL_LETTERS[level] ?? "?";
}
