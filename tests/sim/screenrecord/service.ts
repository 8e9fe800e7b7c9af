/**
 * The "screenrecord" device service: `screenrecord [--time-limit S] [--bit-rate B] [--size WxH]
 * [--verbose] <file>` records until its time limit or SIGINT (`kill -2 <pid>`, `kill -INT`,
 * `kill -s INT`), then writes a real MP4 (H.264, `ftyp` first, tests/sim/screenrecord/screenrecord.mp4:
 * one second of a plain colour, made with ffmpeg's lavfi colour source and libx264) and exits 0,
 * as screenrecord finishes its file on SIGINT. A recording whose stream closes first (SIGHUP)
 * leaves no file. Its options are checked as screenrecord checks them (the time limit 1–180 s).
 * `kill` of any other pid answers as a non-root shell's kill does.
 */
import type { DeviceService, VirtualDevice } from "../device.ts";
import type { ShellRun, ShIo } from "../sh_exec.ts";
import type { AppsService } from "../apps/service.ts";

const enc = new TextEncoder();
/** screenrecord's kMaxTimeLimitSec. */
const MAX_TIME_LIMIT_S = 180;
const MP4 = Deno.readFileSync(new URL("./screenrecord.mp4", import.meta.url));

interface Recording {
  pid: number;
  path: string;
  /** Ends the recording; `finish`: SIGINT (the file is written), else killed without it. */
  stop: (finish: boolean) => void;
}

export class ScreenRecordService implements DeviceService {
  readonly name = "screenrecord";
  readonly recordings = new Map<number, Recording>();
  /** Files written, for tests. */
  readonly written: string[] = [];

  constructor(readonly device: VirtualDevice) {}

  command(argv: string[], io: ShIo, shell: ShellRun): Promise<number | null> | number | null {
    if (argv[0] === "screenrecord") return this.record(argv.slice(1), io, shell);
    if (argv[0] === "kill") return this.kill(argv.slice(1), io);
    return null;
  }

  private usage(io: ShIo, why: string): number {
    io.err(enc.encode(`${why}\nUsage: screenrecord [options] <filename>\n`));
    return 2;
  }

  private async record(args: string[], io: ShIo, shell: ShellRun): Promise<number> {
    if (this.device.api < 19) {
      io.err(enc.encode("/system/bin/sh: screenrecord: not found\n"));
      return 127;
    }
    let limit = MAX_TIME_LIMIT_S;
    let path: string | null = null;
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (a === "--time-limit") {
        limit = Number(args[++k]);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TIME_LIMIT_S) {
          io.err(enc.encode(
            `Time limit ${args[k]}s outside acceptable range [1,${MAX_TIME_LIMIT_S}]\n`,
          ));
          return 2;
        }
      } else if (a === "--bit-rate") {
        const b = Number(args[++k]);
        if (!Number.isInteger(b) || b < 100_000 || b > 200_000_000) {
          io.err(
            enc.encode(`Bit rate ${args[k]}bps outside acceptable range [100000,200000000]\n`),
          );
          return 2;
        }
      } else if (a === "--size") {
        if (!/^\d+x\d+$/.test(args[++k] ?? "")) return this.usage(io, `Invalid size '${args[k]}'`);
      } else if (a === "--verbose" || a === "--bugreport") continue;
      else if (a.startsWith("-")) return this.usage(io, `Unknown option '${a}'`);
      else path = a;
    }
    if (path === null) return this.usage(io, "Must specify output file (see --help).");
    const file = this.device.resolve(path);
    let stopped = false;
    let killed = false;
    let wake = () => {};
    const stop = (finish: boolean) => {
      stopped = finish;
      killed = !finish;
      wake();
    };
    this.recordings.set(shell.pid, { pid: shell.pid, path: file, stop });
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, limit * 1000);
        const signal = shell.signal;
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
      });
    } finally {
      this.recordings.delete(shell.pid);
    }
    // The stream closed (SIGHUP from adbd) before SIGINT or the limit: no finished file.
    if (shell.signal?.aborted && !stopped) return 129;
    if (killed) return 143;
    this.device.writeFile(file, MP4.slice());
    this.written.push(file);
    return 0;
  }

  private kill(args: string[], io: ShIo): number {
    let signal = "TERM";
    const pids: string[] = [];
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (a === "-s") signal = (args[++k] ?? "").replace(/^SIG/, "");
      else if (/^-\w+$/.test(a)) signal = a.slice(1).replace(/^SIG/, "");
      else pids.push(a);
    }
    const interrupt = signal === "2" || signal === "INT";
    let status = 0;
    for (const p of pids) {
      const pid = Number(p);
      const rec = this.recordings.get(pid);
      if (rec) {
        rec.stop(interrupt);
        continue;
      }
      const apps = this.device.service<AppsService>("apps");
      const msg = apps?.procs.has(pid) ? "Operation not permitted" : "No such process";
      io.err(enc.encode(`/system/bin/sh: kill: ${p}: ${msg}\n`));
      status = 1;
    }
    return status;
  }

  close() {
    for (const r of this.recordings.values()) r.stop(false);
  }
}

export function screenrecordService(device: VirtualDevice): ScreenRecordService {
  return new ScreenRecordService(device);
}
