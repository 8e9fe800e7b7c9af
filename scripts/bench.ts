/**
 * `deno task bench`: measures what DESIGN.md budgets, on this machine, and prints medians.
 * Benchmarks measure; tests never assert wall-clock times.
 *
 * - spawn → `initialize` answered (budget ≤ 150 ms median, goal ≤ 100), the child's CPU time by
 *   then and spawn → `tools/list`, before (STARTUP_BEFORE_REF) → after, bundle and main.ts
 *   (scripts/bench_startup.ts)
 * - a trivial tool call round trip over stdio (budget ≤ 2 ms median): a refused call (pure
 *   dispatch) and `list_devices` against the simulator
 * - the size in bytes of `tools/list` in every toolset mode, before → after
 * - idle RSS of `keynobi --mcp` (budget ≤ 100 MB, DESIGN.md)
 * - a 1,000-node UI dump → element list (budget ≤ 10 ms) and each real dump's parse
 * - emulator fast paths, gRPC vs ADB side by side (scripts/bench_emulator.ts)
 * - keynobi app: attach → initialize, relay vs standalone round trip, RSS with 16 sessions
 *   (scripts/bench_attach.ts)
 * - keynobi app's dashboard: a build line to the page's stream at 5,000 lines/s, the page's
 *   worst lateness under that and 10,000 activity entries (scripts/bench_dashboard.ts)
 * - issue 9, before → after: logcat soak, ingest, queries, memory per entry, screenshots
 *   (scripts/bench_bounded.ts)
 * - keynobi and its peers (mobile-mcp) side by side through Google's ADB server
 *   (scripts/bench_peers.ts; alone: `deno task bench peers`)
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { startSimulator } from "../tests/sim/mod.ts";
import { childEnv } from "../tests/child_env.ts";
import { benchParse } from "./bench_build_parser.ts";
import { benchElementList, syntheticDump, syntheticScreenDump } from "./bench_ui.ts";
import { decodeGradleOutput } from "../lib/build/build_output_decode.ts";
import { trustProject } from "../lib/project/trust.ts";
import { benchBounded } from "./bench_bounded.ts";
import { benchRetraceRows } from "./bench_retrace.ts";
import { INIT, RawSession } from "./bench_common.ts";
import { benchMcp, prepareBefore } from "./bench_mcp.ts";
import { benchAttach } from "./bench_attach.ts";
import { benchDashboard } from "./bench_dashboard.ts";

const SPAWN_RUNS = Number(Deno.env.get("BENCH_SPAWN_RUNS") ?? 21);
const CALL_RUNS = Number(Deno.env.get("BENCH_CALL_RUNS") ?? 500);

// `deno task bench peers [--runs N]`: only keynobi and its peers side by side (bench_peers.ts).
if (Deno.args[0] === "peers") {
  const { benchPeers, DEFAULT_RUNS } = await import("./bench_peers.ts");
  const at = Deno.args.indexOf("--runs");
  const runs = at >= 0 ? Number(Deno.args[at + 1]) : DEFAULT_RUNS;
  if (!Number.isInteger(runs) || runs < 1) {
    console.error("bench peers: --runs must be a positive integer");
    Deno.exit(2);
  }
  const rows = await benchPeers({ runs });
  const w = Math.max(...rows.map((r) => r.what.length));
  for (const r of rows) console.log(`${r.what.padEnd(w)}  ${r.value}`);
  Deno.exit(0);
} else if (Deno.args.length > 0) {
  console.error(`bench: unknown argument ${Deno.args[0]}: use none (everything) or peers`);
  Deno.exit(2);
}

const sim = await startSimulator();
const home = await Deno.makeTempDir({ prefix: "keynobi-bench-" });
const main = new URL("../main.ts", import.meta.url).pathname;
const env = await childEnv({
  HOME: home,
  KEYNOBI_HOME: `${home}/keynobi`,
  ADB_SERVER_SOCKET: sim.adbServerSocket,
  ANDROID_HOME: sim.sdkRoot,
});

const dec = new TextDecoder();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function p(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const results: { what: string; value: string; budget: string }[] = [];

/**
 * The emulator rows, from scripts/bench_emulator.ts in a process of its own: it hosts the
 * simulator's gRPC server, and Deno 2.9.6 can abort inside nghttp2 when an HTTP/2 session gets a
 * GOAWAY (denoland/deno#36788). A process that died that way is run once more; a second death is
 * reported as a row instead of ending the whole bench.
 */
