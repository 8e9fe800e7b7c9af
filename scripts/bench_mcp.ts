/**
 * The MCP engine's figures for `deno task bench` (and standalone: `deno run … scripts/bench_mcp.ts`):
 * spawn → `initialize` answered, call round trips over stdio, `tools/list` bytes per toolset, and
 * the stdio soak (memory after a forced GC at 0 / 100k / 300k requests).
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { TOOLSETS } from "../lib/mcp/tool_def.ts";
import { childEnv } from "../tests/child_env.ts";
import { runStdioSoak } from "../tests/mcp/stdio_soak.ts";

export interface BenchRow {
  what: string;
  value: string;
  budget: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const MAIN = new URL("../main.ts", import.meta.url).pathname;

export const INIT = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "bench", version: "0" },
};

/** A raw stdio session: write lines, read answers by id. */
export class RawSession {
  child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buf = "";
  constructor(argv: string[], env: Record<string, string>, cwd: string) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: argv,
      env,
      clearEnv: true,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#reader = this.child.stdout.getReader();
  }
  async send(msg: unknown): Promise<void> {
    await this.#writer.write(enc.encode(JSON.stringify(msg) + "\n"));
  }
  async answer(id: number): Promise<Record<string, unknown>> {
    while (true) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        const msg = JSON.parse(line);
        if (msg.id === id) return msg;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("keynobi closed stdout");
      this.#buf += dec.decode(value, { stream: true });
    }
  }
  async request(id: number, method: string, params: unknown = {}) {
    await this.send({ jsonrpc: "2.0", id, method, params });
    return await this.answer(id);
  }
  async close(): Promise<void> {
    await this.#writer.close();
    this.#reader.releaseLock();
    await this.child.stdout.cancel().catch(() => {});
    await this.child.status;
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export interface McpBenchOptions {
  env: Record<string, string>;
  home: string;
  /** A project to open for the round-trip session (null: none). */
  project: string | null;
  spawnRuns: number;
  callRuns: number;
  /** Requests in the stdio soak (0 skips it); memory is sampled at 0, a third and the end. */
  soakRequests: number;
  /** Extra argv before `--mcp` (e.g. a bundle instead of main.ts). */
  entry?: string[];
  /** Also measure start-up from the bundle (default true). */
  bundle?: boolean;
}

/** Build dist/bundle/main.js with scripts/bundle.ts; null (and a note) when that fails. */
async function buildBundle(): Promise<string | null> {
  const script = new URL("./bundle.ts", import.meta.url).pathname;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-run", script],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!r.success) {
    console.error(`bench: no bundle: ${dec.decode(r.stderr).slice(-500)}`);
    return null;
  }
  return new URL("../dist/bundle/main.js", import.meta.url).pathname;
}

