/**
 * Where a resumed stream's replay ends. A resumed stream replays the device's buffer first: the
 * last RESUME_ANCHOR_LINES complete lines stored before the disconnect (the anchor, kept as spans
 * of their chunks) are looked for again in order, and what follows them is new.
 */

/** Complete lines a resumed stream must see again before what it reads counts as new (2^k). */
const RESUME_ANCHOR_LINES = 4;
/** Lines newer than the anchor held while a resume looks for it; beyond, the anchor is gone. */
const MAX_RESUME_PENDING_LINES = 20_000;

interface Looking {
  anchor: string[];
  matched: number;
  anchorTime: string;
  pending: string[];
}

export class ResumeAnchor {
  /** The last complete lines stored, as spans: a ring of RESUME_ANCHOR_LINES. */
  #text: string[] = new Array(RESUME_ANCHOR_LINES);
  #start = new Int32Array(RESUME_ANCHOR_LINES);
  #end = new Int32Array(RESUME_ANCHOR_LINES);
  /** Lines remembered since the last clear (the newest is at `(#remembered - 1) % size`). */
  #remembered = 0;
  #looking: Looking | null = null;
  /** Stores a held line as new (the anchor never came). */
  readonly #store: (line: string) => void;

  constructor(store: (line: string) => void) {
    this.#store = store;
  }

  /** A complete line was stored: `text[start, end)`. (Per line: kept small to inline.) */
  remember(text: string, start: number, end: number): void {
    const r = this.#remembered++ & (RESUME_ANCHOR_LINES - 1);
    this.#text[r] = text;
    this.#start[r] = start;
    this.#end[r] = end;
  }

  /**
   * From now on replayed lines are skipped until the anchor has been seen again (time and
   * content, however chunks cut them). Lines newer than `anchorTime` (the newest stored entry's)
   * seen while looking are held: they may be new if the anchor is gone (the buffer was cleared or
   * rotated), and are stored by `end` when it never comes. False when nothing was stored yet.
   */
  begin(anchorTime: string): boolean {
    if (this.#remembered === 0) {
      this.#looking = null;
      return false;
    }
    const anchor: string[] = [];
    const n = Math.min(this.#remembered, RESUME_ANCHOR_LINES);
    for (let k = 0; k < n; k++) {
      const i = (this.#remembered - n + k) & (RESUME_ANCHOR_LINES - 1);
      anchor.push(this.#text[i].slice(this.#start[i], this.#end[i]));
    }
    this.#looking = { anchor, matched: 0, anchorTime, pending: [] };
    return true;
  }

  /** Whether a resume is still looking for its anchor. */
  get looking(): boolean {
    return this.#looking !== null;
  }

  /** Gives up looking for the anchor: the held lines are stored as new. */
  end(): void {
    const r = this.#looking;
    if (r === null) return;
    this.#looking = null;
    for (const line of r.pending) this.#store(line);
  }

  /** While looking: true when `line` belongs to the replay (consumed here), false once past it. */
  replayed(line: string): boolean {
    const r = this.#looking!;
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
          this.end();
          return true;
        }
      }
    }
    if (r.matched === r.anchor.length) this.#looking = null; // held lines were replays: dropped
    return true;
  }

  /** Forgets the stored lines and any resume in progress. */
  clear(): void {
    this.#text.fill(undefined as unknown as string);
    this.#remembered = 0;
    this.#looking = null;
  }
}
