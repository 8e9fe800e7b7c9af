/**
 * Deobfuscates a stack trace's text with a mapping (lib/retrace/mapping_index.ts), line by line, as R8's
 * `retrace` does:
 * - a frame `at obf.Cls.m(File:12)` whose class the mapping knows becomes the original frames: the
 *   inline chain whose minified range holds line 12, innermost first, each with its original line;
 *   a frame without a usable line (`SourceFile`, `Unknown Source`, no `:N`, or a line no range
 *   holds) becomes the original method when only one fits, with no line;
 * - several fitting original methods are ambiguous: all are printed, the others as `<OR> at …`,
 *   and counted, never one picked;
 * - synthesized members (`com.android.tools.r8.synthesized`) are dropped from an inline chain
 *   when a real frame remains (a synthesized frame on its own is kept: it is all there is);
 * - the file is the class's `sourceFile` metadata (Kotlin files R8 records), else its outer class's
 *   (`Outer$$ExternalSyntheticLambda0`, `Outer$Inner` → `Outer`'s) when the mapping has one, else
 *   the outer class's simple name with the trace file's extension, `.java` when it has none
 *   (`SourceFile`), as R8's retrace and ProGuard's ReTrace name a file; `Unknown Source` and
 *   `Native Method` stay as printed;
 * - an original line 0 is R8's "no line": printed without one (ProGuard's ReTrace prints `:0`);
 * - one frame expands to at most `MAX_LINES_PER_FRAME` lines (an inline chain can be 100k frames
 *   long), the rest counted on a `... N more inlined frames` line; a whole answer to at most
 *   `MAX_RETRACE_OUTPUT_LINES`, the input lines after that kept as printed;
 * - an exception line (`Caused by: a.b: msg`) gets its class's original name;
 * - every other line, and frames of classes the mapping does not know, are kept byte for byte.
 * A rewritten frame keeps its line's indentation, each tab as four spaces (a frame of a nested
 * `Suppressed:` block stays nested; the fixture pair in `fixtures/real/logcat/r8_retrace/` writes
 * logcat's tab as four spaces).
 * The trace is read as UTF-8 bytes and the answer written as bytes, decoded once: a frame in the
 * common case is retraced byte to byte (lib/retrace/frame_bytes.ts), the others through the
 * mapping's objects (lib/retrace/retrace_frames.ts), and a frame retraced once is remembered as
 * bytes (lib/retrace/frame_memo.ts). Pure.
 */
import type { MappingIndex } from "./mapping_index.ts";
import { hashBytes } from "./member_lines.ts";
import {
  ByteOut,
  CLASS_FROM,
  CLASS_TO,
  frame,
  LOC_FROM,
  LOC_TO,
  METHOD_TO,
  readFrame,
  writeFrame,
  WS_END,
} from "./frame_bytes.ts";
import { objectFrame } from "./retrace_frames.ts";
import type { RetraceOutput, RetraceStats } from "./shared/retrace_protocol.ts";
import { FRAME, MAX_RETRACE_LINES } from "./shared/trace_frames.ts";

/** Lines of one retraced text at most; later input lines are kept as printed. */
const MAX_RETRACE_OUTPUT_LINES = 100_000;

const EXCEPTION =
  /^(\s*)((?:Caused by|Suppressed): )?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(:.*)?$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function newStats(): RetraceStats {
  return {
    frames: 0,
    retraced: 0,
    ambiguous: 0,
    exceptions: 0,
    skipped_lines: 0,
    omitted_frames: 0,
  };
}

/**
 * What one line (`\r` dropped) became on the object path, counted in `stats`: its printed text
 * and lines (`lines` 0: nothing printed), and whether it is a retraced frame to remember.
 */
interface LineResult {
  text: string;
  lines: number;
  frame: boolean;
  ambiguous: boolean;
  omitted: number;
}

