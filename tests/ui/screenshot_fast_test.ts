/**
 * The fast screenshot path: raw `screencap` frames (both header sizes, every pixel format we read,
 * a text preamble), the integer box resize against an independent exact area average (PSNR ≥ 38
 * dB), and the fixed-filter encoder (lossless round trip).
 */
import { assert, assertEquals } from "../assert.ts";
import {
  decodePng,
  encodePng,
  filterRowsFixed,
  PngFilter,
  type RgbaImage,
  unfilter,
} from "../../lib/ui/png.ts";
import { resizeBox } from "../../lib/ui/resize.ts";
import { parseRawScreencap, RawPixelFormat } from "../../lib/ui/raw_screencap.ts";
import { prepareRawScreenshot } from "../../lib/ui/screenshot.ts";
import { rasterize } from "../sim/ui/render.ts";
import { psnr, referenceDownscale } from "./_reference_resize.ts";

/** A screen-like picture plus noise, so every weight matters. */
function screen(w: number, h: number, seed = 7): RgbaImage {
  const data = new Uint8Array(w * h * 4);
  let s = seed;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const i = (y * w + x) * 4;
      const text = y % 40 > 12 && y % 40 < 22 && (x >> 2) % 3 !== 0;
      data[i] = text ? 30 : (x * 255 / w) | 0;
      data[i + 1] = text ? 30 : (y * 255 / h) | 0;
      data[i + 2] = (s >>> 24) & 255;
      data[i + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

Deno.test("resizeBox() matches an exact area average (PSNR ≥ 38 dB) at screenshot scales", () => {
  for (
    const [sw, sh, dw, dh] of [
      [1080, 2400, 576, 1280],
      [1440, 3120, 591, 1280],
      [720, 1280, 256, 455],
      [301, 97, 300, 96],
      [64, 64, 7, 3],
    ]
  ) {
    const img = screen(sw, sh);
    const fast = resizeBox(img, dw, dh);
    const ref = referenceDownscale(img, dw, dh);
    const db = psnr(fast.data, ref.data);
    assert(db >= 38, `${sw}x${sh} → ${dw}x${dh}: ${db.toFixed(1)} dB`);
  }
});

Deno.test("resizeBox() on the simulator's rendered screen keeps the picture", () => {
  const px = rasterize([], 1080, 2400);
  const img = { width: 1080, height: 2400, data: px };
  const db = psnr(resizeBox(img, 576, 1280).data, referenceDownscale(img, 576, 1280).data);
  assert(db >= 38, `${db.toFixed(1)} dB`);
});

Deno.test("every fixed filter round-trips through unfilter, and encodePng decodes to its input", async () => {
  const img = screen(37, 23);
  for (const f of Object.values(PngFilter)) {
    const rows = filterRowsFixed(img.data, 23, 37 * 4, 4, f);
    for (let y = 0; y < 23; y++) assertEquals(rows[y * (37 * 4 + 1)], f);
    assertEquals(unfilter(rows, 23, 37 * 4, 4), img.data, `filter ${f}`);
    assertEquals((await decodePng(await encodePng(img, { filter: f }))).data, img.data);
  }
  assertEquals((await decodePng(await encodePng(img))).data, img.data);
});

function rawFrame(w: number, h: number, format: number, px: Uint8Array, header: 12 | 16) {
  const out = new Uint8Array(header + px.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, w, true);
  v.setUint32(4, h, true);
  v.setUint32(8, format, true);
  if (header === 16) v.setUint32(12, 1, true);
  out.set(px, header);
  return out;
}

Deno.test("parseRawScreencap() reads both headers and every 8-bit and 565 format as RGBA", () => {
  const rgba = new Uint8Array([10, 20, 30, 40, 50, 60, 70, 80]);
  for (const header of [12, 16] as const) {
    const a = parseRawScreencap(rawFrame(2, 1, RawPixelFormat.RGBA_8888, rgba, header))!;
    assertEquals([a.width, a.height, a.colorSpace], [2, 1, header === 16 ? 1 : null]);
    assertEquals(a.data, rgba);
  }
  const x = parseRawScreencap(rawFrame(2, 1, RawPixelFormat.RGBX_8888, rgba, 16))!;
  assertEquals(x.data, new Uint8Array([10, 20, 30, 255, 50, 60, 70, 255]));
  const bgra = parseRawScreencap(rawFrame(2, 1, RawPixelFormat.BGRA_8888, rgba, 16))!;
  assertEquals(bgra.data, new Uint8Array([30, 20, 10, 40, 70, 60, 50, 80]));
  const rgb = parseRawScreencap(
    rawFrame(2, 1, RawPixelFormat.RGB_888, new Uint8Array([1, 2, 3, 4, 5, 6]), 16),
  )!;
  assertEquals(rgb.data, new Uint8Array([1, 2, 3, 255, 4, 5, 6, 255]));
  // 565: pure red, pure green, pure blue, white (little-endian 16-bit words).
  const p565 = new Uint8Array([0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0xff, 0xff]);
  const c = parseRawScreencap(rawFrame(4, 1, RawPixelFormat.RGB_565, p565, 16))!;
  assertEquals(
    c.data,
    new Uint8Array([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]),
  );
  // A warning printed first (stderr merged into exec:) is skipped.
  const warned = new Uint8Array([
    ...new TextEncoder().encode("[Warning] Multiple displays were found\n"),
    ...rawFrame(2, 1, RawPixelFormat.RGBA_8888, rgba, 16),
  ]);
  assertEquals(parseRawScreencap(warned)!.data, rgba);
  // Not a frame: a PNG, text, a size that does not add up, a format we do not read (FP16).
  assertEquals(parseRawScreencap(new TextEncoder().encode("screencap: permission denied")), null);
  assertEquals(parseRawScreencap(rawFrame(5, 1, 1, rgba, 16)), null);
  assertEquals(parseRawScreencap(rawFrame(1, 1, 0x16, new Uint8Array(8), 16)), null);
});

Deno.test("prepareRawScreenshot() scales a raw frame and encodes a PNG of the asked size", async () => {
  const img = screen(1080, 2400);
  const frame = parseRawScreencap(rawFrame(1080, 2400, 1, img.data, 16))!;
  const r = await prepareRawScreenshot(frame, 16 + img.data.length);
  assertEquals([r.deviceWidth, r.deviceHeight, r.imageWidth, r.imageHeight], [
    1080,
    2400,
    576,
    1280,
  ]);
  assertEquals([r.scale, r.original], [1.875, false]);
  const back = await decodePng(r.png);
  assert(psnr(back.data, referenceDownscale(img, 576, 1280).data) >= 38);
  const fits = await prepareRawScreenshot(frame, 0, { maxDimension: 4096 });
  assertEquals([fits.imageWidth, fits.scale], [1080, 1]);
  assertEquals((await decodePng(fits.png)).data, img.data);
});
