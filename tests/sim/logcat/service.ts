/**
 * The simulated logcat of one device (DeviceService "logcat"): the `logcat` command over
 * `device.log` (formats, -d/-t/-T/-b/-s/filterspecs/-c/-g/--pid/-e/-m, live streaming until the
 * stream closes), ordinary traffic at a configurable rate, scripted crashes and replays of
 * captured logs. Tests drive it through `simctl crash|logcat-replay|logcat-rate|logcat-tz` or the
 * methods below (`device.service<LogcatService>("logcat")`).
 */
import type { DeviceService, VirtualDevice } from "../device.ts";
import type { LogEntry } from "../device_log.ts";
import type { ShellRun, ShIo } from "../sh_exec.ts";
import type { SimWorld } from "../services.ts";
import {
  anrLines,
  CRASH_KINDS,
  CRASH_VARIANTS,
  type CrashKind,
  javaCrashLines,
  nativeCrashLines,
  startProcLines,
} from "./crashes.ts";
import { storedZipEntry } from "../apps/apk.ts";
import { type FrameRewrite, readDexTable } from "../gradle/r8.ts";
import { isTimeZone, LineFormatter, wallClock, wallToEpoch } from "./format.ts";
import {
  type BufferName,
  type LogcatOptions,
  parseLogcatArgs,
  passes,
  type Start,
} from "./options.ts";
import { MAX_REPLAY_BYTES, parseLogText } from "./replay.ts";
import {
  type EntryInit,
  type ExternalProc,
  type Proc,
  ProcessTable,
  Rng,
  seedOf,
  trafficBurst,
} from "./traffic.ts";

const enc = new TextEncoder();

/** Ordinary lines per second each device logs unless told otherwise. */
export const DEFAULT_TRAFFIC_RATE = 20;
/** Highest traffic rate (lines per second) `simctl logcat-rate` accepts. */
export const MAX_TRAFFIC_RATE = 200_000;
/** Traffic timer period bounds (ms): one line per tick at low rates, batches at high rates. */
export const MIN_TRAFFIC_TICK_MS = 10;
export const MAX_TRAFFIC_TICK_MS = 50;
/** A stalled event loop does not turn into a burst longer than this (ms of traffic). */
export const MAX_TRAFFIC_CATCH_UP_MS = 250;
/** A streaming logcat writes once this much text is pending (else at the end of the turn). */
export const STREAM_FLUSH_CHARS = 64 * 1024;
/** Replayed entries appended per turn of the event loop (streams drain in between). */
export const REPLAY_BATCH = 2000;
/** Live `logcat` streams one device serves at once; more are refused. */
export const MAX_LIVE_STREAMS = 64;
/** The ring size `logcat -g` reports per buffer (bytes). */
export const REPORTED_RING_BYTES = 256 * 1024;
/** Distinct ordinary entries `flood` cycles through (generated once per device). */
export const FLOOD_POOL_ENTRIES = 4096;
/** Entries `flood` appends before it waits for every live stream to drain. */
export const FLOOD_BATCH = 4096;
/** The buffers flooded entries go to: logcat's default set (main, system, crash). */
const FLOOD_BUFFERS = new Set(["main", "system", "crash"]);
/** Most lines one `flood` writes. */
export const MAX_FLOOD_LINES = 10_000_000;

const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

export interface LogcatServiceOptions {
  /** Traffic lines per second (default DEFAULT_TRAFFIC_RATE; 0 = none). */
  rate?: number;
}

export interface CrashResult {
  kind: CrashKind;
  package: string;
  /** The pid that crashed. */
  pid: number;
  /** The pid of the restarted process (Java crashes), else null. */
  restartedPid: number | null;
}

export interface ReplayResult {
  entries: number;
  dropped: number;
}

/**
 * What this service reads of the apps service when one is attached (tests/sim/apps/): its
 * processes (so logcat pids match `ps`) and its packages' uids. `processDied` tells it a process
 * this service crashed is gone (it records the exit reason); with `restart` it starts the process
 * again and returns the new pid (null when the package is not its own: then this service
 * restarts it in its own table).
 */
