/**
 * A Maestro selector as keynobi's UI engine matches it (a leaf both sides import: the main thread
 * checks a flow's selectors before anything runs, the UI worker matches them, flow_match.ts).
 *
 * `text` and `id` are regular expressions over the WHOLE value, as Maestro reads them: `text`
 * matches a node's text, content description or hint, `id` its resource id (full, or the part
 * after `:id/`); both also match when equal to the value literally (so `Sign in (beta)` needs no
 * escaping; a text that is no valid regex matches only literally). Regexes are case-insensitive with `.` matching newlines (Maestro's options).
 * `index` picks among the matches in screen order; `below` / `above` / `left_of` / `right_of` /
 * `child_of` relate the element to another selector's first match, nearest first.
 */
import { invalidParams } from "../../../core/errors.ts";

/** Longest selector string (a regex) a flow may use. */
const MAX_FLOW_SELECTOR_CHARS = 1_000;
/** Deepest nesting of relative selectors (`below: {below: …}`). */
const MAX_FLOW_SELECTOR_DEPTH = 4;
/** Largest `index`. */
const MAX_FLOW_SELECTOR_INDEX = 1_000;

export interface FlowSelector {
  text?: string;
  id?: string;
  index?: number;
  enabled?: boolean;
  checked?: boolean;
  focused?: boolean;
  selected?: boolean;
  below?: FlowSelector;
  above?: FlowSelector;
  leftOf?: FlowSelector;
  rightOf?: FlowSelector;
  childOf?: FlowSelector;
}

export const FLOW_SELECTOR_KEYS = [
  "text",
  "id",
  "index",
  "enabled",
  "checked",
  "focused",
  "selected",
  "below",
  "above",
  "leftOf",
  "rightOf",
  "childOf",
] as const;

const RELATIVE_KEYS = ["below", "above", "leftOf", "rightOf", "childOf"] as const;

/** The compiled form of a selector string: Maestro's regex options, whole-value match. */
export function flowRegex(pattern: string): RegExp | null {
  try {
    return new RegExp(`^(?:${pattern})$`, "is");
  } catch {
    return null;
  }
}

/** Whether `value` matches `pattern` as Maestro reads it (regex over the whole text, or equal). */
export function flowTextMatches(pattern: string, value: string, re = flowRegex(pattern)): boolean {
  if (value === pattern) return true;
  return re !== null && re.test(value);
}

/**
 * Checks a selector value from a flow: a string is `text`; a map takes FLOW_SELECTOR_KEYS.
 * Throws `invalid_params` naming `where` (the step) and what is wrong.
 */
export function parseFlowSelector(value: unknown, where: string, depth = 0): FlowSelector {
  if (typeof value === "string" || typeof value === "number") {
    return { text: checkString(String(value), `${where}.text`) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidParams(`${where}: expected a text or a selector map such as {id: sign_in}`);
  }
  if (depth > MAX_FLOW_SELECTOR_DEPTH) {
    throw invalidParams(`${where}: relative selectors nest deeper than ${MAX_FLOW_SELECTOR_DEPTH}`);
  }
  const out: FlowSelector = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    switch (k) {
      case "text":
      case "id":
        out[k] = checkString(typeof v === "number" ? String(v) : v, `${where}.${k}`);
        break;
      case "index": {
        const n = typeof v === "string" ? Number(v) : v;
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_FLOW_SELECTOR_INDEX) {
          throw invalidParams(`${where}.index: expected 0..${MAX_FLOW_SELECTOR_INDEX}`);
        }
        out.index = n;
        break;
      }
      case "enabled":
      case "checked":
      case "focused":
      case "selected":
        if (typeof v !== "boolean") throw invalidParams(`${where}.${k}: expected true or false`);
        out[k] = v;
        break;
      case "below":
      case "above":
      case "leftOf":
      case "rightOf":
      case "childOf":
        out[k] = parseFlowSelector(v, `${where}.${k}`, depth + 1);
        break;
      default:
        throw invalidParams(
          `${where}: selector key ${JSON.stringify(k)} is not supported; use ${
            FLOW_SELECTOR_KEYS.join(", ")
          }`,
        );
    }
  }
  if (out.text === undefined && out.id === undefined && !RELATIVE_KEYS.some((k) => k in out)) {
    throw invalidParams(`${where}: name text or id (or a relative selector such as below)`);
  }
  return out;
}

function checkString(v: unknown, where: string): string {
  if (typeof v !== "string" || v === "") throw invalidParams(`${where}: expected a non-empty text`);
  if (v.length > MAX_FLOW_SELECTOR_CHARS) {
    throw invalidParams(
      `${where}: ${v.length} characters, the limit is ${MAX_FLOW_SELECTOR_CHARS}`,
    );
  }
  return v;
}

/** `text "Sign in"`, `id "sign_in" below text "Email"`: a selector in one line. Pure. */
export function describeFlowSelector(s: FlowSelector): string {
  const parts: string[] = [];
  if (s.text !== undefined) parts.push(`text ${JSON.stringify(s.text)}`);
  if (s.id !== undefined) parts.push(`id ${JSON.stringify(s.id)}`);
  for (const k of ["enabled", "checked", "focused", "selected"] as const) {
    if (s[k] !== undefined) parts.push(`${k}: ${s[k]}`);
  }
  for (const k of RELATIVE_KEYS) {
    const r = s[k];
    if (r) parts.push(`${k} (${describeFlowSelector(r)})`);
  }
  if (s.index !== undefined) parts.push(`index ${s.index}`);
  return parts.join(" ");
}
