/**
 * Limits of gestures that both the main thread (tool parameters, the worker call's budget) and
 * the UI worker (what it sends) need: one leaf module, so neither side loads the other's code.
 */
import {
  MAX_DRAG_DWELL_MS,
  MAX_DRAG_HOLD_MS,
  MAX_DRAG_MOVE_MS,
  MAX_PINCH_MS,
} from "../../emulator/shared/limits.ts";

/** Longest gesture the worker may run (a drag at its bounds), plus input deadlines. */
export const MAX_GESTURE_BUDGET_MS = MAX_DRAG_HOLD_MS + MAX_DRAG_MOVE_MS + MAX_DRAG_DWELL_MS +
  MAX_PINCH_MS + 30_000;
/** Long press: default and bounds of how long the finger stays down. */
export const DEFAULT_LONG_PRESS_MS = 800;
export const MIN_LONG_PRESS_MS = 500;
export const MAX_LONG_PRESS_MS = 10_000;
/** Swipe: default and bounds of the finger's travel time. */
export const DEFAULT_SWIPE_MS = 400;
export const MIN_SWIPE_MS = 50;
export const MAX_SWIPE_MS = 10_000;
