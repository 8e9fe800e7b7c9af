/**
 * Which nodes of a capture a Maestro selector (flow_selector.ts) names, and whether each can be
 * seen and tapped, by the same occlusion rule as the element list and the ui_* tools
 * (lib/ui/occlusion.ts): a node another window, a dialog or the keyboard covers is never
 * "visible". The keyboard's own keys are never matched (a flow's `tapOn: "q"` means the app's
 * "q"). Pure; runs in the UI worker.
 */
import {
  boundsHeight,
  boundsWidth,
  shortResourceId,
  type UiNode,
  type UiTree,
} from "../hierarchy.ts";
import { CoverIndex, type TapPoint } from "../occlusion.ts";
import { findKeyboard, type KeyboardInfo } from "../screen_parts.ts";
import { flowRegex, type FlowSelector, flowTextMatches } from "../shared/flows/flow_selector.ts";

interface FlowCandidate {
  node: UiNode;
  tap: TapPoint;
}

interface FlowMatches {
  /** Every match in screen order (after `index`, at most one). */
  matches: FlowCandidate[];
  /** How many nodes matched before `index` and visibility were applied. */
  total: number;
}

/** A matcher over one capture: one cover index for every selector asked of it. */
export class FlowMatcher {
  #tree: UiTree;
  #keyboard: KeyboardInfo | null;
  #covers: CoverIndex | null = null;
  #keyboardNodes: ReadonlySet<number>;
  #taps = new Map<number, TapPoint>();

  constructor(tree: UiTree) {
    this.#tree = tree;
    this.#keyboard = findKeyboard(tree);
    this.#keyboardNodes = this.#keyboard?.nodes ?? new Set();
  }

  /** Where a tap on node `id` lands (the cover index is built on the first question). */
  tapPoint(id: number): TapPoint {
    let t = this.#taps.get(id);
    if (!t) {
      this.#covers ??= new CoverIndex(this.#tree, this.#keyboard);
      t = this.#covers.tapPoint(id);
      this.#taps.set(id, t);
    }
    return t;
  }

  /** Nodes `sel` names, without asking where a tap lands (selector choice, below). */
  count(sel: FlowSelector): UiNode[] {
    return this.#nodes(sel);
  }

  /** The nodes `sel` names, nearest to its anchor first when it is relative. */
  match(sel: FlowSelector): FlowMatches {
    let found = this.#nodes(sel);
    const total = found.length;
    if (sel.index !== undefined) found = found.slice(sel.index, sel.index + 1);
    return { matches: found.map((node) => ({ node, tap: this.tapPoint(node.id) })), total };
  }

  #nodes(sel: FlowSelector): UiNode[] {
    const nodes = this.#tree.nodes;
    const textRe = sel.text !== undefined ? flowRegex(sel.text) : null;
    const idRe = sel.id !== undefined ? flowRegex(sel.id) : null;
    const found: UiNode[] = [];
    for (const n of nodes) {
      if (this.#keyboardNodes.has(n.id)) continue;
      if (boundsWidth(n.bounds) <= 0 || boundsHeight(n.bounds) <= 0) continue;
      if (
        sel.text !== undefined &&
        !(flowTextMatches(sel.text, n.text, textRe) ||
          flowTextMatches(sel.text, n.contentDesc, textRe) ||
          flowTextMatches(sel.text, n.hint, textRe))
      ) continue;
      if (
        sel.id !== undefined &&
        !(n.resourceId !== "" &&
          (flowTextMatches(sel.id, n.resourceId, idRe) ||
            flowTextMatches(sel.id, shortResourceId(n.resourceId), idRe)))
      ) continue;
      if (sel.enabled !== undefined && n.enabled !== sel.enabled) continue;
      if (sel.checked !== undefined && n.checked !== sel.checked) continue;
      if (sel.focused !== undefined && n.focused !== sel.focused) continue;
      if (sel.selected !== undefined && n.selected !== sel.selected) continue;
      found.push(n);
    }
    return this.#relative(found, sel);
  }

