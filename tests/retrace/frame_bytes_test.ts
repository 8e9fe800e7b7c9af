/**
 * The byte path of a frame (lib/retrace/frame_bytes.ts) against the object path
 * (lib/retrace/retrace_frames.ts) it stands in for: readFrame reads what FRAME matches, and
 * writeFrame prints what objectFrame prints for every method name of every class of every corpus
 * mapping at every line that matters, whenever it does not decline — and it declines only in the
 * cases its module comment lists.
 */
import { assert, assertEquals } from "../assert.ts";
import { ByteOut, frame, LOC_LINE, readFrame, writeFrame } from "../../lib/retrace/frame_bytes.ts";
import {
  CLASS_FROM,
  CLASS_TO,
  LOC_FROM,
  LOC_TO,
  METHOD_TO,
  WS_END,
} from "../../lib/retrace/frame_bytes.ts";
import { parseClassBlock } from "../../lib/retrace/mapping.ts";
import { classBlocks } from "./class_blocks.ts";
import { indexMapping } from "../../lib/retrace/mapping_index.ts";
import { objectFrame } from "../../lib/retrace/retrace_frames.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";
import { FRAME, splitLocation } from "../../lib/retrace/shared/trace_frames.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Deterministic pseudo-random numbers (xorshift32). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

Deno.test("readFrame() reads an ASCII line exactly as FRAME and splitLocation() do", () => {
  const pieces = [
    "at",
    " ",
    "\t",
    "\v",
    ".",
    "(",
    ")",
    ":",
    "a",
    "b",
    "1",
    "9",
    "$",
    "x.y",
    "at a.b(F:1)",
    "Unknown Source",
    "\r",
    "12",
    "0",
    "1234567890",
    ":3",
  ];
  const r = rng(26);
  // Names and locations mostly of what they may hold, now and then of what they may not.
  const name = ["a", "b", "$", "x.y", ".", "1", "<init>", "_"];
  const loc = ["SourceFile", ":", "12", "0", "1234567890", " ", "Unknown Source", "a.kt", ":3"];
  const pick = (n: number, from: string[]) => {
    let s = "";
    for (let j = Math.floor(r() * n); j >= 0; j--) {
      const all = r() < 0.1 ? pieces : from;
      s += all[Math.floor(r() * all.length)];
    }
    return s;
  };
  const lines = ["\tat o.a.b(SourceFile:12)", "at a.b()", "  at a.b(:1)", "at .b(F:1)"];
  for (let k = 0; k < 60_000; k++) {
    // Mostly frame-shaped, each part drawn from the pieces, so both sides of every rule are met.
    const ws = ["", "\t", "    ", " \v"][k % 4];
    const sep = [" ", "\t", "", "  "][k % 3];
    lines.push(
      k % 5 === 0
        ? pick(9, pieces)
        : `${ws}at${sep}${pick(3, name)}.${pick(2, name)}(${pick(3, loc)})${
          k % 7 === 0 ? pick(1, pieces) : ""
        }`,
    );
  }
  let frames = 0;
  for (const line of lines) {
    const b = enc.encode(line);
    const m = FRAME.exec(line);
    const got = readFrame(b, 0, b.length);
    assertEquals(got, m !== null, JSON.stringify(line));
    if (!m) continue;
    frames++;
    const part = (a: number, z: number) => line.slice(a, z);
    assertEquals(
      [
        part(0, frame[WS_END]),
        part(frame[CLASS_FROM], frame[CLASS_TO]),
        part(frame[CLASS_TO] + 1, frame[METHOD_TO]),
        part(frame[LOC_FROM], frame[LOC_TO]),
      ],
      [m[1], m[2], m[3], m[4]],
      JSON.stringify(line),
    );
    assertEquals(frame[LOC_LINE] < 0 ? null : frame[LOC_LINE], splitLocation(m[4]).line);
  }
  assert(frames > 5_000 && frames < lines.length - 5_000, `${frames} frames of ${lines.length}`);
  // Not ASCII: left to the object path.
  const b = enc.encode("\tat o.ä.b(F:1)");
  assertEquals(readFrame(b, 0, b.length), false);
});

