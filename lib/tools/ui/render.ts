/**
 * How the UI tools render what the worker answers: element rows and lists, the screen header,
 * selector matches. Pure.
 */
import type { ToolContext } from "../context.ts";
import type { ElementList, ElementRow } from "../../ui/shared/element_types.ts";
import { shortClass, shortResourceId } from "../../ui/shared/names.ts";
import type { Match } from "../../ui/shared/protocol.ts";

export function rowData(r: ElementRow) {
  return {
    handle: r.handle,
    class: r.className,
    label: r.label,
    hint: r.hint,
    editable: r.editable,
    resource_id: r.resourceId,
    x: r.x,
    y: r.y,
    width: r.width,
    height: r.height,
    flags: r.flags,
    tree_path: r.path,
  };
}

function screenData(list: ElementList) {
  return {
    package: list.package,
    activity: list.activity,
    screen_hash: list.screenHash,
    total: list.total,
    keyboard: list.keyboard,
    windows: list.windows,
    loading: list.loading,
    rotation: list.rotation,
  };
}

/** Structured form of a list: the header fields and the rows. */
export function listData(list: ElementList, rows: readonly ElementRow[] = list.rows) {
  return { screen: screenData(list), elements: rows.map(rowData) };
}

export function matchData(m: Match) {
  return {
    handle: m.handle,
    tree_path: m.path,
    parent_path: m.parentPath,
    class: m.className,
    text: m.text,
    content_desc: m.contentDesc,
    hint: m.hint,
    resource_id: m.resourceId,
    package: m.packageName,
    bounds: m.bounds,
    x: m.x,
    y: m.y,
    clickable: m.clickable,
    long_clickable: m.longClickable,
    enabled: m.enabled,
    checkable: m.checkable,
    checked: m.checked,
    focused: m.focused,
    scrollable: m.scrollable,
    selected: m.selected,
    editable: m.editable,
    child_count: m.childCount,
  };
}

/** One line per match, like a list row, with its tree path. */
export function matchLine(m: Match): string {
  // A field's text is its value; its hint is shown apart (newer Androids repeat it in text).
  const showsHint = m.editable && m.hint !== "" && (m.text === "" || m.text === m.hint);
  const value = showsHint ? "" : m.text;
  const label = m.editable ? value : m.text || m.contentDesc;
  const hint = showsHint ? ` hint ${JSON.stringify(m.hint)}` : "";
  const flags = [
    m.clickable ? "click" : null,
    m.longClickable ? "long" : null,
    m.editable ? "edit" : null,
    m.scrollable ? "scroll" : null,
    m.checkable ? (m.checked ? "checked" : "unchecked") : null,
    m.focused ? "focused" : null,
    m.enabled ? null : "disabled",
  ].filter((f) => f !== null);
  const id = m.resourceId ? ` #${shortResourceId(m.resourceId)}` : "";
  const w = m.bounds.right - m.bounds.left, h = m.bounds.bottom - m.bounds.top;
  return `${m.handle ? `[${m.handle}] ` : ""}${shortClass(m.className)}` +
    `${label || m.editable ? ` ${JSON.stringify(label)}` : ""}${hint}${id} @(${m.x},${m.y}) ` +
    `${w}x${h}` +
    `${flags.length ? ` ${flags.join(",")}` : ""} path=${m.path}`;
}

export function progressOf(ctx: ToolContext) {
  return (p: number, total: number | undefined, msg: string | undefined) =>
    ctx.request.progress(p, total, msg);
}
