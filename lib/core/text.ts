/** Cutting text to a bound: the one `…` cut lib/ uses for kept strings. */

/** `s` cut to `max` characters (UTF-16 units), the last one `…` when it was cut. Pure. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max - 1) + "…";
}
