/**
 * The crash context's searches along a chunk: NextMatch (the next match remembered) and
 * WindowedSearch (a bounded look ahead) must answer as a fresh search, in any order of positions
 * and texts.
 */
import { assert, assertEquals } from "../assert.ts";
import { NextMatch, SEARCH_WINDOW_CHARS, WindowedSearch } from "../../lib/logcat/next_match.ts";
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

Deno.test("WindowedSearch answers includes() for messages asked in order, skipped or going back", () => {
  const text = corpus();
  const other = text.slice(333) + "ActivityManager";
  const lines: [number, number][] = [];
  for (let i = 0; i < text.length;) {
    const nl = text.indexOf("\n", i);
    const e = nl < 0 ? text.length : nl;
    lines.push([Math.min(e, i + 33), e]);
    i = e + 1;
  }
  let asked = 0, found = 0;
  for (
    const n of ["ActivityManager", "android", "com.google.android.gms", "zzq", "nowhere", "pid"]
  ) {
    const w = new WindowedSearch(n);
    for (let k = 0; k < lines.length; k += 1 + (k % 50 === 0 ? rnd(200) : 0)) {
      const [a, b] = lines[k];
      const want = text.slice(a, b).includes(n);
      assertEquals(w.foundIn(text, a, b), want, `${n} in line ${k}`);
      asked++;
      if (want) found++;
      if (k % 97 === 0) {
        // Another text, a stretch longer than the window, and a step back.
        assertEquals(w.foundIn(other, a, b), other.slice(a, b).includes(n));
        const far = Math.min(text.length, a + 3 * SEARCH_WINDOW_CHARS);
        assertEquals(w.foundIn(text, a, far), text.slice(a, far).includes(n));
        const [pa, pb] = lines[Math.max(0, k - 40)];
        assertEquals(w.foundIn(text, pa, pb), text.slice(pa, pb).includes(n));
      }
    }
  }
  assert(asked > 1000 && found > 100, `asked ${asked}, found ${found}`);
});
