/**
 * Which pids a log message names, by the crash-context rule: a pid is named when its digits stand
 * alone (not inside a longer number) right after `(`, or after `pid` in any case + one of ` :=` +
 * an optional white space (`(pid 1234)`, `pid: 1234`, `PID=1234`).
 *
 * `mentionsPid` answers it for one message and one pid. `PidMentionFinder` reads, for a message
 * lying in a larger text (the decoded chunk), every pid it names at once, with searches that run
 * along the text and remember where their next match was (one native search per `(` or `pid` in
 * the chunk, no string and no regex run per message): what the context of a crash needs of every
 * line near it.
 */
import { isTrimmedSpace } from "./line_parser.ts";
import { NextMatch } from "./next_match.ts";

/** What `PidMentionFinder.mentionIn` answers for a message that names no pid. */
export const NAMES_NO_PID = 0;
/** … for a message that names several pids, or one too long to keep (ask `mentionsPid`). */
export const NAMES_SEVERAL_PIDS = -1;

/** Most digits of a named pid read as a number (exact below 2^53); longer ones are "several". */
const MAX_PID_DIGITS = 15;
const MAX_KEPT_PID = 0x7fffffff;
/** `pid` in any case (what isPidWord reads: ASCII letters only, as a non-unicode /i). */
const PID_WORD = /[pP][iI][dD]/g;

/** Whether `message` names process `pid` (`pid 1234`, `(pid 1234)`, `pid: 1234`). */
export function mentionsPid(message: string, pid: number): boolean {
  const p = String(pid);
  let i = message.indexOf(p);
  while (i >= 0) {
    // Not inside a longer number, and right after `(` or `pid` + one of ` :=` + an optional
    // white space (case-insensitive) — read by character, no regex per occurrence.
    if (!isDigit(message.charCodeAt(i + p.length))) {
      const b1 = message.charCodeAt(i - 1);
      if (!isDigit(b1)) {
        if (b1 === 40) return true;
        if (isPidSep(b1) && isPidWord(message, i - 4)) return true;
        if (isRegExpSpace(b1) && isPidSep(message.charCodeAt(i - 2)) && isPidWord(message, i - 5)) {
          return true;
        }
      }
    }
    i = message.indexOf(p, i + 1);
  }
  return false;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isPidSep(c: number): boolean {
  return c === 32 || c === 58 || c === 61; // space : =
}

/** `pid` in any case at `at`. */
function isPidWord(s: string, at: number): boolean {
  if (at < 0) return false;
  return (s.charCodeAt(at) | 32) === 112 && (s.charCodeAt(at + 1) | 32) === 105 &&
    (s.charCodeAt(at + 2) | 32) === 100;
}

/** What `\s` matches in a RegExp (the same set String.prototype.trim removes). */
const isRegExpSpace = isTrimmedSpace;

/**
 * The pid whose digits start at `d` of a message ending at `end` (the run of digits read to its
 * end): NAMES_NO_PID when there is no digit at `d` or the run starts with 0 (no pid prints so),
 * NAMES_SEVERAL_PIDS when it is too long to keep.
 */
function pidRunAt(text: string, d: number, end: number): number {
  if (d >= end) return NAMES_NO_PID;
  let c = text.charCodeAt(d);
  if (c < 49 || c > 57) return NAMES_NO_PID; // not a digit, or a leading 0
  let v = 0;
  let k = d;
  while (k < end && c >= 48 && c <= 57) {
    v = v * 10 + (c - 48);
    c = text.charCodeAt(++k);
  }
  return k - d > MAX_PID_DIGITS || v > MAX_KEPT_PID ? NAMES_SEVERAL_PIDS : v;
}

/**
 * Reads the pids messages name, along a text. Exact: `mentionIn(text, start, end)` is P (> 0)
 * when the message `text[start, end)` names P and no other pid, NAMES_NO_PID when it names none
 * (mentionsPid is false for every pid), else NAMES_SEVERAL_PIDS.
 */
export class PidMentionFinder {
  readonly #paren = NextMatch.of("(");
  readonly #word = new NextMatch((text, from) => {
    PID_WORD.lastIndex = from;
    return PID_WORD.test(text) ? PID_WORD.lastIndex - 3 : -1;
  });

  mentionIn(text: string, start: number, end: number): number {
    let found = NAMES_NO_PID;
    for (
      let q = this.#paren.next(text, start);
      q >= 0 && q + 1 < end;
      q = this.#paren.next(text, q + 1)
    ) {
      const v = pidRunAt(text, q + 1, end);
      if (v === NAMES_NO_PID || v === found) continue;
      if (found !== NAMES_NO_PID || v === NAMES_SEVERAL_PIDS) return NAMES_SEVERAL_PIDS;
      found = v;
    }
    for (
      let q = this.#word.next(text, start);
      q >= 0 && q + 4 < end;
      q = this.#word.next(text, q + 1)
    ) {
      if (!isPidSep(text.charCodeAt(q + 3))) continue;
      let v = pidRunAt(text, q + 4, end);
      // `pid: 1234`: one white space after the separator.
      if (v === NAMES_NO_PID && isRegExpSpace(text.charCodeAt(q + 4))) {
        v = pidRunAt(text, q + 5, end);
      }
      if (v === NAMES_NO_PID || v === found) continue;
      if (found !== NAMES_NO_PID || v === NAMES_SEVERAL_PIDS) return NAMES_SEVERAL_PIDS;
      found = v;
    }
    return found;
  }

  /** Forgets the remembered texts (they may be collected). */
  reset(): void {
    this.#paren.reset();
    this.#word.reset();
  }
}
