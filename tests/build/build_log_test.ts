import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { join } from "node:path";
import {
  buildLogPath,
  BuildLogWriter,
  cutLine,
  LOG_FLUSH_INTERVAL_MS,
  logIdOf,
  MAX_TAIL_LINES,
  maxLogId,
  omittedMarker,
  pruneBuildLogs,
  readLogTail,
  TAIL_CHUNK_BYTES,
} from "../../lib/build/shared/build_log.ts";
import { waitUntil } from "../wait.ts";

async function tempDir() {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-log-" });
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("BuildLogWriter writes every line and reports size and count", async () => {
  await using t = await tempDir();
  const path = buildLogPath(t.dir, 7);
  assertEquals(path, join(t.dir, "build-logs", "7.log"));
  const w = await BuildLogWriter.open(path);
  w.write("> Task :app:preBuild");
  w.write("two\nthree\n");
  w.write("BUILD SUCCESSFUL in 1s");
  const info = await w.close();
  const text = await Deno.readTextFile(path);
  assertEquals(text, "> Task :app:preBuild\ntwo\nthree\nBUILD SUCCESSFUL in 1s\n");
  assertEquals(info, {
    path,
    bytes: new TextEncoder().encode(text).length,
    lines: 4,
    truncated: false,
  });
  assertEquals(await w.close(), info, "close() is idempotent");
  w.write("late");
  assertEquals(await Deno.readTextFile(path), text);
  if (Deno.build.os !== "windows") assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
});

Deno.test("BuildLogWriter keeps the head and the tail of a log past its bound", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "big.log");
  const max = 4096;
  const w = await BuildLogWriter.open(path, { maxBytes: max });
  const n = 1000;
  for (let i = 0; i < n; i++) w.write(`line ${i}`);
  const info = await w.close();
  const text = await Deno.readTextFile(path);
  const lines = text.split("\n").slice(0, -1);
  assertEquals(info.truncated, true);
  assertEquals(info.lines, n);
  assert(info.bytes <= max, `${info.bytes} <= ${max}`);
  assertEquals(info.bytes, (await Deno.stat(path)).size);
  assertEquals(lines[0], "line 0");
  assertEquals(lines.at(-1), `line ${n - 1}`);
  const markerAt = lines.findIndex((l) => l.startsWith("[… "));
  assert(markerAt > 0);
  const omitted = Number(/\[… (\d+) lines omitted …\]/.exec(lines[markerAt])![1]);
  assertEquals(lines[markerAt], omittedMarker(omitted));
  // Every line is either on disk or counted as omitted, and the kept ones are contiguous.
  assertEquals(lines.length - 1 + omitted, n);
  assertEquals(lines[markerAt - 1], `line ${markerAt - 1}`);
  assertEquals(lines[markerAt + 1], `line ${markerAt + omitted}`);
});

Deno.test("BuildLogWriter past the half-way point but under the bound omits nothing", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "mid.log");
  const w = await BuildLogWriter.open(path, { maxBytes: 2048 });
  const lines = Array.from({ length: 150 }, (_, i) => `l${String(i).padStart(5, "0")}`);
  for (const l of lines) w.write(l); // 150 * 7 = 1050 bytes: over 1024, under 2048 - marker room
  assertEquals(w.memoryTail(2), lines.slice(-2));
  const info = await w.close();
  assertEquals(info.truncated, false);
  assertEquals(await Deno.readTextFile(path), lines.join("\n") + "\n");
});

Deno.test("BuildLogWriter flushes a running build's lines without close", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "live.log");
  const w = await BuildLogWriter.open(path);
  w.write("configuring");
  await waitUntil(
    async () => (await Deno.readTextFile(path)) !== "",
    "the periodic flush",
    { intervalMs: 20, timeoutMs: LOG_FLUSH_INTERVAL_MS + 5_000 },
  );
  assertEquals(await Deno.readTextFile(path), "configuring\n");
  await w.close();
});

