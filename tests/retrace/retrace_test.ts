import { assert, assertEquals } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { parseClassBlock } from "../../lib/retrace/mapping.ts";
import { readMappingHeader } from "../../lib/retrace/shared/mapping_file.ts";
import { indexMapping } from "../../lib/retrace/mapping_index.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";
import { originalLine } from "../../lib/retrace/retrace_frames.ts";
import { MAX_LINES_PER_FRAME } from "../../lib/retrace/frame_bytes.ts";
import { mapIdsInTrace } from "../../lib/retrace/shared/trace_frames.ts";

const real = realFixtures("logcat/r8_retrace");

/**
 * The fixture's expected output (Sentry's rust-proguard) with keynobi's two deliberate differences:
 * an original line 0 (R8's "no line") is printed without a line, and a synthesized class whose
 * `sourceFile` is `R8$$SyntheticClass` takes its outer class's file (`MainActivity.kt`, not the
 * bare `MainActivity`).
 */
function keynobiExpected(line: string): string {
  return line.replace(/\(MainActivity:0\)$/, "(MainActivity.kt)").replace(/:0\)$/, ")");
}

Deno.test({
  name: "retraceText() equals the real fixture's expected retrace line for line",
  ignore: !real.present,
  fn() {
    const index = indexMapping(real.text("mapping.txt"));
    const out = retraceText(real.text("obfuscated_stacktrace.txt"), index);
    const expected = real.text("expected_retrace.txt").split("\n").map((l) =>
      l.startsWith("    at ") ? keynobiExpected(l) : l
    );
    const got = out.text.split("\n");
    assertEquals(got.length, expected.length);
    for (let k = 0; k < expected.length; k++) assertEquals(got[k], expected[k], `line ${k + 1}`);
    assertEquals(out.stats.frames, 7);
    assertEquals(out.stats.retraced, 4);
    assertEquals(out.stats.ambiguous, 0);
  },
});

Deno.test({
  name: "indexMapping() reads the real mapping's header",
  ignore: !real.present,
  fn() {
    const index = indexMapping(real.text("mapping.txt"));
    assertEquals(index.header.mapId, "48ffd94");
    assertEquals(
      index.header.mapHash,
      "48ffd9478fda293e1c713db4cc7c449781a9e799fa504e389ee32ed19775a3ba",
    );
    assertEquals(index.header.compiler, "R8");
    assertEquals(index.header.compilerVersion, "8.3.36");
    assertEquals(index.classCount, 5);
    assertEquals(readMappingHeader(real.text("mapping.txt")).mapId, "48ffd94");
  },
});

const INLINE = `# pg_map_id: 1a2b3c4
com.example.app.Repo -> a.a:
# {"id":"sourceFile","fileName":"Repo.kt"}
    1:4:void load():20:23 -> a
    5:5:int com.example.app.Parser.parse(java.lang.String):17:17 -> a
    5:5:void load():24 -> a
    6:6:int com.example.app.Parser.parse(java.lang.String):18:18 -> a
    6:6:int com.example.app.Parser.count():30:30 -> a
    6:6:void load():25 -> a
    7:9:void save():40:42 -> b
com.example.app.Parser -> a.b:
# {"id":"sourceFile","fileName":"Parser.kt"}
    1:1:int parse(java.lang.String):17:17 -> a
com.example.app.JavaThing -> a.c:
    3:5:void run():10:12 -> a
`;

Deno.test("retraceText() expands inline chains innermost first, with each frame's file", () => {
  const out = retraceText(
    "java.lang.NumberFormatException: bad\n\tat a.a.a(SourceFile:6)\n\tat a.a.b(SourceFile:8)",
    indexMapping(INLINE),
  );
  assertEquals(out.text.split("\n"), [
    "java.lang.NumberFormatException: bad",
    "    at com.example.app.Parser.parse(Parser.kt:18)",
    "    at com.example.app.Parser.count(Parser.kt:30)",
    "    at com.example.app.Repo.load(Repo.kt:25)",
    "    at com.example.app.Repo.save(Repo.kt:41)",
  ]);
  assertEquals(out.stats.retraced, 2);
});

