/**
 * A virtual device: what `getprop`, `wm`, `dumpsys battery` and `cat` see, its adb state and
 * feature set, canned responses installed by `simctl respond`, and the streams open to it.
 */
import type { ShellRun } from "./sh_exec.ts";
import { DeviceLog } from "./device_log.ts";
import { absPath, type CommandHook, SHELL_NAME, type ShFs, type ShIo } from "./sh_exec.ts";

const enc = new TextEncoder();

export const DeviceKind = { emulator: "emulator", usb: "usb", wireless: "wireless" } as const;
export type DeviceKind = typeof DeviceKind[keyof typeof DeviceKind];

/** States a simulated device may be put in (`simctl state`). */
export const SETTABLE_STATES = ["device", "offline", "unauthorized"] as const;
export type DeviceState = typeof SETTABLE_STATES[number];

/** The minimal safe feature set (PROTOCOLS.md 3): advertise only what the simulator implements. */
export const DEFAULT_FEATURES: readonly string[] = ["shell_v2", "cmd", "fixed_push_mkdir"];

/** Bound on `simctl respond` rules per device. */
export const MAX_RESPONDERS = 256;
/** Longest `simctl disconnect` (seconds). */
export const MAX_DISCONNECT_SECONDS = 3600;

export interface Battery {
  acPowered: boolean;
  usbPowered: boolean;
  wirelessPowered: boolean;
  status: number;
  health: number;
  present: boolean;
  level: number;
  scale: number;
  voltage: number;
  temperature: number;
  technology: string;
}

export interface DeviceSpec {
  serial: string;
  kind: DeviceKind;
  api: number;
  devpath: string;
  props: Record<string, string>;
  screen: { width: number; height: number; density: number };
  battery: Battery;
  files: Record<string, string>;
  env: Record<string, string>;
}

export interface Responder {
  prefix: string[];
  hostFile: string;
}

/** What the server needs to be told when a device changes (list, state, presence). */
export interface DeviceHost {
  deviceChanged(device: VirtualDevice): void;
  disconnectFor(device: VirtualDevice, seconds: number): void;
}

/**
 * A feature area of the simulated device (apps and activity manager, logcat, the UI) that serves
 * some device commands and `simctl` subcommands. Services live in their own folders
 * (tests/sim/apps/, tests/sim/logcat/, tests/sim/ui/) and are attached by tests/sim/services.ts.
 */
export interface DeviceService {
  readonly name: string;
  /** Runs a device command it knows (exit status), or returns null to let others try. */
  command?(
    argv: string[],
    io: ShIo,
    shell: ShellRun,
  ): Promise<number | null> | number | null;
  /** Runs a `simctl <sub> ...` it knows, or returns null. */
  simctl?(args: string[], io: ShIo): Promise<number | null> | number | null;
  /** Releases timers and streams when the simulator closes. */
  close?(): void | Promise<void>;
}

export class VirtualDevice {
  readonly serial: string;
  readonly kind: DeviceKind;
  readonly api: number;
  readonly devpath: string;
  readonly props: Map<string, string>;
  readonly files = new Map<string, Uint8Array>();
  readonly dirs = new Set<string>(["/"]);
  readonly env: Record<string, string>;
  state: DeviceState = "device";
  features: string[] = [...DEFAULT_FEATURES];
  /** False while `simctl disconnect` has taken it off the server's list. */
  present = true;
  transportId = 0;
  screen: { width: number; height: number; density: number };
  overrideSize: { width: number; height: number } | null = null;
  overrideDensity: number | null = null;
  battery: Battery;
  responders: Responder[] = [];
  /** Closers of every stream currently open to this device. */
  readonly streams = new Set<() => void>();
  host: DeviceHost | null = null;
  /** Actions a `simctl` command asked for, run by the server once that stream has ended. */
  afterStream: (() => void)[] = [];
  /** The device's log buffer (logd): services write to it, logcat reads it. */
  readonly log = new DeviceLog();
  /** Feature areas attached by tests/sim/services.ts, asked in order before the built-ins. */
  readonly services: DeviceService[] = [];

  addService(service: DeviceService): void {
    this.services.push(service);
  }

  service<T extends DeviceService>(name: string): T | undefined {
    return this.services.find((s) => s.name === name) as T | undefined;
  }

  constructor(spec: DeviceSpec) {
    this.serial = spec.serial;
    this.kind = spec.kind;
    this.api = spec.api;
    this.devpath = spec.devpath;
    this.props = new Map(Object.entries(spec.props));
    this.screen = { ...spec.screen };
    this.battery = { ...spec.battery };
    this.env = { ...spec.env };
    for (const [p, text] of Object.entries(spec.files)) this.writeFile(p, enc.encode(text));
    for (const d of ["/sdcard", "/data/local/tmp", "/dev", "/proc", "/system/bin"]) this.mkdirs(d);
  }

