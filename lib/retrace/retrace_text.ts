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
 * logcat's tab as four spaces). Pure.
 */
import {
  type ClassMapping,
  type InlineGroup,
  type MemberEntry,
  SYNTHETIC_SOURCE_FILE,
} from "./mapping.ts";
import type { MappingIndex } from "./mapping_index.ts";
import type { RetraceOutput, RetraceStats } from "./shared/retrace_protocol.ts";
import { FRAME, MAX_RETRACE_LINES, splitLocation } from "./shared/trace_frames.ts";

/** Alternatives printed for one ambiguous frame. */
const MAX_ALTERNATIVES = 10;
/** Lines one input frame expands to at most (alternatives and inline chains together). */
export const MAX_LINES_PER_FRAME = 256;
/** Lines of one retraced text at most; later input lines are kept as printed. */
const MAX_RETRACE_OUTPUT_LINES = 100_000;

/** File names that say "no file" and are kept as printed. */
const KEEP_FILE_NAMES = new Set(["Unknown Source", "Native Method", "Unknown"]);

interface OutFrame {
  className: string;
  method: string;
  line: number | null;
  file: string;
}

const EXCEPTION =
  /^(\s*)((?:Caused by|Suppressed): )?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(:.*)?$/;

/** The original line of `e` for minified line `line` (`null`: none known). Pure. */
export function originalLine(e: MemberEntry, line: number | null): number | null {
  // No original range: the original line is the minified one.
  if (e.origStart === null) return line;
  if (e.origEnd === null || e.origEnd === e.origStart || line === null || e.minStart === null) {
    return e.origStart;
  }
  const mapped = e.origStart + (line - e.minStart);
  return Math.min(Math.max(mapped, e.origStart), e.origEnd);
}

function outerSimpleName(cls: string): string {
  const simple = cls.slice(cls.lastIndexOf(".") + 1);
  const dollar = simple.indexOf("$");
  return dollar > 0 ? simple.slice(0, dollar) : simple;
}

/** `.kt` of `Foo.kt`; `.java` for a file without one (`SourceFile`), as R8's retrace does. */
function extensionOf(file: string): string {
  const dot = file.lastIndexOf(".");
  return dot > 0 && !file.includes(" ") ? file.slice(dot) : ".java";
}

function realSourceFile(cls: ClassMapping | null): string | null {
  const source = cls?.sourceFile;
  return source && source !== SYNTHETIC_SOURCE_FILE ? source : null;
}

function fileFor(
  index: MappingIndex,
  owner: ClassMapping,
  className: string,
  traceFile: string,
): string {
  if (KEEP_FILE_NAMES.has(traceFile)) return traceFile;
  const cls = className === owner.original ? owner : index.byOriginal(className);
  const own = realSourceFile(cls);
  if (own) return own;
  const dollar = className.indexOf("$", className.lastIndexOf(".") + 1);
  const outer = dollar > 0 ? realSourceFile(index.byOriginal(className.slice(0, dollar))) : null;
  return outer ?? outerSimpleName(className) + extensionOf(traceFile);
}

/**
 * The frames of one inline group for `line`, innermost first: synthesized ones dropped when a
 * real one remains.
 */
function expand(
  index: MappingIndex,
  cls: ClassMapping,
  group: InlineGroup,
  line: number | null,
  traceFile: string,
): OutFrame[] {
  const entries = group.frames;
  let real = 0;
  for (const e of entries) if (!e.synthesized) real++;
  const out: OutFrame[] = [];
  for (const e of entries) {
    if (real > 0 && e.synthesized) continue;
    out.push(outFrame(index, cls, e, originalLine(e, line), traceFile));
  }
  return out;
}

function outFrame(
  index: MappingIndex,
  cls: ClassMapping,
  e: MemberEntry,
  line: number | null,
  traceFile: string,
): OutFrame {
  return {
    className: e.className,
    method: e.methodName,
    line,
    file: fileFor(index, cls, e.className, traceFile),
  };
}

function holds(g: InlineGroup, line: number): boolean {
  return g.minStart !== null && g.minEnd !== null && g.minStart <= line && line <= g.minEnd;
}

/** The alternatives for `obf.method` at `line`: each a list of frames, innermost first. */
function alternatives(
  index: MappingIndex,
  cls: ClassMapping,
  method: string,
  line: number | null,
  traceFile: string,
): OutFrame[][] {
  // A line that one of the method's ranges holds: only those groups are read.
  const holding = line === null ? null : cls.holding?.(method, line) ?? null;
  if (holding !== null) {
    return dedupe(holding.map((g) => expand(index, cls, g, line, traceFile)));
  }
  const groups = cls.methods.get(method);
  if (groups === undefined || groups.length === 0) {
    // The class is known but not this method (kept by name): only the class is renamed.
    return [[{
      className: cls.original,
      method,
      line,
      file: fileFor(index, cls, cls.original, traceFile),
    }]];
  }
  const alts: OutFrame[][] = [];
  if (line !== null) {
    for (const g of groups) if (holds(g, line)) alts.push(expand(index, cls, g, line, traceFile));
    if (alts.length === 0) {
      for (const g of groups) {
        if (g.minStart === null) alts.push(expand(index, cls, g, line, traceFile));
      }
    }
    if (alts.length > 0) return dedupe(alts);
  }
  // No usable line: the method that contains the code (each chain's outermost frame), no line.
  for (const g of groups) {
    const outer = g.frames[g.frames.length - 1];
    const lines = g.frames.length === 1 && g.minStart === null ? originalLine(outer, null) : null;
    alts.push([outFrame(index, cls, outer, lines, traceFile)]);
  }
  return dedupe(alts);
}

