/**
 * One device's logcat pipeline: text → lines → parsed entries → enriched (process, category,
 * JSON) → the ring store, with crash detection on the way and the queries over what is stored.
 * Pure (no I/O): the worker's service feeds it bytes; tests feed it strings. It composes the
 * parts: the tag table (tag_table.ts), the crashes put together (crash_assembly.ts) and their
 * context (crash_context.ts), the resume anchor (resume_anchor.ts), the rate (ingest_rate.ts),
 * the queries (entry_query.ts) and the answers' entries (entry_out.ts).
 */
import type { ParsedCrash } from "./crash_parser.ts";
import {
  Cat,
  classifyClassAt,
  detectJsonAt,
  processFact,
  ProcessTable,
  tagClass,
} from "./enrich.ts";
import { emptyLineSpan, Level, LineKind, type LineSpan, parseSpanInto } from "./line_parser.ts";
import { DEFAULT_RING_ENTRIES, EntryFlag, RingStore } from "./ring_store.ts";
import type { LogEntryOut } from "./shared/logcat_protocol.ts";
import type { CrashRecord } from "./crash_record.ts";
import { CrashContext } from "./crash_context.ts";
import { CrashAssembly, type DroppedGroup, mayStartCrash } from "./crash_assembly.ts";
import { attributeProcess } from "./process_backfill.ts";
import { ResumeAnchor } from "./resume_anchor.ts";
import { IngestRate } from "./ingest_rate.ts";
import { TagTable } from "./tag_table.ts";
import { type EntryQuery, queryScan, type SlotScan, topTags } from "./entry_query.ts";
import { entryOut } from "./entry_out.ts";

/** Longest partial line held between chunks; longer ones are stored as they are. */
const MAX_PARTIAL_LINE_CHARS = 256 * 1024;

interface SeqSource {
  next(): number;
}

/** What the ingest path asks of a tag, worked out once per tag (TagTable): bits over its class. */
const TagTrait = {
  /** Mask of its tagClass (enrich.ts). */
  class: 7,
  /** An activity-manager or runtime tag: its lines may teach processes (processFact). */
  learn: 8,
  /** A tag whose lines may start a crash (mayStartCrash). */
  mayStart: 16,
} as const;

function tagTraits(tag: string): number {
  const learn = tag === "ActivityManager" || tag === "AndroidRuntime" ||
    tag === "ActivityTaskManager";
  return tagClass(tag) | (learn ? TagTrait.learn : 0) |
    (mayStartCrash(tag) ? TagTrait.mayStart : 0);
}

export class DevicePipeline {
  readonly serial: string;
  readonly store: RingStore;
  readonly procs = new ProcessTable();
  lines = 0;
  continuation = 0;
  malformed = 0;
  dividers = 0;
  ingestMs = 0;
  /** Called when a line names the process of a pid the table did not know (ps refresh). */
  onUnknownPid: ((pid: number) => void) | null = null;
  readonly #seq: SeqSource;
  readonly #tags = new TagTable(tagTraits);
  readonly #context: CrashContext;
  readonly #crashes: CrashAssembly;
  readonly #resume = new ResumeAnchor((line) => this.ingestLine(line));
  readonly #rate = new IngestRate();
  /** The parser's output, reused line after line (a continuation takes its entry's fields). */
  #span = emptyLineSpan();
  #partial = "";
  #lastUnknownPid = 0;
  /** The tag and flags of the raw line #ingestRaw just read. */
  #rawTag = "";
  #rawFlags = 0;

  constructor(
    serial: string,
    opts: { capacity?: number; seq?: SeqSource; crashId?: () => number } = {},
  ) {
    this.serial = serial;
    this.store = new RingStore(opts.capacity ?? DEFAULT_RING_ENTRIES);
    this.#context = new CrashContext(this.store, this.procs);
    this.store.beforeMove = () => this.#context.settle();
    let n = 0;
    this.#seq = opts.seq ?? { next: () => ++n };
    let c = 0;
    const crashId = opts.crashId ?? (() => ++c);
    this.#crashes = new CrashAssembly(serial, this.store, this.procs, this.#context, crashId);
  }

  /** The crashes kept, oldest first. */
  get crashes(): CrashRecord[] {
    return this.#crashes.crashes;
  }

