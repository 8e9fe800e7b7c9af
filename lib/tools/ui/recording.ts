/**
 * `start_screen_recording` / `stop_screen_recording`: evidence of what happened on a device, with
 * its own `screenrecord` (lib/android/screen_recording.ts). The MP4 is kept in the data
 * directory, named in the answer, added to the device's open debug sessions and served by the
 * dashboard from their timelines.
 */
import { z } from "zod";
import {
  DEFAULT_BIT_RATE_MBPS,
  DEFAULT_TIME_LIMIT_S,
  MAX_BIT_RATE_MBPS,
  MAX_TIME_LIMIT_S,
} from "../../android/screen_recording.ts";
import { invalidParams } from "../../core/errors.ts";
import { recordingOp } from "../../sessions/session_events.ts";
import { agentOrigin } from "../context.ts";
import { defineTool } from "../define_tool.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { serialParam } from "../params.ts";

/** The largest `size` side screenrecord is asked for (a 4K display's long side). */
const MAX_SIDE = 4096;

function parseSize(size: string | undefined): string | null {
  if (size === undefined) return null;
  const m = /^(\d{2,4})x(\d{2,4})$/.exec(size);
  if (!m || Number(m[1]) > MAX_SIDE || Number(m[2]) > MAX_SIDE) {
    throw invalidParams(`Invalid size "${size.slice(0, 40)}": use WIDTHxHEIGHT, e.g. 720x1280`);
  }
  if (Number(m[1]) % 2 || Number(m[2]) % 2) {
    throw invalidParams(`Invalid size ${size}: the encoder needs even width and height`);
  }
  return size;
}

const startScreenRecording = defineTool({
  name: "start_screen_recording",
  toolset: "ui",
  kind: "W",
  description: "Start recording the screen (screenrecord) until stop_screen_recording or the " +
    "time limit; one recording per device.",
  params: {
    device_serial: serialParam,
    time_limit_s: z.number().int().min(1).max(MAX_TIME_LIMIT_S).optional().describe(
      `Default ${DEFAULT_TIME_LIMIT_S}`,
    ),
    bit_rate_mbps: z.number().min(0.1).max(MAX_BIT_RATE_MBPS).optional().describe(
      `Default ${DEFAULT_BIT_RATE_MBPS}`,
    ),
    size: z.string().max(16).optional().describe("WIDTHxHEIGHT; default the display's"),
  },
  async run(args, ctx) {
    const size = parseSize(args.size);
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await ctx.recorder.start(serial, {
      timeLimitS: args.time_limit_s ?? DEFAULT_TIME_LIMIT_S,
      bitRateMbps: args.bit_rate_mbps ?? DEFAULT_BIT_RATE_MBPS,
      size,
    }, callOpts(ctx));
    return {
      structured: { ...r, recording: true },
      text: `Recording ${serial} (screenrecord pid ${r.pid}, at most ${r.time_limit_s} s): ` +
        "call stop_screen_recording to keep it",
    };
  },
});

const stopScreenRecording = defineTool({
  name: "stop_screen_recording",
  toolset: "ui",
  kind: "W",
  description: "Stop the device's screen recording and keep the MP4 in keynobi's data " +
    "directory (named in the answer, linked from the debug session).",
  params: { device_serial: serialParam },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    const saved = await ctx.recorder.stop(serial, ctx.dataDir, callOpts(ctx));
    ctx.sessions.record(recordingOp(serial, saved, agentOrigin(ctx)));
    const why = saved.ended_by === "time_limit" ? " (it had reached its time limit)" : "";
    return {
      structured: { ...saved },
      text: `Saved ${saved.path}: ${saved.duration_s} s, ${
        Math.round(saved.bytes / 1024)
      } KB${why}`,
    };
  },
});

export const recordingTools = [startScreenRecording, stopScreenRecording];
