/** Minimal assertions (no @std: JSR is unreachable). */

export class AssertionError extends Error {
  override name = "AssertionError";
}

export function assert(cond: unknown, msg = "Assertion failed"): asserts cond {
  if (!cond) throw new AssertionError(msg);
}

function canon(v: unknown): unknown {
  if (v instanceof Map) return { __map: [...v.entries()].map(([k, x]) => [k, canon(x)]) };
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, canon(o[k])]));
  }
  return v;
}

export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  const a = JSON.stringify(canon(actual));
  const e = JSON.stringify(canon(expected));
  if (a !== e) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}values differ\nactual:   ${a}\nexpected: ${e}`,
    );
  }
}

export function assertMatch(actual: string, re: RegExp, msg?: string): void {
  if (!re.test(actual)) {
    throw new AssertionError(
      `${msg ? msg + ": " : ""}${JSON.stringify(actual)} does not match ${re}`,
    );
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
  throw new AssertionError("Expected the promise to reject");
}