Deno.test("BuildLogWriter.open() refuses an out-of-range bound", async () => {
  await using t = await tempDir();
  await assertRejects(
    () => BuildLogWriter.open(join(t.dir, "x.log"), { maxBytes: 10 }),
    RangeError,
  );
});

Deno.test("cutLine() cuts a long line on a character boundary", () => {
  assertEquals(cutLine("short", 100), "short");
  const cut = cutLine("é".repeat(100), 51);
  assertEquals(cut, "é".repeat(25) + " [line cut]");
});

async function writeLines(path: string, count: number, trailingNewline = true): Promise<string[]> {
  const lines = Array.from({ length: count }, (_, i) => `out ${i} ${"x".repeat(i % 37)}`);
  await Deno.writeTextFile(path, lines.join("\n") + (trailingNewline ? "\n" : ""));
  return lines;
}

Deno.test("readLogTail() returns the last lines", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "a.log");
  const lines = await writeLines(path, 10);
  assertEquals((await readLogTail(path, 3)).lines, lines.slice(-3));
  assertEquals((await readLogTail(path, 0)).lines, []);
  const all = await readLogTail(path, 50);
  assertEquals(all.lines, lines);
  assertEquals(all.from_start, true);
  assertEquals((await readLogTail(path, 3)).from_start, false);
});

Deno.test("readLogTail() reads across chunks from the end", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "b.log");
  const lines = await writeLines(path, 20_000);
  assert((await Deno.stat(path)).size > 4 * TAIL_CHUNK_BYTES);
  const tail = await readLogTail(path, MAX_TAIL_LINES);
  assertEquals(tail.lines, lines.slice(-MAX_TAIL_LINES));
  assertEquals(tail.file_bytes, (await Deno.stat(path)).size);
  assertEquals((await readLogTail(path)).lines.length, 200);
});

Deno.test("readLogTail() handles a file without a final newline and an empty file", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "c.log");
  const lines = await writeLines(path, 5, false);
  assertEquals((await readLogTail(path, 2)).lines, lines.slice(-2));
  await Deno.writeTextFile(path, "");
  assertEquals(await readLogTail(path, 2), { lines: [], file_bytes: 0, from_start: true });
});

Deno.test("readLogTail() refuses out-of-range counts and a missing file", async () => {
  await using t = await tempDir();
  const path = join(t.dir, "d.log");
  await writeLines(path, 1);
  await assertRejects(() => readLogTail(path, MAX_TAIL_LINES + 1), RangeError);
  await assertRejects(() => readLogTail(path, -1), RangeError);
  await assertRejects(() => readLogTail(join(t.dir, "missing.log")), Deno.errors.NotFound);
});

Deno.test("pruneBuildLogs() deletes logs not kept and bounds the count", async () => {
  await using t = await tempDir();
  for (const id of [1, 2, 3, 4, 5]) {
    const w = await BuildLogWriter.open(buildLogPath(t.dir, id));
    w.write(`build ${id}`);
    await w.close();
  }
  await Deno.writeTextFile(join(t.dir, "build-logs", "notes.txt"), "not a log");
  assertEquals(await maxLogId(t.dir), 5);
  assertEquals(await pruneBuildLogs(t.dir, new Set([2, 4, 5])), [1, 3]);
  assertEquals(await pruneBuildLogs(t.dir, new Set([2, 4, 5]), 2), [2]);
  const names = [];
  for await (const e of Deno.readDir(join(t.dir, "build-logs"))) names.push(e.name);
  assertEquals(names.sort(), ["4.log", "5.log", "notes.txt"]);
  assertStringIncludes(await Deno.readTextFile(buildLogPath(t.dir, 5)), "build 5");
  await using empty = await tempDir();
  assertEquals(await pruneBuildLogs(empty.dir, new Set()), []);
  assertEquals(await maxLogId(empty.dir), 0);
});

Deno.test("logIdOf() accepts only <digits>.log", () => {
  assertEquals(logIdOf("12.log"), 12);
  assertEquals(logIdOf("12.log.tmp"), null);
  assertEquals(logIdOf("x12.log"), null);
});
