/** The one reading of a count, size or timeout that has a default and a maximum. */

/**
 * `v` as a whole number within `min`..`max`, or `def` when it is not a finite number (absent,
 * `NaN`, ±Infinity, another type). For values from callers, flags and files. Pure.
 */
export function boundedInt(v: unknown, def: number, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isFinite(v)) return def;
  return Math.min(max, Math.max(min, Math.floor(v)));
}
