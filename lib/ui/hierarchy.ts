/**
 * UI Automator XML → a bounded, flat node tree with tree paths. Pure.
 *
 * The XML is repaired first (xml_sanitize.ts), then read by the dedicated scanner (xml_scan.ts),
 * which builds `UiNode`s in document order as it goes. Input the scanner does not handle (a
 * DOCTYPE, unquoted values, unclosed markup, odd names) goes to `fast-xml-parser` with
 * `preserveOrder`, walked without recursion; both readers give the same tree (a test checks
 * real, simulated and random dumps). A tree path is the dot-separated child indexes from the root
 * (`0.1.2`): the first `<node>` under `<hierarchy>` is `0` (a dump of several windows has roots
 * `0`, `1`, …), the indexing Android Studio's Layout Inspector uses.
 *
 * Bounds: XML over `MAX_HIERARCHY_XML_CHARS` is refused; nodes past `MAX_TREE_NODES` or deeper
 * than `MAX_TREE_DEPTH` are dropped and `truncated` says so; attribute values are cut at
 * `MAX_ATTRIBUTE_CHARS`.
 */
import { clip } from "../core/text.ts";
import { sanitizeHierarchyXml, type SanitizeRepair } from "./xml_sanitize.ts";
import { scanUiXml, type XmlAttrs, type XmlScanVisitor } from "./xml_scan.ts";
import type { Bounds } from "./shared/bounds.ts";

/** Largest dump accepted (characters of XML; a 1,000-node screen is about 400 k). */
export const MAX_HIERARCHY_XML_CHARS = 8 * 1024 * 1024;
/** Nodes kept from one dump; later nodes (in document order) are dropped. */
export const MAX_TREE_NODES = 20_000;
/** Deepest node kept (the root is depth 0); deeper subtrees are dropped. */
export const MAX_TREE_DEPTH = 200;
/** Deepest nesting the XML parser accepts at all (deeper dumps are refused). */
export const MAX_XML_NESTING = 1_000;
/** Longest attribute value kept; longer ones end with `…`. */
export const MAX_ATTRIBUTE_CHARS = 4_096;

export interface UiNode {
  /** Position in `UiTree.nodes` (document order). */
  id: number;
  /** Tree path, `0.1.2`. */
  path: string;
  /** Parent's id, -1 for a root. */
  parent: number;
  children: number[];
  depth: number;
  className: string;
  text: string;
  resourceId: string;
  packageName: string;
  contentDesc: string;
  /** `hint` (newer dumpers); empty when absent. */
  hint: string;
  checkable: boolean;
  checked: boolean;
  clickable: boolean;
  enabled: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  longClickable: boolean;
  password: boolean;
  selected: boolean;
  /** `NAF="true"`: not accessibility-friendly (clickable without label). */
  naf: boolean;
  bounds: Bounds;
  /**
   * `drawing-order` (newer dumpers): the position among its siblings in which the view is drawn
   * (a larger one is drawn later, over the others); -1 when the dump has none.
   */
  drawingOrder: number;
}

export interface UiTree {
  /** `<hierarchy rotation>`: 0..3 quarter turns. */
  rotation: number;
  /** Every kept node in document order; `nodes[i].id === i`. */
  nodes: UiNode[];
  /** Ids of the window roots. */
  roots: number[];
  /** The screen the roots span: their largest right and bottom edges. */
  width: number;
  height: number;
  /** Nodes were dropped by `MAX_TREE_NODES` or `MAX_TREE_DEPTH`. */
  truncated: boolean;
  /** What the sanitizer repaired. */
  repairs: SanitizeRepair[];
  /** Characters of the XML parsed. */
  xmlChars: number;
}

/** The XML could not be parsed even after repair. */
export class HierarchyParseError extends Error {
  constructor(detail: string, options?: ErrorOptions) {
    super(`Cannot parse the UI hierarchy: ${detail}`, options);
    this.name = "HierarchyParseError";
  }
}

const BOUNDS_RE = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/;

/** `[l,t][r,b]` → bounds; anything else is an empty box at the origin. */
export function parseBounds(value: string): Bounds {
  const m = BOUNDS_RE.exec(value);
  if (!m) return { left: 0, top: 0, right: 0, bottom: 0 };
  return { left: +m[1], top: +m[2], right: +m[3], bottom: +m[4] };
}

