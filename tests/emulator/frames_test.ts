import { assertEquals, assertNotEquals, assertThrows } from "../assert.ts";
import {
  fitRgbFrame,
  FrameError,
  frameHash,
  naturalSizeFromStatus,
  readRgbFrame,
  requestBounds,
  rgbToRgba,
  rotatedSize,
} from "../../lib/emulator/frames.ts";
import { MAX_FRAME_DIMENSION, MAX_FRAME_PIXELS } from "../../lib/emulator/shared/limits.ts";

Deno.test("frames: sizes come from format.width/height, the deprecated fields only as a fallback", () => {
  const rgb = new Uint8Array(4 * 2 * 3);
  const f = readRgbFrame({
    format: { format: "RGB888", width: 4, height: 2, rotation: { rotation: "LANDSCAPE" } },
    image: rgb,
  });
  assertEquals([f.width, f.height, f.rotation], [4, 2, 1]);
  const old = readRgbFrame({ format: { format: "RGB888" }, width: 4, height: 2, image: rgb });
  assertEquals([old.width, old.height, old.rotation], [4, 2, 0]);
});

Deno.test("frames: an empty frame (display off), a wrong size and a non-RGB888 frame are refused", () => {
  assertThrows(
    () => readRgbFrame({ format: { format: "RGB888", width: 0, height: 0 } }),
    FrameError,
  );
  assertThrows(
    () =>
      readRgbFrame({ format: { format: "RGB888", width: 4, height: 2 }, image: new Uint8Array(5) }),
    /not 4x2x3/,
  );
  assertThrows(
    () =>
      readRgbFrame({ format: { format: "PNG", width: 4, height: 2 }, image: new Uint8Array(24) }),
    /not RGB888/,
  );
});

Deno.test("frames: RGB888 to RGBA, hashes, bounds and rotated sizes", () => {
  assertEquals([...rgbToRgba(Uint8Array.of(1, 2, 3, 4, 5, 6), 2, 1)], [1, 2, 3, 255, 4, 5, 6, 255]);
  const a = { width: 2, height: 1, rgb: Uint8Array.of(1, 2, 3, 4, 5, 6) };
  assertEquals(frameHash(a), frameHash({ ...a, rgb: Uint8Array.of(1, 2, 3, 4, 5, 6) }));
  assertNotEquals(frameHash(a), frameHash({ ...a, rgb: Uint8Array.of(1, 2, 3, 4, 5, 7) }));
  assertNotEquals(frameHash(a), frameHash({ width: 1, height: 2, rgb: a.rgb }));
  assertEquals(requestBounds(null), { width: 0, height: 0 });
  assertEquals(requestBounds(108), { width: 108, height: 108 });
  assertEquals(rotatedSize({ width: 1080, height: 2400 }, 1), { width: 2400, height: 1080 });
  assertEquals(
    naturalSizeFromStatus([{ key: "hw.lcd.width", value: "1080" }, {
      key: "hw.lcd.height",
      value: "2400",
    }]),
    { width: 1080, height: 2400 },
  );
  assertEquals(naturalSizeFromStatus([{ key: "hw.lcd.width", value: "x" }]), null);
});

Deno.test("frames: a frame over a side or the pixel bound is refused before its bytes are read", () => {
  // The sizes alone decide: no buffer of that size is made.
  for (
    const [w, h] of [[5000, 5000], [MAX_FRAME_DIMENSION + 1, 10], [10, MAX_FRAME_DIMENSION + 1]]
  ) {
    assertThrows(
      () => readRgbFrame({ format: { format: "RGB888", width: w, height: h } }),
      new RegExp(`${w}x${h} frame, over keynobi's bound`),
    );
  }
  assertEquals(MAX_FRAME_PIXELS >= 3840 * 2160, true, "a 4K display fits");
});

Deno.test("frames: a frame larger than asked is fitted inside the bound by averaging", () => {
  // 4x2: left half black, right half white; fitted to 2 px on the long side → 2x1.
  const rgb = new Uint8Array(4 * 2 * 3);
  for (let y = 0; y < 2; y++) {
    for (let x = 2; x < 4; x++) rgb.fill(255, (y * 4 + x) * 3, (y * 4 + x) * 3 + 3);
  }
  const f = { width: 4, height: 2, rotation: 1, rgb, seq: 3 };
  const small = fitRgbFrame(f, 2);
  assertEquals([small.width, small.height, small.rotation, small.seq], [2, 1, 1, 3]);
  assertEquals([...small.rgb], [0, 0, 0, 255, 255, 255]);
  assertEquals(fitRgbFrame(f, 4), f, "a frame within the bound is kept as it is");
  const odd = fitRgbFrame(
    { ...f, width: 2160, height: 4800, rgb: new Uint8Array(2160 * 4800 * 3) },
    108,
  );
  assertEquals([odd.width, odd.height], [49, 108]);
});
