/**
 * The dashboard's figures for `deno task bench` (and standalone: `deno run -A
 * scripts/bench_dashboard.ts`): how long a build line takes from its log file to the page's event
 * stream while a build prints 5,000 lines a second, and, where headless Chromium is installed, the
 * page's worst main-thread lateness while it takes that flood and 10,000 activity entries.
 * The build is one a standalone server would run: its record and log written by this process.
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { startBuildRecord } from "../lib/build/shared/build_history.ts";
import { buildLogPath } from "../lib/build/shared/build_log.ts";
import { LINES_TICK_MS } from "../lib/dashboard/live.ts";
import { findChromium, launchChromium } from "../tests/dashboard/_chromium.ts";
import { type BenchRow, median, pct } from "./bench_common.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const LINES_PER_SECOND = 5_000;
const SECONDS = 4;
const ENTRIES = 10_000;

export async function benchDashboard(
  opts: { env: Record<string, string>; home: string; project: string },
): Promise<BenchRow[]> {
  const dataDir = opts.env.KEYNOBI_HOME;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, MAIN, "app", "--ui-port=0"],
    env: opts.env,
    clearEnv: true,
    cwd: opts.home,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const urlReady = Promise.withResolvers<URL>();
  (async () => {
    for await (const c of child.stderr.pipeThrough(new TextDecoderStream())) {
      err += c;
      const m = /dashboard: open (http:\/\/127\.0\.0\.1:\d+\/\?k=[0-9a-f]+)/.exec(err);
      if (m) urlReady.resolve(new URL(m[1]));
    }
    urlReady.reject(new Error(`keynobi app exited:\n${err}`));
  })();
  const rows: BenchRow[] = [];
  try {
    const url = await urlReady.promise;
    const login = await fetch(url, { redirect: "manual" });
    await login.body?.cancel();
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];

    const chromium = await findChromium();
    await using browser = chromium ? await launchChromium(chromium) : null;
    const page = browser ? await browser.open(url.href, { width: 1440, height: 1400 }) : null;
    if (page) {
      await page.waitFor("window.keynobiDashboard && keynobiDashboard().connected", "the page");
      await page.eval(`(() => {
        window.__late = 0; let last = performance.now();
        setInterval(() => { const now = performance.now();
          window.__late = Math.max(window.__late, now - last - 50); last = now; }, 50);
      })()`);
    }

    // The event stream, as the page reads it: the time each written line arrives.
    const stop = new AbortController();
    const events = await fetch(new URL("/api/events", url), {
      headers: { cookie },
      signal: stop.signal,
    });
    const sent = new Map<number, number>();
    const latencies: number[] = [];
    const reading = (async () => {
      const dec = new TextDecoder();
      let buf = "";
      for await (const chunk of events.body!) {
        buf += dec.decode(chunk, { stream: true });
        let end;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const frame = buf.slice(0, end);
          buf = buf.slice(end + 2);
          if (!frame.startsWith("event: lines")) continue;
          const data = JSON.parse(frame.slice(frame.indexOf("data: ") + 6));
          const now = performance.now();
          for (const line of data.lines as string[]) {
            const n = Number(/^line (\d+)/.exec(line)?.[1]);
            const at = sent.get(n);
            if (at !== undefined) {
              latencies.push(now - at);
              sent.delete(n);
            }
          }
        }
      }
    })().catch(() => {});

    const activity = `${dataDir}/mcp-activity.jsonl`;
    const entries: string[] = [];
    for (let i = 0; i < ENTRIES; i++) {
      entries.push(JSON.stringify({
        at: new Date().toISOString(),
        kind: "tool",
        name: `tool_${i % 25}`,
        duration_ms: 1,
        status: "ok",
        summary: `entry ${i}`,
        pid: 4242,
      }));
    }
    await Deno.writeTextFile(activity, entries.join("\n") + "\n", { append: true });

    const record = await startBuildRecord(dataDir, {
      project: opts.project,
      task: "assembleDebug",
      origin: { kind: "agent", session_id: "bench", client_name: "bench", standalone: true },
    });
    const log = buildLogPath(dataDir, record.id);
    await Deno.mkdir(`${dataDir}/build-logs`, { recursive: true });
    // Let the dashboard see the running build before the flood starts.
    await new Promise((r) => setTimeout(r, 1_500));
    let n = 0;
    const perTick = LINES_PER_SECOND / 20;
    for (let tick = 0; tick < SECONDS * 20; tick++) {
      const lines: string[] = [];
      // The first line of each write is timed.
      sent.set(n, performance.now());
      for (let i = 0; i < perTick; i++) lines.push(`line ${n++} > Task :app:compileDebugKotlin`);
      await Deno.writeTextFile(log, lines.join("\n") + "\n", { append: true });
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    stop.abort();
    await reading;
    rows.push({
      what: `dashboard: build line written → event stream, ${LINES_PER_SECOND} lines/s ` +
        `(median / p95, ${latencies.length} writes timed)`,
      value: latencies.length
        ? `${median(latencies).toFixed(0)} / ${pct(latencies, 0.95).toFixed(0)} ms`
        : "no line arrived",
      budget: `≤ ${LINES_TICK_MS} ms tick (+ the build log's own 500 ms flush in a real build)`,
    });
    if (page) {
      const late = await page.eval<number>("window.__late");
      const held = await page.eval<Record<string, unknown>>("keynobiDashboard()");
      rows.push({
        what: `dashboard page (headless Chromium): worst main-thread lateness with ${ENTRIES} ` +
          `entries and ${LINES_PER_SECOND} lines/s (held ${held.activity_held} entries, ` +
          `${held.activity_rows} rows, ${held.log_lines_held} lines)`,
        value: `${Math.round(late)} ms`,
        budget: "< 100 ms (no frozen page)",
      });
    } else {
      rows.push({
        what: "dashboard page (headless Chromium)",
        value: "skipped: no chromium",
        budget: "",
      });
    }
  } finally {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
  }
  return rows;
}

if (import.meta.main) {
  const { startSimulator } = await import("../tests/sim/mod.ts");
  const { childEnv } = await import("../tests/child_env.ts");
  const sim = await startSimulator();
  const home = await Deno.makeTempDir({ prefix: "keynobi-bench-dashboard-" });
  const env = await childEnv({
    HOME: home,
    KEYNOBI_HOME: `${home}/keynobi`,
    ADB_SERVER_SOCKET: sim.adbServerSocket,
    ANDROID_HOME: sim.sdkRoot,
  });
  try {
    for (const r of await benchDashboard({ env, home, project: sim.projects["sample-kts"] })) {
      console.log(`${r.what}: ${r.value}  (budget ${r.budget})`);
    }
  } finally {
    await sim.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
