import { assert, assertEquals } from "../assert.ts";
import {
  FRAME_MOTION_MAX_MS,
  settle,
  type SettleCapture,
  SettleTracker,
} from "../../lib/ui/settle.ts";

interface Step {
  at: number;
  hash: string;
  outside?: string;
  loading?: boolean;
}

/** Feeds a scripted sequence through the real driver with a fake clock. */
async function run(baseline: string | null, steps: Step[], opts = {}) {
  let i = 0;
  let clock = 0;
  const tracker = new SettleTracker(baseline, opts);
  return await settle<SettleCapture & { i: number }>(tracker, {
    now: () => clock,
    sleep: () => Promise.resolve(),
    capture: () => {
      const s = steps[Math.min(i, steps.length - 1)];
      clock = s.at + (i >= steps.length ? (i - steps.length + 1) * 100 : 0);
      const c = { i, hash: s.hash, outsideHash: s.outside ?? s.hash, loading: s.loading ?? false };
      i++;
      return Promise.resolve(c);
    },
  });
}

Deno.test("settle() ignores a ripple inside the touched element and waits for the response", async () => {
  const r = await run("A", [
    { at: 100, hash: "A-ripple", outside: "A" },
    { at: 200, hash: "A-ripple", outside: "A" },
    { at: 500, hash: "A-ripple", outside: "A" },
    { at: 600, hash: "B1", outside: "B1" }, // the transition starts
    { at: 700, hash: "B2", outside: "B2" },
    { at: 800, hash: "B", outside: "B" },
    { at: 1200, hash: "B", outside: "B" },
  ]);
  assertEquals(r.capture.i, 6);
  assertEquals(r.settleMs, 1200);
  assert(r.settled && r.responded);
  assertEquals(r.reason, "stable");
});

Deno.test("settle() accepts a change only inside the touched element after the response wait", async () => {
  const r = await run("A", [
    { at: 100, hash: "A-checked", outside: "A" },
    { at: 600, hash: "A-checked", outside: "A" },
    { at: 1100, hash: "A-checked", outside: "A" },
  ], { responseWaitMs: 1000 });
  assertEquals(r.capture.i, 2);
  assert(r.settled);
  assert(!r.responded);
});

Deno.test("settle() without a baseline settles on two quiet captures", async () => {
  const r = await run(null, [{ at: 100, hash: "X" }, { at: 200, hash: "Y" }, {
    at: 550,
    hash: "Y",
  }]);
  assertEquals([r.capture.i, r.settleMs, r.reason], [2, 550, "stable"]);
});

Deno.test("settle() keeps waiting while a progress bar shows, up to the loading bound", async () => {
  const spinner = await run(null, [
    { at: 100, hash: "S", loading: true },
    { at: 500, hash: "S", loading: true },
    { at: 1500, hash: "S", loading: true },
    { at: 2000, hash: "Done" },
    { at: 2400, hash: "Done" },
  ]);
  assertEquals([spinner.capture.i, spinner.reason], [4, "stable"]);
  const stuck = await run(null, [
    { at: 100, hash: "S", loading: true },
    { at: 500, hash: "S", loading: true },
    { at: 1500, hash: "S", loading: true },
    { at: 2600, hash: "S", loading: true },
  ], { loadingWaitMs: 2000 });
  assertEquals(stuck.reason, "loading_timeout");
  assert(!stuck.settled);
});

Deno.test("settle() gives up at maxMs with the last capture", async () => {
  const steps: Step[] = [];
  for (let t = 100; t <= 3000; t += 100) steps.push({ at: t, hash: `frame${t}` });
  const r = await run("A", steps, { maxMs: 2000 });
  assertEquals(r.reason, "timeout");
  assert(!r.settled);
  assertEquals(r.settleMs, 2000);
});

Deno.test("settle() stops when the signal aborts", async () => {
  const ctl = new AbortController();
  const tracker = new SettleTracker(null);
  let n = 0;
  const p = settle(tracker, {
    signal: ctl.signal,
    capture: () => {
      if (++n === 2) ctl.abort(new Error("stop"));
      return Promise.resolve({ hash: String(n), outsideHash: String(n), loading: false });
    },
  });
  let err: unknown;
  await p.catch((e) => err = e);
  assertEquals((err as Error).message, "stop");
});

