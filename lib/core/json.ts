/** Small checks for values parsed from JSON. Pure. */

/** Whether `v` is a JSON object (not `null`, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
