/**
 * The compact element list: what the agent sees of a screen by default. Pure.
 *
 * ```
 * package: com.android.settings  activity: .Settings  elements: 12  keyboard: shown (covers y>=1517)  screen: 3f0c…
 * [e1] ImageButton "Back" @(63,219) 126x147 click
 * [e6] Switch #switch_widget @(944,414) 188x214 click,unchecked
 * [e12] Key "Search" @(994,2196) 161x156 click,ime-action
 * ```
 *
 * One row per element that matters: everything that can be clicked, long-pressed, checked, edited
 * or scrolled, and text or descriptions not already part of such an element. Left out: the status
 * bar, keyboard keys except the action key, items scrolled under a toolbar or out of their scroll
 * container, slivers too thin to tap, page-sized click targets, and wrappers that repeat their
 * child. A clickable element takes the labels of the plain views inside it ("Dark theme |
 * Display"); an empty field shows its hint; checkable elements say `checked` or `unchecked`; rows
 * the keyboard covers say `under-keyboard`. Coordinates are the visible part's center and size.
 */
import {
  type Bounds,
  boundsHeight,
  boundsWidth,
  center,
  intersect,
  shortClass,
  shortResourceId,
  type UiNode,
  type UiTree,
} from "./hierarchy.ts";
import { findKeyboard, isLoadingNode, type KeyboardInfo, statusBarNodes } from "./screen_parts.ts";
import { screenHash } from "./screen_hash.ts";

/** Rows shown when the caller names no limit (the spec's interactive rows default). */
export const DEFAULT_MAX_ROWS = 80;
/** Most rows one list may show. */
export const MAX_ROWS = 500;
/** A label longer than this is cut with `…`. */
export const MAX_LABEL_CHARS = 100;
/** Labels folded into one row, at most. */
export const MAX_LABEL_PARTS = 4;
/** An element whose visible width or height is below this (px) is a sliver, not a target. */
export const MIN_TAP_EXTENT_PX = 8;
/** A click target covering this share of the screen or more is the page, not a target. */
export const PAGE_SIZED_AREA_FRACTION = 0.8;
/** Edges of a wrapper and its only child may differ by this much (px) and still "repeat". */
export const WRAPPER_SLACK_PX = 4;
/** A scroll container filling this share of an outer one makes the outer one a wrapper. */
export const SCROLL_NEST_AREA_FRACTION = 0.9;

export type ElementFlag =
  | "click"
  | "long"
  | "edit"
  | "scroll"
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
  label: string;
  /** Short resource id (`sign_in`), empty when none. */
  resourceId: string;
  /** Center of the visible part: where a tap lands. */
  x: number;
  y: number;
  /** Size of the visible part. */
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
  /** A progress bar or spinner is visible. */
  loading: boolean;
  rotation: number;
  /** The capture had more nodes than the tree keeps. */
  truncatedTree: boolean;
}

export interface ElementListOptions {
  /** Default `DEFAULT_MAX_ROWS`, clamped to 1..`MAX_ROWS`. */
  maxRows?: number;
  activity?: string | null;
  /** Precomputed hash (the capture already has one). */
  screenHash?: string;
}

const EDIT_CLASS = /(EditText|AutoCompleteTextView|SearchAutoComplete|TextInputEditText)$/;
const TOOLBAR_CLASS = /(Toolbar|ActionBar|ActionBarContainer|AppBarLayout|TopAppBar)$/;
const TOOLBAR_ID = /(^|_)(toolbar|action_bar|app_bar|appbar|top_app_bar)(_|$)/;

/** Whether text can be typed into `node`. */
export function isEditable(node: UiNode): boolean {
  return EDIT_CLASS.test(node.className);
}

function isInteractive(node: UiNode): boolean {
  return node.clickable || node.longClickable || node.checkable || isEditable(node);
}

function isToolbar(node: UiNode): boolean {
  return TOOLBAR_CLASS.test(node.className) || TOOLBAR_ID.test(shortResourceId(node.resourceId));
}

function area(b: Bounds): number {
  return boundsWidth(b) * boundsHeight(b);
}

function isSliver(b: Bounds): boolean {
  return boundsWidth(b) < MIN_TAP_EXTENT_PX || boundsHeight(b) < MIN_TAP_EXTENT_PX;
}

