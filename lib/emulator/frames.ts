/**
 * Emulator frames: the size to ask `getScreenshot` for, reading an `Image` (RGB888, sizes from
 * `format.width/height`, the deprecated top-level fields only as a fallback, the frame's rotation),
 * RGB888 → RGBA for our PNG encoder (no PNG decode anywhere), and a frame hash for settling.
 * Pure. Facts: ../shared/EMULATOR.md §4.1–4.2.
 */
import type { ImageMsg, SkinRotationName } from "./grpc_client.ts";
import { MAX_FRAME_DIMENSION, MAX_FRAME_PIXELS } from "./shared/limits.ts";

const ROTATIONS: Record<SkinRotationName, number> = {
  PORTRAIT: 0,
  LANDSCAPE: 1,
  REVERSE_PORTRAIT: 2,
  REVERSE_LANDSCAPE: 3,
};

interface RgbFrame {
  width: number;
  height: number;
  /** 0..3 (PORTRAIT, LANDSCAPE, REVERSE_PORTRAIT, REVERSE_LANDSCAPE). */
  rotation: number;
  /** width × height × 3, top row first. */
  rgb: Uint8Array;
  seq: number;
}

export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

/**
 * The `ImageFormat` width/height to ask for: the emulator fits the frame inside it keeping the
 * aspect ratio and never above the display, so a square bound of the long side gives that long
 * side; 0×0 is the display's own size.
 */
export function requestBounds(maxDimension: number | null): { width: number; height: number } {
  if (maxDimension === null) return { width: 0, height: 0 };
  const m = Math.max(1, Math.floor(maxDimension));
  return { width: m, height: m };
}

/** Reads an RGB888 `Image`; an empty (0×0) frame means the display is off. */
export function readRgbFrame(img: ImageMsg): RgbFrame {
  const width = img.format?.width || img.width || 0;
  const height = img.format?.height || img.height || 0;
  if (width === 0 || height === 0) {
    throw new FrameError("the emulator sent an empty frame (its display is off or asleep)");
  }
  if (
    width > MAX_FRAME_DIMENSION || height > MAX_FRAME_DIMENSION ||
    width * height > MAX_FRAME_PIXELS
  ) {
    throw new FrameError(
      `the emulator sent a ${width}x${height} frame, over keynobi's bound for frames ` +
        `(${MAX_FRAME_DIMENSION} px a side, ${MAX_FRAME_PIXELS / (1024 * 1024)} Mpx)`,
    );
  }
  const fmt = img.format?.format ?? "RGB888";
  if (fmt !== "RGB888") throw new FrameError(`the emulator sent ${fmt}, not RGB888`);
  const rgb = img.image ?? new Uint8Array(0);
  if (rgb.length !== width * height * 3) {
    throw new FrameError(
      `the frame is ${rgb.length} bytes, not ${width}x${height}x3 = ${width * height * 3}`,
    );
  }
  const rotation = ROTATIONS[img.format?.rotation?.rotation ?? "PORTRAIT"] ?? 0;
  return { width, height, rotation, rgb, seq: img.seq ?? 0 };
}

/**
 * The frame fitted inside `maxSide` on its long side (aspect kept), averaging the source pixels
 * each output pixel covers; the frame itself when it fits. An emulator scales to the bounds it
 * was asked for, so this runs only for one that answered larger than asked.
 */
export function fitRgbFrame(f: RgbFrame, maxSide: number): RgbFrame {
  const long = Math.max(f.width, f.height);
  const side = Math.max(1, Math.floor(maxSide));
  if (long <= side) return f;
  const tw = Math.max(1, Math.round(f.width * side / long));
  const th = Math.max(1, Math.round(f.height * side / long));
  const out = new Uint8Array(tw * th * 3);
  const src = f.rgb, w = f.width, h = f.height;
  for (let y = 0; y < th; y++) {
    const y0 = Math.floor(y * h / th), y1 = Math.max(y0 + 1, Math.floor((y + 1) * h / th));
    for (let x = 0; x < tw; x++) {
      const x0 = Math.floor(x * w / tw), x1 = Math.max(x0 + 1, Math.floor((x + 1) * w / tw));
      let r = 0, g = 0, b = 0;
      for (let yy = y0; yy < y1; yy++) {
        let i = (yy * w + x0) * 3;
        for (let xx = x0; xx < x1; xx++, i += 3) {
          r += src[i];
          g += src[i + 1];
          b += src[i + 2];
        }
      }
      const n = (y1 - y0) * (x1 - x0), o = (y * tw + x) * 3;
      out[o] = Math.round(r / n);
      out[o + 1] = Math.round(g / n);
      out[o + 2] = Math.round(b / n);
    }
  }
  return { ...f, width: tw, height: th, rgb: out };
}

/** RGB888 → RGBA (alpha 255), what lib/ui/png.ts encodes. */
export function rgbToRgba(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const n = width * height;
  const out = new Uint8Array(n * 4);
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    const k = i * 4;
    out[k] = rgb[j];
    out[k + 1] = rgb[j + 1];
    out[k + 2] = rgb[j + 2];
    out[k + 3] = 255;
  }
  return out;
}

/** FNV-1a (32-bit) over the frame's bytes, hex; equal frames hash equal. */
export function frameHash(f: { width: number; height: number; rgb: Uint8Array }): string {
  let h = 0x811c9dc5;
  h = Math.imul(h ^ f.width, 0x01000193);
  h = Math.imul(h ^ f.height, 0x01000193);
  const b = f.rgb;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** The display's size in the frame's rotation, from the natural (hw.lcd) size. */
export function rotatedSize(
  natural: { width: number; height: number },
  rotation: number,
): { width: number; height: number } {
  return rotation % 2 === 1
    ? { width: natural.height, height: natural.width }
    : { width: natural.width, height: natural.height };
}

/** `hw.lcd.width` / `hw.lcd.height` of a getStatus answer, or null. */
export function naturalSizeFromStatus(
  entries: readonly { key: string; value: string }[] | undefined,
): { width: number; height: number } | null {
  const get = (k: string) => Number(entries?.find((e) => e.key === k)?.value ?? NaN);
  const width = get("hw.lcd.width"), height = get("hw.lcd.height");
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    return null;
  }
  return { width, height };
}
