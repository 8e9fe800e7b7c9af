/**
 * A worker that swaps paths in a tight loop until told to stop, for the check-then-use race
 * tests. Message: `{ stop: SharedArrayBuffer, cycle: [from, to][] }`; each round runs the renames
 * of `cycle` in order (they must bring the tree back to where it started). Posts the number of
 * rounds when it stops.
 */
/// <reference lib="deno.worker" />
self.onmessage = (ev: MessageEvent<{ stop: SharedArrayBuffer; cycle: [string, string][] }>) => {
  const stop = new Int32Array(ev.data.stop);
  let rounds = 0;
  self.postMessage({ started: true });
  while (Atomics.load(stop, 0) === 0) {
    for (const [from, to] of ev.data.cycle) {
      try {
        Deno.renameSync(from, to);
      } catch {
        // A rename the test's own reads raced with; the next round tries again.
      }
    }
    rounds++;
  }
  self.postMessage({ rounds });
};
