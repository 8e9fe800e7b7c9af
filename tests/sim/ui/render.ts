/**
 * `screencap`: draws the current screen approximately (each node's rectangle, its text as small
 * glyph blocks) into RGBA pixels, and encodes them as `screencap` does: raw (16-byte header w, h,
 * format 1 = RGBA_8888, colour space 1 = sRGB, then rows) or `-p` PNG (zlib via CompressionStream).
 */
import type { Rect } from "./xml.ts";

/** One thing to draw: a node's class, label and bounds, in drawing order. */
export interface Paint {
  cls: string;
  pkg: string;
  text: string;
  bounds: Rect;
  fill?: number;
}

/** Largest screen the renderer draws (width × height); bigger requests are refused. */
export const MAX_RENDER_PIXELS = 16 * 1024 * 1024;

export const PixelFormat = { RGBA_8888: 1 } as const;
export const ColorSpace = { SRGB: 1 } as const;

const WHITE = 0xfafafaff;
const INK = 0x202124ff;

function fillFor(p: Paint): number | null {
  if (p.fill !== undefined) return p.fill;
  const c = p.cls;
  if (p.pkg === "com.android.systemui" && c.endsWith("FrameLayout")) return 0x202124ff;
  if (p.pkg === "com.google.android.inputmethod.latin") {
    if (c.endsWith(".Key")) return 0xffffffff;
    if (c.endsWith("FrameLayout")) return 0xe8eaedff;
    return null;
  }
  if (p.pkg === "com.google.android.apps.nexuslauncher" && c.endsWith("FrameLayout")) {
    return 0x1e3a5fff;
  }
  if (c.endsWith("Button")) return 0x6200eeff;
  if (c.endsWith("EditText")) return 0xf1f3f4ff;
  if (c.endsWith("ProgressBar")) return 0x6200ee80;
  if (c === "android.view.ViewGroup" && p.text === "") return 0xede7f6ff;
  if (c.endsWith("CheckBox")) return 0xffffffff;
  return null;
}

/** Paints the screen into RGBA bytes (width × height × 4). */
export function rasterize(paints: Paint[], width: number, height: number): Uint8Array {
  if (width <= 0 || height <= 0 || width * height > MAX_RENDER_PIXELS) {
    throw new RangeError(`Cannot render ${width}x${height}: over ${MAX_RENDER_PIXELS} pixels`);
  }
  const px = new Uint8Array(width * height * 4);
  const u32 = new Uint32Array(px.buffer);
  // Pixels are RGBA in memory; a little-endian u32 holds them as ABGR.
  const le = (rgba: number) =>
    (((rgba & 0xff) << 24) | (((rgba >>> 8) & 0xff) << 16) | (((rgba >>> 16) & 0xff) << 8) |
      (rgba >>> 24)) >>> 0;
  u32.fill(le(WHITE));
  const fillRect = (r: Rect, rgba: number) => {
    const l = Math.max(0, r.l), t = Math.max(0, r.t);
    const rr = Math.min(width, r.r), b = Math.min(height, r.b);
    if (l >= rr || t >= b) return;
    const v = le(rgba);
    for (let y = t; y < b; y++) u32.fill(v, y * width + l, y * width + rr);
  };
  const frame = (r: Rect, rgba: number) => {
    fillRect({ l: r.l, t: r.t, r: r.r, b: r.t + 1 }, rgba);
    fillRect({ l: r.l, t: r.b - 1, r: r.r, b: r.b }, rgba);
    fillRect({ l: r.l, t: r.t, r: r.l + 1, b: r.b }, rgba);
    fillRect({ l: r.r - 1, t: r.t, r: r.r, b: r.b }, rgba);
  };
  for (const p of paints) {
    const fill = fillFor(p);
    if (fill !== null) fillRect(p.bounds, fill);
    if (p.cls.endsWith(".Key") || p.cls.endsWith("EditText")) frame(p.bounds, 0xbdc1c6ff);
    if (p.text === "") continue;
    const h = p.bounds.b - p.bounds.t;
    const size = Math.max(6, Math.min(42, Math.round(h * 0.6)));
    const cw = Math.max(3, Math.round(size * 0.55));
    const onDark = fill !== null && ((fill >>> 24) + ((fill >>> 16) & 0xff)) < 200;
    const ink = onDark ? 0xffffffff : INK;
    let x = p.bounds.l + Math.min(24, Math.round(cw));
    const y = p.bounds.t + Math.round((h - size) / 2);
    for (const ch of p.text) {
      if (x + cw > p.bounds.r) break;
      if (ch.trim() !== "") {
        fillRect({ l: x + 1, t: y + Math.round(size * 0.2), r: x + cw - 1, b: y + size }, ink);
      }
      x += cw;
    }
  }
  return px;
}

/** `screencap` without `-p`: 16-byte header (w, h, format, colour space, little-endian). */
export function rawScreencap(px: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(16 + px.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, width, true);
  v.setUint32(4, height, true);
  v.setUint32(8, PixelFormat.RGBA_8888, true);
  v.setUint32(12, ColorSpace.SRGB, true);
  out.set(px, 16);
  return out;
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

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let k = 0; k < 4; k++) out[4 + k] = type.charCodeAt(k);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out, 4, 8 + data.length));
  return out;
}

async function zlib(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("deflate"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `screencap -p`: an 8-bit RGBA PNG, filter 0 on every row. */
export async function encodePng(
  px: Uint8Array,
  width: number,
  height: number,
): Promise<Uint8Array> {
  const stride = width * 4;
  const filtered = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    filtered[y * (stride + 1)] = 0;
    filtered.set(px.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", await zlib(filtered)),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

const ATTR = /([\w-]+)="([^"]*)"/g;

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    switch (e.toLowerCase()) {
      case "lt":
        return "<";
      case "gt":
        return ">";
      case "amp":
        return "&";
      case "quot":
        return '"';
      case "apos":
        return "'";
    }
    const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}

/** Paints for any UI Automator dump (served by `simctl show-dump`): bounds, class and label. */
export function paintsFromDump(xml: string): Paint[] {
  const out: Paint[] = [];
  for (const m of xml.matchAll(/<node\b([^>]*)>/g)) {
    const a: Record<string, string> = {};
    for (const [, k, v] of m[1].matchAll(ATTR)) a[k] = unescapeXml(v);
    const b = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(a.bounds ?? "");
    if (!b) continue;
    out.push({
      cls: a.class ?? "",
      pkg: a.package ?? "",
      text: a.text || a["content-desc"] || "",
      bounds: { l: +b[1], t: +b[2], r: +b[3], b: +b[4] },
    });
  }
  return out;
}
