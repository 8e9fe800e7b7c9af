/**
 * Retrace figures for `scripts/bench.ts` (tests never assert times or memory): a synthetic R8
 * mapping (classes with line-ranged methods, inline chains and Kotlin source files, written to a
 * file in chunks) and 1,000-frame traces against it, in one process per side:
 * - after (default): through the real retrace worker (lib/retrace/shared/retrace_client.ts), the
 *   mapping kept in a data directory as a build keeps it: the first retrace (read, index,
 *   retrace), the same trace again, a new trace with the mapping cached, the process's RSS growth
 *   per cached mapping after a collection, and the main thread's longest stall (a 1 ms timer's
 *   largest gap) while the worker reads and indexes — what every other session's call would wait;
 * - before (`--before <tree>`): the same with the in-process retrace of an older tree
 *   (`lib/retrace/mapping.ts` indexing a string on the main thread), imported from that tree.
 * One JSON line on stdout. Run with `--v8-flags=--expose-gc` so RSS is read after a collection.
 * Budgets (DESIGN.md): first ≤ 1 s, cached ≤ 5 ms, a new trace on a cached mapping ≤ 5 ms,
 * ≤ 4× the mapping file per cached mapping, never on the main thread.
 */

import { extractTree } from "./bench_common.ts";

const dec = new TextDecoder();

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

/** The blocks of a mapping of about `targetBytes`, in order, ending when it is reached. */
function* syntheticBlocks(targetBytes: number): Generator<string, number> {
  // A block is ~1.4 KB: stopping 4 KB short keeps the largest mapping within the 512 MiB limit.
  const target = Math.min(targetBytes, MAX_BENCH_MAPPING_BYTES) - 4096;
  const parts: string[] = [
    "# compiler: R8",
    "# compiler_version: 8.5.35",
    "# min_api: 24",
    '# {"id":"com.android.tools.r8.mapping","version":"2.2"}',
    "# pg_map_id: 5ee95f8",
    "# pg_map_hash: SHA-256 5ee95f8cd2f0db48dd985b6c8c6e84c27bfa60005ee95f8cd2f0db48dd985b6c",
  ];
  yield parts.join("\n") + "\n";
  let bytes = parts.join("\n").length + 1;
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
    const text = block.join("\n") + "\n";
    yield text;
    bytes += text.length;
    i++;
  }
  return i;
}

/** A mapping of about `targetBytes`: each class has 12 methods, every third with an inline chain. */
export function syntheticMapping(targetBytes = 50 * 1024 * 1024): SyntheticMapping {
  const parts: string[] = [];
  const gen = syntheticBlocks(targetBytes);
  let r = gen.next();
  while (!r.done) {
    parts.push(r.value);
    r = gen.next();
  }
  const text = parts.join("");
  return { text, classes: r.value, bytes: text.length };
}

/** The same mapping written to `path` in chunks (never one string of it all). */
export async function writeSyntheticMapping(
  path: string,
  targetBytes: number,
): Promise<{ classes: number; bytes: number }> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let bytes = 0;
  try {
    const gen = syntheticBlocks(targetBytes);
    let chunk: string[] = [];
    let size = 0;
    let r = gen.next();
    while (!r.done) {
      chunk.push(r.value);
      size += r.value.length;
      if (size > 4 * 1024 * 1024) {
        const b = enc.encode(chunk.join(""));
        for (let off = 0; off < b.length;) off += await file.write(b.subarray(off));
        bytes += b.length;
        chunk = [];
        size = 0;
      }
      r = gen.next();
    }
    const b = enc.encode(chunk.join(""));
    for (let off = 0; off < b.length;) off += await file.write(b.subarray(off));
    bytes += b.length;
    return { classes: r.value, bytes };
  } finally {
    file.close();
  }
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
  side: "before" | "after";
  mappingBytes: number;
  classes: number;
  frames: number;
  /** Read + index + retrace of a first trace (median of `firstRuns` fresh loads). */
  firstMs: number;
  /** The same trace again, the mapping cached (median). */
  cachedMedianMs: number;
  cachedP90Ms: number;
  /** A trace never seen before, the mapping cached (median; new frames each run). */
  newTraceMedianMs: number;
  /** RSS growth of the process per cached mapping, after a collection. */
  rssPerMappingBytes: number;
  /** After: the same cached trace's retrace time inside the worker (median). */
  workerRetraceMedianMs: number | null;
  /** A one-frame retrace with a tiny mapping (after: one worker crossing; before: a call). */
  tinyCallMedianMs: number;
  /** The same after all the traces (parsed classes and remembered frames grown). */
  rssAfterTracesBytes: number;
  /** The main thread's longest stall while the mapping is read and indexed. */
  mainStallMs: number;
  /** Whether RSS was read after a collection (`--v8-flags=--expose-gc`). */
  collected: boolean;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function gcNow(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function") return false;
  gc();
  gc();
  return true;
}