  #relative(found: UiNode[], sel: FlowSelector): UiNode[] {
    const nodes = this.#tree.nodes;
    let out = found;
    const anchorOf = (s: FlowSelector) => {
      const m = this.#nodes(s);
      return (s.index !== undefined ? m[s.index] : m[0]) ?? null;
    };
    if (sel.childOf) {
      const a = anchorOf(sel.childOf);
      out = a ? out.filter((n) => isInside(nodes, n, a.id)) : [];
    }
    const rel: [keyof FlowSelector, (n: UiNode, a: UiNode) => number | null][] = [
      [
        "below",
        (n, a) => n.bounds.top >= a.bounds.bottom - 1 ? n.bounds.top - a.bounds.bottom : null,
      ],
      [
        "above",
        (n, a) => n.bounds.bottom <= a.bounds.top + 1 ? a.bounds.top - n.bounds.bottom : null,
      ],
      [
        "leftOf",
        (n, a) => n.bounds.right <= a.bounds.left + 1 ? a.bounds.left - n.bounds.right : null,
      ],
      [
        "rightOf",
        (n, a) => n.bounds.left >= a.bounds.right - 1 ? n.bounds.left - a.bounds.right : null,
      ],
    ];
    for (const [key, distance] of rel) {
      const s = sel[key] as FlowSelector | undefined;
      if (!s) continue;
      const a = anchorOf(s);
      if (!a) return [];
      out = out.flatMap((n) => {
        const d = distance(n, a);
        return d === null || n.id === a.id ? [] : [{ n, d }];
      }).sort((x, y) => x.d - y.d).map((x) => x.n);
    }
    return out;
  }
}

function isInside(nodes: readonly UiNode[], n: UiNode, ancestor: number): boolean {
  for (let p = n.parent; p >= 0; p = nodes[p].parent) if (p === ancestor) return true;
  return false;
}

/** `s` as a Maestro regex that matches exactly `s`. */
function escapeFlowRegex(s: string): string {
  return s.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}

const OBFUSCATED_ID = /(^|:id\/)0_resource_name_obfuscated$/;

/**
 * The selector a flow should use for node `id` of `tree`, so that run again it names this element
 * and no other: its resource id when that is unique on the screen, else its text (its own, its
 * content description, or its first descendant's text: a tap on a row's label lands on the row),
 * alone or with the id, else with an `index`; `null` when nothing identifies it (a point then).
 * Pure.
 */
export function selectorFor(tree: UiTree, id: number): FlowSelector | null {
  const m = new FlowMatcher(tree);
  const node = tree.nodes[id];
  const nodes = tree.nodes;
  const short = node.resourceId && !OBFUSCATED_ID.test(node.resourceId)
    ? shortResourceId(node.resourceId)
    : "";
  const idSel = short ? escapeFlowRegex(short) : null;
  if (idSel !== null && m.count({ id: idSel }).length === 1) return { id: idSel };
  const texts: string[] = [];
  const editable = node.className.endsWith("EditText");
  if (!editable && node.text.trim()) texts.push(node.text);
  if (node.contentDesc.trim()) texts.push(node.contentDesc);
  if (editable && node.hint.trim()) texts.push(node.hint);
  if (!texts.length) {
    // The first text inside it (a row's title).
    for (let i = id + 1; i < nodes.length && nodes[i].depth > node.depth; i++) {
      const t = nodes[i].text.trim() || nodes[i].contentDesc.trim();
      if (t) {
        texts.push(nodes[i].text.trim() ? nodes[i].text : nodes[i].contentDesc);
        break;
      }
    }
  }
  const inside = (n: UiNode) => {
    for (let p = n.id; p >= 0; p = nodes[p].parent) if (p === id) return true;
    return false;
  };
  for (const t of texts) {
    const text = escapeFlowRegex(t);
    const hits = m.count({ text });
    if (hits.length === 1 && inside(hits[0])) return { text };
    if (idSel !== null) {
      const both = m.count({ id: idSel, text });
      if (both.length === 1 && inside(both[0])) return { id: idSel, text };
    }
    const k = hits.findIndex(inside);
    if (k >= 0) return { text, index: k };
  }
  return null;
}