interface AppsView {
  procs?: Map<number, ExternalProc>;
  packages?: Map<string, { uid: number; apkPath?: string }>;
  processDied?(
    pkg: string,
    pid: number,
    kind: CrashKind,
    how: { restart: boolean; signal: number | null },
  ): number | null | void;
}

/** The signal a native crash variant dies of (the tombstone's `signal` line). */
const NATIVE_SIGNAL: Readonly<Record<string, number>> = { segv: 11, abort: 6 };

export class LogcatService implements DeviceService {
  readonly name = "logcat";
  readonly procs: ProcessTable;
  readonly #rng: Rng;
  #rate = 0;
  #acc = 0;
  #last = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #tz: string | null = null;
  #tombstones = 0;
  readonly #bootMs: number;
  readonly #cleared = new WeakSet<LogEntry>();
  readonly #streams = new Set<() => void>();
  /** The live streams' "sent so far has left" waits (ShIo.drained), for `flood`. */
  readonly #drains = new Set<() => Promise<void>>();
  #floodPool: EntryInit[] | null = null;

  constructor(
    readonly device: VirtualDevice,
    readonly world?: SimWorld,
    opts: LogcatServiceOptions = {},
  ) {
    this.#rng = new Rng(seedOf(device.serial));
    this.procs = new ProcessTable(this.#rng);
    this.#bootMs = Date.now() - this.#rng.int(600, 3600) * 1000;
    this.setRate(opts.rate ?? DEFAULT_TRAFFIC_RATE);
  }

  // ---- controls

  get rate(): number {
    return this.#rate;
  }

  /** Ordinary traffic in lines per second (0 stops it). */
  setRate(linesPerSecond: number): void {
    if (
      !Number.isFinite(linesPerSecond) || linesPerSecond < 0 || linesPerSecond > MAX_TRAFFIC_RATE
    ) {
      throw new RangeError(
        `Cannot set logcat rate ${linesPerSecond}: use 0..${MAX_TRAFFIC_RATE} lines per second`,
      );
    }
    this.#rate = linesPerSecond;
    this.#acc = 0;
    this.#schedule();
  }

  /** The zone logcat prints times in (null = the host's local zone, the default). */
  get timeZone(): string | null {
    return this.#tz;
  }

  setTimeZone(tz: string | null): void {
    if (tz !== null && tz !== "UTC" && !isTimeZone(tz)) {
      throw new RangeError(`Unknown time zone ${tz}: use an IANA name like Europe/Berlin`);
    }
    this.#tz = tz;
  }

  /** Live `logcat` streams open now. */
  get liveStreams(): number {
    return this.#streams.size;
  }

  /** Appends ordinary traffic now (tests that want a known amount without waiting). */
  emitTraffic(lines: number): void {
    let k = 0;
    while (k < lines) {
      for (const e of trafficBurst(this.#trafficContext())) {
        this.device.log.append(e);
        k++;
      }
    }
  }

  /**
   * Appends `lines` ordinary entries as fast as the live streams read them: a pool of generated
   * traffic is made once and cycled with the current time, and after every `FLOOD_BATCH` entries
   * the flood waits until each live stream's socket took what it was given (a slow reader slows
   * the flood instead of growing this side's memory). For soak tests and the bench, where the
   * simulator must cost less per line than the reader it feeds. Resolves with the lines written.
   */
  async flood(lines: number): Promise<number> {
    if (!Number.isInteger(lines) || lines < 0 || lines > MAX_FLOOD_LINES) {
      throw new RangeError(`Cannot flood ${lines} lines: use 0..${MAX_FLOOD_LINES}`);
    }
    const pool = this.#floodPool ?? this.#makeFloodPool();
    let k = 0;
    while (k < lines && !this.#closed) {
      const now = Date.now();
      const end = Math.min(lines, k + FLOOD_BATCH);
      for (; k < end; k++) {
        const e = pool[k % pool.length];
        e.time = now;
        this.device.log.append(e);
      }
      await null; // the streams' queued flushes run first
      await Promise.all([...this.#drains].map((d) => d()));
      await new Promise((r) => setTimeout(r, 0));
    }
    return k;
  }

  #makeFloodPool(): EntryInit[] {
    const ctx = this.#trafficContext();
    const pool: EntryInit[] = [];
    // Only the buffers `logcat` prints by default, so every flooded line reaches a plain reader.
    while (pool.length < FLOOD_POOL_ENTRIES) {
      for (const e of trafficBurst(ctx)) {
        if (FLOOD_BUFFERS.has(e.buffer ?? "main")) pool.push(e);
      }
    }
    this.#floodPool = pool;
    return pool;
  }

  /** A scripted crash of `pkg`: its lines enter the log, the process dies (Java: restarts). */
  crash(pkg: string, kind: CrashKind, variant?: string): CrashResult {
    if (!PACKAGE_RE.test(pkg)) {
      throw new RangeError(`Cannot crash ${JSON.stringify(pkg)}: not a package name`);
    }
    if (!CRASH_KINDS.includes(kind)) {
      throw new RangeError(`Unknown crash kind ${kind}: use ${CRASH_KINDS.join(", ")}`);
    }
    const variants = CRASH_VARIANTS[kind];
    const v = variant ?? variants[0];
    if (!variants.includes(v)) {
      throw new RangeError(`Unknown ${kind} crash variant ${v}: use ${variants.join(", ")}`);
    }
    const sys = this.procs.byName("system_server")!;
    const zygote = this.procs.byName("zygote64")!;
    const app = this.#appProcess(pkg);
    const now = Date.now();
    let lines: EntryInit[];
    if (kind === "java") lines = javaCrashLines(app, sys, zygote, v, this.#r8Table(pkg));
    else if (kind === "anr") {
      lines = anrLines(app, sys, zygote, v, this.device.api, this.#rng, now);
    } else {
      const dumper = this.procs.spawn("crash_dump64", app.uid, false);
      lines = nativeCrashLines(
        app,
        dumper,
        this.procs.byName("tombstoned")!,
        sys,
        zygote,
        v,
        {
          api: this.device.api,
          fingerprint: this.device.props.get("ro.build.fingerprint") ?? "",
          abi: this.device.props.get("ro.product.cpu.abi") ?? "x86_64",
        },
        this.#rng,
        now,
        this.#tombstones++,
      );
      this.procs.kill(dumper.pid);
    }
    for (const l of lines) this.device.log.append(l);
    this.procs.kill(app.pid);
    const restart = kind === "java";
    const signal = kind === "native" ? NATIVE_SIGNAL[v] ?? 11 : null;
    const theirs = this.#apps()?.processDied?.(pkg, app.pid, kind, { restart, signal }) ?? null;
    let restartedPid: number | null = null;
    if (restart) {
      // The apps service's process when it started one (same pid in `ps`), else one of ours.
      this.#trafficContext();
      const again = (theirs !== null ? this.procs.get(theirs) : undefined) ??
        this.procs.spawn(pkg, app.uid);
      for (const l of startProcLines(sys, again, "next-top-activity", this.device.api)) {
        this.device.log.append(l);
      }
      restartedPid = again.pid;
    }
    return { kind, package: pkg, pid: app.pid, restartedPid };
  }

  /** Replays captured log text: its lines enter the log with their pids and tags, times shifted
   * so that the last timed line is now. */
  async replay(text: string): Promise<ReplayResult> {
    const parsed = parseLogText(text, new Date().getFullYear());
    const now = Date.now();
    let lastTime: number | null = null;
    for (let k = parsed.entries.length - 1; k >= 0 && lastTime === null; k--) {
      lastTime = parsed.entries[k].time;
    }
    const shift = lastTime === null ? 0 : now - lastTime;
    let dumper: Proc | null = null;
    if (parsed.tombstone) dumper = this.procs.spawn("crash_dump64", 1000, false);
    const learned = new Map<number, number>();
    let prevTime = now;
    let k = 0;
    for (const p of parsed.entries) {
      const time = p.time === null ? prevTime : p.time + shift;
      prevTime = time;
      const pid = dumper ? dumper.pid : p.pid;
      const sp = /^Start proc (\d+):[^/\s]+\/(u\d+a(\d+)|\d+)/.exec(p.message);
      if (sp) learned.set(Number(sp[1]), sp[3] ? 10000 + Number(sp[3]) : Number(sp[2]));
      this.device.log.append({
        time,
        pid,
        tid: dumper ? dumper.pid : p.tid,
        uid: p.uid ?? learned.get(p.pid) ?? this.procs.get(pid)?.uid ?? 1000,
        level: p.level,
        tag: p.tag,
        message: p.message,
        buffer: p.buffer,
      });
      if (++k % REPLAY_BATCH === 0) await new Promise((r) => setTimeout(r, 0));
    }
    if (dumper) this.procs.kill(dumper.pid);
    return { entries: parsed.entries.length, dropped: parsed.dropped };
  }

  async replayFile(hostFile: string): Promise<ReplayResult> {
    const st = await Deno.stat(hostFile);
    if (!st.isFile) throw new RangeError(`Cannot replay ${hostFile}: not a file`);
    if (st.size > MAX_REPLAY_BYTES) {
      throw new RangeError(
        `Cannot replay ${hostFile}: ${st.size} bytes is over ${MAX_REPLAY_BYTES}; trim it first`,
      );
    }
    return await this.replay(new TextDecoder().decode(await Deno.readFile(hostFile)));
  }

  // ---- DeviceService

  async command(argv: string[], io: ShIo, shell: ShellRun): Promise<number | null> {
    if (argv[0] !== "logcat") return null;
    const parsed = parseLogcatArgs(
      argv.slice(1),
      shell.env.get("ANDROID_LOG_TAGS") ?? "",
      this.#tz,
    );
    if (!parsed.ok) {
      io.err(enc.encode(`logcat: ${parsed.error}\n`));
      return 1;
    }
    const opts = parsed.opts;
    if (opts.help) {
      io.out(enc.encode(USAGE));
      return 0;
    }
    if (opts.clear) {
      this.#clear(opts.buffers);
      return 0;
    }
    if (opts.sizes) {
      io.out(enc.encode(this.#sizes(opts.buffers)));
      return 0;
    }
    return await this.#run(opts, io, shell.signal);
  }

  simctl(args: string[], io: ShIo): Promise<number | null> | number | null {
    const fail = (msg: string) => {
      io.err(enc.encode(`simctl: ${msg}\n`));
      return 1;
    };
    const [sub, ...rest] = args;
    switch (sub) {
      case "crash": {
        const [pkg, kind, variant] = rest;
        if (rest.length < 2 || rest.length > 3 || !CRASH_KINDS.includes(kind as CrashKind)) {
          return fail("usage: simctl crash <package> java|anr|native [variant]");
        }
        try {
          this.crash(pkg, kind as CrashKind, variant);
        } catch (e) {
          return fail((e as Error).message);
        }
        return 0;
      }
      case "logcat-rate": {
        const n = Number(rest[0]);
        if (rest.length !== 1 || !/^\d+(\.\d+)?$/.test(rest[0]) || n > MAX_TRAFFIC_RATE) {
          return fail(`usage: simctl logcat-rate <lines per second 0..${MAX_TRAFFIC_RATE}>`);
        }
        this.setRate(n);
        return 0;
      }
      case "logcat-flood": {
        const n = Number(rest[0]);
        if (rest.length !== 1 || !/^\d+$/.test(rest[0]) || n > MAX_FLOOD_LINES) {
          return fail(`usage: simctl logcat-flood <lines 0..${MAX_FLOOD_LINES}>`);
        }
        return this.flood(n).then(() => 0);
      }
      case "logcat-tz": {
        if (rest.length !== 1) return fail("usage: simctl logcat-tz <IANA zone|host>");
        try {
          this.setTimeZone(rest[0] === "host" ? null : rest[0]);
        } catch (e) {
          return fail((e as Error).message);
        }
        return 0;
      }
      case "logcat-replay": {
        if (rest.length !== 1) return fail("usage: simctl logcat-replay <host file>");
        return this.replayFile(rest[0]).then(() => 0, (e) => {
          const msg = e instanceof Deno.errors.NotFound
            ? `cannot read ${rest[0]}: no such host file`
            : (e as Error).message;
          return fail(msg);
        });
      }
    }
    return null;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const end of [...this.#streams]) end();
  }

  // ---- internals

  /** How R8 rewrote the installed build of `pkg` (a minified build), else `null`. */
  #r8Table(pkg: string): FrameRewrite[] | null {
    const path = this.#apps()?.packages?.get(pkg)?.apkPath;
    const apk = path ? this.device.files.get(path) : undefined;
    const dex = apk ? storedZipEntry(apk, "classes.dex") : null;
    return dex ? readDexTable(dex) : null;
  }

  #apps(): AppsView | undefined {
    return this.device.service("apps") as unknown as AppsView | undefined;
  }

  #trafficContext() {
    const procs = this.#apps()?.procs;
    if (procs instanceof Map) this.procs.sync(procs.values());
    return { rng: this.#rng, procs: this.procs, emulator: this.device.kind === "emulator" };
  }

  #schedule(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#rate <= 0 || this.#closed) return;
    const tick = Math.max(MIN_TRAFFIC_TICK_MS, Math.min(MAX_TRAFFIC_TICK_MS, 1000 / this.#rate));
    this.#last = Date.now();
    const run = () => {
      const now = Date.now();
      const dt = Math.min(now - this.#last, MAX_TRAFFIC_CATCH_UP_MS);
      this.#last = now;
      this.#acc += (this.#rate * dt) / 1000;
      const n = Math.floor(this.#acc);
      this.#acc -= n;
      const ctx = this.#trafficContext();
      let k = 0;
      while (k < n) {
        for (const e of trafficBurst(ctx)) {
          e.time = now - dt + Math.floor((dt * (Math.min(k, n - 1) + 1)) / n);
          this.device.log.append(e);
          k++;
        }
      }
      const next = setTimeout(run, tick);
      Deno.unrefTimer(next);
      this.#timer = next;
    };
    const first = setTimeout(run, tick);
    Deno.unrefTimer(first);
    this.#timer = first;
  }

  #appProcess(pkg: string): Proc {
    this.#trafficContext();
    const known = this.procs.byName(pkg);
    if (known) return known;
    const app = this.procs.spawn(pkg, this.#apps()?.packages?.get(pkg)?.uid ?? this.#uidFor(pkg));
    const sys = this.procs.byName("system_server")!;
    for (const l of startProcLines(sys, app, "top-activity", this.device.api)) {
      this.device.log.append(l);
    }
    return app;
  }

  #uidFor(pkg: string): number {
    return 10150 + (seedOf(pkg) % 700);
  }

  #visible(buffers: BufferName[], pid: number | null): LogEntry[] {
    const want = new Set<string>(buffers);
    return this.device.log.entries().filter((e) =>
      want.has(e.buffer) && !this.#cleared.has(e) && (pid === null || e.pid === pid)
    );
  }

  #clear(buffers: BufferName[]): void {
    const want = new Set<string>(buffers);
    const all = this.device.log.entries();
    if (all.every((e) => want.has(e.buffer))) {
      this.device.log.clear();
      return;
    }
    for (const e of all) if (want.has(e.buffer)) this.#cleared.add(e);
  }

  #sizes(buffers: BufferName[]): string {
    const used = new Map<string, number>();
    for (const e of this.device.log.entries()) {
      if (this.#cleared.has(e)) continue;
      used.set(e.buffer, (used.get(e.buffer) ?? 0) + 28 + e.tag.length + e.message.length + 2);
    }
    const kib = (n: number) => Math.ceil(n / 1024);
    return buffers.map((b) => {
      const consumed = Math.min(REPORTED_RING_BYTES, used.get(b) ?? 0);
      return `${b}: ring buffer is ${kib(REPORTED_RING_BYTES)} KiB (${
        kib(consumed)
      } KiB consumed), max entry is 5120 B, max payload is 4068 B\n`;
    }).join("");
  }

  #startIndex(list: LogEntry[], start: Start | null): number {
    if (start === null) return 0;
    if (start.kind === "count") return Math.max(0, list.length - start.count);
    let t: number;
    if (start.kind === "epoch") t = start.ms;
    else {
      const year = start.year ?? wallClock(Date.now(), this.#tz).year;
      t = wallToEpoch(
        {
          year,
          month: start.month,
          day: start.day,
          hour: start.hms[0],
          minute: start.hms[1],
          second: start.hms[2],
        },
        start.ms,
        this.#tz,
      );
    }
    const k = list.findIndex((e) => e.time >= t);
    return k < 0 ? list.length : k;
  }

  async #run(opts: LogcatOptions, io: ShIo, signal: AbortSignal | undefined): Promise<number> {
    const formatter = new LineFormatter(opts.format, this.#bootMs);
    const printed = new Set<string>();
    let lastBuffer = "";
    let parts: string[] = [];
    let pending = 0;
    let count = 0;
    let done = false;
    let flushQueued = false;
    let finish = () => {};
    const flush = () => {
      flushQueued = false;
      if (parts.length === 0) return;
      const text = parts.join("");
      parts = [];
      pending = 0;
      io.out(enc.encode(text));
    };
    const write = (e: LogEntry) => {
      if (done || !passes(opts, e)) return;
      if (e.buffer !== lastBuffer) {
        if (!printed.has(e.buffer) || opts.dividers) {
          parts.push(
            `--------- ${printed.has(e.buffer) ? "switch to" : "beginning of"} ${e.buffer}\n`,
          );
        }
        printed.add(e.buffer);
        lastBuffer = e.buffer;
      }
      const s = formatter.format(e);
      parts.push(s);
      pending += s.length;
      if (opts.maxCount !== null && ++count >= opts.maxCount) {
        done = true;
        flush();
        finish();
        return;
      }
      if (pending >= STREAM_FLUSH_CHARS) flush();
    };
    const history = this.#visible(opts.buffers, opts.pid);
    const from = this.#startIndex(history, opts.start);
    const follow = !opts.dump && signal !== undefined && !this.#closed;
    if (follow && this.#streams.size >= MAX_LIVE_STREAMS) {
      io.err(
        enc.encode(`logcat: too many readers (${MAX_LIVE_STREAMS}) on this simulated device\n`),
      );
      return 1;
    }
    for (let k = from; k < history.length && !done; k++) write(history[k]);
    flush();
    if (!follow || done) return 0;

    const want = new Set<string>(opts.buffers);
    await new Promise<void>((resolve) => {
      const unsubscribe = this.device.log.subscribe((e) => {
        if (!want.has(e.buffer)) return;
        write(e);
        if (!flushQueued && parts.length > 0) {
          flushQueued = true;
          queueMicrotask(flush);
        }
      });
      const drained = io.drained;
      const end = () => {
        unsubscribe();
        signal.removeEventListener("abort", end);
        this.#streams.delete(end);
        if (drained) this.#drains.delete(drained);
        resolve();
      };
      finish = end;
      if (signal.aborted) return end();
      signal.addEventListener("abort", end, { once: true });
      this.#streams.add(end);
      if (drained) this.#drains.add(drained);
    });
    if (!signal.aborted) flush();
    return 0;
  }
}

const USAGE = `Usage: logcat [options] [filterspecs]

General options:
  -b, --buffer=<buffer>       Request alternate ring buffer(s): main system radio events crash
                              default all (default: main,system,crash)
  -c, --clear                 Clear (flush) the entire log and exit
  -d                          Dump the log and then exit (don't block)
  -D, --dividers              Print dividers between each log buffer
  -g, --buffer-size           Get the size of the ring buffers within logd
  -m, --max-count=<count>     Quit after printing <count> lines
  -s                          Set default filter to silent ('*:S')
  -t <count>|'<time>'         Print the most recent <count> lines or the lines since <time>
                              (implies -d)
  -T <count>|'<time>'         Print the most recent <count> lines or the lines since <time>
  -v, --format=<format>       Sets log print format verb and adverbs
  -e, --regex=<expr>          Only print lines where the log message matches <expr>
  --pid=<pid>                 Only print logs from the given pid

filterspecs are a series of <tag>[:priority] where priority is V D I W E F S
`;

/** The factory tests/sim/services.ts lists. */
export function logcatService(device: VirtualDevice, world: SimWorld | null): LogcatService {
  return new LogcatService(device, world ?? undefined);
}
