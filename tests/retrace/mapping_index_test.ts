import { assert, assertEquals } from "../assert.ts";
import { frameBudget, indexMapping, parsedBudget } from "../../lib/retrace/mapping_index.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";
import { syntheticMapping, syntheticTrace } from "../../scripts/bench_retrace.ts";

Deno.test("indexMapping() finds classes by either name from bytes, CRLF and all; the first of a repeated name wins", () => {
  const text = "# pg_map_id: 77aa\r\n" +
    "com.a.First -> x.a:\r\n    1:1:void f():3:3 -> a\r\n" +
    "com.a.Second -> x.b:\n    void g() -> a\n" +
    "not a class line -> x.c:\n" +
    "com.a.Tab\t-> x.d:\n" +
    "com.a.NoColon -> x.e\n" +
    "com.a.Again -> x.a:\n" +
    "com.a.Ünïcode -> x.ü:\n";
  const index = indexMapping(new TextEncoder().encode(text));
  assertEquals(index.classCount, 4);
  assertEquals(index.header.mapId, "77aa");
  assertEquals(index.byObfuscated("x.a")?.original, "com.a.First");
  assertEquals(index.byObfuscated("x.b")?.original, "com.a.Second");
  assertEquals(index.byOriginal("com.a.Again")?.obfuscated, "x.a");
  assertEquals(index.byObfuscated("x.ü")?.original, "com.a.Ünïcode");
  assertEquals(index.byObfuscated("x.c"), null);
  assertEquals(index.byObfuscated("x.d"), null);
  assertEquals(index.byObfuscated("x.e"), null);
  assertEquals(index.byObfuscated("x"), null);
  assertEquals(
    retraceText("\tat x.a.a(SourceFile:1)", index).text,
    "    at com.a.First.f(First.java:3)",
  );
});

Deno.test("indexMapping() finds every one of 50,000 classes (hash table probing and checks)", () => {
  const lines: string[] = [];
  for (let k = 0; k < 50_000; k++) lines.push(`com.big.C${k} -> o${k.toString(36)}:`);
  const index = indexMapping(lines.join("\n"));
  assertEquals(index.classCount, 50_000);
  for (let k = 0; k < 50_000; k += 7) {
    assertEquals(index.byObfuscated(`o${k.toString(36)}`)?.original, `com.big.C${k}`);
    assertEquals(index.byOriginal(`com.big.C${k}`)?.obfuscated, `o${k.toString(36)}`);
  }
  assertEquals(index.byObfuscated("o-none"), null);
});

Deno.test("a cached mapping may cost at most 4× its file, and its caches stay within their bounds", () => {
  const mapping = syntheticMapping(4 * 1024 * 1024);
  const index = indexMapping(mapping.text);
  assertEquals(index.fileBytes, mapping.bytes);
  assert(index.memoryBytes >= mapping.bytes, "counts the file");
  assert(
    index.memoryBytes <= 4 * mapping.bytes,
    `${index.memoryBytes} bytes for a ${mapping.bytes}-byte mapping`,
  );
  // Many traces over many classes: the parsed and remembered caches stay bounded.
  for (let seed = 1; seed <= 40; seed++) {
    retraceText(syntheticTrace(mapping.classes, 1_000, seed), index);
  }
  const used = index.cachedBytes;
  assert(used.parsed > 0 && used.parsed <= parsedBudget(mapping.bytes), JSON.stringify(used));
  assert(used.frames > 0 && used.frames <= frameBudget(mapping.bytes), JSON.stringify(used));
});
