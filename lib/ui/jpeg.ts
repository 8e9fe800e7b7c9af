/**
 * A baseline JPEG encoder (ITU-T T.81 / JFIF): RGBA in, YCbCr with 4:2:0 chroma subsampling, the
 * standard's example quantization tables (Annex K.1, K.2) scaled by quality as the IJG library
 * does, and its typical Huffman tables (Annex K.3–K.6). Pure and synchronous; alpha is dropped.
 * Screenshots choose it when the caller asks for `format: "jpeg"`: for an agent the pixel count,
 * not the bytes, is what costs, so PNG stays the default (docs/MCP_SERVER.md, bench figures).
 */
import type { RgbaImage } from "./png.ts";

/** Largest image encoded (the screenshot limit, 16 Mpx). */
const MAX_JPEG_PIXELS = 16 * 1024 * 1024;
/** The JPEG format's own limit on either side. */
const MAX_JPEG_DIMENSION = 65_535;

/** A table written as numbers separated by spaces (T.81's tables, compact). */
function table(text: string): number[] {
  return text.trim().split(/\s+/).map(Number);
}

/** A table written as two-digit hex bytes separated by spaces. */
function hexTable(text: string): number[] {
  return text.trim().split(/\s+/).map((b) => parseInt(b, 16));
}

const ZIGZAG = table(
  " 0  1  8 16  9  2  3 10 17 24 32 25 18 11  4  5 " +
    "12 19 26 33 40 48 41 34 27 20 13  6  7 14 21 28 " +
    "35 42 49 56 57 50 43 36 29 22 15 23 30 37 44 51 " +
    "58 59 52 45 38 31 39 46 53 60 61 54 47 55 62 63",
);

const LUMA_Q = table(
  " 16  11  10  16  24  40  51  61 " +
    " 12  12  14  19  26  58  60  55 " +
    " 14  13  16  24  40  57  69  56 " +
    " 14  17  22  29  51  87  80  62 " +
    " 18  22  37  56  68 109 103  77 " +
    " 24  35  55  64  81 104 113  92 " +
    " 49  64  78  87 103 121 120 101 " +
    " 72  92  95  98 112 100 103  99",
);

const CHROMA_Q = table(
  " 17  18  24  47  99  99  99  99 " +
    " 18  21  26  66  99  99  99  99 " +
    " 24  26  56  99  99  99  99  99 " +
    " 47  66  99  99  99  99  99  99 " +
    " 99  99  99  99  99  99  99  99 " +
    " 99  99  99  99  99  99  99  99 " +
    " 99  99  99  99  99  99  99  99 " +
    " 99  99  99  99  99  99  99  99",
);

export const DC_LUMA_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
export const DC_CHROMA_BITS = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
export const AC_LUMA_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
export const AC_LUMA_VALUES = hexTable(
  "01 02 03 00 04 11 05 12 21 31 41 06 13 51 61 07 22 71 " +
    "14 32 81 91 a1 08 23 42 b1 c1 15 52 d1 f0 24 33 62 72 " +
    "82 09 0a 16 17 18 19 1a 25 26 27 28 29 2a 34 35 36 37 " +
    "38 39 3a 43 44 45 46 47 48 49 4a 53 54 55 56 57 58 59 " +
    "5a 63 64 65 66 67 68 69 6a 73 74 75 76 77 78 79 7a 83 " +
    "84 85 86 87 88 89 8a 92 93 94 95 96 97 98 99 9a a2 a3 " +
    "a4 a5 a6 a7 a8 a9 aa b2 b3 b4 b5 b6 b7 b8 b9 ba c2 c3 " +
    "c4 c5 c6 c7 c8 c9 ca d2 d3 d4 d5 d6 d7 d8 d9 da e1 e2 " +
    "e3 e4 e5 e6 e7 e8 e9 ea f1 f2 f3 f4 f5 f6 f7 f8 f9 fa",
);
export const AC_CHROMA_BITS = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];
export const AC_CHROMA_VALUES = hexTable(
  "00 01 02 03 11 04 05 21 31 06 12 41 51 07 61 71 13 22 " +
    "32 81 08 14 42 91 a1 b1 c1 09 23 33 52 f0 15 62 72 d1 " +
    "0a 16 24 34 e1 25 f1 17 18 19 1a 26 27 28 29 2a 35 36 " +
    "37 38 39 3a 43 44 45 46 47 48 49 4a 53 54 55 56 57 58 " +
    "59 5a 63 64 65 66 67 68 69 6a 73 74 75 76 77 78 79 7a " +
    "82 83 84 85 86 87 88 89 8a 92 93 94 95 96 97 98 99 9a " +
    "a2 a3 a4 a5 a6 a7 a8 a9 aa b2 b3 b4 b5 b6 b7 b8 b9 ba " +
    "c2 c3 c4 c5 c6 c7 c8 c9 ca d2 d3 d4 d5 d6 d7 d8 d9 da " +
    "e2 e3 e4 e5 e6 e7 e8 e9 ea f2 f3 f4 f5 f6 f7 f8 f9 fa",
);

