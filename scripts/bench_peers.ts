/**
 * `deno task bench peers` (and a part of the full bench): keynobi and its peers side by side on
 * the same simulated emulator behind Google's ADB server (Debian's `adb`), interleaved run by run:
 * spawn → `initialize`, a screen read, a tap, typing, a screenshot, and one scripted task (open
 * the sign-in screen, fill two fields, submit, read the result). Each row: each side's median
 * wall time, the bytes the model reads (the `content` of the answers: text, and images as their
 * base64), and the ratio peer / keynobi. A step a peer cannot do says so in its row.
 *
 * Peers are dev dependencies of the bench only, installed by it into a cache folder
 * (`$KEYNOBI_PEERS_DIR`, default /tmp/keynobi-peers) with npm, never shipped:
 * - `@mobilenext/mobile-mcp` (its Android path: `MOBILEMCP_LEGACY_ROBOT=1`, its `adb` found as
 *   `$ANDROID_HOME/platform-tools/adb`: a private ANDROID_HOME whose adb links to Debian's).
 * - `agent-device` is not driven: its Android screen reads run its own instrumentation APK on the
 *   device, which a simulated device cannot run (its row says so).
 *
 *   deno task bench peers [--json] [--runs N]
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { startSimulator } from "../tests/sim/mod.ts";
import { childEnv } from "../tests/child_env.ts";
import { type BenchRow, median } from "./bench_common.ts";
import { SAMPLE_ACTIVITY, SAMPLE_PACKAGE } from "../tests/sim/ui/app.ts";

export const MOBILE_MCP = "@mobilenext/mobile-mcp@1.0.4";
/** Runs of each step per side (interleaved); `--runs` or BENCH_PEER_RUNS overrides. */
export const DEFAULT_RUNS = 5;
export const MAX_RUNS = 100;
/** One peer call's bound (a peer that hangs makes its row say so, not the bench wait). */
export const CALL_TIMEOUT_MS = 60_000;
/** Wait after the app is started afresh, before a side's timed steps. */
export const SETTLE_AFTER_START_MS = 2_000;
/** How many screen reads the task may take to see the sign-in result. */
export const MAX_RESULT_READS = 10;

const enc = new TextEncoder();
const dec = new TextDecoder();
const MAIN = new URL("../main.ts", import.meta.url).pathname;

interface Answer {
  isError?: boolean;
  content: { type: string; text?: string; data?: string }[];
}

/** The bytes a model reads of an answer: its text, and its images as base64. */
function modelBytes(a: Answer): number {
  let n = 0;
  for (const c of a.content ?? []) {
    if (c.text !== undefined) n += enc.encode(c.text).length;
    if (c.data !== undefined) n += c.data.length;
  }
  return n;
}

function text(a: Answer): string {
  return (a.content ?? []).map((c) => c.text ?? "").join("\n");
}

/** One side of the comparison: how to start it and how it does each step. */
interface Side {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  read(c: Caller): Promise<Answer>;
  tap(c: Caller, x: number, y: number): Promise<Answer>;
  type(c: Caller, s: string): Promise<Answer>;
  screenshot(c: Caller): Promise<Answer>;
  /** Opens sign-in and focuses the email field (not timed: the typing step's start). */
  focusEmail(c: Caller): Promise<void>;
  /** Open sign-in, fill email and password, submit, read until the result shows. */
  task(c: Caller): Promise<{ answers: Answer[]; result: string }>;
}

type Caller = (name: string, args: Record<string, unknown>) => Promise<Answer>;

async function open(side: Side): Promise<{ client: Client; call: Caller; initMs: number }> {
  const transport = new StdioClientTransport({
    command: side.command,
    args: side.args,
    env: side.env,
    stderr: "ignore",
  });
  const client = new Client({ name: "keynobi-bench-peers", version: "0" });
  const t0 = performance.now();
  await client.connect(transport);
  const initMs = performance.now() - t0;
  const call: Caller = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    }) as Answer;
    if (r.isError) throw new Error(`${side.name} ${name}: ${text(r).slice(0, 300)}`);
    return r;
  };
  return { client, call, initMs };
}

