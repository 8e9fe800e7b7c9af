/**
 * `deno task bench`, emulator fast paths: side by side in one run against the simulator's
 * emulator (its gRPC endpoint and its ADB server), so both paths pay the same simulated screen
 * rendering. gRPC frames at 108 and 540 px vs `screencap -p` + decode + downscale to the same
 * size; a tap's round trip over gRPC (`sendTouch`) vs `input tap`; PNG vs JPEG encoding of the
 * frames; and a whole act-and-settle step (`ui_tap_element` through keynobi --mcp) on each path.
 */
import { AdbClient } from "../lib/adb/client.ts";
import { mapEnv } from "../lib/core/env.ts";
import { endpointForSerial, readDiscovery } from "../lib/emulator/shared/discovery.ts";
import { closeEmulatorChannels, emulatorRpc } from "../lib/emulator/grpc_client.ts";
import { readRgbFrame, requestBounds, rgbToRgba } from "../lib/emulator/frames.ts";
import { tapSteps } from "../lib/emulator/touch.ts";
import { captureScreenshot } from "../lib/ui/screenshot.ts";
import { encodePng } from "../lib/ui/png.ts";
import { encodeJpeg } from "../lib/ui/jpeg.ts";
import { runInput, tapArgv } from "../lib/ui/actions.ts";
import { startSimulator } from "../tests/sim/mod.ts";
import { childEnv } from "../tests/child_env.ts";
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { extractTree, INIT, RawSession } from "./bench_common.ts";

type Row = { what: string; value: string; budget: string };

const RUNS = Number(Deno.env.get("BENCH_EMULATOR_RUNS") ?? 15);
const EMU = "emulator-5554";

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