const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));/g;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Decodes the five XML entities and numeric references (the sanitizer escaped every bare `&`). */
function decodeEntities(v: string): string {
  if (!v.includes("&")) return v;
  return v.replace(ENTITY, (m, name?: string, dec?: string, hex?: string) => {
    if (name) return NAMED[name];
    const cp = dec !== undefined ? parseInt(dec, 10) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : m;
  });
}

function attr(attrs: Record<string, string>, name: string): string {
  const raw = attrs[name];
  if (typeof raw !== "string") return "";
  const v = decodeEntities(raw);
  return clip(v, MAX_ATTRIBUTE_CHARS);
}

export function makeNode(
  attrs: Record<string, string>,
  id: number,
  path: string,
  parent: number,
  depth: number,
): UiNode {
  return {
    id,
    path,
    parent,
    children: [],
    depth,
    className: attr(attrs, "class"),
    text: attr(attrs, "text"),
    resourceId: attr(attrs, "resource-id"),
    packageName: attr(attrs, "package"),
    contentDesc: attr(attrs, "content-desc"),
    hint: attr(attrs, "hint"),
    checkable: attrs.checkable === "true",
    checked: attrs.checked === "true",
    clickable: attrs.clickable === "true",
    enabled: attrs.enabled !== "false",
    focusable: attrs.focusable === "true",
    focused: attrs.focused === "true",
    scrollable: attrs.scrollable === "true",
    longClickable: attrs["long-clickable"] === "true",
    password: attrs.password === "true",
    selected: attrs.selected === "true",
    naf: attrs.NAF === "true",
    bounds: parseBounds(attrs.bounds ?? ""),
    drawingOrder: parseDrawingOrder(attrs["drawing-order"]),
  };
}

const DRAWING_ORDER_RE = /^\d{1,9}$/;

function parseDrawingOrder(v: string | undefined): number {
  return v !== undefined && DRAWING_ORDER_RE.test(v) ? Number(v) : -1;
}

/** Which XML reader `parseHierarchy` uses. */
export const HierarchyReader = {
  /** The scanner, and `fast-xml-parser` for what it does not handle (the default). */
  auto: "auto",
  /** The scanner alone: what it does not handle is refused (tests). */
  scan: "scan",
  /** `fast-xml-parser` alone (tests, the reference). */
  fastXmlParser: "fast-xml-parser",
} as const;
export type HierarchyReader = typeof HierarchyReader[keyof typeof HierarchyReader];

/** The tree as read, before its screen size is worked out. */
export interface ReadTree {
  hierarchyAttrs: XmlAttrs;
  nodes: UiNode[];
  roots: number[];
  truncated: boolean;
}

const TOP = -3;
const SKIPPED = -2;
const ROOT = -1;

/**
 * Builds nodes as the scanner reports elements: a `<node>` counts when its parent is the first
 * top-level `<hierarchy>` or a kept node, which is the set the `fast-xml-parser` walk reaches.
 */
class TreeBuilder implements XmlScanVisitor {
  hierarchyAttrs: XmlAttrs | null = null;
  readonly nodes: UiNode[] = [];
  readonly roots: number[] = [];
  truncated = false;
  /** Per open element: a kept node's id, `ROOT` or `SKIPPED`. */
  readonly #open: number[] = [];

  open(name: string, attrs: XmlAttrs, selfClosing: boolean): void {
    const stack = this.#open;
    const parent = stack.length === 0 ? TOP : stack[stack.length - 1];
    let kind = SKIPPED;
    if (name === "node") {
      if (parent >= 0 || parent === ROOT) kind = this.#addNode(attrs, parent);
    } else if (name === "hierarchy" && parent === TOP && this.hierarchyAttrs === null) {
      this.hierarchyAttrs = attrs;
      kind = ROOT;
    }
    if (!selfClosing) stack.push(kind);
  }

  close(): void {
    this.#open.pop();
  }

  #addNode(attrs: XmlAttrs, parent: number): number {
    const nodes = this.nodes;
    const depth = parent === ROOT ? 0 : nodes[parent].depth + 1;
    if (depth > MAX_TREE_DEPTH || nodes.length >= MAX_TREE_NODES) {
      this.truncated = true;
      return SKIPPED;
    }
    const id = nodes.length;
    const siblings = parent === ROOT ? this.roots : nodes[parent].children;
    const path = parent === ROOT
      ? String(siblings.length)
      : `${nodes[parent].path}.${siblings.length}`;
    nodes.push(makeNode(attrs, id, path, parent, depth));
    siblings.push(id);
    return id;
  }

  result(): ReadTree {
    if (this.hierarchyAttrs === null) {
      throw new HierarchyParseError("no <hierarchy> element after parsing");
    }
    return {
      hierarchyAttrs: this.hierarchyAttrs,
      nodes: this.nodes,
      roots: this.roots,
      truncated: this.truncated,
    };
  }
}

