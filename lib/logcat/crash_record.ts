/**
 * A crash as a device's pipeline keeps it: its lines as they arrive, where it came from, and its
 * context (the lines about it before and after it). `contextBefore` is read on first access, or
 * when the pipeline must read it (crash_context.ts), from what was recorded when the crash was read.
 */
import type { CrashKind, ParsedCrash } from "./crash_parser.ts";
import { clockMs } from "./log_clock.ts";

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

/** A crash's context before it, not read yet: what the scan needs, as it was when it was read. */
export interface PendingBefore {
  record: Crash;
  /** The scan (CrashContext's). */
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

/** Where a crash starts: the line that reported it. */
interface CrashStart {
  id: number;
  device: string;
  kind: CrashKind;
  pid: number;
  tid: number;
  tag: string;
  level: number;
  time: string;
  receivedAt: string;
  message: string;
  open: boolean;
  lastActive: number;
}

export class Crash implements CrashRecord {
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

  constructor(s: CrashStart) {
    this.id = s.id;
    this.device = s.device;
    this.kind = s.kind;
    this.pid = s.pid;
    this.reporterPid = s.pid;
    this.reporterTid = s.tid;
    this.tag = s.tag;
    this.level = s.level;
    this.time = s.time;
    this.receivedAt = s.receivedAt;
    this.lines = [s.message];
    this.clock = clockMs(s.time);
    this.open = s.open;
    this.lastActive = s.lastActive;
    this.tombstone = s.tag === "DEBUG";
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

export function isJavaStart(message: string): boolean {
  return message.startsWith("FATAL EXCEPTION") || message.startsWith("*** FATAL EXCEPTION");
}

export function isTombstoneStart(message: string): boolean {
  return message.startsWith("*** *** ***");
}
