/**
 * What is drawn over what, and where an element can be tapped. Pure.
 *
 * Paint order comes from what UI Automator gives, never from names:
 * - windows: the keyboard over app windows, System UI (bars, shade) over both; among app windows a
 *   smaller one (a dialog, a menu) over a larger one, and otherwise the later one in the dump.
 *   What each window is comes from its package and box (screen_parts.ts), never from where the
 *   dump lists it;
 * - inside a window, a parent before its children and siblings by `drawing-order` (newer dumpers),
 *   else by their place in the dump, as a `ViewGroup` draws them by default. A later sibling's
 *   whole subtree is drawn over an earlier sibling's.
 *
 * An element's tap point is covered by what is drawn later, is not inside the element, and takes
 * the touch or hides the element there:
 * - a window above (its whole box: a touch there goes to that window); an app window inside the
 *   box of an app window below it (a dialog, a menu) is modal and covers all of that window, as a
 *   touch outside a dialog goes to the dialog, unless it is a strip (narrower or shorter than
 *   `MODAL_MIN_WIDTH_FRACTION` / `MODAL_MIN_HEIGHT_FRACTION` of the screen: the gesture areas
 *   along the edges, a handle), which covers only its box;
 * - a view that takes touches (clickable, long-clickable, checkable, editable or scrollable);
 * - for an element inside a scroll container, a panel drawn over that container, outside it and
 *   smaller than the page (a page-sized view drawn last is most often a transparent overlay): a
 *   plain view without children (a title, an icon, a background; not an empty layout, which
 *   draws nothing the dump can tell of), or a view whose solid children (such views, views that
 *   take touches, and solid views in turn) fill at least `PANEL_FILL_FRACTION` of its box (a
 *   toolbar, a bottom bar, an in-window dialog). A container whose children fill little of it (a
 *   header whose content is hidden) covers only where those children are.
 * The tap point is the center of the largest visible piece of the element that no such view
 * covers; an element with no piece at least `MIN_TAP_EXTENT_PX` wide and tall has no tap point.
 */
import { boundsHeight, boundsWidth, center, intersect } from "./hierarchy.ts";
import type { Bounds } from "./shared/bounds.ts";
import type { UiNode, UiTree } from "./hierarchy.ts";
import { isSystemWindow, type KeyboardInfo, mainWindow } from "./screen_parts.ts";

/** An element whose visible width or height is below this (px) is a sliver, not a target. */
export const MIN_TAP_EXTENT_PX = 8;
/**
 * An app window drawn over another is modal (covers all of it) only when it is at least this share
 * of the screen's width and of its height: thinner windows are strips along an edge (gesture
 * areas, handles), not dialogs.
 */
const MODAL_MIN_WIDTH_FRACTION = 0.25;
const MODAL_MIN_HEIGHT_FRACTION = 0.1;
/** A container covering this share of the screen or more is the page, not a target or a panel. */
export const PAGE_SIZED_AREA_FRACTION = 0.8;
/** A container whose children's boxes fill this share of its own is drawn as one panel. */
const PANEL_FILL_FRACTION = 0.5;
/** The screen is cut into this many columns and rows of cells to find covers near a point. */
const COVER_GRID_COLUMNS = 16;
const COVER_GRID_ROWS = 32;
/** A cover spanning more cells than this is checked against every element instead. */
const MAX_COVER_CELLS = 64;
/** With this many covers or fewer, every element checks them all (the grid costs more). */
const GRID_MIN_COVERS = 128;
/** Visible pieces of one element kept while cutting covers out of it (the largest are kept). */
const MAX_VISIBLE_PIECES = 32;

/** A view group: with no children in the dump, it draws at most a background. */
const LAYOUT_CLASS = /(Layout|ViewGroup)$/;
const EDIT_CLASS = /(EditText|AutoCompleteTextView|SearchAutoComplete|TextInputEditText)$/;

/** Whether text can be typed into `node`. */
export function isEditable(node: UiNode): boolean {
  return EDIT_CLASS.test(node.className);
}

