/**
 * The crash context's searches along a chunk: NextMatch (the next match remembered) must answer
 * as a fresh search, in any order of positions and texts.
 */
import { assertEquals } from "../assert.ts";
import { NextMatch } from "../../lib/logcat/next_match.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

function corpus(): string {
  let text = "aXa aXaXb (pid 1) zzq zqzq Qj\u00e9\u00e9 end";
  if (HAVE_REAL) {
    for (const f of [...Deno.readDirSync(REAL_LOGCAT)].map((e) => e.name).sort()) {
      if (f.endsWith(".txt")) text += Deno.readTextFileSync(new URL(f, REAL_LOGCAT));
    }
  }
  return text;
}

let seed = 7;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);

Deno.test("NextMatch answers as a fresh search, forwards, backwards and across texts", () => {
  const text = corpus();
  const other = text.slice(1000) + "ActivityManager";
  for (const n of ["ActivityManager", "(", "pid", "zzq"]) {
    const m = NextMatch.of(n);
    for (let k = 0; k < 2000; k++) {
      const t = k % 7 === 0 ? other : text;
      const from = k % 3 === 0 ? rnd(t.length) : Math.min(t.length, (k * 97) % t.length);
      assertEquals(m.next(t, from), t.indexOf(n, from), `${n} from ${from}`);
    }
  }
});
