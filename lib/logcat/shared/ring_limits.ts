/**
 * How many log entries a device's ring keeps: the setting's default and bounds. A leaf module, so
 * the main thread reads them without loading the ring.
 */

/** Default entries kept per device (settings `mcp.logcat_buffer_entries`). */
export const DEFAULT_RING_ENTRIES = 50_000;
/** Bounds of that setting. */
export const MIN_RING_ENTRIES = 1_000;
export const MAX_RING_ENTRIES = 1_000_000;

/** Clamps a requested capacity into [MIN_RING_ENTRIES, MAX_RING_ENTRIES]. */
export function clampRingEntries(n: unknown): number {
  if (typeof n !== "number" || !Number.isFinite(n)) return DEFAULT_RING_ENTRIES;
  return Math.min(MAX_RING_ENTRIES, Math.max(MIN_RING_ENTRIES, Math.floor(n)));
}
