/**
 * The logcat soak: N lines through the real logcat worker over the simulator's ADB server
 * (`simctl logcat-flood`-style traffic, with backpressure), the worker's and the process's memory
 * measured after a forced GC at each checkpoint. Run as its own process so V8 can expose `gc`:
 *
 *   deno run --v8-flags=--expose-gc --unstable-worker-options -A tests/logcat/logcat_soak.ts \
 *     --lines 2000000 --checkpoints 0,1000000,2000000 --capacity 100000 [--root <checkout>]
 *
 * `--root` runs another checkout's logcat client and worker (the bench's "before") against this
 * simulator; `--sim-process` runs the simulator in its own process (`deno task sim`, fed by
 * `simctl logcat-flood`), so the RSS measured is keynobi's alone; a worker without `logcat.memory` is measured by its stats (no forced GC there).
 * Prints one JSON line (SoakResult). tests/logcat/soak_test.ts runs it at CI size and checks the
 * growth; scripts/bench.ts runs it full size.
 */
import { startSimulator } from "../sim/mod.ts";
import type { LogcatService as SimLogcat } from "../sim/logcat/service.ts";
import { logcatClientPath } from "../../scripts/bench_common.ts";

/** The device the soak streams from. */
export const SOAK_SERIAL = "emulator-5554";
/** Longest the soak waits for the worker to read one checkpoint's lines. */
export const SOAK_CHECKPOINT_TIMEOUT_MS = 300_000;
/** Most lines one soak run streams. */
export const MAX_SOAK_LINES = 10_000_000;

export interface SoakPoint {
  /** Lines the worker had read (beyond what the device held when the stream started). */
  lines: number;
  /** Whether the worker ran a full GC before measuring. */
  collected: boolean;
  worker_heap_used_bytes: number;
  worker_external_bytes: number;
  /** The main isolate (simulator + client) after its own GC. */
  main_heap_used_bytes: number;
  main_external_bytes: number;
  rss_bytes: number;
  stored: number;
}

export interface SoakResult {
  root: string;
  capacity: number;
  points: SoakPoint[];
  /** Lines read per second of wall time over the whole run (simulator and worker together). */
  lines_per_sec_wall: number;
  /** The worker's own time in parse + classify + store. */
  lines_per_sec_ingest: number;
}

interface ClientLike {
  start(p: { serial: string; capacity: number }): Promise<unknown>;
  stats(): Promise<
    {
      devices: { serial: string; lines_read: number; stored: number; ingest_ms: number }[];
      heap_used_bytes: number;
      rss_bytes: number;
    } | null
  >;
  memory?(): Promise<
    {
      collected: boolean;
      heap_used_bytes: number;
      external_bytes: number;
      rss_bytes: number;
    } | null
  >;
  close(): Promise<void>;
}

function mainGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
}

/** A device command over the ADB host protocol (`exec:`), read to its end. */
async function adbExec(port: number, serial: string, command: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const enc = new TextEncoder();
  const send = async (s: string) => {
    const b = enc.encode(s.length.toString(16).padStart(4, "0") + s);
    let off = 0;
    while (off < b.length) off += await conn.write(b.subarray(off));
  };
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  try {
    await send(`host:transport:${serial}`);
    // Google's ADB server (and the simulator, like it) drops bytes sent before the transport
    // switch is answered: wait for its OKAY before the service.
    const okay = new Uint8Array(4);
    for (let got = 0; got < 4;) {
      const n = await conn.read(okay.subarray(got));
      if (n === null) throw new Error(`the ADB server closed before switching to ${serial}`);
      got += n;
    }
    if (new TextDecoder().decode(okay) !== "OKAY") throw new Error(`no transport ${serial}`);
    await send(`exec:${command}`);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
  } finally {
    try {
      conn.close();
    } catch { /* closed */ }
  }
  const all = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  return all.replace(/^(OKAY)+/, "");
}

/** Where the lines come from: the simulator in this process, or in its own (`--sim-process`). */
interface Feed {
  port: number;
  flood(lines: number): Promise<number>;
  close(): Promise<void>;
}

async function inProcessFeed(): Promise<Feed> {
  const sim = await startSimulator();
  const svc = sim.device(SOAK_SERIAL).service<SimLogcat>("logcat")!;
  svc.setRate(0);
  return { port: sim.port, flood: (n) => svc.flood(n), close: () => sim.close() };
}

