import { assert, assertEquals, assertThrows } from "../assert.ts";
import {
  AC_CHROMA_BITS,
  AC_CHROMA_VALUES,
  AC_LUMA_BITS,
  AC_LUMA_VALUES,
  DC_CHROMA_BITS,
  DC_LUMA_BITS,
  encodeJpeg,
  huffmanCodes,
  scaleTable,
} from "../../lib/ui/jpeg.ts";

const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);

Deno.test("jpeg: the standard Huffman tables are complete (T.81 Annex K counts)", () => {
  assertEquals(sum(DC_LUMA_BITS), 12);
  assertEquals(sum(DC_CHROMA_BITS), 12);
  assertEquals(sum(AC_LUMA_BITS), 162);
  assertEquals(AC_LUMA_VALUES.length, 162);
  assertEquals(sum(AC_CHROMA_BITS), 162);
  assertEquals(AC_CHROMA_VALUES.length, 162);
  // Canonical codes are prefix-free: no code is a prefix of another.
  const h = huffmanCodes(AC_LUMA_BITS, AC_LUMA_VALUES);
  const codes = AC_LUMA_VALUES.map((v) => h.code[v].toString(2).padStart(h.size[v], "0"));
  for (const a of codes) {
    for (const b of codes) if (a !== b) assert(!b.startsWith(a), `${a} prefixes ${b}`);
  }
});

Deno.test("jpeg: quality scales the tables as IJG does, clamped to 1..255", () => {
  assertEquals(scaleTable([16, 11], 50)[0], 16);
  assertEquals(scaleTable([16, 11], 100)[0], 1);
  assertEquals(scaleTable([99], 1)[0], 255);
});

function gradient(w: number, h: number): Uint8Array {
  const data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data[i] = x * 255 / w, data[i + 1] = y * 255 / h, data[i + 2] = 128, data[i + 3] = 255;
    }
  }
  return data;
}

Deno.test("jpeg: a file with the markers in order, the size in SOF0, and no stray 0xFF in the scan", () => {
  const j = encodeJpeg({ width: 37, height: 21, data: gradient(37, 21) }, 80);
  assertEquals([j[0], j[1]], [0xff, 0xd8]);
  assertEquals([j.at(-2), j.at(-1)], [0xff, 0xd9]);
  const sof = j.findIndex((b, i) => b === 0xff && j[i + 1] === 0xc0);
  assert(sof > 0);
  assertEquals((j[sof + 5] << 8) | j[sof + 6], 21);
  assertEquals((j[sof + 7] << 8) | j[sof + 8], 37);
  const sos = j.findIndex((b, i) => b === 0xff && j[i + 1] === 0xda);
  const scanStart = sos + 2 + ((j[sos + 2] << 8) | j[sos + 3]);
  for (let i = scanStart; i < j.length - 2; i++) {
    if (j[i] === 0xff) assertEquals(j[i + 1], 0, `0xFF at ${i} is stuffed`);
  }
  // Higher quality, more bytes.
  assert(encodeJpeg({ width: 37, height: 21, data: gradient(37, 21) }, 95).length > j.length);
});

Deno.test("jpeg: decodes back close to the source (djpeg, when installed)", async () => {
  // Deno.Command's output() throws at once (not a rejected promise) when the program is missing.
  const djpeg = await Promise.resolve().then(() =>
    new Deno.Command("djpeg", { args: ["-version"], stderr: "null", stdout: "null" }).output()
  ).then(() => true, () => false);
  if (!djpeg) {
    console.log("djpeg not installed (apt-get install libjpeg-turbo-progs): decode check skipped");
    return;
  }
  const w = 64, h = 48;
  const src = gradient(w, h);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/a.jpg`, encodeJpeg({ width: w, height: h, data: src }, 90));
    const out = await new Deno.Command("djpeg", { args: ["-pnm", `${dir}/a.jpg`], stdout: "piped" })
      .output();
    assert(out.success);
    const ppm = out.stdout;
    const header = new TextDecoder().decode(ppm.subarray(0, 15)).split(/\s+/);
    assertEquals(header.slice(0, 4), ["P6", String(w), String(h), "255"]);
    const body = ppm.subarray(ppm.length - w * h * 3);
    let err = 0;
    for (let i = 0; i < w * h; i++) {
      for (let c = 0; c < 3; c++) err += Math.abs(body[i * 3 + c] - src[i * 4 + c]);
    }
    assert(err / (w * h * 3) < 3, `mean error ${err / (w * h * 3)}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jpeg: refuses sizes the format cannot hold", () => {
  assertThrows(() => encodeJpeg({ width: 0, height: 1, data: new Uint8Array(0) }, 80), RangeError);
  assertThrows(
    () => encodeJpeg({ width: 70_000, height: 1, data: new Uint8Array(4) }, 80),
    RangeError,
  );
});
