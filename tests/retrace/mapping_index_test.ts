import { assert, assertEquals } from "../assert.ts";
import { frameBudget, indexMapping } from "../../lib/retrace/mapping_index.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";
import { type InlineGroup, lazyClassBlock, parseClassBlock } from "../../lib/retrace/mapping.ts";
import { syntheticMapping, syntheticTrace } from "../../scripts/bench_retrace.ts";
import { classBlocks } from "./class_blocks.ts";

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

Deno.test("a cached mapping may cost at most 4× its file, and its remembered frames stay bounded", () => {
  const mapping = syntheticMapping(4 * 1024 * 1024);
  const index = indexMapping(mapping.text);
  assertEquals(index.fileBytes, mapping.bytes);
  assert(index.memoryBytes >= mapping.bytes, "counts the file");
  assert(
    index.memoryBytes <= 4 * mapping.bytes,
    `${index.memoryBytes} bytes for a ${mapping.bytes}-byte mapping`,
  );
  // Many traces over many classes: the remembered frames stay bounded.
  for (let seed = 1; seed <= 40; seed++) {
    retraceText(syntheticTrace(mapping.classes, 1_000, seed), index);
  }
  // The last trace again: its frames found then in older traces may be forgotten by now (the
  // oldest go first, a hit does not make one newer), and are remembered again.
  const last = syntheticTrace(mapping.classes, 1_000, 40);
  const first = retraceText(last, index).text;
  const used = index.cachedBytes;
  assert(used.frames > 0 && used.frames <= frameBudget(mapping.bytes), JSON.stringify(used));
  // And again, after many evictions: every frame is found remembered (none added), as it was.
  assertEquals(retraceText(last, index).text, first);
  assertEquals(index.cachedBytes, used);
});

function isAsciiName(s: string): boolean {
  return [...s].every((c) => c.charCodeAt(0) < 0x80);
}

/** Groups as plain objects: the index's read their frames on first use, through a getter. */
function plainGroups(groups: InlineGroup[] | undefined): InlineGroup[] | undefined {
  return groups?.map((g) => ({ minStart: g.minStart, minEnd: g.minEnd, frames: g.frames }));
}

Deno.test("lazyClassBlock() and the index read every member as parseClassBlock() does, in every corpus mapping", async () => {
  const dir = new URL("../fixtures/corpus/mapping/", import.meta.url);
  let classes = 0;
  let members = 0;
  // Hand-made edge cases besides: a field and a method sharing a name, metadata after another
  // method, a group broken by a field, CRLF, a class's metadata after its members.
  const edge = "com.x.A -> a:\r\n    int a -> a\r\n    1:2:void f():3:4 -> a\r\n" +
    '      # {"id":"com.android.tools.r8.synthesized"}\r\n    1:2:void g():5:6 -> a\r\n' +
    "    1:2:void h():7 -> b\n" + '    # {"id":"com.android.tools.r8.synthesized"}\n' +
    "    1:2:void i():8 -> a\n    long b -> c\n    1:2:void j():9 -> a\n" +
    '# {"id":"sourceFile","fileName":"A.kt"}\n' + "    3:3:void k() ->  d \n" +
    // Spaces trim() removes besides ASCII ones, and names that are not ASCII.
    "com.x.B -> b:\n    1:1:void u():1 -> e\u00a0\n    1:1:void v():2 -> e\v\n" +
    "    1:1:void w():3 -> e\u3000\n    1:1:void x():4 -> ä\n" +
    "com.x.Ü -> ü:\n    1:1:void ö():1 -> a\n" +
    // A line that is no member ends a chain; a comment that is no metadata does not.
    "com.x.C -> c:\n    1:2:void p():1 -> q\n    garbage\n    1:2:void r():2 -> q\n" +
    "    # a comment\n    1:2:void s():3 -> q\n  \n    1:2:void t():4 -> q\n";
  const texts = [edge];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile) texts.push(await Deno.readTextFile(new URL(e.name, dir)));
  }
  for (const text of texts) {
    const index = indexMapping(text);
    for (const block of classBlocks(text)) {
      const full = parseClassBlock(block);
      const lazy = lazyClassBlock(block);
      // The index's (read from the bytes), unless an earlier class has the same name.
      const found = index.byObfuscated(full.obfuscated);
      const indexed = found?.original === full.original ? found : lazy;
      classes++;
      for (const c of [lazy, indexed]) {
        assertEquals(
          [c.original, c.obfuscated, c.sourceFile, c.synthesized],
          [full.original, full.obfuscated, full.sourceFile, full.synthesized],
        );
      }
      const fullMethods = full.methods as Map<string, unknown>;
      const fullFields = full.fields as Map<string, unknown>;
      // Every name a member line ends with, whether or not it parses as one.
      const names = new Set(block.split("\n").map((l) => l.split(" -> ").at(-1)!.trim()));
      for (const n of [...names, ...fullMethods.keys(), ...fullFields.keys(), "zz"]) {
        // The groups whose range holds a line, read on their own, are those of the whole list.
        const all = full.methods.get(n) ?? [];
        const probes = new Set([0, 1, 1_000_000]);
        for (const g of all) {
          if (g.minStart === null || g.minEnd === null) continue;
          for (const l of [g.minStart - 1, g.minStart, g.minEnd, g.minEnd + 1]) probes.add(l);
        }
        for (const line of probes) {
          const want = all.filter((g) =>
            g.minStart !== null && g.minEnd !== null && g.minStart <= line && line <= g.minEnd
          );
          const got = indexed.holding?.(n, line) ?? null;
          // `null` only when none holds it, or for a class read as decoded text (not plain ASCII).
          const plain = indexed !== lazy && isAsciiName(n) && /^[\t\n\r\x20-\x7e]*$/.test(block);
          if (got !== null || (want.length > 0 && plain)) {
            assertEquals(plainGroups(got ?? []), want, `${full.original} ${n} at line ${line}`);
          }
        }
        for (const c of [lazy, indexed]) {
          assertEquals(
            plainGroups(c.methods.get(n)),
            full.methods.get(n),
            `${full.original} method ${n}`,
          );
          assertEquals(c.fields.get(n), full.fields.get(n), `${full.original} field ${n}`);
        }
        members++;
      }
    }
  }
  assert(classes > 100 && members > 1000, `${classes} classes, ${members} names`);
});
