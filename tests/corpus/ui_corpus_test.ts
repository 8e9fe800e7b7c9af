/**
 * Invariants of the element list over every real UI Automator dump in
 * tests/fixtures/corpus/ui/ (public captures, sources in its SOURCES.md). Properties, not
 * snapshots: what must hold on any screen, checked against a small independent reading of the XML
 * (its windows, its actionable nodes, their boxes) and against the same dump with its windows in
 * other orders.
 */
import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals } from "../assert.ts";
import {
  boundsHeight,
  boundsWidth,
  contains,
  HierarchyReader,
  parseHierarchy,
  type UiTree,
} from "../../lib/ui/hierarchy.ts";
import { buildElementList, MAX_ROWS } from "../../lib/ui/element_list.ts";
import type { ElementList } from "../../lib/ui/shared/element_types.ts";
import { CoverIndex, isEditable, screenGeometry } from "../../lib/ui/occlusion.ts";
import { findKeyboard, statusBarNodes } from "../../lib/ui/screen_parts.ts";

const DIR = new URL("../fixtures/corpus/ui/", import.meta.url);
const FILES = [...Deno.readDirSync(DIR)]
  .filter((e) => e.isFile && e.name.endsWith(".xml"))
  .map((e) => e.name)
  .sort();

function read(name: string): string {
  return Deno.readTextFileSync(new URL(name, DIR));
}

