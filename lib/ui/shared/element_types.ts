/**
 * The compact element list's shape (lib/ui/element_list.ts builds it in the UI worker; the tools
 * render it on the main thread). Plain data.
 */
import type { Bounds } from "./bounds.ts";

export type ElementFlag =
  | "click"
  | "long"
  | "edit"
  | "scroll"
  | "vertical"
  | "horizontal"
  | "focused"
  | "checked"
  | "unchecked"
  | "selected"
  | "disabled"
  | "password"
  | "ime-action"
  | "under-keyboard";

export interface ElementRow {
  /** `e7`: valid for the latest list of this device. */
  handle: string;
  /** The node's id in the capture's tree. */
  node: number;
  /** The node's tree path. */
  path: string;
  /** Short class name (`Button`); `Key` for the keyboard's action key. */
  className: string;
  /** What the element says; for a text field, the text typed in it (empty when none). */
  label: string;
  /** A text field's hint, shown while the field is empty; empty otherwise. */
  hint: string;
  /** Whether text can be typed into it (its label is its value, quoted even when empty). */
  editable: boolean;
  /** Short resource id (`sign_in`), empty when none or obfuscated. */
  resourceId: string;
  /**
   * Where a tap lands: the center of the largest part of it nothing covers (for an
   * `under-keyboard` row, of the part that shows once the keyboard is hidden).
   */
  x: number;
  y: number;
  /** Size of that part. */
  width: number;
  height: number;
  /** The node's full bounds as dumped. */
  bounds: Bounds;
  flags: ElementFlag[];
}

export interface ElementList {
  /** The app in front (the main window's package). */
  package: string;
  /** The resumed activity when known (`com.example/.MainActivity`), else null. */
  activity: string | null;
  screenHash: string;
  /** Rows that matter on this screen (`rows` may show fewer). */
  total: number;
  rows: ElementRow[];
  /** The soft keyboard's area, when one is shown. */
  keyboard: Bounds | null;
  /** Windows in the dump (a dump of one window cannot show the keyboard). */
  windows: number;
  /** A progress bar or spinner is visible. */
  loading: boolean;
  rotation: number;
  /** The capture had more nodes than the tree keeps. */
  truncatedTree: boolean;
}
