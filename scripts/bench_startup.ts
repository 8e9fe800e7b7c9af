/**
 * The start-up rows of `deno task bench` (scripts/bench_mcp.ts calls them): spawn → `initialize`
 * answered, the CPU time the child spent by then, and spawn → `tools/list` answered (the client's
 * next request, which waits for the SDK and the registry), each before → after: the tree at
 * STARTUP_BEFORE_REF (its bundle and its main.ts) and this checkout (its bundle and main.ts), the
 * four interleaved run by run so that load on the machine falls on all of them alike.
 *
 * CPU time is the sum of the child's threads' run time (`/proc/<pid>/task/<tid>/schedstat`, read
 * with `cat`: Deno reads /proc only with --allow-all), taken when the answer arrives: on a machine
 * shared with other work it moves less than wall time. Where /proc is missing the row says so.
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { extractTree, INIT, median, pct, RawSession } from "./bench_common.ts";

/**
 * main when the start-up work of issue 9 began (the bundle registered, no early answer); another
 * ref (a change's own parent, to measure one change) with BENCH_STARTUP_REF.
 */
export const STARTUP_BEFORE_REF = Deno.env.get("BENCH_STARTUP_REF") ?? "0fe3cf2";

export interface StartupRow {
  what: string;
  value: string;
  budget: string;
}

export interface StartupVariant {
  name: string;
  /** `deno` arguments before `--mcp`. */
  entry: string[];
}

const dec = new TextDecoder();

/** Build the bundle of the checkout at `root` with its own scripts/bundle.ts; null if that fails. */
export async function buildBundleOf(root: string): Promise<string | null> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      "scripts/bundle.ts",
    ],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output().catch(() => null);
  if (!r?.success) {
    console.error(`bench: no bundle for ${root}: ${r ? dec.decode(r.stderr).slice(-500) : ""}`);
    return null;
  }
  return `${root}/dist/bundle/main.js`;
}

/**
 * The "before" variants: the tree at STARTUP_BEFORE_REF (extracted by git), its bundle and its
 * main.ts, and the folder to remove afterwards. Null when git cannot give it or BENCH_BEFORE=0.
 */
export async function prepareStartupBefore(): Promise<
  { dir: string; variants: StartupVariant[] } | null
> {
  const dir = await extractTree(STARTUP_BEFORE_REF, "keynobi-startup-before-");
  if (!dir) return null;
  const bundle = await buildBundleOf(dir);
  return {
    dir,
    variants: [
      ...(bundle ? [{ name: `before (${STARTUP_BEFORE_REF}), bundle`, entry: run(bundle) }] : []),
      { name: `before (${STARTUP_BEFORE_REF}), main.ts`, entry: run(`${dir}/main.ts`) },
    ],
  };
}

export function run(entry: string): string[] {
  return ["run", ...RUN_FLAGS, entry];
}

/**
 * Reads a process's CPU time so far in ms (its threads' run time) through one long-lived bash that
 * answers each pid with shell builtins only, so a read takes well under a millisecond and does not
 * delay the client's next request. Null where bash or /proc is missing.
 */