/** The independent reading: the dump's top-level windows as XML text, by counting tags. */
function splitWindows(xml: string): { head: string; windows: string[]; tail: string } {
  const tag = /<node\b(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>|<\/node\s*>/g;
  const windows: string[] = [];
  let depth = 0;
  let start = -1;
  let first = -1;
  let last = -1;
  for (let m = tag.exec(xml); m !== null; m = tag.exec(xml)) {
    const closing = m[0].startsWith("</");
    const selfClosing = !closing && m[1] === "/";
    if (!closing && depth === 0) start = m.index;
    if (first < 0) first = m.index;
    if (!closing && !selfClosing) depth++;
    if (closing) depth--;
    if (depth === 0 && (closing || selfClosing)) {
      windows.push(xml.slice(start, m.index + m[0].length));
      last = m.index + m[0].length;
    }
  }
  return { head: xml.slice(0, first), windows, tail: xml.slice(last) };
}

/** The same dump with its windows in `order`. */
function reorder(xml: string, order: readonly number[]): string {
  const { head, windows, tail } = splitWindows(xml);
  return head + order.map((i) => windows[i]).join("") + tail;
}

/** Input method packages, read independently of lib/ui (a keyboard app's own package). */
const IME_PACKAGE =
  /inputmethod|keyboard|honeyboard|swiftkey|gboard|\.sogou\.|baidu\.input|iflytek/i;

/** A listed row, keyed by what it is rather than by where its window came in the dump. */
function rowKeys(list: ElementList): string[] {
  return list.rows.map((r) =>
    `${r.className}|${r.label}|${r.hint}|${r.resourceId}|${r.x},${r.y}|${r.width}x${r.height}|` +
    r.flags.join(",")
  ).sort();
}

function isActionable(tree: UiTree, id: number): boolean {
  const n = tree.nodes[id];
  return n.clickable || n.longClickable || n.checkable || isEditable(n);
}

function ancestors(tree: UiTree, id: number): number[] {
  const out: number[] = [];
  for (let p = tree.nodes[id].parent; p >= 0; p = tree.nodes[p].parent) out.push(p);
  return out;
}

Deno.test("the UI corpus holds at least 120 real dumps", () => {
  assert(FILES.length >= 120, `${FILES.length} dumps`);
  const sources = Deno.readTextFileSync(new URL("SOURCES.md", DIR));
  const named = new Set([...sources.matchAll(/^\| (\S+) +\|/gm)].map((m) => m[1]));
  for (const f of FILES) assert(named.has(f), `${f} has no row in SOURCES.md`);
});

for (const name of FILES) {
  Deno.test(`element list invariants: ui/${name}`, () => {
    const xml = read(name);
    const tree = parseHierarchy(xml);
    // Both readers give the same tree.
    const other = parseHierarchy(xml, HierarchyReader.fastXmlParser);
    assertEquals(other.nodes.length, tree.nodes.length, "node count of the two readers");
    const list = buildElementList(tree, { maxRows: MAX_ROWS });
    const screen = { w: tree.width, h: tree.height };

    // Handles are unique and name distinct nodes.
    assertEquals(new Set(list.rows.map((r) => r.handle)).size, list.rows.length, "handles");
    assertEquals(new Set(list.rows.map((r) => r.node)).size, list.rows.length, "one row a node");

    // Nothing listed lies off screen: the tap point is on screen and inside the node.
    for (const r of list.rows) {
      const b = tree.nodes[r.node].bounds;
      const where = `${r.handle} ${r.className} "${r.label}" @(${r.x},${r.y})`;
      assert(r.x >= 0 && r.y >= 0 && r.x < screen.w && r.y < screen.h, `${where} off screen`);
      assert(
        r.x >= b.left && r.x <= b.right && r.y >= b.top && r.y <= b.bottom,
        `${where} outside its node's bounds`,
      );
      assert(r.width > 0 && r.height > 0, `${where} has no size`);
    }

    // A text field's value is its own text: what views inside it say (Compose's placeholder and
    // label) is its hint, never its value.
    for (const r of list.rows) {
      if (!r.editable || r.label === "") continue;
      const n = tree.nodes[r.node];
      const own = `${n.text} ${n.contentDesc}`.replace(/\s+/g, " ");
      for (const part of r.label.replace(/…$/, "").split(" | ")) {
        assert(
          own.includes(part),
          `${r.handle} EditText value "${part}" is not the field's own text`,
        );
      }
    }

    // Every visible actionable node is listed once, folded into a listed row, or covered by
    // something whose box overlaps it.
    const keyboard = findKeyboard(tree);
    const status = statusBarNodes(tree);
    const geometry = screenGeometry(tree);
    const covers = new CoverIndex(tree, keyboard, geometry);
    const listed = new Set(list.rows.map((r) => r.node));
    const screenArea = screen.w * screen.h;
    for (const n of tree.nodes) {
      if (!isActionable(tree, n.id) || status.has(n.id)) continue;
      if (keyboard !== null && keyboard.nodes.has(n.id)) continue;
      const vis = geometry.visible[n.id];
      if (boundsWidth(vis) < 8 || boundsHeight(vis) < 8) continue;
      if (boundsWidth(vis) * boundsHeight(vis) >= screenArea * 0.8) continue; // the page
      if (listed.has(n.id)) continue;
      const tap = covers.tapPoint(n.id);
      if (tap.kind === "hidden") {
        if (tap.by < 0) continue;
        const by = tree.nodes[tap.by];
        const c = geometry.visible[tap.by];
        const overlap = c.left < vis.right && vis.left < c.right && c.top < vis.bottom &&
          vis.top < c.bottom;
        // A window drawn over another app window's box is modal there (a dialog): it covers all
        // of the window it lies in.
        const own = tree.nodes[ancestors(tree, n.id).at(-1) ?? n.id];
        const modal = by.parent < 0 && own.id !== by.id && contains(own.bounds, by.bounds);
        assert(
          overlap || modal,
          `node ${n.path} reported covered by ${by.path}, which does not overlap it`,
        );
        continue;
      }
      // Visible and not listed: a row above or below it stands for it (a wrapper merged into its
      // child, a child folded into its clickable row).
      const up = ancestors(tree, n.id).some((a) => listed.has(a));
      const down = [...listed].some((id) => tree.nodes[id].path.startsWith(n.path + "."));
      assert(up || down, `visible actionable node ${n.path} (${n.className}) is not listed`);
    }

    // The keyboard: an input method's window (read independently) in the lower part of the
    // screen is the keyboard, wherever it comes in the dump.
    const imeRoots = tree.roots.filter((id) => {
      const r = tree.nodes[id];
      return IME_PACKAGE.test(r.packageName) && boundsHeight(r.bounds) > 0 &&
        r.bounds.top >= tree.height * 0.3;
    });
    if (imeRoots.length > 0) {
      assert(list.keyboard !== null, "an input method window is on screen: keyboard not found");
      assertEquals(list.keyboard, tree.nodes[imeRoots[0]].bounds);
    }

    // Window order decides nothing: the dump with its windows reversed and rotated lists the
    // same rows, the same keyboard and the same app.
    const n = splitWindows(xml).windows.length;
    assertEquals(n, tree.roots.length, "windows by the independent reading");
    if (n > 1) {
      const base = rowKeys(list);
      const orders = [
        [...Array(n).keys()].reverse(),
        [...Array(n).keys()].map((i) => (i + 1) % n),
      ];
      for (const order of orders) {
        const t2 = parseHierarchy(reorder(xml, order));
        const l2 = buildElementList(t2, { maxRows: MAX_ROWS });
        const o = `windows in order ${order.join(",")}`;
        assertEquals(l2.keyboard, list.keyboard, `${o}: keyboard`);
        assertEquals(l2.package, list.package, `${o}: package`);
        assertEquals(rowKeys(l2), base, `${o}: rows`);
      }
    }
  });
}
