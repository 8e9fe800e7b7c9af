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