/** The longest gap between ticks of a 1 ms timer while `work` runs. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    worst = Math.max(worst, performance.now() - last);
    return { value, stallMs: worst };
  } finally {
    clearInterval(timer);
  }
}

/** The after side's retrace times inside the worker, per cached call. */
const workerMs: number[] = [];

interface Side {
  /** Mappings held now. */
  held(): Promise<number>;
  /** Start what a process starts anyway (the worker, with a tiny mapping), nothing of the big one. */
  warm(): Promise<void>;
  /** Read, index and retrace `trace` with a fresh load of the mapping. */
  fresh(trace: string): Promise<void>;
  /** Retrace with the mapping loaded. */
  cached(trace: string): Promise<void>;
  close(): void;
}

async function afterSide(path: string, loads: number): Promise<Side> {
  const { RetraceClient } = await import("../lib/retrace/shared/retrace_client.ts");
  const { sha256Hex } = await import("../lib/core/hash.ts");
  const data = await Deno.makeTempDir({ prefix: "keynobi-bench-retrace-" });
  await Deno.mkdir(`${data}/mappings`);
  // One name per fresh load (the worker caches by name): hard links of the same file.
  const sha = await sha256Hex(await Deno.readFile(path));
  const names = Array.from({ length: loads }, (_, k) => `${k}`.padStart(4, "0") + sha.slice(4));
  for (const n of names) await Deno.link(path, `${data}/mappings/${n}.txt`);
  await Deno.remove(path);
  const tiny = "com.example.Tiny -> t:\n    1:1:void run():3:3 -> a\n";
  const tinySha = await sha256Hex(new TextEncoder().encode(tiny));
  await Deno.writeTextFile(`${data}/mappings/${tinySha}.txt`, tiny);
  const client = new RetraceClient({ dataDir: data });
  let at = -1;
  workerMs.length = 0;
  return {
    async held() {
      // Not the tiny one.
      const held = (await client.memory())?.cache.mappings ?? [];
      return Math.max(1, held.filter((m) => m.file_bytes > 1024).length);
    },
    async warm() {
      await client.run({
        mapping: { kind: "kept", sha256: tinySha },
        traces: ["\tat t.a(SourceFile:1)"],
      });
    },
    async fresh(trace) {
      at++;
      await client.run({ mapping: { kind: "kept", sha256: names[at] }, traces: [trace] });
    },
    async cached(trace) {
      const r = await client.run({
        mapping: { kind: "kept", sha256: names[at] },
        traces: [trace],
      });
      workerMs.push(r.retrace_ms);
    },
    close() {
      client.close();
      Deno.remove(data, { recursive: true }).catch(() => {});
    },
  };
}

async function beforeSide(path: string, tree: string): Promise<Side> {
  const m = await import(`${tree}/lib/retrace/mapping.ts`);
  const r = await import(`${tree}/lib/retrace/retrace_text.ts`);
  let index: unknown = null;
  return {
    held: () => Promise.resolve(1),
    async warm() {
      r.retraceText("\tat t.a(SourceFile:1)", m.indexMapping("com.example.Tiny -> t:\n"));
      await Promise.resolve();
    },
    async fresh(trace) {
      index = null;
      // As the old lib/retrace/mapping_store.ts loaded it: the file as text, indexed in process.
      index = m.indexMapping(await Deno.readTextFile(path));
      r.retraceText(trace, index);
    },
    cached(trace) {
      r.retraceText(trace, index);
      return Promise.resolve();
    },
    close() {
      Deno.remove(path).catch(() => {});
    },
  };
}