// ---- keynobi

function keynobiSide(env: Record<string, string>, serial: string): Side {
  const d = { device_serial: serial };
  const find = (a: Answer, pred: (r: Record<string, string>) => boolean, what: string) => {
    const rows = ((a as unknown as { structuredContent?: { elements?: Record<string, string>[] } })
      .structuredContent?.elements) ?? [];
    const r = rows.find(pred);
    if (!r) throw new Error(`keynobi: no ${what} on the screen`);
    return r.handle;
  };
  return {
    name: "keynobi",
    command: Deno.execPath(),
    args: ["run", ...RUN_FLAGS, MAIN, "--mcp"],
    env,
    read: (c) => c("get_ui_hierarchy", d),
    tap: (c, x, y) => c("ui_tap", { ...d, x, y }),
    type: (c, s) => c("ui_type_text", { ...d, text: s }),
    screenshot: (c) => c("screenshot", d),
    focusEmail: async (c) => {
      const home = await c("get_ui_hierarchy", d);
      const form = await c("ui_tap_element", {
        ...d,
        tree_path: find(home, (r) => r.label?.startsWith("Sign in"), "Sign in"),
      });
      await c("ui_tap_element", {
        ...d,
        tree_path: find(form, (r) => r.resource_id === "email", "email field"),
      });
    },
    task: async (c) => {
      const answers: Answer[] = [];
      const home = await c("get_ui_hierarchy", d);
      answers.push(home);
      const form = await c("ui_tap_element", {
        ...d,
        tree_path: find(home, (r) => r.label?.startsWith("Sign in"), "Sign in"),
      });
      answers.push(form);
      const email = await c("ui_fill_input", {
        ...d,
        tree_path: find(form, (r) => r.resource_id === "email", "email field"),
        text: "ada@example.com",
      });
      answers.push(email);
      const pw = await c("ui_fill_input", {
        ...d,
        tree_path: find(email, (r) => r.resource_id === "password", "password field"),
        text: "hunter22",
      });
      answers.push(pw);
      let last = await c("ui_tap_element", {
        ...d,
        tree_path: find(pw, (r) => r.resource_id === "sign_in", "SIGN IN"),
      });
      answers.push(last);
      for (let k = 0; k < MAX_RESULT_READS && !text(last).includes("Signed in as"); k++) {
        last = await c("get_ui_hierarchy", d);
        answers.push(last);
      }
      return { answers, result: /Signed in as [^\s"]+/.exec(text(last))?.[0] ?? "" };
    },
  };
}

// ---- mobile-mcp

/** `@e5 Button text="SIGN IN" … at=x,y size=WxH`: the centre of the element whose line matches. */
function centreOf(listing: string, pattern: RegExp, what: string): { x: number; y: number } {
  for (const line of listing.split("\n")) {
    if (!pattern.test(line)) continue;
    const at = /at=(\d+),(\d+)/.exec(line);
    const size = /size=(\d+)x(\d+)/.exec(line);
    if (at && size) {
      return {
        x: Number(at[1]) + Math.floor(Number(size[1]) / 2),
        y: Number(at[2]) + Math.floor(Number(size[2]) / 2),
      };
    }
  }
  throw new Error(`mobile-mcp: no ${what} in its element list`);
}

const EMAIL = /id="[^"]*:id\/email"/;
const PASSWORD = /id="[^"]*:id\/password"/;
const SIGN_IN = /id="[^"]*:id\/sign_in"/;

