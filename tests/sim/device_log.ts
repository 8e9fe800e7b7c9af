/**
 * A device's log buffer as `logd` keeps it: entries with pid, tid, priority, tag and message, in
 * the order they were written, bounded. Services write to it (the apps service logs
 * `ActivityTaskManager: Displayed …` and crashes, the logcat service adds traffic) and the logcat
 * service reads and streams it.
 */

export const LogPriority = { V: 2, D: 3, I: 4, W: 5, E: 6, F: 7 } as const;
export type LogLevel = keyof typeof LogPriority;

export interface LogEntry {
  /** Epoch milliseconds (with sub-ms precision unused). */
  time: number;
  pid: number;
  tid: number;
  /** The uid that wrote it (for `-v uid`). */
  uid: number;
  level: LogLevel;
  tag: string;
  message: string;
  /** `main`, `system`, `crash`, `events`, `radio`. */
  buffer: "main" | "system" | "crash" | "events" | "radio";
}

/** Entries kept per device before the oldest are dropped (logd's buffer is bounded too). */
export const MAX_DEVICE_LOG_ENTRIES = 200_000;

export class DeviceLog {
  #entries: LogEntry[] = [];
  #start = 0;
  #listeners = new Set<(e: LogEntry) => void>();

  append(entry: Omit<LogEntry, "time" | "tid" | "uid" | "buffer"> & Partial<LogEntry>): LogEntry {
    const e: LogEntry = {
      time: entry.time ?? Date.now(),
      pid: entry.pid,
      tid: entry.tid ?? entry.pid,
      uid: entry.uid ?? 1000,
      level: entry.level,
      tag: entry.tag,
      message: entry.message,
      buffer: entry.buffer ?? "main",
    };
    this.#entries.push(e);
    if (this.#entries.length - this.#start > MAX_DEVICE_LOG_ENTRIES) this.#start++;
    if (this.#start > 4096 && this.#start * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#start);
      this.#start = 0;
    }
    for (const l of this.#listeners) l(e);
    return e;
  }

  /** Entries currently kept, oldest first. */
  entries(): LogEntry[] {
    return this.#entries.slice(this.#start);
  }

  /** `logcat -c`: drop everything. */
  clear(): void {
    this.#entries = [];
    this.#start = 0;
  }

  /** Live entries from now on; returns the unsubscribe function. */
  subscribe(fn: (e: LogEntry) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
}
