/**
 * Limits both sides of the UI worker boundary need (tool parameters and call budgets on the main
 * thread; captures, settling and screenshots in the worker). A leaf: the main thread imports
 * this instead of the worker's capture and settle code, which re-export from here.
 */
import { boundedInt } from "../../core/bounds.ts";

/** Rows shown when the caller names no limit (the spec's interactive rows default). */
export const DEFAULT_MAX_ROWS = 80;
/** Most rows one list may show. */
export const MAX_ROWS = 500;
/** `wait_for_element` default and maximum (spec). */
export const DEFAULT_WAIT_TIMEOUT_MS = 15_000;
/** MAX_WAIT_TIMEOUT_MS (ui_service.ts). */
export const MAX_WAIT_TIMEOUT_MS = 30_000;
/** Long edge of the returned image when the caller names none (spec). */
export const DEFAULT_MAX_DIMENSION = 1_280;
/** MAX_MAX_DIMENSION (screenshot.ts). */
export const MAX_MAX_DIMENSION = 8_192;
/** `screencap`'s deadline (spec). */
export const SCREENSHOT_TIMEOUT_MS = 30_000;
/** The whole capture, retries and the wait for the device included (spec). */
export const CAPTURE_TOTAL_DEADLINE_MS = 60_000;
/** Whole settle, the most a caller may ask for. */
export const MAX_SETTLE_MAX_MS = 30_000;
/** compare_ui_state: changes listed per kind, default and most. */
export const DEFAULT_COMPARE_RESULTS = 30;
export const MAX_COMPARE_RESULTS = 100;
/** Default minimum gap between two actions on one device (droidpilot's pacing). */
export const DEFAULT_MIN_ACTION_INTERVAL_MS = 300;
/** The largest minimum gap between two actions on one device (flag or setting). */
export const MAX_MIN_ACTION_INTERVAL_MS = 10_000;

/** A gap from the flag or the setting, clamped to 0..MAX; not a number → the default. */
export function clampInterval(v: unknown): number {
  return boundedInt(v, DEFAULT_MIN_ACTION_INTERVAL_MS, 0, MAX_MIN_ACTION_INTERVAL_MS);
}

/** `--min-interval-ms`, else `mcp.min_action_interval_ms` from settings, else the default. */
export function chooseInterval(flag: number | null, setting: unknown): number {
  if (flag !== null) return clampInterval(flag);
  return clampInterval(setting);
}

/** get_ui_hierarchy `screenshot: true`: the picture's long edge by default (a small look). */
export const DEFAULT_LOOK_DIMENSION = 480;
