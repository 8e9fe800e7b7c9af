import { assertEquals } from "../assert.ts";
import { isPid, isRecord, parseJsonRecord } from "../../lib/core/json.ts";

Deno.test("isRecord() accepts plain objects only", () => {
  assertEquals([{}, { a: 1 }].map(isRecord), [true, true]);
  assertEquals([null, [], "x", 1, undefined].map(isRecord), [false, false, false, false, false]);
});

Deno.test("parseJsonRecord() returns an object or null, never throws", () => {
  assertEquals(parseJsonRecord('{"pid":12}'), { pid: 12 });
  for (const bad of ["", "{", "[1]", "null", "7", '"s"']) {
    assertEquals(parseJsonRecord(bad), null, bad);
  }
});

Deno.test("isPid() wants a positive safe integer", () => {
  assertEquals([1, 4242, 2 ** 31].map(isPid), [true, true, true]);
  assertEquals([0, -1, 1.5, NaN, 2 ** 53, "12", null].map(isPid), [
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});
