/**
 * A baseline JPEG encoder (ITU-T T.81 / JFIF): RGBA in, YCbCr with 4:2:0 chroma subsampling, the
 * standard's example quantization tables (Annex K.1, K.2) scaled by quality as the IJG library
 * does, and its typical Huffman tables (Annex K.3–K.6). Pure and synchronous; alpha is dropped.
 * Screenshots choose it when the caller asks for `format: "jpeg"`: for an agent the pixel count,
 * not the bytes, is what costs, so PNG stays the default (docs/MCP_SERVER.md, bench figures).
 */
import type { RgbaImage } from "./png.ts";

/** Largest image encoded (the screenshot limit, 16 Mpx). */
export const MAX_JPEG_PIXELS = 16 * 1024 * 1024;
/** The JPEG format's own limit on either side. */
export const MAX_JPEG_DIMENSION = 65_535;

const ZIGZAG = [
  0,
  1,
  8,
  16,
  9,
  2,
  3,
  10,
  17,
  24,
  32,
  25,
  18,
  11,
  4,
  5,
  12,
  19,
  26,
  33,
  40,
  48,
  41,
  34,
  27,
  20,
  13,
  6,
  7,
  14,
  21,
  28,
  35,
  42,
  49,
  56,
  57,
  50,
  43,
  36,
  29,
  22,
  15,
  23,
  30,
  37,
  44,
  51,
  58,
  59,
  52,
  45,
  38,
  31,
  39,
  46,
  53,
  60,
  61,
  54,
  47,
  55,
  62,
  63,
];

const LUMA_Q = [
  16,
  11,
  10,
  16,
  24,
  40,
  51,
  61,
  12,
  12,
  14,
  19,
  26,
  58,
  60,
  55,
  14,
  13,
  16,
  24,
  40,
  57,
  69,
  56,
  14,
  17,
  22,
  29,
  51,
  87,
  80,
  62,
  18,
  22,
  37,
  56,
  68,
  109,
  103,
  77,
  24,
  35,
  55,
  64,
  81,
  104,
  113,
  92,
  49,
  64,
  78,
  87,
  103,
  121,
  120,
  101,
  72,
  92,
  95,
  98,
  112,
  100,
  103,
  99,
];

const CHROMA_Q = [
  17,
  18,
  24,
  47,
  99,
  99,
  99,
  99,
  18,
  21,
  26,
  66,
  99,
  99,
  99,
  99,
  24,
  26,
  56,
  99,
  99,
  99,
  99,
  99,
  47,
  66,
  99,
  99,
  99,
  99,
  99,
  99,
  ...new Array(32).fill(99),
];

