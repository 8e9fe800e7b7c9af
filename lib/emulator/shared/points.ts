/**
 * Screen points and the straight path between two: the one interpolation both the ADB input
 * (lib/ui/actions.ts, `input motionevent` drags) and the emulator's touch strokes
 * (lib/emulator/touch.ts) step along. A leaf, so the main thread may load it.
 */

export interface Point {
  x: number;
  y: number;
}

/** `n` (at least 1) points from `from` (excluded) to `to` (included), evenly spaced, rounded. */
export function pointsAlong(from: Point, to: Point, n: number): Point[] {
  const steps = Math.max(1, Math.floor(n));
  const out: Point[] = [];
  for (let i = 1; i <= steps; i++) {
    out.push({
      x: Math.round(from.x + (to.x - from.x) * i / steps),
      y: Math.round(from.y + (to.y - from.y) * i / steps),
    });
  }
  return out;
}
