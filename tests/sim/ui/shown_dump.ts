/**
 * A dump shown with `simctl show-dump`, kept on screen until an action changes it, the way the
 * screen it was taken from would answer touches and keys:
 * - a tap lands on the top window whose box holds it (the keyboard over everything, a window
 *   inside another's box over that one, else the later one; a touch outside a dialog — an app's
 *   window inside its own larger one — goes to the dialog), and in it on the last-drawn view that takes touches (siblings by `drawing-order`
 *   when the dump has it, else in their order); a checkable view toggles `checked`, a text field
 *   takes focus, anything else does nothing visible;
 * - BACK hides the keyboard window when the dump has one (and otherwise leaves the dump);
 * - the soft keyboard is shown exactly when the dump holds an input method's window.
 * Edits change only the attributes they concern; the rest of the XML stays byte for byte.
 */

/** An input method's window: its package says so (Gboard, AOSP, SwiftKey, Samsung, …). */
const IME_PACKAGE = /inputmethod|keyboard|swiftkey|honeyboard|\.ime\b/i;

export interface DumpNode {
  /** Offsets of the start tag in the XML. */
  start: number;
  tagEnd: number;
  /** Offset just past the node's end (its `</node>` or the self-closing tag). */
  end: number;
  attrs: Record<string, string>;
  parent: number;
  children: number[];
  /** Tree path, `0.1.2`. */
  path: string;
  bounds: { l: number; t: number; r: number; b: number };
}

const TOKEN = /<node\b((?:[^>"]|"[^"]*")*?)(\/?)>|<\/node>/g;
const ATTR = /([\w:-]+)="([^"]*)"/g;

function unescape(v: string): string {
  return v.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_m, n: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[n]!,
  );
}

/** The dump's nodes in document order (roots are its windows). */
export function dumpNodes(xml: string): DumpNode[] {
  const nodes: DumpNode[] = [];
  const open: number[] = [];
  const roots: number[] = [];
  for (const m of xml.matchAll(TOKEN)) {
    if (m[0] === "</node>") {
      const id = open.pop();
      if (id !== undefined) nodes[id].end = m.index + m[0].length;
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const [, k, v] of m[1].matchAll(ATTR)) attrs[k] = unescape(v);
    const b = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(attrs.bounds ?? "");
    const parent = open.length > 0 ? open[open.length - 1] : -1;
    const siblings = parent >= 0 ? nodes[parent].children : roots;
    const id = nodes.length;
    nodes.push({
      start: m.index,
      tagEnd: m.index + m[0].length,
      end: m.index + m[0].length,
      attrs,
      parent,
      children: [],
      path: parent >= 0 ? `${nodes[parent].path}.${siblings.length}` : String(siblings.length),
      bounds: b ? { l: +b[1], t: +b[2], r: +b[3], b: +b[4] } : { l: 0, t: 0, r: 0, b: 0 },
    });
    siblings.push(id);
    if (m[2] !== "/") open.push(id);
  }
  return nodes;
}

function inside(n: DumpNode, x: number, y: number): boolean {
  const b = n.bounds;
  return x >= b.l && x < b.r && y >= b.t && y < b.b;
}

function holds(outer: DumpNode, inner: DumpNode): boolean {
  const o = outer.bounds, i = inner.bounds;
  return o.l <= i.l && o.t <= i.t && o.r >= i.r && o.b >= i.b && (o.r - o.l) * (o.b - o.t) >
      (i.r - i.l) * (i.b - i.t);
}

function isIme(n: DumpNode): boolean {
  return IME_PACKAGE.test(n.attrs.package ?? "");
}

/** The windows bottom to top. */
function windowsBottomUp(nodes: DumpNode[]): DumpNode[] {
  const roots = nodes.filter((n) => n.parent < 0);
  const first = roots[0];
  const rank = (w: DumpNode) => (isIme(w) && w !== first ? 1 : 0);
  return roots.map((w, i) => ({ w, i }))
    .sort((a, b) =>
      rank(a.w) - rank(b.w) || (holds(a.w, b.w) ? -1 : holds(b.w, a.w) ? 1 : a.i - b.i)
    )
    .map((x) => x.w);
}

