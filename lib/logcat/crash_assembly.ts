/**
 * A device's crashes put together line by line: a crash starts at its reporting line (a Java
 * `FATAL EXCEPTION`, an `ANR in`, libc's `Fatal signal`, a tombstone), gathers the next lines of
 * the thread that reports it until another stream, a restart or idleness ends it, and learns its
 * process from its own lines. The newest MAX_CRASHES_PER_DEVICE are kept; older ones are counted
 * in their group (with their ANR reasons) when they go.
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
import type { ProcessTable } from "./enrich.ts";
import { Level } from "./line_parser.ts";
import type { RingStore } from "./ring_store.ts";
import { appendAll } from "../core/arrays.ts";
import { Crash, type CrashRecord, isJavaStart, isTombstoneStart } from "./crash_record.ts";
import type { CrashContext } from "./crash_context.ts";
import { GroupMemo } from "./group_memo.ts";
import { attributeProcess } from "./process_backfill.ts";

/** Lines one crash may hold (a Java trace with long cause chains stays well below). */
const MAX_CRASH_LINES = 2_000;
/** Crashes kept per device; older ones are dropped but still counted in their group. */
export const MAX_CRASHES_PER_DEVICE = 200;
/** Crash groups whose dropped occurrences are remembered per device. */
const MAX_DROPPED_GROUPS = 1_000;
/** A crash still collecting lines is closed after this many other lines. */
const CRASH_IDLE_LINES = 5_000;
/** Crashes idle for CRASH_IDLE_LINES are closed by a sweep every this many lines (a power of 2). */
const IDLE_SWEEP_LINES = 256;

/** The kernel keeps 15 characters of a task's name (TASK_COMM_LEN less the NUL). */
const COMM_MAX_CHARS = 15;

/** Occurrences of a group's dropped crashes (with the earliest time seen). */
export interface DroppedGroup {
  count: number;
  firstSeen: string;
  reasons: AnrReasons | null;
  reasonKeys: Map<string, number>;
}

/**
 * Slots of the count of open crashes by their reporting tid's low bits (a power of two): a line
 * whose slot counts none is of no open crash's thread, found without a Map lookup.
 */
const OPEN_TID_SLOTS = 4_096;

/** One number per reporting thread (pids and tids are below 2^22 on Linux; -1 = unknown). */
function threadKey(pid: number, tid: number): number {
  return (pid + 1) * 8_388_608 + (tid + 1);
}

/** Whether a line of `tag` can start a crash (detectStart's first test). */
export function mayStartCrash(tag: string): boolean {
  return tag === "AndroidRuntime" || tag === "ActivityManager" || tag === "libc" ||
    tag === "DEBUG" || isAnrManagerTag(tag);
}

export class CrashAssembly {
  readonly crashes: CrashRecord[] = [];
  readonly droppedGroups = new Map<string, DroppedGroup>();
  readonly #serial: string;
  readonly #store: RingStore;
  readonly #procs: ProcessTable;
  readonly #context: CrashContext;
  readonly #nextId: () => number;
  #open: CrashRecord[] = [];
  /** The open crashes by the thread that reports them (only its lines can join them). */
  #openByThread = new Map<number, CrashRecord[]>();
  /** Open crashes by their reporting tid's low bits (see OPEN_TID_SLOTS). */
  #openTids = new Uint16Array(OPEN_TID_SLOTS);
  /** Lines stored since the pipeline started (the clock of crash idleness). */
  #stored = 0;
  #memo = new GroupMemo();
  #isoMs = Number.NaN;
  #iso = "";

  constructor(
    serial: string,
    store: RingStore,
    procs: ProcessTable,
    context: CrashContext,
    nextId: () => number,
  ) {
    this.#serial = serial;
    this.#store = store;
    this.#procs = procs;
    this.#context = context;
    this.#nextId = nextId;
  }

  /** The open crashes of the thread (pid, tid), if any. */
  openOf(pid: number, tid: number): CrashRecord[] | undefined {
    if (this.#openTids[tid & (OPEN_TID_SLOTS - 1)] === 0) return undefined;
    return this.#openByThread.get(threadKey(pid, tid));
  }

  /** A process died: its newest crash (of the last ten) is marked so. */
  markDied(pid: number): void {
    for (let i = this.crashes.length - 1; i >= 0 && i >= this.crashes.length - 10; i--) {
      if (this.crashes[i].pid === pid) {
        this.crashes[i].died = true;
        break;
      }
    }
  }

  /** Appends a line of the thread whose open crashes are `list` to the one it continues. */
  append(list: CrashRecord[], level: number, tag: string, message: string): CrashRecord | null {
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
      this.#learnFromLine(r, message);
      return r;
    }
    return null;
  }

  /** The crash a reporting line starts (its tag passed mayStartCrash), or null. */
  detectStart(
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
    const r = new Crash({
      id: this.#nextId(),
      device: this.#serial,
      kind,
      pid,
      tid,
      tag,
      level,
      time,
      receivedAt: this.#receivedAt(),
      message,
      open,
      lastActive: this.#stored,
    });
    if (kind === "native" && !open) {
      // `…, pid 4000 (ple.nativeapp)`: the name is the process's comm (its last 15 characters,
      // or its main thread's name), not its name: the pid is taken, the name is not learnt.
      const m = /, pid (\d+) \((.*?)\)\s*$/.exec(message) ?? /pid (\d+) \((.*?)\)/.exec(message);
      if (m) r.pid = Number(m[1]);
    }
    this.crashes.push(r);
    if (open) this.#openAdd(r);
    this.#context.watch(r);
    while (this.crashes.length > MAX_CRASHES_PER_DEVICE) this.#drop(this.crashes.shift()!);
    return r;
  }