/** Whether a touch on `node` is taken by it (and so not passed to what is under it). */
function takesTouches(node: UiNode): boolean {
  return node.clickable || node.longClickable || node.checkable || node.scrollable ||
    isEditable(node);
}

export function area(b: Bounds): number {
  return boundsWidth(b) * boundsHeight(b);
}

/** Per node: the part on screen (clipped by the screen and its scroll containers). */
interface ScreenGeometry {
  /** The node's bounds clipped by its scroll containers and the screen. */
  visible: Bounds[];
  /** The area its scroll containers and the screen leave for it. */
  viewport: Bounds[];
  /** The nearest scrollable ancestor, -1 when none. */
  scroller: Int32Array;
  screen: Bounds;
}

export function screenGeometry(tree: UiTree): ScreenGeometry {
  const nodes = tree.nodes;
  const screen: Bounds = { left: 0, top: 0, right: tree.width, bottom: tree.height };
  const visible: Bounds[] = new Array(nodes.length);
  const viewport: Bounds[] = new Array(nodes.length);
  const scroller = new Int32Array(nodes.length).fill(-1);
  for (const n of nodes) {
    const p = n.parent;
    if (p < 0) viewport[n.id] = screen;
    else {
      const parent = nodes[p];
      viewport[n.id] = parent.scrollable ? intersect(viewport[p], parent.bounds) : viewport[p];
      scroller[n.id] = parent.scrollable ? p : scroller[p];
    }
    visible[n.id] = intersect(n.bounds, viewport[n.id]);
  }
  return { visible, viewport, scroller, screen };
}

/** Window layers, bottom to top. */
const APP_LAYER = 0;
const IME_LAYER = 1;
const SYSTEM_LAYER = 2;

/** Paint positions: a larger one is drawn later. */
interface PaintOrder {
  /** Per node id: its paint position. */
  pos: Int32Array;
  /** Per node id: the last paint position inside its subtree (its own when it has no children). */
  end: Int32Array;
  /** Node ids by paint position. */
  byPos: Int32Array;
  /** Window roots, bottom to top. */
  windows: number[];
}

/** The order the screen is painted in (see the module comment). */
function paintOrder(tree: UiTree, keyboard: KeyboardInfo | null): PaintOrder {
  const nodes = tree.nodes;
  const main = mainWindow(tree);
  const layer = (id: number) =>
    keyboard !== null && id === keyboard.root
      ? IME_LAYER
      : isSystemWindow(tree, id, main)
      ? SYSTEM_LAYER
      : APP_LAYER;
  const windows = tree.roots.map((id, i) => ({
    id,
    i,
    layer: layer(id),
    a: area(nodes[id].bounds),
  }))
    .sort((x, y) => x.layer - y.layer || y.a - x.a || x.i - y.i)
    .map((w) => w.id);
  const pos = new Int32Array(nodes.length);
  const end = new Int32Array(nodes.length);
  const byPos = new Int32Array(nodes.length);
  let next = 0;
  // Iterative preorder; a node's `end` is set once its subtree has been numbered.
  const stack: number[] = [];
  for (let w = windows.length - 1; w >= 0; w--) stack.push(windows[w]);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id < 0) {
      end[~id] = next - 1;
      continue;
    }
    pos[id] = next;
    byPos[next] = id;
    next++;
    stack.push(~id);
    const kids = nodes[id].children;
    if (kids.length === 0) continue;
    const ordered = kids.length === 1 ? kids : drawOrdered(nodes, kids);
    for (let k = ordered.length - 1; k >= 0; k--) stack.push(ordered[k]);
  }
  return { pos, end, byPos: byPos.subarray(0, next), windows };
}