class CpuReader {
  #child: Deno.ChildProcess | null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #buf = "";
  constructor() {
    const script = 'while read -r p; do s=0; for f in /proc/"$p"/task/*/schedstat; do ' +
      'read -r a _ < "$f" 2>/dev/null && s=$((s + a)); done; echo "$s"; done';
    try {
      this.#child = new Deno.Command("bash", {
        args: ["-c", script],
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      this.#writer = this.#child.stdin.getWriter();
      this.#reader = this.#child.stdout.getReader();
    } catch {
      this.#child = null;
    }
  }
  async read(pid: number): Promise<number | null> {
    if (!this.#writer || !this.#reader) return null;
    await this.#writer.write(new TextEncoder().encode(`${pid}\n`));
    while (!this.#buf.includes("\n")) {
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#buf += dec.decode(value, { stream: true });
    }
    const nl = this.#buf.indexOf("\n");
    const ns = Number(this.#buf.slice(0, nl));
    this.#buf = this.#buf.slice(nl + 1);
    return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : null;
  }
  async close(): Promise<void> {
    await this.#writer?.close().catch(() => {});
    this.#reader?.releaseLock();
    await this.#child?.stdout.cancel().catch(() => {});
    await this.#child?.status;
  }
}

interface Sample {
  initialize: number;
  cpu: number | null;
  toolsList: number;
}

async function once(
  v: StartupVariant,
  env: Record<string, string>,
  cwd: string,
  cpu: CpuReader,
): Promise<Sample> {
  const t0 = performance.now();
  const s = new RawSession([...v.entry, "--mcp"], env, cwd);
  try {
    const init = await s.request(1, "initialize", INIT);
    const initialize = performance.now() - t0;
    if (!init.result) throw new Error(`${v.name}: initialize failed: ${JSON.stringify(init)}`);
    const cpuAt = await cpu.read(s.child.pid);
    await s.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const list = await s.request(2, "tools/list");
    if (!list.result) throw new Error(`${v.name}: tools/list failed: ${JSON.stringify(list)}`);
    return { initialize, cpu: cpuAt, toolsList: performance.now() - t0 };
  } finally {
    await s.close();
  }
}

function loadavg(): string {
  try {
    return Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
  } catch {
    return "unknown";
  }
}

/** The start-up rows for these variants, each run `runs` times (after one warm-up run each). */
export async function benchStartup(o: {
  variants: StartupVariant[];
  env: Record<string, string>;
  home: string;
  runs: number;
}): Promise<StartupRow[]> {
  const samples = new Map<StartupVariant, Sample[]>(o.variants.map((v) => [v, []]));
  const cpu = new CpuReader();
  const loadBefore = loadavg();
  try {
    for (const v of o.variants) await once(v, o.env, o.home, cpu); // the module and code caches
    for (let i = 0; i < o.runs; i++) {
      for (const v of o.variants) samples.get(v)!.push(await once(v, o.env, o.home, cpu));
    }
  } finally {
    await cpu.close();
  }
  const load = `load ${loadBefore} → ${loadavg()}`;
  const side = (pick: (s: Sample) => number | null) =>
    [...samples].map(([v, xs]) => {
      const vals = xs.map(pick).filter((x): x is number => x !== null);
      return vals.length === 0
        ? `${v.name} n/a`
        : `${v.name} ${median(vals).toFixed(1)} ms (p90 ${pct(vals, 0.9).toFixed(1)})`;
    }).join(" → ");
  return [
    {
      what: `spawn → initialize answered (median, n=${o.runs}; ${load})`,
      value: side((s) => s.initialize),
      budget: "≤ 150 ms; goal ≤ 100 ms",
    },
    {
      what: `… CPU time of the child at that answer (all threads, median, n=${o.runs})`,
      value: side((s) => s.cpu),
      budget: "—",
    },
    {
      what: `spawn → tools/list answered (after initialize + initialized, median, n=${o.runs})`,
      value: side((s) => s.toolsList),
      budget: "—",
    },
  ];
}

if (import.meta.main) {
  // Just these rows: `deno run --allow-all scripts/bench_startup.ts` (BENCH_SPAWN_RUNS, default 21).
  const { childEnv } = await import("../tests/child_env.ts");
  const home = await Deno.makeTempDir({ prefix: "keynobi-bench-startup-" });
  const before = await prepareStartupBefore();
  try {
    const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
    const bundle = await buildBundleOf(root);
    const env = await childEnv({ HOME: home, KEYNOBI_HOME: `${home}/keynobi` });
    const rows = await benchStartup({
      variants: [
        ...(before?.variants ?? []),
        ...(bundle ? [{ name: "after, bundle", entry: run(bundle) }] : []),
        { name: "after, main.ts", entry: run(`${root}/main.ts`) },
      ],
      env,
      home,
      runs: Number(Deno.env.get("BENCH_SPAWN_RUNS") ?? 21),
    });
    for (const r of rows) console.log(`${r.what}\n  ${r.value.split(" → ").join("\n  ")}`);
  } finally {
    if (before) await Deno.remove(before.dir, { recursive: true }).catch(() => {});
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
