/**
 * Selector rules both sides need (a leaf: the main thread checks a selector before anything
 * runs, the UI worker matches it, lib/ui/selectors.ts): the keys, the limits and
 * `validateSelector`.
 */
import { invalidParams } from "../../core/errors.ts";

/** Results a search returns when the caller names no limit. */
export const DEFAULT_FIND_RESULTS = 20;
/** Most results one search returns (the spec's find_ui_elements maximum). */
export const MAX_FIND_RESULTS = 100;
/** Longest selector string value. */
export const MAX_SELECTOR_VALUE_CHARS = 1_000;

export interface UiSelector {
  text?: string;
  text_contains?: string;
  content_desc?: string;
  content_desc_contains?: string;
  hint?: string;
  resource_id?: string;
  class?: string;
  package?: string;
  clickable?: boolean;
  long_clickable?: boolean;
  enabled?: boolean;
  checkable?: boolean;
  checked?: boolean;
  focused?: boolean;
  scrollable?: boolean;
  selected?: boolean;
  editable?: boolean;
}

export const SELECTOR_STRING_KEYS = [
  "text",
  "text_contains",
  "content_desc",
  "content_desc_contains",
  "hint",
  "resource_id",
  "class",
  "package",
] as const;

export const SELECTOR_BOOLEAN_KEYS = [
  "clickable",
  "long_clickable",
  "enabled",
  "checkable",
  "checked",
  "focused",
  "scrollable",
  "selected",
  "editable",
] as const;

/** Checks a selector from a caller; throws `invalid_params` naming what is wrong. */
export function validateSelector(value: unknown, param = "selector"): UiSelector {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidParams(`Invalid ${param}: expected an object such as {"text": "Sign in"}`);
  }
  const v = value as Record<string, unknown>;
  const known = new Set<string>([...SELECTOR_STRING_KEYS, ...SELECTOR_BOOLEAN_KEYS]);
  const out: Record<string, string | boolean> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (!known.has(k)) {
      throw invalidParams(
        `Invalid ${param}: unknown key ${JSON.stringify(k)}; use ${[...known].join(", ")}`,
      );
    }
    if ((SELECTOR_STRING_KEYS as readonly string[]).includes(k)) {
      if (typeof x !== "string") throw invalidParams(`Invalid ${param}.${k}: expected a string`);
      if (x.length > MAX_SELECTOR_VALUE_CHARS) {
        throw invalidParams(
          `Invalid ${param}.${k}: ${x.length} characters, the limit is ${MAX_SELECTOR_VALUE_CHARS}`,
        );
      }
      if (k.endsWith("_contains") && x.trim() === "") {
        throw invalidParams(`Invalid ${param}.${k}: it is empty; pass the text to look for`);
      }
      out[k] = x;
    } else {
      if (typeof x !== "boolean") {
        throw invalidParams(`Invalid ${param}.${k}: expected true or false`);
      }
      out[k] = x;
    }
  }
  if (!SELECTOR_STRING_KEYS.some((k) => k in out)) {
    throw invalidParams(
      `Invalid ${param}: name at least one of ${SELECTOR_STRING_KEYS.join(", ")}; ` +
        "state keys alone (clickable, enabled, …) match too much",
    );
  }
  return out as UiSelector;
}
