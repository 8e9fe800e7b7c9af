/**
 * Logcat worker benchmark, for `scripts/bench.ts` (tests never assert times). Run as its own
 * process (`deno run --unstable-worker-options --allow-net --allow-read <this> <lines>
 * [--capacity=N] [--root=<checkout>] [file…]`):
 * it serves `lines` real-format lines (the given captures' threadtime lines, repeated, pids and
 * times as printed) from a minimal ADB server on 127.0.0.1, streams them through the real
 * logcat worker, then queries the full buffer with filters. Prints one JSON line.
 */
import { LogcatClient as ThisLogcatClient } from "../lib/logcat/shared/logcat_client.ts";
import {
  emptyParsedLine,
  LineKind,
  parseLineInto,
  trimLineEnd,
} from "../lib/logcat/line_parser.ts";
import { Level } from "../lib/logcat/line_parser.ts";
import { logcatClientPath } from "./bench_common.ts";

/** Most lines one run streams. */
export const MAX_BENCH_LINES = 5_000_000;
/** Ring size for the run (the query budget is for a 100k-entry buffer). */
export const BENCH_RING_ENTRIES = 100_000;
/** Queries timed on the full buffer. */
export const BENCH_QUERIES = 20;
/** Longest the run waits for the worker to read everything. */
export const BENCH_TIMEOUT_MS = 120_000;

const enc = new TextEncoder();
const dec = new TextDecoder();

function hex4(n: number): string {
  return n.toString(16).padStart(4, "0");
}

/** The captures' threadtime lines (CR dropped); synthetic ones when none are given. */
export function benchCorpus(texts: readonly string[]): string[] {
  const out: string[] = [];
  const p = emptyParsedLine();
  for (const t of texts) {
    for (const raw of t.split("\n")) {
      const line = trimLineEnd(raw);
      if (parseLineInto(line, p).kind === LineKind.entry && p.tid >= 0) out.push(line);
    }
  }
  if (out.length === 0) {
    for (let i = 0; i < 1000; i++) {
      out.push(
        `04-04 10:53:33.${String(i).padStart(3, "0")}   542  ${1500 + (i % 40)} ${
          "VDIWE"[i % 5]
        } Tag${i % 37}: message number ${i} with some text`,
      );
    }
  }
  return out;
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

async function readRequest(conn: Deno.Conn, buf: { data: Uint8Array }): Promise<string | null> {
  const need = async (n: number) => {
    while (buf.data.length < n) {
      const chunk = new Uint8Array(65536);
      const k = await conn.read(chunk);
      if (k === null) return false;
      const merged = new Uint8Array(buf.data.length + k);
      merged.set(buf.data);
      merged.set(chunk.subarray(0, k), buf.data.length);
      buf.data = merged;
    }
    return true;
  };
  if (!await need(4)) return null;
  const len = parseInt(dec.decode(buf.data.subarray(0, 4)), 16);
  if (!await need(4 + len)) return null;
  const req = dec.decode(buf.data.subarray(4, 4 + len));
  buf.data = buf.data.slice(4 + len);
  return req;
}

/** A minimal ADB server with one device `bench-1` whose `logcat` prints `payload`. */
function serveAdb(payload: Uint8Array[]): { port: number; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      (async () => {
        const buf = { data: new Uint8Array() };
        try {
          const req = await readRequest(conn, buf);
          if (req === null) return;
          if (req.endsWith(":features")) {
            await conn.write(enc.encode(`OKAY${hex4(0)}`));
          } else if (req === "host:devices-l") {
            const body = "bench-1                device product:bench model:bench device:bench\n";
            await conn.write(enc.encode(`OKAY${hex4(body.length)}${body}`));
          } else if (req.startsWith("host:tport:serial:")) {
            await conn.write(enc.encode("OKAY"));
            await conn.write(new Uint8Array(8));
            const service = await readRequest(conn, buf);
            await conn.write(enc.encode("OKAY"));
            if (service?.startsWith("shell:logcat")) {
              for (const chunk of payload) await writeAll(conn, chunk);
              // Then follow, as a device's logcat does: the stream stays open until the client
              // closes it (a closed stream would also stop the worker's idle-time indexing).
              await conn.read(new Uint8Array(1)).catch(() => null);
            } else if (service?.startsWith("shell:ps")) {
              await conn.write(enc.encode("PID NAME\n  542 system_server\n"));
            }
          } else {
            const msg = "unknown service";
            await conn.write(enc.encode(`FAIL${hex4(msg.length)}${msg}`));
          }
        } catch {
          // The client closed early.
        } finally {
          conns.delete(conn);
          try {
            conn.close();
          } catch { /* closed */ }
        }
      })();
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
    },
  };
}

