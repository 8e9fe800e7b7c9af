/**
 * A logcat time read as milliseconds of its month-day and clock (for differences: a crash's
 * context window), without a regex or a string per line on the shapes logcat prints.
 */

/** Milliseconds of a logcat time's month-day and clock (for differences), or null. */
export function clockMs(time: string): number | null {
  return clockIn(time, 0, time.length);
}

/** clockMs of the time `text[start, end)`. */
export function clockIn(text: string, start: number, end: number): number | null {
  // `MM-DD hh:mm:ss.fff` (threadtime's own shape) read straight.
  if (end - start === 18 && text.charCodeAt(start + 2) === 45) {
    const c = clockThreadtime(text, start);
    if (c >= 0) return c;
  }
  // The shapes logcat prints, read at their fixed offsets (no regex per line): `MM-DD …` and
  // `YYYY-MM-DD …` / `YYYY/MM/DD …`; anything else by the pattern.
  const c2 = codeIn(text, start + 2, end), c4 = codeIn(text, start + 4, end);
  const at = c2 === 45 || c2 === 47 ? 0 : c4 === 45 || c4 === 47 ? 5 : -1;
  if (at >= 0) {
    const fast = clockAt(text, start + at, end);
    if (fast !== null) return fast;
  }
  const time = start === 0 && end === text.length ? text : text.slice(start, end);
  const m = /(\d{2})[-/](\d{2})[ T]+(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/.exec(time);
  if (!m) return null;
  const frac = m[6] ? Number(m[6].padEnd(3, "0").slice(0, 3)) : 0;
  const days = Number(m[1]) * 31 + Number(m[2]);
  return ((days * 24 + Number(m[3])) * 60 + Number(m[4])) * 60_000 + Number(m[5]) * 1000 + frac;
}

/**
 * clockMs of the 18-character `MM-DD hh:mm:ss.fff` at `o` (its `-` checked by the caller), or -1
 * when it is not that shape.
 */
function clockThreadtime(t: string, o: number): number {
  const mo = d2(t, o), dd = d2(t, o + 3), hh = d2(t, o + 6), mi = d2(t, o + 9), ss = d2(t, o + 12);
  const f0 = t.charCodeAt(o + 15) - 48, f1 = t.charCodeAt(o + 16) - 48;
  const f2 = t.charCodeAt(o + 17) - 48;
  if (
    (mo | dd | hh | mi | ss) < 0 || t.charCodeAt(o + 5) !== 32 || t.charCodeAt(o + 8) !== 58 ||
    t.charCodeAt(o + 11) !== 58 || t.charCodeAt(o + 14) !== 46 || !(f0 >= 0 && f0 <= 9) ||
    !(f1 >= 0 && f1 <= 9) || !(f2 >= 0 && f2 <= 9)
  ) {
    return -1;
  }
  const days = mo * 31 + dd;
  return ((days * 24 + hh) * 60 + mi) * 60_000 + ss * 1000 + f0 * 100 + f1 * 10 + f2;
}

/** Two decimal digits at `i` as a number, or -1 (within the caller's checked length). */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48, b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** The char code at `i` of a text that ends at `end` (NaN past it, as charCodeAt past a string). */
function codeIn(s: string, i: number, end: number): number {
  return i < end ? s.charCodeAt(i) : Number.NaN;
}

function digitsAt(s: string, i: number, end: number): number {
  const a = codeIn(s, i, end) - 48, b = codeIn(s, i + 1, end) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * clockMs's reading of `MM?DD[ T]+hh:mm:ss[.f{1,6}]` at `o` of a time ending at `end`, or null
 * when it is not there.
 */
function clockAt(t: string, o: number, end: number): number | null {
  const month = digitsAt(t, o, end), day = digitsAt(t, o + 3, end);
  const sep = codeIn(t, o + 2, end);
  if (month < 0 || day < 0 || (sep !== 45 && sep !== 47)) return null;
  let i = o + 5;
  let c = codeIn(t, i, end);
  if (c !== 32 && c !== 84) return null;
  while (c === 32 || c === 84) c = codeIn(t, ++i, end);
  const hh = digitsAt(t, i, end), mm = digitsAt(t, i + 3, end), ss = digitsAt(t, i + 6, end);
  if (
    hh < 0 || mm < 0 || ss < 0 || codeIn(t, i + 2, end) !== 58 || codeIn(t, i + 5, end) !== 58
  ) {
    return null;
  }
  i += 8;
  let frac = 0;
  if (codeIn(t, i, end) === 46) {
    // Up to 6 digits; the first 3 count, right-padded (`.5` is 500 ms).
    let n = 0;
    let scale = 100;
    for (let k = i + 1; k < i + 7; k++) {
      const d = codeIn(t, k, end) - 48;
      if (!(d >= 0 && d <= 9)) break;
      if (scale >= 1) frac += d * scale;
      scale /= 10;
      n++;
    }
    if (n === 0) frac = 0;
  }
  const days = month * 31 + day;
  return ((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + frac;
}
