/**
 * AVDs and the fake `emulator`: an AVD home with `Pixel_8_API_35` (the running emulator-5554)
 * and `Small_Phone_API_34` (not running), the `<sdk>/emulator/emulator` script that runs
 * emulator_main.ts, and the simulator side of a boot: `host:emulator:<console port>` brings a
 * device `emulator-<port>` online (offline first, then `device`, then `sys.boot_completed`).
 */
import { join } from "node:path";
import { emulatorSpec } from "../catalog.ts";
import type { DeviceSpec, DeviceState, VirtualDevice } from "../device.ts";

export const EMULATOR_VERSION = "35.1.20.0 (build_id 12291491) (CL:N/A)";
/** How long a booting emulator stays `offline` before adbd answers (ms). */
export const BOOT_OFFLINE_MS = 150;
/** Default time from `device` to `sys.boot_completed=1` (ms); `-sim-boot-ms` overrides. */
export const DEFAULT_BOOT_MS = 400;
/** Longest boot delay a test may ask for (ms). */
export const MAX_BOOT_MS = 60_000;

export interface AvdDef {
  name: string;
  displayName: string;
  api: number;
  release: string;
  device: string;
  width: number;
  height: number;
  density: number;
}

export const AVDS: readonly AvdDef[] = [
  {
    name: "Pixel_8_API_35",
    displayName: "Pixel 8 API 35",
    api: 35,
    release: "15",
    device: "pixel_8",
    width: 1080,
    height: 2400,
    density: 420,
  },
  {
    name: "Small_Phone_API_34",
    displayName: "Small Phone API 34",
    api: 34,
    release: "14",
    device: "small_phone",
    width: 720,
    height: 1280,
    density: 320,
  },
];

/** Writes `<root>/avd/<name>.ini` and `<name>.avd/config.ini` for every AVD; returns the home. */
export async function createAvdHome(root: string): Promise<string> {
  const home = join(root, "avd");
  for (const a of AVDS) {
    const dir = join(home, `${a.name}.avd`);
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      join(home, `${a.name}.ini`),
      `avd.ini.encoding=UTF-8\npath=${dir}\npath.rel=avd/${a.name}.avd\n` +
        `target=android-${a.api}\n`,
    );
    await Deno.writeTextFile(
      join(dir, "config.ini"),
      [
        `AvdId=${a.name}`,
        "PlayStore.enabled=false",
        "abi.type=x86_64",
        `avd.ini.displayname=${a.displayName}`,
        "avd.ini.encoding=UTF-8",
        "disk.dataPartition.size=6442450944",
        "hw.cpu.arch=x86_64",
        "hw.cpu.ncore=4",
        `hw.device.name=${a.device}`,
        "hw.device.manufacturer=Google",
        `hw.lcd.density=${a.density}`,
        `hw.lcd.height=${a.height}`,
        `hw.lcd.width=${a.width}`,
        "hw.ramSize=2048",
        `image.sysdir.1=system-images/android-${a.api}/google_apis/x86_64/`,
        "tag.display=Google APIs",
        "tag.id=google_apis",
        "",
      ].join("\n"),
    );
  }
  return home;
}

const EMULATOR_MAIN = new URL("./emulator_main.ts", import.meta.url).pathname;

function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Where a starting emulator tells the simulator which AVD a console port belongs to. */
export function runningDir(root: string): string {
  return join(root, "emulator-running");
}

/** Writes `<sdk>/emulator/emulator` (sh → Deno) and its source.properties. */
export async function installEmulator(
  sdkRoot: string,
  opts: { root: string; avdHome: string; adbPort: number },
): Promise<string> {
  const dir = join(sdkRoot, "emulator");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.mkdir(runningDir(opts.root), { recursive: true });
  const path = join(dir, "emulator");
  await Deno.writeTextFile(
    path,
    [
      "#!/bin/sh",
      "# keynobi simulator: stands in for the Android Emulator. It runs tests/sim/apps/emulator_main.ts,",
      "# which lists the simulator's AVDs and boots one as a new device on the simulated ADB server.",
      `if [ -z "$DENO_DIR" ]; then DENO_DIR=${
        shQuote(join(opts.root, "emulator-deno-cache"))
      }; export DENO_DIR; fi`,
      `exec ${shQuote(Deno.execPath())} run --quiet --no-config --no-lock --no-remote --no-npm ` +
      "--allow-read --allow-write --allow-env --allow-net " +
      `${shQuote(EMULATOR_MAIN)} --sim-root ${shQuote(opts.root)} ` +
      `--sim-avd-home ${shQuote(opts.avdHome)} --sim-adb-port ${opts.adbPort} -- "$@"`,
      "",
    ].join("\n"),
  );
  await Deno.chmod(path, 0o755);
  await Deno.writeTextFile(
    join(dir, "source.properties"),
    `Pkg.Desc=Android Emulator\nPkg.Revision=${EMULATOR_VERSION.split(" ")[0]}\n` +
      "Pkg.Path=emulator\n",
  );
  return path;
}

/** What emulator_main.ts writes before it announces a console port. */
export interface RunningEmulator {
  avd: string;
  pid: number;
  bootMs: number;
}

/** The device spec of an AVD booted on `consolePort`. */
export function avdSpec(avd: AvdDef, consolePort: number): DeviceSpec {
  const spec = emulatorSpec();
  spec.serial = `emulator-${consolePort}`;
  spec.api = avd.api;
  spec.screen = { width: avd.width, height: avd.height, density: avd.density };
  const p = spec.props;
  p["ro.boot.qemu.avd_name"] = avd.name;
  p["ro.build.version.sdk"] = String(avd.api);
  p["ro.build.version.release"] = avd.release;
  p["ro.build.version.release_or_codename"] = avd.release;
  p["ro.sf.lcd_density"] = String(avd.density);
  p["ro.serialno"] = `EMULATOR${avd.api}X${consolePort}`;
  p["ro.boot.serialno"] = p["ro.serialno"];
  delete p["sys.boot_completed"];
  p["init.svc.bootanim"] = "running";
  p["service.bootanim.exit"] = "0";
  return spec;
}

/**
 * The simulator side of emulator boots. `bootDevice` puts a new device on the server in the given
 * state with the services attached.
 */
export class EmulatorHost {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly bootDevice: (spec: DeviceSpec, state: DeviceState) => VirtualDevice,
    private readonly hasDevice: (serial: string) => boolean,
  ) {}

  /** `host:emulator:<port>`: reads the running file and boots the AVD as `emulator-<port>`. */
  announce(consolePort: number): void {
    if (this.closed || this.hasDevice(`emulator-${consolePort}`)) return;
    let info: RunningEmulator;
    try {
      info = JSON.parse(
        Deno.readTextFileSync(join(runningDir(this.root), `${consolePort}.json`)),
      ) as RunningEmulator;
    } catch {
      return; // Not one of ours: a real emulator would be probed on port+1; we have none.
    }
    const avd = AVDS.find((a) => a.name === info.avd);
    if (!avd) return;
    const device = this.bootDevice(avdSpec(avd, consolePort), "offline");
    const bootMs = Math.min(Math.max(0, info.bootMs), MAX_BOOT_MS);
    this.after(BOOT_OFFLINE_MS, () => {
      if (!device.present) return;
      device.setState("device");
      this.after(bootMs, () => {
        device.props.set("sys.boot_completed", "1");
        device.props.set("dev.bootcomplete", "1");
        device.props.set("init.svc.bootanim", "stopped");
        device.props.set("service.bootanim.exit", "1");
      });
    });
  }

  private after(ms: number, fn: () => void) {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
