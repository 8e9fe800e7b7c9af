/** The command journal: one JSON line per device command, appended in arrival order. */

export type JournalService = "shell,v2" | "shell" | "exec";

export interface JournalEntry {
  t: string;
  serial: string;
  service: JournalService;
  raw: string;
  argv: string[][];
  injection: boolean;
  unquoted: string[];
}

/** Longest `raw` command kept in one journal line; longer commands are cut (and say so). */
export const MAX_JOURNAL_RAW_CHARS = 64 * 1024;

export class Journal {
  private chain: Promise<void> = Promise.resolve();
  constructor(readonly path: string) {}

  append(entry: JournalEntry): void {
    const e = entry.raw.length > MAX_JOURNAL_RAW_CHARS
      ? { ...entry, raw: entry.raw.slice(0, MAX_JOURNAL_RAW_CHARS) + "…[cut]" }
      : entry;
    const line = JSON.stringify(e) + "\n";
    this.chain = this.chain.then(() => Deno.writeTextFile(this.path, line, { append: true }))
      .catch((err) => console.error(`keynobi sim: cannot write journal: ${err}`));
  }

  /** Waits for pending appends, then reads every entry. */
  async read(): Promise<JournalEntry[]> {
    await this.chain;
    let text: string;
    try {
      text = await Deno.readTextFile(this.path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return [];
      throw e;
    }
    return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as JournalEntry);
  }

  flush(): Promise<void> {
    return this.chain;
  }
}
