/**
 * `list_avds`, `launch_avd`, `stop_avd`: thin adapters over lib/android/avds.ts and
 * lib/android/emulator_launch.ts.
 *
 * `stop_avd` powers the emulator off with `reboot -p` over the ADB shell instead of `adb emu
 * kill`: `emu kill` goes to the emulator's console port (telnet, with an auth token from the
 * user's home), which the ADB host protocol does not carry and a remote ADB server cannot reach.
 * A guest power-off makes the emulator exit the same way.
 */
import { z } from "zod";
import { findSdk } from "../../android/sdk.ts";
import {
  avdHome,
  emulatorPath,
  mergeAvds,
  readAvdHome,
  runListAvds,
  validateAvdName,
} from "../../android/avds.ts";
import {
  AVD_STOP_TIMEOUT_MS,
  isEmulator,
  powerOffEmulator,
  runningAvds,
  spawnEmulator,
  waitForAvd,
  waitGone,
} from "../../android/emulator_launch.ts";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { readSettings } from "../../core/settings.ts";
import { defineTool } from "../define_tool.ts";
import type { ToolContext } from "../context.ts";
import { callOpts } from "../device_args.ts";
import { serialArg } from "../params.ts";

/** Bound on the device calls these tools make. */
export const AVD_TOOL_TIMEOUT_MS = 15_000;

async function sdkPath(ctx: ToolContext): Promise<string | null> {
  const sdk = await findSdk({ env: ctx.env, settings: await readSettings(ctx.dataDir) });
  return sdk.path;
}

async function listAll(ctx: ToolContext) {
  const sdk = await sdkPath(ctx);
  const home = avdHome(ctx.env);
  const fromHome = home ? await readAvdHome(home) : [];
  const listed = sdk ? await runListAvds(emulatorPath(sdk)) : { error: "no Android SDK found" };
  const avds = mergeAvds(fromHome, "names" in listed ? listed.names : []);
  return { sdk, home, avds, emulatorError: "error" in listed ? listed.error : null };
}

const listAvds = defineTool({
  name: "list_avds",
  toolset: "core",
  kind: "R",
  description: "The emulators (AVDs) on this machine and which are running, with their serials.",
  params: {},
  async run(_args, ctx) {
    const [{ sdk, home, avds, emulatorError }, devices] = await Promise.all([
      listAll(ctx),
      ctx.adb.listDevices(callOpts(ctx, AVD_TOOL_TIMEOUT_MS)),
    ]);
    const running = await runningAvds(ctx.adb, devices, callOpts(ctx));
    const serialOf = (name: string) => [...running].find(([, n]) => n === name)?.[0] ?? null;
    const list = avds.map((a) => ({
      ...a,
      running: serialOf(a.name) !== null,
      serial: serialOf(a.name),
    }));
    const structured = {
      count: list.length,
      avds: list,
      avd_home: home,
      sdk_path: sdk,
      emulator_error: emulatorError,
    };
    const lines = list.length === 0
      ? [
        `No AVDs found${
          home ? ` in ${home}` : ""
        }: create one with Android Studio's Device Manager or avdmanager`,
      ]
      : list.map((a) =>
        `${a.name}${a.api_level !== null ? ` (API ${a.api_level})` : ""}${
          a.device ? ` ${a.device}` : ""
        }: ${a.running ? `running as ${a.serial}` : "not running"}`
      );
    if (emulatorError) lines.push(`Note: ${emulatorError}`);
    return { structured, text: lines.join("\n") };
  },
});

/** AVDs this process is starting now: a second launch_avd waits for the first. */
const starting = new Map<string, Promise<string>>();

