/**
 * Screen recordings with the device's own `screenrecord`, one at a time per device: it runs as
 * `sh -c 'echo $$; exec screenrecord "$@"' screenrecord <options> <file>` (the script is fixed,
 * every option a quoted argument) so its first output line is its pid; stopping sends it SIGINT
 * (`kill -2 <pid>`), on which screenrecord finishes the MP4 and exits, as it does at its time
 * limit. The file is then copied into the data directory (`exec:cat`, bounded) and removed from
 * the device. What is kept there is bounded in count and bytes, oldest removed first.
 */
import type { AdbClient, CallOptions } from "../adb/client.ts";
import type { ShellStream } from "../adb/shell_stream.ts";
import { ToolError } from "../core/errors.ts";
import { join as joinPath } from "../core/path.ts";

/** screenrecord's own ceiling (kMaxTimeLimitSec) and the default keynobi asks for. */
export const MAX_TIME_LIMIT_S = 180;
export const DEFAULT_TIME_LIMIT_S = 60;
export const DEFAULT_BIT_RATE_MBPS = 4;
export const MAX_BIT_RATE_MBPS = 40;
/** Largest recording copied off the device (40 Mbps for 180 s is ~900 MB: the cap refuses it). */
export const MAX_RECORDING_BYTES = 256 * 1024 * 1024;
/** Recordings kept in the data directory, and their total bytes; the oldest go first. */
const MAX_KEPT_RECORDINGS = 50;
const MAX_KEPT_RECORDING_BYTES = 1024 * 1024 * 1024;
/** How long screenrecord may take to say its pid, and to finish the file after SIGINT. */
const START_TIMEOUT_MS = 10_000;
const FINISH_TIMEOUT_MS = 15_000;

const SCRIPT = 'echo $$; exec screenrecord "$@"';
const FILE_NAME = /^[A-Za-z0-9._-]{1,160}\.mp4$/;

interface RecordingOptions {
  timeLimitS: number;
  bitRateMbps: number;
  /** `WxH`, or null for the display's own size. */
  size: string | null;
}

interface Active {
  serial: string;
  pid: number;
  remote: string;
  started: Date;
  options: RecordingOptions;
  stream: ShellStream;
  /** Resolves when screenrecord has exited (time limit, SIGINT, or an error). */
  ended: Promise<{ at: Date; output: string }>;
}

interface RecordingStarted {
  serial: string;
  pid: number;
  started_at: string;
  time_limit_s: number;
  device_file: string;
}

interface RecordingSaved {
  serial: string;
  file: string;
  path: string;
  bytes: number;
  started_at: string;
  ended_at: string;
  duration_s: number;
  ended_by: "stop" | "time_limit";
}

/** The data directory's folder of recordings. */
export function recordingsDir(dataDir: string): string {
  return joinPath(dataDir, "recordings");
}

/** Whether `name` may name a kept recording (the dashboard serves only such names). */
export function isRecordingName(name: string): boolean {
  return FILE_NAME.test(name) && !name.startsWith(".");
}

const stamp = (d: Date) => d.toISOString().replace(/[:.]/g, "-");

async function readAllText(stream: ReadableStream<Uint8Array>, max: number): Promise<string> {
  const dec = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    if (text.length < max) text += dec.decode(chunk, { stream: true });
  }
  return text.slice(0, max);
}

/** One process's recordings in progress, a device at a time. */
export class ScreenRecorder {
  readonly #active = new Map<string, Active>();

  constructor(private readonly adb: AdbClient) {}

  active(serial: string): RecordingStarted | null {
    const a = this.#active.get(serial);
    return a ? this.#describe(a) : null;
  }

