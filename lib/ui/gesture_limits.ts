/**
 * Limits of gestures that both the main thread (tool parameters, the worker call's budget) and
 * the UI worker (what it sends) need: one leaf module, so neither side loads the other's code.
 */
import {
  MAX_DRAG_DWELL_MS,
  MAX_DRAG_HOLD_MS,
  MAX_DRAG_MOVE_MS,
  MAX_PINCH_MS,
} from "../emulator/limits.ts";

/** Longest gesture the worker may run (a drag at its bounds), plus input deadlines. */
export const MAX_GESTURE_BUDGET_MS = MAX_DRAG_HOLD_MS + MAX_DRAG_MOVE_MS + MAX_DRAG_DWELL_MS +
  MAX_PINCH_MS + 30_000;