/** `deno task sim` as a child, driven by `simctl logcat-flood`: RSS is then keynobi's alone. */
async function processFeed(): Promise<Feed> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../scripts/sim.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the simulator process ended before it said where it listens");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const info = JSON.parse(text.slice(0, text.indexOf("\n")));
  const port = Number(String(info.adb_server_socket).split(":").at(-1));
  await adbExec(port, SOAK_SERIAL, "simctl logcat-rate 0");
  return {
    port,
    flood: async (n) => {
      await adbExec(port, SOAK_SERIAL, `simctl logcat-flood ${n}`);
      return n;
    },
    close: async () => {
      child.kill("SIGTERM");
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

export async function runSoak(opts: {
  lines: number;
  checkpoints: number[];
  capacity: number;
  root?: string;
  simProcess?: boolean;
}): Promise<SoakResult> {
  const root = opts.root ?? new URL("../../", import.meta.url).pathname;
  const { LogcatClient } = await import(logcatClientPath(root.replace(/\/?$/, "/")));
  const feed = opts.simProcess ? await processFeed() : await inProcessFeed();
  await using _feed = { [Symbol.asyncDispose]: () => feed.close() };
  const svc = { flood: (n: number) => feed.flood(n) };
  const dataDir = await Deno.makeTempDir({ prefix: "keynobi-soak-" });
  const client: ClientLike = new LogcatClient({
    dataDir,
    address: { host: "127.0.0.1", port: feed.port },
  });
  const points: SoakPoint[] = [];
  try {
    await client.start({ serial: SOAK_SERIAL, capacity: opts.capacity });
    const device = async () =>
      (await client.stats())!.devices.find((d) => d.serial === SOAK_SERIAL)!;
    // What the device held when the stream started (boot lines) is not part of the count.
    const waitRead = async (n: number) => {
      const deadline = Date.now() + SOAK_CHECKPOINT_TIMEOUT_MS;
      let d = await device();
      while (d.lines_read < n) {
        if (Date.now() > deadline) throw new Error(`the worker read ${d.lines_read} of ${n} lines`);
        await new Promise((r) => setTimeout(r, 20));
        d = await device();
      }
      return d;
    };
    await new Promise((r) => setTimeout(r, 200));
    const base = (await device()).lines_read;
    const measure = async (lines: number) => {
      const d = await waitRead(base + lines);
      mainGc();
      const main = Deno.memoryUsage();
      const m = client.memory ? await client.memory() : null;
      const s = m ? null : await client.stats();
      points.push({
        lines,
        collected: m?.collected ?? false,
        worker_heap_used_bytes: m?.heap_used_bytes ?? s!.heap_used_bytes,
        worker_external_bytes: m?.external_bytes ?? NaN,
        main_heap_used_bytes: main.heapUsed,
        main_external_bytes: main.external,
        rss_bytes: m?.rss_bytes ?? s!.rss_bytes,
        stored: d.stored,
      });
    };
    const t0 = performance.now();
    let written = 0;
    for (const cp of [...opts.checkpoints].sort((a, b) => a - b)) {
      if (cp > written) written += await svc.flood(cp - written);
      await measure(cp);
    }
    if (opts.lines > written) {
      written += await svc.flood(opts.lines - written);
      await waitRead(base + opts.lines);
    }
    const wall = performance.now() - t0;
    const d = await device();
    return {
      root,
      capacity: opts.capacity,
      points,
      lines_per_sec_wall: Math.round((d.lines_read - base) / (wall / 1000)),
      lines_per_sec_ingest: Math.round(d.lines_read / (Math.max(1, d.ingest_ms) / 1000)),
    };
  } finally {
    await client.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < Deno.args.length ? Deno.args[i + 1] : fallback;
}

if (import.meta.main) {
  const lines = Math.min(MAX_SOAK_LINES, Math.max(0, Number(flag("lines", "2000000"))));
  const checkpoints = flag("checkpoints", `0,${lines}`).split(",").map(Number)
    .filter((n) => Number.isInteger(n) && n >= 0 && n <= lines);
  const capacity = Number(flag("capacity", "100000"));
  const root = Deno.args.includes("--root") ? flag("root", "") : undefined;
  const simProcess = Deno.args.includes("--sim-process");
  const r = await runSoak({ lines, checkpoints, capacity, root, simProcess });
  console.log(JSON.stringify(r));
}
