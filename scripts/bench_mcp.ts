/**
 * The MCP engine's figures for `deno task bench` (and standalone: `deno run … scripts/bench_mcp.ts`):
 * spawn → `initialize` answered, call round trips over stdio, `tools/list` bytes per toolset, and
 * the stdio soak (memory after a forced GC at 0 / 100k / 300k requests).
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { TOOLSETS } from "../lib/mcp/tool_def.ts";
import {
  TOOL_LIST_GOAL_AVERAGE_BYTES,
  TOOL_LIST_GOAL_BYTES,
  toolListBudget,
  toolsetModes,
  withoutText,
} from "../lib/mcp/tool_list_size.ts";
import { childEnv } from "../tests/child_env.ts";
import { runStdioSoak } from "../tests/mcp/stdio_soak.ts";
import {
  type BenchRow,
  extractTree,
  INIT,
  median,
  pct,
  RawSession,
  rssMb,
} from "./bench_common.ts";
import { benchStartup, prepareStartupBefore, type StartupVariant } from "./bench_startup.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** How long the idle RSS waits after the calls (V8 reduces memory after ~30 s idle). */
const IDLE_WAIT_MS = 35_000;

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
  /** An older checkout (prepareBefore) measured side by side; null: after only. */
  before?: string | null;
  /** The start-up rows' before side (default: prepareStartupBefore(); null: after only). */
  startupBefore?: { dir: string; variants: StartupVariant[] } | null;
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

/** main when issue 12's tool-list work started: the "before" of the tools/list rows. */
export const TOOL_LIST_BEFORE_REF = "94e2faa";

/** The commit before the engine moved onto the SDK (main when issue 13 started). */
export const BEFORE_REF = "24cc107";

/**
 * The tree at BEFORE_REF, extracted with git into a temporary folder, with the soak's server
 * script copied in (it only calls that tree's `runMcp`). Null when git cannot give it or
 * BENCH_BEFORE=0.
 */
export async function prepareBefore(): Promise<string | null> {
  const dir = await extractTree(BEFORE_REF, "keynobi-mcp-before-");
  if (!dir) return null;
  const repo = new URL("../", import.meta.url).pathname;
  await Deno.copyFile(
    `${repo}tests/mcp/_stdio_soak_child.ts`,
    `${dir}/tests/mcp/_stdio_soak_child.ts`,
  );
  return dir;
}

type Variant = { name: string; entry: string[] };