function inside(b: Bounds, p: { x: number; y: number }): boolean {
  return p.x >= b.left && p.x < b.right && p.y >= b.top && p.y < b.bottom;
}

function isAncestor(a: UiNode, b: UiNode): boolean {
  return b.path.startsWith(a.path + ".");
}

/** One line: whitespace collapsed; quotes escaped by the formatter. */
export function cleanText(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** Joins label parts: drops empty ones and ones another part already contains. */
export function joinLabel(parts: readonly string[]): string {
  const kept: string[] = [];
  for (const raw of parts) {
    const p = cleanText(raw);
    if (p === "" || kept.some((k) => k.includes(p))) continue;
    for (let i = kept.length - 1; i >= 0; i--) if (p.includes(kept[i])) kept.splice(i, 1);
    kept.push(p);
    if (kept.length >= MAX_LABEL_PARTS) break;
  }
  const label = kept.join(" | ");
  return label.length > MAX_LABEL_CHARS ? label.slice(0, MAX_LABEL_CHARS - 1) + "…" : label;
}

function ownParts(node: UiNode): string[] {
  const parts = [node.text, node.contentDesc];
  if (node.text === "" && node.hint !== "") parts.push(node.hint);
  return parts;
}

/** The package of the main window: the largest root that is not System UI or the keyboard. */
export function mainPackage(tree: UiTree, keyboard: KeyboardInfo | null): string {
  let best: UiNode | null = null;
  for (const id of tree.roots) {
    const r = tree.nodes[id];
    if (keyboard && id === keyboard.root) continue;
    if (r.packageName === "com.android.systemui" && tree.roots.length > 1) continue;
    if (!best || area(r.bounds) > area(best.bounds)) best = r;
  }
  return best?.packageName ?? (tree.roots.length > 0 ? tree.nodes[tree.roots[0]].packageName : "");
}

interface Candidate {
  node: UiNode;
  visible: Bounds;
  interactive: boolean;
  scrollOnly: boolean;
  parts: string[];
  flags: Set<ElementFlag>;
  dropped: boolean;
}

/** Builds the element list of `tree`. */
export function buildElementList(tree: UiTree, options: ElementListOptions = {}): ElementList {
  const maxRows = clampRows(options.maxRows);
  const nodes = tree.nodes;
  const statusBar = statusBarNodes(tree);
  const keyboard = findKeyboard(tree);
  const screen: Bounds = { left: 0, top: 0, right: tree.width, bottom: tree.height };
  const screenArea = Math.max(1, area(screen));

  const toolbars: UiNode[] = [];
  for (const n of nodes) if (isToolbar(n) && !statusBar.has(n.id)) toolbars.push(n);

  // Per node: the visible box (clipped by scroll containers and the screen), the nearest
  // scrollable ancestor, and the row its labels fold into.
  const visible: Bounds[] = new Array(nodes.length);
  const viewport: Bounds[] = new Array(nodes.length);
  const scroller = new Int32Array(nodes.length).fill(-1);
  const owner = new Int32Array(nodes.length).fill(-1);
  const candidates: (Candidate | undefined)[] = new Array(nodes.length);
  let loading = false;

  for (const n of nodes) {
    const p = n.parent;
    if (p < 0) {
      viewport[n.id] = screen;
    } else {
      const parent = nodes[p];
      viewport[n.id] = parent.scrollable ? intersect(viewport[p], parent.bounds) : viewport[p];
      scroller[n.id] = parent.scrollable ? p : scroller[p];
    }
    const vis = intersect(n.bounds, viewport[n.id]);
    visible[n.id] = vis;
    owner[n.id] = p < 0
      ? -1
      : (candidates[p]?.interactive && !candidates[p]!.dropped)
      ? p
      : owner[p];

    if (statusBar.has(n.id)) continue;
    const inKeyboard = keyboard !== null && keyboard.nodes.has(n.id);
    if (inKeyboard && n.id !== keyboard!.actionKey) continue;
    if (!loading && isLoadingNode(n) && area(vis) > 0) loading = true;

    const interactive = isInteractive(n) || n.id === keyboard?.actionKey;
    const scrollOnly = !interactive && n.scrollable;
    const hasLabel = n.text !== "" || n.contentDesc !== "" || n.hint !== "";
    if (!interactive && !scrollOnly && !hasLabel) continue;
    if (isSliver(vis)) continue;
    const c = center(vis);
    if (!inside(viewport[n.id], c)) continue;
    if (scroller[n.id] >= 0 && underToolbar(n, c, toolbars, nodes[scroller[n.id]])) continue;
    const pageSized = area(vis) >= screenArea * PAGE_SIZED_AREA_FRACTION;
    if (pageSized && !isEditable(n) && !n.checkable) continue;
    if (!interactive && !scrollOnly && owner[n.id] >= 0) {
      // A plain label inside a row: fold it into that row.
      candidates[owner[n.id]]!.parts.push(n.text, n.contentDesc);
      continue;
    }
    const flags = new Set<ElementFlag>();
    if (n.clickable || n.id === keyboard?.actionKey) flags.add("click");
    if (n.longClickable) flags.add("long");
    if (isEditable(n)) flags.add("edit");
    if (n.scrollable) flags.add("scroll");
    if (n.focused) flags.add("focused");
    if (n.checkable) flags.add(n.checked ? "checked" : "unchecked");
    if (n.selected && interactive) flags.add("selected");
    if (!n.enabled) flags.add("disabled");
    if (n.password) flags.add("password");
    if (n.id === keyboard?.actionKey) flags.add("ime-action");
    else if (keyboard && inside(keyboard.bounds, c)) flags.add("under-keyboard");
    candidates[n.id] = {
      node: n,
      visible: vis,
      interactive,
      scrollOnly,
      parts: scrollOnly ? [n.contentDesc] : ownParts(n),
      flags,
      dropped: false,
    };
  }

  const list = candidates.filter((c): c is Candidate => c !== undefined);
  dropRepeatingWrappers(list);
  const all = list.filter((c) => !c.dropped);
  const rows: ElementRow[] = [];
  for (const c of all) {
    if (rows.length >= maxRows) break;
    const n = c.node;
    const isKey = n.id === keyboard?.actionKey;
    const p = center(c.visible);
    rows.push({
      handle: `e${rows.length + 1}`,
      node: n.id,
      path: n.path,
      className: isKey ? "Key" : shortClass(n.className),
      label: joinLabel(c.parts),
      resourceId: isKey ? "" : shortResourceId(n.resourceId),
      x: p.x,
      y: p.y,
      width: boundsWidth(c.visible),
      height: boundsHeight(c.visible),
      bounds: n.bounds,
      flags: FLAG_ORDER.filter((f) => c.flags.has(f)),
    });
  }
  return {
    package: mainPackage(tree, keyboard),
    activity: options.activity ?? null,
    screenHash: options.screenHash ?? screenHash(tree, statusBar),
    total: all.length,
    rows,
    keyboard: keyboard ? keyboard.bounds : null,
    loading,
    rotation: tree.rotation,
    truncatedTree: tree.truncated,
  };
}

const FLAG_ORDER: readonly ElementFlag[] = [
  "click",
  "long",
  "edit",
  "scroll",
  "focused",
  "checked",
  "unchecked",
  "selected",
  "disabled",
  "password",
  "ime-action",
  "under-keyboard",
];

function clampRows(v: number | undefined): number {
  if (v === undefined || !Number.isFinite(v)) return DEFAULT_MAX_ROWS;
  return Math.min(MAX_ROWS, Math.max(1, Math.floor(v)));
}

/** A list item scrolled under a toolbar that is drawn over its list. */
function underToolbar(
  n: UiNode,
  c: { x: number; y: number },
  toolbars: readonly UiNode[],
  scrollContainer: UiNode,
): boolean {
  for (const t of toolbars) {
    if (t.id === n.id || isAncestor(t, n) || isAncestor(n, t)) continue;
    if (t.id === scrollContainer.id || isAncestor(scrollContainer, t)) continue;
    if (inside(t.bounds, c)) return true;
  }
  return false;
}

/** Whether `inner` covers most of `outer` (`SCROLL_NEST_AREA_FRACTION`). */
function fills(inner: Bounds, outer: Bounds): boolean {
  return area(intersect(inner, outer)) >= area(outer) * SCROLL_NEST_AREA_FRACTION;
}

function near(a: Bounds, b: Bounds): boolean {
  return Math.abs(a.left - b.left) <= WRAPPER_SLACK_PX &&
    Math.abs(a.top - b.top) <= WRAPPER_SLACK_PX &&
    Math.abs(a.right - b.right) <= WRAPPER_SLACK_PX &&
    Math.abs(a.bottom - b.bottom) <= WRAPPER_SLACK_PX;
}

/**
 * Wrappers that repeat their child go, their flags and label moving to the child:
 * - a row with exactly one row inside it, covering the same box, both acting or the outer a plain
 *   label (a widget host around its widget), or both plain labels with the same text;
 * - a scroll container around another one of the same box (a pager around its list);
 * - an unlabelled, unnamed target on the very box of an earlier row (an overlay on a button).
 */
function dropRepeatingWrappers(list: Candidate[]): void {
  // Candidates are in document order, so the rows inside a wrapper follow it directly.
  for (let i = 0; i < list.length; i++) {
    const w = list[i];
    let inner: Candidate | null = null;
    let count = 0;
    let innerScroll: Candidate | null = null;
    for (let j = i + 1; j < list.length && isAncestor(w.node, list[j].node); j++) {
      if (list[j].dropped) continue;
      count++;
      inner ??= list[j];
      if (list[j].flags.has("scroll") && fills(list[j].visible, w.visible)) innerScroll ??= list[j];
    }
    if (w.flags.has("scroll") && innerScroll) {
      mergeInto(w, innerScroll);
      continue;
    }
    if (count !== 1 || inner === null) continue;
    const wLabel = joinLabel(w.parts);
    const iLabel = joinLabel(inner.parts);
    const plain = (c: Candidate) => !c.interactive && !c.scrollOnly;
    const sameBox = near(w.visible, inner.visible);
    if (
      (plain(w) && plain(inner) && wLabel !== "" && wLabel === iLabel) ||
      (sameBox && inner.interactive && (w.interactive || plain(w)))
    ) {
      mergeInto(w, inner);
    }
  }
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c.dropped || !c.interactive || joinLabel(c.parts) !== "" || c.node.resourceId !== "") {
      continue;
    }
    for (let j = 0; j < i; j++) {
      const o = list[j];
      if (!o.dropped && o.interactive && near(o.visible, c.visible)) {
        mergeInto(c, o);
        break;
      }
    }
  }
}

