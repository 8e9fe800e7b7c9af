/**
 * A device's stored log entries: a bounded ring in columns (typed arrays for the numbers, plain
 * arrays for the strings), so 50,000 entries cost a few MB and no object per entry. When full,
 * each new entry evicts the oldest and `evicted` counts it.
 */

import { TextIndex } from "./text_index.ts";

/** Default entries kept per device (settings `mcp.logcat_buffer_entries`). */
export const DEFAULT_RING_ENTRIES = 50_000;
/** Bounds of that setting. */
export const MIN_RING_ENTRIES = 1_000;
export const MAX_RING_ENTRIES = 1_000_000;

/** Per-entry flags. */
export const EntryFlag = {
  continuation: 1,
  malformed: 2,
  json: 4,
  crash: 8,
} as const;

/** What one entry holds, as the pipeline hands it over. */
export interface EntryInput {
  seq: number;
  time: string;
  pid: number;
  tid: number;
  level: number;
  tag: string;
  message: string;
  /** Index into the pipeline's process table, -1 for unknown. */
  proc: number;
  category: number;
  flags: number;
}

/** Clamps a requested capacity into [MIN_RING_ENTRIES, MAX_RING_ENTRIES]. */
export function clampRingEntries(n: unknown): number {
  if (typeof n !== "number" || !Number.isFinite(n)) return DEFAULT_RING_ENTRIES;
  return Math.min(MAX_RING_ENTRIES, Math.max(MIN_RING_ENTRIES, Math.floor(n)));
}

export class RingStore {
  capacity: number;
  /** Entries evicted to make room since the last clear. */
  evicted = 0;
  /** Entries currently kept per level (index = Level.*). */
  readonly levelCounts = new Float64Array(8);
  seq: Float64Array;
  pid: Int32Array;
  tid: Int32Array;
  proc: Int32Array;
  level: Uint8Array;
  category: Uint8Array;
  flags: Uint8Array;
  time: string[];
  tag: string[];
  message: string[];
  /** The text-query prefilter over `message` (kept in step with every write). */
  textIndex: TextIndex;
  /** Slot of the oldest entry. */
  #head = 0;
  #size = 0;

  constructor(capacity = DEFAULT_RING_ENTRIES) {
    this.capacity = clampRingEntries(capacity);
    const c = this.capacity;
    this.seq = new Float64Array(c);
    this.pid = new Int32Array(c);
    this.tid = new Int32Array(c);
    this.proc = new Int32Array(c);
    this.level = new Uint8Array(c);
    this.category = new Uint8Array(c);
    this.flags = new Uint8Array(c);
    this.time = new Array(c);
    this.tag = new Array(c);
    this.message = new Array(c);
    this.textIndex = new TextIndex(c);
  }

  get size(): number {
    return this.#size;
  }

  /** The slot of the i-th oldest entry (0 ≤ i < size). */
  slot(i: number): number {
    const s = this.#head + i;
    return s >= this.capacity ? s - this.capacity : s;
  }

  /** The slot of the newest entry, or -1. */
  newestSlot(): number {
    return this.#size === 0 ? -1 : this.slot(this.#size - 1);
  }

  push(e: EntryInput): number {
    return this.add(
      e.seq,
      e.time,
      e.pid,
      e.tid,
      e.level,
      e.tag,
      e.message,
      e.proc,
      e.category,
      e.flags,
    );
  }

  /** `push` without an object per entry (the ingest path). Returns the slot. */
  add(
    seq: number,
    time: string,
    pid: number,
    tid: number,
    level: number,
    tag: string,
    message: string,
    proc: number,
    category: number,
    flags: number,
  ): number {
    let s: number;
    if (this.#size < this.capacity) {
      s = this.slot(this.#size);
      this.#size++;
    } else {
      s = this.#head;
      this.levelCounts[this.level[s]]--;
      this.#head = s + 1 === this.capacity ? 0 : s + 1;
      this.evicted++;
    }
    this.seq[s] = seq;
    this.pid[s] = pid;
    this.tid[s] = tid;
    this.proc[s] = proc;
    this.level[s] = level;
    this.category[s] = category;
    this.flags[s] = flags;
    this.time[s] = time;
    this.tag[s] = tag;
    this.message[s] = message;
    this.textIndex.touch(s);
    this.levelCounts[level]++;
    return s;
  }

  clear(): void {
    this.#head = 0;
    this.#size = 0;
    this.evicted = 0;
    this.levelCounts.fill(0);
    this.time.fill(undefined as unknown as string);
    this.tag.fill(undefined as unknown as string);
    this.message.fill(undefined as unknown as string);
    this.textIndex.touchAll();
  }

  /** Changes the capacity, keeping the newest entries that fit. */
  resize(capacity: number): void {
    const c = clampRingEntries(capacity);
    if (c === this.capacity) return;
    const keep = Math.min(this.#size, c);
    const from = this.#size - keep;
    const next = new RingStore(c);
    next.evicted = this.evicted + from;
    for (let i = from; i < this.#size; i++) {
      const s = this.slot(i);
      next.push({
        seq: this.seq[s],
        time: this.time[s],
        pid: this.pid[s],
        tid: this.tid[s],
        level: this.level[s],
        tag: this.tag[s],
        message: this.message[s],
        proc: this.proc[s],
        category: this.category[s],
        flags: this.flags[s],
      });
    }
    this.capacity = next.capacity;
    this.seq = next.seq;
    this.pid = next.pid;
    this.tid = next.tid;
    this.proc = next.proc;
    this.level = next.level;
    this.category = next.category;
    this.flags = next.flags;
    this.time = next.time;
    this.tag = next.tag;
    this.message = next.message;
    this.textIndex = next.textIndex;
    this.levelCounts.set(next.levelCounts);
    this.evicted = next.evicted;
    this.#head = 0;
    this.#size = keep;
  }
}
