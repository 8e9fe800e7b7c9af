/**
 * The raw output of each build, `<data dir>/build-logs/<id>.log`, for `get_build_log` and for
 * reading a build after the fact.
 *
 * A log is bounded at `MAX_BUILD_LOG_BYTES`: the first half goes to disk as it comes; past that,
 * the newest lines are kept in a bounded ring in memory, and at close, when lines had to be
 * dropped, a `[… N lines omitted …]` marker is written followed by the ring. So a runaway build
 * keeps both its start (configuration, the first failure) and its end (the summary).
 */
import { dirname, join } from "../../core/path.ts";
import { log } from "../../core/log.ts";
import { joinBytes } from "../../core/bytes.ts";
import { readFileAt } from "../../core/file_read.ts";
import { appendAll } from "../../core/arrays.ts";

/** A log file never grows past about this. */
export const MAX_BUILD_LOG_BYTES = 8 * 1024 * 1024;
/** A single line longer than this is cut. */
export const MAX_LOG_LINE_BYTES = 64 * 1024;
/** Buffered output is written once it reaches this size… */
const LOG_FLUSH_BYTES = 64 * 1024;
/** …or this long after the first unwritten line, so a running build's log is readable. */
export const LOG_FLUSH_INTERVAL_MS = 500;
/** Build logs kept; logs of builds dropped from the history are deleted. */
const MAX_BUILD_LOGS = 200;
/** `readLogTail` default and maximum line counts. */
export const DEFAULT_TAIL_LINES = 200;
export const MAX_TAIL_LINES = 2_000;
/** `readLogTail` reads the file backwards in chunks of this size… */
export const TAIL_CHUNK_BYTES = 64 * 1024;
/** …and never more than this in total. */
const MAX_TAIL_READ_BYTES = 4 * 1024 * 1024;
/** Directory entries looked at when pruning logs. */
const MAX_LOG_DIR_ENTRIES = 10_000;

const buildLogsDir = (dataDir: string) => join(dataDir, "build-logs");
export const buildLogPath = (dataDir: string, id: number) =>
  join(buildLogsDir(dataDir), `${id}.log`);

export interface BuildLogInfo {
  path: string;
  /** Size of the log file. */
  bytes: number;
  /** Lines the build wrote (including omitted ones). */
  lines: number;
  /** Whether lines were omitted from the middle. */
  truncated: boolean;
}

const encoder = new TextEncoder();

/** The marker written where lines were dropped. Pure. */
export function omittedMarker(count: number): string {
  return `[… ${count} lines omitted …]`;
}

/** `line` cut to at most `max` UTF-8 bytes (on a character boundary). Pure. */
export function cutLine(line: string, max = MAX_LOG_LINE_BYTES): string {
  if (line.length * 3 <= max) return line;
  const bytes = encoder.encode(line);
  if (bytes.length <= max) return line;
  let cut = max;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return new TextDecoder().decode(bytes.subarray(0, cut)) + " [line cut]";
}

interface RingItem {
  data: Uint8Array;
  lines: number;
}

/** A FIFO of encoded lines bounded by total bytes; counts the lines it drops. */
class LineRing {
  #items: RingItem[] = [];
  #start = 0;
  bytes = 0;
  droppedLines = 0;

  constructor(readonly maxBytes: number) {}

  push(item: RingItem): void {
    this.#items.push(item);
    this.bytes += item.data.length;
    while (this.bytes > this.maxBytes && this.#start < this.#items.length) {
      const old = this.#items[this.#start++];
      this.bytes -= old.data.length;
      this.droppedLines += old.lines;
    }
    if (this.#start > 1024 && this.#start * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#start);
      this.#start = 0;
    }
  }

  get size(): number {
    return this.#items.length - this.#start;
  }

  items(): Uint8Array[] {
    return this.#items.slice(this.#start).map((i) => i.data);
  }
}

interface BuildLogWriterOptions {
  /** Default `MAX_BUILD_LOG_BYTES`; at least 1 KiB. */
  maxBytes?: number;
}

