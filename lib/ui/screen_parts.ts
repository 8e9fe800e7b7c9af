/**
 * What the parts of a screen are, decided from the tree alone. Pure.
 *
 * - The status bar: System UI's clock, signal, Wi-Fi and battery icons. They change on their own
 *   (the clock every minute, the battery), so they are left out of the element list and of the
 *   screen hash. Recognized by System UI resource ids, and for dumps of every window (uiautomator2
 *   style) by a System UI window that is a strip along the top edge.
 * - The windows' roles, from what each window is (its package and its box), never from where it
 *   comes in the dump: dumpers list windows in different orders (uiautomator2 puts the active
 *   window first, then the others top to bottom, so the keyboard or the status bar may come
 *   first). The main window is the largest that is neither System UI nor an input method; System
 *   UI's windows (bars, shade) are drawn over the app's; the keyboard is an input method's window
 *   in the lower part of the screen, other than the main window.
 * - The soft keyboard: that window. A plain `uiautomator dump` holds only the app's window and
 *   never shows it.
 * - The keyboard's action key (Search, Go, Send, Next, Done): what `enter` should tap.
 * - Loading: a visible progress bar or spinner, or a node that says it is loading.
 */
import { boundsHeight, boundsWidth, shortClass, shortResourceId } from "./hierarchy.ts";
import type { Bounds } from "./shared/bounds.ts";
import type { UiNode, UiTree } from "./hierarchy.ts";

const SYSTEMUI = "com.android.systemui";

/** System UI ids of status-bar containers; everything inside them is status bar. */
const STATUS_BAR_CONTAINER_IDS: ReadonlySet<string> = new Set([
  "status_bar",
  "status_bar_container",
  "status_bar_contents",
  "system_icons",
  "system_icon_area",
  "statusIcons",
  "notification_icon_area",
  "notificationIcons",
  "status_icons_container",
]);

/** System UI ids of single status-bar items (also shown in the Quick Settings header). */
const STATUS_BAR_ITEM_IDS: ReadonlySet<string> = new Set([
  "clock",
  "date",
  "battery",
  "batteryRemainingIcon",
  "battery_percentage_view",
  "wifi_combo",
  "wifi_signal",
  "mobile_combo",
  "mobile_signal",
  "statusIcons",
  "privacy_chip",
]);

/** A System UI window this tall or less along the top edge is the status bar. */
const STATUS_BAR_MAX_HEIGHT_FRACTION = 0.08;

/** Input method packages that do not say so in their name. */
const IME_PACKAGES =
  /inputmethod|keyboard|\.ime\b|swiftkey|gboard|honeyboard|\.sogou\.|baidu\.input/i;
/** A keyboard window starts below this fraction of the screen height. */
const KEYBOARD_MIN_TOP_FRACTION = 0.3;

/** Labels and ids of an input method's action key. */
const ACTION_KEY_LABEL =
  /^(search|go|send|next|done|enter|return|submit|previous|buscar|suchen|rechercher|ok)$/i;
const ACTION_KEY_ID = /(ime_action|key_pos_ime_action|action_key|key_enter|enter_key|key_return)/i;

/** Whether a window's package is an input method's. */
function isInputMethodPackage(pkg: string): boolean {
  return IME_PACKAGES.test(pkg);
}

function rootArea(tree: UiTree, id: number): number {
  const b = tree.nodes[id].bounds;
  return boundsWidth(b) * boundsHeight(b);
}

/**
 * The main window's root: the largest window that is neither System UI nor an input method (the
 * earliest of equal ones); else the largest window; -1 for an empty tree.
 */
export function mainWindow(tree: UiTree): number {
  let best = -1;
  let bestOther = -1;
  for (const id of tree.roots) {
    const pkg = tree.nodes[id].packageName;
    const other = pkg === SYSTEMUI || isInputMethodPackage(pkg);
    if (other) {
      if (bestOther < 0 || rootArea(tree, id) > rootArea(tree, bestOther)) bestOther = id;
    } else if (best < 0 || rootArea(tree, id) > rootArea(tree, best)) best = id;
  }
  return best >= 0 ? best : bestOther;
}

/** Whether window `root` is System UI's drawn over the app (not itself the main window). */
export function isSystemWindow(tree: UiTree, root: number, main = mainWindow(tree)): boolean {
  return root !== main && tree.nodes[root].packageName === SYSTEMUI;
}