/** The corpus mappings and hand-made cases writeFrame must print as objectFrame does. */
async function mappings(): Promise<string[]> {
  const edge = "com.x.A -> a:\n" + '# {"id":"sourceFile","fileName":"A.kt"}\n' +
    "    1:2:void f():3:4 -> a\n" + '      # {"id":"com.android.tools.r8.synthesized"}\n' +
    "    1:2:int com.x.B$In.g(int):7:7 -> a\n    1:2:void h():9 -> a\n" +
    "    3:3:void s():0:0 -> b\n    4:9:void t():10:12 -> c\n    4:9:void u():20 -> c\n" +
    "    10:10:void v() -> d\n    11:12:void w():40:30 -> e\n" +
    "com.x.B -> b:\n" + '# {"id":"com.android.tools.r8.synthesized"}\n' +
    "    1:5:void m():1:5 -> a\n" +
    "com.x.B$In -> c:\n    1:1:void n():2 -> a\n" +
    "com.x.S -> d:\n" + '# {"id":"sourceFile","fileName":"R8$$SyntheticClass"}\n' +
    "    1:1:void k():3 -> a\n" +
    "com.x.J -> e:\n" + '# {"fileName":"J.kt","id":"sourceFile"}\n' + "    1:1:void j():3 -> a\n";
  const out = [edge];
  const dir = new URL("../fixtures/corpus/mapping/", import.meta.url);
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".txt")) {
      out.push(await Deno.readTextFile(new URL(e.name, dir)));
    }
  }
  return out;
}

Deno.test("writeFrame() prints what objectFrame() prints, for every member of every corpus mapping", async () => {
  let written = 0;
  let declined = 0;
  // Frames whose line one chain's range holds, and those of them declined.
  let held = 0;
  let heldDeclined = 0;
  for (const text of await mappings()) {
    const index = indexMapping(text);
    const trace: string[] = [];
    // Whether the trace's frame at the same place has a line exactly one chain's range holds.
    const single: boolean[] = [];
    for (const block of classBlocks(text)) {
      const cls = parseClassBlock(block);
      for (
        const [obf, groups] of cls.methods as Map<
          string,
          { minStart: number | null; minEnd: number | null }[]
        >
      ) {
        const probes = new Set([0, 1]);
        for (const g of groups) {
          if (g.minStart === null || g.minEnd === null) continue;
          for (const l of [g.minStart, g.minEnd, g.minEnd + 1, (g.minStart + g.minEnd) >> 1]) {
            probes.add(l);
          }
        }
        for (const l of probes) {
          const one = groups.filter((g) =>
            g.minStart !== null && g.minEnd !== null && g.minStart <= l && l <= g.minEnd
          ).length === 1;
          for (
            const file of ["SourceFile", "Unknown Source", "Foo.kt", "r8-map-id-5ee95f8", "a b.c"]
          ) {
            trace.push(`${l % 2 ? "\t" : "    "}at ${cls.obfuscated}.${obf}(${file}:${l})`);
            single.push(one);
          }
        }
      }
    }
    for (const [t, line] of trace.entries()) {
      const b = enc.encode(line);
      if (!readFrame(b, 0, b.length)) continue;
      const k = index.obfuscatedClassAt(b, frame[CLASS_FROM], frame[CLASS_TO]);
      if (k < 0) continue;
      if (single[t]) held++;
      const out = new ByteOut(16);
      const n = writeFrame(index, k, b, 0, out);
      const m = FRAME.exec(line)!;
      const want = objectFrame(index, index.classNumbered(k), m[1], m[3], m[4]);
      if (n < 0) {
        declined++;
        if (single[t]) heldDeclined++;
        assertEquals(out.length, 0, "a declined frame writes nothing");
        continue;
      }
      written++;
      assertEquals(dec.decode(out.bytes.subarray(0, out.length)), want.lines.join("\n"), line);
      assertEquals(n, want.lines.length, line);
      assertEquals([want.ambiguous, want.omitted], [false, 0], line);
    }
    // The whole trace at once, then again from the remembered frames: as frame by frame.
    const expected = trace.map((line) => {
      const m = FRAME.exec(line)!;
      const cls = index.byObfuscated(m[2]);
      return cls ? objectFrame(index, cls, m[1], m[3], m[4]).lines.join("\n") : line;
    }).join("\n");
    assertEquals(retraceText(trace.join("\n"), index).text, expected);
    assertEquals(retraceText(trace.join("\n"), index).text, expected);
  }
  const seen = `${written} frames written as bytes, ${declined} declined; of the ${held} ` +
    `frames one chain holds, ${heldDeclined} declined`;
  assert(written > 20_000, seen);
  // The common case is written as bytes (the few declined: lines that are not plain ASCII).
  assert(heldDeclined * 100 <= held, seen);
});
