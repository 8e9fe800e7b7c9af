/** Small checks for values parsed from JSON. Pure. */

/** Whether `v` is a JSON object (not `null`, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `text` parsed as JSON when it is an object, else `null` (not JSON, or not an object). */
export function parseJsonRecord(text: string): Record<string, unknown> | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return isRecord(v) ? v : null;
}

/** Whether `v` is a number that can be a process id: a positive safe integer. */
export function isPid(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0;
}
