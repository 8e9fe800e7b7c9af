/**
 * The assertions every test uses (JSR's @std/assert is not reachable from our machines). Equality is
 * structural: same prototype, same own keys (keys whose value is `undefined` are ignored), Maps,
 * Sets, Dates and byte arrays by content.
 */
export class AssertionError extends Error {
  override name = "AssertionError";
}

export function assert(cond: unknown, msg = "Assertion failed"): asserts cond {
  if (!cond) throw new AssertionError(msg);
}

export function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  if (a instanceof Uint8Array) {
    const c = b as Uint8Array;
    return a.length === c.length && a.every((v, i) => v === c[i]);
  }
  if (a instanceof Map || a instanceof Set) {
    return equal([...a.entries()], [...(b as Map<unknown, unknown>).entries()]);
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    Object.hasOwn(b, k) &&
    equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
  );
}

function show(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : Deno.inspect(v, { depth: 8 });
}

export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}values differ\n  actual:   ${show(actual)}\n  expected: ${
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

export function assertInstanceOf<T>(
  value: unknown,
  type: abstract new (...args: never[]) => T,
): asserts value is T {
  if (!(value instanceof type)) {
    throw new AssertionError(`Expected an instance of ${type.name}, got ${show(value)}`);
  }
}

type ErrorClass<E> = abstract new (...args: never[]) => E;
/** What a rejection must be: an error class, a message pattern, or a check function. */
type Expectation<E> = ErrorClass<E> | RegExp | ((e: unknown) => void);

function checkError<E>(e: unknown, expect: Expectation<E> | undefined): void {
  if (expect === undefined) return;
  if (expect instanceof RegExp) {
    const message = e instanceof Error ? e.message : String(e);
    if (!expect.test(message)) throw new AssertionError(`Wrong error message: ${message}`);
  } else if (expect.prototype instanceof Error || expect === Error) {
    assertInstanceOf(e, expect as ErrorClass<E>);
  } else {
    (expect as (e: unknown) => void)(e);
  }
}

export async function assertRejects<E = Error>(
  fn: () => Promise<unknown>,
  expect?: Expectation<E>,
): Promise<E> {
  try {
    await fn();
  } catch (e) {
    checkError(e, expect);
    return e as E;
  }
  throw new AssertionError("Expected the promise to reject");
}

export function assertThrows<E = Error>(fn: () => unknown, expect?: Expectation<E>): E {
  try {
    fn();
  } catch (e) {
    checkError(e, expect);
    return e as E;
  }
  throw new AssertionError("Expected the function to throw");
}
