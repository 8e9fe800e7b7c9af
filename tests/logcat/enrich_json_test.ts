/**
 * detectJson refuses by shape what JSON.parse would refuse, and accepts exactly what it accepts:
 * compared with the plain parse on crafted messages and every line of the real captures.
 */
import { assertEquals } from "../assert.ts";
import { detectJson, MAX_JSON_DETECT_CHARS } from "../../lib/logcat/enrich.ts";
import { emptyParsedLine, parseLineInto, trimLineEnd } from "../../lib/logcat/line_parser.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

/** The definition: the text from the first matching bracket to the last } or ] parses. */
function byParse(message: string): boolean {
  if (message.length < 2 || message.length > MAX_JSON_DETECT_CHARS) return false;
  const t = message.replace(/ +$/, "");
  const last = t.at(-1);
  if (last !== "}" && last !== "]") return false;
  const start = t.indexOf(last === "}" ? "{" : "[");
  if (start < 0 || start >= t.length - 1) return false;
  try {
    const v = JSON.parse(t.slice(start));
    return typeof v === "object" && v !== null;
  } catch {
    return false;
  }
}

const CRAFTED = [
  '{"a":1}',
  'event {"a":[1,2,{"b":null}]}',
  '{ \t\n"a": 1 }',
  "{}",
  "{} }",
  "[]",
  "[ ]",
  "[1, 2]",
  "[-1]",
  "[true]",
  "[false, null]",
  '["x"]',
  "[[1]]",
  '[{"a":1}]',
  "Bundle[{android.intent.extra.UID=10123}]",
  "SignalStrength:{mCdma=Invalid mGsm=Invalid}",
  "[SUB0]",
  "{mLte=CellSignalStrengthLte: rssi=-61}",
  "[ 0x7f]",
  '{"unterminated":',
  '{"a":1} trailing }',
  "x]",
  "]",
  "}",
  "a{b}",
  "[tru]",
  "[nul]",
  "[.5]",
  '{"a":1}   ',
];

Deno.test("detectJson agrees with JSON.parse on crafted messages", () => {
  for (const m of CRAFTED) assertEquals(detectJson(m), byParse(m), m);
});

Deno.test({
  name: "detectJson agrees with JSON.parse on every message of the real captures",
  ignore: !HAVE_REAL,
  fn: () => {
    const p = emptyParsedLine();
    let ending = 0;
    for (const f of Deno.readDirSync(REAL_LOGCAT)) {
      if (!f.isFile || !f.name.endsWith(".txt")) continue;
      for (const raw of Deno.readTextFileSync(new URL(f.name, REAL_LOGCAT)).split("\n")) {
        const m = parseLineInto(trimLineEnd(raw), p).message;
        if (/[}\]] *$/.test(m)) ending++;
        assertEquals(detectJson(m), byParse(m), m);
      }
    }
    // The captures do hold messages the shape check must decide.
    assertEquals(ending > 50, true);
  },
});
