/**
 * Handles (`e7`) and tree paths as targets. Pure.
 *
 * A handle names a row of the latest element list of one device; it is valid only while the
 * screen still has that list's hash. A tree path names a position in whatever screen is captured
 * now, optionally pinned with `expect_screen_hash`. Both are resolved against a fresh capture, and
 * a target from a screen that changed is refused with `screen_changed` and what to do.
 */
import { invalidParams, ToolError } from "../core/errors.ts";
import { center, isTreePath, MAX_TREE_PATH_CHARS, nodeAtPath } from "./hierarchy.ts";
import type { UiNode, UiTree } from "./hierarchy.ts";
import type { ElementList } from "./shared/element_types.ts";
import { isEditable } from "./element_list.ts";
import { CoverIndex } from "./occlusion.ts";
import { findKeyboard } from "./screen_parts.ts";
import type { NodeInfo, TapState } from "./shared/node_types.ts";

/** Devices whose latest list is remembered (the least recently listed is forgotten first). */
const MAX_REMEMBERED_DEVICES = 32;

const HANDLE_RE = /^e([1-9]\d{0,3})$/;

type TargetRef = { kind: "handle"; handle: string } | { kind: "path"; path: string };

/** Parses a target a caller gave (a handle `e7` or a tree path `0.1.2`); `invalid_params` else. */
export function parseTarget(value: unknown, param = "target"): TargetRef {
  if (typeof value !== "string" || value === "") {
    throw invalidParams(
      `Invalid ${param}: pass a handle from the element list (e7) or a tree path`,
    );
  }
  const v = value;
  if (HANDLE_RE.test(v)) return { kind: "handle", handle: v };
  if (v.length <= MAX_TREE_PATH_CHARS && isTreePath(v)) return { kind: "path", path: v };
  throw invalidParams(
    `Invalid ${param}: ${
      JSON.stringify(v.length > 40 ? v.slice(0, 37) + "..." : v)
    } is neither a handle (e7) nor a tree path (0.1.2); read the screen with get_ui_hierarchy ` +
      "and use a handle from its list",
  );
}

export function nodeInfo(tree: UiTree, node: UiNode): NodeInfo {
  const c = center(node.bounds);
  return {
    path: node.path,
    parentPath: node.parent >= 0 ? tree.nodes[node.parent].path : null,
    className: node.className,
    text: node.text,
    resourceId: node.resourceId,
    packageName: node.packageName,
    contentDesc: node.contentDesc,
    hint: node.hint,
    bounds: node.bounds,
    x: c.x,
    y: c.y,
    clickable: node.clickable,
    longClickable: node.longClickable,
    enabled: node.enabled,
    checkable: node.checkable,
    checked: node.checked,
    focusable: node.focusable,
    focused: node.focused,
    scrollable: node.scrollable,
    selected: node.selected,
    password: node.password,
    editable: isEditable(node),
    childCount: node.children.length,
  };
}

/** The latest list of each device: what handles mean. */
export class HandleTable {
  #lists = new Map<string, ElementList>();

  remember(serial: string, list: ElementList): void {
    this.#lists.delete(serial);
    this.#lists.set(serial, list);
    while (this.#lists.size > MAX_REMEMBERED_DEVICES) {
      const oldest = this.#lists.keys().next().value;
      if (oldest === undefined) break;
      this.#lists.delete(oldest);
    }
  }

  latest(serial: string): ElementList | null {
    return this.#lists.get(serial) ?? null;
  }

  forget(serial: string): void {
    this.#lists.delete(serial);
  }
}

interface Resolved {
  node: UiNode;
  /** Where to tap (see `tap`); the node's center when it is hidden. */
  x: number;
  y: number;
  tap: TapState;
  /** What covers a hidden element (its node), or null (off screen, a sliver, or not hidden). */
  coveredBy: UiNode | null;
  /** The handle, when the target was one. */
  handle: string | null;
}

/** Where a tap on `node` lands on `tree` (lib/ui/occlusion.ts, the element list's own rule). */
function tapOn(tree: UiTree, node: UiNode): Pick<Resolved, "x" | "y" | "tap" | "coveredBy"> {
  const t = new CoverIndex(tree, findKeyboard(tree)).tapPoint(node.id);
  if (t.kind === "hidden") {
    const c = center(node.bounds);
    return { x: c.x, y: c.y, tap: "hidden", coveredBy: t.by >= 0 ? tree.nodes[t.by] : null };
  }
  return { x: t.x, y: t.y, tap: t.kind, coveredBy: null };
}

/**
 * Resolves `target` on the screen just captured (`tree`, whose hash is `hash`). Refuses a handle
 * when the device has no list or its list is from another screen, and a path when
 * `expectScreenHash` is given and differs; `not_found` when the path names no node.
 */
export function resolveTarget(
  tree: UiTree,
  hash: string,
  target: TargetRef,
  latest: ElementList | null,
  expectScreenHash?: string | null,
): Resolved {
  if (expectScreenHash && expectScreenHash !== hash) throw screenChanged(expectScreenHash, hash);
  if (target.kind === "handle") {
    if (!latest) {
      throw new ToolError(
        "screen_changed",
        `Handle ${target.handle} names no element: no element list was read on this device ` +
          "yet; call get_ui_hierarchy and use a handle from its list",
        { handle: target.handle },
      );
    }
    if (latest.screenHash !== hash) throw screenChanged(latest.screenHash, hash, target.handle);
    const row = latest.rows.find((r) => r.handle === target.handle);
    if (!row) {
      throw new ToolError(
        "not_found",
        `Handle ${target.handle} is not in the latest element list (it has ${latest.rows.length} ` +
          "rows): pick a handle from that list, or raise max_rows to list more",
        { handle: target.handle, rows: latest.rows.length },
      );
    }
    const node = nodeAtPath(tree, row.path);
    if (!node) throw screenChanged(latest.screenHash, hash, target.handle);
    return { node, ...tapOn(tree, node), handle: row.handle };
  }
  const node = nodeAtPath(tree, target.path);
  if (!node) {
    throw new ToolError(
      "not_found",
      `No element at tree path ${target.path} on the current screen (screen ${hash}): read the ` +
        "screen again with get_ui_hierarchy and use a handle or path from it",
      { tree_path: target.path, screen_hash: hash },
    );
  }
  return { node, ...tapOn(tree, node), handle: null };
}

function screenChanged(expected: string, actual: string, handle?: string): ToolError {
  const what = handle ? `Handle ${handle} is from an older screen` : "The screen changed";
  return new ToolError(
    "screen_changed",
    `${what}: expected screen ${expected}, the device now shows ${actual}, so nothing was ` +
      "done; read the screen again with get_ui_hierarchy and act on the new list",
    { expected_screen_hash: expected, screen_hash: actual, ...(handle ? { handle } : {}) },
  );
}