const launchAvd = defineTool({
  name: "launch_avd",
  toolset: "device-admin",
  kind: "W",
  description:
    "Start an emulator for an AVD and wait up to 60 s until it has booted; returns its " +
    "serial. Sends progress; cancel to stop waiting.",
  params: {
    name: z.string().max(200).describe("From list_avds (Pixel_8_API_35)"),
  },
  async run(args, ctx) {
    const name = validateAvdName(args.name);
    const devices = await ctx.adb.listDevices(callOpts(ctx, AVD_TOOL_TIMEOUT_MS));
    const running = await runningAvds(ctx.adb, devices, callOpts(ctx));
    const already = [...running].find(([, n]) => n === name)?.[0];
    const done = (serial: string, alreadyRunning: boolean) => ({
      structured: { serial, avd_name: name, already_running: alreadyRunning },
      text: alreadyRunning
        ? `AVD ${name} is already running as ${serial}`
        : `AVD ${name} booted as ${serial}`,
    });
    if (already) return done(already, true);
    const pending = starting.get(name);
    if (pending) return done(await pending, true);
    const { sdk, avds } = await listAll(ctx);
    if (!avds.some((a) => a.name === name)) {
      throw invalidParams(
        `Unknown AVD ${JSON.stringify(name)}: ${
          avds.length ? `the AVDs are ${avds.map((a) => a.name).join(", ")}` : "there are no AVDs"
        }; call list_avds`,
      );
    }
    if (!sdk) {
      throw new ToolError(
        "launch_failed",
        "Cannot start an emulator: no Android SDK found; set ANDROID_HOME or sdk_path in settings",
      );
    }
    let step = 0;
    const task = (async () => {
      const child = await spawnEmulator(emulatorPath(sdk), name, ctx.dataDir);
      try {
        return await waitForAvd(ctx.adb, name, {
          child,
          signal: ctx.signal,
          onPhase: (phase, serial, ms) =>
            ctx.request.progress(
              ++step,
              undefined,
              `${Math.round(ms / 1000)} s: ${
                phase === "starting" ? "waiting for the emulator" : `${serial} ${phase}`
              }`,
            ),
        });
      } catch (e) {
        // A launch that failed or was cancelled before boot leaves no half-started emulator.
        if (e instanceof ToolError && (e.code === "cancelled" || e.code === "timeout")) {
          child.kill();
        }
        throw e;
      }
    })();
    starting.set(name, task);
    try {
      return done(await task, false);
    } finally {
      starting.delete(name);
    }
  },
});

const stopAvd = defineTool({
  name: "stop_avd",
  toolset: "device-admin",
  kind: "D",
  description: "Power off a running emulator; succeeds once adb no longer lists it (up to 30 s).",
  params: {
    serial: serialArg("serial").describe("Emulator serial (emulator-5554)"),
  },
  async run(args, ctx) {
    const serial = args.serial;
    const devices = await ctx.adb.listDevices(callOpts(ctx, AVD_TOOL_TIMEOUT_MS));
    const d = devices.find((x) => x.serial === serial);
    if (!d) {
      throw new ToolError(
        "device_not_found",
        `${serial} is not listed by adb (listed: ${
          devices.map((x) => x.serial).join(", ") || "none"
        }); it may already be stopped`,
        { serial },
      );
    }
    if (!isEmulator(d)) {
      throw invalidParams(
        `${serial} is not an emulator: stop_avd only powers off emulators; pass an emulator-NNNN serial`,
      );
    }
    const avd = await runningAvds(ctx.adb, [d], callOpts(ctx));
    await powerOffEmulator(ctx.adb, serial, callOpts(ctx, AVD_TOOL_TIMEOUT_MS));
    ctx.request.progress(1, undefined, `${serial}: powering off`);
    const gone = await waitGone(ctx.adb, serial, callOpts(ctx));
    if (!gone) {
      throw new ToolError(
        "timeout",
        `${serial} is still listed by adb ${AVD_STOP_TIMEOUT_MS / 1000} s after reboot -p; close ` +
          "the emulator window or run adb -s " + serial + " emu kill in a terminal",
        { serial },
      );
    }
    const name = avd.get(serial) ?? null;
    return {
      structured: { serial, avd_name: name, stopped: true },
      text: `Stopped ${serial}${name ? ` (AVD ${name})` : ""}: adb no longer lists it`,
    };
  },
});

export const avdTools = [listAvds, launchAvd, stopAvd];
