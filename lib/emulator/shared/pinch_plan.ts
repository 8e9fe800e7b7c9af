/**
 * A pinch's two fingers as planned (lib/emulator/touch.ts planPinch, in the UI worker) and as the
 * gesture result reports them to the main thread. Plain data.
 */
import type { Point } from "./points.ts";

export interface PinchPlan {
  /** Finger 0 and finger 1, start and end (screen space). */
  start: [Point, Point];
  end: [Point, Point];
  startSpan: number;
  endSpan: number;
  /** endSpan / startSpan after keeping the fingers on the screen. */
  scale: number;
}