/** Measures one side; see the module comment. */
export async function benchRetrace(
  opts: { bytes: number; before?: string; frames?: number; firstRuns?: number; runs?: number },
): Promise<RetraceBenchResult> {
  const path = await Deno.makeTempFile({ prefix: "keynobi-mapping-", suffix: ".txt" });
  const mapping = await writeSyntheticMapping(path, opts.bytes);
  const frames = opts.frames ?? 1_000;
  const trace = syntheticTrace(mapping.classes, frames);
  const firstRuns = opts.firstRuns ?? 3;
  const side = opts.before ? await beforeSide(path, opts.before) : await afterSide(path, firstRuns);
  try {
    await side.warm();
    // What one crossing costs on this machine now (a one-frame trace, a tiny mapping).
    const rpc: number[] = [];
    for (let k = 0; k < 50; k++) {
      const t0 = performance.now();
      await side.warm();
      rpc.push(performance.now() - t0);
    }
    const collected = gcNow();
    const rss0 = Deno.memoryUsage().rss;
    const first: number[] = [];
    let stall = 0;
    for (let k = 0; k < firstRuns; k++) {
      const t0 = performance.now();
      const s = await longestStall(() => side.fresh(trace));
      first.push(performance.now() - t0);
      stall = Math.max(stall, s.stallMs);
    }
    gcNow();
    // The worker keeps the fresh loads its budget and count allow; the old code kept one.
    const held = await side.held();
    const rssPerMapping = (Deno.memoryUsage().rss - rss0) / held;
    // Ten unmeasured runs first: the collector's work left by the load is done by then.
    for (let k = 0; k < 10; k++) await side.cached(trace);
    const cached: number[] = [];
    const runs = Math.min(opts.runs ?? 100, MAX_BENCH_RUNS);
    for (let k = 0; k < runs; k++) {
      const t0 = performance.now();
      await side.cached(trace);
      cached.push(performance.now() - t0);
    }
    const fresh: number[] = [];
    // Made before they are timed: writing a trace's 1,000 lines left garbage the main thread
    // collected while the answer crossed back, ~0.3–0.4 ms of each timed run.
    const others = Array.from(
      { length: Math.min(runs, 30) },
      (_, k) => syntheticTrace(mapping.classes, frames, 1_000 + k),
    );
    gcNow();
    for (const other of others) {
      const t0 = performance.now();
      await side.cached(other);
      fresh.push(performance.now() - t0);
    }
    gcNow();
    const rssAfterTraces = (Deno.memoryUsage().rss - rss0) / held;
    const sorted = [...cached].sort((a, b) => a - b);
    return {
      rssAfterTracesBytes: rssAfterTraces,
      tinyCallMedianMs: median(rpc),
      workerRetraceMedianMs: workerMs.length ? median(workerMs.slice(10, 110)) : null,
      side: opts.before ? "before" : "after",
      mappingBytes: mapping.bytes,
      classes: mapping.classes,
      frames,
      firstMs: median(first),
      cachedMedianMs: median(cached),
      cachedP90Ms: sorted[Math.floor(sorted.length * 0.9)],
      newTraceMedianMs: median(fresh),
      rssPerMappingBytes: rssPerMapping,
      mainStallMs: stall,
      collected,
    };
  } finally {
    side.close();
  }
}

/** The tree whose retrace ran on the main thread, indexing a string (the "before" side). */
export const RETRACE_BEFORE_REF = "0bb6789";

/**
 * Retrace of 1,000-frame traces against a generated 50 MB R8 mapping, before (RETRACE_BEFORE_REF:
 * in process, on the main thread) → after (the retrace worker), each side in its own process
 * (scripts/bench_retrace.ts), so its RSS is the retracer's: first retrace, cached, a new trace,
 * memory per cached mapping, and the main thread's longest stall while the mapping is indexed
 * (what another session's call waits). BENCH_RETRACE_MAX=1 adds the after side at the 512 MB
 * limit.
 */
export async function benchRetraceRows(): Promise<
  { what: string; value: string; budget: string }[]