  get model(): string {
    return this.props.get("ro.product.model") ?? "";
  }
  get product(): string {
    return this.props.get("ro.product.name") ?? "";
  }
  get deviceName(): string {
    return this.props.get("ro.product.device") ?? "";
  }

  mkdirs(path: string) {
    let p = path;
    while (p !== "/" && p !== "") {
      this.dirs.add(p);
      p = p.slice(0, p.lastIndexOf("/")) || "/";
    }
  }

  writeFile(path: string, data: Uint8Array, append = false) {
    const old = append ? this.files.get(path) : undefined;
    if (old) {
      const joined = new Uint8Array(old.length + data.length);
      joined.set(old);
      joined.set(data, old.length);
      this.files.set(path, joined);
    } else this.files.set(path, data);
    this.mkdirs(path.slice(0, path.lastIndexOf("/")) || "/");
  }

  fs(): ShFs {
    return {
      read: (p) => this.files.get(p),
      isDir: (p) => this.dirs.has(p),
      write: (p, d, append) => this.writeFile(p, d, append),
      paths: () => [...this.dirs, ...this.files.keys()],
    };
  }

  /** Closes every open stream (disconnect, state change). */
  closeStreams() {
    for (const close of [...this.streams]) close();
    this.streams.clear();
  }

  setState(state: DeviceState) {
    this.state = state;
    if (state !== "device") this.closeStreams();
    this.host?.deviceChanged(this);
  }

  setFeatures(features: string[]) {
    this.features = [...new Set(features.filter((f) => f !== ""))];
    this.host?.deviceChanged(this);
  }

  addResponder(prefix: string[], hostFile: string) {
    if (prefix.length === 0) throw new RangeError("Cannot add responder: empty argv prefix");
    this.responders = this.responders.filter((r) => !sameArgv(r.prefix, prefix));
    this.responders.unshift({ prefix, hostFile });
    this.responders.length = Math.min(this.responders.length, MAX_RESPONDERS);
  }

  /** The newest responder whose prefix starts `argv`; longer prefixes win ties. */
  findResponder(argv: string[]): Responder | undefined {
    let best: Responder | undefined;
    for (const r of this.responders) {
      if (r.prefix.length > argv.length) continue;
      if (!r.prefix.every((a, k) => a === argv[k])) continue;
      if (!best || r.prefix.length > best.prefix.length) best = r;
    }
    return best;
  }

  getpropText(): string {
    const keys = [...this.props.keys()].sort();
    return keys.map((k) => `[${k}]: [${this.props.get(k)}]\n`).join("");
  }

  batteryText(): string {
    const b = this.battery;
    const lines = [
      "Current Battery Service state:",
      `  AC powered: ${b.acPowered}`,
      `  USB powered: ${b.usbPowered}`,
      `  Wireless powered: ${b.wirelessPowered}`,
      `  Dock powered: false`,
      `  Max charging current: ${b.usbPowered || b.acPowered ? 500000 : 0}`,
      `  Max charging voltage: ${b.usbPowered || b.acPowered ? 5000000 : 0}`,
      `  Charge counter: ${b.level * 40000}`,
      `  status: ${b.status}`,
      `  health: ${b.health}`,
      `  present: ${b.present}`,
      `  level: ${b.level}`,
      `  scale: ${b.scale}`,
      `  voltage: ${b.voltage}`,
      `  temperature: ${b.temperature}`,
      `  technology: ${b.technology}`,
    ];
    if (this.api >= 34) lines.push("  Charging state: 1", "  Charging policy: 1");
    if (this.api >= 33) lines.push("  Capacity level: -1");
    return lines.join("\n") + "\n";
  }

  /** Device commands the shell hook serves (simctl, responders, getprop, wm, dumpsys). */
  commands(): CommandHook {
    return async (argv, io, shell) => {
      const name = argv[0].startsWith("/system/bin/") ? argv[0].slice(12) : argv[0];
      if (name === "simctl") return await this.simctl(argv.slice(1), io);
      const r = this.findResponder(argv);
      if (r) {
        try {
          io.out(await Deno.readFile(r.hostFile));
          return 0;
        } catch (e) {
          io.err(enc.encode(`simctl: cannot read ${r.hostFile}: ${(e as Error).message}\n`));
          return 1;
        }
      }
      for (const service of this.services) {
        const code = await service.command?.([name, ...argv.slice(1)], io, shell);
        if (code !== null && code !== undefined) return code;
      }
      switch (name) {
        case "getprop":
          return this.getprop(argv, io);
        case "wm":
          return this.wm(argv, io);
        case "dumpsys":
          return this.dumpsys(argv, io);
        case "rm":
          return this.rm(argv, io, shell.env.get("PWD") ?? "/");
      }
      return null;
    };
  }