export async function benchMcp(
  o: McpBenchOptions,
  onRow: (r: BenchRow) => void = () => {},
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const push = rows.push.bind(rows);
  rows.push = (...r: BenchRow[]) => {
    r.forEach(onRow);
    return push(...r);
  };
  const entry = o.entry ?? ["run", ...RUN_FLAGS, MAIN];
  const open = (args: string[]) => new RawSession([...entry, "--mcp", ...args], o.env, o.home);
  // spawn → initialize from source (main.ts, what `deno task mcp` runs) and, side by side in the
  // same runs, from the bundle `deno task bundle` writes (dist/bundle/main.js).
  const bundle = o.bundle === false ? null : await buildBundle();
  const variants: { name: string; entry: string[]; times: number[] }[] = [
    { name: "spawn → initialize answered", entry, times: [] },
    ...(bundle
      ? [{
        name: "spawn → initialize answered, bundle",
        entry: ["run", ...RUN_FLAGS, bundle],
        times: [],
      }]
      : []),
  ];
  const spawnOnce = async (argv: string[]) => {
    const t0 = performance.now();
    const s = new RawSession([...argv, "--mcp"], o.env, o.home);
    await s.request(1, "initialize", INIT);
    const t = performance.now() - t0;
    await s.close();
    return t;
  };
  // Warm the module cache once so the first measured spawn is not a cold compile.
  for (const v of variants) await spawnOnce(v.entry);
  for (let i = 0; i < o.spawnRuns; i++) {
    for (const v of variants) v.times.push(await spawnOnce(v.entry));
  }
  for (const v of variants) {
    rows.push({
      what: v.name,
      value: `${median(v.times).toFixed(1)} ms median (p90 ${
        pct(v.times, 0.9).toFixed(1)
      }, n=${o.spawnRuns})`,
      budget: "≤ 150 ms",
    });
  }

  const s = open(o.project ? ["--project", o.project] : []);
  await s.request(1, "initialize", INIT);
  await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  let id = 10;
  const measure = async (method: string, params: unknown) => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) await s.request(id++, method, params); // warm-up
    for (let i = 0; i < o.callRuns; i++) {
      const t0 = performance.now();
      await s.request(id++, method, params);
      times.push(performance.now() - t0);
    }
    return times;
  };
  const row = (what: string, xs: number[], budget: string) =>
    rows.push({
      what,
      value: `${median(xs).toFixed(3)} ms median (p90 ${pct(xs, 0.9).toFixed(3)}, n=${xs.length})`,
      budget,
    });
  row(
    "trivial tool call round trip (refused call)",
    await measure("tools/call", { name: "list_devices", arguments: { bogus: 1 } }),
    "≤ 2 ms",
  );
  row("ping round trip", await measure("ping", {}), "—");
  row(
    "list_devices round trip (through the ADB server)",
    await measure("tools/call", { name: "list_devices", arguments: {} }),
    "—",
  );
  await new Promise((r) => setTimeout(r, 1000));
  const rss = await rssMb(s.child.pid);
  rows.push({
    what: "idle RSS of keynobi --mcp",
    value: rss === null ? "unavailable (no ps)" : `${rss.toFixed(1)} MB`,
    budget: "≤ 150 MB",
  });
  await s.close();

  for (const set of [...TOOLSETS, "all"]) {
    const t = open(set === "all" ? [] : ["--toolsets", set]);
    await t.request(1, "initialize", INIT);
    const list = await t.request(2, "tools/list");
    const bytes = enc.encode(JSON.stringify(list.result)).length;
    const count = (list.result as { tools: unknown[] }).tools.length;
    rows.push({
      what: `tools/list size, ${set}`,
      value: `${bytes} bytes (${count} tools, ${Math.round(bytes / count)} per tool)`,
      budget: set === "all" ? "≤ 25,000 bytes" : "—",
    });
    await t.close();
  }

  if (o.soakRequests > 0) {
    const third = Math.round(o.soakRequests / 3);
    const soak = await runStdioSoak({
      env: o.env,
      cwd: o.home,
      requests: o.soakRequests,
      sampleAt: [0, third, o.soakRequests],
    });
    for (const m of soak.samples) {
      rows.push({
        what: `stdio soak, after ${m.requests.toLocaleString("en")} requests (forced GC)`,
        value: `heap ${m.heapUsedMb.toFixed(1)} MB, external ${m.externalMb.toFixed(1)} MB, RSS ${
          m.rssMb.toFixed(1)
        } MB`,
        budget: "—",
      });
    }
    rows.push({
      what: "stdio soak throughput",
      value: `${Math.round(soak.requestsPerSecond).toLocaleString("en")} requests/s`,
      budget: "—",
    });
  }
  return rows;
}

/** RSS of a process in MB, from ps (Deno reads /proc only with --allow-all). */
export async function rssMb(pid: number): Promise<number | null> {
  const ps = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  if (!ps) return null;
  const kb = Number(dec.decode(ps.stdout).trim());
  return Number.isFinite(kb) && kb > 0 ? kb / 1024 : null;
}

if (import.meta.main) {
  const { startSimulator } = await import("../tests/sim/mod.ts");
  const sim = await startSimulator();
  const home = await Deno.makeTempDir({ prefix: "keynobi-bench-mcp-" });
  try {
    const env = await childEnv({
      HOME: home,
      KEYNOBI_HOME: `${home}/keynobi`,
      ADB_SERVER_SOCKET: sim.adbServerSocket,
      ANDROID_HOME: sim.sdkRoot,
    });
    await benchMcp(
      {
        env,
        home,
        project: sim.projects["sample-kts"],
        spawnRuns: Number(Deno.env.get("BENCH_SPAWN_RUNS") ?? 21),
        callRuns: Number(Deno.env.get("BENCH_CALL_RUNS") ?? 500),
        soakRequests: Number(Deno.env.get("BENCH_SOAK_REQUESTS") ?? 300_000),
      },
      (r) =>
        console.log(
          `${r.what.padEnd(52)}  ${r.value}${r.budget === "—" ? "" : `  (budget ${r.budget})`}`,
        ),
    );
  } finally {
    await sim.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
