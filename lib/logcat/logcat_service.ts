/**
 * The logcat worker's state: one stream and one pipeline per device, read over the worker's own
 * ADB connection (`logcat -v threadtime`), and the answers to queries. The worker's message loop
 * (workers/logcat.ts) calls these methods; tests call them with a fake ADB server.
 */
import type { AdbClient, ShellStream } from "../adb/client.ts";
import { ToolError } from "../core/errors.ts";
import { crashesAnswer, rederive, sessionCrashes, traceAnswer } from "./crash_answers.ts";
import { parseProcessList } from "./enrich.ts";
import { LEVEL_LETTERS } from "./line_parser.ts";
import type {
  CrashesResult,
  DebugSessionCrash,
  DeviceStats,
  EntriesParams,
  EntriesResult,
  LogEntryOut,
  MemoryResult,
  RederiveParams,
  RederiveResult,
  StartParams,
  StartResult,
  StatsResult,
  StreamState,
  TraceParams,
  TraceResult,
} from "./shared/logcat_protocol.ts";
import { DevicePipeline } from "./pipeline.ts";
import { QueuedReads } from "./queued_reads.ts";
import { clampRingEntries } from "./ring_store.ts";
import { TextIndex } from "./text_index.ts";

/** How long opening a device's stream may take (spec: 5 s start-up timeout). */
const START_TIMEOUT_MS = 5_000;
/** Budget of one `ps` read of the device's processes. */
const PS_TIMEOUT_MS = 5_000;
/** At most one `ps` refresh per device in this interval (unknown pids trigger one). */
const PS_REFRESH_MIN_INTERVAL_MS = 5_000;
/** Devices streamed at once. */
const MAX_STREAMS = 16;
/** Entries one query returns at most (the tool's maximum). */
const MAX_ENTRIES_PER_QUERY = 10_000;
/** Tags listed by the stats. */
const TOP_TAGS = 10;
/** Quiet time of a stream before its text index is built in the background. */
const INDEX_IDLE_MS = 20;
/** Quiet time after which a resumed stream that never replayed its anchor stores what it held. */
const RESUME_QUIET_MS = 1_000;
/** Text-index blocks built per idle turn (8,192 entries, about a millisecond). */
const INDEX_BUILD_BLOCKS = 64;
/** The device command; `-v threadtime` is also the default, but a device may set another. */
const LOGCAT_ARGV = ["logcat", "-v", "threadtime"] as const;
const PS_ARGV = ["ps", "-A", "-o", "PID,NAME"] as const;

interface DeviceStream {
  pipeline: DevicePipeline;
  state: StreamState;
  reason: string | null;
  startedAt: string | null;
  endedAt: string | null;
  stream: ShellStream | null;
  pump: Promise<void> | null;
  stopping: boolean;
  lastPs: number;
  psRunning: boolean;
  /** The idle-time text-index build (see TextIndex.buildDirty). */
  indexTimer: ReturnType<typeof setTimeout> | undefined;
  lastIngest: number;
}

interface LogcatServiceOptions {
  adb: Pick<AdbClient, "openShellStream" | "shell" | "listDevices">;
}

export class LogcatService {
  #adb: LogcatServiceOptions["adb"];
  #devices = new Map<string, DeviceStream>();
  #seq = 0;
  #crashIds = 0;
  #seqSource = { next: () => ++this.#seq };

  constructor(opts: LogcatServiceOptions) {
    this.#adb = opts.adb;
  }

