/**
 * The diagnostics of one build as the parser recognises them: a copy of one already recorded is
 * dropped, every distinct one is counted, and at most MAX_DIAGNOSTICS of each severity are kept.
 * Pure.
 */
import { type Diagnostic, Severity } from "./shared/diagnostic.ts";

/**
 * Diagnostics kept per build and severity (errors and warnings each); more set
 * `diagnostics_truncated`, and are still counted in `error_count` / `warning_count`.
 */
export const MAX_DIAGNOSTICS = 200;
/**
 * Distinct diagnostics remembered to tell a repeat from a new one (Gradle prints each twice).
 * Past it the counts go on without deduplication: no real build comes near it.
 */
const MAX_COUNTED_DIAGNOSTICS = 20_000;
/** Characters of a message a remembered key keeps (20,000 keys stay under ~12 MB). */
const MAX_KEY_MESSAGE_CHARS = 300;

/** The first line of a message, whitespace collapsed: what two copies of a diagnostic share. */
function headline(message: string): string {
  const nl = message.indexOf("\n");
  return (nl < 0 ? message : message.slice(0, nl)).replace(/\s+/g, " ").trim();
}

/** Two headlines of one message, either cut short by a console: one begins the other. */
function sameCut(a: string, b: string): boolean {
  if (a === b) return true;
  return a !== "" && b !== "" && (a.startsWith(b) || b.startsWith(a));
}

export class DiagnosticTally {
  /** In console order, errors and warnings each cut at MAX_DIAGNOSTICS. */
  readonly kept: Diagnostic[] = [];
  /** Every distinct diagnostic, kept or not. */
  readonly counts = { error: 0, warning: 0 };
  /** Some diagnostics were counted but not kept. */
  truncated = false;
  #keys = new Set<string>();
  /** File and line → the headlines recorded there, and whether each came from a block. */
  #placed = new Map<string, { headline: string; inBlock: boolean }[]>();

  /**
   * Record `d` unless the same problem (task aside) is already recorded. Gradle prints a located
   * diagnostic again inside `What went wrong` (`inBlock`), indented so its caret gives another
   * column: a copy from the other place with the same file, line and message is the same
   * diagnostic. (Within one place, javac's two errors on one line at two columns stay two.) A
   * console that cut lines at its width cuts the indented copy's message elsewhere: a headline
   * that begins the other's is the same message.
   */
  add(d: Diagnostic, inBlock: boolean): void {
    const key = [
      d.severity,
      d.source,
      d.file,
      d.line,
      d.column,
      d.message.slice(0, MAX_KEY_MESSAGE_CHARS),
    ]
      .join("\u0000");
    if (this.#keys.has(key)) return;
    const place = d.file !== null && d.line !== null ? `${d.file}\u0000${d.line}` : null;
    const head = headline(d.message).slice(0, MAX_KEY_MESSAGE_CHARS);
    const here = place === null ? undefined : this.#placed.get(place);
    if (here?.some((p) => p.inBlock !== inBlock && sameCut(p.headline, head))) return;
    // Remembered for deduplication up to a bound; counted always.
    if (this.#keys.size < MAX_COUNTED_DIAGNOSTICS) {
      this.#keys.add(key);
      if (place !== null && !here?.some((p) => p.headline === head)) {
        this.#placed.set(place, [...(here ?? []), { headline: head, inBlock }]);
      }
    }
    const severity = d.severity === Severity.error ? "error" : "warning";
    if (this.counts[severity]++ >= MAX_DIAGNOSTICS) {
      this.truncated = true;
      return;
    }
    this.kept.push(d);
  }

  /** Whether a kept error explains a failure of `task` (an error of that task, or of none). */
  explains(task: string | undefined): boolean {
    return this.kept.some((d) =>
      d.severity === Severity.error && (d.task === undefined || d.task === task)
    );
  }
}
