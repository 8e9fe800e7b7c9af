/**
 * The few assertions the tests use (JSR's @std/assert is not reachable from our machines, so we
 * keep our own small set).
 */
export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssertionError";
  }
}

export function assert(cond: unknown, msg = "Assertion failed"): asserts cond {
  if (!cond) throw new AssertionError(msg);
}

export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}values are not equal\n  actual:   ${show(actual)}\n  expected: ${
        show(expected)
      }`,
    );
  }
}

export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (equal(actual, expected)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}values are equal: ${show(actual)}`);
  }
}

export function assertStringIncludes(actual: string, expected: string, msg?: string): void {
  if (!actual.includes(expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}expected ${show(actual)} to include ${show(expected)}`,
    );
  }
}

export function assertMatch(actual: string, re: RegExp, msg?: string): void {
  if (!re.test(actual)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}expected ${show(actual)} to match ${re}`);
  }
}

export async function assertRejects(
  fn: () => Promise<unknown>,
  check?: (e: unknown) => void,
): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    check?.(e);
    return e;
  }
  throw new AssertionError("expected the promise to reject");
}

export function assertThrows(fn: () => unknown, check?: (e: unknown) => void): unknown {
  try {
    fn();
  } catch (e) {
    check?.(e);
    return e;
  }
  throw new AssertionError("expected the function to throw");
}

function show(v: unknown): string {
  try {
    return typeof v === "string" ? JSON.stringify(v) : Deno.inspect(v, { depth: 6 });
  } catch {
    return String(v);
  }
}

export function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (a instanceof Set && b instanceof Set) {
    return a.size === b.size && [...a].every((x) => b.has(x));
  }
  if (a instanceof Map && b instanceof Map) {
    return a.size === b.size && [...a].every(([k, v]) => b.has(k) && equal(v, b.get(k)));
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object), kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  );
}
