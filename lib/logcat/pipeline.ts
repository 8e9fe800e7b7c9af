/**
 * One device's logcat pipeline: text → lines → parsed entries → enriched (process, category,
 * JSON) → the ring store, with crash detection on the way and the queries over what is stored.
 * Pure (no I/O): the worker's service feeds it bytes; tests feed it strings.
 */
import { addAnrReason, type AnrReasons, emptyAnrReasons } from "./shared/anr_reasons.ts";
import {
  crashGroupId,
  type CrashKind,
  crashSignature,
  isAnrManagerTag,
  parseCrash,
  type ParsedCrash,
} from "./crash_parser.ts";
import {
  Cat,
  CATEGORIES,
  classifyAt,
  detectJsonAt,
  jsonPayload,
  processFact,
  ProcessTable,
} from "./enrich.ts";
import { emptyLineSpan, Level, levelLetter, LineKind, parseSpanInto } from "./line_parser.ts";
import { DEFAULT_RING_ENTRIES, EntryFlag, RingStore } from "./ring_store.ts";
import { ContextFacts } from "./context_scan.ts";
import { WindowedSearch } from "./next_match.ts";
import { clockIn, clockMs } from "./log_clock.ts";
import { mentionsPid, NAMES_NO_PID, NAMES_SEVERAL_PIDS } from "./pid_mentions.ts";
import { QUERY_BUILD_BLOCKS, TEXT_BLOCK_ENTRIES, TextIndex, textPairs } from "./text_index.ts";
import { appendAll } from "../core/arrays.ts";
import type { LogEntryOut } from "./shared/logcat_protocol.ts";

/**
 * A crash's context: lines of the crashing process, and lines of other processes that name it
 * (its pid or process name: the activity manager's `Process … has died`, `Force finishing …`),
 * at most this many before its first line and after it, and at most CRASH_CONTEXT_WINDOW_MS away.
 */
export const CRASH_CONTEXT_BEFORE = 20;
export const CRASH_CONTEXT_AFTER = 20;
export const CRASH_CONTEXT_WINDOW_MS = 10_000;
/** Entries looked at for a crash's context before it, and after it. */
export const CRASH_CONTEXT_SCAN_LINES = 5_000;
/**
 * Crashes whose context before them is still to be read (at most; past it the oldest is read
 * now). A crash's context is read when it is first asked for, or before the ring evicts the
 * oldest entry its scan may read; a crash dropped before then (MAX_CRASHES_PER_DEVICE newer
 * ones came) is never read. Dropped ones leave the queue in order, so it holds about the kept
 * crashes.
 */
export const MAX_PENDING_CONTEXT = 2 * 200;
/** Lines one crash may hold (a Java trace with long cause chains stays well below). */
export const MAX_CRASH_LINES = 2_000;
/** Crashes kept per device; older ones are dropped but still counted in their group. */
export const MAX_CRASHES_PER_DEVICE = 200;
/** Crash groups whose dropped occurrences are remembered per device. */
export const MAX_DROPPED_GROUPS = 1_000;
/** A crash still collecting lines is closed after this many other lines. */
export const CRASH_IDLE_LINES = 5_000;
/** Entries scanned back when a crash names the process of earlier lines. */
export const BACKFILL_SCAN_LIMIT = 50_000;
/** Longest partial line held between chunks; longer ones are stored as they are. */
export const MAX_PARTIAL_LINE_CHARS = 256 * 1024;
/** Complete lines a resumed stream must see again before what it reads counts as new. */
export const RESUME_ANCHOR_LINES = 4;
/** Lines newer than the anchor held while a resume looks for it; beyond, the anchor is gone. */
export const MAX_RESUME_PENDING_LINES = 20_000;
/** Crashes idle for CRASH_IDLE_LINES are closed by a sweep every this many lines (a power of 2). */
export const IDLE_SWEEP_LINES = 256;
/** Crash texts whose group is remembered for dropping repeats without parsing them again. */
export const MAX_GROUP_MEMO = 256;
/** Longest crash text remembered that way (bounds the memo at ~4 MB). */
export const MAX_GROUP_MEMO_KEY_CHARS = 16 * 1024;
/** Seconds of ingest history behind the reported rate. */
export const RATE_WINDOW_SECONDS = 10;
/** Distinct tags interned per device; beyond, the table starts over. */
export const MAX_INTERNED_TAGS = 8_192;
/** Slots of the tag table (a power of two, twice MAX_INTERNED_TAGS: probes stay short). */
const TAG_TABLE_SLOTS = 16_384;

export interface CrashRecord {
  id: number;
  device: string;
  kind: CrashKind;
  /** The crashed process's pid (from the trace), else the reporting line's. */
  pid: number;
  reporterPid: number;
  reporterTid: number;
  tag: string;
  level: number;
  time: string;
  seq: number;
  /** When the crash was read (ISO). */
  receivedAt: string;
  lines: string[];
  contextBefore: string[];
  contextAfter: string[];
  /** Lines looked at for `contextAfter` so far (at most CRASH_CONTEXT_SCAN_LINES). */
  afterScanned: number;
  /** clockMs of `time`, read once. */
  clock: number | null;
  open: boolean;
  /** The pipeline's stored-line count when a line last joined it (it closes when idle). */
  lastActive: number;
  died: boolean;
  tombstone: boolean;
  parsed: ParsedCrash | null;
  groupId: string | null;
}

export interface EntryQuery {
  count: number;
  minLevel?: number;
  tag?: string;
  /** Case-insensitive substring of the message. */
  text?: string;
  package?: string;
  onlyCrashes?: boolean;
  /** Only entries older than this seq (the cursor of a partial answer). */
  beforeSeq?: number;
}

/**
 * Messages one query tests against its text without the index's help (stale blocks, right after
 * a burst, before idle time has built them): a few ms of a plain scan in the worker (the first
 * query after a 1M-line burst measured 8–12 ms with its block builds; 65,536 gave 17–18 ms, too
 * close to the 20 ms budget). Beyond, the answer is partial and says where to continue.
 */
export const MAX_TEXT_SCAN_ENTRIES = 32_768;

/** The slots a query found and, when it stopped at MAX_TEXT_SCAN_ENTRIES, where it stopped. */
export interface SlotScan {
  /** Newest first. */
  slots: number[];
  /** The seq of the oldest entry examined when the scan was cut; null when it was complete. */
  stoppedAt: number | null;
}

