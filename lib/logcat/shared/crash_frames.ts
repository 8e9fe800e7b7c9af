/**
 * A parsed stack trace's frames and throwables, and a frame's one-line form. A leaf module, so the
 * main thread formats crashes without loading the worker's crash parser.
 */

export interface Frame {
  /** As printed, trimmed. */
  raw: string;
  class: string | null;
  method: string | null;
  file: string | null;
  line: number | null;
  /** Native frames: program counter, library path, symbol. */
  pc: string | null;
  library: string | null;
  symbol: string | null;
  /** The app's own code rather than the platform's or a library's. */
  app: boolean;
}

export interface Throwable {
  type: string | null;
  message: string | null;
  frames: Frame[];
  /** `... N more` (frames shared with the enclosing trace). */
  more: number | null;
  omitted_frames: number;
}

/** A `Suppressed:` exception: not a cause of the crash, printed under the one that held it. */
export interface SuppressedThrowable extends Throwable {
  /** Which throwable suppressed it: -1 for the exception itself, else the index in `causes`. */
  suppressed_by: number;
  /** Its own `Caused by:` chain. */
  causes: Throwable[];
}

/** `ClassName.method(File.java:12)` or `#00 libfoo.so (sym)`, for one-line summaries. */
export function describeFrame(f: Frame | null): string | null {
  if (!f) return null;
  if (f.library !== null) return `${f.library}${f.symbol ? ` (${f.symbol})` : ""}`;
  const loc = f.file ? `(${f.file}${f.line !== null ? `:${f.line}` : ""})` : "";
  return `${f.class ?? ""}${f.class ? "." : ""}${f.method ?? ""}${loc}`;
}