function mobileMcpSide(peersDir: string, env: Record<string, string>, serial: string): Side {
  const d = { device: serial };
  const list = (c: Caller) => c("mobile_list_elements_on_screen", d);
  /**
   * Lists until `pattern` shows, as an agent re-lists a screen still changing (mobile-mcp does
   * not wait for the screen to settle); every listing is counted.
   */
  const listUntil = async (c: Caller, pattern: RegExp, answers: Answer[]) => {
    for (let k = 0; k < MAX_RESULT_READS; k++) {
      const a = await list(c);
      answers.push(a);
      if (pattern.test(text(a))) return a;
    }
    const seen = text(answers.at(-1)!).match(/(text|id)="[^"]*"/g)?.join(" ").slice(0, 400);
    throw new Error(
      `mobile-mcp: ${pattern.source} not on the screen after ${MAX_RESULT_READS} reads (${seen})`,
    );
  };
  return {
    name: "mobile-mcp",
    command: "node",
    args: [join(peersDir, "node_modules", "@mobilenext", "mobile-mcp", "lib", "index.js")],
    env,
    read: list,
    tap: (c, x, y) => c("mobile_click_on_screen_at_coordinates", { ...d, x, y }),
    type: (c, s) => c("mobile_type_keys", { ...d, text: s, submit: false }),
    screenshot: (c) => c("mobile_take_screenshot", d),
    focusEmail: async (c) => {
      const home = await listUntil(c, /Sign in/, []);
      await c("mobile_click_on_screen_at_coordinates", {
        ...d,
        ...centreOf(text(home), /Sign in/, "Sign in"),
      });
      const form = await listUntil(c, EMAIL, []);
      await c("mobile_click_on_screen_at_coordinates", {
        ...d,
        ...centreOf(text(form), EMAIL, "email field"),
      });
    },
    task: async (c) => {
      const answers: Answer[] = [];
      const step = async (name: string, args: Record<string, unknown>) => {
        const a = await c(name, { ...d, ...args });
        answers.push(a);
        return a;
      };
      const home = await listUntil(c, /Sign in/, answers);
      await step(
        "mobile_click_on_screen_at_coordinates",
        centreOf(text(home), /Sign in/, "Sign in"),
      );
      const form = await listUntil(c, EMAIL, answers);
      await step(
        "mobile_click_on_screen_at_coordinates",
        centreOf(text(form), EMAIL, "email field"),
      );
      await step("mobile_type_keys", { text: "ada@example.com", submit: false });
      await step(
        "mobile_click_on_screen_at_coordinates",
        centreOf(text(form), PASSWORD, "password field"),
      );
      await step("mobile_type_keys", { text: "hunter22", submit: false });
      const again = await listUntil(c, SIGN_IN, answers);
      await step(
        "mobile_click_on_screen_at_coordinates",
        centreOf(text(again), SIGN_IN, "SIGN IN"),
      );
      const last = await listUntil(c, /Signed in as/, answers);
      return { answers, result: /Signed in as [^\s"]+/.exec(text(last))?.[0] ?? "" };
    },
  };
}

/** Installs the peers into `dir` with npm once; null when done, else why not. */
async function installPeers(dir: string): Promise<string | null> {
  const marker = join(dir, "node_modules", "@mobilenext", "mobile-mcp", "lib", "index.js");
  try {
    await Deno.stat(marker);
    return null;
  } catch { /* not yet */ }
  await Deno.mkdir(dir, { recursive: true });
  try {
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--silent", MOBILE_MCP],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      return `npm install ${MOBILE_MCP} failed: ${dec.decode(out.stderr).slice(-300)}`;
    }
  } catch (e) {
    return `cannot run npm: ${(e as Error).message}`;
  }
  return null;
}

interface Tally {
  ms: number[];
  bytes: number[];
  /** The runs that failed, and the first failure. */
  failed: number;
  error: string | null;
}

const STEPS = ["spawn → initialize", "screen read", "tap", "typing", "screenshot", "task"] as const;
type Step = typeof STEPS[number];

function newTallies(): Map<Step, Tally> {
  return new Map(STEPS.map((s) => [s, { ms: [], bytes: [], failed: 0, error: null }]));
}

function failed(t: Tally, e: unknown) {
  t.failed++;
  t.error ??= (e as Error).message.split("\n")[0].slice(
    0,
    Number(Deno.env.get("BENCH_PEER_ERROR_CHARS") ?? 160),
  );
}

async function timed(t: Tally, f: () => Promise<Answer | Answer[]>) {
  const t0 = performance.now();
  try {
    const r = await f();
    t.ms.push(performance.now() - t0);
    t.bytes.push((Array.isArray(r) ? r : [r]).reduce((n, a) => n + modelBytes(a), 0));
  } catch (e) {
    failed(t, e);
  }
}

export async function benchPeers(opts: { runs?: number } = {}): Promise<BenchRow[]> {
  const runs = Math.min(Math.max(1, opts.runs ?? DEFAULT_RUNS), MAX_RUNS);
  const peersDir = Deno.env.get("KEYNOBI_PEERS_DIR") ?? "/tmp/keynobi-peers";
  let sim;
  try {
    sim = await startSimulator({ realAdb: true });
  } catch (e) {
    return [{ what: "peers", value: `not run: ${(e as Error).message}`, budget: "—" }];
  }
  try {
    const emu = sim.serialOf("emulator-5554");
    const adb = sim.realAdb!;
    // mobile-mcp reads `uiautomator dump /dev/tty`: the simulated device prints the XML there
    // (real devices disagree, PROTOCOLS.md 7); keynobi tries that form first too.
    await adb.cli(["-s", emu, "shell", "simctl", "ui-tty", "on"]);
    // mobile-mcp reads one root node (`hierarchy.node`): a dump of every window (the simulator's
    // default) has several and it lists no element, so the device dumps the active window only.
    await adb.cli(["-s", emu, "shell", "simctl", "ui-windows", "active"]);
    const home = await Deno.makeTempDir({ prefix: "keynobi-bench-peers-" });
    const androidHome = join(home, "android-sdk");
    await Deno.mkdir(join(androidHome, "platform-tools"), { recursive: true });
    await Deno.symlink(adb.adb, join(androidHome, "platform-tools", "adb"));
    const kEnv = await childEnv({
      HOME: home,
      KEYNOBI_HOME: join(home, "keynobi"),
      ADB_SERVER_SOCKET: sim.adbServerSocket,
      ANDROID_HOME: sim.sdkRoot,
    });
    const mEnv: Record<string, string> = {
      HOME: home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      ANDROID_HOME: androidHome,
      ANDROID_ADB_SERVER_PORT: String(adb.port),
      MOBILEMCP_LEGACY_ROBOT: "1",
      MOBILEMCP_DISABLE_TELEMETRY: "1",
    };
    const sides: Side[] = [keynobiSide(kEnv, emu)];
    const missing = await installPeers(peersDir);
    if (missing === null) sides.push(mobileMcpSide(peersDir, mEnv, emu));
    const tallies = new Map(sides.map((s) => [s.name, newTallies()]));
    const restartApp = async () => {
      await adb.cli(["-s", emu, "shell", "am", "force-stop", SAMPLE_PACKAGE]);
      await adb.cli([
        "-s",
        emu,
        "shell",
        "am",
        "start",
        "-W",
        "-n",
        `${SAMPLE_PACKAGE}/${SAMPLE_ACTIVITY}`,
      ]);
      // Every side starts from the same settled first screen (the app draws its start first).
      await new Promise((r) => setTimeout(r, SETTLE_AFTER_START_MS));
    };
    const dev = sim.device(emu);
    const blank = { x: Math.floor(dev.screen.width / 2), y: Math.floor(dev.screen.height * 0.9) };

    for (let run = 0; run < runs; run++) {
      // Interleaved: each run does every side once, in turn, from the same start.
      for (const side of sides) {
        const t = tallies.get(side.name)!;
        let session: Awaited<ReturnType<typeof open>> | null = null;
        try {
          session = await open(side);
          t.get("spawn → initialize")!.ms.push(session.initMs);
          t.get("spawn → initialize")!.bytes.push(0);
        } catch (e) {
          failed(t.get("spawn → initialize")!, e);
          continue;
        }
        const c = session.call;
        try {
          await restartApp();
          await timed(t.get("screen read")!, () => side.read(c));
          await timed(t.get("tap")!, () => side.tap(c, blank.x, blank.y));
          await timed(t.get("screenshot")!, () => side.screenshot(c));
          await restartApp();
          const task = t.get("task")!;
          await timed(task, async () => {
            const r = await side.task(c);
            if (!r.result) throw new Error("the task ended without the sign-in result");
            return r.answers;
          });
          await restartApp();
          const typing = t.get("typing")!;
          let focused = true;
          try {
            await side.focusEmail(c);
          } catch (e) {
            focused = false;
            failed(typing, new Error(`could not focus the field: ${(e as Error).message}`));
          }
          if (focused) await timed(typing, () => side.type(c, "ada@example.com"));
        } finally {
          await session.client.close().catch(() => {});
        }
      }
    }

    const rows: BenchRow[] = [];
    if (missing !== null) {
      rows.push({ what: "peers: mobile-mcp", value: `not run: ${missing}`, budget: "—" });
    }
    const k = tallies.get("keynobi")!;
    /** Medians over the runs that succeeded; how many failed and the first failure. */
    const fmt = (t: Tally) =>
      t.ms.length === 0
        ? `cannot: ${t.error}`
        : `${median(t.ms).toFixed(0)} ms, ${Math.round(median(t.bytes))} B` +
          (t.failed ? ` (failed ${t.failed} of ${t.failed + t.ms.length}: ${t.error})` : "");
    for (const step of STEPS) {
      const kt = k.get(step)!;
      for (const side of sides.slice(1)) {
        const pt = tallies.get(side.name)!.get(step)!;
        let ratio = "";
        if (kt.ms.length && pt.ms.length) {
          const tr = median(pt.ms) / median(kt.ms);
          const kb = median(kt.bytes);
          const br = kb > 0 ? median(pt.bytes) / kb : NaN;
          ratio = `; ${side.name}/keynobi time ×${tr.toFixed(2)}` +
            (Number.isFinite(br) ? `, bytes ×${br.toFixed(2)}` : "");
        }
        rows.push({
          what: `peers, ${step} (median of ${runs})`,
          value: `keynobi ${fmt(kt)}; ${side.name} ${fmt(pt)}${ratio}`,
          budget: "—",
        });
      }
      if (sides.length === 1) {
        rows.push({ what: `peers, ${step}`, value: `keynobi ${fmt(kt)}`, budget: "—" });
      }
    }
    rows.push({
      what: "peers: agent-device",
      value: "not run: its Android screen reads go through its own instrumentation APK " +
        "(`am instrument` of com.callstack.agentdevice.snapshothelper, protocol " +
        "android-snapshot-helper-v1), app code the simulated device cannot run; it also " +
        "needs Node >= 22.12",
      budget: "—",
    });
    await Deno.remove(home, { recursive: true }).catch(() => {});
    return rows;
  } finally {
    await sim.close();
  }
}

if (import.meta.main) {
  const json = Deno.args.includes("--json");
  const at = Deno.args.indexOf("--runs");
  const runs = at >= 0
    ? Number(Deno.args[at + 1])
    : Number(Deno.env.get("BENCH_PEER_RUNS") ?? DEFAULT_RUNS);
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
    console.error(`bench peers: --runs must be an integer in 1..${MAX_RUNS}`);
    Deno.exit(2);
  }
  const rows = await benchPeers({ runs });
  if (json) console.log(JSON.stringify(rows));
  else {
    const width = Math.max(...rows.map((r) => r.what.length));
    for (const r of rows) console.log(`${r.what.padEnd(width)}  ${r.value}`);
  }
}
