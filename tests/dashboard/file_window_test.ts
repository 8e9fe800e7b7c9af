import { assertEquals, assertRejects } from "../assert.ts";
import { readLinesAfter, readLinesBefore } from "../../lib/dashboard/file_window.ts";

async function file(text: string): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "keynobi-window-" });
  await Deno.writeTextFile(path, text);
  return path;
}

const enc = (s: string) => new TextEncoder().encode(s).length;

Deno.test("readLinesAfter: whole lines from an offset; a line still being written waits", async () => {
  const path = await file("one\ntwo\nthr");
  const a = await readLinesAfter(path, 0);
  assertEquals(a, { from: 0, next: 8, lines: ["one", "two"], size: 11 });
  assertEquals((await readLinesAfter(path, a.next)).lines, []);
  await Deno.writeTextFile(path, "ee\nfour\n", { append: true });
  const b = await readLinesAfter(path, a.next);
  assertEquals(b.lines, ["three", "four"]);
  assertEquals(b.next, enc("one\ntwo\nthree\nfour\n"));
  // A bounded read stops at the last whole line inside the bound.
  assertEquals((await readLinesAfter(path, 0, 9)).lines, ["one", "two"]);
  // A line longer than the bound is handed out cut rather than stalling the stream.
  assertEquals((await readLinesAfter(path, 0, 2)).lines, ["on"]);
  // A file shorter than the offset (replaced): no lines, and its size says so.
  assertEquals((await readLinesAfter(path, 1000)).size, 19);
  await Deno.remove(path);
});

Deno.test("readLinesBefore: the last N lines before an offset, with the offset of the first", async () => {
  const text = Array.from({ length: 10 }, (_, i) => `line ${i} é`).join("\n") + "\n";
  const path = await file(text);
  const tail = await readLinesBefore(path, null, 3);
  assertEquals(tail.lines, ["line 7 é", "line 8 é", "line 9 é"]);
  assertEquals(tail.from, text.indexOf("line 7") + 7); // 7 two-byte é before it
  const older = await readLinesBefore(path, tail.from, 3);
  assertEquals(older.lines, ["line 4 é", "line 5 é", "line 6 é"]);
  const start = await readLinesBefore(path, older.from, 100);
  assertEquals(start.lines.length, 4);
  assertEquals(start.from, 0);
  assertEquals(await readLinesBefore(path, 0, 5), { from: 0, lines: [] });
  // The line being written (no newline yet) is not returned.
  await Deno.writeTextFile(path, "partial", { append: true });
  assertEquals((await readLinesBefore(path, null, 1)).lines, ["line 9 é"]);
  await assertRejects(() => readLinesBefore(path, null, 0), RangeError);
  await assertRejects(() => readLinesBefore(path, null, 2001), RangeError);
  await Deno.remove(path);
});
