/**
 * The one way a test waits for something that happens on its own time (a stream to open, a build to
 * start, a file to appear): poll a condition until it holds, with a bound, and say what was awaited
 * when the bound runs out. No test sleeps a fixed time and hopes.
 */

/** How long `waitUntil` polls unless told otherwise. */
export const WAIT_DEFAULT_TIMEOUT_MS = 15_000;
/** The longest bound a test may ask for. */
export const WAIT_MAX_TIMEOUT_MS = 120_000;
/** The pause between two polls unless told otherwise. */
export const WAIT_DEFAULT_INTERVAL_MS = 5;
/** The longest pause between two polls. */
export const WAIT_MAX_INTERVAL_MS = 1_000;
/** How much of the last polled value a timeout message quotes. */
const SHOWN_VALUE_CHARS = 2_000;

export interface WaitOptions {
  /** Give up after this long (default `WAIT_DEFAULT_TIMEOUT_MS`, at most `WAIT_MAX_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Pause between polls (default `WAIT_DEFAULT_INTERVAL_MS`, at most `WAIT_MAX_INTERVAL_MS`). */
  intervalMs?: number;
}

function bound(value: number | undefined, fallback: number, max: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0 || v > max) {
    throw new RangeError(`waitUntil: ${name} must be 0..${max} ms, got ${value}`);
  }
  return v;
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > SHOWN_VALUE_CHARS ? `${text.slice(0, SHOWN_VALUE_CHARS)}…` : text;
}

/**
 * Polls `read` until `ok` holds for what it returned, and returns that value. Throws naming `what`
 * (and quoting the last value read) once `timeoutMs` has passed.
 */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = bound(opts.timeoutMs, WAIT_DEFAULT_TIMEOUT_MS, WAIT_MAX_TIMEOUT_MS, "timeout");
  const intervalMs = bound(
    opts.intervalMs,
    WAIT_DEFAULT_INTERVAL_MS,
    WAIT_MAX_INTERVAL_MS,
    "interval",
  );
  const deadline = performance.now() + timeoutMs;
  while (true) {
    const value = await read();
    if (ok(value)) return value;
    if (performance.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${shown(value)}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls `check` until it returns true; throws naming `what` once `timeoutMs` has passed. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  opts: WaitOptions = {},
): Promise<void> {
  await pollUntil(check, (v) => v, what, opts);
}