function mergeInto(from: Candidate, to: Candidate): void {
  from.dropped = true;
  for (const f of from.flags) {
    if (f === "checked" || f === "unchecked") {
      if (!to.flags.has("checked") && !to.flags.has("unchecked")) to.flags.add(f);
    } else to.flags.add(f);
  }
  if (from.interactive) to.interactive = true;
  to.scrollOnly = to.scrollOnly && from.scrollOnly;
  to.parts = [...from.parts, ...to.parts];
}

function quote(label: string): string {
  return `"${label.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** `[e7] Button "Sign in" #sign_in @(540,1620) 880x144 click,focused`. */
export function formatRow(r: ElementRow): string {
  let s = `[${r.handle}] ${r.className}`;
  if (r.label !== "") s += ` ${quote(r.label)}`;
  if (r.resourceId !== "") s += ` #${r.resourceId}`;
  s += ` @(${r.x},${r.y}) ${r.width}x${r.height}`;
  if (r.flags.length > 0) s += ` ${r.flags.join(",")}`;
  return s;
}

/** The header line. */
export function formatHeader(list: ElementList): string {
  const parts = [`package: ${list.package || "unknown"}`];
  if (list.activity) parts.push(`activity: ${list.activity}`);
  parts.push(
    list.rows.length < list.total
      ? `elements: ${list.total} (showing ${list.rows.length})`
      : `elements: ${list.total}`,
  );
  if (list.keyboard) parts.push(`keyboard: shown (covers y>=${list.keyboard.top})`);
  if (list.loading) parts.push("loading");
  parts.push(`screen: ${list.screenHash}`);
  return parts.join("  ");
}

/** The list as the agent reads it: the header, then one line per row. */
export function formatElementList(list: ElementList): string {
  const lines = [formatHeader(list), ...list.rows.map(formatRow)];
  if (list.rows.length < list.total) {
    lines.push(
      `… ${list.total - list.rows.length} more elements: raise max_rows (up to ${MAX_ROWS}) ` +
        "or search with find_ui_elements",
    );
  }
  return lines.join("\n");
}
