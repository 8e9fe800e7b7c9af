/**
 * Issue 9's figures for `deno task bench`, before → after in one run: the logcat soak (RSS and
 * worker heap at 0 / 1M / 2M lines), logcat ingest and queries (100k- and 1M-entry buffers),
 * memory per stored entry, and screenshots (processing alone and through MCP).
 *
 * "Before" is the tree at `BEFORE_REF` (main just before issue 9), extracted from git into a
 * temp dir and run by the same drivers with `--root`; a memory probe (`logcat.memory`, a forced
 * GC in the worker) is added to that copy so both sides are measured the same way. Without git
 * (or `BENCH_BEFORE=0`) only "after" is measured.
 */
import { childEnv } from "../tests/child_env.ts";
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import type { Simulator } from "../tests/sim/mod.ts";
import { PIPELINE_CPU_RUNS, SPARSE_CRASH_EVERY_PASSES } from "./bench_logcat.ts";
import { logcatClientPath } from "./bench_common.ts";

/** The commit issue 9 started from. */
export const BEFORE_REF = "24cc107";
/** Main when this session's ingest work started (the CPU-time ingest rows show it too). */
export const SESSION_REF = "0fe3cf2";
/** Lines of the full soak; checkpoints at 0, half and all of it. */
const SOAK_LINES = Number(Deno.env.get("BENCH_SOAK_LINES") ?? 2_000_000);
/** Lines of each ingest run (real captures, repeated). */
const INGEST_LINES = Number(Deno.env.get("BENCH_INGEST_LINES") ?? 1_000_000);
/** Screenshot calls timed through MCP per side. */
const SHOT_RUNS = Number(Deno.env.get("BENCH_SHOT_RUNS") ?? 15);

