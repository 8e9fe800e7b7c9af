/**
 * PNG decode and encode (the downscales are resize.ts). Pure (the zlib streams are Deno's
 * `DecompressionStream` / `CompressionStream("deflate")`, which are the zlib format PNG stores).
 *
 * Decodes 8-bit, non-interlaced images of every colour type (gray, RGB, palette, gray + alpha,
 * RGBA) to RGBA; `screencap -p` writes 8-bit RGBA. Interlaced and 16-bit images are refused with
 * a `PngError` that says so. Encodes RGBA (colour type 6) with a filter chosen per row.
 * Format facts: the PNG specification (ISO/IEC 15948), chunks IHDR / PLTE / tRNS / IDAT / IEND,
 * filter types 0–4, CRC-32 over chunk type and data.
 */
import { concatBytes } from "../core/bytes.ts";

/** The eight bytes every PNG starts with. */
export const PNG_SIGNATURE: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Widest or tallest image decoded. */
export const MAX_PNG_DIMENSION = 32_768;
/** Most pixels decoded (the screenshot limit, 16 Mpx). */
export const MAX_PNG_PIXELS = 16 * 1024 * 1024;
/** Most chunks read before the image is refused (real files have a handful plus IDATs). */
export const MAX_PNG_CHUNKS = 100_000;

export class PngError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PngError";
  }
}

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, row-major, straight (not premultiplied) alpha. */
  data: Uint8Array;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (the PNG / zlib polynomial) of `bytes`, continuing from `crc` when given. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Whether `bytes` starts with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  for (let i = 0; i < 8; i++) if (bytes[i] !== PNG_SIGNATURE[i]) return false;
  return true;
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
}

/** The IHDR of a PNG, without decoding its pixels. */
export function readPngHeader(bytes: Uint8Array): PngHeader {
  if (!isPng(bytes)) {
    throw new PngError("Cannot read PNG: the data does not start with a PNG signature");
  }
  if (bytes.length < 33 || u32(bytes, 8) !== 13 || typeName(bytes, 12) !== "IHDR") {
    throw new PngError("Cannot read PNG: the first chunk is not a 13-byte IHDR");
  }
  const h: PngHeader = {
    width: u32(bytes, 16),
    height: u32(bytes, 20),
    bitDepth: bytes[24],
    colorType: bytes[25],
    interlace: bytes[28],
  };
  if (h.width === 0 || h.height === 0) throw new PngError("Cannot read PNG: the image is empty");
  return h;
}

function typeName(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Inflates zlib data; refuses output over `limit` bytes. */
export async function inflate(data: Uint8Array, limit: number): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("deflate"));
  const out = new Uint8Array(limit);
  let n = 0;
  const reader = stream.getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (n + value.length > limit) {
        throw new PngError("Cannot decode PNG: the image data is larger than its header says");
      }
      out.set(value, n);
      n += value.length;
    }
  } catch (e) {
    if (e instanceof PngError) throw e;
    throw new PngError(
      `Cannot decode PNG: the compressed data is corrupt (${(e as Error).message})`,
    );
  } finally {
    await reader.cancel().catch(() => {});
  }
  return out.subarray(0, n);
}

/** Deflates into the zlib format. */
export async function deflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Reverses the per-row filters in place; `raw` holds rows of 1 + stride bytes. */
export function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): Uint8Array {
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    switch (f) {
      case 0:
        out.set(raw.subarray(src, src + stride), row);
        break;
      case 1:
        for (let i = 0; i < stride; i++) {
          out[row + i] = raw[src + i] + (i >= bpp ? out[row + i - bpp] : 0);
        }
        break;
      case 2:
        for (let i = 0; i < stride; i++) out[row + i] = raw[src + i] + (y > 0 ? out[prev + i] : 0);
        break;
      case 3:
        for (let i = 0; i < stride; i++) {
          const a = i >= bpp ? out[row + i - bpp] : 0;
          const b = y > 0 ? out[prev + i] : 0;
          out[row + i] = raw[src + i] + ((a + b) >> 1);
        }
        break;
      case 4:
        for (let i = 0; i < stride; i++) {
          const a = i >= bpp ? out[row + i - bpp] : 0;
          const b = y > 0 ? out[prev + i] : 0;
          const c = y > 0 && i >= bpp ? out[prev + i - bpp] : 0;
          out[row + i] = raw[src + i] + paeth(a, b, c);
        }
        break;
      default:
        throw new PngError(`Cannot decode PNG: row ${y} has unknown filter type ${f}`);
    }
  }
  return out;
}

