import { assertEquals, assertNotEquals, assertThrows } from "../assert.ts";
import {
  FrameError,
  frameHash,
  naturalSizeFromStatus,
  readRgbFrame,
  requestBounds,
  rgbToRgba,
  rotatedSize,
} from "../../lib/emulator/frames.ts";

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
