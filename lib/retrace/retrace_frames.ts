/**
 * One frame of a trace retraced through the mapping's objects (lib/retrace/class_bytes.ts's
 * classes, lib/retrace/mapping.ts's groups): every case retrace_text.ts's module comment lists —
 * alternatives, frames without a usable line, methods the mapping does not list, lines no range
 * holds, long chains cut, names and lines that are not plain ASCII. lib/retrace/frame_bytes.ts
 * writes the common case straight to bytes and leaves the others to this. Pure.
 */
import {
  type ClassMapping,
  type InlineGroup,
  type MemberEntry,
  SYNTHETIC_SOURCE_FILE,
} from "./mapping.ts";
import type { MappingIndex } from "./mapping_index.ts";
import { MAX_LINES_PER_FRAME } from "./frame_bytes.ts";
import { splitLocation } from "./shared/trace_frames.ts";

/** Alternatives printed for one ambiguous frame. */
const MAX_ALTERNATIVES = 10;

/** File names that say "no file" and are kept as printed. */
const KEEP_FILE_NAMES = new Set(["Unknown Source", "Native Method", "Unknown"]);

interface OutFrame {
  className: string;
  method: string;
  line: number | null;
  file: string;
}

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

/** A retraced frame's printed lines: how many inlined frames were cut, whether it is ambiguous. */
interface FrameLines {
  lines: string[];
  omitted: number;
  ambiguous: boolean;
}

/**
 * The frame `ws` `at` `cls`'s `method`(`loc`) retraced: its printed lines (see retrace_text.ts's
 * module comment).
 */
export function objectFrame(
  index: MappingIndex,
  cls: ClassMapping,
  ws: string,
  method: string,
  loc: string,
): FrameLines {
  const { file, line } = splitLocation(loc);
  const alts = alternatives(index, cls, method, line, file);
  const { lines, omitted } = frameLines(alts, indentOf(ws));
  return { lines, omitted, ambiguous: alts.length > 1 };
}