export interface LogcatBenchResult {
  capacity: number;
  lines: number;
  wall_ms: number;
  lines_per_sec_wall: number;
  worker_ingest_ms: number;
  lines_per_sec_ingest: number;
  stored: number;
  evicted: number;
  crashes: number;
  query_ms_median: number;
  query_ms_max: number;
  query_round_trip_ms_median: number;
  /** The first text query that matches nothing, right after the burst (may build the index). */
  first_miss_query_ms: number;
  /** Whether that first query stopped at its scan bound (partial, with a cursor). */
  first_miss_partial: boolean;
  /** Median of text queries that match nothing, once the idle-time index is built. */
  miss_query_ms_median: number;
  worker_heap_mb: number;
  process_rss_mb: number;
  /** Worker heap + external per stored entry (after forced GCs: full ring minus cleared ring). */
  bytes_per_entry: number | null;
  /** UTF-8 bytes per line of what was streamed. */
  text_bytes_per_line: number;
}

export async function runLogcatBench(
  lines: number,
  texts: readonly string[],
  dataDir: string,
  capacity = BENCH_RING_ENTRIES,
  /** Another checkout whose logcat client and worker to measure (the bench's "before"). */
  root?: string,
): Promise<LogcatBenchResult> {
  const LogcatClient: typeof ThisLogcatClient = root
    ? (await import(logcatClientPath(root.replace(/\/?$/, "/")))).LogcatClient
    : ThisLogcatClient;
  const n = Math.max(1, Math.min(MAX_BENCH_LINES, Math.floor(lines)));
  const corpus = benchCorpus(texts);
  const payload: Uint8Array[] = [];
  let batch: string[] = [];
  for (let i = 0; i < n; i++) {
    batch.push(corpus[i % corpus.length]);
    if (batch.length === 4096) {
      payload.push(enc.encode(batch.join("\n") + "\n"));
      batch = [];
    }
  }
  if (batch.length) payload.push(enc.encode(batch.join("\n") + "\n"));
  const server = serveAdb(payload);
  const client = new LogcatClient({ dataDir, address: { host: "127.0.0.1", port: server.port } });
  try {
    const t0 = performance.now();
    await client.start({ serial: "bench-1", capacity });
    let stats = await client.stats();
    const deadline = Date.now() + BENCH_TIMEOUT_MS;
    while ((stats?.devices[0].lines_read ?? 0) < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      stats = await client.stats();
    }
    const wall = performance.now() - t0;
    const d = stats!.devices[0];
    const miss = async () =>
      (await client.entries({ count: 200, text: "no-such-text-anywhere" })).query_ms;
    const firstAnswer = await client.entries({ count: 200, text: "no-such-text-anywhere" });
    const firstMiss = firstAnswer.query_ms;
    // Let the worker index what the burst wrote (idle time), then time misses again.
    const settle = Date.now() + 10_000;
    while (Date.now() < settle) {
      const st = (await client.stats())!.devices[0] as { text_index_stale_blocks?: number };
      if ((st.text_index_stale_blocks ?? 0) <= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const misses: number[] = [];
    for (let i = 0; i < BENCH_QUERIES; i++) misses.push(await miss());
    const inWorker: number[] = [];
    const roundTrip: number[] = [];
    for (let i = 0; i < BENCH_QUERIES; i++) {
      const q0 = performance.now();
      const r = await client.entries({
        count: 200,
        min_level: i % 2 ? Level.W : Level.D,
        text: i % 3 ? "no-such-text-anywhere" : "a",
        tag: i % 4 === 0 ? "ActivityManager" : undefined,
      });
      roundTrip.push(performance.now() - q0);
      inWorker.push(r.query_ms);
    }
    // What an entry costs: the worker's memory with the ring full, then cleared (forced GCs; only
    // with --v8-flags=--expose-gc and a worker that answers logcat.memory).
    const mem = async () => {
      const m = await (client as { memory?: () => Promise<unknown> }).memory?.().catch(() => null);
      const r = m as { collected: boolean; heap_used_bytes: number; external_bytes: number } | null;
      return r?.collected ? r.heap_used_bytes + r.external_bytes : null;
    };
    const full = await mem();
    await client.clear();
    const empty = await mem();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const round = (x: number) => Math.round(x * 100) / 100;
    return {
      capacity,
      lines: d.lines_read,
      wall_ms: Math.round(wall),
      lines_per_sec_wall: Math.round(d.lines_read / (wall / 1000)),
      worker_ingest_ms: d.ingest_ms,
      lines_per_sec_ingest: Math.round(d.lines_read / (Math.max(1, d.ingest_ms) / 1000)),
      stored: d.stored,
      evicted: d.evicted,
      crashes: d.crashes,
      query_ms_median: round(median(inWorker)),
      query_ms_max: round(Math.max(...inWorker)),
      query_round_trip_ms_median: round(median(roundTrip)),
      first_miss_query_ms: round(firstMiss),
      first_miss_partial: firstAnswer.partial === true,
      miss_query_ms_median: round(median(misses)),
      worker_heap_mb: round(stats!.heap_used_bytes / 1024 / 1024),
      process_rss_mb: round(stats!.rss_bytes / 1024 / 1024),
      bytes_per_entry: full !== null && empty !== null
        ? Math.round((full - empty) / d.stored)
        : null,
      text_bytes_per_line: Math.round(payload.reduce((a, c) => a + c.length, 0) / n),
    };
  } finally {
    await client.close();
    server.close();
  }
}

/** Runs of each side in `runPipelineCpuBench` (interleaved). */
export const PIPELINE_CPU_RUNS = 7;
/**
 * In the "sparse" corpus, the captures' crash lines are kept in one pass over them of this many
 * (dropped in the others): a crash every ~4,200 lines instead of every ~84.
 */
export const SPARSE_CRASH_EVERY_PASSES = 50;

/** The corpora the CPU bench streams: the captures cycled, or with their crashes made rare. */
export type BenchCorpusKind = "dense" | "sparse";

/**
 * `n` lines of the captures, cycled. "dense": as printed (the captures are crash reports: a
 * crash every ~84 lines). "sparse": the lines this tree's pipeline stores as crash lines are kept
 * in one pass of every SPARSE_CRASH_EVERY_PASSES only (everything else of every pass stays).
 */
export async function corpusLines(
  texts: readonly string[],
  n: number,
  kind: BenchCorpusKind,
): Promise<string[]> {
  const corpus = benchCorpus(texts);
  let plain = corpus;
  if (kind === "sparse") {
    const { DevicePipeline } = await import("../lib/logcat/pipeline.ts");
    const { EntryFlag } = await import("../lib/logcat/ring_store.ts");
    const p = new DevicePipeline("bench-1", { capacity: corpus.length + 1 });
    for (const l of corpus) p.ingestLine(l);
    const s = p.store;
    plain = corpus.filter((_, i) => !(s.flags[s.slot(i)] & EntryFlag.crash));
  }
  const out: string[] = [];
  for (let pass = 0; out.length < n; pass++) {
    const lines = kind === "dense" || pass % SPARSE_CRASH_EVERY_PASSES === 0 ? corpus : plain;
    for (let i = 0; i < lines.length && out.length < n; i++) out.push(lines[i]);
  }
  return out;
}

export interface PipelineCpuResult {
  lines: number;
  corpus: BenchCorpusKind;
  /** Crashes the newest side's pipeline read (kept and dropped). */
  crashes: number;
  /** Per checkout: the median CPU ms of its runs and the lines per CPU second. */
  sides: {
    root: string;
    cpu_ms_median: number;
    lines_per_cpu_sec: number;
    runs_ms: number[];
    /** Whether its reads were joined as its worker joins queued ones (queued_reads.ts). */
    joined_reads: boolean;
  }[];
}

/**
 * Ingest alone (parse, classify, store: `DevicePipeline.ingestText`), timed by the process's CPU
 * time around each chunk — on a machine others load, CPU time moves far less than wall time. The
 * corpus goes as a device sends it (4,096-line writes read 64 KiB at a time, decoded as a stream;
 * in a tree whose worker joins queued reads, joined as it joins them, all of them queued as in a
 * burst); decoding is not timed. Each checkout's pipeline is loaded in this one process and the
 * runs alternate between them, so load falls on both alike.
 */
export async function runPipelineCpuBench(
  lines: number,
  texts: readonly string[],
  roots: readonly string[],
  capacity = BENCH_RING_ENTRIES,
  runs = PIPELINE_CPU_RUNS,
  kind: BenchCorpusKind = "dense",
): Promise<PipelineCpuResult> {
  const n = Math.max(1, Math.min(MAX_BENCH_LINES, Math.floor(lines)));
  const all = await corpusLines(texts, n, kind);
  const reads: Uint8Array[] = [];
  let batch: string[] = [];
  const flush = () => {
    const b = enc.encode(batch.join("\n") + "\n");
    for (let o = 0; o < b.length; o += 65_536) reads.push(b.subarray(o, o + 65_536));
    batch = [];
  };
  for (let i = 0; i < n; i++) {
    batch.push(all[i]);
    if (batch.length === 4096) flush();
  }
  if (batch.length) flush();
  let crashes = 0;
  const mods = await Promise.all(
    roots.map((r) => import(`${r.replace(/\/?$/, "/")}lib/logcat/pipeline.ts`)),
  );
  // Each side reads as its own worker does: a tree with queued_reads.ts joins the chunks queued
  // behind one (a burst: here every read is queued), an older one decodes each 64 KiB read.
  const joiners = await Promise.all(roots.map(async (r) => {
    const path = `${r.replace(/\/?$/, "/")}lib/logcat/queued_reads.ts`;
    try {
      Deno.statSync(path);
    } catch {
      return null;
    }
    return (await import(path)).QueuedReads as new (
      reader: ReadableStreamDefaultReader<Uint8Array>,
    ) => { read(): Promise<Uint8Array | null> };
  }));
  const times: number[][] = roots.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < roots.length; k++) {
      const p = new mods[k].DevicePipeline("bench-1", { capacity });
      p.applyProcessList([{ pid: 542, name: "system_server" }]);
      const d = new TextDecoder();
      let us = 0;
      const Join = joiners[k];
      let next: () => Promise<Uint8Array | null>;
      if (Join === null) {
        let i = 0;
        next = () => Promise.resolve(i < reads.length ? reads[i++] : null);
      } else {
        const stream = new ReadableStream<Uint8Array>({
          start(c) {
            for (const b of reads) c.enqueue(b);
            c.close();
          },
        });
        const joined = new Join(stream.getReader());
        next = () => joined.read();
      }
      for (let b = await next(); b !== null; b = await next()) {
        const text = d.decode(b, { stream: true });
        const u0 = process.cpuUsage();
        p.ingestText(text);
        const u = process.cpuUsage(u0);
        us += u.user + u.system;
      }
      times[k].push(us / 1000);
      crashes = p.crashes.length +
        [...p.droppedGroups.values()].reduce((a: number, g: { count: number }) => a + g.count, 0);
    }
  }
  return {
    lines: n,
    corpus: kind,
    crashes,
    sides: roots.map((root, k) => {
      const sorted = [...times[k]].sort((a, b) => a - b);
      const med = sorted[Math.floor(sorted.length / 2)];
      return {
        root,
        cpu_ms_median: Math.round(med),
        lines_per_cpu_sec: Math.round(n / (med / 1000)),
        runs_ms: times[k].map(Math.round),
        joined_reads: joiners[k] !== null,
      };
    }),
  };
}

if (import.meta.main) {
  const opt = (name: string) =>
    Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const [count, ...files] = Deno.args.filter((a) => !a.startsWith("--"));
  const capacity = Number(opt("capacity") ?? BENCH_RING_ENTRIES);
  const root = opt("root");
  const texts = files.map((f) => Deno.readTextFileSync(f));
  const cpuRoots = opt("pipeline-cpu");
  if (cpuRoots !== undefined) {
    // --pipeline-cpu=<checkout>[,<checkout>…]: ingest alone by CPU time (no worker, no server);
    // --corpus=dense|sparse (see corpusLines).
    const kind = opt("corpus") === "sparse" ? "sparse" : "dense";
    const r = await runPipelineCpuBench(
      Number(count) || 1_000_000,
      texts,
      cpuRoots.split(","),
      BENCH_RING_ENTRIES,
      PIPELINE_CPU_RUNS,
      kind,
    );
    console.log(JSON.stringify(r));
    Deno.exit(0);
  }
  const dataDir = await Deno.makeTempDir({ prefix: "keynobi-logcat-bench-" });
  try {
    const r = await runLogcatBench(Number(count) || 1_000_000, texts, dataDir, capacity, root);
    console.log(JSON.stringify(r));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}