type Row = { what: string; value: string; budget: string };
const dec = new TextDecoder();
const repo = new URL("../", import.meta.url).pathname;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The tree at BEFORE_REF with the memory probe added, or null when git cannot give it. */
async function prepareBefore(): Promise<string | null> {
  if (Deno.env.get("BENCH_BEFORE") === "0") return null;
  const dir = await Deno.makeTempDir({ prefix: "keynobi-before-" });
  const sh = await new Deno.Command("sh", {
    args: ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", repo, BEFORE_REF, dir],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!sh.success) return null;
  const probe = `(() => { const g = (globalThis as { gc?: () => void }).gc; g?.(); g?.(); ` +
    `const m = Deno.memoryUsage(); return { collected: typeof g === "function", ` +
    `heap_used_bytes: m.heapUsed, heap_total_bytes: m.heapTotal, external_bytes: m.external, ` +
    `rss_bytes: m.rss }; }) as never`;
  const worker = `${dir}/workers/logcat.ts`;
  const client = logcatClientPath(`${dir}/`);
  const w = await Deno.readTextFile(worker);
  const c = await Deno.readTextFile(client);
  const wAnchor = `  "logcat.shutdown": async () => ({ stopped: await service.shutdown() }),`;
  const cAnchor = `  /** Stops every stream, then the worker. */`;
  if (!w.includes(wAnchor) || !c.includes(cAnchor)) return null;
  await Deno.writeTextFile(
    worker,
    w.replace(wAnchor, `${wAnchor}\n  // bench probe\n  "logcat.memory": ${probe},`),
  );
  await Deno.writeTextFile(
    client,
    c.replace(
      cAnchor,
      `  // bench probe\n  memory(): Promise<unknown> {\n    return this.running\n` +
        `      ? (this.#worker as unknown as { request(m: string, p: null, o: object): ` +
        `Promise<unknown> }).request("logcat.memory", null, { timeoutMs: QUERY_TIMEOUT_MS })\n` +
        `      : Promise.resolve(null);\n  }\n\n${cAnchor}`,
    ),
  );
  return dir;
}

/** The tree at `ref` as extracted from git (no probe), or null when git cannot give it. */
async function extractTree(ref: string): Promise<string | null> {
  if (Deno.env.get("BENCH_BEFORE") === "0") return null;
  const dir = await Deno.makeTempDir({ prefix: `keynobi-${ref}-` });
  const sh = await new Deno.Command("sh", {
    args: ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", repo, ref, dir],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (sh.success) return dir;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return null;
}

async function runJson(args: string[]): Promise<Record<string, unknown> | string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  if (!out.success) {
    return `failed: ${dec.decode(out.stderr).trim().split("\n").slice(-3).join(" ")}`;
  }
  return JSON.parse(dec.decode(out.stdout).trim().split("\n").at(-1)!);
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

async function soak(root: string | null) {
  const script = `${repo}tests/logcat/logcat_soak.ts`;
  return await runJson([
    "run",
    "--v8-flags=--expose-gc",
    "--unstable-worker-options",
    ...RUN_FLAGS.filter((f) => f !== "--unstable-worker-options"),
    script,
    "--lines",
    String(SOAK_LINES),
    "--checkpoints",
    `0,${SOAK_LINES / 2},${SOAK_LINES}`,
    "--capacity",
    "100000",
    "--sim-process",
    ...(root ? ["--root", root] : []),
  ]);
}

function realCaptures(): string[] {
  const real = new URL("../../shared/fixtures/real/logcat/", import.meta.url).pathname;
  return [
    "fatal_exception_caused_by_chain_threadtime.txt",
    "microg_fatal_exception_unknown_source_threadtime_trimmed.txt",
    "long_boot_log_lineageos_crlf_with_native_crash_trimmed.txt",
    "system_server_crash_loop_crash_buffer_trimmed.txt",
  ].map((f) => real + f).filter((f) => {
    try {
      return Deno.statSync(f).isFile;
    } catch {
      return false;
    }
  });
}

async function ingest(root: string | null, capacity: number) {
  const script = `${repo}scripts/bench_logcat.ts`;
  return await runJson([
    "run",
    "--v8-flags=--expose-gc",
    "--unstable-worker-options",
    "--allow-net=127.0.0.1",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    script,
    String(INGEST_LINES),
    `--capacity=${capacity}`,
    ...(root ? [`--root=${root}`] : []),
    ...realCaptures(),
  ]);
}

/**
 * Ingest alone by CPU time, the given trees and this one interleaved in one process
 * (bench_logcat.ts), on the dense or sparse corpus.
 */
async function pipelineCpu(roots: string[], corpus: "dense" | "sparse") {
  return await runJson([
    "run",
    "--allow-read",
    `${repo}scripts/bench_logcat.ts`,
    String(INGEST_LINES),
    `--pipeline-cpu=${[...roots, repo].join(",")}`,
    `--corpus=${corpus}`,
    ...realCaptures(),
  ]);
}

/** "before → after" of one field, or the after value alone. */
function pair(
  before: Record<string, unknown> | string | null,
  after: Record<string, unknown> | string,
  f: (r: Record<string, unknown>) => string,
): string {
  const a = typeof after === "string" ? after : f(after);
  if (before === null) return a;
  return `${typeof before === "string" ? before : f(before)} → ${a}`;
}

type Pt = {
  lines: number;
  worker_heap_used_bytes: number;
  worker_external_bytes: number;
  rss_bytes: number;
};

async function logcatRows(before: string | null): Promise<Row[]> {
  const rows: Row[] = [];
  const soakBefore = before ? await soak(before) : null;
  const soakAfter = await soak(null);
  const points = (r: Record<string, unknown>) => r.points as Pt[];
  for (const k of [0, 1, 2]) {
    rows.push({
      what: `logcat soak at ${
        (SOAK_LINES * k / 2 / 1e6).toFixed(1)
      }M lines (100k ring, keynobi RSS)`,
      value: pair(soakBefore, soakAfter, (r) => {
        const p = points(r)[k];
        return p
          ? `RSS ${mb(p.rss_bytes)} MB, worker heap ${mb(p.worker_heap_used_bytes)} + external ` +
            `${mb(p.worker_external_bytes)} MB`
          : "—";
      }),
      budget: k === 2 ? "bounded by the ring" : "—",
    });
  }
  rows.push({
    what: "logcat soak end to end (simulator flood → worker), and the worker's own ingest",
    value: pair(
      soakBefore,
      soakAfter,
      (r) => `${r.lines_per_sec_wall} lines/s (ingest ${r.lines_per_sec_ingest} lines/s)`,
    ),
    budget: "—",
  });
  const i100Before = before ? await ingest(before, 100_000) : null;
  const i100 = await ingest(null, 100_000);
  rows.push({
    what: "logcat ingest in the worker (real captures)",
    value: pair(i100Before, i100, (r) => `${r.lines_per_sec_ingest} lines/s`) +
      "; end to end over a minimal ADB server " +
      pair(i100Before, i100, (r) => `${r.lines_per_sec_wall}`) + " lines/s",
    budget: "≥ 1,000,000 lines/s",
  });
  const session = await extractTree(SESSION_REF);
  try {
    const roots = [...(before ? [before] : []), ...(session ? [session] : [])];
    const sides = `${before ? `${BEFORE_REF} → ` : ""}${session ? `${SESSION_REF} → ` : ""}now`;
    for (const corpus of ["dense", "sparse"] as const) {
      const cpu = await pipelineCpu(roots, corpus);
      rows.push({
        what: `logcat ingest alone (parse, classify, store), CPU time, 100k ring, real captures ${
          corpus === "dense"
            ? "cycled (a crash every ~84 lines)"
            : `with their crashes in one pass of ${SPARSE_CRASH_EVERY_PASSES}`
        } (${sides})`,
        value: typeof cpu === "string"
          ? cpu
          : (cpu.sides as { cpu_ms_median: number; lines_per_cpu_sec: number }[]).map((x) =>
            `${x.lines_per_cpu_sec} lines/s (${x.cpu_ms_median} ms)`
          ).join(" → ") +
            ` CPU per ${cpu.lines} lines, ${cpu.crashes} crashes, median of ${PIPELINE_CPU_RUNS} ` +
            "interleaved runs",
        budget: "≥ 1,000,000 lines/s",
      });
    }
  } finally {
    if (session) await Deno.remove(session, { recursive: true }).catch(() => {});
  }
  rows.push({
    what: "logcat query, 100k entries, mixed filters",
    value: pair(i100Before, i100, (r) => `${r.query_ms_median} ms median (max ${r.query_ms_max})`),
    budget: "≤ 20 ms",
  });
  const i1mBefore = before ? await ingest(before, 1_000_000) : null;
  const i1m = await ingest(null, 1_000_000);
  rows.push({
    what: "logcat text query matching nothing, 1M entries",
    value: pair(
      i1mBefore,
      i1m,
      (r) =>
        `${r.miss_query_ms_median} ms median (first right after the burst ${r.first_miss_query_ms}${
          r.first_miss_partial ? ", partial: cut at its scan bound" : ""
        })`,
    ),
    budget: "≤ 20 ms",
  });
  rows.push({
    what: "logcat query, 1M entries, mixed filters",
    value: pair(i1mBefore, i1m, (r) => `${r.query_ms_median} ms median (max ${r.query_ms_max})`),
    budget: "≤ 20 ms",
  });
  rows.push({
    what: "logcat memory per stored entry (1M ring, forced GC)",
    value: pair(
      i1mBefore,
      i1m,
      (r) =>
        r.bytes_per_entry === null
          ? "unavailable"
          : `${r.bytes_per_entry} B/entry (${Math.round(1024 * 1024 / Number(r.bytes_per_entry))}` +
            ` entries/MB) for ${r.text_bytes_per_line} B of text per line ` +
            `(${Math.round(1024 * 1024 / Number(r.text_bytes_per_line))} lines/MB)`,
    ),
    budget: "—",
  });
  return rows;
}

/** A screen-like 1080×2400 frame (flat panels, text-like stripes, a gradient header). */
function screenFrame(w: number, h: number): Uint8Array {
  const px = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const row = Math.floor(y / 160);
      const text = y % 160 > 50 && y % 160 < 80 && x > 60 && x < 700 && (x >> 3) % 3 !== 0;
      const v = y < 220 ? 40 + (x * 100 / w | 0) : text ? 32 : row % 2 ? 250 : 240;
      px[i] = v;
      px[i + 1] = v;
      px[i + 2] = y < 220 ? 200 : v;
      px[i + 3] = 255;
    }
  }
  return px;
}

async function screenshotProcessing(): Promise<Row[]> {
  const png = await import("../lib/ui/png.ts");
  const resize = await import("../lib/ui/resize.ts");
  const { prepareRawScreenshot, targetSize, DEFAULT_MAX_DIMENSION } = await import(
    "../lib/ui/screenshot.ts"
  );
  const { parseRawScreencap } = await import("../lib/ui/raw_screencap.ts");
  const w = 1080, h = 2400;
  const px = screenFrame(w, h);
  const devicePng = await png.encodePng({ width: w, height: h, data: px }, { filter: 0 });
  const raw = new Uint8Array(16 + px.length);
  const v = new DataView(raw.buffer);
  v.setUint32(0, w, true);
  v.setUint32(4, h, true);
  v.setUint32(8, 1, true);
  v.setUint32(12, 1, true);
  raw.set(px, 16);
  const size = targetSize(w, h, DEFAULT_MAX_DIMENSION);
  const dec: number[] = [], rsOld: number[] = [], encOld: number[] = [];
  const rsNew: number[] = [], encNew: number[] = [], total: number[] = [];
  let oldBytes = 0, newBytes = 0;
  for (let k = 0; k < 7; k++) {
    let t = performance.now();
    const img = await png.decodePng(devicePng);
    dec.push(performance.now() - t);
    t = performance.now();
    const small = resize.resizeAreaAverage(img, size.width, size.height);
    rsOld.push(performance.now() - t);
    t = performance.now();
    oldBytes = (await png.encodePng(small, { filter: "adaptive" })).length;
    encOld.push(performance.now() - t);
    t = performance.now();
    const frame = parseRawScreencap(raw)!;
    const box = resize.resizeBox(frame, size.width, size.height);
    rsNew.push(performance.now() - t);
    const t2 = performance.now();
    newBytes = (await png.encodePng(box)).length;
    encNew.push(performance.now() - t2);
    const t3 = performance.now();
    await prepareRawScreenshot(frame, raw.length);
    total.push(performance.now() - t3);
  }
  const m = (a: number[]) => median(a).toFixed(0);
  return [{
    what: `screenshot processing ${w}x${h} → ${size.width}x${size.height}`,
    value:
      `PNG decode ${m(dec)} + area average ${m(rsOld)} + adaptive-filter encode ${m(encOld)} ms ` +
      `(${oldBytes} B) → raw frame, box resize ${m(rsNew)} + Up-filter encode ${m(encNew)} ms ` +
      `(${newBytes} B); prepareRawScreenshot ${m(total)} ms (median of 7)`,
    budget: "≤ 60 ms",
  }];
}

/** The default screenshot through MCP (stdio, simulator), for one checkout's main.ts. */
async function screenshotMcp(
  root: string,
  sim: Simulator,
  home: string,
): Promise<number[] | string> {
  const env = await childEnv({
    HOME: home,
    KEYNOBI_HOME: `${home}/keynobi`,
    ADB_SERVER_SOCKET: sim.adbServerSocket,
    ANDROID_HOME: sim.sdkRoot,
  });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, `${root}/main.ts`, "--mcp"],
    env,
    clearEnv: true,
    cwd: home,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  let buf = "";
  const enc = new TextEncoder();
  const request = async (id: number, method: string, params: unknown) => {
    await writer.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"));
    while (true) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.id === id) return msg;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("keynobi closed stdout");
      buf += dec.decode(value, { stream: true });
    }
  };
  try {
    await request(1, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    });
    await writer.write(
      enc.encode(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"),
    );
    const times: number[] = [];
    for (let i = 0; i < SHOT_RUNS + 3; i++) {
      const t0 = performance.now();
      const r = await request(10 + i, "tools/call", {
        name: "screenshot",
        arguments: { device_serial: "emulator-5554" },
      });
      if (r.result?.isError) return `failed: ${JSON.stringify(r.result.content?.[0]?.text)}`;
      if (i >= 3) times.push(performance.now() - t0);
    }
    return times;
  } finally {
    await writer.close().catch(() => {});
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    await child.status;
  }
}

export async function benchBounded(sim: Simulator, home: string): Promise<Row[]> {
  const before = await prepareBefore();
  try {
    const rows: Row[] = [];
    rows.push({
      what: "issue 9 before → after",
      value: before
        ? `before = ${BEFORE_REF} (plus a forced-GC memory probe), after = this tree`
        : "before not measured (no git, or BENCH_BEFORE=0)",
      budget: "—",
    });
    rows.push(...await logcatRows(before));
    rows.push(...await screenshotProcessing());
    const fmt = (t: number[] | string) =>
      typeof t === "string" ? t : `${median(t).toFixed(0)} ms median (n=${t.length})`;
    const shotBefore = before ? await screenshotMcp(before, sim, home) : null;
    const shotAfter = await screenshotMcp(repo.replace(/\/$/, ""), sim, home);
    rows.push({
      what: "screenshot through MCP, default size (simulator)",
      value: `${shotBefore === null ? "" : `${fmt(shotBefore)} → `}${fmt(shotAfter)}`,
      budget: "—",
    });
    return rows;
  } finally {
    if (before) await Deno.remove(before, { recursive: true }).catch(() => {});
  }
}
