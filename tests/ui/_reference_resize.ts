/** Test helpers: an exact area-average downscale written the slow obvious way, and PSNR. */
import type { RgbaImage } from "../../lib/ui/png.ts";

/** The exact area average, computed the slow obvious way (the reference). */
export function referenceDownscale(img: RgbaImage, w: number, h: number): RgbaImage {
  const sx = img.width / w, sy = img.height / h;
  const out = new Uint8Array(w * h * 4);
  for (let j = 0; j < h; j++) {
    const y0 = j * sy, y1 = (j + 1) * sy;
    for (let i = 0; i < w; i++) {
      const x0 = i * sx, x1 = (i + 1) * sx;
      const acc = [0, 0, 0, 0];
      for (let y = Math.floor(y0); y < Math.ceil(y1); y++) {
        const wy = Math.min(y1, y + 1) - Math.max(y0, y);
        for (let x = Math.floor(x0); x < Math.ceil(x1); x++) {
          const wx = Math.min(x1, x + 1) - Math.max(x0, x);
          const s = (y * img.width + x) * 4;
          for (let c = 0; c < 4; c++) acc[c] += img.data[s + c] * wx * wy;
        }
      }
      for (let c = 0; c < 4; c++) out[(j * w + i) * 4 + c] = Math.round(acc[c] / (sx * sy));
    }
  }
  return { width: w, height: h, data: out };
}

export function psnr(a: Uint8Array, b: Uint8Array): number {
  let se = 0;
  for (let i = 0; i < a.length; i++) se += (a[i] - b[i]) ** 2;
  return se === 0 ? Infinity : 10 * Math.log10((255 * 255) / (se / a.length));
}
