/** Bounds of a UI flow (run_ui_flow, lib/ui/shared/flows/): every count, size and time has one. */

/** Largest flow file or inline text, in bytes (each file of a runFlow counts on its own). */
export const MAX_FLOW_BYTES = 256 * 1024;
/** Steps in a flow with everything it includes (runFlow files and inline commands), at most. */
export const MAX_FLOW_STEPS = 1_000;
/** Steps run in one run at most, counting every repeat (a `repeat: while` ends here too). */
export const MAX_FLOW_STEPS_RUN = 5_000;
/** Deepest nesting of runFlow and repeat. */
export const MAX_FLOW_DEPTH = 8;
/** Largest `repeat: times`. */
export const MAX_REPEAT_TIMES = 100;
/** Whole run: default and maximum (ms). */
export const DEFAULT_FLOW_TIMEOUT_MS = 5 * 60_000;
export const MAX_FLOW_TIMEOUT_MS = 30 * 60_000;
/**
 * How long a step waits for its element (tapOn, assertVisible, …) unless it says otherwise:
 * default, and the most a caller may set (the UI worker's wait maximum).
 */
export const DEFAULT_FLOW_LOOKUP_MS = 7_000;
export const MAX_FLOW_LOOKUP_MS = 30_000;
/** scrollUntilVisible: default timeout (Maestro's) and its maximum. */
export const DEFAULT_SCROLL_UNTIL_MS = 20_000;
export const MAX_SCROLL_UNTIL_MS = 60_000;
/** Swipes one scrollUntilVisible makes at most. */
export const MAX_SCROLL_SWIPES = 50;
/** Most env variables, and the longest name and value. */
export const MAX_FLOW_ENV_VARS = 100;
export const MAX_FLOW_ENV_VALUE_CHARS = 1_000;
/** eraseText: default (Maestro's) and maximum characters. */
export const DEFAULT_ERASE_CHARS = 50;
export const MAX_ERASE_CHARS = 1_000;
/** Screenshots one run returns at most (takeScreenshot steps and the failure's). */
export const MAX_FLOW_SCREENSHOTS = 4;
/** Long edge of a flow's screenshots (small: they go to the model). */
export const FLOW_SCREENSHOT_MAX_DIMENSION = 640;
/** Swipe duration default and bounds (ms). */
export const DEFAULT_FLOW_SWIPE_MS = 400;
export const MAX_FLOW_SWIPE_MS = 10_000;
/** Element rows of the settled screen a failure returns. */
export const FLOW_FAILURE_ROWS = 80;
