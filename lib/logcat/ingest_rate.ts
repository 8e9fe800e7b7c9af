/** Lines read per second over a short window: a ring of per-second counts. */

/** Seconds of ingest history behind the reported rate. */
const RATE_WINDOW_SECONDS = 10;

export class IngestRate {
  #counts = new Float64Array(RATE_WINDOW_SECONDS + 1);
  #second = 0;

  /** Counts `lines` read at `nowMs`. */
  count(lines: number, nowMs: number): void {
    const sec = Math.floor(nowMs / 1000);
    const counts = this.#counts;
    if (sec !== this.#second) {
      const gap = sec - this.#second;
      if (gap >= counts.length || gap < 0) counts.fill(0);
      else for (let s = this.#second + 1; s <= sec; s++) counts[s % counts.length] = 0;
      this.#second = sec;
    }
    counts[sec % counts.length] += lines;
  }

  /** Lines per second over the last `RATE_WINDOW_SECONDS` full seconds. */
  perSecond(nowMs: number): number {
    this.count(0, nowMs);
    const sec = Math.floor(nowMs / 1000);
    const counts = this.#counts;
    let sum = 0;
    for (let s = sec - RATE_WINDOW_SECONDS; s < sec; s++) sum += counts[s % counts.length];
    return Math.round((sum / RATE_WINDOW_SECONDS) * 10) / 10;
  }

  clear(): void {
    this.#counts.fill(0);
  }
}