  /** toybox `rm [-f] FILE...`: files only (no `-r`: nothing here removes folders). */
  private rm(argv: string[], io: ShIo, pwd: string): number {
    const force = argv.slice(1).some((a) => /^-[a-z]*f/.test(a));
    let status = 0;
    for (const a of argv.slice(1).filter((x) => !x.startsWith("-"))) {
      const path = this.resolve(a.startsWith("/") ? a : `${pwd}/${a}`);
      if (this.dirs.has(path)) {
        io.err(enc.encode(`rm: ${a}: Is a directory\n`));
        status = 1;
      } else if (!this.files.delete(path) && !force) {
        io.err(enc.encode(`rm: ${a}: No such file or directory\n`));
        status = 1;
      }
    }
    return status;
  }

  private getprop(argv: string[], io: ShIo): number {
    if (argv.length === 1) {
      io.out(enc.encode(this.getpropText()));
      return 0;
    }
    const v = this.props.get(argv[1]) ?? argv[2] ?? "";
    io.out(enc.encode(v + "\n"));
    return 0;
  }

  private wm(argv: string[], io: ShIo): number {
    const [, sub, arg] = argv;
    if (sub === "size") {
      if (arg === undefined) {
        let s = `Physical size: ${this.screen.width}x${this.screen.height}\n`;
        if (this.overrideSize) {
          s += `Override size: ${this.overrideSize.width}x${this.overrideSize.height}\n`;
        }
        io.out(enc.encode(s));
        return 0;
      }
      if (arg === "reset") {
        this.overrideSize = null;
        return 0;
      }
      const m = /^(\d+)x(\d+)$/.exec(arg);
      if (!m) {
        io.err(enc.encode(`Error: bad size ${arg}\n`));
        return 255;
      }
      this.overrideSize = { width: Number(m[1]), height: Number(m[2]) };
      return 0;
    }
    if (sub === "density") {
      if (arg === undefined) {
        let s = `Physical density: ${this.screen.density}\n`;
        if (this.overrideDensity !== null) s += `Override density: ${this.overrideDensity}\n`;
        io.out(enc.encode(s));
        return 0;
      }
      if (arg === "reset") {
        this.overrideDensity = null;
        return 0;
      }
      if (!/^\d+$/.test(arg)) {
        io.err(enc.encode(`Error: bad number ${arg}\n`));
        return 255;
      }
      this.overrideDensity = Number(arg);
      return 0;
    }
    io.err(enc.encode(`Error: unknown command '${sub ?? ""}'\n`));
    return 255;
  }

  private dumpsys(argv: string[], io: ShIo): number {
    if (argv[1] === "battery") {
      io.out(enc.encode(this.batteryText()));
      return 0;
    }
    io.err(enc.encode(`Can't find service: ${argv[1] ?? ""}\n`));
    return 0;
  }

  private async simctl(args: string[], io: ShIo): Promise<number> {
    const fail = (msg: string) => {
      io.err(enc.encode(`simctl: ${msg}\n`));
      return 1;
    };
    const [sub, ...rest] = args;
    switch (sub) {
      case "respond": {
        if (rest.length < 2) return fail("usage: simctl respond <argv prefix...> <host file>");
        const hostFile = rest[rest.length - 1];
        try {
          await Deno.stat(hostFile);
        } catch {
          return fail(`cannot read ${hostFile}: no such host file`);
        }
        this.addResponder(rest.slice(0, -1), hostFile);
        return 0;
      }
      case "disconnect": {
        const s = Number(rest[0]);
        if (!Number.isFinite(s) || s < 0 || s > MAX_DISCONNECT_SECONDS) {
          return fail(`usage: simctl disconnect <seconds 0..${MAX_DISCONNECT_SECONDS}>`);
        }
        // The stream that asked would close too; it finishes (exit status sent) first.
        this.afterStream.push(() => this.host?.disconnectFor(this, s));
        return 0;
      }
      case "state": {
        const st = rest[0] as DeviceState;
        if (!SETTABLE_STATES.includes(st)) {
          return fail(`usage: simctl state <${SETTABLE_STATES.join("|")}>`);
        }
        this.afterStream.push(() => this.setState(st));
        return 0;
      }
      case "features": {
        if (rest.length !== 1) return fail("usage: simctl features <comma list>");
        this.setFeatures(rest[0].split(","));
        return 0;
      }
    }
    for (const service of this.services) {
      const code = await service.simctl?.(args, io);
      if (code !== null && code !== undefined) return code;
    }
    return fail("usage: simctl respond|disconnect|state|features|<a service's command> ...");
  }

  /** Resolves a path the way the device shell does (cwd `/`). */
  resolve(path: string): string {
    return absPath(path, "/");
  }
}

function sameArgv(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

export { SHELL_NAME };
