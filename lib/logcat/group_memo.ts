/**
 * The groups of crash texts seen before, so a crash loop printing the same trace (or a replayed
 * capture) is not parsed again for each dropped repeat: a crash's group is a pure function of its
 * kind, its lines and the process the table gives its pid.
 */
import type { CrashKind } from "./crash_parser.ts";
import { copyOf } from "./string_copy.ts";

/** Crash texts whose group is remembered for dropping repeats without parsing them again. */
const MAX_GROUP_MEMO = 256;
/** Longest crash text remembered that way (bounds the memo at ~4 MB). */
const MAX_GROUP_MEMO_KEY_CHARS = 16 * 1024;

interface Remembered {
  kind: CrashKind;
  name: string;
  lines: string[];
  id: string;
}

/** Whether two crash texts have the same lines. */
function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Keyed by a short fingerprint (kind, process, line count and characters, first and last line);
 * each entry holds a copy of its text's lines, compared line by line (no joined copy of every
 * dropped crash to hash).
 */
export class GroupMemo {
  #memo = new Map<string, Remembered[]>();
  #size = 0;

  /** The group of the text `lines` of `kind` in process `name`: remembered, else `compute()`. */
  groupOf(kind: CrashKind, name: string, lines: readonly string[], compute: () => string): string {
    let chars = lines.length - 1;
    for (let i = 0; i < lines.length; i++) chars += lines[i].length;
    if (chars > MAX_GROUP_MEMO_KEY_CHARS) return compute();
    const print = `${kind}\n${name}\n${lines.length}\n${chars}\n${lines[0]}\n${lines.at(-1)}`;
    const seen = this.#memo.get(print);
    if (seen !== undefined) {
      for (const e of seen) {
        if (e.kind === kind && e.name === name && sameLines(e.lines, lines)) return e.id;
      }
    }
    const id = compute();
    if (this.#size >= MAX_GROUP_MEMO) {
      this.#memo.clear();
      this.#size = 0;
    }
    const entry = { kind, name, lines: lines.map(copyOf), id };
    const list = this.#memo.get(print);
    if (list) list.push(entry);
    else this.#memo.set(print, [entry]);
    this.#size++;
    return id;
  }
}
