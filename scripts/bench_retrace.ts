/**
 * Retrace timings for `scripts/bench.ts` (tests never assert times): a synthetic R8 mapping of about
 * 50 MB (classes with line-ranged methods, inline chains and Kotlin source files) and a 1,000-frame
 * trace against it. Measures the first retrace (index the mapping text, parse the classes the trace
 * names, retrace) and the cached one (the same mapping already indexed), and the RSS after.
 * Budget (DESIGN.md): first ≤ 1 s, cached ≤ 5 ms.
 */
import { indexMapping } from "../lib/retrace/mapping_index.ts";
import { retraceText } from "../lib/retrace/retrace_text.ts";

/** Largest mapping the bench generates. */
export const MAX_BENCH_MAPPING_BYTES = 512 * 1024 * 1024;
/** Runs of the cached retrace, at most. */
export const MAX_BENCH_RUNS = 1_000;

/** Deterministic pseudo-random numbers (xorshift32), so every run measures the same input. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

/** The obfuscated name of class `i`: `a`, `b`, … `a.ab` — as R8's minifier names them. */
function obfName(i: number): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let s = "";
  let n = i;
  do {
    s = letters[n % 26] + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `o.${s}`;
}

export interface SyntheticMapping {
  text: string;
  classes: number;
  bytes: number;
}

/** A mapping of about `targetBytes`: each class has 12 methods, every third with an inline chain. */
export function syntheticMapping(targetBytes = 50 * 1024 * 1024): SyntheticMapping {
  const target = Math.min(targetBytes, MAX_BENCH_MAPPING_BYTES);
  const parts: string[] = [
    "# compiler: R8",
    "# compiler_version: 8.5.35",
    "# min_api: 24",
    '# {"id":"com.android.tools.r8.mapping","version":"2.2"}',
    "# pg_map_id: 5ee95f8",
    "# pg_map_hash: SHA-256 5ee95f8cd2f0db48dd985b6c8c6e84c27bfa60005ee95f8cd2f0db48dd985b6c",
  ];
  let bytes = parts.join("\n").length;
  let i = 0;
  while (bytes < target) {
    const pkg = `com.example.feature${i % 97}.sub${i % 13}`;
    const cls = `${pkg}.Class${i}`;
    const block: string[] = [
      `${cls} -> ${obfName(i)}:`,
      `# {"id":"sourceFile","fileName":"Class${i}.kt"}`,
      `    java.lang.String name -> a`,
      `    int count -> b`,
    ];
    for (let m = 0; m < 12; m++) {
      const start = m * 10 + 1;
      const orig = 20 + m * 15;
      if (m % 3 === 0) {
        block.push(
          `    ${start}:${start + 3}:void method${m}(java.lang.String,int):${orig}:${orig + 3} -> ${
            String.fromCharCode(97 + (m % 5))
          }`,
          `    ${start + 4}:${start + 4}:int ${pkg}.Helper${i % 50}.help(int):${7 + m}:${
            7 + m
          } -> ${String.fromCharCode(97 + (m % 5))}`,
          `    ${start + 4}:${start + 4}:void method${m}(java.lang.String,int):${orig + 4} -> ${
            String.fromCharCode(97 + (m % 5))
          }`,
        );
      } else {
        block.push(
          `    ${start}:${start + 8}:java.util.List method${m}(android.os.Bundle):${orig}:${
            orig + 8
          } -> ${String.fromCharCode(97 + (m % 5))}`,
        );
      }
    }
    const text = block.join("\n");
    parts.push(text);
    bytes += text.length + 1;
    i++;
  }
  const text = parts.join("\n") + "\n";
  return { text, classes: i, bytes: text.length };
}

