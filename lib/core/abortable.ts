/**
 * Racing one operation against a long-lived stop condition without accumulating anything.
 *
 * `Promise.race([read(), forever])` in a loop leaks: every call adds a reaction to `forever`, and
 * each reaction keeps the race's own promise — and so the value `read()` resolved with — alive
 * until `forever` settles, which for "until the stream closes" or "until a signal" is never. A
 * logcat stream kept every chunk it read that way. `raceAbort` races against an `AbortSignal`
 * instead and removes its listener as soon as the operation settles, so a loop keeps nothing per
 * iteration. Every long-lived race in lib/, workers/ and the simulator goes through it.
 */

/** What `raceAbort` resolves to when the signal aborted before the operation settled. */
export const ABORTED: unique symbol = Symbol("aborted");
type Aborted = typeof ABORTED;

/**
 * Settles like `op`, or resolves `ABORTED` as soon as `signal` aborts (at once if it already has).
 * Nothing stays attached to `signal` once this settles. An operation that loses the race is left
 * running; a rejection it later produces is ignored (the caller stopped waiting for it).
 */
export function raceAbort<T>(op: Promise<T>, signal: AbortSignal): Promise<T | Aborted> {
  if (signal.aborted) {
    op.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | Aborted>((resolve, reject) => {
    const onAbort = () => {
      op.catch(() => {});
      resolve(ABORTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    op.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Settles like `op`, or resolves `ABORTED` after `ms` — the timer is cleared when `op` settles, so
 * nothing waits on it afterwards.
 */
export function raceTimeout<T>(op: Promise<T>, ms: number): Promise<T | Aborted> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  return raceAbort(op, ctl.signal).finally(() => clearTimeout(timer));
}

/**
 * A bounded wait: settles like `op`, or resolves `undefined` after `ms` (`op` is left running).
 * The shutdown steps, probes and flushes that give up after a while all wait with this.
 */
export async function boundedWait<T>(op: Promise<T>, ms: number): Promise<T | undefined> {
  const r = await raceTimeout(op, ms);
  return r === ABORTED ? undefined : r;
}

/**
 * Resolves after `ms` (a negative or NaN wait counts as 0). Rejects as soon as `signal` aborts
 * (at once if it already has) with `abortError()` when given, else with the signal's reason. Its
 * timer and listener are cleared whichever comes first. Every pause in lib/ and workers/ is this.
 */
export function delay(
  ms: number,
  signal?: AbortSignal,
  abortError?: () => unknown,
): Promise<void> {
  const reason = () => abortError ? abortError() : signal!.reason;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(reason());
    const onAbort = () => {
      clearTimeout(timer);
      reject(reason());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms) || 0);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
