/**
 * The simulated emulator's gRPC endpoint: `android.emulation.control.EmulatorController` from
 * proto/emulator_controller.proto served by @grpc/grpc-js on 127.0.0.1 (loaded on start, so tests
 * that do not ask for it never import it), with the emulator's token auth, and a discovery file
 * `<discovery root>/avd/running/pid_<pid>.ini` written as the emulator writes it
 * (../shared/EMULATOR.md §1, §2).
 *
 * Frames are the UI service's screen rendered (tests/sim/ui/render.ts) and scaled to the
 * requested bounds as RGB888; touches arrive in the display's natural orientation and are turned
 * back into screen coordinates, then fed to the same app model `input motionevent` drives; keys
 * become the Android key codes `input keyevent` uses; the body's rotation (setPhysicalModel
 * ROTATION) turns the screen; get/setClipboard read and write the device's clipboard, which
 * KEYCODE_PASTE pastes into the focused field.
 *
 * Test controls (`adb shell simctl …` on the emulator, or `control`):
 * - `simctl grpc-refuse <method|all> unimplemented|permission_denied|unauthenticated|none`
 * - `simctl grpc-stop`: the server stops, its discovery file stays (a crashed emulator)
 * - `simctl grpc-token <token>`: the server accepts only that token from now on (the file keeps
 *   the old one, so clients that read it are refused)
 * - `simctl grpc-calls`: the methods served so far, one per line
 * - `simctl grpc-frame <W>x<H>|off`: getScreenshot answers a valid W×H RGB888 frame whatever
 *   size it was asked for (an endpoint that ignores the request's bounds)
 * - `simctl grpc-goaway on|off`: every connection ends after its next call with a graceful
 *   GOAWAY and a closed socket, as when the emulator exits (tests/sim/emulator/goaway_front.ts)
 */
import { join } from "node:path";
import type { DeviceService, VirtualDevice } from "../device.ts";
import type { ShIo } from "../sh_exec.ts";
import type { UiService } from "../ui/service.ts";
import { rasterize } from "../ui/render.ts";
import { type GoawayFront, startGoawayFront } from "./goaway_front.ts";

const enc = new TextEncoder();

/** The proto the real emulator serves (the subset keynobi uses). */
export const PROTO_PATH = new URL("../../../proto/emulator_controller.proto", import.meta.url)
  .pathname;
export const SIM_EMULATOR_VERSION = "35.1.20.0";
/** Methods kept in the call log, at most. */
export const MAX_CALL_LOG = 1_000;

/** gRPC status codes the simulator answers with. */
export const Status = {
  UNAUTHENTICATED: 16,
  PERMISSION_DENIED: 7,
  UNIMPLEMENTED: 12,
  INVALID_ARGUMENT: 3,
} as const;

export type Refusal = "unimplemented" | "permission_denied" | "unauthenticated";

const SERVICE_PATH = "/android.emulation.control.EmulatorController/";

/** DOM `KeyboardEvent.key` names the emulator knows → Android key codes (EMULATOR.md §4.5). */
const KEY_CODES: Record<string, number> = {
  GoHome: 3,
  GoBack: 4,
  AppSwitch: 187,
  Power: 26,
  Enter: 66,
  Backspace: 67,
  Delete: 112,
  Tab: 61,
  Escape: 111,
  ArrowUp: 19,
  ArrowDown: 20,
  ArrowLeft: 21,
  ArrowRight: 22,
  Home: 122,
  End: 123,
};

// deno-lint-ignore no-explicit-any
type Any = any;

export interface GrpcControl {
  readonly port: number;
  readonly token: string;
  readonly discoveryFile: string;
  /** Methods served (authorized or not), oldest first. */
  readonly calls: string[];
  refuse(method: string, how: Refusal | "none"): void;
  setToken(token: string): void;
  /** Every connection ends after its next call with a graceful GOAWAY (an exiting emulator). */
  goaway(on: boolean): void;
  /** GOAWAY frames sent so far. */
  readonly goaways: number;
  /** getScreenshot answers this size whatever was asked (null: as the emulator does). */
  frameSize(size: { width: number; height: number } | null): void;
  stop(): Promise<void>;
}

