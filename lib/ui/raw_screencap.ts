/**
 * `screencap` without `-p`: the frame as raw pixels, so nothing is PNG-encoded on the device and
 * decoded here. Format (PROTOCOLS.md §8, AOSP `cmds/screencap/screencap.cpp`): a header of
 * little-endian uint32 fields — `width, height, format` (12 bytes, old releases) or `width,
 * height, format, colorSpace` (16 bytes, Android 8.x on) — then `height` rows of `width ×
 * bytesPerPixel(format)` bytes, stride padding removed. The header's size is what is left once
 * the pixels are counted (12 or 16); stderr merged into `exec:` (a multi-display device's
 * "[Warning] Multiple displays were found…") may come first and is skipped.
 *
 * Pixel formats (HAL_PIXEL_FORMAT): 1 RGBA_8888, 2 RGBX_8888, 3 RGB_888, 4 RGB_565, 5 BGRA_8888
 * are converted to RGBA; others (FP16, RGBA_1010102) are `null`: the caller captures a PNG.
 */
import type { RgbaImage } from "./png.ts";

export const RawPixelFormat = {
  RGBA_8888: 1,
  RGBX_8888: 2,
  RGB_888: 3,
  RGB_565: 4,
  BGRA_8888: 5,
} as const;

const BYTES_PER_PIXEL: Readonly<Record<number, number>> = { 1: 4, 2: 4, 3: 3, 4: 2, 5: 4 };

/** Text before the header that is skipped (stderr merged into the stream). */
const MAX_RAW_PREAMBLE_BYTES = 4_096;
/** Widest or tallest frame accepted. */
const MAX_RAW_DIMENSION = 32_768;

export interface RawFrame extends RgbaImage {
  /** The HAL pixel format the device sent. */
  format: number;
  /** 0 unknown, 1 sRGB, 2 Display P3; null with the old 12-byte header. */
  colorSpace: number | null;
}

function u32le(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}

/** Where a header whose pixel count fits the bytes starts, and its size; null if none does. */
function locate(bytes: Uint8Array): { at: number; header: 12 | 16 } | null {
  const tryAt = (at: number): { at: number; header: 12 | 16 } | null => {
    if (bytes.length - at < 12) return null;
    const w = u32le(bytes, at), h = u32le(bytes, at + 4), f = u32le(bytes, at + 8);
    const bpp = BYTES_PER_PIXEL[f];
    if (!bpp || w === 0 || h === 0 || w > MAX_RAW_DIMENSION || h > MAX_RAW_DIMENSION) return null;
    const header = bytes.length - at - w * h * bpp;
    return header === 16 || header === 12 ? { at, header } : null;
  };
  const direct = tryAt(0);
  if (direct) return direct;
  // A text preamble: one or more lines before the header.
  const limit = Math.min(bytes.length, MAX_RAW_PREAMBLE_BYTES);
  for (let i = 0; i < limit; i++) {
    if (bytes[i] === 10) {
      const found = tryAt(i + 1);
      if (found) return found;
    }
  }
  return null;
}

/** The frame in `bytes` as RGBA, or null when it is not a raw capture this reads. */
export function parseRawScreencap(bytes: Uint8Array): RawFrame | null {
  const where = locate(bytes);
  if (!where) return null;
  const { at, header } = where;
  const width = u32le(bytes, at), height = u32le(bytes, at + 4), format = u32le(bytes, at + 8);
  const colorSpace = header === 16 ? u32le(bytes, at + 12) : null;
  const px = bytes.subarray(at + header);
  const n = width * height;
  let data: Uint8Array;
  switch (format) {
    case RawPixelFormat.RGBA_8888:
      data = px;
      break;
    case RawPixelFormat.RGBX_8888: {
      data = px.slice();
      for (let i = 3; i < data.length; i += 4) data[i] = 255;
      break;
    }
    case RawPixelFormat.BGRA_8888: {
      data = new Uint8Array(n * 4);
      for (let i = 0; i < data.length; i += 4) {
        data[i] = px[i + 2];
        data[i + 1] = px[i + 1];
        data[i + 2] = px[i];
        data[i + 3] = px[i + 3];
      }
      break;
    }
    case RawPixelFormat.RGB_888: {
      data = new Uint8Array(n * 4);
      for (let i = 0, s = 0; i < data.length; i += 4, s += 3) {
        data[i] = px[s];
        data[i + 1] = px[s + 1];
        data[i + 2] = px[s + 2];
        data[i + 3] = 255;
      }
      break;
    }
    default: { // RGB_565, little-endian 16-bit: R in the top 5 bits
      data = new Uint8Array(n * 4);
      for (let i = 0, s = 0; i < data.length; i += 4, s += 2) {
        const v = px[s] | (px[s + 1] << 8);
        const r = v >>> 11, g = (v >>> 5) & 63, b = v & 31;
        data[i] = (r << 3) | (r >>> 2);
        data[i + 1] = (g << 2) | (g >>> 4);
        data[i + 2] = (b << 3) | (b >>> 2);
        data[i + 3] = 255;
      }
    }
  }
  return { width, height, data, format, colorSpace };
}