export async function benchMcp(
  o: McpBenchOptions,
  onRow: (r: BenchRow) => void = () => {},
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const add = (r: BenchRow) => {
    onRow(r);
    rows.push(r);
  };
  const after: Variant = { name: "after", entry: o.entry ?? ["run", ...RUN_FLAGS, MAIN] };
  const before: Variant | null = o.before
    ? { name: "before", entry: ["run", ...RUN_FLAGS, `${o.before}/main.ts`] }
    : null;
  const bundlePath = o.bundle === false ? null : await buildBundle();
  const bundle: Variant | null = bundlePath
    ? { name: "after, bundle", entry: ["run", ...RUN_FLAGS, bundlePath] }
    : null;
  const sides = [before, after].filter((v): v is Variant => v !== null);
  const ms = (xs: number[], digits: number) =>
    `${median(xs).toFixed(digits)} ms (p90 ${pct(xs, 0.9).toFixed(digits)})`;
  const sideBySide = (m: Map<Variant, number[]>, digits: number) =>
    [...m].map(([v, xs]) => `${v.name} ${ms(xs, digits)}`).join(" → ");

  // Start-up, before (STARTUP_BEFORE_REF's bundle and main.ts) → after, interleaved
  // (scripts/bench_startup.ts): spawn → initialize, the child's CPU time then, spawn → tools/list.
  const startupBefore = o.startupBefore === undefined
    ? await prepareStartupBefore()
    : o.startupBefore;
  try {
    const variants = [
      ...(startupBefore?.variants ?? []),
      ...(bundle ? [bundle] : []),
      { name: "after, main.ts", entry: after.entry },
    ];
    for (const r of await benchStartup({ variants, env: o.env, home: o.home, runs: o.spawnRuns })) {
      add(r);
    }
  } finally {
    if (startupBefore) await Deno.remove(startupBefore.dir, { recursive: true }).catch(() => {});
  }

  // Round trips over stdio, each side in its own session.
  const trips = {
    refused: new Map<Variant, number[]>(),
    ping: new Map<Variant, number[]>(),
    devices: new Map<Variant, number[]>(),
  };
  let idleRss: number | null = null;
  let busyRss: number | null = null;
  for (const v of sides) {
    const s = new RawSession(
      [...v.entry, "--mcp", ...(o.project ? ["--project", o.project] : [])],
      o.env,
      o.home,
    );
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
    trips.refused.set(
      v,
      await measure("tools/call", { name: "list_devices", arguments: { bogus: 1 } }),
    );
    trips.ping.set(v, await measure("ping", {}));
    trips.devices.set(v, await measure("tools/call", { name: "list_devices", arguments: {} }));
    if (v === after) {
      // Right after the calls, and once idle: V8's memory reducer gives the heap back after
      // some 30 s without allocation (what a session waiting on its agent looks like).
      await new Promise((r) => setTimeout(r, 1000));
      busyRss = await rssMb(s.child.pid);
      await new Promise((r) => setTimeout(r, IDLE_WAIT_MS));
      idleRss = await rssMb(s.child.pid);
    }
    await s.close();
  }
  add({
    what: `trivial tool call round trip, refused call (median, n=${o.callRuns})`,
    value: sideBySide(trips.refused, 3),
    budget: "≤ 2 ms",
  });
  add({ what: "ping round trip", value: sideBySide(trips.ping, 3), budget: "—" });
  add({
    what: "list_devices round trip (through the ADB server)",
    value: sideBySide(trips.devices, 3),
    budget: "—",
  });
  const mb = (v: number | null) => v === null ? "unavailable (no ps)" : `${v.toFixed(1)} MB`;
  add({
    what: `RSS of keynobi --mcp (main.ts) 1 s after ${3 * (20 + o.callRuns)} calls`,
    value: mb(busyRss),
    budget: "—",
  });
  add({
    what: `idle RSS of keynobi --mcp (main.ts), ${IDLE_WAIT_MS / 1000} s later`,
    value: mb(idleRss),
    budget: "≤ 100 MB",
  });

  // tools/list over the wire in every toolset mode, before issue 12's cuts (the tree at
  // TOOL_LIST_BEFORE_REF) → now.
  const listBefore = await extractTree(TOOL_LIST_BEFORE_REF, "keynobi-tool-list-before-");
  const listed = async (entry: string[], sets: readonly string[]) => {
    const t = new RawSession(
      [
        ...entry,
        "--mcp",
        ...(sets.length === TOOLSETS.length ? [] : ["--toolsets", sets.join(",")]),
      ],
      o.env,
      o.home,
    );
    await t.request(1, "initialize", INIT);
    const list = await t.request(2, "tools/list");
    await t.close();
    const { tools } = list.result as { tools: unknown[] };
    const size = (v: unknown) => {
      const bytes = enc.encode(JSON.stringify(v)).length;
      return `${bytes.toLocaleString("en")} bytes (${tools.length} tools, ${
        Math.round(bytes / tools.length)
      } per tool)`;
    };
    return {
      count: tools.length,
      text: size(list.result),
      floor: `no text ${size({ tools: withoutText(tools) })}; every description "" ${
        size({ tools: withoutText(tools, true) })
      }`,
    };
  };
  const floors: BenchRow[] = [];
  for (const sets of toolsetModes()) {
    const mode = sets.length === TOOLSETS.length ? "all toolsets" : sets.join(",");
    const { count, text: now, floor } = await listed(after.entry, sets);
    // Issue 12's goal for this mode: 400 bytes per tool, and 25,000 for everything.
    const goal = `issue-12 goal ${
      Math.min(TOOL_LIST_GOAL_BYTES, TOOL_LIST_GOAL_AVERAGE_BYTES * count).toLocaleString("en")
    } (${TOOL_LIST_GOAL_AVERAGE_BYTES}/tool, ${TOOL_LIST_GOAL_BYTES.toLocaleString("en")} in all)`;
    // The structure floor of each toolset and of all: the same list with no description at all,
    // and with every description kept but empty (the least it costs with everything described).
    if (sets.length === 1 || sets.length === TOOLSETS.length) {
      floors.push({
        what: `tools/list structure floor, ${mode}`,
        value: floor,
        budget: goal,
      });
    }
    const then = listBefore
      ? await listed(["run", ...RUN_FLAGS, `${listBefore}/main.ts`], sets).then((l) => l.text)
        .catch((e) => `unavailable (${(e as Error).message})`)
      : null;
    add({
      what: `tools/list size, ${mode}`,
      value: then ? `before ${then} → after ${now}` : now,
      budget: `${toolListBudget(sets).toLocaleString("en")} bytes; ${goal}`,
    });
  }
  for (const row of floors) add(row);
  if (listBefore) await Deno.remove(listBefore, { recursive: true }).catch(() => {});

  if (o.soakRequests > 0) {
    const third = Math.round(o.soakRequests / 3);
    const at = [0, third, o.soakRequests];
    const soaks = [];
    for (const v of sides) {
      const soak = await runStdioSoak({
        env: o.env,
        cwd: o.home,
        requests: o.soakRequests,
        sampleAt: at,
        ...(v === before ? { child: `${o.before}/tests/mcp/_stdio_soak_child.ts` } : {}),
      });
      soaks.push({ v, soak });
    }
    for (let i = 0; i < at.length; i++) {
      add({
        what: `stdio soak after ${at[i].toLocaleString("en")} requests (forced GC)`,
        value: soaks.map(({ v, soak }) => {
          const m = soak.samples[i];
          return `${v.name} heap ${m.heapUsedMb.toFixed(1)} MB, RSS ${m.rssMb.toFixed(0)} MB`;
        }).join(" → "),
        budget: "bounded",
      });
    }
    add({
      what: "stdio soak throughput (wrong answers)",
      value: soaks.map(({ v, soak }) =>
        `${v.name} ${Math.round(soak.requestsPerSecond).toLocaleString("en")} requests/s ` +
        `(${soak.wrongAnswers})`
      ).join(" → "),
      budget: "—",
    });
  }
  return rows;
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
        before: await prepareBefore(),
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