function randomToken(): string {
  const b = new Uint8Array(64);
  crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b));
}

/** Quadrant of a body rotation around z (degrees): 0 portrait, 90 landscape, 180, -90. */
export function quadrantOfZ(z: number): number {
  const d = ((Math.round(z) % 360) + 360) % 360;
  if (d >= 45 && d < 135) return 1;
  if (d >= 135 && d < 225) return 2;
  if (d >= 225 && d < 315) return 3;
  return 0;
}

/** A point in the natural display space → the screen as rotated by `r` (size w×h as rotated). */
export function naturalToScreen(x: number, y: number, r: number, w: number, h: number) {
  switch (r) {
    case 1:
      return { x: y, y: h - x };
    case 2:
      return { x: w - x, y: h - y };
    case 3:
      return { x: w - y, y: x };
    default:
      return { x, y };
  }
}

/** Area-sampled RGBA → RGB888 at `tw`×`th`. */
function scaleToRgb(px: Uint8Array, w: number, h: number, tw: number, th: number): Uint8Array {
  const out = new Uint8Array(tw * th * 3);
  for (let y = 0; y < th; y++) {
    const sy = Math.min(h - 1, Math.floor((y + 0.5) * h / th));
    for (let x = 0; x < tw; x++) {
      const sx = Math.min(w - 1, Math.floor((x + 0.5) * w / tw));
      const i = (sy * w + sx) * 4, o = (y * tw + x) * 3;
      out[o] = px[i];
      out[o + 1] = px[i + 1];
      out[o + 2] = px[i + 2];
    }
  }
  return out;
}

/** The frame size for bounds (0 = display size): fit inside, keep the aspect, never enlarge. */
export function fitFrame(w: number, h: number, bw: number, bh: number) {
  if (bw === 0 && bh === 0) return { width: w, height: h };
  const s = Math.min(1, (bw || Infinity) / w, (bh || Infinity) / h);
  return { width: Math.max(1, Math.round(w * s)), height: Math.max(1, Math.round(h * s)) };
}

export class EmulatorGrpcService implements DeviceService {
  readonly name = "emulator-grpc";
  control: GrpcControl | null = null;
  private server: Any = null;
  private front: GoawayFront | null = null;
  private token = randomToken();
  private refusals = new Map<string, Refusal>();
  private readonly calls: string[] = [];
  private body: [number, number, number] = [0, 0, 0];
  private forcedFrame: { width: number; height: number } | null = null;

  constructor(readonly device: VirtualDevice, private readonly discoveryRoot: string) {}

  private ui(): UiService {
    const ui = this.device.service<UiService>("ui");
    if (!ui) throw new Error(`${this.device.serial} has no ui service`);
    return ui;
  }

