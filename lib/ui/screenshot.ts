/**
 * `screenshot`: by default `exec:screencap` without `-p` — the raw frame (lib/ui/raw_screencap.ts),
 * so the device encodes no PNG and we decode none — area-averaged down to the asked size
 * (`resizeBox`) and encoded as PNG with one fixed filter. `full_size` asks `screencap -p` and
 * returns the device's PNG byte for byte; a raw format we do not read (FP16, 10-bit) falls back
 * to the same. Always over `exec:` (a PTY shell would corrupt binary bytes, PROTOCOLS.md 8). Runs
 * in the UI worker so resizing and encoding never block the main thread.
 *
 * `prepareScreenshot` / `prepareRawScreenshot` are pure over the captured bytes;
 * `captureScreenshot` is the device adapter.
 */
import { ToolError } from "../core/errors.ts";
import type { AdbClient } from "../adb/client.ts";
import { deviceGoneError, type ListingAdb } from "../adb/device_gone.ts";
import {
  decodePng,
  encodePng,
  isPng,
  MAX_PNG_PIXELS,
  PNG_SIGNATURE,
  PngError,
  readPngHeader,
} from "./png.ts";
import { resizeBox } from "./resize.ts";
import { parseRawScreencap, type RawFrame } from "./raw_screencap.ts";
import { DEFAULT_MAX_DIMENSION, SCREENSHOT_TIMEOUT_MS } from "./shared/limits.ts";
import type { ScreenshotResult } from "./shared/fast_path_types.ts";
export { DEFAULT_MAX_DIMENSION };

/** A capture larger than this is a tool error (spec). */
const MAX_SCREENSHOT_BYTES = 32 * 1024 * 1024;
/** A capture with more pixels than this is a tool error (spec: 16 Mpx). */
const MAX_SCREENSHOT_PIXELS = MAX_PNG_PIXELS;
/**
 * Text `screencap` may print before the PNG (stderr merged into `exec:`; a multi-display device
 * warns "[Warning] Multiple displays were found…"): skipped when the PNG starts within this.
 */
const MAX_SCREENSHOT_PREAMBLE_BYTES = 4_096;

/** Largest raw capture read: the pixel limit at 4 bytes a pixel, the header and a preamble. */
const MAX_RAW_SCREENSHOT_BYTES = MAX_PNG_PIXELS * 4 + 16 + MAX_SCREENSHOT_PREAMBLE_BYTES;
/** A raw answer shorter than this holds no frame (a 16×16 one is 1 KiB): it is an error text. */
const MIN_RAW_FRAME_BYTES = 1_024;

interface ScreenshotOptions {
  /** Long edge of the returned image; ignored with `fullSize`. */
  maxDimension?: number;
  fullSize?: boolean;
}

/** The returned image's size for a capture of `w`×`h` and a long-edge limit. */
export function targetSize(w: number, h: number, maxDimension: number) {
  const long = Math.max(w, h);
  if (long <= maxDimension) return { width: w, height: h };
  const f = maxDimension / long;
  return {
    width: Math.max(1, Math.min(w, Math.round(w * f))),
    height: Math.max(1, Math.min(h, Math.round(h * f))),
  };
}

function notPng(bytes: Uint8Array, what = "a PNG"): ToolError {
  const head = new TextDecoder().decode(bytes.subarray(0, 200)).replace(/[^\x20-\x7e]+/g, " ")
    .trim();
  return new ToolError(
    "command_failed",
    `screencap did not return ${what}${head ? ` (it printed "${head.slice(0, 120)}")` : ""}: ` +
      "the screen may be secure (FLAG_SECURE) or the device asleep; wake it and retry, or use " +
      "get_ui_hierarchy",
    { bytes: bytes.length },
  );
}

/** Where the PNG starts in `bytes` (after a short text preamble), or -1. */
function pngStart(bytes: Uint8Array): number {
  if (isPng(bytes)) return 0;
  const limit = Math.min(bytes.length - 8, MAX_SCREENSHOT_PREAMBLE_BYTES);
  for (let i = 1; i <= limit; i++) {
    if (bytes[i] === PNG_SIGNATURE[0] && isPng(bytes.subarray(i))) return i;
  }
  return -1;
}

/** Checks the capture and makes the image to return. */
export async function prepareScreenshot(
  captured: Uint8Array,
  opts: ScreenshotOptions = {},
): Promise<ScreenshotResult> {
  if (captured.length > MAX_SCREENSHOT_BYTES) throw tooLarge(captured.length);
  const at = pngStart(captured);
  if (at < 0) throw notPng(captured);
  const bytes = at === 0 ? captured : captured.subarray(at);
  let header;
  try {
    header = readPngHeader(bytes);
  } catch {
    throw notPng(captured);
  }
  const { width: w, height: h } = header;
  if (w * h > MAX_SCREENSHOT_PIXELS) throw tooManyPixels(w, h);
  const max = opts.maxDimension ?? DEFAULT_MAX_DIMENSION;
  const size = opts.fullSize ? { width: w, height: h } : targetSize(w, h, max);
  const base = { deviceWidth: w, deviceHeight: h, captureBytes: captured.length };
  if (size.width === w && size.height === h) {
    return { ...base, png: bytes, imageWidth: w, imageHeight: h, scale: 1, original: true };
  }
  let img;
  try {
    img = await decodePng(bytes);
  } catch (e) {
    if (e instanceof PngError) {
      throw new ToolError(
        "command_failed",
        `${e.message}: pass full_size: true to get the capture as the device sent it`,
      );
    }
    throw e;
  }
  const small = resizeBox(img, size.width, size.height);
  return {
    ...base,
    png: await encodePng(small),
    imageWidth: size.width,
    imageHeight: size.height,
    scale: Math.round(w / size.width * 10_000) / 10_000,
    original: false,
  };
}

