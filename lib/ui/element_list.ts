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
 * bar, keyboard keys except the action key, whatever is drawn under something else, items
 * scrolled out of their scroll container, slivers too thin to tap, page-sized click targets,
 * obfuscated resource ids (`0_resource_name_obfuscated`), and wrappers that repeat their
 * child. A clickable element takes the labels of the plain views inside it ("Dark theme |
 * Display"); a text field shows its value quoted (`""` when empty) and its hint apart
 * (`EditText "" hint "Promo code"`; what views inside a field say, Compose's placeholder and
 * label, is its hint, never its value); checkable elements say `checked` or `unchecked`; scroll
 * containers are kept however large, one row per scrollable region, with `vertical` or
 * `horizontal` when that can be told.
 *
 * What is drawn over what decides what is listed (lib/ui/occlusion.ts): an element hidden under
 * a later-drawn window, a view that takes the touch, or a panel over its scroll container is left
 * out; a partly covered one is tapped at the center of its largest uncovered part, which is what
 * `@(x,y) WxH` gives. Rows only the keyboard covers say `under-keyboard` (hide it first).
 */
import { boundedInt } from "../core/bounds.ts";
import {
  boundsHeight,
  boundsWidth,
  intersect,
  shortClass,
  shortResourceId,
  type UiNode,
  type UiTree,
} from "./hierarchy.ts";
import type { Bounds } from "./shared/bounds.ts";
import { findKeyboard, isLoadingNode, mainWindow, statusBarNodes } from "./screen_parts.ts";
import { screenHash } from "./screen_hash.ts";
import {
  area,
  CoverIndex,
  isEditable,
  MIN_TAP_EXTENT_PX,
  PAGE_SIZED_AREA_FRACTION,
  screenGeometry,
} from "./occlusion.ts";
import { DEFAULT_MAX_ROWS, MAX_ROWS } from "./shared/limits.ts";
import { appendAll } from "../core/arrays.ts";
import type { ElementFlag, ElementList, ElementRow } from "./shared/element_types.ts";
export { DEFAULT_MAX_ROWS, MAX_ROWS };

export { isEditable };

/**
 * A label longer than this is cut at a word with `…` (a dialog's message is often a few hundred
 * characters: it is kept whole up to here).
 */
export const MAX_LABEL_CHARS = 400;
/** A cut looks back this far for a space, at most; past that it cuts mid-word. */
const MAX_WORD_CUT_LOOKBACK = 40;
/** Labels folded into one row, at most. */
const MAX_LABEL_PARTS = 4;
/** Edges of a wrapper and its only child may differ by this much (px) and still "repeat". */
const WRAPPER_SLACK_PX = 4;
/** A scroll container filling this share of an outer one makes the outer one a wrapper. */
const SCROLL_NEST_AREA_FRACTION = 0.9;

interface ElementListOptions {
  /** Default `DEFAULT_MAX_ROWS`, clamped to 1..`MAX_ROWS`. */
  maxRows?: number;
  activity?: string | null;
  /** Precomputed hash (the capture already has one). */
  screenHash?: string;
}

/** R8's resource shrinking writes this in place of every name it removed. */
const OBFUSCATED_ID = /^\d*_?resource_name_obfuscated$/;

/** The short resource id when it means something; empty for none or an obfuscated one. */
function meaningfulId(resourceId: string): string {
  const id = shortResourceId(resourceId);
  return OBFUSCATED_ID.test(id) ? "" : id;
}

function isInteractive(node: UiNode): boolean {
  return node.clickable || node.longClickable || node.checkable || isEditable(node);
}

/** A text field shows its hint: it is empty (newer Androids also put the hint in `text`). */
function showsHint(node: UiNode): boolean {
  return isEditable(node) && node.hint !== "" && (node.text === "" || node.text === node.hint);
}

function isSliver(b: Bounds): boolean {
  return boundsWidth(b) < MIN_TAP_EXTENT_PX || boundsHeight(b) < MIN_TAP_EXTENT_PX;
}

function isAncestor(a: UiNode, b: UiNode): boolean {
  return b.path.startsWith(a.path + ".");
}

/** One line: whitespace collapsed; quotes escaped by the formatter. */
function cleanText(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** `s` cut to `max` characters at a word, with `…`. */
function cutAtWord(s: string, max = MAX_LABEL_CHARS): string {
  if (s.length <= max) return s;
  const hard = s.slice(0, max - 1);
  const space = hard.lastIndexOf(" ");
  const cut = space >= 0 && hard.length - space <= MAX_WORD_CUT_LOOKBACK
    ? hard.slice(0, space)
    : hard;
  return cut.trimEnd() + "…";
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
  return cutAtWord(kept.join(" | "));
}

function ownParts(node: UiNode): string[] {
  if (isEditable(node)) {
    // A field's label is its value; a description that repeats the hint is not a value.
    const text = showsHint(node) ? "" : node.text;
    return [text, node.contentDesc === node.hint ? "" : node.contentDesc];
  }
  const parts = [node.text, node.contentDesc];
  if (node.text === "" && node.hint !== "") parts.push(node.hint);
  return parts;
}

const HORIZONTAL_SCROLL_CLASS =
  /(HorizontalScrollView|ViewPager2?|HorizontalGridView|HorizontalListView|Carousel)$/;
const VERTICAL_SCROLL_CLASS =
  /^(ScrollView|NestedScrollView|ListView|ExpandableListView|GridView|VerticalGridView|WebView)$/;

/** Which way a scroll container scrolls, from its class or how its children are laid out. */
function scrollDirection(tree: UiTree, n: UiNode): "vertical" | "horizontal" | null {
  const cls = shortClass(n.className);
  if (HORIZONTAL_SCROLL_CLASS.test(cls)) return "horizontal";
  if (VERTICAL_SCROLL_CLASS.test(cls)) return "vertical";
  const b = n.bounds;
  let h = 0, v = 0, across = 0, down = 0;
  let prev: Bounds | null = null;
  for (const id of n.children) {
    const k = tree.nodes[id].bounds;
    if (k.left < b.left || k.right > b.right) h++;
    if (k.top < b.top || k.bottom > b.bottom) v++;
    if (prev) {
      if (k.left >= prev.right - WRAPPER_SLACK_PX && k.top < prev.bottom) across++;
      else if (k.top >= prev.bottom - WRAPPER_SLACK_PX) down++;
    }
    prev = k;
  }
  if (h !== v) return h > v ? "horizontal" : "vertical";
  if (across !== down) return across > down ? "horizontal" : "vertical";
  return null;
}

/** The package of the main window (screen_parts.ts `mainWindow`), empty for an empty tree. */
function mainPackage(tree: UiTree): string {
  const main = mainWindow(tree);
  return main >= 0 ? tree.nodes[main].packageName : "";
}

interface Candidate {
  node: UiNode;
  visible: Bounds;
  /** Where a tap lands and the uncovered piece around it. */
  x: number;
  y: number;
  piece: Bounds;
  interactive: boolean;
  scrollOnly: boolean;
  parts: string[];
  hint: string;
  /** Labels of plain views inside a text field: its placeholder or label, shown as its hint. */
  hintParts: string[];
  /** Whose resource id the row shows (a covered node's, for the overlay taking its taps). */
  idNode: UiNode;
  flags: Set<ElementFlag>;
  dropped: boolean;
}

/** A listed node's flags, as a set (FLAG_ORDER orders them on the row). */
function flagsOf(tree: UiTree, n: UiNode, isKey: boolean, underKeyboard: boolean) {
  const flags = new Set<ElementFlag>();
  if (n.clickable || isKey) flags.add("click");
  if (n.longClickable) flags.add("long");
  if (isEditable(n)) flags.add("edit");
  if (n.scrollable) {
    flags.add("scroll");
    const dir = scrollDirection(tree, n);
    if (dir) flags.add(dir);
  }
  if (n.focused) flags.add("focused");
  if (n.checkable) flags.add(n.checked ? "checked" : "unchecked");
  if (n.selected) flags.add("selected");
  if (!n.enabled) flags.add("disabled");
  if (n.password) flags.add("password");
  if (isKey) flags.add("ime-action");
  else if (underKeyboard) flags.add("under-keyboard");
  return flags;
}

/** The `i`-th row shown (handle `e<i+1>`) for a kept candidate. */
function toRow(c: Candidate, i: number, actionKey: number | null | undefined): ElementRow {
  const n = c.node;
  const isKey = n.id === actionKey;
  const label = joinLabel(c.parts);
  const hint = c.hint !== "" ? c.hint : joinLabel(c.hintParts);
  return {
    handle: `e${i + 1}`,
    node: n.id,
    path: n.path,
    className: isKey ? "Key" : shortClass(n.className),
    label,
    hint: hint !== "" && hint !== label ? cutAtWord(cleanText(hint)) : "",
    editable: isEditable(n),
    resourceId: isKey ? "" : meaningfulId(c.idNode.resourceId),
    x: c.x,
    y: c.y,
    width: boundsWidth(c.piece),
    height: boundsHeight(c.piece),
    bounds: n.bounds,
    flags: FLAG_ORDER.filter((f) => c.flags.has(f)),
  };
}

/**
 * Builds the element list of `tree`. About 100 lines on purpose: one pass over the nodes in
 * document order, each step reading and writing the same per-node state (owner, candidates,
 * adopted covers); the row's flags and the rows themselves are apart (flagsOf, toRow).
 */
// deno-lint-ignore house/long-function -- one pass in document order sharing per-node state
export function buildElementList(tree: UiTree, options: ElementListOptions = {}): ElementList {
  const maxRows = clampRows(options.maxRows);
  const nodes = tree.nodes;
  const statusBar = statusBarNodes(tree);
  const keyboard = findKeyboard(tree);
  const geometry = screenGeometry(tree);
  const covers = new CoverIndex(tree, keyboard, geometry);
  const screenArea = Math.max(1, area(geometry.screen));

  // Per node: the row its labels fold into.
  const owner = new Int32Array(nodes.length).fill(-1);
  const candidates: (Candidate | undefined)[] = new Array(nodes.length);
  // Overlay → the target it covers on the same box (a click layer over a button).
  const adopted = new Map<number, UiNode>();
  let loading = false;

  for (const n of nodes) {
    const p = n.parent;
    owner[n.id] = p < 0
      ? -1
      : (candidates[p]?.interactive && !candidates[p]!.dropped)
      ? p
      : owner[p];

    if (statusBar.has(n.id)) continue;
    const isKey = keyboard !== null && n.id === keyboard.actionKey;
    if (keyboard !== null && keyboard.nodes.has(n.id) && !isKey) continue;
    const vis = geometry.visible[n.id];
    if (!loading && isLoadingNode(n) && area(vis) > 0) loading = true;

    const interactive = isInteractive(n) || isKey;
    const scrollOnly = !interactive && n.scrollable;
    const parts = scrollOnly ? [n.contentDesc] : ownParts(n);
    const hint = showsHint(n) ? n.hint : "";
    const hasLabel = parts.some((s) => s !== "") || hint !== "";
    if (!interactive && !scrollOnly && !hasLabel) continue;
    if (isSliver(vis)) continue;
    const pageSized = area(vis) >= screenArea * PAGE_SIZED_AREA_FRACTION;
    // A page-sized click target is the page; a page-sized scroll container is still a region.
    if (pageSized && !isEditable(n) && !n.checkable && !n.scrollable) continue;
    const tap = covers.tapPoint(n.id);
    if (tap.kind === "hidden") {
      // Covered by a target on its own box: taps land there, so that row takes its name.
      if (interactive && tap.by >= 0 && near(geometry.visible[tap.by], vis)) {
        const c = candidates[tap.by];
        if (c === undefined) adopted.set(tap.by, n);
        else if (joinLabel(c.parts) === "" && meaningfulId(c.idNode.resourceId) === "") {
          appendAll(c.parts, parts);
          c.idNode = n;
        }
      }
      continue;
    }
    if (!interactive && !scrollOnly && owner[n.id] >= 0) {
      // A plain label inside a row: fold it into that row. Inside a text field it is the field's
      // placeholder or label (Compose draws both as child text), never its value.
      const row = candidates[owner[n.id]]!;
      appendAll(isEditable(row.node) ? row.hintParts : row.parts, parts);
      continue;
    }
    const flags = flagsOf(tree, n, isKey, tap.kind === "under-keyboard");
    const covered = adopted.get(n.id);
    const named = covered !== undefined && !parts.some((s) => s !== "") &&
      meaningfulId(n.resourceId) === "";
    candidates[n.id] = {
      node: n,
      visible: vis,
      x: tap.x,
      y: tap.y,
      piece: tap.piece,
      interactive,
      scrollOnly,
      parts: named ? ownParts(covered!) : parts,
      hint,
      hintParts: [],
      idNode: named ? covered! : n,
      flags,
      dropped: false,
    };
  }

  const list = candidates.filter((c): c is Candidate => c !== undefined);
  dropRepeatingWrappers(list);
  const all = list.filter((c) => !c.dropped);
  const rows = all.slice(0, maxRows).map((c, i) => toRow(c, i, keyboard?.actionKey));
  return {
    package: mainPackage(tree),
    activity: options.activity ?? null,
    screenHash: options.screenHash ?? screenHash(tree, statusBar),
    total: all.length,
    rows,
    keyboard: keyboard ? keyboard.bounds : null,
    windows: tree.roots.length,
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
  "vertical",
  "horizontal",
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
  return boundedInt(v, DEFAULT_MAX_ROWS, 1, MAX_ROWS);
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
 * - a wrapper around a text field on the field's box (an input layout around its EditText), even
 *   with other rows (an end icon) inside;
 * - a scroll container around another one filling it (a pager around its list): one row per
 *   scrollable region;
 * - an unlabelled, unnamed target on the very box of an earlier row (an overlay on a button).
 */
function dropRepeatingWrappers(list: Candidate[]): void {
  // Candidates are in document order, so the rows inside a wrapper follow it directly.
  const plain = (c: Candidate) => !c.interactive && !c.scrollOnly;
  for (let i = 0; i < list.length; i++) {
    const w = list[i];
    let inner: Candidate | null = null;
    let count = 0;
    let innerScroll: Candidate | null = null;
    let innerField: Candidate | null = null;
    for (let j = i + 1; j < list.length && isAncestor(w.node, list[j].node); j++) {
      if (list[j].dropped) continue;
      count++;
      inner ??= list[j];
      if (list[j].flags.has("scroll") && fills(list[j].visible, w.visible)) innerScroll ??= list[j];
      if (list[j].flags.has("edit") && near(w.visible, list[j].visible)) innerField ??= list[j];
    }
    if (w.flags.has("scroll") && innerScroll) {
      mergeInto(w, innerScroll);
      continue;
    }
    if (innerField && !w.flags.has("edit") && !w.flags.has("scroll") && !w.node.checkable) {
      mergeInto(w, innerField);
      continue;
    }
    if (count !== 1 || inner === null) continue;
    const wLabel = joinLabel(w.parts);
    const iLabel = joinLabel(inner.parts);
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
    if (
      c.dropped || !c.interactive || joinLabel(c.parts) !== "" || c.hint !== "" ||
      meaningfulId(c.idNode.resourceId) !== ""
    ) {
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
    } else if (f === "vertical" || f === "horizontal" || f === "under-keyboard") {
      // Directions join; the keyboard flag belongs to where the tap lands.
      if (f !== "under-keyboard") to.flags.add(f);
    } else to.flags.add(f);
  }
  if (from.interactive) to.interactive = true;
  to.scrollOnly = to.scrollOnly && from.scrollOnly;
  if (to.flags.has("edit")) {
    // A field's label is its value: a wrapper's words around it are the field's hint.
    const words = joinLabel(from.parts);
    if (to.hint === "" && words !== "" && joinLabel(to.parts) === "") to.hint = words;
    appendAll(to.hintParts, from.hintParts);
    return;
  }
  to.parts = [...from.parts, ...to.parts];
}

function quote(label: string): string {
  return `"${label.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * `[e7] Button "Sign in" #sign_in @(540,1620) 880x144 click,focused`; a text field always shows
 * its value, quoted even when empty, and then its hint: `EditText "" hint "Promo code"`.
 */
export function formatRow(r: ElementRow): string {
  let s = `[${r.handle}] ${r.className}`;
  if (r.label !== "" || r.editable) s += ` ${quote(r.label)}`;
  if (r.hint !== "") s += ` hint ${quote(r.hint)}`;
  if (r.resourceId !== "") s += ` #${r.resourceId}`;
  s += ` @(${r.x},${r.y}) ${r.width}x${r.height}`;
  if (r.flags.length > 0) s += ` ${r.flags.join(",")}`;
  return s;
}

/** The header line. */
function formatHeader(list: ElementList): string {
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