  /** Occurrences of dropped crashes by group id. */
  get droppedGroups(): Map<string, DroppedGroup> {
    return this.#crashes.droppedGroups;
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
    this.#rate.count(count, nowMs);
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

  ingestLine(line: string): void {
    this.#ingestSpan(line, 0, line.length);
  }

  /**
   * Ingests the line `text[start, end)` (no string made for it on the common path) and stores it
   * as an entry: learns processes from it, joins it to a crash or starts one, classifies it, and
   * hands it to the crash contexts waiting for lines after them. One method for the whole line:
   * the parts' per-line steps are small enough to inline, the rare ones are calls.
   */
  // deno-lint-ignore house/long-function -- ingest hot path: per-line steps inline, rare ones calls
  #ingestSpan(text: string, start: number, end: number): void {
    if (this.#resume.looking && this.#resume.replayed(text.slice(start, end))) return;
    const p = parseSpanInto(text, start, end, this.#span);
    const kind = p.kind;
    if (kind === LineKind.empty) return;
    this.lines++;
    if (kind === LineKind.divider) {
      this.dividers++;
      return;
    }
    // Where the entry's time and message lie: the chunk, but for a continuation (#ingestRaw).
    let src = text;
    let tag: string;
    let traits: number;
    let flags = 0;
    if (kind === LineKind.raw) {
      src = this.#ingestRaw(text, p);
      tag = this.#rawTag;
      traits = tagTraits(tag);
      flags = this.#rawFlags;
    } else {
      tag = this.#tags.intern(text, p.tagStart, p.tagEnd);
      traits = this.#tags.traits;
    }
    const { pid, tid, level, timeStart, timeEnd, msgStart, msgEnd } = p;
    // The message as a string, made only where a check needs it.
    let message: string | null = null;
    if (pid > 0 && (traits & TagTrait.learn) !== 0) {
      message = this.#learnFrom(tag, src, msgStart, msgEnd);
    }
    const procs = this.procs;
    let proc = pid > 0 ? procs.of(pid) : -1;
    if (proc < 0 && pid > 0 && pid !== this.#lastUnknownPid) this.#unknownPid(pid);
    const crashes = this.#crashes;
    // Only lines of an open crash's thread, or of the tags that may start one, are crash lines:
    // the thread is looked up here, so the other lines make no call.
    const open = crashes.openOf(pid, tid);
    const mayStart = kind === LineKind.entry && (traits & TagTrait.mayStart) !== 0;
    const crash = open !== undefined || mayStart
      ? this.#crashOf(open, mayStart, p, src, tag, message)
      : null;
    if (crash) {
      flags |= EntryFlag.crash;
      proc = pid > 0 ? procs.of(pid) : -1;
    }
    if (detectJsonAt(src, msgStart, msgEnd)) flags |= EntryFlag.json;
    const pkg = proc >= 0 ? procs.packages[proc] : null;
    const category = crash
      ? Cat.crash
      : classifyClassAt(traits & TagTrait.class, src, msgStart, msgEnd, pkg !== null);
    const context = this.#context;
    context.beforeAdd();
    const seq = this.#seq.next();
    const s = this.store;
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
    context.stored(slot, seq);
    this.#resume.remember(text, start, end);
    if (crash && crash.seq === 0) crash.seq = seq;
    if (context.waiting) {
      context.lineAfter(
        slot,
        crash !== null,
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
    crashes.age();
  }

  /**
   * A line without logcat's prefix: a continuation of the entry before it (its pid, thread,
   * level, tag and time, taken into `p`), or malformed when there is none to continue. Returns
   * the text its time and message lie in; its tag and flags go to #rawTag and #rawFlags.
   */
  #ingestRaw(text: string, p: LineSpan): string {
    const s = this.store;
    const last = s.newestSlot();
    if (last < 0 || (s.flags[last] & EntryFlag.malformed)) {
      this.malformed++;
      p.pid = -1;
      p.tid = -1;
      p.level = Level.unknown;
      this.#rawTag = "";
      this.#rawFlags = EntryFlag.malformed;
      return text;
    }
    this.continuation++;
    p.pid = s.pid[last];
    p.tid = s.tid[last];
    p.level = s.level[last];
    this.#rawTag = s.tag[last];
    this.#rawFlags = EntryFlag.continuation;
    // The entry's time and message lie in the chunk, but for a continuation whose time is in
    // another text: then both go into one new string.
    if (s.text[last] === text) {
      p.timeStart = s.timeStart[last];
      p.timeEnd = s.timeEnd[last];
      return text;
    }
    const time = s.timeOf(last);
    const src = time + text.slice(p.msgStart, p.msgEnd);
    p.timeStart = 0;
    p.timeEnd = time.length;
    p.msgStart = time.length;
    p.msgEnd = src.length;
    return src;
  }

  /** An activity-manager or runtime line: what it says of processes is learnt; its message. */
  #learnFrom(tag: string, src: string, msgStart: number, msgEnd: number): string {
    const message = src.slice(msgStart, msgEnd);
    const fact = processFact(tag, message);
    if (fact) this.#learn(fact);
    return message;
  }

  /** A line of a pid the table does not know: asked about once per run of its lines. */
  #unknownPid(pid: number): void {
    if (!this.onUnknownPid) return;
    this.#lastUnknownPid = pid;
    this.onUnknownPid(pid);
  }

  /**
   * The crash the entry `p` joins (a line of the thread whose open crashes are `open`) or starts
   * (`mayStart`: a reporting tag's entry), if any; `message` is its message when already made.
   */
  #crashOf(
    open: CrashRecord[] | undefined,
    mayStart: boolean,
    p: LineSpan,
    src: string,
    tag: string,
    message: string | null,
  ): CrashRecord | null {
    const crashes = this.#crashes;
    if (open !== undefined) {
      message ??= src.slice(p.msgStart, p.msgEnd);
      const joined = crashes.append(open, p.level, tag, message);
      if (joined) return joined;
    }
    if (!mayStart) return null;
    message ??= src.slice(p.msgStart, p.msgEnd);
    const time = src.slice(p.timeStart, p.timeEnd);
    return crashes.detectStart(p.pid, p.tid, p.level, tag, message, time);
  }

  // ── resume ──────────────────────────────────────────────────────────────────────────────

  /**
   * A resumed stream replays the device's buffer first: replayed lines are skipped until the
   * last lines stored before the disconnect are seen again (resume_anchor.ts). Returns false when
   * nothing is stored yet (nothing to skip).
   */
  beginResume(): boolean {
    this.#partial = "";
    const newest = this.store.newestSlot();
    return this.#resume.begin(newest >= 0 ? this.store.timeOf(newest) : "");
  }

  /** Whether a resume is still looking for its anchor. */
  get resuming(): boolean {
    return this.#resume.looking;
  }

  /** Gives up looking for the anchor: the held lines are stored as new. */
  endResume(): void {
    this.#resume.end();
  }

  /** Lines per second over the last `RATE_WINDOW_SECONDS` full seconds. */
  rate(nowMs = Date.now()): number {
    return this.#rate.perSecond(nowMs);
  }

  // ── processes ───────────────────────────────────────────────────────────────────────────

  /** Applies the device's process list (`ps`). */
  applyProcessList(list: readonly { pid: number; name: string }[]): void {
    for (const { pid, name } of list) this.procs.set(pid, name);
  }

  #learn(fact: { pid: number; process: string | null; died: boolean }): void {
    if (fact.died) {
      this.#crashes.markDied(fact.pid);
      if (fact.process && !this.procs.has(fact.pid)) {
        attributeProcess(this.store, this.procs, fact.pid, fact.process);
      }
      return;
    }
    if (fact.process) attributeProcess(this.store, this.procs, fact.pid, fact.process);
  }