Deno.test("retraceText() answers each trace alone, a large one between small ones included", () => {
  // The buffers a trace is read from and written to are kept between calls, and let go after
  // one past 1 MiB: nothing of one answer shows in the next.
  const trace =
    "java.lang.NumberFormatException: bad\n\tat a.a.a(SourceFile:6)\n\tat a.a.b(SourceFile:8)";
  const small = retraceText(trace, indexMapping(INLINE));
  const frames = Array.from(
    { length: 20_000 },
    (_, k) => `\tat a.a.${k % 2 ? "b" : "a"}(SourceFile:${k % 2 ? 8 : 6})`,
  );
  const large = retraceText(frames.join("\n"), indexMapping(INLINE));
  assertEquals(large.stats.retraced, 20_000);
  // Each of the two frames 10,000 times: retraced once, then found remembered (in the trace's
  // own bytes while it is retraced), and past the memo's budget retraced again.
  const lines = large.text.split("\n");
  assertEquals(lines.length, 40_000);
  const expected = small.text.split("\n").slice(1);
  for (let k = 0; k < 40_000; k += 4_444) assertEquals(lines[k], expected[k % 4]);
  assertEquals(retraceText(trace, indexMapping(INLINE)), small);
  assertEquals(
    retraceText("\tat a.a.b(SourceFile:8)", indexMapping(INLINE)).text,
    small.text.split("\n").slice(4).join("\n"),
  );
  assertEquals(retraceText("", indexMapping(INLINE)).text, "");
});

Deno.test("retraceText() maps a line inside a range by its offset, and a single original line", () => {
  const index = indexMapping(INLINE);
  assertEquals(
    retraceText("\tat a.a.a(SourceFile:3)", index).text,
    "    at com.example.app.Repo.load(Repo.kt:22)",
  );
  assertEquals(
    retraceText("\tat a.a.a(SourceFile:5)", index).text.split("\n"),
    [
      "    at com.example.app.Parser.parse(Parser.kt:17)",
      "    at com.example.app.Repo.load(Repo.kt:24)",
    ],
  );
});

Deno.test("retraceText() names a Java class's file from the outer class and the trace's extension, .java without one", () => {
  const index = indexMapping(INLINE);
  assertEquals(
    retraceText("\tat a.c.a(SourceFile:4)", index).text,
    "    at com.example.app.JavaThing.run(JavaThing.java:11)",
  );
  assertEquals(
    retraceText("\tat a.c.a(Foo.java:4)", index).text,
    "    at com.example.app.JavaThing.run(JavaThing.java:11)",
  );
});

Deno.test("retraceText() without a line: the one containing method, no line; Unknown Source kept", () => {
  const index = indexMapping(INLINE);
  assertEquals(
    retraceText("\tat a.a.b(Unknown Source)", index).text,
    "    at com.example.app.Repo.save(Unknown Source)",
  );
  assertEquals(
    retraceText("\tat a.a.b(SourceFile)", index).text,
    "    at com.example.app.Repo.save(Repo.kt)",
  );
  // Every chain of `a` is inside load(): not ambiguous although the chains differ.
  const a = retraceText("\tat a.a.a(SourceFile)", index);
  assertEquals(a.text, "    at com.example.app.Repo.load(Repo.kt)");
  assertEquals(a.stats.ambiguous, 0);
  // A line that no range holds is treated as no line.
  assertEquals(
    retraceText("\tat a.a.b(SourceFile:99)", index).text,
    "    at com.example.app.Repo.save(Repo.kt)",
  );
  assertEquals(
    retraceText("\tat a.a.b(SourceFile:0)", index).text,
    "    at com.example.app.Repo.save(Repo.kt)",
  );
});

// Two chains of \`b\` with the same range, not adjacent (adjacent ones would be one inline chain).
const AMBIGUOUS = `com.example.Overloads -> b.a:
    void first(int) -> a
    void second(java.lang.String) -> a
    1:2:void third():5:6 -> b
    3:3:void other():1:1 -> c
    1:2:void fourth():8:9 -> b
`;