/** `line` (`raw` as printed) through the object path; see the module comment. */
function objectLine(
  line: string,
  raw: string,
  index: MappingIndex,
  stats: RetraceStats,
): LineResult {
  const fm = FRAME.exec(line);
  if (fm) {
    stats.frames++;
    const [, ws, className, method, loc] = fm;
    const cls = index.byObfuscated(className);
    if (!cls) return { text: raw, lines: 1, frame: false, ambiguous: false, omitted: 0 };
    const f = objectFrame(index, cls, ws, method, loc);
    counted(stats, f.ambiguous, f.omitted);
    const text = f.lines.join("\n");
    return { text, lines: f.lines.length, frame: true, ambiguous: f.ambiguous, omitted: f.omitted };
  }
  const em = EXCEPTION.exec(line);
  const cls = em ? index.byObfuscated(em[3]) : null;
  if (em && cls) {
    stats.exceptions++;
    const text = `${em[1]}${em[2] ?? ""}${cls.original}${em[4] ?? ""}`;
    return { text, lines: 1, frame: false, ambiguous: false, omitted: 0 };
  }
  return { text: raw, lines: 1, frame: false, ambiguous: false, omitted: 0 };
}

/** A retraced frame counted. */
function counted(stats: RetraceStats, ambiguous: boolean, omitted: number): void {
  stats.retraced++;
  if (ambiguous) stats.ambiguous++;
  stats.omitted_frames += omitted;
}

/** What anyFrame found of the frame it wrote last (one object, not one per frame). */
const last = { ambiguous: false, omitted: 0 };

/**
 * The frame readFrame read from the line at `src[at, …)`, of class `cls`, written to `out`: as
 * bytes in the common case, else through the class's objects. Its lines; `last` says the rest.
 */
function anyFrame(
  index: MappingIndex,
  cls: number,
  src: Uint8Array,
  at: number,
  out: ByteOut,
): number {
  last.ambiguous = false;
  last.omitted = 0;
  const n = writeFrame(index, cls, src, at, out);
  if (n >= 0) return n;
  const f = objectFrame(
    index,
    index.classNumbered(cls),
    decoder.decode(src.subarray(at, frame[WS_END])),
    decoder.decode(src.subarray(frame[CLASS_TO] + 1, frame[METHOD_TO])),
    decoder.decode(src.subarray(frame[LOC_FROM], frame[LOC_TO])),
  );
  out.text(f.lines.join("\n"));
  last.ambiguous = f.ambiguous;
  last.omitted = f.omitted;
  return f.lines.length;
}

/** `text` deobfuscated with `index`; see the module comment. Pure. */
export function retraceText(text: string, index: MappingIndex): RetraceOutput {
  // A lone surrogate has no UTF-8: such a text is read line by line as text.
  if (!text.isWellFormed()) return retraceLines(text, index);
  const stats = newStats();
  const src = encoded(text);
  const out = emptyAnswer(src.length + (src.length >> 1));
  // The frames retraced now are remembered by their offsets in `src` and `out`, copied out of
  // them when the round is sealed: before both buffers serve the next trace.
  index.frames.begin(src, out);
  try {
    retraceBytes(src, index, out, stats);
  } finally {
    index.frames.seal();
  }
  const result = { text: decoder.decode(out.bytes.subarray(0, out.length)), stats };
  letGoOfLargeBuffers();
  return result;
}