/** Decodes a PNG to RGBA. Throws `PngError` for what it cannot or will not decode. */
export async function decodePng(bytes: Uint8Array): Promise<RgbaImage> {
  const h = readPngHeader(bytes);
  if (h.interlace !== 0) {
    throw new PngError(
      "Cannot decode PNG: it is interlaced (Adam7), which this decoder does not read; " +
        "screencap never writes interlaced images",
    );
  }
  if (h.bitDepth !== 8) {
    throw new PngError(`Cannot decode PNG: bit depth ${h.bitDepth} is not supported (only 8)`);
  }
  const channels = CHANNELS[h.colorType];
  if (channels === undefined) {
    throw new PngError(`Cannot decode PNG: unknown colour type ${h.colorType}`);
  }
  if (h.width > MAX_PNG_DIMENSION || h.height > MAX_PNG_DIMENSION) {
    throw new PngError(
      `Cannot decode PNG: ${h.width}x${h.height} is over ${MAX_PNG_DIMENSION} pixels on a side`,
    );
  }
  if (h.width * h.height > MAX_PNG_PIXELS) {
    throw new PngError(
      `Cannot decode PNG: ${h.width}x${h.height} is over the ${MAX_PNG_PIXELS}-pixel limit`,
    );
  }
  const idat: Uint8Array[] = [];
  let palette: Uint8Array | null = null;
  let trns: Uint8Array | null = null;
  let at = 8;
  let chunks = 0;
  let ended = false;
  while (at + 12 <= bytes.length) {
    if (++chunks > MAX_PNG_CHUNKS) throw new PngError("Cannot decode PNG: too many chunks");
    const len = u32(bytes, at);
    const type = typeName(bytes, at + 4);
    if (at + 12 + len > bytes.length) {
      throw new PngError(`Cannot decode PNG: chunk ${type} runs past the end of the data`);
    }
    const data = bytes.subarray(at + 8, at + 8 + len);
    if (crc32(bytes.subarray(at + 4, at + 8 + len)) !== u32(bytes, at + 8 + len)) {
      throw new PngError(`Cannot decode PNG: chunk ${type} fails its CRC check`);
    }
    if (type === "IDAT") idat.push(data);
    else if (type === "PLTE") palette = data;
    else if (type === "tRNS") trns = data;
    else if (type === "IEND") {
      ended = true;
      break;
    }
    at += 12 + len;
  }
  if (!ended) throw new PngError("Cannot decode PNG: the data ends before IEND (truncated)");
  if (idat.length === 0) throw new PngError("Cannot decode PNG: it has no image data (IDAT)");
  if (h.colorType === 3 && !palette) {
    throw new PngError("Cannot decode PNG: palette image without PLTE");
  }
  const joined = concatBytes(idat);
  const stride = h.width * channels;
  const expected = h.height * (stride + 1);
  const raw = await inflate(joined, expected);
  if (raw.length !== expected) {
    throw new PngError(
      `Cannot decode PNG: the image data has ${raw.length} bytes, ${expected} expected (truncated)`,
    );
  }
  const px = unfilter(raw, h.height, stride, channels);
  return { width: h.width, height: h.height, data: toRgba(px, h, palette, trns) };
}