function drawOrdered(nodes: readonly UiNode[], kids: readonly number[]): number[] {
  const key = (id: number, i: number) => nodes[id].drawingOrder >= 0 ? nodes[id].drawingOrder : i;
  let sorted = true;
  for (let i = 1; i < kids.length && sorted; i++) {
    if (key(kids[i], i) < key(kids[i - 1], i - 1)) sorted = false;
  }
  if (sorted) return kids as number[];
  return kids.map((id, i) => ({ id, i, k: key(id, i) }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.id);
}

const TOUCH = 0;
const WINDOW = 1;
const PANEL = 2;

interface Occluder {
  id: number;
  pos: number;
  box: Bounds;
  kind: number;
  keyboard: boolean;
}

/** Where a tap on an element lands, or why it cannot. */
export type TapPoint =
  | {
    kind: "visible";
    x: number;
    y: number;
    /** The uncovered piece the point is the center of. */
    piece: Bounds;
  }
  | {
    /** Only the keyboard covers it: hide the keyboard first. `piece` is what shows then. */
    kind: "under-keyboard";
    x: number;
    y: number;
    piece: Bounds;
  }
  | {
    /** Off screen, a sliver, or covered by `by` (a node id; -1 when nothing is on screen). */
    kind: "hidden";
    by: number;
  };

function overlaps(a: Bounds, b: Bounds): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

function usable(b: Bounds): boolean {
  return boundsWidth(b) >= MIN_TAP_EXTENT_PX && boundsHeight(b) >= MIN_TAP_EXTENT_PX;
}

/** `a` without `c`: up to four boxes (the bands above, below, left and right of `c`). */
function subtract(a: Bounds, c: Bounds, out: Bounds[]): void {
  if (!overlaps(a, c)) {
    out.push(a);
    return;
  }
  if (c.top > a.top) out.push({ left: a.left, top: a.top, right: a.right, bottom: c.top });
  if (c.bottom < a.bottom) {
    out.push({ left: a.left, top: c.bottom, right: a.right, bottom: a.bottom });
  }
  const top = Math.max(a.top, c.top), bottom = Math.min(a.bottom, c.bottom);
  if (c.left > a.left) out.push({ left: a.left, top, right: c.left, bottom });
  if (c.right < a.right) out.push({ left: c.right, top, right: a.right, bottom });
}

/** The pieces of `box` no cover in `covers` overlaps, thin ones dropped, the largest kept. */
function uncovered(box: Bounds, covers: readonly Bounds[]): Bounds[] {
  let pieces = usable(box) ? [box] : [];
  for (const c of covers) {
    if (pieces.length === 0) break;
    const next: Bounds[] = [];
    for (const p of pieces) subtract(p, c, next);
    pieces = next.filter(usable);
    if (pieces.length > MAX_VISIBLE_PIECES) {
      pieces.sort((a, b) => area(b) - area(a));
      pieces.length = MAX_VISIBLE_PIECES;
    }
  }
  return pieces;
}

function largest(pieces: readonly Bounds[]): Bounds {
  let best = pieces[0];
  for (const p of pieces) if (area(p) > area(best)) best = p;
  return best;
}

/** The screen's covers: what each element's tap point must avoid. */
export class CoverIndex {
  readonly order: PaintOrder;
  readonly geometry: ScreenGeometry;
  #tree: UiTree;
  /** Occluders in paint order. */
  #occ: Occluder[] = [];
  /** Per grid cell, the indexes (in `#occ`) of covers overlapping it, in paint order. */
  #cells: number[][] = [];
  /** Covers too large for the grid, in paint order. */
  #large: number[] = [];
  #cellW = 1;
  #cellH = 1;
  /** Per cover, the last query that collected it (so a cover in many cells counts once). */
  #stamp: Int32Array = new Int32Array(0);
  #query = 0;

  constructor(tree: UiTree, keyboard: KeyboardInfo | null, geometry = screenGeometry(tree)) {
    this.#tree = tree;
    this.geometry = geometry;
    this.order = paintOrder(tree, keyboard);
    const nodes = tree.nodes;
    const pageArea = area(geometry.screen) * PAGE_SIZED_AREA_FRACTION;
    const { byPos, pos } = this.order;
    const solid = solidViews(nodes, geometry.visible);
    for (let i = 0; i < byPos.length; i++) {
      const n = nodes[byPos[i]];
      const box = n.parent < 0 ? n.bounds : geometry.visible[n.id];
      if (boundsWidth(box) <= 0 || boundsHeight(box) <= 0) continue;
      const inKeyboard = keyboard !== null && keyboard.nodes.has(n.id);
      // Inside the keyboard only its window counts: nothing of the app is drawn between keys.
      if (inKeyboard && n.id !== keyboard!.root) continue;
      let kind = -1;
      if (n.parent < 0) {
        kind = WINDOW;
        const under = this.#modalOver(n.id, keyboard);
        if (under >= 0) {
          this.#occ.push({
            id: n.id,
            pos: pos[n.id],
            box: nodes[under].bounds,
            kind,
            keyboard: false,
          });
          continue;
        }
      } else if (takesTouches(n)) kind = TOUCH;
      else if (
        area(box) < pageArea &&
        solid[n.id] === 1
      ) kind = PANEL;
      if (kind < 0) continue;
      this.#occ.push({ id: n.id, pos: pos[n.id], box, kind, keyboard: inKeyboard });
    }
    this.#index();
  }

  /** Files each cover under the grid cells its box overlaps. */
  #index(): void {
    if (this.#occ.length <= GRID_MIN_COVERS) {
      this.#large = this.#occ.map((_, i) => i);
      this.#stamp = new Int32Array(this.#occ.length);
      return;
    }
    const { screen } = this.geometry;
    this.#cellW = Math.max(1, Math.ceil(boundsWidth(screen) / COVER_GRID_COLUMNS));
    this.#cellH = Math.max(1, Math.ceil(boundsHeight(screen) / COVER_GRID_ROWS));
    this.#cells = Array.from({ length: COVER_GRID_COLUMNS * COVER_GRID_ROWS }, () => []);
    this.#stamp = new Int32Array(this.#occ.length);
    for (let i = 0; i < this.#occ.length; i++) {
      const r = this.#cellRange(this.#occ[i].box);
      if (r === null) continue;
      if ((r.c1 - r.c0 + 1) * (r.r1 - r.r0 + 1) > MAX_COVER_CELLS) {
        this.#large.push(i);
        continue;
      }
      for (let row = r.r0; row <= r.r1; row++) {
        for (let col = r.c0; col <= r.c1; col++) {
          this.#cells[row * COVER_GRID_COLUMNS + col].push(i);
        }
      }
    }
  }

  /** The cells a box overlaps (clamped to the grid), or null when it is off screen. */
  #cellRange(b: Bounds): { c0: number; c1: number; r0: number; r1: number } | null {
    const clampC = (v: number) => Math.min(COVER_GRID_COLUMNS - 1, Math.max(0, v));
    const clampR = (v: number) => Math.min(COVER_GRID_ROWS - 1, Math.max(0, v));
    if (b.right <= b.left || b.bottom <= b.top) return null;
    return {
      c0: clampC(Math.floor(b.left / this.#cellW)),
      c1: clampC(Math.floor((b.right - 1) / this.#cellW)),
      r0: clampR(Math.floor(b.top / this.#cellH)),
      r1: clampR(Math.floor((b.bottom - 1) / this.#cellH)),
    };
  }

  /** The largest app window drawn under window `root` whose box holds it, or -1. */
  #modalOver(root: number, keyboard: KeyboardInfo | null): number {
    const nodes = this.#tree.nodes;
    const windows = this.order.windows;
    const main = mainWindow(this.#tree);
    const app = (id: number) =>
      (keyboard === null || id !== keyboard.root) && !isSystemWindow(this.#tree, id, main);
    if (!app(root)) return -1;
    const b = nodes[root].bounds;
    const screen = this.geometry.screen;
    if (
      boundsWidth(b) < boundsWidth(screen) * MODAL_MIN_WIDTH_FRACTION ||
      boundsHeight(b) < boundsHeight(screen) * MODAL_MIN_HEIGHT_FRACTION
    ) return -1;
    let best = -1;
    for (const w of windows) {
      if (w === root) break;
      if (!app(w)) continue;
      const o = nodes[w].bounds;
      const holds = o.left <= b.left && o.top <= b.top && o.right >= b.right &&
        o.bottom >= b.bottom;
      if (holds && (best < 0 || area(o) > area(nodes[best].bounds))) best = w;
    }
    return best;
  }

  /** The occluders drawn after `id`'s subtree whose boxes overlap `box`. */
  coversOf(id: number, box: Bounds): Occluder[] {
    const after = this.order.end[id];
    const occ = this.#occ;
    const s = this.geometry.scroller[id];
    const scrollEnd = s >= 0 ? this.order.end[s] : -1;
    const q = ++this.#query;
    const found: number[] = [];
    const take = (i: number) => {
      if (this.#stamp[i] === q) return;
      this.#stamp[i] = q;
      const o = occ[i];
      // Drawn after the element's subtree, overlapping it; a panel hides only what scrolls
      // under it (it is drawn after the scroll container).
      if (o.pos <= after || !overlaps(o.box, box)) return;
      if (o.kind === PANEL && (s < 0 || o.pos <= scrollEnd)) return;
      found.push(i);
    };
    for (const i of this.#large) take(i);
    const r = this.#cells.length > 0 ? this.#cellRange(box) : null;
    if (r !== null) {
      for (let row = r.r0; row <= r.r1; row++) {
        for (let col = r.c0; col <= r.c1; col++) {
          for (const i of this.#cells[row * COVER_GRID_COLUMNS + col]) take(i);
        }
      }
    }
    // In paint order, so the pieces cut out (and the one chosen) do not depend on the grid.
    found.sort((a, b) => a - b);
    return found.map((i) => occ[i]);
  }

  /** Where a tap on node `id` lands (see `TapPoint`). */
  tapPoint(id: number): TapPoint {
    const box = this.geometry.visible[id];
    if (!usable(box)) return { kind: "hidden", by: -1 };
    const covers = this.coversOf(id, box);
    if (covers.length === 0) {
      const c = center(box);
      return { kind: "visible", x: c.x, y: c.y, piece: box };
    }
    const others = covers.filter((o) => !o.keyboard).map((o) => o.box);
    const withoutKeyboard = uncovered(box, others);
    if (withoutKeyboard.length === 0) return { kind: "hidden", by: biggestCover(covers, box) };
    const keys = covers.filter((o) => o.keyboard).map((o) => o.box);
    const visible = keys.length === 0 ? withoutKeyboard : uncovered(box, [...others, ...keys]);
    if (visible.length > 0) {
      const piece = largest(visible);
      const c = center(piece);
      return { kind: "visible", x: c.x, y: c.y, piece };
    }
    const piece = largest(withoutKeyboard);
    const c = center(piece);
    return { kind: "under-keyboard", x: c.x, y: c.y, piece };
  }

  /** The node drawn over (x, y) last that takes the touch there, or -1 (tests, refusals). */
  topAt(x: number, y: number): number {
    for (let i = this.#occ.length - 1; i >= 0; i--) {
      const o = this.#occ[i];
      if (o.kind === PANEL) continue;
      if (x >= o.box.left && x < o.box.right && y >= o.box.top && y < o.box.bottom) return o.id;
    }
    return -1;
  }

  get tree(): UiTree {
    return this.#tree;
  }
}

/**
 * Per node, 1 when it is drawn as a solid surface (see the module comment), else 0. Children come
 * after their parents in document order, so one pass from the end sees every child first.
 */
function solidViews(nodes: readonly UiNode[], visible: readonly Bounds[]): Uint8Array {
  const solid = new Uint8Array(nodes.length);
  const filled = new Float64Array(nodes.length);
  for (let id = nodes.length - 1; id >= 0; id--) {
    const n = nodes[id];
    const box = visible[id];
    const a = area(box);
    if (a <= 0) continue;
    const isSolid = takesTouches(n) ||
      (n.children.length === 0
        ? !LAYOUT_CLASS.test(n.className)
        : filled[id] >= a * PANEL_FILL_FRACTION);
    if (isSolid) solid[id] = 1;
    const p = n.parent;
    if (p >= 0) filled[p] += isSolid ? area(intersect(box, visible[p])) : Math.min(filled[id], a);
  }
  return solid;
}

function biggestCover(covers: readonly Occluder[], box: Bounds): number {
  let best = -1, bestArea = -1;
  for (const o of covers) {
    if (o.keyboard) continue;
    const a = area(intersect(o.box, box));
    if (a > bestArea) {
      best = o.id;
      bestArea = a;
    }
  }
  return best;
}