async function emulatorRows(): Promise<{ what: string; value: string; budget: string }[]> {
  const script = new URL("./bench_emulator.ts", import.meta.url).pathname;
  let last = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...RUN_FLAGS.filter((f) => f !== "--unstable-worker-options"),
        script,
        "--json",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (out.success) return JSON.parse(dec.decode(out.stdout).trim().split("\n").at(-1)!);
    last = `exit ${out.code}${out.signal ? ` (${out.signal})` : ""}: ` +
      dec.decode(out.stderr).trim().split("\n").slice(-2).join(" ");
  }
  return [{
    what: "emulator fast paths",
    value: `the bench process died twice: ${last}`,
    budget: "—",
  }];
}

try {
  // The MCP engine, before (the tree at BEFORE_REF) → after: spawn → initialize (and from the
  // bundle), round trips, idle RSS, tools/list bytes, the stdio soak (scripts/bench_mcp.ts;
  // BENCH_SOAK_REQUESTS=0 skips the soak, BENCH_BEFORE=0 the before side).
  results.push(
    ...await benchMcp({
      before: await prepareBefore(),
      env,
      home,
      project: sim.projects["sample-kts"],
      spawnRuns: SPAWN_RUNS,
      callRuns: CALL_RUNS,
      soakRequests: Number(Deno.env.get("BENCH_SOAK_REQUESTS") ?? 300_000),
    }),
  );

  // keynobi app: attach → initialize, the relay's added round trip, RSS with 16 sessions.
  results.push(...await benchAttach({ env, home, runs: 20 }));

  // keynobi app's dashboard: a build line to the page's event stream at 5,000 lines/s, and the page
  // under that load plus 10,000 activity entries (headless Chromium, when installed). Its own
  // data directory: the 10,000 entries stay out of the other rows' activity log.
  results.push(
    ...await benchDashboard({
      env: { ...env, KEYNOBI_HOME: `${home}/keynobi-dashboard` },
      home,
      project: sim.projects["sample-kts"],
    }),
  );

  // Gradle output parsing (the build worker's hot path), on the real logs when they are beside us.
  {
    const fixtures = new URL("../../shared/fixtures/real/gradle/", import.meta.url);
    const texts: string[] = [];
    const entries = await Array.fromAsync(Deno.readDir(fixtures)).catch(() => []);
    for (const e of entries) {
      if (e.isFile && e.name.endsWith(".txt")) {
        texts.push(decodeGradleOutput(await Deno.readFile(new URL(e.name, fixtures))));
      }
    }
    if (texts.length === 0) {
      for await (const e of Deno.readDir(new URL("../tests/build/testdata/", import.meta.url))) {
        if (e.isFile && e.name.endsWith(".txt")) {
          texts.push(
            await Deno.readTextFile(new URL(`../tests/build/testdata/${e.name}`, import.meta.url)),
          );
        }
      }
    }
    const lines = texts.join("\n").split("\n");
    benchParse(lines, 5); // warm-up
    const runs = [1, 2, 3, 4, 5].map(() => benchParse(lines, 50).linesPerSecond);
    results.push({
      what: "Gradle output parse throughput",
      value: `${
        Math.round(median(runs)).toLocaleString("en")
      } lines/s median (${lines.length} lines × 50)`,
      budget: "—",
    });
  }

  // UI: 1,000- and 5,000-node dumps → element list (budget ≤ 10 ms per 1,000 nodes), a screen
  // whose every node is on screen under bars and a button (occlusion's worst case), each real dump.
  {
    for (
      const [what, xml, budget] of [
        ["1,000 nodes", syntheticDump(1_000), "10 ms"],
        ["5,000 nodes", syntheticDump(5_000), "50 ms"],
        ["1,000 nodes all on screen, overlaid", syntheticScreenDump(1_000), "10 ms"],
        ["5,000 nodes all on screen, overlaid", syntheticScreenDump(5_000), "50 ms"],
      ] as const
    ) {
      const r = benchElementList(xml, 100);
      results.push({
        what: `UI dump → element list, ${what}`,
        value: `${r.medianMs.toFixed(2)} ms median (p90 ${
          r.p90Ms.toFixed(2)
        }, ${r.xmlChars} chars)`,
        budget,
      });
    }
    const realDir = new URL("../../shared/fixtures/real/uiautomator/", import.meta.url);
    try {
      for await (const e of Deno.readDir(realDir)) {
        if (!e.isFile || !e.name.endsWith(".xml")) continue;
        const x = benchElementList(await Deno.readTextFile(new URL(e.name, realDir)), 50);
        results.push({
          what: `UI real dump → element list, ${e.name}`,
          value: `${x.medianMs.toFixed(2)} ms median (${x.nodes} nodes)`,
          budget: "—",
        });
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }

  // tools/call → gradlew spawned: a trusted project whose gradlew only stamps the time it started.
  {
    const proj = `${home}/spawn-bench`;
    await Deno.mkdir(`${proj}/app`, { recursive: true });
    await Deno.writeTextFile(
      `${proj}/settings.gradle.kts`,
      'rootProject.name = "b"\ninclude(":app")\n',
    );
    await Deno.writeTextFile(
      `${proj}/app/build.gradle.kts`,
      'plugins { id("com.android.application") }\nandroid { namespace = "b.app" }\n',
    );
    await Deno.writeTextFile(
      `${proj}/gradlew`,
      '#!/bin/sh\ndate +%s%N >> "$(dirname "$0")/spawned"\necho "BUILD SUCCESSFUL in 0s"\n',
      { mode: 0o755 },
    );
    await trustProject(`${home}/keynobi`, proj);
    const t = new RawSession(["run", ...RUN_FLAGS, main, "--mcp", "--project", proj], env, home);
    await t.request(1, "initialize", INIT);
    const overhead: number[] = [];
    for (let i = 0; i < 15; i++) {
      const sent = Date.now() * 1e6 + (performance.now() % 1) * 1e6;
      await t.request(100 + i, "tools/call", {
        name: "run_gradle_task",
        arguments: { task: "help" },
      });
      const stamps = (await Deno.readTextFile(`${proj}/spawned`)).trim().split("\n");
      const spawnedNs = Number(stamps.at(-1));
      if (i > 0) overhead.push((spawnedNs - sent) / 1e6); // the first call also starts the worker
    }
    await t.close();
    results.push({
      what: "tools/call → gradlew spawned (warm worker)",
      value: `${median(overhead).toFixed(1)} ms median (p90 ${
        p(overhead, 0.9).toFixed(1)
      }, n=${overhead.length})`,
      budget: "—",
    });
  }

  results.push(...await benchRetraceRows());
  results.push(...await benchBounded(sim, home));
  results.push(...await emulatorRows());
  results.push(...await peerRows());
} finally {
  await sim.close();
  await Deno.remove(home, { recursive: true }).catch(() => {});
}

const width = Math.max(...results.map((r) => r.what.length));
console.log(`keynobi bench on ${Deno.build.os}/${Deno.build.arch}, Deno ${Deno.version.deno}`);
for (const r of results) {
  console.log(
    `${r.what.padEnd(width)}  ${r.value}${r.budget === "—" ? "" : `  (budget ${r.budget})`}`,
  );
}

/** keynobi and its peers through Google's ADB server (scripts/bench_peers.ts, own process). */
async function peerRows(): Promise<{ what: string; value: string; budget: string }[]> {
  const script = new URL("./bench_peers.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS.filter((f) => f !== "--unstable-worker-options"), script, "--json"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    return [{
      what: "peers bench",
      value: `failed: ${dec.decode(out.stderr).slice(-400)}`,
      budget: "—",
    }];
  }
  return JSON.parse(dec.decode(out.stdout).trim().split("\n").at(-1)!);
}