function render(f: OutFrame): string {
  // Line 0 is R8's "no line" (synthesized code, a lambda's bridge): none is printed.
  return `${f.className}.${f.method}(${f.file}${
    f.line === null || f.line === 0 ? "" : `:${f.line}`
  })`;
}

/** A frame line's indentation as printed: each tab four spaces (logcat's tab, the fixture's). */
function indentOf(ws: string): string {
  return ws.replaceAll("\t", "    ");
}

/**
 * One printed frame, built flat: a string made by `+` or a template is a tree of its pieces,
 * and a remembered frame's tree was most of what the collector copied after a new trace.
 */
function frameLine(indent: string, or: boolean, f: OutFrame): string {
  const line = f.line === null || f.line === 0 ? "" : `:${f.line}`;
  const or_ = or ? "<OR> " : "";
  return [indent, or_, "at ", f.className, ".", f.method, "(", f.file, line, ")"].join("");
}

/** The lines of one retraced frame: alternatives with `<OR>`, at most `MAX_LINES_PER_FRAME`. */
function frameLines(alts: OutFrame[][], indent: string): { lines: string[]; omitted: number } {
  const lines: string[] = [];
  let omitted = 0;
  const n = Math.min(alts.length, MAX_ALTERNATIVES);
  for (let i = 0; i < n; i++) {
    const alt = alts[i];
    for (let j = 0; j < alt.length; j++) {
      if (lines.length < MAX_LINES_PER_FRAME) {
        lines.push(frameLine(indent, i > 0 && j === 0, alt[j]));
      } else omitted++;
    }
  }
  if (omitted > 0) lines.push(`${indent}... ${omitted} more inlined frames`);
  return { lines, omitted };
}

function dedupe(alts: OutFrame[][]): OutFrame[][] {
  if (alts.length < 2) return alts;
  const seen = new Set<string>();
  const out: OutFrame[][] = [];
  for (const a of alts) {
    const key = a.map(render).join("\n");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(a);
  }
  return out;
}

/** `text` deobfuscated with `index`; see the module comment. Pure. */
export function retraceText(text: string, index: MappingIndex): RetraceOutput {
  const stats: RetraceStats = {
    frames: 0,
    retraced: 0,
    ambiguous: 0,
    exceptions: 0,
    skipped_lines: 0,
    omitted_frames: 0,
  };
  const lines = text.split("\n");
  const out: string[] = [];
  // Lines in `out` (a remembered frame's lines are one string there).
  let outLines = 0;
  for (let k = 0; k < lines.length; k++) {
    const raw = lines[k];
    if (k >= MAX_RETRACE_LINES || outLines >= MAX_RETRACE_OUTPUT_LINES) {
      outLines++;
      stats.skipped_lines++;
      out.push(raw);
      continue;
    }
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const known = index.rememberedFrame(line);
    if (known) {
      stats.frames++;
      stats.retraced++;
      if (known.ambiguous) stats.ambiguous++;
      stats.omitted_frames += known.omitted;
      if (known.lineCount > 0) out.push(known.text);
      outLines += known.lineCount;
      continue;
    }
    const fm = FRAME.exec(line);
    if (fm) {
      stats.frames++;
      const [, ws, className, method, loc] = fm;
      const cls = index.byObfuscated(className);
      if (!cls) {
        out.push(raw);
        outLines++;
        continue;
      }
      const { file, line: lineNo } = splitLocation(loc);
      const alts = alternatives(index, cls, method, lineNo, file);
      stats.retraced++;
      if (alts.length > 1) stats.ambiguous++;
      const { lines, omitted } = frameLines(alts, indentOf(ws));
      stats.omitted_frames += omitted;
      // Joined, the frame is one flat string (see frameLine).
      const joined = lines.join("\n");
      index.rememberFrame(line, {
        text: joined,
        lineCount: lines.length,
        ambiguous: alts.length > 1,
        omitted,
      });
      if (lines.length > 0) out.push(joined);
      outLines += lines.length;
      continue;
    }
    const em = EXCEPTION.exec(line);
    if (em) {
      const cls = index.byObfuscated(em[3]);
      if (cls) {
        stats.exceptions++;
        out.push(`${em[1]}${em[2] ?? ""}${cls.original}${em[4] ?? ""}`);
        outLines++;
        continue;
      }
    }
    out.push(raw);
    outLines++;
  }
  return { text: out.join("\n"), stats };
}
