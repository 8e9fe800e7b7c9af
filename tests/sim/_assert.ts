/** Minimal assertions (jsr:@std/assert is not reachable from our machines). */
import { inspect, isDeepStrictEqual } from "node:util";

export function assert(
  cond: unknown,
  msg = "Assertion failed: expected a truthy value",
): asserts cond {
  if (!cond) throw new Error(msg);
}

export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (isDeepStrictEqual(actual, expected)) return;
  throw new Error(
    `${msg ?? "Values are not equal"}:\n  actual:   ${inspect(actual, { depth: 8 })}\n` +
      `  expected: ${inspect(expected, { depth: 8 })}`,
  );
}

export async function assertRejects(f: () => Promise<unknown>, match?: RegExp): Promise<Error> {
  try {
    await f();
  } catch (e) {
    if (match && !match.test(String((e as Error).message))) {
      throw new Error(`Rejected with the wrong message: ${(e as Error).message}`);
    }
    return e as Error;
  }
  throw new Error("Expected a rejection, got none");
}
