/**
 * The crash context reads, once per line, which pids a message names (PidMentionFinder, searching
 * along the chunk the message lies in) instead of asking mentionsPid per line per crash. Its
 * answer must be mentionsPid's for every pid: checked on every message of the real captures and
 * on crafted forms, read in place in one chunk and alone, against every number the message holds
 * ("several" sends the caller to mentionsPid, so it may only stand for two pids or a long one).
 */
import { assert, assertEquals } from "../assert.ts";
import {
  mentionsPid,
  NAMES_NO_PID,
  NAMES_SEVERAL_PIDS,
  PidMentionFinder,
} from "../../lib/logcat/pid_mentions.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

const CRAFTED = [
  "Process com.example (pid 4242) has died",
  "Killing PID: 4242",
  "pid=42421 no",
  "pid=4242",
  "PiD\t4242 tabbed",
  "pid  4242 two spaces",
  "pid :4242 no",
  "rapid 4242",
  "(4242)",
  "(04242) a leading zero",
  "x(4242y",
  "pid 4242 and (pid 4243)",
  "pid 4242 and (pid 4242) again",
  "pid\u00a04242 no-break space",
  "pid:\u20034242 em space",
  "pid:\u2003\u20034242 two spaces",
  "(1234567890123456789) too long to keep",
  "(99999999999) above 2^31",
  "(2147483647)",
  "pid",
  "(",
  "pid 4242",
  "pid=",
  "a(4242",
  "PID 4242\r",
  "(42(43",
  "((42",
  "pId:7 piD=8",
  "pid 0",
  "(0)",
  "",
];

/** Every number the message holds (maximal digit runs), and a few it does not. */
function candidates(message: string): number[] {
  const out = new Set<number>([1, 42, 4242]);
  for (const m of message.matchAll(/\d+/g)) {
    out.add(Number(m[0]));
    for (let k = 1; k < m[0].length; k++) out.add(Number(m[0].slice(k)));
  }
  return [...out].filter((p) => p > 0);
}

/** The rule as one pattern, as the crash context states it (tests/logcat/context_scan_test.ts). */
function namesByRule(message: string, pid: number): boolean {
  return new RegExp(`(?:\\(|pid[ :=]\\s?)${pid}(?!\\d)`, "i").test(message);
}

function check(message: string, mention: number): void {
  const named = candidates(message).filter((p) => mentionsPid(message, p));
  assertEquals(named, candidates(message).filter((p) => namesByRule(message, p)), message);
  if (mention === NAMES_SEVERAL_PIDS) {
    // "Several" sends the caller to mentionsPid: only for two pids or one too long to keep.
    const long = /(?:\(|pid[ :=]\s?)[1-9]\d{9,}/i.test(message);
    assert(named.length > 1 || long, `several for ${JSON.stringify(message)}`);
  } else if (named.length === 0) assertEquals(mention, NAMES_NO_PID, message);
  else assertEquals([mention], named, message);
}

function messages(): string[] {
  const out = [...CRAFTED];
  if (HAVE_REAL) {
    for (const f of [...Deno.readDirSync(REAL_LOGCAT)].map((e) => e.name).sort()) {
      if (!f.endsWith(".txt")) continue;
      for (const l of Deno.readTextFileSync(new URL(f, REAL_LOGCAT)).split("\n")) {
        out.push(l.replace(/\r+$/, ""));
      }
    }
  }
  return out;
}

Deno.test("the pids a message names are mentionsPid's, read alone", () => {
  const finder = new PidMentionFinder();
  for (const m of messages()) check(m, finder.mentionIn(m, 0, m.length));
});

Deno.test("the pids a message names are mentionsPid's, read in place along one chunk", () => {
  const all = messages();
  // Messages between line headers that name pids themselves (outside every message).
  let chunk = "";
  const spans: [number, number][] = [];
  for (const m of all) {
    chunk += "04-04 10:53:33.874 (pid 7) I pid: 7 ";
    spans.push([chunk.length, chunk.length + m.length]);
    chunk += m + "\n";
  }
  const finder = new PidMentionFinder();
  for (let k = 0; k < all.length; k++) check(all[k], finder.mentionIn(chunk, ...spans[k]));
  // In any order: going back or skipping messages answers the same.
  const back = new PidMentionFinder();
  for (let k = all.length - 1; k >= 0; k -= 3) {
    check(all[k], back.mentionIn(chunk, ...spans[k]));
  }
});
