/**
 * Limits of the emulator's frames and gestures that tool parameters on the main thread need too
 * (the UI worker's touch mapping and frames use them): a leaf that imports nothing, so the main
 * thread reads them without loading the worker's code.
 */

/**
 * Emulator frames accepted at most: a side and a pixel count (a 16 Mpx display: 8K monitors and
 * the largest tablet AVDs fit, with room). A frame over either is refused, whatever was asked.
 */
export const MAX_FRAME_DIMENSION = 8_192;
export const MAX_FRAME_PIXELS = 16 * 1024 * 1024;
/** The small frame size for cheap checks (droidpilot's 108-class frame), long side in px. */
export const SMALL_FRAME_DIMENSION = 108;
/** Pinch: the scale factor's bounds and the duration's default and bounds. */
export const MIN_PINCH_SCALE = 0.25;
export const MAX_PINCH_SCALE = 4;
export const DEFAULT_PINCH_MS = 400;
export const MIN_PINCH_MS = 100;
export const MAX_PINCH_MS = 5_000;
/** Drag: the hold before moving (longer than the 400–500 ms long-press timeout), and bounds. */
export const DEFAULT_DRAG_HOLD_MS = 700;
export const MAX_DRAG_HOLD_MS = 10_000;
/** Drag: the time the finger travels the whole path, and bounds. */
export const DEFAULT_DRAG_MOVE_MS = 600;
export const MIN_DRAG_MOVE_MS = 50;
export const MAX_DRAG_MOVE_MS = 10_000;
/** Drag: the pause at the end before lifting (the drop target reacts), and bounds. */
export const DEFAULT_DRAG_DWELL_MS = 300;
export const MAX_DRAG_DWELL_MS = 5_000;
/** Drag: waypoints between start and end, at most. */
export const MAX_DRAG_WAYPOINTS = 16;
/**
 * The argument that makes a compiled keynobi binary run the emulator gRPC client process
 * (workers/grpc_child.ts) instead of a command; never typed by users.
 */
export const GRPC_CHILD_ARG = "__emulator-grpc-client";
