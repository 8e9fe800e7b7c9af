/**
 * The distinct reasons of one ANR group. An app that stops answering is one problem however
 * the system noticed it: ActivityManager's `Reason:` says which deadline ran out first (`Input
 * dispatching timed out (…)`, `Broadcast of Intent { act=… }`, `executing service …`,
 * `ContentProvider not responding`), and the same blocked main thread trips different ones from
 * one report to the next. The group is keyed on the process (crash_parser.ts `crashSignature`);
 * this list keeps every reason it saw, each counted, so none hides behind the last.
 *
 * Two reasons are the same when they differ only in numbers, in what an Intent's braces hold or
 * in what parentheses hold (an input timeout's window token, wait and event: `(4b1f2c0 …
 * Waited 5001ms for MotionEvent)` / `(9c3d7e1 … Waited 5007ms for KeyEvent)`): the deadline
 * that ran out is the reason; the text kept is the newest seen, with the details of that one.
 */

/** Distinct reasons kept per group; the occurrences of further ones are counted apart. */
const MAX_GROUP_REASONS = 8;
/** Characters kept of each reason's text. */
const MAX_GROUP_REASON_CHARS = 300;

interface AnrReason {
  /** The newest text seen of this reason (at most MAX_GROUP_REASON_CHARS). */
  reason: string;
  /** ANRs of the group that gave this reason. */
  count: number;
}

export interface AnrReasons {
  reasons: AnrReason[];
  /** ANRs whose reason was none of the kept ones (more than MAX_GROUP_REASONS distinct). */
  other_reasons: number;
}

/** What two reasons share when they are the same reason (numbers and Intent details apart). */
export function anrReasonKey(reason: string): string {
  return reason.replace(/\d+/g, "#").replace(/\{[^}]*\}/g, "{}").replace(/\(.*\)/g, "()")
    .slice(0, 200);
}

/** A new, empty list. */
export function emptyAnrReasons(): AnrReasons {
  return { reasons: [], other_reasons: 0 };
}

/**
 * Counts `count` ANRs with `reason` (null when the report had no `Reason:` line: listed as
 * `(no reason)`) into `into`, keyed by `keys` (reason key → index in `into.reasons`).
 */
export function addAnrReason(
  into: AnrReasons,
  keys: Map<string, number>,
  reason: string | null,
  count = 1,
): void {
  const text = (reason ?? "(no reason)").split("\n")[0].slice(0, MAX_GROUP_REASON_CHARS);
  const key = anrReasonKey(text);
  const i = keys.get(key);
  if (i !== undefined) {
    into.reasons[i].count += count;
    into.reasons[i].reason = text;
  } else if (into.reasons.length < MAX_GROUP_REASONS) {
    keys.set(key, into.reasons.length);
    into.reasons.push({ reason: text, count });
  } else into.other_reasons += count;
}

/** One line for the tools' text: `2× Input dispatching timed out (…); 1× Broadcast of …`. */
export function describeAnrReasons(r: AnrReasons): string {
  const parts = r.reasons.map((x) => `${x.count}× ${x.reason}`);
  if (r.other_reasons > 0) parts.push(`${r.other_reasons}× other reasons`);
  return parts.join("; ");
}
