/**
 * A device's stored log entries: a bounded ring in columns, so 50,000 entries cost a few MB and
 * no object per entry. Numbers are typed arrays; an entry's time and message are not strings of
 * their own but offsets into the text they were read from (the decoded chunk, shared by all the
 * entries read from it), which is kept alive by the entries that point into it and goes when the
 * last of them is evicted. When full, each new entry evicts the oldest and `evicted` counts it.
 */

import { type MessageColumns, TextIndex } from "./text_index.ts";
import { clampRingEntries, DEFAULT_RING_ENTRIES } from "./shared/ring_limits.ts";

export {
  clampRingEntries,
  DEFAULT_RING_ENTRIES,
  MAX_RING_ENTRIES,
  MIN_RING_ENTRIES,
} from "./shared/ring_limits.ts";

/** Per-entry flags. */
export const EntryFlag = {
  continuation: 1,
  malformed: 2,
  json: 4,
  crash: 8,
} as const;

export class RingStore implements MessageColumns {
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
  tag: string[];
  /** The text each slot's time and message lie in (undefined: an empty slot). */
  text: (string | undefined)[];
  timeStart: Int32Array;
  timeEnd: Int32Array;
  msgStart: Int32Array;
  msgEnd: Int32Array;
  /** The text-query prefilter over the messages (kept in step with every write). */
  textIndex: TextIndex;
  /** Called before a resize or clear moves or drops entries (the pipeline settles what reads them). */
  beforeMove: (() => void) | null = null;
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
    this.tag = new Array(c);
    this.text = new Array(c);
    this.timeStart = new Int32Array(c);
    this.timeEnd = new Int32Array(c);
    this.msgStart = new Int32Array(c);
    this.msgEnd = new Int32Array(c);
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

  /** The time of a stored slot, as printed. */
  timeOf(slot: number): string {
    return this.text[slot]!.slice(this.timeStart[slot], this.timeEnd[slot]);
  }

  /** The message of a stored slot. */
  messageOf(slot: number): string {
    return this.text[slot]!.slice(this.msgStart[slot], this.msgEnd[slot]);
  }

  /**
   * Stores an entry whose time is `text[timeStart, timeEnd)` and message `text[msgStart,
   * msgEnd)` (no object per entry: the ingest path). Returns the slot.
   */
  add(
    seq: number,
    text: string,
    timeStart: number,
    timeEnd: number,
    pid: number,
    tid: number,
    level: number,
    tag: string,
    msgStart: number,
    msgEnd: number,
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
    this.tag[s] = tag;
    this.text[s] = text;
    this.timeStart[s] = timeStart;
    this.timeEnd[s] = timeEnd;
    this.msgStart[s] = msgStart;
    this.msgEnd[s] = msgEnd;
    this.textIndex.touch(s);
    this.levelCounts[level]++;
    return s;
  }

  /** `add` with the time and message as strings (tests, cold paths). */
  addStrings(
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
    const t = time.length;
    const text = time + message;
    return this.add(seq, text, 0, t, pid, tid, level, tag, t, text.length, proc, category, flags);
  }

  clear(): void {
    this.beforeMove?.();
    this.#head = 0;
    this.#size = 0;
    this.evicted = 0;
    this.levelCounts.fill(0);
    this.tag.fill(undefined as unknown as string);
    this.text.fill(undefined);
    this.textIndex.touchAll();
  }

  /** Changes the capacity, keeping the newest entries that fit. */
  resize(capacity: number): void {
    const c = clampRingEntries(capacity);
    if (c === this.capacity) return;
    this.beforeMove?.();
    const keep = Math.min(this.#size, c);
    const from = this.#size - keep;
    const next = new RingStore(c);
    for (let i = from; i < this.#size; i++) {
      const s = this.slot(i);
      next.add(
        this.seq[s],
        this.text[s]!,
        this.timeStart[s],
        this.timeEnd[s],
        this.pid[s],
        this.tid[s],
        this.level[s],
        this.tag[s],
        this.msgStart[s],
        this.msgEnd[s],
        this.proc[s],
        this.category[s],
        this.flags[s],
      );
    }
    this.capacity = next.capacity;
    this.seq = next.seq;
    this.pid = next.pid;
    this.tid = next.tid;
    this.proc = next.proc;
    this.level = next.level;
    this.category = next.category;
    this.flags = next.flags;
    this.tag = next.tag;
    this.text = next.text;
    this.timeStart = next.timeStart;
    this.timeEnd = next.timeEnd;
    this.msgStart = next.msgStart;
    this.msgEnd = next.msgEnd;
    this.textIndex = next.textIndex;
    this.levelCounts.set(next.levelCounts);
    this.evicted = this.evicted + from;
    this.#head = 0;
    this.#size = keep;
  }
}