function toRgba(
  px: Uint8Array,
  h: PngHeader,
  palette: Uint8Array | null,
  trns: Uint8Array | null,
): Uint8Array {
  const n = h.width * h.height;
  if (h.colorType === 6) return px;
  const out = new Uint8Array(n * 4);
  switch (h.colorType) {
    case 0: {
      const key = trns && trns.length >= 2 ? (trns[0] << 8) | trns[1] : -1;
      for (let i = 0; i < n; i++) {
        const g = px[i];
        out[i * 4] = out[i * 4 + 1] = out[i * 4 + 2] = g;
        out[i * 4 + 3] = g === key ? 0 : 255;
      }
      break;
    }
    case 2: {
      const key = trns && trns.length >= 6
        ? [(trns[0] << 8) | trns[1], (trns[2] << 8) | trns[3], (trns[4] << 8) | trns[5]]
        : null;
      for (let i = 0; i < n; i++) {
        const r = px[i * 3], g = px[i * 3 + 1], b = px[i * 3 + 2];
        out[i * 4] = r;
        out[i * 4 + 1] = g;
        out[i * 4 + 2] = b;
        out[i * 4 + 3] = key && r === key[0] && g === key[1] && b === key[2] ? 0 : 255;
      }
      break;
    }
    case 3: {
      const pal = palette!;
      const entries = Math.floor(pal.length / 3);
      for (let i = 0; i < n; i++) {
        const k = px[i];
        if (k >= entries) {
          throw new PngError(`Cannot decode PNG: palette index ${k} is past the palette's end`);
        }
        out[i * 4] = pal[k * 3];
        out[i * 4 + 1] = pal[k * 3 + 1];
        out[i * 4 + 2] = pal[k * 3 + 2];
        out[i * 4 + 3] = trns && k < trns.length ? trns[k] : 255;
      }
      break;
    }
    case 4:
      for (let i = 0; i < n; i++) {
        const g = px[i * 2];
        out[i * 4] = out[i * 4 + 1] = out[i * 4 + 2] = g;
        out[i * 4 + 3] = px[i * 2 + 1];
      }
      break;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * Filters every row with the filter whose output has the smallest sum of absolute values (the
 * heuristic the PNG specification suggests), into rows of 1 + stride bytes.
 */
export function filterRows(px: Uint8Array, height: number, stride: number, bpp: number) {
  const out = new Uint8Array(height * (stride + 1));
  const cand = [0, 1, 2, 3, 4].map(() => new Uint8Array(stride));
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const prev = row - stride;
    let best = 0;
    let bestSum = Infinity;
    for (let f = 0; f < 5; f++) {
      const c = cand[f];
      let sum = 0;
      for (let i = 0; i < stride; i++) {
        const x = px[row + i];
        const a = i >= bpp ? px[row + i - bpp] : 0;
        const b = y > 0 ? px[prev + i] : 0;
        const cc = y > 0 && i >= bpp ? px[prev + i - bpp] : 0;
        const v = f === 0
          ? x
          : f === 1
          ? x - a
          : f === 2
          ? x - b
          : f === 3
          ? x - ((a + b) >> 1)
          : x - paeth(a, b, cc);
        const byte = v & 0xff;
        c[i] = byte;
        sum += byte < 128 ? byte : 256 - byte;
        if (sum >= bestSum) break;
      }
      if (sum < bestSum) {
        bestSum = sum;
        best = f;
      }
    }
    out[y * (stride + 1)] = best;
    out.set(cand[best], y * (stride + 1) + 1);
  }
  return out;
}

/** The PNG filter types. */
export const PngFilter = { none: 0, sub: 1, up: 2, average: 3, paeth: 4 } as const;

/**
 * The filter encodePng puts on every row. Trying all five per row (filterRows) costs 50–65 ms on
 * a 576×1280 screenshot; one fixed filter costs a few ms for a few per cent more bytes. Up suits
 * screens (flat panels, horizontal text runs): see `deno task bench` for the sizes.
 */
export const DEFAULT_PNG_FILTER = PngFilter.up;

/** Filters every row with the one filter `type`, into rows of 1 + stride bytes. */
export function filterRowsFixed(
  px: Uint8Array,
  height: number,
  stride: number,
  bpp: number,
  type: number,
): Uint8Array {
  const out = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const prev = row - stride;
    const o = y * (stride + 1) + 1;
    out[o - 1] = type;
    if (type === PngFilter.none || (y === 0 && type === PngFilter.up)) {
      out.set(px.subarray(row, row + stride), o);
      continue;
    }
    if (type === PngFilter.up) {
      for (let i = 0; i < stride; i++) out[o + i] = px[row + i] - px[prev + i];
      continue;
    }
    if (type === PngFilter.sub) {
      for (let i = 0; i < bpp; i++) out[o + i] = px[row + i];
      for (let i = bpp; i < stride; i++) out[o + i] = px[row + i] - px[row + i - bpp];
      continue;
    }
    for (let i = 0; i < stride; i++) {
      const x = px[row + i];
      const a = i >= bpp ? px[row + i - bpp] : 0;
      const b = y > 0 ? px[prev + i] : 0;
      if (type === PngFilter.average) out[o + i] = x - ((a + b) >> 1);
      else out[o + i] = x - paeth(a, b, y > 0 && i >= bpp ? px[prev + i - bpp] : 0);
    }
  }
  return out;
}

export interface EncodeOptions {
  /** A filter type for every row (default DEFAULT_PNG_FILTER), or "adaptive": the best per row. */
  filter?: number | "adaptive";
}

/** Encodes RGBA pixels as a PNG (8-bit, colour type 6, not interlaced). */
export async function encodePng(img: RgbaImage, opts: EncodeOptions = {}): Promise<Uint8Array> {
  const { width, height, data } = img;
  if (data.length !== width * height * 4) {
    throw new RangeError(`Cannot encode PNG: ${data.length} bytes is not ${width}x${height} RGBA`);
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const filter = opts.filter ?? DEFAULT_PNG_FILTER;
  const rows = filter === "adaptive"
    ? filterRows(data, height, width * 4, 4)
    : filterRowsFixed(data, height, width * 4, 4, filter);
  const idat = await deflate(rows);
  const parts = [
    new Uint8Array(PNG_SIGNATURE),
    chunk("IHDR", ihdr),
    chunk("IDAT", idat),
    chunk("IEND", new Uint8Array(0)),
  ];
  return concatBytes(parts);
}
