import { assertEquals, assertRejects } from "../assert.ts";
import { ABORTED, boundedWait, delay, raceAbort, raceTimeout } from "../../lib/core/abortable.ts";

/** An AbortSignal that counts the abort listeners attached to it right now. */
function countingSignal(): { ctl: AbortController; listeners: () => number } {
  const ctl = new AbortController();
  const signal = ctl.signal;
  let n = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((type: string, fn: EventListener, o?: AddEventListenerOptions) => {
    if (type === "abort") n++;
    add(type, fn, o);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((type: string, fn: EventListener, o?: EventListenerOptions) => {
    if (type === "abort") n--;
    remove(type, fn, o);
  }) as typeof signal.removeEventListener;
  return { ctl, listeners: () => n };
}

Deno.test("raceAbort settles like the operation and leaves no listener on the signal", async () => {
  const { ctl, listeners } = countingSignal();
  for (let i = 0; i < 1000; i++) {
    assertEquals(await raceAbort(Promise.resolve(i), ctl.signal), i);
  }
  const e = await assertRejects(() => raceAbort(Promise.reject(new Error("boom")), ctl.signal));
  assertEquals(e.message, "boom");
  assertEquals(listeners(), 0);
});

Deno.test("raceAbort resolves ABORTED when the signal aborts first, or had already", async () => {
  const ctl = new AbortController();
  const never = new Promise<number>(() => {});
  const pending = raceAbort(never, ctl.signal);
  ctl.abort();
  assertEquals(await pending, ABORTED);
  // A late rejection of the abandoned operation is not an unhandled rejection.
  let reject!: (e: Error) => void;
  const late = new Promise<number>((_, r) => reject = r);
  assertEquals(await raceAbort(late, ctl.signal), ABORTED);
  reject(new Error("late"));
  await new Promise((r) => setTimeout(r, 0));
});

Deno.test("raceTimeout resolves ABORTED after the time, and clears its timer otherwise", async () => {
  assertEquals(await raceTimeout(new Promise(() => {}), 5), ABORTED);
  // Deno's test sanitizer fails the test if the timer were left pending.
  assertEquals(await raceTimeout(Promise.resolve("x"), 60_000), "x");
});

Deno.test("delay resolves after its wait and leaves no listener on the signal", async () => {
  const { ctl, listeners } = countingSignal();
  for (let i = 0; i < 20; i++) await delay(0, ctl.signal);
  await delay(-5);
  await delay(Number.NaN);
  assertEquals(listeners(), 0);
});

Deno.test("delay rejects with the signal's reason, or the error it was given, and clears its timer", async () => {
  const ctl = new AbortController();
  const pending = delay(60_000, ctl.signal);
  ctl.abort(new Error("stop"));
  assertEquals((await assertRejects(() => pending)).message, "stop");
  assertEquals((await assertRejects(() => delay(1, ctl.signal))).message, "stop");
  const mine = await assertRejects(() => delay(1, ctl.signal, () => new Error("cancelled")));
  assertEquals(mine.message, "cancelled");
  const later = new AbortController();
  const given = delay(60_000, later.signal, () => new Error("given"));
  later.abort();
  assertEquals((await assertRejects(() => given)).message, "given");
});

Deno.test("boundedWait settles like the operation, or resolves undefined at its bound", async () => {
  assertEquals(await boundedWait(Promise.resolve(7), 60_000), 7);
  const e = await assertRejects(() => boundedWait(Promise.reject(new Error("boom")), 60_000));
  assertEquals(e.message, "boom");
  let late!: (v: string) => void;
  const never = new Promise<string>((r) => late = r);
  assertEquals(await boundedWait(never, 1), undefined);
  late("after");
});
