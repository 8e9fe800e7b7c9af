/**
 * The list's promise, checked on every real dump, every simulated screen and the hand-written
 * occlusion dumps, with a paint order worked out here on its own: every listed element's tap
 * point lies inside its bounds and inside nothing drawn later that takes the touch (a view that is
 * clickable, long-clickable, checkable, editable or scrollable, or a window) and is not its own
 * descendant — for an `under-keyboard` row, nothing but the keyboard; and no element of a window
 * under a full-screen window, or under a dialog inside its box, is listed.
 */
import "../../lib/ui/xml_fallback.ts";
import { assert } from "../assert.ts";
import { parseHierarchy, type UiNode, type UiTree } from "../../lib/ui/hierarchy.ts";
import type { Bounds } from "../../lib/ui/shared/bounds.ts";
import { buildElementList, MAX_ROWS } from "../../lib/ui/element_list.ts";
import { HAVE_REAL, readReal, REAL_DIR } from "./_xml.ts";
import { simScreens } from "./_sim_screens.ts";
import { dump, type N, screen } from "./_xml.ts";

const IME = /inputmethod|keyboard/i;
const SYSTEMUI = "com.android.systemui";

function within(b: Bounds, x: number, y: number): boolean {
  return x >= b.left && x < b.right && y >= b.top && y < b.bottom;
}

function clip(a: Bounds, b: Bounds): Bounds {
  return {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
}

function takesTouch(n: UiNode): boolean {
  return n.clickable || n.longClickable || n.checkable || n.scrollable ||
    /EditText$/.test(n.className);
}

function areaOf(b: Bounds): number {
  return Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);
}

/** Paint order, worked out recursively: window stacking, then parents before children. */
function paint(tree: UiTree) {
  const nodes = tree.nodes;
  const roots = tree.roots;
  const layer = (id: number, i: number) =>
    i > 0 && IME.test(nodes[id].packageName) && nodes[id].bounds.top > 0
      ? 1
      : i > 0 && nodes[id].packageName === SYSTEMUI
      ? 2
      : 0;
  const windows = roots.map((id, i) => ({ id, i, l: layer(id, i), a: areaOf(nodes[id].bounds) }))
    .sort((p, q) => p.l - q.l || q.a - p.a || p.i - q.i);
  const order = new Map<number, number>();
  const last = new Map<number, number>();
  const windowOf = new Map<number, number>();
  let k = 0;
  const visit = (id: number, w: number) => {
    order.set(id, k++);
    windowOf.set(id, w);
    const kids = nodes[id].children.map((c, i) => ({
      c,
      key: nodes[c].drawingOrder >= 0 ? nodes[c].drawingOrder : i,
      i,
    }))
      .sort((p, q) => p.key - q.key || p.i - q.i);
    for (const { c } of kids) visit(c, w);
    last.set(id, k - 1);
  };
  for (const w of windows) visit(w.id, w.id);
  return { windows: windows.map((w) => w.id), layers: windows, order, last, windowOf };
}

/** The node's bounds clipped by its scroll containers and the screen. */
function visibleBox(tree: UiTree, n: UiNode): Bounds {
  let b = clip(n.bounds, { left: 0, top: 0, right: tree.width, bottom: tree.height });
  for (let p = n.parent; p >= 0; p = tree.nodes[p].parent) {
    if (tree.nodes[p].scrollable) b = clip(b, tree.nodes[p].bounds);
  }
  return b;
}

function checkScreen(xml: string, what: string): number {
  const tree = parseHierarchy(xml);
  const list = buildElementList(tree, { maxRows: MAX_ROWS });
  const p = paint(tree);
  const screenArea = tree.width * tree.height;
  let checked = 0;
  for (const row of list.rows) {
    const n = tree.nodes[row.node];
    const at = `${what}: [${row.handle}] ${n.className} "${row.label}" @(${row.x},${row.y})`;
    assert(within(n.bounds, row.x, row.y), `${at} is outside its bounds`);
    const mine = p.order.get(n.id)!, end = p.last.get(n.id)!;
    const w = p.windowOf.get(n.id)!;
    const keyboardRoot = p.layers.find((l) => l.l === 1)?.id;
    for (const m of tree.nodes) {
      const o = p.order.get(m.id)!;
      if (o <= end) continue; // drawn before it, or its own descendant
      const isWindow = m.parent < 0;
      if (!isWindow && !takesTouch(m)) continue;
      const box = isWindow ? m.bounds : visibleBox(tree, m);
      if (!within(box, row.x, row.y)) continue;
      const inKeyboard = keyboardRoot !== undefined && p.windowOf.get(m.id) === keyboardRoot;
      if (row.flags.includes("under-keyboard") && inKeyboard) continue;
      assert(false, `${at} is under ${m.className} ${m.path} (${m.resourceId}), drawn later`);
    }
    void mine;
    // No window above this one covers the screen, or holds it as a dialog over it.
    const wi = p.windows.indexOf(w);
    for (const above of p.windows.slice(wi + 1)) {
      const a = tree.nodes[above];
      const b = a.bounds;
      if (areaOf(b) >= screenArea) assert(false, `${at} is in a window under a full-screen one`);
      const layerAbove = p.layers.find((l) => l.id === above)!.l;
      const holds = tree.nodes[w].bounds.left <= b.left && tree.nodes[w].bounds.top <= b.top &&
        tree.nodes[w].bounds.right >= b.right && tree.nodes[w].bounds.bottom >= b.bottom;
      if (layerAbove === 0 && holds) assert(false, `${at} is in a window under a dialog`);
    }
    checked++;
  }
  return checked;
}