/** Characters of one message an answer carries; the rest is cut with a marker. */
export const MAX_MESSAGE_CHARS_RETURNED = 4_000;

export interface SeqSource {
  next(): number;
}

/** The kernel keeps 15 characters of a task's name (TASK_COMM_LEN less the NUL). */
const COMM_MAX_CHARS = 15;

/** A pid the context facts keep as a number (others are checked by mentionsPid alone). */
/** A crash's context before it, not read yet: what the scan needs, as it was when it was read. */
interface PendingBefore {
  record: Crash;
  /** The pipeline's scan (#readBefore). */
  read: (p: PendingBefore) => string[];
  P: number;
  reporter: number;
  name: string | null;
  limit: number;
  /** Positions (evictions + index) of the newest and the oldest entry the scan may read. */
  newest: number;
  low: number;
  /** Read, or never to be read (the crash was dropped or merged). */
  dropped: boolean;
}

/**
 * A crash as the pipeline keeps it: `contextBefore` is read on first access (or when the
 * pipeline must read it: see MAX_PENDING_CONTEXT), from what was recorded when it was read.
 */
class Crash implements CrashRecord {
  id: number;
  device: string;
  kind: CrashKind;
  pid: number;
  reporterPid: number;
  reporterTid: number;
  tag: string;
  level: number;
  time: string;
  seq = 0;
  receivedAt: string;
  lines: string[];
  contextAfter: string[] = [];
  afterScanned = 0;
  clock: number | null;
  open: boolean;
  lastActive: number;
  died = false;
  tombstone: boolean;
  parsed: ParsedCrash | null = null;
  groupId: string | null = null;
  #before: string[] | null = null;
  #pending: PendingBefore | null = null;

  constructor(
    id: number,
    device: string,
    kind: CrashKind,
    pid: number,
    tid: number,
    tag: string,
    level: number,
    time: string,
    receivedAt: string,
    message: string,
    open: boolean,
    lastActive: number,
  ) {
    this.id = id;
    this.device = device;
    this.kind = kind;
    this.pid = pid;
    this.reporterPid = pid;
    this.reporterTid = tid;
    this.tag = tag;
    this.level = level;
    this.time = time;
    this.receivedAt = receivedAt;
    this.lines = [message];
    this.clock = clockMs(time);
    this.open = open;
    this.lastActive = lastActive;
    this.tombstone = tag === "DEBUG";
  }

  get contextBefore(): string[] {
    return this.readBefore();
  }

