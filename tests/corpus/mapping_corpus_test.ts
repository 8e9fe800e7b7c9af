/**
 * Invariants of the mapping reader and retracer over every real R8 / ProGuard mapping in
 * tests/fixtures/corpus/mapping (sources in its SOURCES.md). For each mapping the test writes a
 * trace with one frame per member range (`at obf.Cls.m(SourceFile:<first minified line>)`),
 * and reads the mapping itself with a small scanner of its own, so that:
 * - every member range retraces: the frame is rewritten and names the range's innermost original
 *   method at the original line the scanner computes;
 * - ProGuard's own ReTrace (Debian `proguard-cli`, run once for all mappings through
 *   RetraceOracle.java) gives the same frames, class, method and line, frame by frame, wherever
 *   it reads the mapping (skipped with a note when Java or ReTrace is missing). Two documented
 *   differences are allowed, both extras on ReTrace's side: members without a line range offered
 *   (or `0:0`) for a line a range holds, and R8-synthesized members (metadata ReTrace 6 does not read).
 */
import { assert, assertEquals } from "../assert.ts";
import { indexMapping } from "../../lib/retrace/mapping_index.ts";
import { retraceText } from "../../lib/retrace/retrace_text.ts";

const DIR = new URL("../fixtures/corpus/mapping/", import.meta.url);
const FILES = [...Deno.readDirSync(DIR)]
  .filter((e) => e.isFile && e.name !== "SOURCES.md")
  .map((e) => e.name)
  .sort();
/** Frames written per mapping at most (spread over its ranges). */
const MAX_FRAMES_PER_MAPPING = 300;
const RETRACE_JARS = ["/usr/share/java/proguard-retrace.jar", "/usr/share/java/proguard.jar"];

interface Range {
  obfClass: string;
  obf: string;
  min: number;
  /** The innermost frame the range stands for. */
  className: string;
  method: string;
  line: number | null;
}

const CLASS_RE = /^(\S+) -> (\S+):\s*$/;
const METHOD_RE = /^\s+(?:(\d+):(\d+):)?(\S+) (\S+?)\(([^)]*)\)(?::(\d+)(?::(\d+))?)? -> (\S+)\s*$/;

/**
 * The scanner: each method line with a minified range that starts a chain, as a Range; and, per
 * `obfClass.obf`, the original methods its mapping gives no range (`unranged`).
 */
function scanRanges(text: string): { ranges: Range[]; unranged: Map<string, Set<string>> } {
  const out: Range[] = [];
  const unranged = new Map<string, Set<string>>();
  let cls: { orig: string; obf: string } | null = null;
  let prev = "";
  let last: { k: string; name: string } | null = null;
  for (const line of text.split(/\r?\n/)) {
    const c = CLASS_RE.exec(line);
    if (c) {
      cls = { orig: c[1], obf: c[2] };
      prev = "";
      continue;
    }
    const m = METHOD_RE.exec(line);
    if (!m || !cls) {
      if (/^\s+#.*com\.android\.tools\.r8\.synthesized/.test(line) && last) {
        // R8 metadata ReTrace 6 cannot read: a synthesized member, which R8's retrace drops.
        if (!unranged.has(last.k)) unranged.set(last.k, new Set());
        unranged.get(last.k)!.add(last.name);
      }
      if (!/^\s*#/.test(line)) prev = "";
      continue;
    }
    {
      const dot = m[4].lastIndexOf(".");
      last = { k: `${cls.obf}.${m[8]}`, name: dot > 0 ? m[4] : `${cls.orig}.${m[4]}` };
    }
    const key = `${m[1]}:${m[2]}:${m[8]}`;
    if (m[1] === undefined || (m[1] === "0" && m[2] === "0")) {
      // No range, or R8's `0:0` (a frame with no line): ReTrace 6 offers it for any line.
      const dot = m[4].lastIndexOf(".");
      const name = dot > 0 ? m[4] : `${cls.orig}.${m[4]}`;
      const k = `${cls.obf}.${m[8]}`;
      if (!unranged.has(k)) unranged.set(k, new Set());
      unranged.get(k)!.add(name);
    }
    // A chain's first line is its innermost frame; later lines with the same key are callers.
    if (m[1] !== undefined && key !== prev && Number(m[1]) > 0) {
      const min = Number(m[1]);
      const name = m[4];
      const dot = name.lastIndexOf(".");
      let orig: number | null = min;
      if (m[6] !== undefined) {
        orig = m[7] !== undefined ? Number(m[6]) + (min - Number(m[1])) : Number(m[6]);
      }
      out.push({
        obfClass: cls.obf,
        obf: m[8],
        min,
        className: dot > 0 ? name.slice(0, dot) : cls.orig,
        method: dot > 0 ? name.slice(dot + 1) : name,
        line: orig === 0 ? null : orig,
      });
    }
    prev = m[1] !== undefined ? key : "";
  }
  return { ranges: out, unranged };
}

/** At most `n` items spread evenly over `xs`. */
function spread<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]);
}

