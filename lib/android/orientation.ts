/**
 * Screen orientation through system settings: `accelerometer_rotation` (auto-rotate) and
 * `user_rotation` (0 portrait, 1 landscape, 2 reverse portrait, 3 reverse landscape; Surface
 * ROTATION_* values). Pure; the device calls are in lib/android/app_control.ts.
 */

export const ORIENTATIONS = [
  "portrait",
  "landscape",
  "reverse_portrait",
  "reverse_landscape",
  "auto",
] as const;
export type Orientation = typeof ORIENTATIONS[number];

const ROTATION: Record<Exclude<Orientation, "auto">, number> = {
  portrait: 0,
  landscape: 1,
  reverse_portrait: 2,
  reverse_landscape: 3,
};

/** Each fixed orientation's quarter turns (Surface ROTATION_*, the emulator's SkinRotation). */
export const ORIENTATION_QUADRANT: Record<Exclude<Orientation, "auto">, number> = {
  portrait: 0,
  landscape: 1,
  reverse_portrait: 2,
  reverse_landscape: 3,
};

/** The `settings put system …` argv lists that set `o`, in order. Pure. */
export function orientationCommands(o: Orientation): string[][] {
  if (o === "auto") return [["settings", "put", "system", "accelerometer_rotation", "1"]];
  return [
    ["settings", "put", "system", "accelerometer_rotation", "0"],
    ["settings", "put", "system", "user_rotation", String(ROTATION[o])],
  ];
}

/** What the two settings say, as an orientation (`null` when unknown). Pure. */
export function orientationFromSettings(
  accelerometer: string,
  userRotation: string,
): Orientation | null {
  if (accelerometer.trim() === "1") return "auto";
  const r = userRotation.trim();
  const found = (Object.entries(ROTATION) as [Orientation, number][]).find(([, v]) =>
    String(v) === r
  );
  if (found) return found[0];
  // `null` user_rotation with auto-rotate off: the default rotation, portrait on phones.
  return accelerometer.trim() === "0" && (r === "null" || r === "") ? "portrait" : null;
}
