/**
 * Starting an emulator and waiting for the one we started: the I/O half of the AVD tools.
 *
 * The emulator is spawned with an argument vector through `/bin/sh -c 'exec "$0" "$@" >>"$LOG"
 * 2>&1'` (the AVD name and paths are positional arguments, never parsed by the shell) so its
 * output goes to a log file in the data directory rather than to a pipe that would break when
 * keynobi exits; the emulator outlives the MCP server that started it. The child is unref'd.
 *
 * Which serial is ours: every emulator adb lists is asked its AVD name
 * (`ro.boot.qemu.avd_name`), so an emulator started at the same time for another AVD is never
 * taken for ours. Booted means `sys.boot_completed` is `1`.
 */
import { join } from "../core/path.ts";
import type { AdbClient, AdbDevice, CallOptions, DeviceShell } from "../adb/client.ts";
import { delay } from "../core/abortable.ts";
import { ToolError } from "../core/errors.ts";

/** How long launch_avd waits for the emulator to come online and finish booting. */
const AVD_BOOT_TIMEOUT_MS = 60_000;
/** How long stop_avd waits for adb to stop listing the emulator. */
export const AVD_STOP_TIMEOUT_MS = 30_000;
/** Pause between two looks at adb. */
const AVD_POLL_MS = 500;

/** What a wait for an AVD rejects with when the client cancels. */
const cancelledByClient = () => new ToolError("cancelled", "Cancelled by the client");
/** Each getprop during the wait. */
const AVD_PROBE_TIMEOUT_MS = 5_000;
/** Tail of the emulator log quoted in an error. */
const MAX_EMULATOR_LOG_TAIL_BYTES = 4_096;

type AvdAdb = DeviceShell & Pick<AdbClient, "listDevices">;

const emulatorLogsDir = (dataDir: string) => join(dataDir, "emulator-logs");

/** Whether a listed device is an emulator keynobi may ask for its AVD name. Pure. */
export function isEmulator(d: Pick<AdbDevice, "serial" | "kind">): boolean {
  return d.kind === "emulator" || /^emulator-\d+$/.test(d.serial);
}

/** The AVD name of a running emulator, or `null`. */
async function readAvdName(
  adb: AvdAdb,
  serial: string,
  opts: CallOptions = {},
): Promise<string | null> {
  for (const prop of ["ro.boot.qemu.avd_name", "ro.kernel.qemu.avd_name"]) {
    const r = await adb.shell(serial, ["getprop", prop], {
      timeoutMs: AVD_PROBE_TIMEOUT_MS,
      ...opts,
    }).catch(() => null);
    const v = r?.text().trim();
    if (v) return v;
  }
  return null;
}

/** Serial → AVD name of every online emulator. */
export async function runningAvds(
  adb: AvdAdb,
  devices: readonly AdbDevice[],
  opts: CallOptions = {},
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await Promise.all(
    devices.filter((d) => d.state === "device" && isEmulator(d)).map(async (d) => {
      const name = await readAvdName(adb, d.serial, opts);
      if (name) out.set(d.serial, name);
    }),
  );
  return out;
}

interface EmulatorChild {
  /** Resolves with the exit code when the emulator process ends. */
  exited: Promise<number>;
  logPath: string;
  kill(): void;
}

