/** lib/ui/png.ts: decode every colour type and filter, refuse what it must, encode, downscale. */
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../assert.ts";
import {
  crc32,
  decodePng,
  deflate,
  encodePng,
  filterRows,
  PNG_SIGNATURE,
  PngError,
  readPngHeader,
  type RgbaImage,
  unfilter,
} from "../../lib/ui/png.ts";
import { resizeAreaAverage } from "../../lib/ui/resize.ts";
import { encodePng as simEncodePng } from "../sim/ui/render.ts";
import { prepareScreenshot, targetSize } from "../../lib/ui/screenshot.ts";
import { ToolError } from "../../lib/core/errors.ts";

function chunk(type: string, data: Uint8Array, badCrc = false): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)) ^ (badCrc ? 1 : 0));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A PNG whose rows are given already filtered (first byte of each row = filter type). */
async function pngOf(
  w: number,
  h: number,
  colorType: number,
  filteredRows: Uint8Array,
  extra: Uint8Array[] = [],
  opts: { interlace?: number; bitDepth?: number; splitIdat?: boolean } = {},
): Promise<Uint8Array> {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, w);
  v.setUint32(4, h);
  ihdr.set([opts.bitDepth ?? 8, colorType, 0, 0, opts.interlace ?? 0], 8);
  const z = await deflate(filteredRows);
  const idats = opts.splitIdat
    ? [chunk("IDAT", z.subarray(0, 5)), chunk("IDAT", z.subarray(5))]
    : [chunk("IDAT", z)];
  return concat([
    new Uint8Array(PNG_SIGNATURE),
    chunk("IHDR", ihdr),
    ...extra,
    ...idats,
    chunk("IEND", new Uint8Array(0)),
  ]);
}

function pixel(img: RgbaImage, x: number, y: number): number[] {
  const i = (y * img.width + x) * 4;
  return [...img.data.subarray(i, i + 4)];
}

