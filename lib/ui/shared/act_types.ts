/**
 * `ui.act`, the one worker request a UI action is: what to check on the screen first, the steps
 * (gestures, typing, clearing a field, keys), pacing and settling. The worker builds every device
 * command from them; the main thread never writes one.
 * Plain data shared by the main thread (lib/tools/ui/act.ts builds it) and the worker
 * (lib/ui/act_service.ts runs it); type-only imports, so neither side loads the other's code.
 */
import type { Bounds } from "./bounds.ts";
import type { Match, SettleResultMessage } from "./result_types.ts";
import type { GestureResult, PathResult } from "./fast_path_types.ts";
import type { FlowSelector } from "./flows/flow_selector.ts";

export interface ActPoint {
  x: number;
  y: number;
}

/** A point, or the resolved target's tap point. */
export type ActAt = ActPoint | "target";

export type ActGesture =
  | { kind: "tap"; at: ActAt }
  | { kind: "long_press"; at: ActAt; ms: number }
  | { kind: "swipe"; from: ActPoint; to: ActPoint; ms: number; fling: boolean }
  | { kind: "pinch"; center: ActAt | "screen_center"; scale: number; ms: number }
  | { kind: "drag"; path: ActAt[]; holdMs: number; moveMs: number; dwellMs: number };

export type ActStep =
  | { kind: "gesture"; gesture: ActGesture }
  /** Types text with `input text` (checked by lib/ui/shared/text_rules.ts before the request). */
  | { kind: "text"; text: string }
  /** Types any text with the ADB keyboard's broadcast (its IME checked before the request). */
  | { kind: "unicode_text"; text: string }
  /**
   * Types any text into the target field: `input text` for what it can type; beyond that, on an
   * emulator, the clipboard and a paste (checked against the field, the user's clipboard put
   * back), else the ADB keyboard when it is installed and selected, else refused before anything
   * is done.
   */
  | { kind: "any_text"; text: string; exact: boolean }
  /** Deletes the target field's text (MOVE_END, then DEL for each character and one more). */
  | { kind: "clear" }
  /** MOVE_END, then DEL `count` times (Maestro's eraseText; at most MAX_CLEAR_KEYS). */
  | { kind: "erase"; count: number }
  /** A key: the emulator's `sendKey` when it can, else `input keyevent`. */
  | { kind: "key"; key: string }
  /** A key through `input keyevent` only (BACK to hide the keyboard). */
  | { kind: "input_key"; key: string };

export type ActTarget =
  | { kind: "none" }
  /** A capture for the screen's size and hash (points are checked against it). */
  | { kind: "screen"; expectScreenHash?: string | null }
  /** A handle or tree path, resolved on a fresh capture. */
  | {
    kind: "element";
    target: string;
    expectScreenHash?: string | null;
    requireEnabled?: boolean;
    requireEditable?: boolean;
    /**
     * The tap point must be on the element and uncovered: an element only the keyboard covers
     * gets the keyboard hidden first (BACK, paced) and is found again at its tree path; one
     * covered by something else, or off screen, is refused and nothing is done.
     */
    tappable?: boolean;
  }
  /**
   * A flow step's element (a Maestro selector, lib/ui/flows/): captured until it is tappable or
   * `timeoutMs` passes, then as `element` with `tappable` (refused with `not_found` when it never
   * showed, or covered by something else than the keyboard).
   */
  | {
    kind: "flow";
    selector: FlowSelector;
    timeoutMs: number;
    requireEnabled?: boolean;
  }
  /** The focused text field (refused when there is none). */
  | { kind: "focused"; expectScreenHash?: string | null };

/** A point the caller gave, checked against the captured screen with these parameter names. */
export interface NamedPoint extends ActPoint {
  names: [string, string];
}

export interface ActParams {
  serial: string;
  target: ActTarget;
  /** Caller-given points to check against the screen (refused when off it). */
  points?: NamedPoint[];
  steps: ActStep[];
  /** The minimum gap since this device's last action (ms; the flag or setting, resolved). */
  minIntervalMs: number;
  /** Settle and return the screen (default true). */
  observeAfter?: boolean;
  maxRows?: number;
  /** Ask for the foreground activity with the settled list (default true). */
  activity?: boolean;
  /** Changes inside it are not the response: the target's bounds, the points, or given bounds. */
  touched?: "target" | "points" | Bounds | null;
  /** A step of a longer tool (a scroll loop): its list is not the one shown to the agent. */
  internal?: boolean;
}

export interface ActResult {
  /** Milliseconds waited for the minimum gap. */
  pacedMs: number;
  /** The resolved target (element or focused field). */
  node: Match | null;
  /** Where a tap on the target lands. */
  at: ActPoint | null;
  /** The keyboard covered the target and was hidden first. */
  hidKeyboard: boolean;
  screen: { width: number; height: number; rotation: number; screenHash: string } | null;
  gestures: GestureResult[];
  keys: (PathResult & { sent: boolean })[];
  /** Null with `observeAfter: false`. */
  settle: SettleResultMessage | null;
  /**
   * How a flow names the target (export_ui_flow): the selector that picks it on the screen it was
   * acted on (null: nothing identifies it), and whether it is a password field. Null: no target.
   */
  flowTarget: { selector: FlowSelector | null; password: boolean } | null;
  /** How an `any_text` step typed (absent without one). */
  typed?: TypedVia;
}

/** The path an `any_text` step took. */
export interface TypedVia {
  via: "input_text" | "clipboard" | "adb_keyboard";
  /** The user's clipboard was put back (clipboard path only). */
  clipboardRestored?: boolean;
  /** Why the clipboard path was not used, when the device is an emulator. */
  fallback?: { code: string; reason: string } | null;
}
