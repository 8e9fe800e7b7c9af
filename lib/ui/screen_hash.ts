/**
 * The screen hash: 16 hex digits that stay the same across captures of the same screen and
 * change when what the agent can see or act on changes. Pure.
 *
 * Hashed per node, in document order: depth, class, resource id, text, content description, hint,
 * bounds, and the checked, enabled, selected, focused, clickable and scrollable states. Left out:
 * the status bar (its clock, battery and signal change on their own, see screen_parts.ts), node
 * `index` (implied by order and depth), `drawing-order` and the window's `rotation` (the bounds
 * already move). Not a cryptographic hash: it names screens, it does not protect them.
 */
import { contains, type UiNode, type UiTree } from "./hierarchy.ts";
import type { Bounds } from "./shared/bounds.ts";
import { statusBarNodes } from "./screen_parts.ts";

/** Two 32-bit FNV-1a lanes with different seeds, fed the same characters. */
class Hasher {
  a = 0x811c9dc5;
  b = 0x01000193 ^ 0x5bd1e995;

  str(s: string): void {
    let a = this.a;
    let b = this.b;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    // A separator that no UTF-16 text contains, so ("ab","c") ≠ ("a","bc").
    a = Math.imul(a ^ 0xffff, 0x01000193);
    b = Math.imul(b ^ 0xffff, 0x5bd1e995);
    this.a = a;
    this.b = b;
  }

  num(n: number): void {
    this.str(String(n));
  }

  hex(): string {
    return (this.a >>> 0).toString(16).padStart(8, "0") +
      (this.b >>> 0).toString(16).padStart(8, "0");
  }
}

function addNode(h: Hasher, n: UiNode): void {
  h.num(n.depth);
  h.str(n.className);
  h.str(n.resourceId);
  h.str(n.text);
  h.str(n.contentDesc);
  h.str(n.hint);
  const b = n.bounds;
  h.str(`${b.left},${b.top},${b.right},${b.bottom}`);
  h.num(
    (n.checked ? 1 : 0) | (n.enabled ? 2 : 0) | (n.selected ? 4 : 0) | (n.focused ? 8 : 0) |
      (n.clickable ? 16 : 0) | (n.scrollable ? 32 : 0),
  );
}

/** The hash of the whole screen, without the status bar. */
export function screenHash(tree: UiTree, statusBar: ReadonlySet<number> = statusBarNodes(tree)) {
  const h = new Hasher();
  for (const n of tree.nodes) if (!statusBar.has(n.id)) addNode(h, n);
  return h.hex();
}

/**
 * The hash of everything outside `touched`: nodes that lie entirely inside the touched element
 * (a ripple, a pressed state) are left out, so only a response elsewhere changes it.
 */
export function hashOutside(
  tree: UiTree,
  touched: Bounds | null,
  statusBar: ReadonlySet<number> = statusBarNodes(tree),
): string {
  const h = new Hasher();
  for (const n of tree.nodes) {
    if (statusBar.has(n.id)) continue;
    if (touched && contains(touched, n.bounds)) continue;
    addNode(h, n);
  }
  return h.hex();
}
