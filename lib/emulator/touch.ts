/**
 * Touch for the emulator's `sendTouch`: points mapped from the screen the agent saw (the UI's
 * current rotation, the space of element bounds and screenshots) to the display's natural
 * orientation the emulator expects, and gestures as timed `TouchEvent` steps (tap, long press,
 * swipe, two-finger pinch, press-hold-drag). Pure. Facts: ../shared/EMULATOR.md §4.3 (quadrant
 * mapping, natural display space) and §4.4 (slots, pressure, NEVER_EXPIRE, lift = pressure 0).
 */
import type { TouchEventMsg, TouchMsg } from "./grpc_client.ts";
import { MAX_PINCH_SCALE, MIN_PINCH_SCALE } from "./shared/limits.ts";
import { type Point, pointsAlong } from "./shared/points.ts";
import type { PinchPlan } from "./shared/pinch_plan.ts";

export type { Point };

/** Pressure of a finger that is down (the emulator's MTS_PRESSURE_RANGE_MAX, as Studio sends). */
export const TOUCH_PRESSURE = 0x400;
/** How long a tap's finger stays down. */
const TAP_HOLD_MS = 40;
/** Time between two MOVE steps of a gesture (one frame at 60 Hz). */
const MOVE_STEP_MS = 16;
/** Most MOVE steps one stroke sends (longer strokes take bigger steps). */
export const MAX_STROKE_STEPS = 120;
/** A swipe or drag holds still this long before lifting, so the list does not fling. */
const DWELL_BEFORE_LIFT_MS = 150;
/** Pinch: the fingers' mean distance, as a share of the screen's short side. */
const PINCH_BASE_SPAN_FRACTION = 0.4;
/** Pinch: the fingers never come closer than this (px), or they would merge. */
export const MIN_PINCH_SPAN_PX = 48;

/**
 * A point on the screen in rotation `rotation` (0..3, Surface ROTATION_*; the same numbers as the
 * emulator's SkinRotation) of size `width`×`height` (as rotated), in the natural display space,
 * scaled to `natural` (the emulator's hw.lcd size) when given.
 */
export function toNatural(
  p: Point,
  rotation: number,
  width: number,
  height: number,
  natural?: { width: number; height: number } | null,
): Point {
  const r = ((rotation % 4) + 4) % 4;
  const wn = r % 2 === 1 ? height : width;
  const hn = r % 2 === 1 ? width : height;
  let x: number, y: number;
  switch (r) {
    case 1:
      x = height - p.y, y = p.x;
      break;
    case 2:
      x = width - p.x, y = height - p.y;
      break;
    case 3:
      x = p.y, y = width - p.x;
      break;
    default:
      x = p.x, y = p.y;
  }
  const sx = natural && wn > 0 ? natural.width / wn : 1;
  const sy = natural && hn > 0 ? natural.height / hn : 1;
  const maxX = natural ? natural.width - 1 : wn - 1;
  const maxY = natural ? natural.height - 1 : hn - 1;
  return {
    x: Math.max(0, Math.min(maxX, Math.round(x * sx))),
    y: Math.max(0, Math.min(maxY, Math.round(y * sy))),
  };
}

/** One `sendTouch` and how long to wait after it. */
export interface TouchStep {
  event: TouchEventMsg;
  afterMs: number;
}

function down(id: number, p: Point): TouchMsg {
  return { x: p.x, y: p.y, identifier: id, pressure: TOUCH_PRESSURE, expiration: "NEVER_EXPIRE" };
}

function up(id: number, p: Point): TouchMsg {
  return { x: p.x, y: p.y, identifier: id, pressure: 0, expiration: "NEVER_EXPIRE" };
}

function step(touches: TouchMsg[], afterMs: number): TouchStep {
  return { event: { touches, display: 0 }, afterMs: Math.max(0, Math.round(afterMs)) };
}

/** Points from `from` (excluded) to `to` (included), `MOVE_STEP_MS` apart over `ms`. */
function strokePoints(from: Point, to: Point, ms: number): Point[] {
  return pointsAlong(from, to, Math.min(MAX_STROKE_STEPS, Math.round(ms / MOVE_STEP_MS)));
}