interface Huffman {
  code: Uint16Array;
  size: Uint8Array;
}

/** Code words from a table's counts per length and its values (T.81 Annex C). */
export function huffmanCodes(bits: readonly number[], values: readonly number[]): Huffman {
  const code = new Uint16Array(256), size = new Uint8Array(256);
  let c = 0, k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < bits[len - 1]; i++) {
      const v = values[k++];
      code[v] = c++;
      size[v] = len;
    }
    c <<= 1;
  }
  return { code, size };
}

/** The IJG quality scaling of a base table (quality 1..100). */
export function scaleTable(base: readonly number[], quality: number): Uint8Array {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const s = q < 50 ? 5000 / q : 200 - 2 * q;
  return Uint8Array.from(base, (v) => Math.min(255, Math.max(1, Math.floor((v * s + 50) / 100))));
}

const COS = (() => {
  const t = new Float64Array(64);
  for (let x = 0; x < 8; x++) {
    for (let u = 0; u < 8; u++) {
      t[x * 8 + u] = Math.cos((2 * x + 1) * u * Math.PI / 16) * (u === 0 ? Math.SQRT1_2 : 1);
    }
  }
  return t;
})();

class BitWriter {
  buf: Uint8Array;
  len = 0;
  #acc = 0;
  #n = 0;
  constructor(initial: number) {
    this.buf = new Uint8Array(Math.max(1024, initial));
  }
  #byte(b: number) {
    if (this.len + 2 > this.buf.length) {
      const next = new Uint8Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.len++] = b;
  }
  raw(bytes: ArrayLike<number>) {
    for (let i = 0; i < bytes.length; i++) this.#byte(bytes[i]);
  }
  bits(value: number, count: number) {
    for (let i = count - 1; i >= 0; i--) {
      this.#acc = (this.#acc << 1) | ((value >>> i) & 1);
      if (++this.#n === 8) {
        this.#byte(this.#acc);
        if (this.#acc === 0xff) this.#byte(0);
        this.#acc = 0;
        this.#n = 0;
      }
    }
  }
  flush() {
    if (this.#n > 0) this.bits(0x7f, 8 - this.#n);
  }
}

function marker(w: BitWriter, code: number, payload: number[]) {
  w.raw([0xff, code, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload]);
}

function magnitude(v: number): number {
  let a = v < 0 ? -v : v, n = 0;
  while (a) {
    n++;
    a >>= 1;
  }
  return n;
}

/** Encodes `img` (RGBA) as a baseline JPEG at `quality` (1..100). */
export function encodeJpeg(img: RgbaImage, quality: number): Uint8Array {
  const { width: w, height: h } = img;
  if (w < 1 || h < 1 || w > MAX_JPEG_DIMENSION || h > MAX_JPEG_DIMENSION) {
    throw new RangeError(`Cannot encode a ${w}x${h} JPEG: each side must be 1..65535`);
  }
  if (w * h > MAX_JPEG_PIXELS) {
    throw new RangeError(`Cannot encode a ${w}x${h} JPEG: over ${MAX_JPEG_PIXELS} pixels`);
  }
  const ql = scaleTable(LUMA_Q, quality), qc = scaleTable(CHROMA_Q, quality);
  const dcL = huffmanCodes(DC_LUMA_BITS, DC_VALUES), dcC = huffmanCodes(DC_CHROMA_BITS, DC_VALUES);
  const acL = huffmanCodes(AC_LUMA_BITS, AC_LUMA_VALUES);
  const acC = huffmanCodes(AC_CHROMA_BITS, AC_CHROMA_VALUES);
  const out = new BitWriter(Math.ceil(w * h / 4));
  writeHeaders(out, w, h, ql, qc);
  const { Y, Cb, Cr, pw, ph, cw } = toPlanes(img);
  const coder = new BlockCoder(out);
  for (let my = 0; my < ph; my += 16) {
    for (let mx = 0; mx < pw; mx += 16) {
      coder.encode(Y, pw, mx, my, ql, 0, dcL, acL);
      coder.encode(Y, pw, mx + 8, my, ql, 0, dcL, acL);
      coder.encode(Y, pw, mx, my + 8, ql, 0, dcL, acL);
      coder.encode(Y, pw, mx + 8, my + 8, ql, 0, dcL, acL);
      coder.encode(Cb, cw, mx / 2, my / 2, qc, 1, dcC, acC);
      coder.encode(Cr, cw, mx / 2, my / 2, qc, 2, dcC, acC);
    }
  }
  out.flush();
  out.raw([0xff, 0xd9]);
  return out.buf.slice(0, out.len);
}

/** SOI, JFIF, the two quantization tables, the frame (4:2:0), the Huffman tables, the scan. */
function writeHeaders(out: BitWriter, w: number, h: number, ql: Uint8Array, qc: Uint8Array) {
  out.raw([0xff, 0xd8]);
  marker(out, 0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  marker(out, 0xdb, [
    0,
    ...ZIGZAG.map((i) => ql[i]),
    1,
    ...ZIGZAG.map((i) => qc[i]),
  ]);
  marker(out, 0xc0, [
    8,
    h >> 8,
    h & 0xff,
    w >> 8,
    w & 0xff,
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ]);
  const dht = (cls: number, bits: number[], values: number[]) => [cls, ...bits, ...values];
  marker(out, 0xc4, [
    ...dht(0x00, DC_LUMA_BITS, DC_VALUES),
    ...dht(0x10, AC_LUMA_BITS, AC_LUMA_VALUES),
    ...dht(0x01, DC_CHROMA_BITS, DC_VALUES),
    ...dht(0x11, AC_CHROMA_BITS, AC_CHROMA_VALUES),
  ]);
  marker(out, 0xda, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);
}

/** Colour conversion into padded planes (edges replicated to whole 16×16 MCUs). */
function toPlanes(img: RgbaImage) {
  const { width: w, height: h, data } = img;
  const pw = Math.ceil(w / 16) * 16, ph = Math.ceil(h / 16) * 16;
  const Y = new Float32Array(pw * ph);
  const cw = pw / 2, ch = ph / 2;
  const Cb = new Float32Array(cw * ch), Cr = new Float32Array(cw * ch);
  for (let y = 0; y < ph; y++) {
    const sy = y < h ? y : h - 1;
    for (let x = 0; x < pw; x++) {
      const sx = x < w ? x : w - 1;
      const i = (sy * w + sx) * 4;
      const r = data[i], g = data[i + 1], b = data[i + 2];
      Y[y * pw + x] = 0.299 * r + 0.587 * g + 0.114 * b - 128;
      const c = (y >> 1) * cw + (x >> 1);
      Cb[c] += (-0.168736 * r - 0.331264 * g + 0.5 * b) / 4;
      Cr[c] += (0.5 * r - 0.418688 * g - 0.081312 * b) / 4;
    }
  }
  return { Y, Cb, Cr, pw, ph, cw };
}

/** Codes 8×8 blocks into `out`: DCT, quantization, the DC difference per component, AC runs. */
class BlockCoder {
  #out: BitWriter;
  #block = new Float64Array(64);
  #tmp = new Float64Array(64);
  #coef = new Int32Array(64);
  /** The previous DC coefficient of each component. */
  #dc = [0, 0, 0];

  constructor(out: BitWriter) {
    this.#out = out;
  }

  encode(
    plane: Float32Array,
    stride: number,
    bx: number,
    by: number,
    q: Uint8Array,
    comp: number,
    dcT: Huffman,
    acT: Huffman,
  ): void {
    const block = this.#block, tmp = this.#tmp, coef = this.#coef, out = this.#out;
    for (let y = 0; y < 8; y++) {
      for (let x = 0; x < 8; x++) block[y * 8 + x] = plane[(by + y) * stride + bx + x];
    }
    // Separable 2-D DCT-II: rows, then columns.
    for (let y = 0; y < 8; y++) {
      for (let u = 0; u < 8; u++) {
        let s = 0;
        for (let x = 0; x < 8; x++) s += block[y * 8 + x] * COS[x * 8 + u];
        tmp[y * 8 + u] = s / 2;
      }
    }
    for (let u = 0; u < 8; u++) {
      for (let v = 0; v < 8; v++) {
        let s = 0;
        for (let y = 0; y < 8; y++) s += tmp[y * 8 + u] * COS[y * 8 + v];
        const k = v * 8 + u;
        coef[k] = Math.round(s / 2 / q[k]);
      }
    }
    const diff = coef[0] - this.#dc[comp];
    this.#dc[comp] = coef[0];
    const sz = magnitude(diff);
    out.bits(dcT.code[sz], dcT.size[sz]);
    if (sz) out.bits(diff < 0 ? diff + (1 << sz) - 1 : diff, sz);
    let run = 0;
    for (let i = 1; i < 64; i++) {
      const v = coef[ZIGZAG[i]];
      if (v === 0) {
        run++;
        continue;
      }
      while (run > 15) {
        out.bits(acT.code[0xf0], acT.size[0xf0]);
        run -= 16;
      }
      const s = magnitude(v);
      const sym = (run << 4) | s;
      out.bits(acT.code[sym], acT.size[sym]);
      out.bits(v < 0 ? v + (1 << s) - 1 : v, s);
      run = 0;
    }
    if (run > 0) out.bits(acT.code[0], acT.size[0]);
  }
}