  #device(serial: string, capacity: number): DeviceStream {
    let d = this.#devices.get(serial);
    if (!d) {
      const pipeline = new DevicePipeline(serial, {
        capacity,
        seq: this.#seqSource,
        crashId: () => ++this.#crashIds,
      });
      d = {
        pipeline,
        state: "stopped",
        reason: null,
        startedAt: null,
        endedAt: null,
        stream: null,
        pump: null,
        stopping: false,
        lastPs: 0,
        psRunning: false,
        indexTimer: undefined,
        lastIngest: 0,
      };
      const dev = d;
      pipeline.onUnknownPid = () => this.#refreshProcesses(serial, dev, false);
      this.#devices.set(serial, d);
    } else if (d.pipeline.store.capacity !== clampRingEntries(capacity)) {
      d.pipeline.store.resize(capacity);
    }
    return d;
  }

  #refreshProcesses(serial: string, d: DeviceStream, force: boolean): Promise<void> {
    const now = Date.now();
    if (d.psRunning || (!force && now - d.lastPs < PS_REFRESH_MIN_INTERVAL_MS)) {
      return Promise.resolve();
    }
    d.psRunning = true;
    d.lastPs = now;
    return this.#adb.shell(serial, PS_ARGV, { timeoutMs: PS_TIMEOUT_MS })
      .then((r) => d.pipeline.applyProcessList(parseProcessList(r.text())))
      .catch(() => {/* best effort: the stream still teaches processes */})
      .finally(() => d.psRunning = false);
  }

  async start(p: StartParams, signal?: AbortSignal): Promise<StartResult> {
    const existing = this.#devices.get(p.serial);
    if (existing && (existing.state === "streaming" || existing.state === "starting")) {
      return this.#startResult(p.serial, existing, true, false);
    }
    const streaming = [...this.#devices.values()].filter((d) => d.state === "streaming").length;
    if (streaming >= MAX_STREAMS) {
      throw new ToolError(
        "invalid_request",
        `Cannot stream ${p.serial}: ${MAX_STREAMS} devices already stream logcat; ` +
          "call stop_logcat on one first",
      );
    }
    const d = this.#device(p.serial, p.capacity);
    const resumed = d.startedAt !== null;
    d.state = "starting";
    d.stopping = false;
    try {
      await this.#refreshProcesses(p.serial, d, true);
      d.stream = await this.#adb.openShellStream(p.serial, LOGCAT_ARGV, {
        timeoutMs: START_TIMEOUT_MS,
        signal,
      });
      d.state = "streaming";
      d.reason = null;
      d.startedAt = new Date().toISOString();
      d.endedAt = null;
      // On resume the device replays its buffer: what was stored before is skipped by content.
      if (resumed) d.pipeline.beginResume();
      d.pump = this.#pump(p.serial, d, d.stream);
    } catch (e) {
      d.state = resumed ? "disconnected" : "stopped";
      d.reason = e instanceof Error ? e.message : String(e);
      if (!resumed && d.pipeline.store.size === 0) this.#devices.delete(p.serial);
      throw e;
    }
    return this.#startResult(p.serial, d, false, resumed);
  }

  #startResult(serial: string, d: DeviceStream, already: boolean, resumed: boolean): StartResult {
    return {
      serial,
      state: d.state,
      already,
      resumed,
      stored: d.pipeline.store.size,
      capacity: d.pipeline.store.capacity,
      processes_known: d.pipeline.procs.pidCount,
    };
  }

  async #pump(serial: string, d: DeviceStream, stream: ShellStream): Promise<void> {
    const reader = stream.stdout.getReader();
    // Chunks already queued behind one are read with it (a burst becomes few large texts).
    const reads = new QueuedReads(reader);
    const decoder = new TextDecoder();
    let failure: string | null = null;
    try {
      while (true) {
        const value = await reads.read();
        if (value === null) break;
        const text = decoder.decode(value, { stream: true });
        if (text) {
          d.pipeline.ingestText(text);
          d.lastIngest = performance.now();
          this.#scheduleIndex(d);
        }
      }
      const tail = decoder.decode();
      if (tail) d.pipeline.ingestText(tail);
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
    } finally {
      reader.releaseLock();
      // Stopped: the last line is kept as it is. Cut by a disconnect: the device prints it whole
      // again on resume, so the fragment is dropped.
      if (d.stopping) d.pipeline.flush();
      else d.pipeline.dropPartial();
      d.pipeline.endResume();
      clearTimeout(d.indexTimer);
      d.indexTimer = undefined;
    }
    const exit = await stream.exitCode.catch(() => null);
    await stream.close().catch(() => {});
    d.stream = null;
    d.endedAt = new Date().toISOString();
    if (d.stopping) {
      d.state = "stopped";
      d.reason = "stopped by stop_logcat";
      return;
    }
    d.state = "disconnected";
    d.reason = failure ?? await this.#whyEnded(serial, exit);
  }

  /**
   * Builds the text index of what was overwritten once the stream has been quiet for
   * INDEX_IDLE_MS, INDEX_BUILD_BLOCKS blocks at a time, so a burst is not slowed and a query after
   * it rarely builds anything itself.
   */
  #scheduleIndex(d: DeviceStream): void {
    if (d.indexTimer !== undefined) return;
    const run = () => {
      d.indexTimer = undefined;
      if (d.stream === null) return;
      const quiet = performance.now() - d.lastIngest;
      if (quiet < INDEX_IDLE_MS) {
        d.indexTimer = setTimeout(run, INDEX_IDLE_MS - quiet);
        return;
      }
      // A resume still looking for its anchor after the replay went quiet: the anchor is gone.
      if (d.pipeline.resuming) {
        if (quiet < RESUME_QUIET_MS) {
          d.indexTimer = setTimeout(run, RESUME_QUIET_MS - quiet);
          return;
        }
        d.pipeline.endResume();
      }
      const store = d.pipeline.store;
      const newest = store.newestSlot();
      const writing = newest < 0 ? -1 : TextIndex.blockOf(newest);
      if (store.textIndex.buildDirty(store, INDEX_BUILD_BLOCKS, writing) > 0) {
        d.indexTimer = setTimeout(run, 0);
      }
    };
    d.indexTimer = setTimeout(run, INDEX_IDLE_MS);
  }

  async #whyEnded(serial: string, exit: number | null): Promise<string> {
    const devices = await this.#adb.listDevices({ timeoutMs: 3_000 }).catch(() => null);
    const dev = devices?.find((x) => x.serial === serial);
    if (devices && !dev) {
      return `device ${serial} disconnected (adb no longer lists it); reconnect it and call ` +
        "start_logcat to resume";
    }
    if (dev && dev.state !== "device") {
      return `device ${serial} is ${dev.state}; call start_logcat to resume once it is online`;
    }
    return `logcat on ${serial} ended${exit === null ? "" : ` with status ${exit}`}; ` +
      "call start_logcat to resume";
  }

  async stop(serial?: string): Promise<{ stopped: string[] }> {
    const stopped: string[] = [];
    for (const [s, d] of this.#devices) {
      if (serial !== undefined && s !== serial) continue;
      if (d.state !== "streaming" && d.state !== "starting") continue;
      d.stopping = true;
      const stream = d.stream;
      if (stream) await stream.close();
      await d.pump;
      d.state = "stopped";
      d.reason = "stopped by stop_logcat";
      stopped.push(s);
    }
    return { stopped };
  }

  clear(serial?: string): { cleared: string[] } {
    const cleared: string[] = [];
    for (const [s, d] of this.#devices) {
      if (serial !== undefined && s !== serial) continue;
      d.pipeline.clear();
      cleared.push(s);
    }
    return { cleared };
  }

  #selected(serial?: string): DeviceStream[] {
    if (serial === undefined) return [...this.#devices.values()];
    const d = this.#devices.get(serial);
    return d ? [d] : [];
  }

  entries(p: EntriesParams): EntriesResult {
    const t0 = performance.now();
    const count = Math.max(0, Math.min(MAX_ENTRIES_PER_QUERY, Math.floor(p.count)));
    const devices = this.#selected(p.serial);
    const found: { pipeline: DevicePipeline; slot: number; seq: number }[] = [];
    let stored = 0;
    // The highest seq a device's cut scan stopped at: below it the merged answer is not known.
    let cursor: number | null = null;
    for (const d of devices) {
      stored += d.pipeline.store.size;
      const scan = d.pipeline.queryScan({
        count,
        minLevel: p.min_level,
        tag: p.tag,
        text: p.text,
        package: p.package,
        onlyCrashes: p.only_crashes,
        beforeSeq: p.before_seq,
      });
      if (scan.stoppedAt !== null && (cursor === null || scan.stoppedAt > cursor)) {
        cursor = scan.stoppedAt;
      }
      for (const slot of scan.slots) {
        found.push({ pipeline: d.pipeline, slot, seq: d.pipeline.store.seq[slot] });
      }
    }
    if (devices.length > 1) found.sort((a, b) => b.seq - a.seq);
    const known = cursor === null ? found : found.filter((f) => f.seq >= cursor!);
    // Complete when `count` entries were found above every cut.
    const partial = cursor !== null && known.length < count;
    const chosen = known.slice(0, count).reverse();
    const entries: LogEntryOut[] = chosen.map((f) => f.pipeline.entryAt(f.slot));
    return {
      entries,
      stored,
      devices: devices.map((d) => d.pipeline.serial),
      query_ms: Math.round((performance.now() - t0) * 1000) / 1000,
      partial,
      next_before_seq: partial ? cursor : null,
    };
  }

  stats(): StatsResult {
    const devices: DeviceStats[] = [];
    for (const [serial, d] of this.#devices) {
      const p = d.pipeline;
      const levels: Record<string, number> = {};
      LEVEL_LETTERS.forEach((l, i) => {
        if (l === "S" || (l === "?" && p.store.levelCounts[i] === 0)) return;
        levels[l] = p.store.levelCounts[i];
      });
      devices.push({
        serial,
        state: d.state,
        reason: d.reason,
        started_at: d.startedAt,
        ended_at: d.endedAt,
        lines_read: p.lines,
        stored: p.store.size,
        capacity: p.store.capacity,
        evicted: p.store.evicted,
        continuation_lines: p.continuation,
        malformed_lines: p.malformed,
        dividers: p.dividers,
        crashes: p.crashes.length,
        levels,
        rate_per_sec: p.rate(),
        top_tags: p.topTags(TOP_TAGS),
        processes_known: p.procs.pidCount,
        ingest_ms: Math.round(p.ingestMs),
        text_index_stale_blocks: p.store.textIndex.dirtyCount(),
      });
    }
    const mem = Deno.memoryUsage();
    return { devices, heap_used_bytes: mem.heapUsed, rss_bytes: mem.rss };
  }

  #pipelines(): DevicePipeline[] {
    return [...this.#devices.values()].map((d) => d.pipeline);
  }

  crashes(count: number): CrashesResult {
    return crashesAnswer(this.#pipelines(), count);
  }

  /** The crashes read after crash id `afterId`, oldest first, for the debug sessions. */
  sessionCrashes(afterId: number): DebugSessionCrash[] {
    return sessionCrashes(this.#pipelines(), afterId);
  }

  trace(p: TraceParams): TraceResult | null {
    return traceAnswer(this.#pipelines(), p);
  }

  /** A crash's fields read again from its retraced text (crash_answers.ts). */
  rederive(p: RederiveParams): RederiveResult {
    return rederive(p);
  }

  /** Stops every stream (the worker is stopping). */
  async shutdown(): Promise<number> {
    const { stopped } = await this.stop();
    return stopped.length;
  }
}

/**
 * This isolate's memory; a full collection first when the process exposes `gc` (the soak tests and
 * the bench run with `--v8-flags=--expose-gc`; a normal server does not, and never pauses for it).
 */
export function workerMemory(): MemoryResult {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") {
    // Twice: the first collection's freed ArrayBuffers leave the external count only once the
    // sweep behind it finished, which the second one waits for.
    gc();
    gc();
  }
  const m = Deno.memoryUsage();
  return {
    collected: typeof gc === "function",
    heap_used_bytes: m.heapUsed,
    heap_total_bytes: m.heapTotal,
    external_bytes: m.external,
    rss_bytes: m.rss,
  };
}