/** Ids of the nodes that belong to the status bar. */
export function statusBarNodes(tree: UiTree): Set<number> {
  const out = new Set<number>();
  const screenH = tree.height;
  const main = mainWindow(tree);
  for (const rootId of tree.roots) {
    const root = tree.nodes[rootId];
    if (
      isSystemWindow(tree, rootId, main) && root.bounds.top <= 0 &&
      boundsHeight(root.bounds) > 0 &&
      boundsHeight(root.bounds) <= screenH * STATUS_BAR_MAX_HEIGHT_FRACTION
    ) {
      markSubtree(tree, rootId, out);
    }
  }
  for (const node of tree.nodes) {
    if (out.has(node.id) || node.packageName !== SYSTEMUI || node.resourceId === "") continue;
    const id = shortResourceId(node.resourceId);
    if (STATUS_BAR_CONTAINER_IDS.has(id) || STATUS_BAR_ITEM_IDS.has(id)) {
      markSubtree(tree, node.id, out);
    }
  }
  return out;
}

function markSubtree(tree: UiTree, id: number, out: Set<number>): void {
  const stack = [id];
  while (stack.length > 0) {
    const n = stack.pop()!;
    out.add(n);
    for (const c of tree.nodes[n].children) stack.push(c);
  }
}

export interface KeyboardInfo {
  /** The keyboard window's root. */
  root: number;
  /** Its area; rows whose center is inside are `under-keyboard`. */
  bounds: Bounds;
  /** Every node of the keyboard window. */
  nodes: Set<number>;
  /** The action key, when one was found. */
  actionKey: number | null;
}

/**
 * The soft keyboard shown in this dump, or `null`: the largest input method window in the lower
 * part of the screen that is not the main window (an input method's own settings screen is an
 * app), wherever the dump lists it.
 */
export function findKeyboard(tree: UiTree): KeyboardInfo | null {
  const main = mainWindow(tree);
  const mainPackage = main >= 0 ? tree.nodes[main].packageName : "";
  let best = -1;
  for (const id of tree.roots) {
    const root = tree.nodes[id];
    if (id === main || !isInputMethodPackage(root.packageName)) continue;
    if (root.packageName === mainPackage) continue;
    if (boundsHeight(root.bounds) <= 0 || boundsWidth(root.bounds) <= 0) continue;
    if (root.bounds.top < tree.height * KEYBOARD_MIN_TOP_FRACTION) continue;
    if (best < 0 || rootArea(tree, id) > rootArea(tree, best)) best = id;
  }
  if (best < 0) return null;
  const nodes = new Set<number>();
  markSubtree(tree, best, nodes);
  let actionKey: number | null = null;
  for (const id of nodes) {
    const n = tree.nodes[id];
    const label = (n.contentDesc || n.text).trim();
    if (ACTION_KEY_ID.test(n.resourceId) || ACTION_KEY_LABEL.test(label)) {
      if (boundsWidth(n.bounds) > 0 && boundsHeight(n.bounds) > 0) {
        actionKey = id;
        // The innermost match wins (a key inside a labelled row).
      }
    }
  }
  return { root: best, bounds: tree.nodes[best].bounds, nodes, actionKey };
}

const PROGRESS_CLASS = /(ProgressBar|ProgressIndicator)$/;
const NOT_PROGRESS_CLASS = /(SeekBar|RatingBar|AbsSeekBar|Slider)$/;
const LOADING_TEXT =
  /^(loading|please wait|chargement|cargando|wird geladen|加载中|載入中|読み込み中)\b/i;

/** Whether `node` is a progress bar or spinner, or says it is loading. */
export function isLoadingNode(node: UiNode): boolean {
  if (boundsWidth(node.bounds) <= 0 || boundsHeight(node.bounds) <= 0) return false;
  const cls = shortClass(node.className);
  if (PROGRESS_CLASS.test(cls) && !NOT_PROGRESS_CLASS.test(cls)) return true;
  const label = (node.text || node.contentDesc).trim();
  return label.length > 0 && label.length < 40 && LOADING_TEXT.test(label);
}

/** Whether a progress bar or spinner is visible (outside the status bar). */
export function isLoading(tree: UiTree, exclude: ReadonlySet<number> = new Set()): boolean {
  for (const node of tree.nodes) {
    if (!exclude.has(node.id) && isLoadingNode(node)) return true;
  }
  return false;
}