  /**
   * Counts a stored line; now and then closes the crashes idle for too long. (Per line, inlined
   * into the ingest loop: the sweep is a call of its own.)
   */
  age(): void {
    if ((++this.#stored & (IDLE_SWEEP_LINES - 1)) === 0) this.#sweepIdle();
  }

  #sweepIdle(): void {
    for (let i = this.#open.length - 1; i >= 0; i--) {
      const r = this.#open[i];
      if (this.#stored - r.lastActive > CRASH_IDLE_LINES) this.#close(r);
    }
  }

  /** The parsed form of a crash (cached until more lines arrive). */
  parsedOf(r: CrashRecord): ParsedCrash {
    if (!r.parsed) {
      const procs = this.#procs;
      r.parsed = parseCrash(r.kind, r.lines);
      if (r.parsed.pid === null) r.parsed.pid = r.pid;
      if (r.kind === "native" && !r.tombstone && r.parsed.process !== null) {
        // Only libc's line: its name is a comm (see detectStart). The process table knows
        // better; else the comm stands only when it cannot have been cut (under 15 characters).
        const comm = r.parsed.process;
        r.parsed.process = procs.has(r.pid) ? null : comm;
        r.parsed.package = comm.length < COMM_MAX_CHARS ? r.parsed.package : null;
      }
      if (r.parsed.process === null) {
        const proc = procs.of(r.pid);
        if (proc >= 0) {
          r.parsed.process = procs.names[proc];
          r.parsed.package = procs.packages[proc];
        }
      }
    }
    return r.parsed;
  }

  groupOf(r: CrashRecord): string {
    if (!r.groupId) r.groupId = crashGroupId(crashSignature(this.parsedOf(r)));
    return r.groupId;
  }

  /** Drops every crash and every group's count. */
  clear(): void {
    this.crashes.length = 0;
    this.droppedGroups.clear();
    this.#open.length = 0;
    this.#openByThread.clear();
    this.#openTids.fill(0);
  }

  #learnFromLine(r: CrashRecord, message: string): void {
    const t = message.trimStart();
    if (r.kind === "native" && t.startsWith("pid: ")) {
      const m = /^pid: (\d+), (?:ppid: \d+, )?tid: \d+, name: .*?>>> (.*) <<</.exec(t);
      if (!m) return;
      const target = Number(m[1]);
      r.pid = target;
      this.#context.pidChanged();
      attributeProcess(this.#store, this.#procs, target, m[2]);
      this.#mergeTombstone(r, target);
    } else if (r.kind === "anr" && t.startsWith("PID: ")) {
      const pid = Number(t.slice(5).trim());
      if (Number.isInteger(pid)) {
        r.pid = pid;
        this.#context.pidChanged();
        const proc = /^ANR in ([^\s,]+)/.exec(r.lines[0] ?? "")?.[1];
        if (proc) attributeProcess(this.#store, this.#procs, pid, proc);
      }
    } else if (r.kind === "java" && t.startsWith("Process: ")) {
      const m = /^Process: (\S+?), PID: (\d+)/.exec(t);
      if (m) {
        r.pid = Number(m[2]);
        this.#context.pidChanged();
        if (!this.#procs.has(r.pid)) attributeProcess(this.#store, this.#procs, r.pid, m[1]);
      }
    }
  }

  /** A tombstone of `target` merges into the `Fatal signal` record of it, when one came first. */
  #mergeTombstone(r: CrashRecord, target: number): void {
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
      this.#context.forget(r);
      this.#open.splice(this.#open.indexOf(r), 1, other);
      const mates = this.#openByThread.get(threadKey(r.reporterPid, r.reporterTid))!;
      mates.splice(mates.indexOf(r), 1, other);
      other.lastActive = this.#stored;
      return;
    }
  }

  #drop(r: CrashRecord): void {
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
    this.#context.forget(r);
  }

  /** The group of a crash being dropped (a text seen before is not parsed again: group_memo.ts). */
  #droppedGroupOf(r: CrashRecord): string {
    if (r.groupId) return r.groupId;
    const proc = this.#procs.of(r.pid);
    const name = proc >= 0 ? this.#procs.names[proc] : "";
    return this.#memo.groupOf(r.kind, name, r.lines, () => this.groupOf(r));
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

  #close(r: CrashRecord): void {
    r.open = false;
    this.#openRemove(r);
  }

  #openAdd(r: CrashRecord): void {
    this.#open.push(r);
    const key = threadKey(r.reporterPid, r.reporterTid);
    const list = this.#openByThread.get(key);
    if (list) list.push(r);
    else this.#openByThread.set(key, [r]);
    this.#openTids[r.reporterTid & (OPEN_TID_SLOTS - 1)]++;
  }

  #openRemove(r: CrashRecord): void {
    const i = this.#open.indexOf(r);
    if (i < 0) return;
    this.#open.splice(i, 1);
    const key = threadKey(r.reporterPid, r.reporterTid);
    const list = this.#openByThread.get(key);
    if (!list) return;
    const k = list.indexOf(r);
    if (k >= 0) {
      list.splice(k, 1);
      this.#openTids[r.reporterTid & (OPEN_TID_SLOTS - 1)]--;
    }
    if (list.length === 0) this.#openByThread.delete(key);
  }
}
