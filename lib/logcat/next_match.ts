/**
 * Where the next match of a needle lies in a text, remembered: every message of a
 * chunk asks "is there one before my end?", and one search answers all the messages before the
 * match it found (one native search per match along the chunk, not one per message). Asked
 * for an earlier position, or another text, it searches again.
 */
export class NextMatch {
  #text: string | null = null;
  /** No match starts in [#from, #at) (#at -1: none at or after #from). */
  #from = 0;
  #at = -1;
  readonly #search: (text: string, from: number) => number;

  /** `search(text, from)`: the first match at or after `from`, or -1. */
  constructor(search: (text: string, from: number) => number) {
    this.#search = search;
  }

  /** A literal needle. */
  static of(needle: string): NextMatch {
    return new NextMatch((t, from) => t.indexOf(needle, from));
  }

  /** The start of the first match at or after `from` in `text`, or -1. */
  next(text: string, from: number): number {
    if (text === this.#text && from >= this.#from && (this.#at < 0 || from <= this.#at)) {
      return this.#at;
    }
    this.#text = text;
    this.#from = from;
    this.#at = this.#search(text, from);
    return this.#at;
  }

  /** Forgets the remembered text (it may be collected). */
  reset(): void {
    this.#text = null;
  }
}

/** Characters a WindowedSearch looks ahead of the message it is asked about. */
export const SEARCH_WINDOW_CHARS = 4096;

/**
 * Whether a message contains a literal needle, for messages asked about in order along a text
 * but not every message (the lines after a crash, while it waits for its context): a search
 * looks at most SEARCH_WINDOW_CHARS ahead of the message asked about, and what it found (or that
 * it found nothing there) answers the next messages inside that stretch.
 */
export class WindowedSearch {
  readonly #needle: string;
  #text: string | null = null;
  /** Where the last search started; #at is the first match at or after it, or -1 for none… */
  #from = 0;
  #at = -1;
  /** …before #limit (a match may start at #limit or later). */
  #limit = 0;

  constructor(needle: string) {
    this.#needle = needle;
  }

  /** Whether `text[start, end)` contains the needle. */
  foundIn(text: string, start: number, end: number): boolean {
    const n = this.#needle.length;
    const last = end - n; // the last place a match inside may start
    if (last < start) return false;
    if (text !== this.#text || start < this.#from || (this.#at >= 0 && start > this.#at)) {
      this.#search(text, start, last);
    } else if (this.#at < 0 && last >= this.#limit) {
      this.#search(text, Math.max(start, this.#limit), last);
    }
    return this.#at >= 0 && this.#at <= last;
  }

  #search(text: string, from: number, last: number): void {
    const limit = Math.max(last + 1, from + SEARCH_WINDOW_CHARS);
    const k = text.slice(from, limit + this.#needle.length - 1).indexOf(this.#needle);
    this.#text = text;
    this.#from = from;
    this.#at = k < 0 ? -1 : from + k;
    this.#limit = limit;
  }
}
