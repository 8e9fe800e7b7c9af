/**
 * The downscales screenshots use, on RGBA images (png.ts decodes them): an exact area average,
 * and the integer box resize the fast path runs. Pure.
 */
import type { RgbaImage } from "./png.ts";

/** Per destination index: the source indexes it covers and how much of each (sums to 1). */
function coverage(src: number, dst: number): { start: Int32Array; weights: Float32Array[] } {
  const scale = src / dst;
  const start = new Int32Array(dst);
  const weights: Float32Array[] = [];
  for (let j = 0; j < dst; j++) {
    const lo = j * scale, hi = Math.min(src, (j + 1) * scale);
    const first = Math.floor(lo), last = Math.min(src - 1, Math.ceil(hi) - 1);
    const w = new Float32Array(last - first + 1);
    for (let k = first; k <= last; k++) {
      w[k - first] = (Math.min(hi, k + 1) - Math.max(lo, k)) / scale;
    }
    start[j] = first;
    weights.push(w);
  }
  return { start, weights };
}

/** Both downscales take whole sizes from 1 up to the source's; anything else is a RangeError. */
function checkDownscale(img: RgbaImage, width: number, height: number): void {
  if (
    !Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 ||
    width > img.width || height > img.height
  ) {
    throw new RangeError(
      `Cannot resize ${img.width}x${img.height} to ${width}x${height}: only downscaling is supported`,
    );
  }
}

/**
 * Area-average downscale to `width` × `height` (each no larger than the source): every output
 * pixel is the mean of the source area it covers, with partial pixels weighted by how much of
 * them it covers. Channels are averaged independently (screenshots are opaque).
 */
export function resizeAreaAverage(img: RgbaImage, width: number, height: number): RgbaImage {
  checkDownscale(img, width, height);
  const sw = img.width, sh = img.height, src = img.data;
  const cx = coverage(sw, width);
  const cy = coverage(sh, height);
  // Horizontal pass: sh rows × width columns.
  const mid = new Float32Array(sh * width * 4);
  for (let y = 0; y < sh; y++) {
    const srow = y * sw * 4, mrow = y * width * 4;
    for (let j = 0; j < width; j++) {
      const w = cx.weights[j];
      let r = 0, g = 0, b = 0, a = 0;
      let s = srow + cx.start[j] * 4;
      for (let k = 0; k < w.length; k++, s += 4) {
        const f = w[k];
        r += src[s] * f;
        g += src[s + 1] * f;
        b += src[s + 2] * f;
        a += src[s + 3] * f;
      }
      const m = mrow + j * 4;
      mid[m] = r;
      mid[m + 1] = g;
      mid[m + 2] = b;
      mid[m + 3] = a;
    }
  }
  // Vertical pass.
  const out = new Uint8Array(width * height * 4);
  const acc = new Float32Array(width * 4);
  for (let i = 0; i < height; i++) {
    acc.fill(0);
    const w = cy.weights[i];
    for (let k = 0; k < w.length; k++) {
      const f = w[k];
      const m = (cy.start[i] + k) * width * 4;
      for (let q = 0; q < width * 4; q++) acc[q] += mid[m + q] * f;
    }
    const o = i * width * 4;
    for (let q = 0; q < width * 4; q++) out[o + q] = Math.min(255, Math.round(acc[q]));
  }
  return { width, height, data: out };
}

/** Fixed-point unit of one source pixel's coverage in resizeBox. */
const BOX_ONE = 1024;

/** Per destination index: first source index, tap count, integer weights, and their sum. */
function boxAxis(src: number, dst: number) {
  const scale = src / dst;
  const taps = Math.ceil(scale) + 1;
  const first = new Int32Array(dst);
  const count = new Int32Array(dst);
  const weights = new Int32Array(dst * taps);
  const sums = new Float64Array(dst);
  for (let j = 0; j < dst; j++) {
    const lo = j * scale, hi = Math.min(src, (j + 1) * scale);
    const a = Math.floor(lo), b = Math.min(src - 1, Math.ceil(hi) - 1);
    first[j] = a;
    let n = 0;
    let sum = 0;
    for (let k = a; k <= b; k++) {
      const w = Math.round((Math.min(hi, k + 1) - Math.max(lo, k)) * BOX_ONE);
      weights[j * taps + n++] = w;
      sum += w;
    }
    count[j] = n;
    sums[j] = sum;
  }
  return { first, count, weights, sums, taps };
}

/** One source row (from byte `srow`) reduced to `width` output columns with integer weights. */
function reduceRow(
  src: Uint8Array,
  srow: number,
  hrow: Float64Array,
  width: number,
  xf: Int32Array,
  xc: Int32Array,
  xw: Int32Array,
  xt: number,
): void {
  for (let j = 0; j < width; j++) {
    let r = 0, g = 0, b = 0, a = 0;
    let s = srow + xf[j] * 4;
    const base = j * xt;
    for (let k = 0, n = xc[j]; k < n; k++, s += 4) {
      const w = xw[base + k];
      r += src[s] * w;
      g += src[s + 1] * w;
      b += src[s + 2] * w;
      a += src[s + 3] * w;
    }
    const m = j * 4;
    hrow[m] = r;
    hrow[m + 1] = g;
    hrow[m + 2] = b;
    hrow[m + 3] = a;
  }
}

/**
 * The area-average downscale of resizeAreaAverage in integer weights (1/1024 of a pixel), a row at
 * a time: each source row is reduced horizontally once into a row buffer, which is added into the
 * output row(s) it covers; an output row is written as soon as it is complete. No image-sized
 * intermediate, no per-pixel arrays. Within a level of resizeAreaAverage's result (PSNR well over
 * 38 dB against it: tests/ui/png_test.ts).
 */
export function resizeBox(img: RgbaImage, width: number, height: number): RgbaImage {
  checkDownscale(img, width, height);
  const sw = img.width, src = img.data;
  const x = boxAxis(sw, width);
  const y = boxAxis(img.height, height);
  const rowLen = width * 4;
  // Two row buffers: the last source row of an output row is usually the first of the next one,
  // and is reduced once.
  let hrow = new Float64Array(rowLen);
  let spare = new Float64Array(rowLen);
  let cached = -1;
  const acc = new Float64Array(rowLen);
  const inv = new Float64Array(width);
  const out = new Uint8Array(rowLen * height);
  const xf = x.first, xc = x.count, xw = x.weights, xt = x.taps;
  for (let i = 0; i < height; i++) {
    acc.fill(0);
    const ky = y.first[i];
    for (let t = 0; t < y.count[i]; t++) {
      const wy = y.weights[i * y.taps + t];
      const row = ky + t;
      if (row !== cached) {
        [hrow, spare] = [spare, hrow];
        reduceRow(src, row * sw * 4, hrow, width, xf, xc, xw, xt);
        cached = row;
      }
      for (let q = 0; q < rowLen; q++) acc[q] += hrow[q] * wy;
    }
    const sy = y.sums[i];
    for (let j = 0; j < width; j++) inv[j] = 1 / (x.sums[j] * sy);
    const o = i * rowLen;
    for (let j = 0; j < width; j++) {
      const f = inv[j], m = j * 4;
      out[o + m] = acc[m] * f + 0.5;
      out[o + m + 1] = acc[m + 1] * f + 0.5;
      out[o + m + 2] = acc[m + 2] * f + 0.5;
      out[o + m + 3] = acc[m + 3] * f + 0.5;
    }
  }
  return { width, height, data: out };
}