/**
 * The reader for what the scanner does not handle, registered by lib/ui/xml_fallback.ts (which
 * loads fast-xml-parser). Only the UI worker and tests load it, so the main thread never pays for
 * that library at start-up.
 */
let fallbackReader: ((xml: string) => ReadTree) | null = null;

export function registerFallbackReader(read: (xml: string) => ReadTree): void {
  fallbackReader = read;
}

/** Repairs, parses and bounds a UI Automator dump. Throws `HierarchyParseError`. */
export function parseHierarchy(
  text: string,
  reader: HierarchyReader = HierarchyReader.auto,
): UiTree {
  if (text.length > MAX_HIERARCHY_XML_CHARS) {
    throw new HierarchyParseError(
      `the dump has ${text.length} characters, the limit is ${MAX_HIERARCHY_XML_CHARS}`,
    );
  }
  let sanitized;
  try {
    sanitized = sanitizeHierarchyXml(text);
  } catch (e) {
    throw new HierarchyParseError((e as Error).message, { cause: e });
  }
  let read: ReadTree | null = null;
  if (reader !== HierarchyReader.fastXmlParser) {
    const builder = new TreeBuilder();
    const unhandled = scanUiXml(sanitized.xml, builder, MAX_XML_NESTING);
    if (unhandled === null) {
      read = builder.result();
    } else if (reader === HierarchyReader.scan) {
      throw new HierarchyParseError(
        `the scanner does not read ${unhandled}: parse it with fast-xml-parser instead`,
      );
    }
  }
  if (read === null) {
    if (!fallbackReader) {
      throw new HierarchyParseError(
        "the dump needs the fallback XML reader, which this thread has not loaded",
      );
    }
    read = fallbackReader(sanitized.xml);
  }
  const { nodes, roots } = read;
  const rotation = Number.parseInt(read.hierarchyAttrs.rotation ?? "0", 10);
  let width = 0;
  let height = 0;
  for (const r of roots) {
    width = Math.max(width, nodes[r].bounds.right);
    height = Math.max(height, nodes[r].bounds.bottom);
  }
  return {
    rotation: Number.isFinite(rotation) ? rotation : 0,
    nodes,
    roots,
    width,
    height,
    truncated: read.truncated,
    repairs: sanitized.repairs,
    xmlChars: sanitized.xml.length,
  };
}

/** Longest tree path accepted from a caller. */
export const MAX_TREE_PATH_CHARS = 1_024;

const TREE_PATH_RE = /^\d{1,5}(\.\d{1,5})*$/;

/** Whether `value` is written as a tree path (`0`, `0.1.2`). */
export function isTreePath(value: string): boolean {
  return value.length <= MAX_TREE_PATH_CHARS && TREE_PATH_RE.test(value);
}

/** The node at `path`, or `null` when the screen has no such node. */
export function nodeAtPath(tree: UiTree, path: string): UiNode | null {
  if (!isTreePath(path)) return null;
  const steps = path.split(".").map(Number);
  const rootId = tree.roots[steps[0]];
  if (rootId === undefined) return null;
  let node = tree.nodes[rootId];
  for (let i = 1; i < steps.length; i++) {
    const childId = node.children[steps[i]];
    if (childId === undefined) return null;
    node = tree.nodes[childId];
  }
  return node;
}

export function boundsWidth(b: Bounds): number {
  return Math.max(0, b.right - b.left);
}

export function boundsHeight(b: Bounds): number {
  return Math.max(0, b.bottom - b.top);
}

/** The overlap of two boxes (empty boxes have zero width or height). */
export function intersect(a: Bounds, b: Bounds): Bounds {
  return {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
}

/** Whether `inner` lies within `outer`. */
export function contains(outer: Bounds, inner: Bounds): boolean {
  return inner.left >= outer.left && inner.top >= outer.top && inner.right <= outer.right &&
    inner.bottom <= outer.bottom;
}

/** The center point, rounded down as `input tap` wants integers. */
export function center(b: Bounds): { x: number; y: number } {
  return { x: Math.floor((b.left + b.right) / 2), y: Math.floor((b.top + b.bottom) / 2) };
}

export { shortClass, shortResourceId } from "./shared/names.ts";
