/**
 * Selectors for find / wait / assert: which nodes of a capture match. Pure.
 *
 * Keys are snake_case as on the wire. Every given key must match (AND). Text comparisons:
 * `text`, `content_desc` and `hint` are exact after collapsing whitespace; the `_contains`
 * forms are case-insensitive substrings. `resource_id` matches the full id
 * (`com.example:id/sign_in`) or the part after `:id/` (`sign_in`); `class` the full class name or
 * the short one (`Button`). Boolean keys compare the node's state; `editable` means a text field.
 */
import { shortClass, shortResourceId, type UiNode, type UiTree } from "./hierarchy.ts";
import { isEditable } from "./element_list.ts";

export {
  DEFAULT_FIND_RESULTS,
  MAX_FIND_RESULTS,
  MAX_SELECTOR_VALUE_CHARS,
  SELECTOR_BOOLEAN_KEYS,
  SELECTOR_STRING_KEYS,
  type UiSelector,
  validateSelector,
} from "./shared/selector_rules.ts";
import {
  DEFAULT_FIND_RESULTS,
  MAX_FIND_RESULTS,
  type UiSelector,
} from "./shared/selector_rules.ts";

const norm = (s: string) => s.replace(/\s+/g, " ").trim();

/** Whether `node` matches every key of `sel`. */
function matchesSelector(node: UiNode, sel: UiSelector): boolean {
  if (sel.text !== undefined && norm(node.text) !== norm(sel.text)) return false;
  if (
    sel.text_contains !== undefined &&
    !node.text.toLowerCase().includes(sel.text_contains.toLowerCase())
  ) return false;
  if (sel.content_desc !== undefined && norm(node.contentDesc) !== norm(sel.content_desc)) {
    return false;
  }
  if (
    sel.content_desc_contains !== undefined &&
    !node.contentDesc.toLowerCase().includes(sel.content_desc_contains.toLowerCase())
  ) return false;
  if (sel.hint !== undefined && norm(node.hint) !== norm(sel.hint)) return false;
  if (
    sel.resource_id !== undefined && node.resourceId !== sel.resource_id &&
    (node.resourceId === "" || shortResourceId(node.resourceId) !== sel.resource_id)
  ) return false;
  if (
    sel.class !== undefined && node.className !== sel.class &&
    shortClass(node.className) !== sel.class
  ) return false;
  if (sel.package !== undefined && node.packageName !== sel.package) return false;
  if (sel.clickable !== undefined && node.clickable !== sel.clickable) return false;
  if (sel.long_clickable !== undefined && node.longClickable !== sel.long_clickable) return false;
  if (sel.enabled !== undefined && node.enabled !== sel.enabled) return false;
  if (sel.checkable !== undefined && node.checkable !== sel.checkable) return false;
  if (sel.checked !== undefined && node.checked !== sel.checked) return false;
  if (sel.focused !== undefined && node.focused !== sel.focused) return false;
  if (sel.scrollable !== undefined && node.scrollable !== sel.scrollable) return false;
  if (sel.selected !== undefined && node.selected !== sel.selected) return false;
  if (sel.editable !== undefined && isEditable(node) !== sel.editable) return false;
  return true;
}

interface FindResult {
  /** Matching node ids in document order, at most `limit`. */
  nodes: number[];
  /** How many nodes matched in all. */
  total: number;
}

/** The nodes of `tree` that match `sel`, in document order, at most `limit`. */
export function findNodes(tree: UiTree, sel: UiSelector, limit = DEFAULT_FIND_RESULTS): FindResult {
  const cap = Math.min(MAX_FIND_RESULTS, Math.max(1, Math.floor(limit) || DEFAULT_FIND_RESULTS));
  const nodes: number[] = [];
  let total = 0;
  for (const n of tree.nodes) {
    if (!matchesSelector(n, sel)) continue;
    total++;
    if (nodes.length < cap) nodes.push(n.id);
  }
  return { nodes, total };
}
