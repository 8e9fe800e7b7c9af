/**
 * Array helpers that stay safe at any length. `target.push(...items)` passes every item as a
 * call argument, and past roughly 100k items V8 throws `RangeError: Maximum call stack size
 * exceeded`; `appendAll` appends one by one. tests/core/arrays_test.ts keeps `push(...` out of
 * lib/ and workers/.
 */

/** Appends every item of `items` to `target`, in order; returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
