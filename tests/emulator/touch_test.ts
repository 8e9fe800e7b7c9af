import { assert, assertEquals } from "../assert.ts";
import {
  dragSteps,
  MAX_STROKE_STEPS,
  MIN_PINCH_SPAN_PX,
  pinchSteps,
  planPinch,
  swipeSteps,
  tapSteps,
  toNatural,
  TOUCH_PRESSURE,
} from "../../lib/emulator/touch.ts";

Deno.test("touch: screen points map to the natural display for each rotation (Studio's quadrants)", () => {
  // A 1080x2400 phone. Portrait: unchanged.
  assertEquals(toNatural({ x: 100, y: 200 }, 0, 1080, 2400), { x: 100, y: 200 });
  // Landscape (screen 2400x1080): the screen's top-left is the natural bottom-left... per q1.
  assertEquals(toNatural({ x: 100, y: 200 }, 1, 2400, 1080), { x: 880, y: 100 });
  assertEquals(toNatural({ x: 100, y: 200 }, 2, 1080, 2400), { x: 980, y: 2200 });
  assertEquals(toNatural({ x: 100, y: 200 }, 3, 2400, 1080), { x: 200, y: 2300 });
  // Every screen corner lands on the display (clamped into 0..size-1).
  for (const r of [0, 1, 2, 3]) {
    const [w, h] = r % 2 ? [2400, 1080] : [1080, 2400];
    for (const p of [{ x: 0, y: 0 }, { x: w, y: h }, { x: w, y: 0 }, { x: 0, y: h }]) {
      const n = toNatural(p, r, w, h);
      assert(n.x >= 0 && n.x <= 1079 && n.y >= 0 && n.y <= 2399, `r${r} ${JSON.stringify(n)}`);
    }
  }
  // A `wm size` override: the screen is 540x1200, the panel (hw.lcd) 1080x2400.
  assertEquals(
    toNatural({ x: 270, y: 600 }, 0, 540, 1200, { width: 1080, height: 2400 }),
    { x: 540, y: 1200 },
  );
});

Deno.test("touch: a tap is down then up with the same id; lifts have pressure 0", () => {
  const s = tapSteps({ x: 5, y: 6 });
  assertEquals(s.length, 2);
  assertEquals(s[0].event.touches[0].pressure, TOUCH_PRESSURE);
  assertEquals(s[0].event.touches[0].expiration, "NEVER_EXPIRE");
  assertEquals(s[1].event.touches[0].pressure, 0);
  assertEquals(s[1].event.touches[0].identifier, s[0].event.touches[0].identifier);
});

Deno.test("touch: a swipe dwells before lifting unless it flings; steps are bounded", () => {
  const slow = swipeSteps({ x: 0, y: 1000 }, { x: 0, y: 200 }, 400);
  const fling = swipeSteps({ x: 0, y: 1000 }, { x: 0, y: 200 }, 400, true);
  assert(slow.at(-2)!.afterMs > fling.at(-2)!.afterMs);
  assertEquals(slow.at(-1)!.event.touches[0], {
    x: 0,
    y: 200,
    identifier: 0,
    pressure: 0,
    expiration: "NEVER_EXPIRE",
  });
  const long = swipeSteps({ x: 0, y: 0 }, { x: 0, y: 10 }, 10_000);
  assert(long.length <= MAX_STROKE_STEPS + 2);
});

Deno.test("touch: a pinch keeps both fingers on the screen and reports the scale it could do", () => {
  const size = { width: 1080, height: 2400 };
  const out = planPinch({ x: 540, y: 1200 }, 2, size);
  assert(Math.abs(out.endSpan / out.startSpan - 2) < 0.01);
  assertEquals(out.start[0].y, 1200);
  // Near the left edge the span is cut to what fits.
  const edge = planPinch({ x: 100, y: 1200 }, 4, size);
  assert(edge.end[0].x >= 0 && edge.endSpan <= 200);
  assert(edge.startSpan >= MIN_PINCH_SPAN_PX);
  const steps = pinchSteps(out, 300);
  assertEquals(steps[0].event.touches.map((t) => t.identifier), [0, 1]);
  assertEquals(steps.at(-1)!.event.touches.map((t) => t.pressure), [0, 0]);
});

Deno.test("touch: a drag presses, holds, moves along the path, dwells and lifts at the end", () => {
  const steps = dragSteps({
    path: [{ x: 10, y: 10 }, { x: 10, y: 110 }, { x: 110, y: 110 }],
    holdMs: 700,
    moveMs: 320,
    dwellMs: 300,
  });
  assertEquals(steps[0].afterMs, 700);
  assertEquals(steps.at(-2)!.afterMs, 300);
  assertEquals(steps.at(-1)!.event.touches[0], {
    x: 110,
    y: 110,
    identifier: 0,
    pressure: 0,
    expiration: "NEVER_EXPIRE",
  });
  assert(
    steps.some((s) => s.event.touches[0].x === 10 && s.event.touches[0].y === 110),
    "passes the waypoint",
  );
  const moveMs = steps.slice(1, -2).reduce((a, s) => a + s.afterMs, 0);
  assert(Math.abs(moveMs - 320) <= 20, `moves take ${moveMs} ms`);
});