/** The trace for `ranges`: each frame alone between `--- i` lines, which both retracers keep. */
function traceOf(ranges: Range[]): string {
  return ranges.map((r, i) => `--- ${i}\n\tat ${r.obfClass}.${r.obf}(SourceFile:${r.min})`)
    .join("\n") + `\n--- ${ranges.length}\n`;
}

interface Frame {
  className: string;
  method: string;
  line: number | null;
}

/** Retraced text → the frames printed for each input frame, by its `--- i` marker. */
function framesByMarker(text: string): Frame[][] {
  const out: Frame[][] = [];
  let cur: Frame[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (/^--- \d+$/.test(line)) {
      cur = [];
      out.push(cur);
      continue;
    }
    const m = /^\s*(?:<OR> )?at ([^\s(]+)\.([^\s.(]+)\(([^()]*)\)/.exec(line);
    if (!m || !cur) continue;
    const n = /:(\d+)$/.exec(m[3]);
    const lineNo = n ? Number(n[1]) : null;
    cur.push({ className: m[1], method: m[2], line: lineNo === 0 ? null : lineNo });
  }
  return out;
}

const show = (f: Frame) => `${f.className}.${f.method}:${f.line ?? "-"}`;

const corpus = FILES.map((name) => {
  const text = Deno.readTextFileSync(new URL(name, DIR));
  const { ranges: all, unranged } = scanRanges(text);
  const ranges = spread(all, MAX_FRAMES_PER_MAPPING);
  const trace = traceOf(ranges);
  const rendered = retraceText(trace, indexMapping(text)).text;
  const ours = framesByMarker(rendered);
  return { name, text, ranges, unranged, trace, ours, rendered };
});

Deno.test("the mapping corpus holds at least 30 real mappings, each named in SOURCES.md", () => {
  assert(FILES.length >= 30, `${FILES.length} files`);
  const sources = Deno.readTextFileSync(new URL("SOURCES.md", DIR));
  assertEquals(FILES.filter((f) => !sources.includes("`" + f + "`")), []);
  assert(corpus.reduce((n, c) => n + c.ranges.length, 0) > 1_000, "enough ranges to mean much");
});

Deno.test("retraceText() on the mapping corpus: every member range retraces", () => {
  const problems: string[] = [];
  for (const c of corpus) {
    c.ranges.forEach((r, i) => {
      const got = c.ours[i] ?? [];
      const want = { className: r.className, method: r.method, line: r.line };
      if (!got.some((f) => show(f) === show(want))) {
        problems.push(
          `${c.name}: ${r.obfClass}.${r.obf}:${r.min} → ${got.map(show)}, not ${show(want)}`,
        );
      }
    });
  }
  assertEquals(problems.slice(0, 20), [], `${problems.length} ranges do not retrace`);
});

Deno.test("retraceText() on the mapping corpus: every printed frame names a file, none says :0", () => {
  // Issue 24's retrace cosmetics, read off the text as printed: R8's "no line" (original line 0,
  // or a 0:0 range) is a frame without a number, never `:0`; a frame inlined from another class
  // still names a file (its class's sourceFile, else one made from its class name).
  const problems: string[] = [];
  let frames = 0;
  for (const c of corpus) {
    for (const line of c.rendered.split("\n")) {
      const m = /^\s*(?:<OR> )?at [^\s(]+\(([^()]*)\)\s*$/.exec(line);
      if (!m) continue;
      frames++;
      if (/:0$/.test(m[1])) problems.push(`${c.name}: "${line.trim()}" prints line 0`);
      if (m[1] === "" || m[1].startsWith(":")) {
        problems.push(`${c.name}: "${line.trim()}" names no file`);
      }
    }
  }
  assert(frames > 3_000, `${frames} frames printed`);
  assertEquals(problems.slice(0, 20), [], `${problems.length} frames print wrong`);
});

const retrace = await (async () => {
  for (const jar of RETRACE_JARS) {
    if (!(await Deno.stat(jar).then(() => true, () => false))) return `${jar} is missing`;
  }
  const ok = await new Deno.Command("java", { args: ["-version"], stdout: "null", stderr: "null" })
    .output().then((o) => o.success, () => false);
  return ok ? null : "java is missing";
})();
if (retrace) console.error(`mapping_corpus_test: ProGuard ReTrace oracle skipped: ${retrace}`);

Deno.test({
  name: "retraceText() agrees with ProGuard's ReTrace frame by frame on the mapping corpus",
  ignore: retrace !== null,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "keynobi-retrace-oracle-" });
    try {
      const jobs: string[] = [];
      for (const [i, c] of corpus.entries()) {
        await Deno.writeTextFile(`${dir}/${i}.trace`, c.trace);
        jobs.push(
          [new URL(c.name, DIR).pathname, `${dir}/${i}.trace`, `${dir}/${i}.out`].join("\t"),
        );
      }
      await Deno.writeTextFile(`${dir}/jobs`, jobs.join("\n") + "\n");
      const run = await new Deno.Command("java", {
        args: [
          "-cp",
          RETRACE_JARS.join(":"),
          new URL("RetraceOracle.java", import.meta.url).pathname,
          `${dir}/jobs`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert(run.success, new TextDecoder().decode(run.stderr));
      const problems: string[] = [];
      let compared = 0;
      for (const [i, c] of corpus.entries()) {
        const out = await Deno.readTextFile(`${dir}/${i}.out`);
        if (out.startsWith("ORACLE-ERROR")) continue; // ReTrace cannot read it: nothing to compare.
        const printed = framesByMarker(out);
        c.ranges.forEach((r, k) => {
          compared++;
          // Same frames, each once (ReTrace repeats a frame once per overload it fits). ReTrace
          // 6 also offers the members the mapping gives no line range (or R8's `0:0`, no line),
          // which R8's retrace (and keynobi) leave out when a range holds the line, and members
          // R8's metadata marks synthesized, which it cannot read: those extras are no difference.
          const ours = new Set((c.ours[k] ?? []).map(show));
          const theirs = new Set((printed[k] ?? []).map(show));
          const free = c.unranged.get(`${r.obfClass}.${r.obf}`) ?? new Set();
          const extra = [...theirs].filter((f) => !ours.has(f));
          const missing = [...ours].filter((f) => !theirs.has(f));
          const excused = extra.every((f) => free.has(f.slice(0, f.lastIndexOf(":"))));
          if (missing.length > 0 || !excused) {
            problems.push(
              `${c.name}: ${r.obfClass}.${r.obf}:${r.min}: ours ${[...ours].join(" | ")}; ` +
                `ReTrace ${[...theirs].join(" | ")}`,
            );
          }
        });
      }
      assert(compared > 1_000, `${compared} frames compared`);
      assertEquals(problems.slice(0, 20), [], `${problems.length} of ${compared} frames differ`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