  // ── crashes ─────────────────────────────────────────────────────────────────────────────

  /** The parsed form of a crash (cached until more lines arrive). */
  parsedOf(r: CrashRecord): ParsedCrash {
    return this.#crashes.parsedOf(r);
  }

  groupOf(r: CrashRecord): string {
    return this.#crashes.groupOf(r);
  }

  // ── queries ─────────────────────────────────────────────────────────────────────────────

  /** Slots of the newest `q.count` matching entries, newest first (see queryScan). */
  querySlots(q: EntryQuery): number[] {
    return this.queryScan(q).slots;
  }

  /** The newest `q.count` matching entries, newest first, and where a cut scan stopped. */
  queryScan(q: EntryQuery): SlotScan {
    return queryScan(this.store, this.procs, q);
  }

  entryAt(slot: number): LogEntryOut {
    return entryOut(this.store, this.procs, this.serial, slot);
  }

  /** Tags by entries kept, most first. */
  topTags(n: number): { tag: string; count: number }[] {
    return topTags(this.store, n);
  }

  /** Drops what is stored (entries, crashes, counters); the process table stays. */
  clear(): void {
    // The crashes go: their contexts before them are never read.
    this.#context.clear();
    this.store.clear();
    this.#crashes.clear();
    this.#resume.clear();
    this.lines = 0;
    this.continuation = 0;
    this.malformed = 0;
    this.dividers = 0;
    this.ingestMs = 0;
    this.#rate.clear();
  }
}
