/**
 * One device's logcat pipeline: text → lines → parsed entries → enriched (process, category,
 * JSON) → the ring store, with crash detection on the way and the queries over what is stored.
 * Pure (no I/O): the worker's service feeds it bytes; tests feed it strings.
 */
import {
  crashGroupId,
  type CrashKind,
  crashSignature,
  parseCrash,
  type ParsedCrash,
} from "./crash_parser.ts";
import {
  Cat,
  CATEGORIES,
  classify,
  detectJson,
  jsonPayload,
  processFact,
  ProcessTable,
} from "./enrich.ts";
import { emptyParsedLine, Level, levelLetter, LineKind, parseLineInto } from "./line_parser.ts";
import { DEFAULT_RING_ENTRIES, EntryFlag, RingStore } from "./ring_store.ts";
import { CONTEXT_BLOCK_ENTRIES, ContextScanCache } from "./context_scan.ts";
import { QUERY_BUILD_BLOCKS, TEXT_BLOCK_ENTRIES, TextIndex, textPairs } from "./text_index.ts";

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

export interface LogEntryOut {
  seq: number;
  device: string;
  time: string;
  pid: number;
  tid: number | null;
  level: string;
  tag: string;
  message: string;
  package: string | null;
  process: string | null;
  category: string;
  crash?: true;
  continuation?: true;
  malformed?: true;
  json?: unknown;
}

/** Characters of one message an answer carries; the rest is cut with a marker. */
export const MAX_MESSAGE_CHARS_RETURNED = 4_000;

export interface SeqSource {
  next(): number;
}

/** The kernel keeps 15 characters of a task's name (TASK_COMM_LEN less the NUL). */
const COMM_MAX_CHARS = 15;