/** Checks a raw frame and makes the image to return (always a PNG we encode). */
export async function prepareRawScreenshot(
  frame: RawFrame,
  captureBytes: number,
  opts: ScreenshotOptions = {},
): Promise<ScreenshotResult> {
  const { width: w, height: h } = frame;
  if (w * h > MAX_SCREENSHOT_PIXELS) throw tooManyPixels(w, h);
  const max = opts.maxDimension ?? DEFAULT_MAX_DIMENSION;
  const size = opts.fullSize ? { width: w, height: h } : targetSize(w, h, max);
  const img = size.width === w && size.height === h
    ? frame
    : resizeBox(frame, size.width, size.height);
  return {
    png: await encodePng(img),
    deviceWidth: w,
    deviceHeight: h,
    imageWidth: size.width,
    imageHeight: size.height,
    scale: Math.round(w / size.width * 10_000) / 10_000,
    original: false,
    captureBytes,
  };
}

function tooManyPixels(w: number, h: number): ToolError {
  return new ToolError(
    "command_failed",
    `The capture is ${w}x${h} (${(w * h / 1e6).toFixed(1)} Mpx), over the ` +
      `${MAX_SCREENSHOT_PIXELS / (1024 * 1024)} Mpx limit: use get_ui_hierarchy to read this ` +
      "screen instead",
    { width: w, height: h },
  );
}

function tooLarge(n: number): ToolError {
  return new ToolError(
    "command_failed",
    `The capture is over the ${MAX_SCREENSHOT_BYTES}-byte limit (${n} bytes or more): use ` +
      "get_ui_hierarchy to read this screen instead",
    { limit_bytes: MAX_SCREENSHOT_BYTES },
  );
}

/** `listDevices`, when given, tells an empty capture of a device that left from a bad one. */
export type ScreenshotAdb = Pick<AdbClient, "exec"> & Partial<ListingAdb>;

/** `e` unless the device left during the capture: then why (lib/adb/device_gone.ts). */
async function orGone(adb: ScreenshotAdb, serial: string, e: ToolError): Promise<ToolError> {
  if (!adb.listDevices) return e;
  return await deviceGoneError(
    { listDevices: adb.listDevices.bind(adb) },
    serial,
    "the screenshot",
  ) ??
    e;
}

/** Captures the screen and prepares the image. */
export async function captureScreenshot(
  adb: ScreenshotAdb,
  serial: string,
  opts: ScreenshotOptions & { signal?: AbortSignal } = {},
): Promise<ScreenshotResult> {
  if (!opts.fullSize) {
    let raw: Uint8Array;
    try {
      raw = await adb.exec(serial, ["screencap"], {
        signal: opts.signal,
        timeoutMs: SCREENSHOT_TIMEOUT_MS,
        maxOutputBytes: MAX_RAW_SCREENSHOT_BYTES,
      });
    } catch (e) {
      if (e instanceof ToolError && e.data && "limit_bytes" in e.data) {
        throw tooLarge(MAX_RAW_SCREENSHOT_BYTES);
      }
      throw e;
    }
    const frame = parseRawScreencap(raw);
    if (frame) return await prepareRawScreenshot(frame, raw.length, opts);
    // Too short to be a frame: screencap printed an error instead, or the device left.
    if (raw.length < MIN_RAW_FRAME_BYTES) throw await orGone(adb, serial, notPng(raw, "an image"));
    // A pixel format we do not convert: ask for the device's PNG.
  }
  let bytes: Uint8Array;
  try {
    bytes = await adb.exec(serial, ["screencap", "-p"], {
      signal: opts.signal,
      timeoutMs: SCREENSHOT_TIMEOUT_MS,
      maxOutputBytes: MAX_SCREENSHOT_BYTES + MAX_SCREENSHOT_PREAMBLE_BYTES,
    });
  } catch (e) {
    if (e instanceof ToolError && e.data && "limit_bytes" in e.data) {
      throw tooLarge(MAX_SCREENSHOT_BYTES + MAX_SCREENSHOT_PREAMBLE_BYTES);
    }
    throw e;
  }
  try {
    return await prepareScreenshot(bytes, opts);
  } catch (e) {
    if (e instanceof ToolError && e.code === "command_failed" && pngStart(bytes) < 0) {
      throw await orGone(adb, serial, e);
    }
    throw e;
  }
}