/** Spawns `<emulator> -avd <name> -no-snapshot-save`, output appended to a log file. */
export async function spawnEmulator(
  emulator: string,
  name: string,
  dataDir: string,
  env: Record<string, string> = {},
): Promise<EmulatorChild> {
  await Deno.mkdir(emulatorLogsDir(dataDir), { recursive: true, mode: 0o700 });
  const logPath = join(emulatorLogsDir(dataDir), `${name}.log`);
  await Deno.writeTextFile(logPath, "", { mode: 0o600 });
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("/bin/sh", {
      args: [
        "-c",
        'exec "$0" "$@" >>"$KEYNOBI_EMULATOR_LOG" 2>&1',
        emulator,
        "-avd",
        name,
        "-no-snapshot-save",
      ],
      env: { ...env, KEYNOBI_EMULATOR_LOG: logPath },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch (e) {
    throw new ToolError(
      "launch_failed",
      `Cannot start ${emulator}: ${(e as Error).message}; check the SDK's Emulator package`,
    );
  }
  child.unref();
  const exited = child.status.then((s) => s.code);
  return {
    exited,
    logPath,
    kill: () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
    },
  };
}

/** The last bytes of the emulator's log, for an error message. */
async function logTail(path: string): Promise<string> {
  try {
    const data = await Deno.readFile(path);
    return new TextDecoder().decode(
      data.subarray(Math.max(0, data.length - MAX_EMULATOR_LOG_TAIL_BYTES)),
    )
      .trim();
  } catch {
    return "";
  }
}

type WaitPhase = "starting" | "online" | "booting";

/**
 * Waits until an emulator whose AVD name is `name` is online and booted; returns its serial.
 * Stops with `launch_failed` when `child` exits first, `timeout` at the deadline.
 */
export async function waitForAvd(
  adb: AvdAdb,
  name: string,
  opts: {
    child?: EmulatorChild;
    timeoutMs?: number;
    signal?: AbortSignal;
    onPhase?: (phase: WaitPhase, serial: string | null, elapsedMs: number) => void;
  } = {},
): Promise<string> {
  const timeoutMs = Math.min(opts.timeoutMs ?? AVD_BOOT_TIMEOUT_MS, AVD_BOOT_TIMEOUT_MS);
  const started = Date.now();
  const known = new Map<string, string | null>();
  let exitCode: number | null = null;
  opts.child?.exited.then((c) => exitCode = c, () => exitCode = -1);
  let serial: string | null = null;
  while (true) {
    const elapsed = Date.now() - started;
    if (serial === null) {
      const devices = await adb.listDevices({
        timeoutMs: AVD_PROBE_TIMEOUT_MS,
        signal: opts.signal,
      })
        .catch((e) => {
          if (e instanceof ToolError && e.code === "cancelled") throw e;
          return [] as AdbDevice[];
        });
      for (const d of devices) {
        if (d.state !== "device" || !isEmulator(d)) continue;
        if (!known.has(d.serial) || known.get(d.serial) === null) {
          known.set(d.serial, await readAvdName(adb, d.serial, { signal: opts.signal }));
        }
        if (known.get(d.serial) === name) {
          serial = d.serial;
          break;
        }
      }
      opts.onPhase?.(serial === null ? "starting" : "online", serial, elapsed);
    }
    if (serial !== null) {
      const r = await adb.shell(serial, ["getprop", "sys.boot_completed"], {
        timeoutMs: AVD_PROBE_TIMEOUT_MS,
        signal: opts.signal,
      }).catch((e) => {
        if (e instanceof ToolError && e.code === "cancelled") throw e;
        return null;
      });
      if (r?.text().trim() === "1") return serial;
      opts.onPhase?.("booting", serial, elapsed);
    }
    if (exitCode !== null && serial === null) {
      const tail = opts.child ? await logTail(opts.child.logPath) : "";
      throw new ToolError(
        "launch_failed",
        `The emulator for AVD ${name} exited with code ${exitCode} before it came online` +
          (tail ? `: ${tail}` : "") + "; fix what it reports (list_avds shows the AVDs)",
        { avd_name: name, exit_code: exitCode, log: opts.child?.logPath ?? null },
      );
    }
    if (Date.now() - started >= timeoutMs) {
      throw new ToolError(
        "timeout",
        serial === null
          ? `AVD ${name} did not come online within ${timeoutMs} ms; list_devices shows what ` +
            "adb sees, and the emulator log says why"
          : `${serial} (AVD ${name}) is online but did not finish booting within ${timeoutMs} ms; ` +
            "wait and check get_device_info",
        { avd_name: name, serial, log: opts.child?.logPath ?? null },
      );
    }
    await delay(AVD_POLL_MS, opts.signal, cancelledByClient);
  }
}

/** Waits until adb no longer lists `serial`; `false` at the deadline. */
export async function waitGone(
  adb: AvdAdb,
  serial: string,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<boolean> {
  const timeoutMs = Math.min(opts.timeoutMs ?? AVD_STOP_TIMEOUT_MS, AVD_STOP_TIMEOUT_MS);
  const started = Date.now();
  while (true) {
    const devices = await adb.listDevices({ timeoutMs: AVD_PROBE_TIMEOUT_MS, signal: opts.signal });
    if (!devices.some((d) => d.serial === serial)) return true;
    if (Date.now() - started >= timeoutMs) return false;
    await delay(AVD_POLL_MS, opts.signal, cancelledByClient);
  }
}

/**
 * Powers the emulator off with `reboot -p` over ADB (`adb emu kill` needs the emulator's console
 * port, which a remote ADB server cannot reach). The device may drop the connection as it powers
 * off: only a refusal before that (cancelled, unauthorized, or not a tool error) is thrown.
 */
export async function powerOffEmulator(
  adb: AvdAdb,
  serial: string,
  opts: CallOptions = {},
): Promise<void> {
  try {
    await adb.shell(serial, ["reboot", "-p"], opts);
  } catch (e) {
    if (!(e instanceof ToolError) || e.code === "cancelled" || e.code === "device_unauthorized") {
      throw e;
    }
  }
}