/** The lines of `src` retraced into `out` (empty), counted in `stats`; see the module comment. */
function retraceBytes(src: Uint8Array, index: MappingIndex, out: ByteOut, stats: RetraceStats) {
  const memo = index.frames;
  // Lines printed, and whether any was (the next is printed after a `\n`).
  let outLines = 0;
  let printed = false;
  for (let pos = 0, k = 0; pos <= src.length; k++) {
    let nl = src.indexOf(10, pos);
    if (nl < 0) nl = src.length;
    const e = nl > pos && src[nl - 1] === 13 ? nl - 1 : nl;
    const at = pos;
    pos = nl + 1;
    if (k >= MAX_RETRACE_LINES || outLines >= MAX_RETRACE_OUTPUT_LINES) {
      if (printed) out.byte(10);
      printed = true;
      out.copy(src, at, nl);
      outLines++;
      stats.skipped_lines++;
      continue;
    }
    const h = hashBytes(src, at, e);
    const known = memo.find(src, at, e, h);
    if (known >= 0) {
      stats.frames++;
      counted(stats, memo.ambiguous(known), memo.omitted(known));
      const n = memo.lineCount(known);
      if (n > 0) {
        if (printed) out.byte(10);
        printed = true;
        out.copy(memo.valueBytes(known), memo.valueStart(known), memo.valueEnd(known));
      }
      outLines += n;
      continue;
    }
    const sep = out.length;
    if (printed) out.byte(10);
    const start = out.length;
    if (readFrame(src, at, e)) {
      stats.frames++;
      const cls = index.obfuscatedClassAt(src, frame[CLASS_FROM], frame[CLASS_TO]);
      if (cls < 0) {
        out.copy(src, at, nl);
        printed = true;
        outLines++;
        continue;
      }
      const n = anyFrame(index, cls, src, at, out);
      const { ambiguous, omitted } = last;
      counted(stats, ambiguous, omitted);
      memo.add(at, e, h, start, out.length, n, ambiguous, omitted);
      printed = true;
      outLines += n;
      continue;
    }
    const line = decoder.decode(src.subarray(at, e));
    const r = objectLine(
      line,
      e === nl ? line : decoder.decode(src.subarray(at, nl)),
      index,
      stats,
    );
    if (r.lines === 0) {
      out.length = sep;
    } else {
      out.text(r.text);
      printed = true;
    }
    if (r.frame) {
      memo.add(at, e, h, start, out.length, r.lines, r.ambiguous, r.omitted);
    }
    outLines += r.lines;
  }
}

/**
 * The buffers a trace is read from and its answer written to, kept from one call to the next
 * (retraceText runs to its end before another starts): a new pair per trace was garbage the
 * worker's collector ran for between calls. Past KEPT_BUFFER_BYTES (a large trace) they are let
 * go after the call.
 */
const KEPT_BUFFER_BYTES = 1024 * 1024;
const INITIAL_INPUT_BYTES = 64 * 1024;
const INITIAL_ANSWER_BYTES = 96 * 1024;
let input = new Uint8Array(INITIAL_INPUT_BYTES);
let answer = new ByteOut(INITIAL_ANSWER_BYTES);

/** The kept answer buffer, emptied, with room for `bytes`. */
function emptyAnswer(bytes: number): ByteOut {
  answer.length = 0;
  answer.room(bytes);
  return answer;
}

/** After a call: buffers a large trace grew past KEPT_BUFFER_BYTES are let go. */
function letGoOfLargeBuffers(): void {
  if (answer.bytes.length > KEPT_BUFFER_BYTES) answer = new ByteOut(INITIAL_ANSWER_BYTES);
  if (input.length > KEPT_BUFFER_BYTES) input = new Uint8Array(INITIAL_INPUT_BYTES);
}

/** `text` as UTF-8 in `input` (grown to hold it), as a view of exactly its bytes. */
function encoded(text: string): Uint8Array {
  // A UTF-16 unit is at most 3 bytes of UTF-8.
  if (input.length < text.length * 3) input = new Uint8Array(text.length * 3);
  return input.subarray(0, encoder.encodeInto(text, input).written);
}

/** retraceText for a text that is not well-formed UTF-16: line by line, nothing remembered. */
function retraceLines(text: string, index: MappingIndex): RetraceOutput {
  const stats = newStats();
  const lines = text.split("\n");
  const out: string[] = [];
  let outLines = 0;
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k];
    if (k >= MAX_RETRACE_LINES || outLines >= MAX_RETRACE_OUTPUT_LINES) {
      outLines++;
      stats.skipped_lines++;
      out.push(raw);
      continue;
    }
    const r = objectLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw, raw, index, stats);
    if (r.lines > 0) out.push(r.text);
    outLines += r.lines;
  }
  return { text: out.join("\n"), stats };
}
