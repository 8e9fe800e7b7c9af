/**
 * UI Automator's dump format, written the way AccessibilityNodeInfoDumper and KXmlSerializer do
 * (PROTOCOLS.md 7): one line, no trailing newline, attributes in the dumper's order, `NAF="true"`
 * first when a clickable node has no label in its subtree, ` />` for empty elements, invalid XML
 * characters replaced by `.`, attribute values escaped as KXmlSerializer escapes them.
 */

export interface Rect {
  l: number;
  t: number;
  r: number;
  b: number;
}

/** One accessibility node as the simulated app lays it out (bounds are unclipped). */
export interface UiNode {
  cls: string;
  pkg: string;
  text?: string;
  id?: string;
  desc?: string;
  hint?: string;
  checkable?: boolean;
  checked?: boolean;
  clickable?: boolean;
  enabled?: boolean;
  focusable?: boolean;
  focused?: boolean;
  scrollable?: boolean;
  longClickable?: boolean;
  password?: boolean;
  selected?: boolean;
  bounds: Rect;
  children?: UiNode[];
  /** A pure layout wrapper: left out (children promoted) by `uiautomator dump --compressed`. */
  layout?: boolean;
  /** What a tap on this node does (the simulated app's action key); hit testing uses it. */
  act?: string;
  /** What a long press on this node does. */
  longAct?: string;
  /** Fill colour for screencap (RGBA), when it should differ from the class default. */
  fill?: number;
}

/** A node after clipping: what the dump and the screen show. */
export interface PlacedNode {
  node: UiNode;
  bounds: Rect;
  children: PlacedNode[];
}

export interface DumpOptions {
  rotation: number;
  /** `--compressed`: leave out layout wrappers. */
  compressed: boolean;
  /** Newer dumpers add `drawing-order` and `hint` after `bounds`. */
  extendedAttrs: boolean;
}

/** Classes the dumper never marks NAF (AccessibilityNodeInfoDumper.NAF_EXCLUDED_CLASSES). */
const NAF_EXCLUDED = [
  "android.widget.GridView",
  "android.widget.GridLayout",
  "android.widget.ListView",
  "android.widget.TableLayout",
];

export function intersect(a: Rect, b: Rect): Rect | null {
  const r = {
    l: Math.max(a.l, b.l),
    t: Math.max(a.t, b.t),
    r: Math.min(a.r, b.r),
    b: Math.min(a.b, b.b),
  };
  return r.l < r.r && r.t < r.b ? r : null;
}

export function contains(r: Rect, x: number, y: number): boolean {
  return x >= r.l && x < r.r && y >= r.t && y < r.b;
}

export function offset(r: Rect, dx: number, dy: number): Rect {
  return { l: r.l + dx, t: r.t + dy, r: r.r + dx, b: r.b + dy };
}

/**
 * Clips a node tree to `clip` the way getBoundsInScreen does: a node's bounds are cut to its
 * ancestors' visible area; a node with nothing visible is not visible to the user and is skipped
 * with its subtree.
 */
export function place(node: UiNode, clip: Rect): PlacedNode | null {
  const visible = intersect(node.bounds, clip);
  if (!visible) return null;
  const children: PlacedNode[] = [];
  for (const c of node.children ?? []) {
    const p = place(c, visible);
    if (p) children.push(p);
  }
  return { node, bounds: visible, children };
}

/** Replaces characters XML 1.0 cannot carry, as AccessibilityNodeInfoDumper.stripInvalidXMLChars. */
export function stripInvalidXmlChars(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const bad = (c >= 0x1 && c <= 0x8) || c === 0xb || c === 0xc || (c >= 0xe && c <= 0x1f) ||
      (c >= 0x7f && c <= 0x84) || (c >= 0x86 && c <= 0x9f) || (c >= 0xfdd0 && c <= 0xfddf) ||
      (c & 0xfffe) === 0xfffe || c === 0 || (c >= 0xd800 && c <= 0xdfff);
    out += bad ? "." : ch;
  }
  return out;
}

/** KXmlSerializer's attribute escaping (quote `"`). */
export function escapeAttr(s: string): string {
  let out = "";
  for (const ch of s) {
    switch (ch) {
      case "&":
        out += "&amp;";
        break;
      case "<":
        out += "&lt;";
        break;
      case ">":
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case "\n":
        out += "&#10;";
        break;
      case "\r":
        out += "&#13;";
        break;
      case "\t":
        out += "&#9;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

function hasLabel(p: PlacedNode): boolean {
  return (p.node.text ?? "") !== "" || (p.node.desc ?? "") !== "";
}

function childHasLabel(p: PlacedNode): boolean {
  return p.children.some((c) => hasLabel(c) || childHasLabel(c));
}

/** True when the dumper writes `NAF="true"`: clickable, enabled, unlabeled, no labeled child. */
export function isNaf(p: PlacedNode): boolean {
  const n = p.node;
  if (NAF_EXCLUDED.some((c) => n.cls === c)) return false;
  const naf = (n.clickable ?? false) && (n.enabled ?? true) && !hasLabel(p);
  return naf && !childHasLabel(p);
}

function boundsText(r: Rect): string {
  return `[${r.l},${r.t}][${r.r},${r.b}]`;
}

function flag(v: boolean | undefined): string {
  return v ? "true" : "false";
}

function writeNode(p: PlacedNode, index: number, drawingOrder: number, o: DumpOptions): string {
  const n = p.node;
  const kids = o.compressed ? flatten(p.children) : p.children;
  const attrs: [string, string][] = [];
  if (isNaf(p)) attrs.push(["NAF", "true"]);
  attrs.push(
    ["index", String(index)],
    ["text", n.text ?? ""],
    ["resource-id", n.id ?? ""],
    ["class", n.cls],
    ["package", n.pkg],
    ["content-desc", n.desc ?? ""],
    ["checkable", flag(n.checkable)],
    ["checked", flag(n.checked)],
    ["clickable", flag(n.clickable)],
    ["enabled", flag(n.enabled ?? true)],
    ["focusable", flag(n.focusable)],
    ["focused", flag(n.focused)],
    ["scrollable", flag(n.scrollable)],
    ["long-clickable", flag(n.longClickable)],
    ["password", flag(n.password)],
    ["selected", flag(n.selected)],
    ["bounds", boundsText(p.bounds)],
  );
  if (o.extendedAttrs) {
    attrs.push(["drawing-order", String(drawingOrder)], ["hint", n.hint ?? ""]);
  }
  let s = "<node";
  for (const [k, v] of attrs) s += ` ${k}="${escapeAttr(stripInvalidXmlChars(v))}"`;
  if (kids.length === 0) return s + " />";
  s += ">";
  kids.forEach((c, k) => {
    s += writeNode(c, k, k + 1, o);
  });
  return s + "</node>";
}

/** `--compressed`: layout wrappers disappear, their children take their place. */
function flatten(children: PlacedNode[]): PlacedNode[] {
  const out: PlacedNode[] = [];
  for (const c of children) {
    if (c.node.layout) out.push(...flatten(c.children));
    else out.push(c);
  }
  return out;
}

/** The whole dump: declaration, `<hierarchy rotation>`, one root per window. */
export function serializeDump(windows: PlacedNode[], o: DumpOptions): string {
  let s = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" +
    `<hierarchy rotation="${o.rotation}">`;
  for (const w of windows) s += writeNode(w, 0, 0, o);
  return s + "</hierarchy>";
}

/** Every placed node, depth first (windows in order). */
export function* walk(nodes: PlacedNode[]): Generator<PlacedNode> {
  for (const n of nodes) {
    yield n;
    yield* walk(n.children);
  }
}