/** A deterministic RGBA test picture with gradients and edges. */
function picture(w: number, h: number): RgbaImage {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data[i] = (x * 7 + y) & 0xff;
      data[i + 1] = (y * 13) & 0xff;
      data[i + 2] = x > w / 2 ? 200 : 30;
      data[i + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

Deno.test("crc32() matches the standard check value", () => {
  assertEquals(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
});

Deno.test("decodePng() reads what the simulator's screencap encoder writes", async () => {
  const img = picture(37, 11);
  const png = await simEncodePng(img.data, img.width, img.height);
  const back = await decodePng(png);
  assertEquals([back.width, back.height], [37, 11]);
  assertEquals(back.data, img.data);
});

Deno.test("encodePng() round-trips through decodePng() with every filter in play", async () => {
  const img = picture(64, 40);
  const png = await encodePng(img);
  assertEquals(readPngHeader(png), {
    width: 64,
    height: 40,
    bitDepth: 8,
    colorType: 6,
    interlace: 0,
  });
  const back = await decodePng(png);
  assertEquals(back.data, img.data);
  // The adaptive filter picks several types on this picture.
  const raw = filterRows(img.data, 40, 64 * 4, 4);
  const types = new Set<number>();
  for (let y = 0; y < 40; y++) types.add(raw[y * (64 * 4 + 1)]);
  assert(types.size >= 2, `filters used: ${[...types]}`);
  assertEquals(unfilter(raw, 40, 64 * 4, 4), img.data);
});

Deno.test("unfilter() reverses each of the five filters by hand", () => {
  // 2 pixels of 1 byte per row (gray), 3 rows, bpp 1.
  // Row 0 Sub: [10, +5] -> [10, 15]; row 1 Up: [+1, +2] -> [11, 17];
  // row 2 Average: [a=0,b=11 -> +5 => 10], [a=10,b=17 -> 13 +1 => 14];
  const raw = new Uint8Array([1, 10, 5, 2, 1, 2, 3, 5, 1]);
  assertEquals([...unfilter(raw, 3, 2, 1)], [10, 15, 11, 17, 10, 14]);
  // Paeth: row0 None [50, 60], row1 Paeth: x0: a=0,b=50,c=0 -> p=50 -> b=50: +3 => 53;
  // x1: a=53,b=60,c=50 -> p=63, pa=10, pb=3, pc=13 -> b=60: +1 => 61.
  const paeth = new Uint8Array([0, 50, 60, 4, 3, 1]);
  assertEquals([...unfilter(paeth, 2, 2, 1)], [50, 60, 53, 61]);
});

Deno.test("decodePng() converts gray, RGB, palette and gray+alpha to RGBA", async () => {
  const gray = await decodePng(await pngOf(2, 1, 0, new Uint8Array([0, 0, 255])));
  assertEquals(pixel(gray, 0, 0), [0, 0, 0, 255]);
  assertEquals(pixel(gray, 1, 0), [255, 255, 255, 255]);

  const rgb = await decodePng(
    await pngOf(2, 1, 2, new Uint8Array([0, 1, 2, 3, 4, 5, 6]), [], { splitIdat: true }),
  );
  assertEquals(pixel(rgb, 1, 0), [4, 5, 6, 255]);

  const plte = chunk("PLTE", new Uint8Array([255, 0, 0, 0, 0, 255]));
  const trns = chunk("tRNS", new Uint8Array([128]));
  const pal = await decodePng(await pngOf(2, 1, 3, new Uint8Array([0, 1, 0]), [plte, trns]));
  assertEquals(pixel(pal, 0, 0), [0, 0, 255, 255]);
  assertEquals(pixel(pal, 1, 0), [255, 0, 0, 128]);

  const ga = await decodePng(await pngOf(1, 1, 4, new Uint8Array([0, 9, 77])));
  assertEquals(pixel(ga, 0, 0), [9, 9, 9, 77]);
});

Deno.test("decodePng() refuses interlaced, 16-bit, corrupt, truncated and non-PNG data", async () => {
  const rows = new Uint8Array([0, 1, 2, 3]);
  const inter = await assertRejects(
    async () => await decodePng(await pngOf(1, 1, 2, rows, [], { interlace: 1 })),
    PngError,
  );
  assertStringIncludes(inter.message, "interlaced");
  await assertRejects(
    async () => await decodePng(await pngOf(1, 1, 2, rows, [], { bitDepth: 16 })),
    /bit depth 16/,
  );
  const good = await pngOf(1, 1, 2, rows);
  const flipped = good.slice();
  flipped[flipped.length - 20] ^= 0xff;
  await assertRejects(() => decodePng(flipped), /CRC/);
  await assertRejects(() => decodePng(good.subarray(0, good.length - 12)), /IEND/);
  await assertRejects(() => decodePng(new TextEncoder().encode("not a png at all....")), PngError);
  // Rows that say more pixels than the header.
  await assertRejects(
    async () => await decodePng(await pngOf(1, 1, 2, new Uint8Array([0, 1, 2, 3, 0, 1, 2, 3]))),
    /larger than its header/,
  );
  await assertRejects(
    async () => await decodePng(await pngOf(1, 1, 2, new Uint8Array([9, 1, 2, 3]))),
    /filter type 9/,
  );
});

Deno.test("resizeAreaAverage() averages whole blocks exactly", () => {
  // 4x2 → 2x1: each output pixel is the mean of a 2x2 block.
  const data = new Uint8Array(4 * 2 * 4);
  const vals = [0, 40, 100, 200, 20, 60, 100, 0];
  vals.forEach((v, i) => data.set([v, v, v, 255], i * 4));
  const out = resizeAreaAverage({ width: 4, height: 2, data }, 2, 1);
  assertEquals(pixel(out, 0, 0), [30, 30, 30, 255]);
  assertEquals(pixel(out, 1, 0), [100, 100, 100, 255]);
});

Deno.test("resizeAreaAverage() weights partial pixels by coverage", () => {
  // 3 → 2 columns: out0 = (p0 + p1/2) / 1.5, out1 = (p1/2 + p2) / 1.5.
  const data = new Uint8Array(3 * 4);
  [0, 90, 180].forEach((v, i) => data.set([v, 0, 0, 255], i * 4));
  const out = resizeAreaAverage({ width: 3, height: 1, data }, 2, 1);
  assertEquals(pixel(out, 0, 0), [30, 0, 0, 255]);
  assertEquals(pixel(out, 1, 0), [150, 0, 0, 255]);
  // The mean brightness is kept on a larger picture.
  const big = picture(300, 200);
  const small = resizeAreaAverage(big, 128, 85);
  const mean = (img: RgbaImage) => {
    let s = 0;
    for (let i = 0; i < img.data.length; i += 4) s += img.data[i + 2];
    return s / (img.width * img.height);
  };
  assert(Math.abs(mean(big) - mean(small)) < 1.5, `${mean(big)} vs ${mean(small)}`);
});

Deno.test("resizeAreaAverage() refuses upscaling and empty sizes", () => {
  const img = picture(4, 4);
  assertThrows(() => resizeAreaAverage(img, 5, 4), RangeError);
  assertThrows(() => resizeAreaAverage(img, 0, 4), RangeError);
});

Deno.test("prepareScreenshot() returns a fitting capture byte for byte and scales larger ones", async () => {
  const png = await encodePng(picture(300, 120));
  const same = await prepareScreenshot(png, { maxDimension: 300 });
  assertEquals(same.original, true);
  assert(same.png === png || same.png.every((b, i) => b === png[i]));
  assertEquals([same.imageWidth, same.scale], [300, 1]);
  const full = await prepareScreenshot(png, { fullSize: true, maxDimension: 256 });
  assertEquals(full.original, true);
  const small = await prepareScreenshot(png, { maxDimension: 150 });
  assertEquals([small.deviceWidth, small.deviceHeight], [300, 120]);
  assertEquals([small.imageWidth, small.imageHeight], [150, 60]);
  assertEquals(small.scale, 2);
  assertEquals(readPngHeader(small.png).width, 150);
  assertEquals(targetSize(1080, 2400, 1280), { width: 576, height: 1280 });
  // A warning printed before the PNG (stderr merged into exec:) is skipped.
  const warned = new Uint8Array([
    ...new TextEncoder().encode("[Warning] Multiple displays\n"),
    ...png,
  ]);
  assertEquals((await prepareScreenshot(warned, { maxDimension: 4096 })).png, png);
});

Deno.test("prepareScreenshot() refuses non-PNG output and captures over 16 Mpx", async () => {
  const e = await assertRejects(
    () => prepareScreenshot(new TextEncoder().encode("screencap: permission denied")),
    ToolError,
  );
  assertStringIncludes(e.message, "did not return a PNG");
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, 5000);
  new DataView(ihdr.buffer).setUint32(4, 4000);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const huge = concat([new Uint8Array(PNG_SIGNATURE), chunk("IHDR", ihdr)]);
  const big = await assertRejects(() => prepareScreenshot(huge), ToolError);
  assertStringIncludes(big.message, "Mpx");
});