export function tapSteps(p: Point): TouchStep[] {
  return [step([down(0, p)], TAP_HOLD_MS), step([up(0, p)], 0)];
}

export function longPressSteps(p: Point, ms: number): TouchStep[] {
  return [step([down(0, p)], ms), step([up(0, p)], 0)];
}

/** A one-finger stroke; `fling` lifts at speed, otherwise it dwells before lifting. */
export function swipeSteps(from: Point, to: Point, ms: number, fling = false): TouchStep[] {
  const pts = strokePoints(from, to, ms);
  const each = ms / pts.length;
  const out = [step([down(0, from)], each)];
  pts.forEach((p, i) => {
    const last = i === pts.length - 1;
    out.push(step([down(0, p)], last ? (fling ? 0 : DWELL_BEFORE_LIFT_MS) : each));
  });
  out.push(step([up(0, to)], 0));
  return out;
}

/**
 * Two fingers on a horizontal line through `center`, moving apart (scale > 1, zoom in) or
 * together (scale < 1): mean span PINCH_BASE_SPAN_FRACTION of the short side, spans
 * base/√scale → base·√scale, both kept on the screen.
 */
export function planPinch(
  center: Point,
  scale: number,
  size: { width: number; height: number },
): PinchPlan {
  const s = Math.min(MAX_PINCH_SCALE, Math.max(MIN_PINCH_SCALE, scale));
  const base = Math.min(size.width, size.height) * PINCH_BASE_SPAN_FRACTION;
  const room = 2 * Math.min(center.x, size.width - 1 - center.x);
  const clampSpan = (v: number) => Math.max(MIN_PINCH_SPAN_PX, Math.min(room, v));
  const a = clampSpan(base / Math.sqrt(s));
  const b = clampSpan(base * Math.sqrt(s));
  const at = (span: number): [Point, Point] => [
    { x: Math.round(center.x - span / 2), y: center.y },
    { x: Math.round(center.x + span / 2), y: center.y },
  ];
  return {
    start: at(a),
    end: at(b),
    startSpan: Math.round(a),
    endSpan: Math.round(b),
    scale: Math.round(b / a * 1000) / 1000,
  };
}

export function pinchSteps(plan: PinchPlan, ms: number): TouchStep[] {
  const a = strokePoints(plan.start[0], plan.end[0], ms);
  const b = strokePoints(plan.start[1], plan.end[1], ms);
  const each = ms / a.length;
  const out = [step([down(0, plan.start[0]), down(1, plan.start[1])], each)];
  for (let i = 0; i < a.length; i++) {
    out.push(
      step([down(0, a[i]), down(1, b[i])], i === a.length - 1 ? DWELL_BEFORE_LIFT_MS : each),
    );
  }
  out.push(step([up(0, plan.end[0]), up(1, plan.end[1])], 0));
  return out;
}

interface DragPlan {
  path: Point[];
  holdMs: number;
  moveMs: number;
  dwellMs: number;
}

/** Press at path[0], hold, move through the rest of the path, dwell, lift. */
export function dragSteps(plan: DragPlan): TouchStep[] {
  const [first, ...rest] = plan.path;
  const out = [step([down(0, first)], plan.holdMs)];
  const lengths = rest.map((p, i) => Math.hypot(p.x - plan.path[i].x, p.y - plan.path[i].y));
  const total = lengths.reduce((a, b) => a + b, 0) || 1;
  let prev = first;
  rest.forEach((p, i) => {
    const segMs = plan.moveMs * lengths[i] / total;
    const pts = strokePoints(prev, p, segMs);
    const each = segMs / pts.length;
    for (const q of pts) out.push(step([down(0, q)], each));
    prev = p;
  });
  if (out.length > 1) out[out.length - 1].afterMs = Math.round(plan.dwellMs);
  else out[0].afterMs += Math.round(plan.dwellMs);
  out.push(step([up(0, prev)], 0));
  return out;
}

/** Every point of `steps` mapped with `map` (screen → natural display space). */
export function mapSteps(steps: TouchStep[], map: (p: Point) => Point): TouchStep[] {
  return steps.map((s) => ({
    afterMs: s.afterMs,
    event: {
      ...s.event,
      touches: s.event.touches.map((t) => ({ ...t, ...map({ x: t.x, y: t.y }) })),
    },
  }));
}