export const DC_LUMA_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
export const DC_CHROMA_BITS = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
export const AC_LUMA_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
export const AC_LUMA_VALUES = [
  0x01,
  0x02,
  0x03,
  0x00,
  0x04,
  0x11,
  0x05,
  0x12,
  0x21,
  0x31,
  0x41,
  0x06,
  0x13,
  0x51,
  0x61,
  0x07,
  0x22,
  0x71,
  0x14,
  0x32,
  0x81,
  0x91,
  0xa1,
  0x08,
  0x23,
  0x42,
  0xb1,
  0xc1,
  0x15,
  0x52,
  0xd1,
  0xf0,
  0x24,
  0x33,
  0x62,
  0x72,
  0x82,
  0x09,
  0x0a,
  0x16,
  0x17,
  0x18,
  0x19,
  0x1a,
  0x25,
  0x26,
  0x27,
  0x28,
  0x29,
  0x2a,
  0x34,
  0x35,
  0x36,
  0x37,
  0x38,
  0x39,
  0x3a,
  0x43,
  0x44,
  0x45,
  0x46,
  0x47,
  0x48,
  0x49,
  0x4a,
  0x53,
  0x54,
  0x55,
  0x56,
  0x57,
  0x58,
  0x59,
  0x5a,
  0x63,
  0x64,
  0x65,
  0x66,
  0x67,
  0x68,
  0x69,
  0x6a,
  0x73,
  0x74,
  0x75,
  0x76,
  0x77,
  0x78,
  0x79,
  0x7a,
  0x83,
  0x84,
  0x85,
  0x86,
  0x87,
  0x88,
  0x89,
  0x8a,
  0x92,
  0x93,
  0x94,
  0x95,
  0x96,
  0x97,
  0x98,
  0x99,
  0x9a,
  0xa2,
  0xa3,
  0xa4,
  0xa5,
  0xa6,
  0xa7,
  0xa8,
  0xa9,
  0xaa,
  0xb2,
  0xb3,
  0xb4,
  0xb5,
  0xb6,
  0xb7,
  0xb8,
  0xb9,
  0xba,
  0xc2,
  0xc3,
  0xc4,
  0xc5,
  0xc6,
  0xc7,
  0xc8,
  0xc9,
  0xca,
  0xd2,
  0xd3,
  0xd4,
  0xd5,
  0xd6,
  0xd7,
  0xd8,
  0xd9,
  0xda,
  0xe1,
  0xe2,
  0xe3,
  0xe4,
  0xe5,
  0xe6,
  0xe7,
  0xe8,
  0xe9,
  0xea,
  0xf1,
  0xf2,
  0xf3,
  0xf4,
  0xf5,
  0xf6,
  0xf7,
  0xf8,
  0xf9,
  0xfa,
];
export const AC_CHROMA_BITS = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];
export const AC_CHROMA_VALUES = [
  0x00,
  0x01,
  0x02,
  0x03,
  0x11,
  0x04,
  0x05,
  0x21,
  0x31,
  0x06,
  0x12,
  0x41,
  0x51,
  0x07,
  0x61,
  0x71,
  0x13,
  0x22,
  0x32,
  0x81,
  0x08,
  0x14,
  0x42,
  0x91,
  0xa1,
  0xb1,
  0xc1,
  0x09,
  0x23,
  0x33,
  0x52,
  0xf0,
  0x15,
  0x62,
  0x72,
  0xd1,
  0x0a,
  0x16,
  0x24,
  0x34,
  0xe1,
  0x25,
  0xf1,
  0x17,
  0x18,
  0x19,
  0x1a,
  0x26,
  0x27,
  0x28,
  0x29,
  0x2a,
  0x35,
  0x36,
  0x37,
  0x38,
  0x39,
  0x3a,
  0x43,
  0x44,
  0x45,
  0x46,
  0x47,
  0x48,
  0x49,
  0x4a,
  0x53,
  0x54,
  0x55,
  0x56,
  0x57,
  0x58,
  0x59,
  0x5a,
  0x63,
  0x64,
  0x65,
  0x66,
  0x67,
  0x68,
  0x69,
  0x6a,
  0x73,
  0x74,
  0x75,
  0x76,
  0x77,
  0x78,
  0x79,
  0x7a,
  0x82,
  0x83,
  0x84,
  0x85,
  0x86,
  0x87,
  0x88,
  0x89,
  0x8a,
  0x92,
  0x93,
  0x94,
  0x95,
  0x96,
  0x97,
  0x98,
  0x99,
  0x9a,
  0xa2,
  0xa3,
  0xa4,
  0xa5,
  0xa6,
  0xa7,
  0xa8,
  0xa9,
  0xaa,
  0xb2,
  0xb3,
  0xb4,
  0xb5,
  0xb6,
  0xb7,
  0xb8,
  0xb9,
  0xba,
  0xc2,
  0xc3,
  0xc4,
  0xc5,
  0xc6,
  0xc7,
  0xc8,
  0xc9,
  0xca,
  0xd2,
  0xd3,
  0xd4,
  0xd5,
  0xd6,
  0xd7,
  0xd8,
  0xd9,
  0xda,
  0xe2,
  0xe3,
  0xe4,
  0xe5,
  0xe6,
  0xe7,
  0xe8,
  0xe9,
  0xea,
  0xf2,
  0xf3,
  0xf4,
  0xf5,
  0xf6,
  0xf7,
  0xf8,
  0xf9,
  0xfa,
];

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
  const { width: w, height: h, data } = img;
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

  // Colour conversion into padded planes (edges replicated to whole 16×16 MCUs).
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

  const block = new Float64Array(64), tmp = new Float64Array(64);
  const coef = new Int32Array(64);
  const dc = [0, 0, 0];
  const encodeBlock = (
    plane: Float32Array,
    stride: number,
    bx: number,
    by: number,
    q: Uint8Array,
    comp: number,
    dcT: Huffman,
    acT: Huffman,
  ) => {
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
    const diff = coef[0] - dc[comp];
    dc[comp] = coef[0];
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
  };

  for (let my = 0; my < ph; my += 16) {
    for (let mx = 0; mx < pw; mx += 16) {
      encodeBlock(Y, pw, mx, my, ql, 0, dcL, acL);
      encodeBlock(Y, pw, mx + 8, my, ql, 0, dcL, acL);
      encodeBlock(Y, pw, mx, my + 8, ql, 0, dcL, acL);
      encodeBlock(Y, pw, mx + 8, my + 8, ql, 0, dcL, acL);
      encodeBlock(Cb, cw, mx / 2, my / 2, qc, 1, dcC, acC);
      encodeBlock(Cr, cw, mx / 2, my / 2, qc, 2, dcC, acC);
    }
  }
  out.flush();
  out.raw([0xff, 0xd9]);
  return out.buf.slice(0, out.len);
}
