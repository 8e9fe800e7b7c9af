/**
 * Whether the soft keyboard is shown, decided once for the element list and `hide_soft_keyboard`
 * alike. Pure.
 *
 * The dump is the signal: a dump of several windows holds the keyboard's window exactly when the
 * keyboard is on screen (the list's `keyboard: shown (covers y>=N)`). `dumpsys input_method`'s
 * `mInputShown` can disagree with it (it says what was requested, while the window animates in
 * or after an app hid it itself), so it decides only when the dump holds one window, which can
 * never show the keyboard.
 */
import type { Bounds } from "./bounds.ts";
import { parseInputShown } from "../../android/input_method.ts";

interface KeyboardState {
  shown: boolean;
  /** What decided: the dump's windows, or `dumpsys input_method` for a one-window dump. */
  source: "dump" | "dumpsys";
  /** The keyboard's area when the dump shows it. */
  bounds: Bounds | null;
}

/** Whether the dump alone can tell (it holds more than the app's window). */
export function dumpTellsKeyboard(list: { keyboard: Bounds | null; windows: number }): boolean {
  return list.keyboard !== null || list.windows > 1;
}

/**
 * The keyboard's state from the list of the screen just captured and, for a one-window dump,
 * the text of `dumpsys input_method` (null when it has no `mInputShown`: cannot tell).
 */
export function keyboardState(
  list: { keyboard: Bounds | null; windows: number },
  dumpsysInputMethod: string | null,
): KeyboardState | null {
  if (dumpTellsKeyboard(list)) {
    return { shown: list.keyboard !== null, source: "dump", bounds: list.keyboard };
  }
  const shown = dumpsysInputMethod === null ? null : parseInputShown(dumpsysInputMethod);
  return shown === null ? null : { shown, source: "dumpsys", bounds: null };
}