function takesTouches(n: DumpNode): boolean {
  const a = n.attrs;
  return a.clickable === "true" || a["long-clickable"] === "true" || a.checkable === "true" ||
    a.scrollable === "true" || /EditText$/.test(a.class ?? "");
}

/** The node a tap at (x, y) lands on, or null (nothing takes it). */
export function hitNode(nodes: DumpNode[], x: number, y: number): DumpNode | null {
  const windows = windowsBottomUp(nodes);
  for (let i = windows.length - 1; i >= 0; i--) {
    const w = windows[i];
    if (!inside(w, x, y)) {
      // A dialog (an app's window inside the box of its own window below) takes the touches
      // outside it; the status bar or the keyboard do not.
      const dialog = !isIme(w) &&
        windows.slice(0, i).some((u) => holds(u, w) && u.attrs.package === w.attrs.package);
      if (dialog) return null;
      continue;
    }
    return hitIn(nodes, w, x, y);
  }
  return null;
}

/** Depth first from the last-drawn child: the first view that takes the touch. */
function hitIn(nodes: DumpNode[], n: DumpNode, x: number, y: number): DumpNode | null {
  if (!inside(n, x, y)) return null;
  const kids = n.children.map((id, i) => ({ n: nodes[id], i }))
    .sort((a, b) => order(a.n, a.i) - order(b.n, b.i) || a.i - b.i);
  for (let k = kids.length - 1; k >= 0; k--) {
    const hit = hitIn(nodes, kids[k].n, x, y);
    if (hit) return hit;
  }
  return takesTouches(n) ? n : null;
}

function order(n: DumpNode, index: number): number {
  const d = n.attrs["drawing-order"];
  return d !== undefined && /^\d+$/.test(d) ? Number(d) : index;
}

function setAttr(xml: string, n: DumpNode, name: string, value: string): string {
  const tag = xml.slice(n.start, n.tagEnd);
  const re = new RegExp(`(\\s${name}=")[^"]*(")`);
  if (!re.test(tag)) return xml;
  return xml.slice(0, n.start) + tag.replace(re, `$1${value}$2`) + xml.slice(n.tagEnd);
}

/** What a tap did to the shown dump. */
export interface DumpTap {
  x: number;
  y: number;
  /** The tree path of the view it landed on, null when nothing took it. */
  path: string | null;
  label: string;
}

/** The dump after a tap at (x, y), and where it landed. */
export function tapDump(xml: string, x: number, y: number): { xml: string; tap: DumpTap } {
  const nodes = dumpNodes(xml);
  const hit = hitNode(nodes, x, y);
  const tap: DumpTap = {
    x,
    y,
    path: hit?.path ?? null,
    label: hit ? (hit.attrs.text || hit.attrs["content-desc"] || "") : "",
  };
  if (!hit) return { xml, tap };
  if (hit.attrs.checkable === "true") {
    return {
      xml: setAttr(xml, hit, "checked", hit.attrs.checked === "true" ? "false" : "true"),
      tap,
    };
  }
  if (/EditText$/.test(hit.attrs.class ?? "")) {
    // Focus moves to it; edits from the end keep earlier offsets valid.
    let out = xml;
    for (const n of [...nodes].reverse()) {
      const want = n === hit ? "true" : "false";
      if ((n.attrs.focused ?? "false") !== want) out = setAttr(out, n, "focused", want);
    }
    return { xml: out, tap };
  }
  return { xml, tap };
}

/** The keyboard's window, when the dump shows one. */
export function keyboardWindow(xml: string): DumpNode | null {
  const nodes = dumpNodes(xml);
  const roots = nodes.filter((n) => n.parent < 0);
  return roots.find((w, i) => i > 0 && isIme(w)) ?? null;
}

/** The dump without its keyboard window (BACK with the keyboard up), or null when it has none. */
export function hideKeyboard(xml: string): string | null {
  const w = keyboardWindow(xml);
  if (!w) return null;
  return xml.slice(0, w.start) + xml.slice(w.end);
}
