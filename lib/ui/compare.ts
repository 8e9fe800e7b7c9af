/**
 * compare_ui_state's diff of two element lists, by class + label + id (handles change between
 * lists). Pure; the UI worker runs it against the last list shown for the device.
 */
import type { ElementList, ElementRow } from "./shared/element_types.ts";
import { MAX_COMPARE_RESULTS } from "./shared/limits.ts";
import type { CompareDiff } from "./shared/result_types.ts";

function rowKey(r: ElementRow): string {
  return `${r.className}|${r.label}|${r.resourceId}`;
}

/** What changed between two lists, by class + label + id (handles change between lists). */
export function compareLists(
  before: ElementList,
  after: ElementList,
  limit: number,
): CompareDiff {
  const old = new Map<string, ElementRow[]>();
  for (const r of before.rows) old.set(rowKey(r), [...(old.get(rowKey(r)) ?? []), r]);
  const added: ElementRow[] = [];
  const changed: { row: ElementRow; before: ElementRow; what: string[] }[] = [];
  for (const r of after.rows) {
    const same = old.get(rowKey(r));
    const prev = same?.shift();
    if (!prev) {
      added.push(r);
      continue;
    }
    const what: string[] = [];
    if (prev.x !== r.x || prev.y !== r.y) what.push(`moved from (${prev.x},${prev.y})`);
    if (prev.flags.join() !== r.flags.join()) {
      what.push(`flags were ${prev.flags.join(",") || "-"}`);
    }
    if (what.length) changed.push({ row: r, before: prev, what });
  }
  const removed = [...old.values()].flat();
  const cap = Math.min(MAX_COMPARE_RESULTS, Math.max(1, limit));
  return {
    sameScreen: before.screenHash === after.screenHash,
    added: added.slice(0, cap),
    removed: removed.slice(0, cap),
    changed: changed.slice(0, cap),
    totals: { added: added.length, removed: removed.length, changed: changed.length },
  };
}