/**
 * A timeline: `tree(t)` and `pixels(t)` say what the screen is at `t` ms after the action; a
 * capture takes 100 ms and sleeps advance the clock, so the real driver runs in fake time.
 */
async function timeline(
  tree: (t: number) => string,
  pixels: ((t: number) => string) | null,
  opts = {},
) {
  let clock = 0;
  const tracker = new SettleTracker("A", opts);
  return await settle<SettleCapture & { at: number }>(tracker, {
    now: () => clock,
    sleep: (ms) => {
      clock += ms;
      return Promise.resolve();
    },
    capture: () => {
      clock += 100;
      const h = tree(clock);
      return Promise.resolve({ at: clock, hash: h, outsideHash: h, loading: false });
    },
    frames: pixels
      ? {
        hash: () => {
          clock += 2;
          return Promise.resolve(pixels(clock));
        },
      }
      : null,
  });
}

Deno.test("settle() with frames: a static screen settles on still pixels and one confirming capture", async () => {
  const tree = (t: number) => t < 400 ? "A" : "B";
  const withFrames = await timeline(tree, (t) => t < 400 ? "pA" : "pB");
  const without = await timeline(tree, null);
  assert(withFrames.settled && without.settled);
  assertEquals(withFrames.settledBy, "frames");
  assertEquals(without.settledBy, "tree");
  assertEquals(withFrames.capture.hash, "B");
  // With 100 ms captures the saving (a 100 ms pixel check and one capture instead of a 300 ms
  // quiet period over captures) is about what reacting to the first moved pixel costs here;
  // scripts/bench_emulator.ts measures it on the simulator's real timing.
  assert(
    withFrames.settleMs <= without.settleMs + 100,
    `frames ${withFrames.settleMs} ms, tree only ${without.settleMs} ms`,
  );
  assert(withFrames.frames > 0);
  assertEquals(without.frames, 0);
});

Deno.test("settle() with frames: pixels still moving under an unchanged tree settle it later", async () => {
  // The tree shows B from 400 ms; the pixels animate (a transition the dump does not see) to 1,200.
  const tree = (t: number) => t < 400 ? "A" : "B";
  const pixels = (t: number) => t < 1200 ? `p${Math.floor(t / 30)}` : "pB";
  const withFrames = await timeline(tree, pixels);
  const without = await timeline(tree, null);
  assert(without.settleMs < 1200, `tree only settles at ${without.settleMs} ms`);
  assert(withFrames.settled);
  assert(withFrames.settleMs >= 1200, `frames settle at ${withFrames.settleMs} ms`);
});

Deno.test("settle() with frames: endless motion (a blinking cursor) stops vetoing after a bound", async () => {
  const tree = (t: number) => t < 400 ? "A" : "B";
  const r = await timeline(tree, (t) => `p${Math.floor(t / 20)}`);
  assert(r.settled, r.reason);
  assertEquals(r.settledBy, "tree");
  assert(r.settleMs >= FRAME_MOTION_MAX_MS && r.settleMs < 3_000, `${r.settleMs} ms`);
});

Deno.test("settle() with frames that are unavailable falls back to captures alone", async () => {
  const tree = (t: number) => t < 400 ? "A" : "B";
  const r = await timeline(tree, () => null as unknown as string);
  const without = await timeline(tree, null);
  assertEquals([r.settled, r.settledBy], [true, "tree"]);
  assert(Math.abs(r.settleMs - without.settleMs) <= 150, `${r.settleMs} vs ${without.settleMs} ms`);
  assertEquals(r.frames, 1);
});

Deno.test("settle() with frames: a tree change that is not drawn is not missed", async () => {
  // B appears at 400 ms; at 560 ms the tree changes again (a focus state) but no pixel does.
  const tree = (t: number) => t < 400 ? "A" : t < 560 ? "B" : "B-focused";
  const r = await timeline(tree, (t) => t < 400 ? "pA" : "pB");
  assert(r.settled);
  assertEquals(r.capture.hash, "B-focused", `settled on ${r.capture.hash} at ${r.settleMs} ms`);
});