  set contextBefore(v: string[]) {
    this.#before = v;
    if (this.#pending !== null) this.#pending.dropped = true;
    this.#pending = null;
  }

  deferBefore(p: PendingBefore): void {
    this.#pending = p;
  }

  /** Its context before it, read now if not yet (nothing once dropped unread). */
  readBefore(): string[] {
    if (this.#before === null) {
      const p = this.#pending;
      this.#before = p !== null && !p.dropped ? p.read(p) : [];
      if (p !== null) p.dropped = true;
      this.#pending = null;
    }
    return this.#before;
  }
}

function isPlainPid(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && pid <= 0x7fffffff;
}

export { clockIn, clockMs };

function formatLine(
  time: string,
  pid: number,
  tid: number,
  level: number,
  tag: string,
  message: string,
): string {
  return `${time} ${String(pid).padStart(5)} ${String(tid).padStart(5)} ${
    levelLetter(level)
  } ${tag}: ${message}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export class DevicePipeline {
  readonly serial: string;
  readonly store: RingStore;
  readonly procs = new ProcessTable();
  readonly crashes: CrashRecord[] = [];
  /** Occurrences of dropped crashes by group id (with the earliest time seen). */
  readonly droppedGroups = new Map<
    string,
    {
      count: number;
      firstSeen: string;
      reasons: AnrReasons | null;
      reasonKeys: Map<string, number>;
    }
  >();
  lines = 0;
  continuation = 0;
  malformed = 0;
  dividers = 0;
  ingestMs = 0;
  #seq: SeqSource;
  #nextCrashId: () => number;
  #span = emptyLineSpan();
  #partial = "";
  #open: CrashRecord[] = [];
  /** The open crashes by the thread that reports them (only its lines can join them). */
  #openByThread = new Map<number, CrashRecord[]>();
  /** Lines stored since the pipeline started (the clock of crash idleness). */
  #stored = 0;
  #needAfter: CrashRecord[] = [];
  /** Interned tags: an open-addressing table keyed by the tag's characters (see #internSpan). */
  #tagKeys: (string | undefined)[] = new Array(TAG_TABLE_SLOTS);
  #tagHashes = new Int32Array(TAG_TABLE_SLOTS);
  #tagCount = 0;
  #lastUnknownPid = 0;
  #groupMemo = new Map<string, { kind: CrashKind; name: string; lines: string[]; id: string }[]>();
  #groupMemoSize = 0;
  /** What the crash-context scans read of each slot, learnt once (see context_scan.ts). */
  #ctx = new ContextFacts();
  /** Crashes whose context before them is not read yet, oldest first (see MAX_PENDING_CONTEXT). */
  #pendingBefore: PendingBefore[] = [];
  #reader = (p: PendingBefore): string[] => this.#readBefore(p);
  #isoMs = Number.NaN;
  #iso = "";
  /** Bumped when the crashes waiting for context (or their pids) change; see #afterNames. */
  #needVersion = 0;
  #namesFor = -1;
  #namesProcs = -1;
  /** The process names those crashes look for, each searched along the chunk. */
  #names: WindowedSearch[] = [];
  #nameSearches = new Map<string, WindowedSearch>();
  /** The last complete lines stored (the anchor of a resume), as spans: a ring of 4. */
  #recentText: string[] = new Array(RESUME_ANCHOR_LINES);
  #recentStart = new Int32Array(RESUME_ANCHOR_LINES);
  #recentEnd = new Int32Array(RESUME_ANCHOR_LINES);
  #recentCount = 0;
  #recentNext = 0;
  #resume: { anchor: string[]; matched: number; anchorTime: string; pending: string[] } | null =
    null;
  #rate = new Float64Array(RATE_WINDOW_SECONDS + 1);
  #rateSecond = 0;
  /** Called when a line names the process of a pid the table did not know (ps refresh). */
  onUnknownPid: ((pid: number) => void) | null = null;

  constructor(
    serial: string,
    opts: { capacity?: number; seq?: SeqSource; crashId?: () => number } = {},
  ) {
    this.serial = serial;
    this.store = new RingStore(opts.capacity ?? DEFAULT_RING_ENTRIES);
    this.store.beforeMove = () => this.#settleBefore();
    let n = 0;
    this.#seq = opts.seq ?? { next: () => ++n };
    let c = 0;
    this.#nextCrashId = opts.crashId ?? (() => ++c);
  }

  // ── ingest ──────────────────────────────────────────────────────────────────────────────

  /** Feeds decoded text; a line cut at the chunk's end waits for the next chunk. */
  ingestText(text: string, nowMs = Date.now()): number {
    const t0 = performance.now();
    this.#lastUnknownPid = 0;
    let start = 0;
    let count = 0;
    if (this.#partial) {
      // The cut line is completed on its own (the chunk itself stays the one flat string the
      // entries of its other lines point into).
      const nl = text.indexOf("\n");
      const line = this.#partial + (nl < 0 ? text : text.slice(0, nl));
      this.#partial = "";
      if (nl < 0) {
        start = text.length;
        if (line.length > MAX_PARTIAL_LINE_CHARS) {
          this.#ingestSpan(line, 0, line.length);
          count++;
        } else this.#partial = line;
      } else {
        let end = line.length;
        while (end > 0 && line.charCodeAt(end - 1) === 13) end--;
        this.#ingestSpan(line, 0, end);
        count++;
        start = nl + 1;
      }
    }
    while (true) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      let end = nl;
      while (end > start && text.charCodeAt(end - 1) === 13) end--;
      this.#ingestSpan(text, start, end);
      count++;
      start = nl + 1;
    }
    if (start < text.length) {
      if (text.length - start > MAX_PARTIAL_LINE_CHARS) {
        this.#ingestSpan(text, start, text.length);
        count++;
      } else this.#partial = text.slice(start);
    }
    this.#countRate(count, nowMs);
    this.ingestMs += performance.now() - t0;
    return count;
  }

  /** Ingests what is left of a cut line (the stream ended). */
  flush(): void {
    if (this.#partial) {
      const rest = this.#partial.replace(/\r+$/, "");
      this.#partial = "";
      this.ingestLine(rest);
    }
  }

  /**
   * Forgets a line cut by a disconnect (the device prints it whole again when the stream is
   * resumed), so no fragment is stored.
   */
  dropPartial(): void {
    this.#partial = "";
  }

  // ── resume ──────────────────────────────────────────────────────────────────────────────

  /**
   * A resumed stream replays the device's buffer first. From now on, replayed lines are skipped
   * until the last RESUME_ANCHOR_LINES complete lines stored before the disconnect have been seen
   * again in order (time and content, however chunks cut them); what follows is new. Lines newer
   * than the anchor's time seen while looking are held (they may be new if the anchor is gone:
   * the buffer was cleared or rotated) and stored by `endResume` when the anchor never comes.
   * Returns false when nothing is stored yet (nothing to skip).
   */
  beginResume(): boolean {
    this.#partial = "";
    if (this.#recentCount === 0) {
      this.#resume = null;
      return false;
    }
    const newest = this.store.newestSlot();
    const anchor: string[] = [];
    const n = this.#recentCount;
    for (let k = 0; k < n; k++) {
      const i = (this.#recentNext - n + k + RESUME_ANCHOR_LINES) % RESUME_ANCHOR_LINES;
      anchor.push(this.#recentText[i].slice(this.#recentStart[i], this.#recentEnd[i]));
    }
    this.#resume = {
      anchor,
      matched: 0,
      anchorTime: newest >= 0 ? this.store.timeOf(newest) : "",
      pending: [],
    };
    return true;
  }

  /** Whether a resume is still looking for its anchor. */
  get resuming(): boolean {
    return this.#resume !== null;
  }

  /** Gives up looking for the anchor: the held lines are stored as new. */
  endResume(): void {
    const r = this.#resume;
    if (r === null) return;
    this.#resume = null;
    for (const line of r.pending) this.ingestLine(line);
  }

  /** True when `line` belongs to the replay (consumed here); false once past the anchor. */
  #replayed(line: string): boolean {
    const r = this.#resume!;
    if (line.length === 0 || line.startsWith("--------- ")) return true;
    if (line === r.anchor[r.matched]) {
      r.matched++;
    } else {
      r.matched = line === r.anchor[0] ? 1 : 0;
      // A line newer than the anchor before the anchor: new unless the anchor shows up later.
      const t = r.anchorTime;
      if (
        t && line.charCodeAt(0) >= 48 && line.charCodeAt(0) <= 57 && line.slice(0, t.length) > t
      ) {
        r.pending.push(line);
        if (r.pending.length > MAX_RESUME_PENDING_LINES) {
          this.endResume();
          return true;
        }
      }
    }
    if (r.matched === r.anchor.length) this.#resume = null; // held lines were replays: dropped
    return true;
  }

  #countRate(count: number, nowMs: number): void {
    const sec = Math.floor(nowMs / 1000);
    if (sec !== this.#rateSecond) {
      const gap = sec - this.#rateSecond;
      if (gap >= this.#rate.length || gap < 0) this.#rate.fill(0);
      else for (let s = this.#rateSecond + 1; s <= sec; s++) this.#rate[s % this.#rate.length] = 0;
      this.#rateSecond = sec;
    }
    this.#rate[sec % this.#rate.length] += count;
  }

  /** Lines per second over the last `RATE_WINDOW_SECONDS` full seconds. */
  rate(nowMs = Date.now()): number {
    this.#countRate(0, nowMs);
    const sec = Math.floor(nowMs / 1000);
    let sum = 0;
    for (let s = sec - RATE_WINDOW_SECONDS; s < sec; s++) sum += this.#rate[s % this.#rate.length];
    return Math.round((sum / RATE_WINDOW_SECONDS) * 10) / 10;
  }

  /**
   * The tag `text[start, end)` as one shared string per distinct tag, found by its characters
   * (no string made for a tag seen before). A new tag is copied out of the chunk so the table
   * does not keep chunks alive.
   */
  #internSpan(text: string, start: number, end: number): string {
    const n = end - start;
    if (n <= 0) return "";
    // A hash of the length and five characters (the comparison reads them all).
    let h = Math.imul(n, 0x01000193) ^ text.charCodeAt(start);
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(end - 1);
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(start + (n >> 1));
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(start + (n >> 2));
    h = Math.imul(h, 0x01000193) ^ text.charCodeAt(end - 1 - (n >> 2));
    h ^= h >>> 15;
    const keys = this.#tagKeys;
    const hashes = this.#tagHashes;
    const mask = TAG_TABLE_SLOTS - 1;
    let at = h & mask;
    for (let k = keys[at]; k !== undefined; k = keys[at]) {
      if (hashes[at] === h && k.length === n && text.startsWith(k, start)) return k;
      at = (at + 1) & mask;
    }
    if (this.#tagCount >= MAX_INTERNED_TAGS) {
      keys.fill(undefined);
      this.#tagCount = 0;
      at = h & mask;
    }
    const tag = copyOf(text.slice(start, end));
    keys[at] = tag;
    hashes[at] = h;
    this.#tagCount++;
    return tag;
  }

  ingestLine(line: string): void {
    this.#ingestSpan(line, 0, line.length);
  }

  /** Ingests the line `text[start, end)` (no string made for it on the common path). */
  #ingestSpan(text: string, start: number, end: number): void {
    if (this.#resume !== null && this.#replayed(text.slice(start, end))) return;
    const p = parseSpanInto(text, start, end, this.#span);
    const kind = p.kind;
    if (kind === LineKind.empty) return;
    this.lines++;
    if (kind === LineKind.divider) {
      this.dividers++;
      return;
    }
    const s = this.store;
    let flags = 0;
    let pid = p.pid, tid = p.tid, level = p.level;
    let tag: string;
    // Where the entry's time and message lie (the chunk, but for a continuation whose time is in
    // another text).
    let src = text;
    let timeStart = p.timeStart, timeEnd = p.timeEnd;
    let msgStart = p.msgStart, msgEnd = p.msgEnd;
    if (kind === LineKind.raw) {
      const last = s.newestSlot();
      if (last >= 0 && !(s.flags[last] & EntryFlag.malformed)) {
        flags |= EntryFlag.continuation;
        this.continuation++;
        pid = s.pid[last];
        tid = s.tid[last];
        level = s.level[last];
        tag = s.tag[last];
        if (s.text[last] === text) {
          timeStart = s.timeStart[last];
          timeEnd = s.timeEnd[last];
        } else {
          const time = s.timeOf(last);
          src = time + text.slice(msgStart, msgEnd);
          timeStart = 0;
          timeEnd = time.length;
          msgStart = time.length;
          msgEnd = src.length;
        }
      } else {
        flags |= EntryFlag.malformed;
        this.malformed++;
        pid = -1;
        tid = -1;
        level = Level.unknown;
        tag = "";
      }
    } else {
      tag = this.#internSpan(text, p.tagStart, p.tagEnd);
    }
    // The message as a string, made only where a check needs it.
    let message: string | null = null;

    if (
      pid > 0 &&
      (tag === "ActivityManager" || tag === "AndroidRuntime" || tag === "ActivityTaskManager")
    ) {
      message = src.slice(msgStart, msgEnd);
      const fact = processFact(tag, message);
      if (fact) this.#learn(fact);
    }
    let proc = pid > 0 ? this.procs.of(pid) : -1;
    if (proc < 0 && pid > 0 && pid !== this.#lastUnknownPid && this.onUnknownPid) {
      // Once per run of lines from one unknown pid, not once per line.
      this.#lastUnknownPid = pid;
      this.onUnknownPid(pid);
    }

    // Crash detection: lines of an open crash, then the start of a new one (only lines of
    // these tags can start one: #detectStart's first test).
    let crash: CrashRecord | null = null;
    if (this.#openByThread.size !== 0) {
      const list = this.#openByThread.get(threadKey(pid, tid));
      if (list !== undefined) {
        message ??= src.slice(msgStart, msgEnd);
        crash = this.#appendToOpen(list, level, tag, message);
      }
    }
    if (
      !crash && kind === LineKind.entry &&
      (tag === "AndroidRuntime" || tag === "ActivityManager" || tag === "libc" ||
        tag === "DEBUG" || isAnrManagerTag(tag))
    ) {
      message ??= src.slice(msgStart, msgEnd);
      crash = this.#detectStart(pid, tid, level, tag, message, src.slice(timeStart, timeEnd));
    }
    if (crash) {
      flags |= EntryFlag.crash;
      proc = pid > 0 ? this.procs.of(pid) : -1;
    }
    if (detectJsonAt(src, msgStart, msgEnd)) flags |= EntryFlag.json;

    const pkg = proc >= 0 ? this.procs.packages[proc] : null;
    const category = crash ? Cat.crash : classifyAt(tag, src, msgStart, msgEnd, pkg !== null);
    // A full ring evicts its oldest entry now: the pending crash whose scan may read it reads first.
    const q = this.#pendingBefore;
    while (q.length !== 0 && s.size === s.capacity && q[0].low <= s.evicted) {
      q[0].record.readBefore();
      this.#trimPending();
    }
    const seq = this.#seq.next();
    const slot = s.add(
      seq,
      src,
      timeStart,
      timeEnd,
      pid,
      tid,
      level,
      tag,
      msgStart,
      msgEnd,
      proc,
      category,
      flags,
    );
    this.#ctx.record(s.capacity, slot, seq);
    const r = this.#recentNext;
    this.#recentText[r] = text;
    this.#recentStart[r] = start;
    this.#recentEnd[r] = end;
    this.#recentNext = r + 1 === RESUME_ANCHOR_LINES ? 0 : r + 1;
    if (this.#recentCount < RESUME_ANCHOR_LINES) this.#recentCount++;
    if (crash && crash.seq === 0) crash.seq = seq;
    if (this.#needAfter.length) {
      // Crashes wait for the lines after them: this line's facts are read now (in order along the
      // chunk, where it is cheapest) and kept for the next crash's scan back.
      const clock = clockIn(src, timeStart, timeEnd) ?? Number.NaN;
      const mention = this.#ctx.learnWithClock(s, slot, clock);
      if (!crash) {
        this.#addAfter(
          clock,
          mention,
          src,
          timeStart,
          timeEnd,
          pid,
          tid,
          level,
          tag,
          msgStart,
          msgEnd,
        );
      }
    }
    this.#ageOpen();
  }

  // ── processes ───────────────────────────────────────────────────────────────────────────

  /** Applies the device's process list (`ps`). */
  applyProcessList(list: readonly { pid: number; name: string }[]): void {
    for (const { pid, name } of list) this.procs.set(pid, name);
  }

  #learn(fact: { pid: number; process: string | null; died: boolean }): void {
    if (fact.died) {
      for (let i = this.crashes.length - 1; i >= 0 && i >= this.crashes.length - 10; i--) {
        if (this.crashes[i].pid === fact.pid) {
          this.crashes[i].died = true;
          break;
        }
      }
      if (fact.process && !this.procs.has(fact.pid)) this.#attribute(fact.pid, fact.process);
      return;
    }
    if (fact.process) this.#attribute(fact.pid, fact.process);
  }

  /** pid → process; earlier unattributed lines of that pid get it too (bounded scan back). */
  #attribute(pid: number, process: string): void {
    if (!this.procs.set(pid, process)) return;
    const idx = this.procs.of(pid);
    const s = this.store;
    const n = Math.min(s.size, BACKFILL_SCAN_LIMIT);
    for (let i = s.size - 1; i >= s.size - n; i--) {
      const slot = s.slot(i);
      if (s.pid[slot] !== pid) continue;
      const had = s.proc[slot];
      if (had >= 0 && had !== idx) break; // an earlier process with the same pid
      if (had < 0) {
        s.proc[slot] = idx;
        if (s.category[slot] === Cat.system && this.procs.packages[idx]) s.category[slot] = Cat.app;
      }
    }
  }

  // ── crashes ─────────────────────────────────────────────────────────────────────────────

  /** Appends a line of the thread whose open crashes are `list` to the one it continues. */
  #appendToOpen(
    list: CrashRecord[],
    level: number,
    tag: string,
    message: string,
  ): CrashRecord | null {
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      if (this.#stored - r.lastActive > CRASH_IDLE_LINES) {
        this.#close(r);
        i--;
        continue;
      }
      // A line of another tag from the thread writing a tombstone (crash_dump's own `I
      // crash_dump64` lines) is not part of it, and does not end it either: a tombstone ends by
      // its own structure (the next header, idleness), not at the first foreign line.
      if (r.kind === "native" && r.tombstone && r.tag !== tag) return null;
      const sameStream = r.tag === tag && (r.kind !== "anr" || r.level === level);
      const restart = sameStream &&
        ((r.kind === "java" && isJavaStart(message)) ||
          (r.kind === "native" && isTombstoneStart(message)) ||
          (r.kind === "anr" && message.startsWith("ANR in ")));
      if (!sameStream || restart) {
        this.#close(r);
        i--;
        continue;
      }
      if (r.lines.length >= MAX_CRASH_LINES) {
        this.#close(r);
        return null;
      }
      r.lines.push(message);
      r.lastActive = this.#stored;
      r.parsed = null;
      r.groupId = null;
      this.#learnFromCrashLine(r, message);
      return r;
    }
    return null;
  }

  #learnFromCrashLine(r: CrashRecord, message: string): void {
    const t = message.trimStart();
    if (r.kind === "native" && t.startsWith("pid: ")) {
      const m = /^pid: (\d+), (?:ppid: \d+, )?tid: \d+, name: .*?>>> (.*) <<</.exec(t);
      if (!m) return;
      const target = Number(m[1]);
      r.pid = target;
      this.#needVersion++;
      this.#attribute(target, m[2]);
      // Merge into the `Fatal signal` record of the same process, when one came first.
      for (let i = this.crashes.length - 1; i >= 0 && i >= this.crashes.length - 10; i--) {
        const other = this.crashes[i];
        if (other === r || other.kind !== "native" || other.tombstone || other.pid !== target) {
          continue;
        }
        appendAll(other.lines, r.lines);
        other.tombstone = true;
        other.open = true;
        other.reporterPid = r.reporterPid;
        other.reporterTid = r.reporterTid;
        other.tag = r.tag;
        other.parsed = null;
        other.groupId = null;
        this.crashes.splice(this.crashes.indexOf(r), 1);
        this.#forgetBefore(r);
        this.#open.splice(this.#open.indexOf(r), 1, other);
        const mates = this.#openByThread.get(threadKey(r.reporterPid, r.reporterTid))!;
        mates.splice(mates.indexOf(r), 1, other);
        other.lastActive = this.#stored;
        const a = this.#needAfter.indexOf(r);
        if (a >= 0) this.#needAfter.splice(a, 1);
        return;
      }
    } else if (r.kind === "anr" && t.startsWith("PID: ")) {
      const pid = Number(t.slice(5).trim());
      if (Number.isInteger(pid)) {
        r.pid = pid;
        this.#needVersion++;
        const proc = /^ANR in ([^\s,]+)/.exec(r.lines[0] ?? "")?.[1];
        if (proc) this.#attribute(pid, proc);
      }
    } else if (r.kind === "java" && t.startsWith("Process: ")) {
      const m = /^Process: (\S+?), PID: (\d+)/.exec(t);
      if (m) {
        r.pid = Number(m[2]);
        this.#needVersion++;
        if (!this.procs.has(r.pid)) this.#attribute(r.pid, m[1]);
      }
    }
  }

  #detectStart(
    pid: number,
    tid: number,
    level: number,
    tag: string,
    message: string,
    time: string,
  ): CrashRecord | null {
    let kind: CrashKind | null = null;
    let open = true;
    if (tag === "AndroidRuntime" && isJavaStart(message)) kind = "java";
    else if (
      (tag === "ActivityManager" || isAnrManagerTag(tag)) && message.startsWith("ANR in ")
    ) kind = "anr";
    else if (level === Level.F && tag === "libc" && message.startsWith("Fatal signal ")) {
      kind = "native";
      open = false;
    } else if (level === Level.F && tag === "DEBUG" && isTombstoneStart(message)) kind = "native";
    if (!kind) return null;
    const r = new Crash(
      this.#nextCrashId(),
      this.serial,
      kind,
      pid,
      tid,
      tag,
      level,
      time,
      this.#receivedAt(),
      message,
      open,
      this.#stored,
    );
    if (kind === "native" && !open) {
      // `…, pid 4000 (ple.nativeapp)`: the name is the process's comm (its last 15 characters,
      // or its main thread's name), not its name: the pid is taken, the name is not learnt.
      const m = /, pid (\d+) \((.*?)\)\s*$/.exec(message) ?? /pid (\d+) \((.*?)\)/.exec(message);
      if (m) r.pid = Number(m[1]);
    }
    this.#deferBefore(r);
    this.crashes.push(r);
    if (open) this.#openAdd(r);
    this.#needAfter.push(r);
    this.#needVersion++;
    while (this.crashes.length > MAX_CRASHES_PER_DEVICE) this.#drop(this.crashes.shift()!);
    return r;
  }

  #drop(r: CrashRecord): void {
    this.#forgetBefore(r);
    const id = this.#droppedGroupOf(r);
    let d = this.droppedGroups.get(id);
    if (d) d.count++;
    else if (this.droppedGroups.size < MAX_DROPPED_GROUPS) {
      d = {
        count: 1,
        firstSeen: r.time,
        reasons: r.kind === "anr" ? emptyAnrReasons() : null,
        reasonKeys: new Map(),
      };
      this.droppedGroups.set(id, d);
    }
    // An ANR's reason is its one `Reason:` line: read for the group before the lines go (an ANR
    // block is a few dozen lines, and ANRs are rare beside the lines around them).
    if (d?.reasons) addAnrReason(d.reasons, d.reasonKeys, this.parsedOf(r).message);
    this.#openRemove(r);
    const a = this.#needAfter.indexOf(r);
    if (a >= 0) this.#needAfter.splice(a, 1);
  }

  /**
   * The group of a crash being dropped. A crash whose text was seen before (a crash loop printing
   * the same trace, a replayed capture) is not parsed again: the group is a pure function of the
   * kind, the lines and the process the table gives its pid. The memo is keyed by a short
   * fingerprint of those (kind, process, line count and characters, first and last line) and
   * holds a copy of each text's lines, compared line by line (no joined copy of every dropped
   * crash to hash).
   */
  #droppedGroupOf(r: CrashRecord): string {
    if (r.groupId) return r.groupId;
    const proc = this.procs.of(r.pid);
    const name = proc >= 0 ? this.procs.names[proc] : "";
    const lines = r.lines;
    let chars = lines.length - 1;
    for (let i = 0; i < lines.length; i++) chars += lines[i].length;
    if (chars > MAX_GROUP_MEMO_KEY_CHARS) return this.groupOf(r);
    const print = `${r.kind}\n${name}\n${lines.length}\n${chars}\n${lines[0]}\n${lines.at(-1)}`;
    const seen = this.#groupMemo.get(print);
    if (seen !== undefined) {
      for (const e of seen) {
        if (e.kind === r.kind && e.name === name && sameLines(e.lines, lines)) return e.id;
      }
    }
    const id = this.groupOf(r);
    if (this.#groupMemoSize >= MAX_GROUP_MEMO) {
      this.#groupMemo.clear();
      this.#groupMemoSize = 0;
    }
    const entry = { kind: r.kind, name, lines: lines.map(copyOf), id };
    const list = this.#groupMemo.get(print);
    if (list) list.push(entry);
    else this.#groupMemo.set(print, [entry]);
    this.#groupMemoSize++;
    return id;
  }

  #close(r: CrashRecord): void {
    r.open = false;
    this.#openRemove(r);
  }

  /** Counts a stored line; now and then closes the crashes idle for too long. */
  #ageOpen(): void {
    if ((++this.#stored & (IDLE_SWEEP_LINES - 1)) !== 0 || this.#open.length === 0) return;
    for (let i = this.#open.length - 1; i >= 0; i--) {
      const r = this.#open[i];
      if (this.#stored - r.lastActive > CRASH_IDLE_LINES) this.#close(r);
    }
  }

  #openAdd(r: CrashRecord): void {
    this.#open.push(r);
    const key = threadKey(r.reporterPid, r.reporterTid);
    const list = this.#openByThread.get(key);
    if (list) list.push(r);
    else this.#openByThread.set(key, [r]);
  }

  #openRemove(r: CrashRecord): void {
    const i = this.#open.indexOf(r);
    if (i < 0) return;
    this.#open.splice(i, 1);
    const key = threadKey(r.reporterPid, r.reporterTid);
    const list = this.#openByThread.get(key);
    if (!list) return;
    const k = list.indexOf(r);
    if (k >= 0) list.splice(k, 1);
    if (list.length === 0) this.#openByThread.delete(key);
  }

  /**
   * The process names the crashes waiting for context look for, each as a search along the
   * chunk (a line containing none of them, and naming no pid, is about none of those crashes but
   * its own process's). Rebuilt when those crashes or the process table changed.
   */
  #afterNames(): WindowedSearch[] {
    if (this.#namesFor === this.#needVersion && this.#namesProcs === this.procs.version) {
      return this.#names;
    }
    const searches = new Map<string, WindowedSearch>();
    for (const r of this.#needAfter) {
      const proc = this.procs.of(r.pid);
      const name = proc >= 0 ? this.procs.names[proc] : null;
      if (name !== null && name.length > 3 && !searches.has(name)) {
        searches.set(name, this.#nameSearches.get(name) ?? new WindowedSearch(name));
      }
    }
    this.#nameSearches = searches;
    this.#names = [...searches.values()];
    this.#namesFor = this.#needVersion;
    this.#namesProcs = this.procs.version;
    return this.#names;
  }

  #addAfter(
    at: number,
    mention: number,
    src: string,
    timeStart: number,
    timeEnd: number,
    pid: number,
    tid: number,
    level: number,
    tag: string,
    msgStart: number,
    msgEnd: number,
  ) {
    let named = mention !== NAMES_NO_PID;
    if (!named) {
      const names = this.#afterNames();
      for (let k = 0; k < names.length && !named; k++) {
        named = names[k].foundIn(src, msgStart, msgEnd);
      }
    }
    let message: string | null = null;
    let line: string | null = null;
    for (let i = this.#needAfter.length - 1; i >= 0; i--) {
      const r = this.#needAfter[i];
      const start = r.clock;
      // (NaN, no clock, is never late.)
      const late = start !== null && at - start > CRASH_CONTEXT_WINDOW_MS;
      if (late || ++r.afterScanned > CRASH_CONTEXT_SCAN_LINES) {
        this.#needAfter.splice(i, 1);
        continue;
      }
      const own = pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid);
      if (!own && !named) continue;
      message ??= src.slice(msgStart, msgEnd);
      if (!own && !this.#about(r, pid, message, mention)) continue;
      line ??= formatLine(src.slice(timeStart, timeEnd), pid, tid, level, tag, message);
      r.contextAfter.push(line);
      if (r.contextAfter.length >= CRASH_CONTEXT_AFTER) this.#needAfter.splice(i, 1);
    }
  }

  /**
   * Whether a line is the crashing process's, or another's naming it (pid or process name);
   * `mention` is what the line names (PidMentionFinder.mentionIn).
   */
  #about(r: CrashRecord, pid: number, message: string, mention: number): boolean {
    if (pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid)) return true;
    if (r.pid > 0 && namesPid(message, mention, r.pid)) return true;
    const proc = this.procs.of(r.pid);
    const name = proc >= 0 ? this.procs.names[proc] : null;
    return name !== null && name.length > 3 && message.includes(name);
  }

  /**
   * The crash's context before it: the newest lines about it, within the time window (newest
   * first, back to the first line older than the window or CRASH_CONTEXT_SCAN_LINES entries).
   * One loop over the facts each slot's entry has learnt (context_scan.ts); a message is read
   * only for a line it takes, or that names several pids.
   */
  #deferBefore(r: Crash): void {
    const s = this.store;
    const P = r.pid;
    const proc = this.procs.of(P);
    const n = Math.min(s.size, CRASH_CONTEXT_SCAN_LINES);
    const p: PendingBefore = {
      record: r,
      read: this.#reader,
      P,
      reporter: r.kind !== "anr" ? r.reporterPid : Number.NaN,
      name: proc >= 0 && this.procs.names[proc].length > 3 ? this.procs.names[proc] : null,
      // The window's start, as a number NaN compares false with (null times never end the scan).
      limit: r.clock === null ? Number.NaN : r.clock - CRASH_CONTEXT_WINDOW_MS,
      newest: s.evicted + s.size - 1,
      low: s.evicted + s.size - n,
      dropped: false,
    };
    const q = this.#pendingBefore;
    q.push(p);
    r.deferBefore(p);
    if (q.length > MAX_PENDING_CONTEXT) q[0].record.readBefore();
    this.#trimPending();
  }

  /** The ISO time of now, made once per millisecond (crashes come in bursts). */
  #receivedAt(): string {
    const now = Date.now();
    if (now !== this.#isoMs) {
      this.#isoMs = now;
      this.#iso = new Date(now).toISOString();
    }
    return this.#iso;
  }

  /** A crash leaves the kept ones: its context before it is never read. */
  #forgetBefore(r: CrashRecord): void {
    const q = this.#pendingBefore;
    for (let i = 0; i < q.length; i++) {
      if (q[i].record === r) {
        q[i].dropped = true;
        break;
      }
    }
    this.#trimPending();
  }

  #trimPending(): void {
    const q = this.#pendingBefore;
    let k = 0;
    while (k < q.length && q[k].dropped) k++;
    if (k > 0) q.splice(0, k);
  }

  /** Reads every pending context before (the ring is about to move or drop entries). */
  #settleBefore(): void {
    const q = this.#pendingBefore;
    for (let i = 0; i < q.length; i++) if (!q[i].dropped) q[i].record.readBefore();
    q.length = 0;
  }

  /**
   * The crash's context before it: the newest lines about it, within the time window (newest
   * first, back to the first line older than the window or CRASH_CONTEXT_SCAN_LINES entries),
   * as the ring held them when the crash was read (`p`'s positions count evictions).
   * One loop over the facts each slot's entry has learnt (context_scan.ts); a message is read
   * only for a line it takes, or that names several pids.
   */
  #readBefore(p: PendingBefore): string[] {
    const s = this.store;
    const out: string[] = [];
    const newest = p.newest - s.evicted;
    const low = p.low - s.evicted;
    if (low < 0 || newest < low) return out;
    const P = p.P;
    const reporter = p.reporter;
    const name = p.name;
    const ctx = this.#ctx;
    ctx.sync(s.capacity);
    const bit = name === null ? 0 : ctx.nameBit(name);
    const { seq, pid: pids } = s;
    const { seqOf, known, clock, mention, nameKnown, nameHit } = ctx;
    const plain = isPlainPid(P);
    const limit = p.limit;
    const capacity = s.capacity;
    let slot = s.slot(newest);
    for (let i = newest; i >= low && out.length < CRASH_CONTEXT_BEFORE; i--) {
      if (i !== newest) slot = slot === 0 ? capacity - 1 : slot - 1;
      if (known[slot] !== 1 || seqOf[slot] !== seq[slot]) ctx.learnRun(s, i, low);
      if (clock[slot] < limit) break;
      const pid = pids[slot];
      if (pid !== P && pid !== reporter) {
        let named = false;
        if (P > 0) {
          const m = mention[slot];
          if (m !== NAMES_NO_PID) {
            named = plain
              ? m === P || (m === NAMES_SEVERAL_PIDS && mentionsPid(s.messageOf(slot), P))
              : mentionsPid(s.messageOf(slot), P);
          }
        }
        if (!named && bit !== 0) {
          if ((nameKnown[slot] & bit) === 0) ctx.learnNameRun(s, i, low, bit);
          named = (nameHit[slot] & bit) !== 0;
        }
        if (!named) continue;
      }
      out.push(
        formatLine(
          s.timeOf(slot),
          s.pid[slot],
          s.tid[slot],
          s.level[slot],
          s.tag[slot],
          s.messageOf(slot),
        ),
      );
    }
    return out.reverse();
  }

  /** The parsed form of a crash (cached until more lines arrive). */
  parsedOf(r: CrashRecord): ParsedCrash {
    if (!r.parsed) {
      r.parsed = parseCrash(r.kind, r.lines);
      if (r.parsed.pid === null) r.parsed.pid = r.pid;
      if (r.kind === "native" && !r.tombstone && r.parsed.process !== null) {
        // Only libc's line: its name is a comm (see #detectStart). The process table knows
        // better; else the comm stands only when it cannot have been cut (under 15 characters).
        const comm = r.parsed.process;
        r.parsed.process = this.procs.has(r.pid) ? null : comm;
        r.parsed.package = comm.length < COMM_MAX_CHARS ? r.parsed.package : null;
      }
      if (r.parsed.process === null) {
        const proc = this.procs.of(r.pid);
        if (proc >= 0) {
          r.parsed.process = this.procs.names[proc];
          r.parsed.package = this.procs.packages[proc];
        }
      }
    }
    return r.parsed;
  }

  groupOf(r: CrashRecord): string {
    if (!r.groupId) r.groupId = crashGroupId(crashSignature(this.parsedOf(r)));
    return r.groupId;
  }

  // ── queries ─────────────────────────────────────────────────────────────────────────────

  /** Slots of the newest `q.count` matching entries, newest first (see queryScan). */
  querySlots(q: EntryQuery): number[] {
    return this.queryScan(q).slots;
  }

  /** Index of the newest entry older than `seq` (-1: none). */
  #newestBefore(seq: number): number {
    const s = this.store;
    let lo = 0, hi = s.size - 1, at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (s.seq[s.slot(mid)] < seq) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at;
  }

  /**
   * The newest `q.count` matching entries, newest first. A text query tests at most
   * MAX_TEXT_SCAN_ENTRIES messages itself (blocks the index rules out cost nothing): when it
   * stops there, what it found is exact for every entry down to `stoppedAt`, and a query with
   * `beforeSeq: stoppedAt` continues below.
   */
  queryScan(q: EntryQuery): SlotScan {
    const s = this.store;
    const out: number[] = [];
    const scan: SlotScan = { slots: out, stoppedAt: null };
    if (q.count <= 0) return scan;
    const minLevel = q.minLevel ?? 0;
    const tag = q.tag;
    const re = q.text ? new RegExp(escapeRegExp(q.text), "i") : null;
    let procMatch: Uint8Array | null = null;
    if (q.package !== undefined) {
      procMatch = new Uint8Array(this.procs.names.length);
      this.procs.packages.forEach((p, i) => {
        if (p === q.package || this.procs.names[i] === q.package) procMatch![i] = 1;
      });
    }
    const onlyCrashes = q.onlyCrashes === true;
    const pairs = re !== null ? textPairs(q.text!) : null;
    const index = s.textIndex;
    let checked = -1;
    let builds = QUERY_BUILD_BLOCKS;
    let tested = 0;
    const first = q.beforeSeq === undefined ? s.size - 1 : this.#newestBefore(q.beforeSeq);
    for (let i = first; i >= 0; i--) {
      const slot = s.slot(i);
      if (pairs !== null) {
        const block = TextIndex.blockOf(slot);
        if (block !== checked) {
          checked = block;
          // A stale block is built by the first few queries that meet it, else scanned.
          let build = true;
          if (index.isStale(block)) {
            build = builds > 0;
            if (build) builds--;
          }
          if (!index.mayContain(block, pairs, s, build)) {
            // Nothing in this block can match: skip its slots below this one in one step.
            i -= slot - block * TEXT_BLOCK_ENTRIES;
            continue;
          }
        }
      }
      if (s.level[slot] < minLevel) continue;
      if (onlyCrashes && !(s.flags[slot] & EntryFlag.crash)) continue;
      if (tag !== undefined && s.tag[slot] !== tag) continue;
      if (procMatch !== null) {
        const p = s.proc[slot];
        if (p < 0 || !procMatch[p]) continue;
      }
      if (re !== null) {
        const hit = re.test(s.messageOf(slot));
        if (++tested >= MAX_TEXT_SCAN_ENTRIES && i > 0 && (!hit || out.length + 1 < q.count)) {
          if (hit) out.push(slot);
          scan.stoppedAt = s.seq[slot];
          break;
        }
        if (!hit) continue;
      }
      out.push(slot);
      if (out.length >= q.count) break;
    }
    return scan;
  }

  entryAt(slot: number): LogEntryOut {
    const s = this.store;
    const proc = s.proc[slot];
    const f = s.flags[slot];
    const full = s.messageOf(slot);
    let message = full;
    if (message.length > MAX_MESSAGE_CHARS_RETURNED) {
      message = `${message.slice(0, MAX_MESSAGE_CHARS_RETURNED)}… [${
        message.length - MAX_MESSAGE_CHARS_RETURNED
      } more characters]`;
    }
    const e: LogEntryOut = {
      seq: s.seq[slot],
      device: this.serial,
      time: s.timeOf(slot),
      pid: s.pid[slot],
      tid: s.tid[slot] < 0 ? null : s.tid[slot],
      level: levelLetter(s.level[slot]),
      tag: s.tag[slot],
      message,
      package: proc >= 0 ? this.procs.packages[proc] : null,
      process: proc >= 0 ? this.procs.names[proc] : null,
      category: CATEGORIES[s.category[slot]] ?? "system",
    };
    if (f & EntryFlag.crash) e.crash = true;
    if (f & EntryFlag.continuation) e.continuation = true;
    if (f & EntryFlag.malformed) e.malformed = true;
    if (f & EntryFlag.json) e.json = jsonPayload(full);
    return e;
  }

  /** Tags by entries kept, most first. */
  topTags(n: number): { tag: string; count: number }[] {
    const s = this.store;
    const counts = new Map<string, number>();
    for (let i = 0; i < s.size; i++) {
      const t = s.tag[s.slot(i)];
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n)
      .map(([tag, count]) => ({ tag, count }));
  }

  /** Drops what is stored (entries, crashes, counters); the process table stays. */
  clear(): void {
    // The crashes go: their contexts before them are never read.
    for (const p of this.#pendingBefore) p.dropped = true;
    this.#pendingBefore.length = 0;
    this.store.clear();
    this.#ctx.reset(this.store.capacity);
    this.crashes.length = 0;
    this.droppedGroups.clear();
    this.#open.length = 0;
    this.#openByThread.clear();
    this.#recentText.fill(undefined as unknown as string);
    this.#recentCount = 0;
    this.#recentNext = 0;
    this.#resume = null;
    this.#needAfter.length = 0;
    this.lines = 0;
    this.continuation = 0;
    this.malformed = 0;
    this.dividers = 0;
    this.ingestMs = 0;
    this.#rate.fill(0);
  }
}

/**
 * A copy of `s` that does not keep the text it was sliced from alive (V8 makes longer slices
 * views into their parent; flattening a concatenation copies the characters).
 */
function copyOf(s: string): string {
  return s.length < 13 ? s : (s + " ").slice(0, s.length);
}

/**
 * mentionsPid(message, pid) for a pid > 0, knowing what the message names (`mention`, from
 * PidMentionFinder.mentionIn).
 */
function namesPid(message: string, mention: number, pid: number): boolean {
  if (mention === NAMES_NO_PID) return false;
  if (!isPlainPid(pid) || mention === NAMES_SEVERAL_PIDS) return mentionsPid(message, pid);
  return mention === pid;
}

/** Whether two crash texts have the same lines. */
function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** One number per reporting thread (pids and tids are below 2^22 on Linux; -1 = unknown). */
function threadKey(pid: number, tid: number): number {
  return (pid + 1) * 8_388_608 + (tid + 1);
}

export function isJavaStart(message: string): boolean {
  return message.startsWith("FATAL EXCEPTION") || message.startsWith("*** FATAL EXCEPTION");
}

export function isTombstoneStart(message: string): boolean {
  return message.startsWith("*** *** ***");
}

export { formatLine };