/** A Java crash of `frames` frames whose classes are spread over the mapping's `classes`. */
export function syntheticTrace(classes: number, frames = 1_000, seed = 7): string {
  const r = rng(seed);
  const lines = [
    "FATAL EXCEPTION: main",
    "Process: com.example, PID: 4242",
    "java.lang.IllegalStateException: boom",
  ];
  for (let k = 0; k < frames; k++) {
    if (k % 10 === 9) {
      lines.push("\tat android.os.Handler.dispatchMessage(Handler.java:107)");
      continue;
    }
    const c = Math.floor(r() * classes);
    const m = Math.floor(r() * 12);
    const line = m * 10 + 1 + Math.floor(r() * 5);
    lines.push(
      `\tat ${obfName(c)}.${String.fromCharCode(97 + (m % 5))}(r8-map-id-5ee95f8:${line})`,
    );
  }
  return lines.join("\n");
}

export interface RetraceBenchResult {
  mappingBytes: number;
  /** Reading the mapping file from disk (median), when a path was given. */
  readMs: number | null;
  classes: number;
  frames: number;
  /** Index the text + parse the named classes + retrace, once per fresh index (median of runs). */
  firstMs: number;
  /** Of which: indexing the mapping text. */
  indexMs: number;
  /** The same trace against the already indexed mapping (median). */
  cachedMedianMs: number;
  cachedP90Ms: number;
  /** A trace never seen before against the already indexed mapping (median; new frames each run). */
  newTraceMedianMs: number;
  rssBytes: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Measures `firstRuns` cold retraces and `runs` cached ones of a 1,000-frame trace. */
export function benchRetrace(
  mapping: SyntheticMapping,
  opts: { frames?: number; firstRuns?: number; runs?: number; path?: string } = {},
): RetraceBenchResult {
  const trace = syntheticTrace(mapping.classes, opts.frames ?? 1_000);
  const first: number[] = [];
  const index: number[] = [];
  const reads: number[] = [];
  let idx = indexMapping(mapping.text);
  for (let k = 0; k < (opts.firstRuns ?? 5); k++) {
    let text = mapping.text;
    let readMs = 0;
    if (opts.path) {
      const r0 = performance.now();
      text = Deno.readTextFileSync(opts.path);
      readMs = performance.now() - r0;
      reads.push(readMs);
    }
    const t0 = performance.now() - readMs;
    idx = indexMapping(text);
    const t1 = performance.now();
    retraceText(trace, idx);
    first.push(performance.now() - t0);
    index.push(t1 - t0 - readMs);
  }
  const cached: number[] = [];
  const runs = Math.min(opts.runs ?? 200, MAX_BENCH_RUNS);
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    retraceText(trace, idx);
    cached.push(performance.now() - t0);
  }
  const fresh: number[] = [];
  for (let k = 0; k < Math.min(runs, 50); k++) {
    const other = syntheticTrace(mapping.classes, opts.frames ?? 1_000, 1_000 + k);
    const t0 = performance.now();
    retraceText(other, idx);
    fresh.push(performance.now() - t0);
  }
  const sorted = [...cached].sort((a, b) => a - b);
  return {
    mappingBytes: mapping.bytes,
    readMs: reads.length ? median(reads) : null,
    classes: mapping.classes,
    frames: opts.frames ?? 1_000,
    firstMs: median(first),
    indexMs: median(index),
    cachedMedianMs: median(cached),
    cachedP90Ms: sorted[Math.floor(sorted.length * 0.9)],
    newTraceMedianMs: median(fresh),
    rssBytes: Deno.memoryUsage().rss,
  };
}

if (import.meta.main) {
  // `deno run --allow-read --allow-write scripts/bench_retrace.ts [bytes]`: one JSON line.
  const mapping = syntheticMapping(Number(Deno.args[0] ?? 50 * 1024 * 1024));
  const path = await Deno.makeTempFile({ prefix: "keynobi-mapping-", suffix: ".txt" });
  try {
    await Deno.writeTextFile(path, mapping.text);
    const r = benchRetrace(mapping, { path });
    console.log(JSON.stringify(r));
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}