Deno.test("retraceText() reports ambiguous frames with every alternative, never guessing", () => {
  const index = indexMapping(AMBIGUOUS);
  const noLine = retraceText("\tat b.a.a(Unknown Source)", index);
  assertEquals(noLine.text.split("\n"), [
    "    at com.example.Overloads.first(Unknown Source)",
    "    <OR> at com.example.Overloads.second(Unknown Source)",
  ]);
  assertEquals(noLine.stats.ambiguous, 1);
  const ranged = retraceText("\tat b.a.b(SourceFile:2)", index);
  assertEquals(ranged.text.split("\n"), [
    "    at com.example.Overloads.third(Overloads.java:6)",
    "    <OR> at com.example.Overloads.fourth(Overloads.java:9)",
  ]);
  assertEquals(ranged.stats.ambiguous, 1);
});

const SYNTH = `com.example.Main -> c.a:
# {"id":"sourceFile","fileName":"Main.kt"}
    1:1:void lambda$run$0():12:12 -> a
    1:1:void access$lambda(c.a):0:0 -> a
      # {"id":"com.android.tools.r8.synthesized"}
    1:1:void run():20 -> a
    2:2:void bridge():0:0 -> b
      # {"id":"com.android.tools.r8.synthesized"}
com.example.Main$$ExternalSyntheticLambda0 -> c.b:
# {"id":"sourceFile","fileName":"R8$$SyntheticClass"}
# {"id":"com.android.tools.r8.synthesized"}
    1:1:void run():0:0 -> run
      # {"id":"com.android.tools.r8.synthesized"}
`;

Deno.test("retraceText() hides synthesized members inside a chain but keeps one that stands alone", () => {
  const index = indexMapping(SYNTH);
  assertEquals(retraceText("\tat c.a.a(SourceFile:1)", index).text.split("\n"), [
    "    at com.example.Main.lambda$run$0(Main.kt:12)",
    "    at com.example.Main.run(Main.kt:20)",
  ]);
  assertEquals(
    retraceText("\tat c.a.b(SourceFile:2)", index).text,
    "    at com.example.Main.bridge(Main.kt)",
  );
  assertEquals(
    retraceText("\tat c.b.run(SourceFile:1)", index).text,
    "    at com.example.Main$$ExternalSyntheticLambda0.run(Main.kt)",
  );
  const cls = index.byObfuscated("c.b")!;
  assert(cls.synthesized, "class metadata read");
  assertEquals(cls.sourceFile, "R8$$SyntheticClass");
});

Deno.test("retraceText() keeps unknown classes and other lines byte for byte, renames exception classes", () => {
  const index = indexMapping(`com.example.BadThing -> d.a:\n    1:1:void x():3:3 -> a\n`);
  const text =
    "FATAL EXCEPTION: main\r\nProcess: com.example, PID: 7\r\nd.a: boom\r\n\tat d.a.a(SourceFile:1)\r\n" +
    "\tat android.os.Looper.loop(Looper.java:317)\r\nCaused by: d.a\r\n\t... 3 more";
  const out = retraceText(text, index);
  assertEquals(out.text.split("\n"), [
    "FATAL EXCEPTION: main\r",
    "Process: com.example, PID: 7\r",
    "com.example.BadThing: boom",
    "    at com.example.BadThing.x(BadThing.java:3)",
    "\tat android.os.Looper.loop(Looper.java:317)\r",
    "Caused by: com.example.BadThing",
    "\t... 3 more",
  ]);
  assertEquals(out.stats.exceptions, 2);
});

Deno.test("retraceText() renames the class of a method the mapping does not list", () => {
  const index = indexMapping(`com.example.Kept -> e.a:\n    1:1:void x():3:3 -> a\n`);
  assertEquals(
    retraceText("\tat e.a.onCreate(SourceFile:9)", index).text,
    "    at com.example.Kept.onCreate(Kept.java:9)",
  );
});

Deno.test("mapIdsInTrace() lists the r8-map-id files the frames name", () => {
  assertEquals(
    mapIdsInTrace(
      "x\n\tat a.a(r8-map-id-48FFD94:1)\n\tat b.b(r8-map-id-48ffd94:2)\n\tat c.c(r8-map-id-99:3)\n\tat d.d(Foo.java:1)",
    ),
    ["48ffd94", "99"],
  );
});

