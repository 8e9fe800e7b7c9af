import { assertEquals } from "../assert.ts";
import { hexOf, sameBytes, sha256Hex } from "../../lib/core/hash.ts";

Deno.test("sha256Hex() of bytes, of a view into a larger buffer, and of a string (UTF-8)", async () => {
  const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  assertEquals(await sha256Hex(new TextEncoder().encode("abc")), abc);
  assertEquals(await sha256Hex(new TextEncoder().encode("xabcx").subarray(1, 4)), abc);
  assertEquals(await sha256Hex("abc"), abc);
  assertEquals(
    await sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
});

Deno.test("hexOf() writes two lowercase digits a byte", () => {
  assertEquals(hexOf(new Uint8Array([0, 1, 0xab, 0xff])), "0001abff");
  assertEquals(hexOf(new Uint8Array()), "");
});

Deno.test("sameBytes() is true only for equal contents and lengths", () => {
  const b = (...v: number[]) => new Uint8Array(v);
  assertEquals(sameBytes(b(1, 2, 3), b(1, 2, 3)), true);
  assertEquals(sameBytes(b(1, 2, 3), b(1, 2, 4)), false);
  assertEquals(sameBytes(b(1, 2), b(1, 2, 3)), false);
  assertEquals(sameBytes(b(), b()), true);
});