> {
  const script = new URL(import.meta.url).pathname;
  const run = async (bytes: number, before: string | null) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        "--unstable-worker-options",
        "--v8-flags=--expose-gc",
        script,
        String(bytes),
        ...(before ? ["--before", before] : []),
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(dec.decode(out.stderr).slice(-400));
    return JSON.parse(dec.decode(out.stdout).trim().split("\n").at(-1)!);
  };
  const tree = await extractTree(RETRACE_BEFORE_REF, "keynobi-bench-retrace-before-");
  let after, before;
  try {
    after = await run(50 * 1024 * 1024, null);
    before = tree ? await run(50 * 1024 * 1024, tree) : null;
  } catch (e) {
    return [{ what: "retrace bench", value: `failed: ${(e as Error).message}`, budget: "—" }];
  } finally {
    if (tree) await Deno.remove(tree, { recursive: true }).catch(() => {});
  }
  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  const ms = (n: number) => n < 10 ? n.toFixed(2) : n.toFixed(0);
  const both = (f: (r: Record<string, number>) => string) =>
    before ? `${f(before)} → ${f(after)}` : f(after);
  const rows = [
    {
      what: `retrace first, ${after.frames} frames, ${mb(after.mappingBytes)} MB mapping`,
      value: `${
        both((r) => `${ms(r.firstMs)} ms`)
      } (read, index, retrace; ${after.classes} classes)`,
      budget: "1 s",
    },
    {
      what: "retrace cached, same trace and mapping",
      value: `${both((r) => `${ms(r.cachedMedianMs)} ms`)} median (in the worker ${
        ms(after.workerRetraceMedianMs ?? 0)
      } ms; a tiny crossing ${ms(after.tinyCallMedianMs)} ms)`,
      budget: "5 ms",
    },
    {
      what: "retrace of a new 1,000-frame trace, mapping cached",
      value: `${both((r) => `${ms(r.newTraceMedianMs)} ms`)} median`,
      budget: "5 ms",
    },
    {
      what: "retrace memory per cached mapping (RSS, after GC)",
      value: `${both((r) => `${mb(r.rssPerMappingBytes)} MB`)} after one trace, ${
        both((r) => `${mb(r.rssAfterTracesBytes)} MB`)
      } after 140 traces (file ${mb(after.mappingBytes)} MB)`,
      budget: "4× the file",
    },
    {
      what: "main thread's longest stall while a mapping indexes",
      value: `${both((r) => `${ms(r.mainStallMs)} ms`)} (every other session's call waits this)`,
      budget: "never on the main thread",
    },
  ];
  if (Deno.env.get("BENCH_RETRACE_MAX") === "1") {
    try {
      const max = await run(512 * 1024 * 1024, null);
      rows.push({
        what: `retrace at the limit, ${mb(max.mappingBytes)} MB mapping (after)`,
        value: `first ${ms(max.firstMs)} ms, new trace ${ms(max.newTraceMedianMs)} ms, ` +
          `${mb(max.rssPerMappingBytes)} MB per cached mapping, main stall ${
            ms(max.mainStallMs)
          } ms`,
        budget: "4× the file",
      });
    } catch (e) {
      rows.push({
        what: "retrace at the limit",
        value: `failed: ${(e as Error).message}`,
        budget: "—",
      });
    }
  }
  return rows;
}

if (import.meta.main && Deno.args[0] === "--rows") {
  for (const r of await benchRetraceRows()) {
    console.log(`${r.what}  ${r.value}  (budget ${r.budget})`);
  }
  Deno.exit(0);
}

if (import.meta.main) {
  // `deno run --allow-all --unstable-worker-options --v8-flags=--expose-gc
  //  scripts/bench_retrace.ts [bytes] [--before <tree>]`: one JSON line; `--rows`: the rows.
  const at = Deno.args.indexOf("--before");
  const before = at >= 0 ? Deno.args[at + 1] : undefined;
  const bytes = Number(
    Deno.args.find((a, i) => /^\d+$/.test(a) && (at < 0 || i !== at + 1)) ?? 50 * 1024 * 1024,
  );
  const r = await benchRetrace({ bytes, before });
  console.log(JSON.stringify(r));
  Deno.exit(0);
}
