/**
 * A resolved node as callers see it (lib/ui/handles.ts makes it in the UI worker), and whether a
 * tap can land on it. Plain data.
 */
import type { Bounds } from "./bounds.ts";

/** What a resolved node looks like to callers (plain data; crosses the worker boundary). */
export interface NodeInfo {
  path: string;
  parentPath: string | null;
  className: string;
  text: string;
  resourceId: string;
  packageName: string;
  contentDesc: string;
  hint: string;
  bounds: Bounds;
  /** The center of the bounds (a match of a listed node carries its row's tap point instead). */
  x: number;
  y: number;
  clickable: boolean;
  longClickable: boolean;
  enabled: boolean;
  checkable: boolean;
  checked: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  selected: boolean;
  password: boolean;
  editable: boolean;
  childCount: number;
}

/**
 * Whether a tap can land on the element now: `visible` (at x, y, a point inside it that nothing
 * drawn over it covers), `under-keyboard` (only the keyboard covers it: x, y is where it shows
 * once the keyboard is hidden), or `hidden` (covered everywhere by `coveredBy`, or off screen).
 */
export type TapState = "visible" | "under-keyboard" | "hidden";
