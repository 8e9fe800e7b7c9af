/**
 * The ingest path reads each line where it lies in the decoded chunk (offsets, no string per
 * field, searches that run along the chunk once): what it reads must be what the same line gives
 * on its own. Every line of the real captures and crafted edge cases (no `: ` separator before
 * lines that have one, `}` without `{` before lines with one, a needle crossing the line's end).
 */
import { assertEquals } from "../assert.ts";
import { classify, classifyAt, detectJson, detectJsonAt } from "../../lib/logcat/enrich.ts";
import {
  emptyLineSpan,
  ForwardSearch,
  type LineSpan,
  parseLine,
  parseSpanInto,
  trimLineEnd,
} from "../../lib/logcat/line_parser.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

const CRAFTED = [
  "04-04 10:53:33.874  1  2 I :",
  "04-04 10:53:33.874  1  2 I",
  "04-04 10:53:33.874  1  2 I ",
  "04-04 10:53:33.874  1  2 I Tag without separator",
  "04-04 10:53:33.874  1  2 I Tag:",
  "04-04 10:53:33.874  1  2 W Tag: x}",
  "04-04 10:53:33.874  1  2 W Tag: ends ]   ",
  '04-04 10:53:33.874  1  2 W Tag: {"a": [1, 2]}',
  "04-04 10:53:33.874  1  2 W art: Background concurrent copying GC freed",
  "04-04 10:53:33.874  1  2 W art: no collection here: G",
  "C",
  "--------- beginning of  main  ",
  "--------- switch to crash",
  "01-17 21:12:37.042 E/ActivityManager( 24942 ): ANR in com.x",
  "01-17 21:12:37.042 E/Tag  (1000:24942)",
  "01-17 21:12:37.042 E/Tag  (x)",
  "2023/02/26 02:19:15.049 29876 12399 Error AndroidRuntime",
  "2023/02/26 02:19:15.049 29876 12399 Error",
  "2023/02/26 02:19:15.049 29876 12399 Error AndroidRuntime FATAL EXCEPTION: main",
  "04-04 10:53:33.874 root 2 3 D a-very-long-tag-name-here: hello [1,2]",
  "04-04 10:53:33.874  1  2 I Tag\u00a0 : m",
  '04-04 10:53:33.8741234  1  2 W T: {"a":1}',
  "  at continuation.line(File.java:1)",
  "",
];

function fields(text: string, p: LineSpan) {
  const message = text.slice(p.msgStart, p.msgEnd);
  const tag = text.slice(p.tagStart, p.tagEnd);
  return {
    kind: p.kind,
    time: text.slice(p.timeStart, p.timeEnd),
    pid: p.pid,
    tid: p.tid,
    level: p.level,
    tag,
    message,
    json: detectJsonAt(text, p.msgStart, p.msgEnd),
    category: classifyAt(tag, text, p.msgStart, p.msgEnd, false),
  };
}

function alone(line: string) {
  const p = parseLine(line);
  return {
    kind: p.kind,
    time: p.time,
    pid: p.pid,
    tid: p.tid,
    level: p.level,
    tag: p.tag,
    message: p.message,
    json: detectJson(p.message),
    category: classify(p.tag, p.message, false),
  };
}

/** Every line of `lines` read in place from one text joined by `sep`. */
function checkInPlace(lines: string[], sep: string): number {
  const text = "x" + sep + lines.join(sep) + sep;
  const span = emptyLineSpan();
  let start = 1 + sep.length;
  for (const line of lines) {
    const end = start + line.length;
    assertEquals(fields(text, parseSpanInto(text, start, end, span)), alone(line), line);
    start = end + sep.length;
  }
  return lines.length;
}

Deno.test("a line read in place in its chunk gives what it gives alone (crafted)", () => {
  checkInPlace(CRAFTED, "\n");
  checkInPlace([...CRAFTED].reverse(), "\n");
  checkInPlace(CRAFTED, "\r\n");
});

Deno.test({
  name: "a line read in place in its chunk gives what it gives alone (real captures)",
  ignore: !HAVE_REAL,
  fn() {
    let n = 0;
    for (const e of Deno.readDirSync(REAL_LOGCAT)) {
      if (!e.isFile || !e.name.endsWith(".txt")) continue;
      const lines = Deno.readTextFileSync(new URL(e.name, REAL_LOGCAT)).split("\n").map(
        trimLineEnd,
      );
      n += checkInPlace(lines, "\n");
    }
    assertEquals(n > 2_000, true, `${n} lines`);
  },
});

Deno.test("ForwardSearch answers as a search of the range alone, in any order of ranges", () => {
  const text = "aa: b | c | d: e | f:g | h: | : | i j";
  const ranges: [number, number][] = [];
  for (let a = 0; a < text.length; a++) {
    for (let b = a; b <= text.length; b++) ranges.push([a, b]);
  }
  const lit = new ForwardSearch(": ");
  const pat = new ForwardSearch(/: |f:g|\| c \|/g);
  const plain = /: |f:g|\| c \|/;
  for (const order of [ranges, [...ranges].reverse()]) {
    for (const [a, b] of order) {
      const range = text.slice(a, b);
      const want = range.indexOf(": ");
      assertEquals(lit.find(text, a, b), want < 0 ? -1 : a + want, `${a}..${b}`);
      const got = pat.find(text, a, b);
      const hit = plain.exec(range);
      if (got === -2) continue; // the caller tests the range itself
      assertEquals(got, hit === null ? -1 : a + hit.index, `${a}..${b}`);
    }
  }
});
