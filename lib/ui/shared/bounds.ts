/** A node's box in screen pixels, as UI Automator dumps it: the one shape both threads name. */

export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