/** Hand-written screens where things overlap (the classes of tests/ui/occlusion_test.ts). */
function handWritten(): { what: string; xml: string }[] {
  const rows = (n: number, top: number): N[] =>
    Array.from({ length: n }, (_, i) => ({
      cls: "android.widget.LinearLayout",
      b: [0, top + i * 200, 1080, top + i * 200 + 200] as [number, number, number, number],
      click: true,
      kids: [{
        cls: "android.widget.TextView",
        text: `Item ${i}`,
        b: [40, top + i * 200 + 40, 800, top + i * 200 + 160] as [number, number, number, number],
      }],
    }));
  const list = (top = 0): N => ({
    cls: "androidx.recyclerview.widget.RecyclerView",
    b: [0, top, 1080, 2400],
    scroll: true,
    kids: rows(12, top),
  });
  const bar: N = {
    cls: "android.widget.LinearLayout",
    b: [0, 2200, 1080, 2400],
    kids: [
      { cls: "android.widget.FrameLayout", desc: "A", b: [0, 2200, 540, 2400], click: true },
      { cls: "android.widget.FrameLayout", desc: "B", b: [540, 2200, 1080, 2400], click: true },
    ],
  };
  const fab: N = {
    cls: "android.widget.ImageButton",
    desc: "New",
    b: [440, 260, 640, 540],
    click: true,
  };
  const dialog: N = {
    b: [90, 900, 990, 1500],
    kids: [{ cls: "android.widget.Button", text: "OK", b: [700, 1380, 960, 1480], click: true }],
  };
  const keyboard: N = {
    pkg: "com.google.android.inputmethod.latin",
    b: [0, 1500, 1080, 2400],
    kids: [{
      pkg: "com.google.android.inputmethod.latin",
      desc: "Search",
      b: [900, 2200, 1080, 2380],
      click: true,
    }],
  };
  const ordered: N[] = [0, 1, 2].map((i) => ({
    cls: "android.widget.Button",
    text: `Card ${i}`,
    b: [i * 100, 1000 + i * 100, 800 + i * 100, 1400 + i * 100] as [number, number, number, number],
    click: true,
    order: 3 - i,
  }));
  return [
    { what: "bottom bar and button", xml: dump(screen([list(), fab, bar])) },
    { what: "dialog window", xml: dump(screen([list()]), dialog) },
    { what: "dialog window listed first", xml: dump(dialog, screen([list()])) },
    { what: "keyboard", xml: dump(screen([list(), fab]), keyboard) },
    { what: "full-screen window", xml: dump(screen([list()]), screen([fab], "com.other")) },
    { what: "drawing-order", xml: dump(screen(ordered)) },
  ];
}

Deno.test(
  "every listed tap point is inside its element and under nothing drawn later: real dumps",
  {
    ignore: !HAVE_REAL,
  },
  () => {
    let rows = 0;
    for (const e of Deno.readDirSync(REAL_DIR)) {
      if (!e.name.endsWith(".xml")) continue;
      rows += checkScreen(readReal(e.name), e.name);
    }
    assert(rows > 100, `only ${rows} rows checked`);
  },
);

Deno.test("every listed tap point is inside its element and under nothing drawn later: simulated and hand-written screens", () => {
  let rows = 0;
  const screens = [...simScreens(), ...handWritten()];
  for (const s of screens) rows += checkScreen(s.xml, s.what);
  assert(rows > screens.length * 3, `only ${rows} rows on ${screens.length} screens`);
});