  /** Starts the server and writes the discovery file. */
  async start(): Promise<GrpcControl> {
    const grpc = await import("@grpc/grpc-js");
    const loader = await import("@grpc/proto-loader");
    const def = loader.loadSync(PROTO_PATH, {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as Any;
    const svc = pkg.android.emulation.control.EmulatorController.service;
    const server = new grpc.Server();
    const guard = (method: string, fn: (req: Any) => Any) => (call: Any, cb: Any) => {
      this.calls.push(method);
      if (this.calls.length > MAX_CALL_LOG) this.calls.shift();
      const auth = call.metadata.get("authorization")[0];
      if (auth === undefined) {
        return cb({
          code: Status.UNAUTHENTICATED,
          details: "Missing the 'authorization' header with security credentials.",
        });
      }
      if (auth !== `Bearer ${this.token}`) {
        return cb({ code: Status.UNAUTHENTICATED, details: `The token \`${auth}\` is invalid` });
      }
      const refusal = this.refusals.get(method) ?? this.refusals.get("all");
      if (refusal === "unimplemented") return cb({ code: Status.UNIMPLEMENTED, details: "" });
      if (refusal === "unauthenticated") {
        return cb({ code: Status.UNAUTHENTICATED, details: `The token \`${auth}\` is invalid` });
      }
      if (refusal === "permission_denied") {
        return cb({
          code: Status.PERMISSION_DENIED,
          details: `The endpoint: ${SERVICE_PATH}${method} is not on the allowlist loaded from: ` +
            "`emulator_access.json`.",
        });
      }
      try {
        cb(null, fn(call.request));
      } catch (e) {
        cb({ code: Status.INVALID_ARGUMENT, details: (e as Error).message });
      }
    };
    server.addService(svc, {
      getScreenshot: guard("getScreenshot", (r) => this.screenshot(r)),
      sendTouch: guard("sendTouch", (r) => this.touch(r)),
      sendKey: guard("sendKey", (r) => this.key(r)),
      setPhysicalModel: guard("setPhysicalModel", (r) => this.setPhysical(r)),
      getPhysicalModel: guard("getPhysicalModel", (r) => this.getPhysical(r)),
      getStatus: guard("getStatus", () => this.status()),
      getClipboard: guard("getClipboard", () => ({ text: this.ui().clipboard })),
      setClipboard: guard("setClipboard", (r) => {
        this.ui().clipboard = String(r.text ?? "");
        return {};
      }),
    });
    const backendPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(
        "127.0.0.1:0",
        grpc.ServerCredentials.createInsecure(),
        (e: Error | null, p: number) => e ? reject(e) : resolve(p),
      )
    );
    this.server = server;
    const front = startGoawayFront(backendPort);
    this.front = front;
    const port = front.port;
    const file = await this.advertise(port);
    const token = () => this.token;
    this.control = {
      port,
      get token() {
        return token();
      },
      discoveryFile: file,
      calls: this.calls,
      refuse: (method, how) => {
        if (how === "none") this.refusals.delete(method);
        else this.refusals.set(method, how);
      },
      setToken: (t) => {
        this.token = t;
      },
      goaway: (on) => front.setGoaway(on),
      frameSize: (size) => {
        this.forcedFrame = size;
      },
      get goaways() {
        return front.goaways;
      },
      stop: () => this.stopServer(),
    };
    return this.control;
  }

  private async advertise(port: number): Promise<string> {
    const dir = join(this.discoveryRoot, "avd", "running");
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const consolePort = Number(/^emulator-(\d+)$/.exec(this.device.serial)?.[1] ?? 5554);
    // A pid no process of this machine is likely to have, stable per console port.
    const file = join(dir, `pid_${90_000 + consolePort}.ini`);
    const avd = this.device.props.get("ro.boot.qemu.avd_name") ?? "Pixel_8_API_35";
    const lines = [
      `port.serial=${consolePort}`,
      `port.adb=${consolePort + 1}`,
      `avd.name=${avd.replaceAll("_", " ")}`,
      `avd.id=${avd}`,
      `avd.dir=/home/sim/.android/avd/${avd}.avd`,
      `cmdline="emulator" "-avd" "${avd}" "-grpc-use-token"`,
      `emulator.version=${SIM_EMULATOR_VERSION}`,
      `grpc.port=${port}`,
      `grpc.token=${this.token}`,
    ];
    await Deno.writeTextFile(file, lines.join("\n") + "\n", { mode: 0o600 });
    return file;
  }

  private async stopServer() {
    const s = this.server;
    this.server = null;
    const front = this.front;
    this.front = null;
    await front?.close();
    if (s) await new Promise<void>((resolve) => s.tryShutdown(() => resolve()));
  }

  // ---- the calls

  private screenshot(r: Any) {
    const ui = this.ui();
    const { width, height } = ui.size();
    const fmt = r.format ?? "PNG";
    if (fmt !== "RGB888") throw new Error(`the simulator serves RGB888 frames, not ${fmt}`);
    const px = rasterize(ui.currentPaints(), width, height);
    const size = this.forcedFrame ?? fitFrame(width, height, r.width ?? 0, r.height ?? 0);
    const rgb = scaleToRgb(px, width, height, size.width, size.height);
    const names = ["PORTRAIT", "LANDSCAPE", "REVERSE_PORTRAIT", "REVERSE_LANDSCAPE"];
    return {
      format: {
        format: "RGB888",
        width: size.width,
        height: size.height,
        rotation: {
          rotation: names[ui.settings.rotation] ?? "PORTRAIT",
          xAxis: this.body[0],
          yAxis: this.body[1],
          zAxis: this.body[2],
        },
        display: 0,
      },
      image: rgb,
      seq: this.calls.length,
      timestampUs: String(Date.now() * 1000),
    };
  }

  private touch(r: Any) {
    const ui = this.ui();
    const { width, height } = ui.size();
    const rot = ui.settings.rotation;
    // The natural display: the physical panel, scaled to the size apps see (wm size).
    const d = this.device;
    const panel = d.screen;
    const logical = d.overrideSize ?? d.screen;
    for (const t of r.touches ?? []) {
      const nx = (t.x ?? 0) * logical.width / panel.width;
      const ny = (t.y ?? 0) * logical.height / panel.height;
      const p = naturalToScreen(nx, ny, rot, width, height);
      ui.touchPointer(t.identifier ?? 0, (t.pressure ?? 0) !== 0, Math.round(p.x), Math.round(p.y));
    }
    return {};
  }

  private key(r: Any) {
    const type = r.eventType ?? "keydown";
    if (type === "keydown") return {}; // held until its keyup
    const code = r.key ? KEY_CODES[r.key] : undefined;
    if (r.key && code === undefined && r.key.length === 1) {
      this.ui().app.type(r.key);
      return {};
    }
    if (code === undefined) throw new Error(`Unknown key ${JSON.stringify(r.key ?? r.keyCode)}`);
    this.ui().pressKey(code);
    return {};
  }

  private setPhysical(r: Any) {
    if (r.target !== "ROTATION") return {};
    const data: number[] = r.value?.data ?? [];
    this.body = [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0];
    this.ui().settings.rotation = quadrantOfZ(this.body[2]);
    return {};
  }

  private getPhysical(r: Any) {
    if (r.target !== "ROTATION") return { target: r.target, status: "OK", value: { data: [] } };
    return { target: "ROTATION", status: "OK", value: { data: [...this.body] } };
  }

  private status() {
    const s = this.device.screen;
    return {
      version: `${SIM_EMULATOR_VERSION} (build_id 12291491) (CL:N/A)`,
      uptime: "1000",
      booted: this.device.props.get("sys.boot_completed") === "1",
      hardwareConfig: {
        entry: [
          { key: "hw.lcd.width", value: String(s.width) },
          { key: "hw.lcd.height", value: String(s.height) },
          { key: "hw.lcd.density", value: String(s.density) },
        ],
      },
    };
  }

  // ---- simctl

  simctl(args: string[], io: ShIo): Promise<number | null> | number | null {
    const [sub, a, b] = args;
    const fail = (msg: string) => {
      io.err(enc.encode(`simctl: ${msg}\n`));
      return 1;
    };
    if (!sub?.startsWith("grpc-")) return null;
    if (!this.control) return fail(`${this.device.serial} serves no gRPC (start it with grpc)`);
    switch (sub) {
      case "grpc-refuse": {
        const how = b as Refusal | "none";
        if (
          !a || !["unimplemented", "permission_denied", "unauthenticated", "none"].includes(how)
        ) {
          return fail(
            "usage: simctl grpc-refuse <method|all> unimplemented|permission_denied|" +
              "unauthenticated|none",
          );
        }
        this.control.refuse(a, how);
        return 0;
      }
      case "grpc-stop":
        return this.control.stop().then(() => 0);
      case "grpc-token":
        if (!a) return fail("usage: simctl grpc-token <token>");
        this.control.setToken(a);
        return 0;
      case "grpc-frame": {
        const m = /^(\d{1,5})x(\d{1,5})$/.exec(a ?? "");
        if (a !== "off" && !m) return fail("usage: simctl grpc-frame <W>x<H>|off");
        this.control.frameSize(m ? { width: Number(m[1]), height: Number(m[2]) } : null);
        return 0;
      }
      case "grpc-goaway":
        if (a !== "on" && a !== "off") return fail("usage: simctl grpc-goaway on|off");
        this.control.goaway(a === "on");
        return 0;
      case "grpc-calls":
        io.out(enc.encode(this.calls.map((c) => c + "\n").join("")));
        return 0;
    }
    return fail(`unknown gRPC control ${sub}`);
  }

  async close() {
    await this.stopServer();
    // A clean exit removes its own discovery file, as the emulator does.
    if (this.control) await Deno.remove(this.control.discoveryFile).catch(() => {});
  }
}