  #describe(a: Active): RecordingStarted {
    return {
      serial: a.serial,
      pid: a.pid,
      started_at: a.started.toISOString(),
      time_limit_s: a.options.timeLimitS,
      device_file: a.remote,
    };
  }

  async start(
    serial: string,
    options: RecordingOptions,
    opts: CallOptions,
  ): Promise<RecordingStarted> {
    const running = this.#active.get(serial);
    if (running) {
      throw new ToolError(
        "device_busy",
        `${serial} is already recording (since ${running.started.toISOString()}): ` +
          "stop_screen_recording first",
      );
    }
    const started = new Date();
    const remote = `/sdcard/keynobi-${stamp(started)}.mp4`;
    const argv = [
      "sh",
      "-c",
      SCRIPT,
      "screenrecord",
      "--time-limit",
      String(options.timeLimitS),
      "--bit-rate",
      String(Math.round(options.bitRateMbps * 1_000_000)),
      ...(options.size ? ["--size", options.size] : []),
      remote,
    ];
    const stream = await this.adb.openShellStream(serial, argv, opts);
    const reader = stream.stdout.getReader();
    const dec = new TextDecoder();
    let first = "";
    const deadline = Date.now() + START_TIMEOUT_MS;
    try {
      while (!first.includes("\n") && Date.now() < deadline && first.length < 4096) {
        const r = await Promise.race([
          reader.read(),
          new Promise<null>((ok) => setTimeout(() => ok(null), Math.max(1, deadline - Date.now()))),
        ]);
        if (r === null || r.done) break;
        first += dec.decode(r.value, { stream: true });
      }
    } finally {
      reader.releaseLock();
    }
    const pid = /^(\d+)\r?\n/.exec(first);
    if (!pid) {
      const err = await readAllText(stream.stderr, 2_000).catch(() => "");
      await stream.close();
      const said = (first + err).trim().split(/\r?\n/).slice(0, 3).join(" ");
      throw new ToolError(
        "command_failed",
        `screenrecord did not start on ${serial}${said ? `: ${said}` : ""}; it needs Android ` +
          "4.4+ and a display that is on (not a secure screen)",
        { serial },
      );
    }
    const ended = Promise.all([
      readAllText(stream.stdout, 4_000),
      readAllText(stream.stderr, 4_000),
      stream.exitCode,
    ]).then(([o, e]) => ({ at: new Date(), output: (first.slice(pid[0].length) + o + e).trim() }))
      .catch(() => ({ at: new Date(), output: "" }));
    const a: Active = { serial, pid: Number(pid[1]), remote, started, options, stream, ended };
    this.#active.set(serial, a);
    return this.#describe(a);
  }

  /** Ends the recording (SIGINT unless it already ended), copies it into `dataDir`, cleans up. */
  async stop(serial: string, dataDir: string, opts: CallOptions): Promise<RecordingSaved> {
    const a = this.#active.get(serial);
    if (!a) {
      throw new ToolError(
        "not_found",
        `${serial} is not recording (in this keynobi process): start_screen_recording first`,
      );
    }
    this.#active.delete(serial);
    let endedBy: RecordingSaved["ended_by"] = "time_limit";
    const done = await Promise.race([a.ended, Promise.resolve(null)]);
    let end = done;
    if (end === null) {
      endedBy = "stop";
      await this.adb.shell(serial, ["kill", "-2", String(a.pid)], opts).catch(() => {});
      end = await Promise.race([
        a.ended,
        new Promise<null>((ok) => setTimeout(() => ok(null), FINISH_TIMEOUT_MS)),
      ]);
      if (end === null) {
        await a.stream.close();
        end = { at: new Date(), output: "" };
      }
    }
    try {
      const bytes = await this.adb.exec(serial, ["cat", a.remote], {
        ...opts,
        maxOutputBytes: MAX_RECORDING_BYTES,
      });
      if (bytes.length < 8 || new TextDecoder().decode(bytes.subarray(4, 8)) !== "ftyp") {
        const said = end.output.split(/\r?\n/).slice(0, 3).join(" ");
        throw new ToolError(
          "command_failed",
          `screenrecord on ${serial} left no MP4 (${bytes.length} bytes)${said ? `: ${said}` : ""}`,
          { serial },
        );
      }
      const dir = recordingsDir(dataDir);
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      const file = `${serial.replace(/[^A-Za-z0-9._-]/g, "_")}-${stamp(a.started)}.mp4`;
      const path = joinPath(dir, file);
      await Deno.writeFile(path, bytes, { mode: 0o600, createNew: true });
      await pruneRecordings(dir, file);
      return {
        serial,
        file,
        path,
        bytes: bytes.length,
        started_at: a.started.toISOString(),
        ended_at: end.at.toISOString(),
        duration_s: Math.round((end.at.getTime() - a.started.getTime()) / 100) / 10,
        ended_by: endedBy,
      };
    } finally {
      await this.adb.shell(serial, ["rm", "-f", a.remote], opts).catch(() => {});
    }
  }

  /** Ends every recording without keeping it (the process is shutting down). */
  async closeAll(): Promise<void> {
    const all = [...this.#active.values()];
    this.#active.clear();
    await Promise.all(all.map((a) => a.stream.close().catch(() => {})));
  }
}

/** Keeps at most MAX_KEPT_RECORDINGS files and MAX_KEPT_RECORDING_BYTES, never removing `keep`. */
async function pruneRecordings(dir: string, keep: string): Promise<void> {
  const files: { name: string; mtime: number; size: number }[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !isRecordingName(e.name)) continue;
    const st = await Deno.lstat(joinPath(dir, e.name)).catch(() => null);
    if (st) files.push({ name: e.name, mtime: st.mtime?.getTime() ?? 0, size: st.size });
  }
  files.sort((x, y) => y.mtime - x.mtime || (x.name < y.name ? 1 : -1));
  let total = 0;
  for (const [i, f] of files.entries()) {
    total += f.size;
    if (f.name === keep) continue;
    if (i >= MAX_KEPT_RECORDINGS || total > MAX_KEPT_RECORDING_BYTES) {
      await Deno.remove(joinPath(dir, f.name)).catch(() => {});
    }
  }
}