/**
 * Appends a build's lines to its log with buffering (see the module comment). `write` never
 * blocks and never throws; an I/O error is logged once and the log stops growing.
 */
export class BuildLogWriter {
  readonly path: string;
  readonly maxBytes: number;
  #file: Deno.FsFile;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Bytes sent to disk or pending for it (the head). */
  #headBytes = 0;
  #ring: LineRing;
  #lines = 0;
  #chain: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #error: Error | null = null;
  #closed = false;
  #result: Promise<BuildLogInfo> | null = null;

  private constructor(path: string, file: Deno.FsFile, maxBytes: number) {
    this.path = path;
    this.#file = file;
    this.maxBytes = maxBytes;
    // The tail keeps what the head leaves, minus room for the marker.
    this.#ring = new LineRing(Math.max(0, maxBytes - Math.floor(maxBytes / 2) - 64));
  }

  /** Creates (or truncates) the log at `path`, mode 0600. */
  static async open(path: string, options: BuildLogWriterOptions = {}): Promise<BuildLogWriter> {
    const maxBytes = options.maxBytes ?? MAX_BUILD_LOG_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1024 || maxBytes > MAX_BUILD_LOG_BYTES) {
      throw new RangeError(`maxBytes must be 1024..${MAX_BUILD_LOG_BYTES}, got ${maxBytes}`);
    }
    await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const file = await Deno.open(path, { write: true, create: true, truncate: true, mode: 0o600 });
    return new BuildLogWriter(path, file, maxBytes);
  }

  /** Lines written so far. */
  get lines(): number {
    return this.#lines;
  }

  /** Appends one line (a trailing newline is added; embedded newlines make more lines). */
  write(line: string): void {
    if (this.#closed) return;
    const text = cutLine(line.endsWith("\n") ? line.slice(0, -1) : line);
    let count = 1;
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
    this.#lines += count;
    const bytes = encoder.encode(text + "\n");
    const headLimit = Math.floor(this.maxBytes / 2);
    if (this.#ring.size === 0 && this.#headBytes + bytes.length <= headLimit) {
      this.#headBytes += bytes.length;
      this.#pending.push(bytes);
      this.#pendingBytes += bytes.length;
      if (this.#pendingBytes >= LOG_FLUSH_BYTES) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), LOG_FLUSH_INTERVAL_MS);
    } else {
      this.#ring.push({ data: bytes, lines: count });
    }
  }

  /** The newest `n` lines held in memory (only lines past the head; for a running build). */
  memoryTail(n: number): string[] {
    const dec = new TextDecoder();
    const items = this.#ring.items();
    const text = items.slice(-n).map((b) => dec.decode(b)).join("");
    return text.split("\n").slice(0, -1).slice(-n);
  }

  #flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#pendingBytes === 0) return;
    const data = joinBytes(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#chain = this.#chain.then(() => this.#writeAll(data));
  }

  async #writeAll(data: Uint8Array): Promise<void> {
    if (this.#error) return;
    try {
      let at = 0;
      while (at < data.length) at += await this.#file.write(data.subarray(at));
    } catch (e) {
      this.#error = e as Error;
      log.warn(
        `Cannot write build log ${this.path}: ${(e as Error).message}; the log is incomplete`,
      );
    }
  }

  /** Writes what is buffered, the marker and the kept tail, and closes the file. Idempotent. */
  close(): Promise<BuildLogInfo> {
    this.#result ??= this.#close();
    return this.#result;
  }

  async #close(): Promise<BuildLogInfo> {
    this.#closed = true;
    this.#flush();
    const dropped = this.#ring.droppedLines;
    const truncated = dropped > 0;
    const tail = this.#ring.items();
    if (truncated || tail.length > 0) {
      const parts: Uint8Array[] = truncated ? [encoder.encode(omittedMarker(dropped) + "\n")] : [];
      appendAll(parts, tail);
      const size = parts.reduce((n, p) => n + p.length, 0);
      const data = joinBytes(parts, size);
      this.#chain = this.#chain.then(() => this.#writeAll(data));
    }
    await this.#chain;
    let bytes = 0;
    try {
      bytes = (await this.#file.stat()).size;
    } catch { /* reported below through the write error, if any */ }
    try {
      this.#file.close();
    } catch { /* already closed */ }
    return { path: this.path, bytes, lines: this.#lines, truncated };
  }
}

interface LogTail {
  lines: string[];
  /** Size of the file when it was read. */
  file_bytes: number;
  /** `true` when `lines` starts at the beginning of the file. */
  from_start: boolean;
}

/**
 * The last `lines` lines of the log at `path` (default 200, max 2,000), read backwards from the
 * end in chunks; never more than `MAX_TAIL_READ_BYTES`. A missing file is `NotFound`.
 */
export async function readLogTail(path: string, lines = DEFAULT_TAIL_LINES): Promise<LogTail> {
  if (!Number.isInteger(lines) || lines < 0 || lines > MAX_TAIL_LINES) {
    throw new RangeError(`lines must be 0..${MAX_TAIL_LINES}, got ${lines}`);
  }
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    if (lines === 0 || size === 0) return { lines: [], file_bytes: size, from_start: size === 0 };
    const chunks: Uint8Array[] = [];
    let start = size;
    let newlines = 0;
    let read = 0;
    // A final newline ends the last line; it does not start a new one.
    const needed = lines + 1;
    while (start > 0 && newlines < needed && read < MAX_TAIL_READ_BYTES) {
      const len = Math.min(TAIL_CHUNK_BYTES, start, MAX_TAIL_READ_BYTES - read);
      start -= len;
      const buf = await readFileAt(file, start, len);
      for (let i = 0; i < buf.length; i++) if (buf[i] === 0x0a) newlines++;
      chunks.unshift(buf);
      read += len;
    }
    const text = new TextDecoder().decode(joinBytes(chunks));
    const all = text.split("\n");
    if (all[all.length - 1] === "") all.pop();
    // Unless we reached the start, the first piece may be a partial line.
    const whole = start === 0 ? all : all.slice(1);
    const out = whole.slice(-lines);
    return { lines: out, file_bytes: size, from_start: start === 0 && out.length === whole.length };
  } finally {
    file.close();
  }
}

/** The build id of a log file name (`12.log` → 12), else `null`. Pure. */
export function logIdOf(name: string): number | null {
  const m = /^(\d{1,15})\.log$/.exec(name);
  return m ? Number(m[1]) : null;
}

/** Deletes the logs of `ids` (missing ones are fine). */
export async function removeBuildLogs(dataDir: string, ids: Iterable<number>): Promise<void> {
  for (const id of ids) {
    await Deno.remove(buildLogPath(dataDir, id)).catch(() => {});
  }
}

/**
 * Deletes every build log whose id is not in `keep`, and keeps at most `MAX_BUILD_LOGS` (the
 * newest ids). Returns the ids deleted. The caller holds the history lock, so `keep` is current.
 */
export async function pruneBuildLogs(
  dataDir: string,
  keep: ReadonlySet<number>,
  maxLogs = MAX_BUILD_LOGS,
): Promise<number[]> {
  const kept = new Set([...keep].sort((a, b) => b - a).slice(0, maxLogs));
  const removed: number[] = [];
  let seen = 0;
  try {
    for await (const entry of Deno.readDir(buildLogsDir(dataDir))) {
      if (++seen > MAX_LOG_DIR_ENTRIES) break;
      const id = entry.isFile ? logIdOf(entry.name) : null;
      if (id === null || kept.has(id)) continue;
      removed.push(id);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  await removeBuildLogs(dataDir, removed);
  return removed.sort((a, b) => a - b);
}

/** The largest build id among the log files (used to restart ids after a lost history). */
export async function maxLogId(dataDir: string): Promise<number> {
  let max = 0;
  let seen = 0;
  try {
    for await (const entry of Deno.readDir(buildLogsDir(dataDir))) {
      if (++seen > MAX_LOG_DIR_ENTRIES) break;
      const id = logIdOf(entry.name);
      if (id !== null && id > max) max = id;
    }
  } catch { /* no logs */ }
  return max;
}