async function timed(n: number, fn: () => unknown): Promise<number[]> {
  await fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

const ms = (a: number[]) => `${median(a).toFixed(1)} ms`;

type Sim = Awaited<ReturnType<typeof startSimulator>>;

const ACT_RUNS = Number(Deno.env.get("BENCH_ACT_RUNS") ?? 5);

/** The last commit before a UI action became one worker request (`ui.act`, 8823e48). */
const BEFORE_ACT_REF = "79936c8";

/** `keynobi --mcp` (this tree's, or `root`'s) over stdio, answers by id (enough for tools/call). */
async function mcpSession(sim: Sim, home: string, root = new URL("../", import.meta.url).pathname) {
  const env = await childEnv({
    HOME: home,
    KEYNOBI_HOME: `${home}/keynobi`,
    ADB_SERVER_SOCKET: sim.adbServerSocket,
    ANDROID_HOME: sim.sdkRoot,
    XDG_RUNTIME_DIR: sim.discoveryRoot,
  });
  const s = new RawSession(
    ["run", ...RUN_FLAGS, `${root.replace(/\/$/, "")}/main.ts`, "--mcp"],
    env,
    home,
  );
  let id = 1;
  await s.request(id, "initialize", INIT);
  const tool = async (name: string, args: Record<string, unknown>) => {
    const m = await s.request(++id, "tools/call", { name, arguments: args }) as {
      result?: { isError?: boolean; content?: unknown; structuredContent?: unknown };
    };
    if (!m.result || m.result.isError) {
      throw new Error(`${name}: ${JSON.stringify(m.result?.content ?? m)}`);
    }
    return m.result.structuredContent as Record<string, unknown>;
  };
  return { tool, close: () => s.close() };
}

/** The sample app's home screen (its list has "Load data"). */
function onHome(list: Record<string, unknown>): boolean {
  return (list.elements as { label: string }[]).some((x) => x.label.startsWith("Load data"));
}

/**
 * ui_tap_element on "Sign in" from the home screen, per serial: the whole act-and-settle step,
 * before `ui.act` (the tree at BEFORE_ACT_REF) and after (this tree), side by side in one run.
 */
async function actAndSettle(sim: Sim): Promise<Row[]> {
  const before = await extractTree(BEFORE_ACT_REF, "keynobi-act-before-");
  const after = await actSteps(sim);
  const rows: Row[] = [];
  try {
    const old = before ? await actSteps(sim, before) : null;
    for (const [serial, a] of after) {
      const b = old?.get(serial);
      rows.push({
        what: `act-and-settle step (ui_tap_element) on ${serial}, before → after ui.act`,
        value: `${b ? `${ms(b.times)} over ${b.path}` : "before: not measured"} → ` +
          `${ms(a.times)} over ${a.path} (medians, n=${a.times.length}; each includes the ` +
          "app's simulated 800 ms response and transition)",
        budget: "—",
      });
    }
  } finally {
    if (before) await Deno.remove(before, { recursive: true }).catch(() => {});
  }
  return rows;
}

/** The act-and-settle steps of one keynobi tree, per serial: times and the input path used. */
async function actSteps(
  sim: Sim,
  root?: string,
): Promise<Map<string, { times: number[]; path: string }>> {
  const home = await Deno.makeTempDir({ prefix: "keynobi-bench-act-" });
  const s = await mcpSession(sim, home, root);
  const out = new Map<string, { times: number[]; path: string }>();
  try {
    for (const serial of [EMU, "R5CT1234ABC"]) {
      const times: number[] = [];
      let path = "";
      for (let i = 0; i < ACT_RUNS + 1; i++) {
        // Back on the home screen (BACK hides a keyboard first, then leaves the form).
        let home = await s.tool("get_ui_hierarchy", { device_serial: serial });
        for (let k = 0; k < 4 && !onHome(home); k++) {
          await s.tool("send_ui_key", { device_serial: serial, key: "BACK" });
          home = await s.tool("get_ui_hierarchy", { device_serial: serial });
        }
        const signIn = (home.elements as { handle: string; label: string }[])
          .find((x) => x.label.startsWith("Sign in"))!;
        const t = performance.now();
        const r = await s.tool("ui_tap_element", {
          device_serial: serial,
          tree_path: signIn.handle,
        });
        if (i > 0) times.push(performance.now() - t);
        path = String(r.path);
      }
      out.set(serial, { times, path });
    }
  } finally {
    await s.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
  return out;
}

export async function benchEmulator(
  actStep: ((sim: Sim) => Promise<Row[]>) | null = actAndSettle,
): Promise<Row[]> {
  await using sim = await startSimulator({ grpc: true });
  const rows: Row[] = [];
  const adb = new AdbClient({
    address: { host: "127.0.0.1", port: sim.port },
    env: mapEnv({}),
    startServer: false,
  });
  const ep = endpointForSerial(
    await readDiscovery([`${sim.discoveryRoot}/avd/running`]),
    EMU,
  );
  if (!ep) throw new Error("the simulator advertised no gRPC endpoint");
  const rpc = await emulatorRpc(ep);
  rpc.acquire?.(); // one channel through the whole run (ADB runs between its calls)
  try {
    const frames: Record<number, { w: number; h: number; rgba: Uint8Array }> = {};
    for (const size of [108, 540]) {
      const grpcT = await timed(RUNS, async () => {
        const f = readRgbFrame(
          await rpc.getScreenshot({ format: "RGB888", ...requestBounds(size) }),
        );
        frames[size] = { w: f.width, h: f.height, rgba: rgbToRgba(f.rgb, f.width, f.height) };
      });
      const adbT = await timed(
        RUNS,
        () => captureScreenshot(adb, EMU, { maxDimension: Math.max(size, 108) }),
      );
      rows.push({
        what: `emulator frame ${size} px: gRPC RGB888 vs screencap+decode+downscale`,
        value: `gRPC ${ms(grpcT)}, ADB ${ms(adbT)} (ratio ${
          (median(adbT) / median(grpcT)).toFixed(1)
        }×; droidpilot on a real emulator: ${size === 108 ? 2 : 8} ms)`,
        budget: "—",
      });
    }
    for (const size of [540, 1280]) {
      const f = readRgbFrame(await rpc.getScreenshot({ format: "RGB888", ...requestBounds(size) }));
      const img = { width: f.width, height: f.height, data: rgbToRgba(f.rgb, f.width, f.height) };
      let png = 0, jpg = 0;
      const pngT = await timed(RUNS, async () => {
        png = (await encodePng(img)).length;
      });
      const jpgT = await timed(RUNS, () => {
        jpg = encodeJpeg(img, 80).length;
        return Promise.resolve();
      });
      rows.push({
        what: `encode ${f.width}x${f.height} frame: PNG vs JPEG q80`,
        value: `PNG ${ms(pngT)} ${png} B, JPEG ${
          ms(jpgT)
        } ${jpg} B (same pixels, same image tokens)`,
        budget: "—",
      });
    }
    const touch = await timed(RUNS, async () => {
      for (const s of tapSteps({ x: 540, y: 300 })) await rpc.sendTouch(s.event);
    });
    const input = await timed(RUNS, () => runInput(adb, EMU, tapArgv({ x: 540, y: 300 })));
    rows.push({
      what: "tap round trip: gRPC sendTouch (down+up) vs input tap",
      value: `gRPC ${ms(touch)}, ADB ${ms(input)} (the 40 ms finger hold not included; the ` +
        "simulator's input is instant, a real device spawns a process per input command)",
      budget: "—",
    });
    if (actStep) rows.push(...await actStep(sim));
  } finally {
    rpc.release?.();
    closeEmulatorChannels();
  }
  return rows;
}

if (import.meta.main) {
  const rows = await benchEmulator();
  if (Deno.args.includes("--json")) console.log(JSON.stringify(rows));
  else for (const r of rows) console.log(`${r.what}  ${r.value}`);
}