/** Milliseconds of a logcat time's month-day and clock (for differences), or null. */
export function clockMs(time: string): number | null {
  // The shapes logcat prints, read at their fixed offsets (no regex per line): `MM-DD …` and
  // `YYYY-MM-DD …` / `YYYY/MM/DD …`; anything else by the pattern.
  const c2 = time.charCodeAt(2), c4 = time.charCodeAt(4);
  const at = c2 === 45 || c2 === 47 ? 0 : c4 === 45 || c4 === 47 ? 5 : -1;
  if (at >= 0) {
    const fast = clockAt(time, at);
    if (fast !== null) return fast;
  }
  const m = /(\d{2})[-/](\d{2})[ T]+(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/.exec(time);
  if (!m) return null;
  const frac = m[6] ? Number(m[6].padEnd(3, "0").slice(0, 3)) : 0;
  const days = Number(m[1]) * 31 + Number(m[2]);
  return ((days * 24 + Number(m[3])) * 60 + Number(m[4])) * 60_000 + Number(m[5]) * 1000 + frac;
}

function digitsAt(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48, b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** clockMs's reading of `MM?DD[ T]+hh:mm:ss[.f{1,6}]` at `o`, or null when it is not there. */
function clockAt(t: string, o: number): number | null {
  const month = digitsAt(t, o), day = digitsAt(t, o + 3);
  const sep = t.charCodeAt(o + 2);
  if (month < 0 || day < 0 || (sep !== 45 && sep !== 47)) return null;
  let i = o + 5;
  let c = t.charCodeAt(i);
  if (c !== 32 && c !== 84) return null;
  while (c === 32 || c === 84) c = t.charCodeAt(++i);
  const hh = digitsAt(t, i), mm = digitsAt(t, i + 3), ss = digitsAt(t, i + 6);
  if (hh < 0 || mm < 0 || ss < 0 || t.charCodeAt(i + 2) !== 58 || t.charCodeAt(i + 5) !== 58) {
    return null;
  }
  i += 8;
  let frac = 0;
  if (t.charCodeAt(i) === 46) {
    // Up to 6 digits; the first 3 count, right-padded (`.5` is 500 ms).
    let n = 0;
    let scale = 100;
    for (let k = i + 1; k < i + 7; k++) {
      const d = t.charCodeAt(k) - 48;
      if (!(d >= 0 && d <= 9)) break;
      if (scale >= 1) frac += d * scale;
      scale /= 10;
      n++;
    }
    if (n === 0) frac = 0;
  }
  const days = month * 31 + day;
  return ((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + frac;
}

/** Whether `message` names process `pid` (`pid 1234`, `(pid 1234)`, `pid: 1234`, ` 1234:`). */
function mentionsPid(message: string, pid: number): boolean {
  const p = String(pid);
  let i = message.indexOf(p);
  while (i >= 0) {
    // Not inside a longer number, and right after `(` or `pid` + one of ` :=` + an optional
    // white space (case-insensitive) — read by character, no regex per occurrence.
    if (!isDigit(message.charCodeAt(i + p.length))) {
      const b1 = message.charCodeAt(i - 1);
      if (!isDigit(b1)) {
        if (b1 === 40) return true;
        if (isPidSep(b1) && isPidWord(message, i - 4)) return true;
        if (isRegExpSpace(b1) && isPidSep(message.charCodeAt(i - 2)) && isPidWord(message, i - 5)) {
          return true;
        }
      }
    }
    i = message.indexOf(p, i + 1);
  }
  return false;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isPidSep(c: number): boolean {
  return c === 32 || c === 58 || c === 61; // space : =
}

/** `pid` in any case at `at`. */
function isPidWord(s: string, at: number): boolean {
  if (at < 0) return false;
  return (s.charCodeAt(at) | 32) === 112 && (s.charCodeAt(at + 1) | 32) === 105 &&
    (s.charCodeAt(at + 2) | 32) === 100;
}

/** What `\s` matches in a RegExp. */
function isRegExpSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff;
}

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
  readonly droppedGroups = new Map<string, { count: number; firstSeen: string }>();
  lines = 0;
  continuation = 0;
  malformed = 0;
  dividers = 0;
  ingestMs = 0;
  #seq: SeqSource;
  #nextCrashId: () => number;
  #scratch = emptyParsedLine();
  #partial = "";
  #open: CrashRecord[] = [];
  /** The open crashes by the thread that reports them (only its lines can join them). */
  #openByThread = new Map<number, CrashRecord[]>();
  /** Lines stored since the pipeline started (the clock of crash idleness). */
  #stored = 0;
  #needAfter: CrashRecord[] = [];
  #tags = new Map<string, string>();
  #lastUnknownPid = 0;
  #groupMemo = new Map<string, string>();
  /** What the crash-context scan learnt of each slot (see context_scan.ts). */
  #ctx = new ContextScanCache();
  /** Bumped when the crashes waiting for context (or their pids) change; see #needles. */
  #needVersion = 0;
  #needlesFor = -1;
  #needlesProcs = -1;
  #needleRe: RegExp | null = null;
  /** The last complete lines stored (the anchor of a resume). */
  #recent: string[] = [];
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
    let data = text;
    if (this.#partial) {
      data = this.#partial + text;
      this.#partial = "";
    }
    while (true) {
      const nl = data.indexOf("\n", start);
      if (nl < 0) break;
      let end = nl;
      while (end > start && data.charCodeAt(end - 1) === 13) end--;
      this.ingestLine(data.slice(start, end));
      count++;
      start = nl + 1;
    }
    if (start < data.length) {
      const rest = data.slice(start);
      if (rest.length > MAX_PARTIAL_LINE_CHARS) {
        this.ingestLine(rest);
        count++;
      } else this.#partial = rest;
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
    if (this.#recent.length === 0) {
      this.#resume = null;
      return false;
    }
    const newest = this.store.newestSlot();
    this.#resume = {
      anchor: [...this.#recent],
      matched: 0,
      anchorTime: newest >= 0 ? this.store.time[newest] : "",
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

  #intern(tag: string): string {
    const t = this.#tags.get(tag);
    if (t !== undefined) return t;
    if (this.#tags.size >= 8192) this.#tags.clear();
    this.#tags.set(tag, tag);
    return tag;
  }

  ingestLine(line: string): void {
    if (this.#resume !== null && this.#replayed(line)) return;
    const p = parseLineInto(line, this.#scratch);
    if (p.kind === LineKind.empty) return;
    this.lines++;
    if (p.kind === LineKind.divider) {
      this.dividers++;
      return;
    }
    let flags = 0;
    let { pid, tid, level, tag, time } = p;
    const message = p.message;
    if (p.kind === LineKind.raw) {
      const last = this.store.newestSlot();
      if (last >= 0 && !(this.store.flags[last] & EntryFlag.malformed)) {
        flags |= EntryFlag.continuation;
        this.continuation++;
        pid = this.store.pid[last];
        tid = this.store.tid[last];
        level = this.store.level[last];
        tag = this.store.tag[last];
        time = this.store.time[last];
      } else {
        flags |= EntryFlag.malformed;
        this.malformed++;
        pid = -1;
        tid = -1;
        level = Level.unknown;
        tag = "";
      }
    } else {
      tag = this.#intern(tag);
    }

    if (
      pid > 0 &&
      (tag === "ActivityManager" || tag === "AndroidRuntime" || tag === "ActivityTaskManager")
    ) {
      const fact = processFact(tag, message);
      if (fact) this.#learn(fact);
    }
    let proc = pid > 0 ? this.procs.of(pid) : -1;
    if (proc < 0 && pid > 0 && pid !== this.#lastUnknownPid && this.onUnknownPid) {
      // Once per run of lines from one unknown pid, not once per line.
      this.#lastUnknownPid = pid;
      this.onUnknownPid(pid);
    }

    // Crash detection: lines of an open crash, then the start of a new one.
    let crash = this.#appendToOpen(pid, tid, level, tag, message, time, line);
    if (!crash && p.kind === LineKind.entry) {
      crash = this.#detectStart(pid, tid, level, tag, message, time);
    }
    if (crash) {
      this.#needVersion++; // a crash line may change a crash's pid
      flags |= EntryFlag.crash;
      proc = pid > 0 ? this.procs.of(pid) : -1;
    }
    if (detectJson(message)) flags |= EntryFlag.json;

    const pkg = proc >= 0 ? this.procs.packages[proc] : null;
    const category = crash ? Cat.crash : classify(tag, message, pkg !== null);
    const seq = this.#seq.next();
    const slot = this.store.add(seq, time, pid, tid, level, tag, message, proc, category, flags);
    const clock = clockMs(time);
    this.#ctx.record(this.store.capacity, slot, seq, clock);
    const recent = this.#recent;
    if (recent.length === RESUME_ANCHOR_LINES) recent.shift();
    recent.push(line);
    if (crash && crash.seq === 0) crash.seq = seq;
    if (!crash && this.#needAfter.length) {
      this.#addAfter(clock, time, pid, tid, level, tag, message);
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

  #appendToOpen(
    pid: number,
    tid: number,
    level: number,
    tag: string,
    message: string,
    time: string,
    _line: string,
  ): CrashRecord | null {
    const list = this.#openByThread.get(threadKey(pid, tid));
    if (list === undefined) return null;
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      if (this.#stored - r.lastActive > CRASH_IDLE_LINES) {
        this.#close(r);
        i--;
        continue;
      }
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
      this.#learnFromCrashLine(r, message, time);
      return r;
    }
    return null;
  }

  #learnFromCrashLine(r: CrashRecord, message: string, _time: string): void {
    const t = message.trimStart();
    if (r.kind === "native" && t.startsWith("pid: ")) {
      const m = /^pid: (\d+), tid: \d+, name: .*?>>> (.*) <<</.exec(t);
      if (!m) return;
      const target = Number(m[1]);
      r.pid = target;
      this.#attribute(target, m[2]);
      // Merge into the `Fatal signal` record of the same process, when one came first.
      for (let i = this.crashes.length - 1; i >= 0 && i >= this.crashes.length - 10; i--) {
        const other = this.crashes[i];
        if (other === r || other.kind !== "native" || other.tombstone || other.pid !== target) {
          continue;
        }
        other.lines.push(...r.lines);
        other.tombstone = true;
        other.open = true;
        other.reporterPid = r.reporterPid;
        other.reporterTid = r.reporterTid;
        other.tag = r.tag;
        other.parsed = null;
        other.groupId = null;
        this.crashes.splice(this.crashes.indexOf(r), 1);
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
        const proc = /^ANR in (\S+)/.exec(r.lines[0] ?? "")?.[1];
        if (proc) this.#attribute(pid, proc);
      }
    } else if (r.kind === "java" && t.startsWith("Process: ")) {
      const m = /^Process: (\S+?), PID: (\d+)/.exec(t);
      if (m) {
        r.pid = Number(m[2]);
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
    else if (tag === "ActivityManager" && message.startsWith("ANR in ")) kind = "anr";
    else if (level === Level.F && tag === "libc" && message.startsWith("Fatal signal ")) {
      kind = "native";
      open = false;
    } else if (level === Level.F && tag === "DEBUG" && isTombstoneStart(message)) kind = "native";
    if (!kind) return null;
    const r: CrashRecord = {
      id: this.#nextCrashId(),
      device: this.serial,
      kind,
      pid,
      reporterPid: pid,
      reporterTid: tid,
      tag,
      level,
      time,
      seq: 0,
      receivedAt: new Date().toISOString(),
      lines: [message],
      contextBefore: [],
      contextAfter: [],
      afterScanned: 0,
      clock: clockMs(time),
      open,
      lastActive: this.#stored,
      died: false,
      tombstone: tag === "DEBUG",
      parsed: null,
      groupId: null,
    };
    if (kind === "native" && !open) {
      // `…, pid 4000 (ple.nativeapp)`: the name is the process's comm (its last 15 characters,
      // or its main thread's name), not its name: the pid is taken, the name is not learnt.
      const m = /, pid (\d+) \((.*?)\)\s*$/.exec(message) ?? /pid (\d+) \((.*?)\)/.exec(message);
      if (m) r.pid = Number(m[1]);
    }
    r.contextBefore = this.#contextBefore(r);
    this.crashes.push(r);
    if (open) this.#openAdd(r);
    this.#needAfter.push(r);
    this.#needVersion++;
    while (this.crashes.length > MAX_CRASHES_PER_DEVICE) this.#drop(this.crashes.shift()!);
    return r;
  }

  #drop(r: CrashRecord): void {
    const id = this.#droppedGroupOf(r);
    const d = this.droppedGroups.get(id);
    if (d) d.count++;
    else if (this.droppedGroups.size < MAX_DROPPED_GROUPS) {
      this.droppedGroups.set(id, { count: 1, firstSeen: r.time });
    }
    this.#openRemove(r);
    const a = this.#needAfter.indexOf(r);
    if (a >= 0) this.#needAfter.splice(a, 1);
  }

  /**
   * The group of a crash being dropped. A crash whose text was seen before (a crash loop printing
   * the same trace, a replayed capture) is not parsed again: the group is a pure function of the
   * kind, the lines and the process the table gives its pid, which is the memo's key.
   */
  #droppedGroupOf(r: CrashRecord): string {
    if (r.groupId) return r.groupId;
    const proc = this.procs.of(r.pid);
    const key = `${r.kind}\n${proc >= 0 ? this.procs.names[proc] : ""}\n${r.lines.join("\n")}`;
    if (key.length > MAX_GROUP_MEMO_KEY_CHARS) return this.groupOf(r);
    const known = this.#groupMemo.get(key);
    if (known !== undefined) return known;
    const id = this.groupOf(r);
    if (this.#groupMemo.size >= MAX_GROUP_MEMO) this.#groupMemo.clear();
    this.#groupMemo.set(key, id);
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
   * One pattern for every pid and process name the crashes waiting for context look for: a line
   * it does not match names none of them, so the per-crash text checks are skipped (exact: each
   * check needs its needle as a substring). Rebuilt when those crashes or the process table
   * changed.
   */
  #needles(): RegExp | null {
    if (this.#needlesFor === this.#needVersion && this.#needlesProcs === this.procs.version) {
      return this.#needleRe;
    }
    const parts = new Set<string>();
    for (const r of this.#needAfter) {
      if (r.pid > 0) parts.add(String(r.pid));
      const proc = this.procs.of(r.pid);
      const name = proc >= 0 ? this.procs.names[proc] : null;
      if (name !== null && name.length > 3) parts.add(escapeRegExp(name));
    }
    this.#needleRe = parts.size ? new RegExp([...parts].join("|")) : null;
    this.#needlesFor = this.#needVersion;
    this.#needlesProcs = this.procs.version;
    return this.#needleRe;
  }

  #addAfter(
    at: number | null,
    time: string,
    pid: number,
    tid: number,
    level: number,
    tag: string,
    message: string,
  ) {
    const needles = this.#needles();
    const named = needles !== null && needles.test(message);
    let line: string | null = null;
    for (let i = this.#needAfter.length - 1; i >= 0; i--) {
      const r = this.#needAfter[i];
      const start = r.clock;
      const late = at !== null && start !== null && at - start > CRASH_CONTEXT_WINDOW_MS;
      if (late || ++r.afterScanned > CRASH_CONTEXT_SCAN_LINES) {
        this.#needAfter.splice(i, 1);
        continue;
      }
      const own = pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid);
      if (!own && !(named && this.#about(r, pid, message))) continue;
      line ??= formatLine(time, pid, tid, level, tag, message);
      r.contextAfter.push(line);
      if (r.contextAfter.length >= CRASH_CONTEXT_AFTER) this.#needAfter.splice(i, 1);
    }
  }

  /** Whether a line is the crashing process's, or another's naming it (pid or process name). */
  #about(r: CrashRecord, pid: number, message: string): boolean {
    if (pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid)) return true;
    if (r.pid > 0 && mentionsPid(message, r.pid)) return true;
    const proc = this.procs.of(r.pid);
    const name = proc >= 0 ? this.procs.names[proc] : null;
    return name !== null && name.length > 3 && message.includes(name);
  }

  /** The crash's context before it: the newest lines about it, within the time window. */
  #contextBefore(r: CrashRecord): string[] {
    const s = this.store;
    const start = r.clock;
    const out: string[] = [];
    const n = Math.min(s.size, CRASH_CONTEXT_SCAN_LINES);
    // #about, with what does not change during the scan read once (this scan is the costly part
    // of a crash in a crash-dense log).
    const reporter = r.kind !== "anr" ? r.reporterPid : Number.NaN;
    const pidText = r.pid > 0 ? String(r.pid) : null;
    const proc = this.procs.of(r.pid);
    const name = proc >= 0 && this.procs.names[proc].length > 3 ? this.procs.names[proc] : null;
    const ctx = this.#ctx;
    ctx.sync(s.capacity);
    const seqs = s.seq;
    const messages = s.message;
    const newest = s.newestSlot();
    // The window's start, as a number NaN compares false with (null times never end the scan).
    const limit = start === null ? Number.NaN : start - CRASH_CONTEXT_WINDOW_MS;
    let lastTime = "";
    let lastAt = Number.NaN;
    let block = -1;
    let nameHere = false;
    for (let i = s.size - 1; i >= s.size - n && out.length < CRASH_CONTEXT_BEFORE; i--) {
      const slot = s.slot(i);
      const known = ctx.valid(slot, seqs[slot]);
      let at: number;
      if (known) at = ctx.clock(slot);
      else {
        const time = s.time[slot];
        if (time !== lastTime) {
          lastTime = time;
          lastAt = clockMs(time) ?? Number.NaN;
        }
        at = lastAt;
      }
      if (at < limit) break;
      const pid = s.pid[slot];
      if (pid !== r.pid && pid !== reporter) {
        if (name !== null) {
          const b = (slot / CONTEXT_BLOCK_ENTRIES) | 0;
          if (b !== block) {
            block = b;
            nameHere = ctx.blockMayContain(b, name, messages, seqs, newest);
          }
        }
        const m = messages[slot];
        const named = (pidText !== null && (!known || ctx.mayNamePid(slot, m)) &&
          m.indexOf(pidText) >= 0 && mentionsPid(m, r.pid)) ||
          (nameHere && name !== null && m.includes(name));
        if (!named) continue;
      }
      out.push(
        formatLine(
          s.time[slot],
          s.pid[slot],
          s.tid[slot],
          s.level[slot],
          s.tag[slot],
          s.message[slot],
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
          if (!index.mayContain(block, pairs, s.message, build)) {
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
        const hit = re.test(s.message[slot]);
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
    let message = s.message[slot];
    if (message.length > MAX_MESSAGE_CHARS_RETURNED) {
      message = `${message.slice(0, MAX_MESSAGE_CHARS_RETURNED)}… [${
        message.length - MAX_MESSAGE_CHARS_RETURNED
      } more characters]`;
    }
    const e: LogEntryOut = {
      seq: s.seq[slot],
      device: this.serial,
      time: s.time[slot],
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
    if (f & EntryFlag.json) e.json = jsonPayload(s.message[slot]);
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
    this.store.clear();
    this.#ctx.reset(this.store.capacity);
    this.crashes.length = 0;
    this.droppedGroups.clear();
    this.#open.length = 0;
    this.#openByThread.clear();
    this.#recent.length = 0;
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