Deno.test("parseClassBlock() reads fields, ranges without original lines, and ProGuard's format", () => {
  const c = parseClassBlock(
    "com.x.A -> a:\n    int count -> a\n    java.lang.String name -> b\n    3:4:void go() -> c\n    void idle() -> d\n",
  );
  assertEquals(c.fields.get("a"), ["count"]);
  assertEquals(c.fields.get("b"), ["name"]);
  const go = c.methods.get("c")![0].frames[0];
  assertEquals(originalLine(go, 4), 4, "no original range: the minified line");
  assertEquals(c.methods.get("d")![0].minStart, null);
  assertEquals(
    retraceText("\tat a.d(SourceFile:77)", indexMapping("com.x.A -> a:\n    void idle() -> d\n"))
      .text,
    "    at com.x.A.idle(A.java:77)",
  );
});

Deno.test("retraceText() keeps a nested Suppressed/Caused by block's frames nested", () => {
  const index = indexMapping(INLINE);
  const out = retraceText(
    "java.lang.RuntimeException: x\n\tat a.a.b(SourceFile:8)\n\tSuppressed: a.c: y\n" +
      "\t\tat a.c.a(SourceFile:4)\n\t\t... 2 more\n\tCaused by: a.b\n\t\tat a.b.a(SourceFile:1)\n" +
      "Caused by: a.c\n\tat a.c.a(SourceFile:3)",
    index,
  );
  assertEquals(out.text.split("\n"), [
    "java.lang.RuntimeException: x",
    "    at com.example.app.Repo.save(Repo.kt:41)",
    "\tSuppressed: com.example.app.JavaThing: y",
    "        at com.example.app.JavaThing.run(JavaThing.java:11)",
    "\t\t... 2 more",
    "\tCaused by: com.example.app.Parser",
    "        at com.example.app.Parser.parse(Parser.kt:17)",
    "Caused by: com.example.app.JavaThing",
    "    at com.example.app.JavaThing.run(JavaThing.java:10)",
  ]);
});

Deno.test("retraceText() names the file of a frame inlined from a class the mapping lacks, or from its outer class", () => {
  const index = indexMapping(`com.example.Host -> h.a:
# {"id":"sourceFile","fileName":"Host.kt"}
    1:1:java.lang.Object kotlin.collections.CollectionsKt___CollectionsKt.first(java.util.List):12:12 -> a
    1:1:void com.example.Host$Inner.go():7:7 -> a
    1:1:void run():30 -> a
`);
  assertEquals(retraceText("\tat h.a.a(SourceFile:1)", index).text.split("\n"), [
    "    at kotlin.collections.CollectionsKt___CollectionsKt.first(CollectionsKt___CollectionsKt.java:12)",
    "    at com.example.Host$Inner.go(Host.kt:7)",
    "    at com.example.Host.run(Host.kt:30)",
  ]);
  // The trace's own extension when it has one.
  assertEquals(
    retraceText("\tat h.a.a(Host.kt:1)", index).text.split("\n")[0],
    "    at kotlin.collections.CollectionsKt___CollectionsKt.first(CollectionsKt___CollectionsKt.kt:12)",
  );
});

Deno.test("retraceText() bounds the lines of one frame: a 130,000-frame inline chain is cut with how many more", () => {
  const chain = 130_000;
  const members: string[] = [];
  for (let k = 0; k < chain - 1; k++) {
    members.push(`    1:1:void com.example.Deep.f${k}():${k + 1}:${k + 1} -> a`);
  }
  members.push("    1:1:void outer():9:9 -> a");
  const index = indexMapping(`com.example.Deep -> z.a:\n${members.join("\n")}\n`);
  const trace = "java.lang.StackOverflowError\n\tat z.a.a(SourceFile:1)\n\tat z.a.a(SourceFile:1)";
  const out = retraceText(trace, index);
  const lines = out.text.split("\n");
  assertEquals(lines.length, 1 + 2 * (MAX_LINES_PER_FRAME + 1));
  assertEquals(lines[1], "    at com.example.Deep.f0(Deep.java:1)");
  assertEquals(
    lines[MAX_LINES_PER_FRAME + 1],
    `    ... ${chain - MAX_LINES_PER_FRAME} more inlined frames`,
  );
  assertEquals(out.stats.omitted_frames, 2 * (chain - MAX_LINES_PER_FRAME));
  assertEquals(out.stats.retraced, 2);
});
