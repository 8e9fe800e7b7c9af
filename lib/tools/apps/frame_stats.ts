/**
 * `get_frame_stats`: how janky an app is, from `dumpsys gfxinfo <package>`: frames, janky frames
 * and percent, frame-time percentiles and the counts of the usual causes. `reset: true` reads and
 * zeroes the counters in one command (`dumpsys gfxinfo <package> reset` prints, then resets), so
 * the next reading measures only the interaction in between. Each reading is recorded in the
 * app's debug session, where `compare_debug_sessions` sets it beside the other install's.
 */
import { z } from "zod";
import { runText } from "../../android/device_command.ts";
import { parseGfxinfo, renderFrameStats } from "../../android/gfxinfo.ts";
import { APP_COMMAND_TIMEOUT_MS } from "../../android/launch.ts";
import { framesOp } from "../../sessions/session_events.ts";
import { defineTool } from "../define_tool.ts";
import { agentOrigin } from "../context.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { packageParam, serialParam } from "../params.ts";

/** A gfxinfo dump with framestats of a busy app is ~400 KB; the figures are in its first lines. */
const MAX_GFXINFO_BYTES = 1024 * 1024;

/** Packages whose last reading was a reset, per device: their next reading runs from it. */
const resetSince = new Map<string, number>();
/** Most (device, package) pairs remembered; the oldest reset is forgotten first. */
const MAX_RESET_MARKS = 256;

const getFrameStats = defineTool({
  name: "get_frame_stats",
  toolset: "core",
  kind: "R",
  description:
    "Frame health of a running app (dumpsys gfxinfo): frames, janky %, p50–p99 frame time, " +
    "slow UI thread/bitmap/draw counts. reset: true zeroes the counters after reading, to " +
    "measure the next interaction.",
  params: {
    package: packageParam,
    device_serial: serialParam,
    reset: z.boolean().optional().describe("Zero the counters after reading (default false)"),
  },
  async run(args, ctx) {
    const pkg = args.package;
    const serial = await deviceFor(ctx, args.device_serial);
    const argv = ["dumpsys", "gfxinfo", pkg, ...(args.reset ? ["reset"] : [])];
    const out = await runText(ctx.adb, serial, argv, {
      ...callOpts(ctx),
      timeoutMs: APP_COMMAND_TIMEOUT_MS,
      maxOutputBytes: MAX_GFXINFO_BYTES,
    });
    const key = `${serial}\u0000${pkg}`;
    const sinceReset = resetSince.has(key);
    resetSince.delete(key);
    if (args.reset) {
      resetSince.set(key, Date.now());
      if (resetSince.size > MAX_RESET_MARKS) resetSince.delete(resetSince.keys().next().value!);
    }
    const reading = parseGfxinfo(out.text, pkg);
    const after = args.reset ? "\nCounters reset: the next get_frame_stats measures from now" : "";
    if (!reading.found) {
      return {
        structured: { package: pkg, device_serial: serial, running: false, stats: null },
        text: `${pkg} has no rendering process on ${serial} (not running?): launch it, ` +
          `interact, then call get_frame_stats again`,
      };
    }
    if (reading.stats === null) {
      return {
        structured: {
          package: pkg,
          device_serial: serial,
          running: true,
          pid: reading.pid,
          stats: null,
        },
        text: `${pkg} (pid ${reading.pid}) has rendered no frame yet${after}`,
      };
    }
    const s = reading.stats;
    ctx.sessions.record(framesOp(serial, pkg, {
      total_frames: s.total_frames,
      janky_frames: s.janky_frames,
      janky_percent: s.janky_percent,
      p50_ms: s.percentiles.p50_ms,
      p90_ms: s.percentiles.p90_ms,
      p95_ms: s.percentiles.p95_ms,
      p99_ms: s.percentiles.p99_ms,
      since_reset: sinceReset,
    }, agentOrigin(ctx)));
    const from = sinceReset ? "since the last reset" : "since the app started";
    return {
      structured: {
        package: pkg,
        device_serial: serial,
        running: true,
        pid: reading.pid,
        since_reset: sinceReset,
        reset: args.reset === true,
        stats: s,
      },
      text: `${renderFrameStats(pkg, s)}\nCounted ${from}${after}`,
    };
  },
});

export const frameStatsTools = [getFrameStats];
