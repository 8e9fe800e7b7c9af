/**
 * Gradle console → structured build lines (while the build runs) and, at the end, a summary with
 * the diagnostics `get_build_errors` returns. One `BuildOutputParser` per build: `push()` each
 * line as it arrives, `finish()` once. Pure: no I/O, no clocks.
 *
 * Gradle prints a failure up to three times: inline under its `> Task` header, inside `* What went
 * wrong:` and again in `* Exception is:` (with `--stacktrace`). Diagnostics come from the first
 * two, deduplicated; the stack trace only classifies lines. A failure explained only in `What went
 * wrong` (SDK location, dependency resolution, a plugin's own exception) becomes one diagnostic.
 *
 * The parser reads sections and recognises first lines (build_parser_patterns.ts); the lines that
 * finish a diagnostic are pending_diagnostic.ts's (with a Dagger chain, injection_chain.ts), a
 * `What went wrong` block's end is failure_block.ts's, deduplicating and counting is
 * diagnostic_tally.ts's, and a report line a narrow console cut is rejoined by console_wraps.ts.
 */
import { clip } from "../core/text.ts";
import { stripAnsi } from "./build_output_decode.ts";
import {
  type ActionableTasks,
  dependencyCoordinates,
  isConfigCacheProblemsHeader,
  isGeneratedPath,
  type LineMatch,
  matchAapt,
  matchActionableTasks,
  matchAgpbi,
  matchBuildResult,
  matchConfigCacheProblem,
  matchJavac,
  matchJavacBare,
  matchKotlin,
  matchLevelLine,
  matchLint,
  matchManifestMerger,
  matchR8,
  matchTaskHeader,
  type TaskOutcome,
} from "./build_parser_patterns.ts";
import {
  type Diagnostic,
  type DiagnosticSource,
  MAX_MESSAGE_CHARS,
  Severity,
} from "./shared/diagnostic.ts";
import { DiagnosticTally } from "./diagnostic_tally.ts";
import {
  type Block,
  blockTask,
  endBlock,
  IMPLICIT_BLOCK_RE,
  MAX_BLOCK_LINES,
  type Where,
} from "./failure_block.ts";
import { continuePending, CUT_URI_RE, MAX_WRAP_LINES, type Pending } from "./pending_diagnostic.ts";
import { isAnchored, rejoinJavacLine, rejoinManifestLine } from "./console_wraps.ts";

export type { Diagnostic };

/** Characters kept of one console line; the rest is cut before parsing. */
export const MAX_LINE_CHARS = 16_384;
/** Distinct failed task paths kept. */
const MAX_FAILED_TASKS = 200;

const BuildLineKind = {
  task: "task",
  task_outcome: "task_outcome",
  error: "error",
  warning: "warning",
  info: "info",
  stack: "stack",
  summary: "summary",
  other: "other",
} as const;
type BuildLineKind = typeof BuildLineKind[keyof typeof BuildLineKind];

/** One console line, classified. `task` is set on task headers and on diagnostic lines. */
export interface BuildLine {
  text: string;
  kind: BuildLineKind;
  task?: string;
  outcome?: TaskOutcome;
}

export interface BuildSummary {
  status: "success" | "failed" | "unknown";
  duration_text?: string;
  duration_ms?: number;
  failed_tasks: string[];
  /** The last `> Task` seen (the running one while the build runs), or null. */
  current_task: string | null;
  actionable_tasks?: ActionableTasks;
  /** In console order, errors and warnings each cut at MAX_DIAGNOSTICS. */
  diagnostics: Diagnostic[];
  /** Some diagnostics were counted but not kept in `diagnostics`. */
  diagnostics_truncated: boolean;
  /** Every distinct error the build reported, kept or not. */
  error_count: number;
  /** Every distinct warning the build reported, kept or not. */
  warning_count: number;
}

type Section = "none" | "wwr" | "try" | "exception" | "where";

/**
 * PowerShell's prefix on the first line a native command wrote to stderr (`.\gradlew : e: …`,
 * `gradlew.bat : …`); the error record it adds after it (`At line:1 char:48`, `+ …`) is noise.
 */
const POWERSHELL_PREFIX_RE = /^(?:\.[\\/])?gradlew(?:\.bat)? : (?=\S)/;
/** The first line of PowerShell's error record for a native command's stderr. */
const PS_RECORD_START_RE = /^At line:\d+ char:\d+\s*$/;
/** Lines a PowerShell error record may take (it ends at a blank line). */
const MAX_PS_RECORD_LINES = 12;

/** Blank lines a prefixed javac diagnostic may have before its source line. */
const MAX_PREFIXED_BLANKS = 2;

const INFO_RE =
  /^(?:Starting a Gradle Daemon|Calculating task graph|Reusing configuration cache|Configuration cache entry|\[Incubating\]|Deprecated Gradle features|You can use '--warning-mode|For more on this, please refer|To honour the JVM settings|Daemon will be stopped|Note: |Type-safe project accessors|Parallel Configuration Cache|Lint found|Explanation for issues|Welcome to Gradle|Download |> Configure project|See the complete report at|\d+: Task failed with an exception|-{5,}$|={5,}$)|is an incubating feature\.$/;
const STACK_RE = /^(?:\s+at \S|Caused by: |\s*\.\.\. \d+ more\s*$|\S+(?:Exception|Error): )/;

/** The last path segment of a task: `:app:kspDebugKotlin` → `kspDebugKotlin`. */
function taskName(task: string | undefined): string {
  if (!task) return "";
  const i = task.lastIndexOf(":");
  return i < 0 ? task : task.slice(i + 1);
}

function kotlinSource(task: string | undefined): DiagnosticSource {
  const n = taskName(task);
  if (/^ksp/.test(n)) return "ksp";
  if (/^kapt(?!GenerateStubs)/.test(n)) return "kapt";
  return "kotlin";
}

function javaSource(task: string | undefined): DiagnosticSource {
  return /^kapt(?!GenerateStubs)/.test(taskName(task)) ? "kapt" : "java";
}

/** Streaming classifier for one build's console. */
export class BuildOutputParser {
  #section: Section = "none";
  #block: Block | null = null;
  #pending: Pending | null = null;
  #currentTask: string | null = null;
  /** The task output is attributed to; unset during configuration. */
  #attribTask: string | undefined;
  #configCache = false;
  #where: Where | null = null;
  #tally = new DiagnosticTally();
  /** Diagnostics read inside a `What went wrong` block (Gradle's second copy). */
  #fromBlock = new WeakSet<Diagnostic>();
  #failedTasks: string[] = [];
  #failedSeen = false;
  #result: ReturnType<typeof matchBuildResult> = null;
  #actionable: ActionableTasks | undefined;
  #finished: BuildSummary | null = null;
  /** The last lines read (MAX_WRAP_LINES), to rejoin a report line a console wrapped. */
  #recent: string[] = [];
  /** `#recent` before the line being read. */
  #lastLines: string[] = [];
  /** Lines left of a PowerShell error record (`At line:1 char:1` … blank), 0 outside one. */
  #psRecord = 0;

  /** Classify one line (without its newline; a trailing CR and ANSI codes are removed). */
  push(raw: string): BuildLine {
    if (this.#finished) {
      throw new Error(
        "Cannot push a line: the parser has finished; start a new BuildOutputParser for the next build",
      );
    }
    let text = raw.length > MAX_LINE_CHARS ? raw.slice(0, MAX_LINE_CHARS) : raw;
    if (text.endsWith("\r")) text = text.slice(0, -1);
    text = stripAnsi(text);
    text = text.replace(POWERSHELL_PREFIX_RE, "");
    const recent = this.#recent;
    this.#recent = recent.length < MAX_WRAP_LINES ? [...recent, text] : [...recent.slice(1), text];
    this.#lastLines = recent;

    // PowerShell's error record after a native command's first stderr line: noise, which neither
    // ends nor joins what is pending (a manifest merger message comes after it).
    if (PS_RECORD_START_RE.test(text)) this.#psRecord = MAX_PS_RECORD_LINES;
    if (this.#psRecord > 0) {
      this.#psRecord = text.trim() === "" ? 0 : this.#psRecord - 1;
      return { text, kind: "info" };
    }

    if (this.#pending?.prefixed) {
      const line = this.#continuePrefixed(text);
      if (line) return line;
    } else if (this.#pending) {
      const line = this.#continuePending(text);
      if (line) return line;
    }

    // Section headers and terminators, in any section.
    if (text.startsWith("* ")) return this.#header(text);
    const result = matchBuildResult(text);
    if (result) {
      this.#closeBlock();
      this.#section = "none";
      this.#result = result;
      return { text, kind: "summary" };
    }
    if (text.startsWith("FAILURE: ")) {
      this.#closeBlock();
      this.#section = "none";
      this.#failedSeen = true;
      return { text, kind: "error" };
    }
    if (/^(?:={5,}|\d+: Task failed with an exception\.)\s*$/.test(text)) {
      this.#closeBlock();
      this.#section = "none";
      return { text, kind: "info" };
    }

    switch (this.#section) {
      case "wwr":
        return this.#blockLine(text);
      case "try":
        if (text.trim() === "") this.#section = "none";
        return { text, kind: text.trim() === "" ? "other" : "info" };
      case "exception":
        return { text, kind: "stack" };
      case "where": {
        const m =
          /^(?:Build file|Settings file|Script|Initialization script) '(.+)'(?: line: (\d+))?/
            .exec(text);
        if (m) this.#where = { file: m[1], line: m[2] ? Number(m[2]) : null };
        if (text.trim() === "") this.#section = "none";
        return { text, kind: "error" };
      }
    }
    return this.#plainLine(text);
  }

  /** End of output: flush what is pending and return the summary. Idempotent. */
  finish(): BuildSummary {
    if (this.#finished) return this.#finished;
    this.#commitPending();
    this.#closeBlock();
    let status: BuildSummary["status"] = "unknown";
    if (this.#result) status = this.#result.status;
    else if (this.#failedSeen || this.#failedTasks.length > 0) status = "failed";
    const summary: BuildSummary = {
      status,
      failed_tasks: [...this.#failedTasks],
      current_task: this.#currentTask,
      diagnostics: [...this.#tally.kept],
      diagnostics_truncated: this.#tally.truncated,
      error_count: this.#tally.counts.error,
      warning_count: this.#tally.counts.warning,
    };
    if (this.#result?.durationText !== undefined) summary.duration_text = this.#result.durationText;
    if (this.#result?.durationMs !== undefined) summary.duration_ms = this.#result.durationMs;
    if (this.#actionable) summary.actionable_tasks = { ...this.#actionable };
    this.#finished = summary;
    return summary;
  }

  /** The running task while the build runs (for progress messages). */
  get currentTask(): string | null {
    return this.#currentTask;
  }

  /** Diagnostics recognised so far, kept or not (a pending one counts once its lines end). */
  get diagnosticCount(): number {
    return this.#tally.counts.error + this.#tally.counts.warning;
  }

  #header(text: string): BuildLine {
    this.#commitPending();
    this.#closeBlock();
    if (text.startsWith("* What went wrong:")) {
      this.#section = "wwr";
      this.#failedSeen = true;
      this.#block = { lines: [], found: 0 };
      return { text, kind: "error" };
    }
    if (text.startsWith("* Try:")) {
      this.#section = "try";
      return { text, kind: "info" };
    }
    if (text.startsWith("* Exception is:")) {
      this.#section = "exception";
      return { text, kind: "stack" };
    }
    if (text.startsWith("* Where:")) {
      this.#section = "where";
      return { text, kind: "error" };
    }
    this.#section = "none";
    return { text, kind: "info" };
  }

  /** A line of a `What went wrong` block: kept for the block, and scanned for located errors. */
  #blockLine(text: string): BuildLine {
    const block = this.#block!;
    if (block.lines.length < MAX_BLOCK_LINES) block.lines.push(text);
    const inner = text.replace(/^\s*(?:> )?/, "");
    if (isConfigCacheProblemsHeader(inner)) this.#configCache = true;
    else if (inner.startsWith("See the complete report at") || /^\s*> /.test(text)) {
      this.#configCache = false;
    }
    const found = this.#configCache
      ? this.#matchConfigCache(inner, Severity.error)
      : this.#matchLocated(inner, true);
    if (found) {
      block.found++;
      return { text, kind: "error", ...(found.task ? { task: found.task } : {}) };
    }
    return { text, kind: "error" };
  }

  #plainLine(text: string): BuildLine {
    const header = matchTaskHeader(text);
    if (header) {
      this.#configCache = false;
      this.#currentTask = header.task;
      this.#attribTask = header.task;
      if (header.outcome === "FAILED") this.#addFailedTask(header.task);
      return header.outcome
        ? { text, kind: "task_outcome", task: header.task, outcome: header.outcome }
        : { text, kind: "task", task: header.task };
    }
    if (text.startsWith("> Configure project ")) {
      this.#attribTask = undefined;
      return { text, kind: "info" };
    }
    if (IMPLICIT_BLOCK_RE.test(text)) {
      // A failure pasted or printed without its `* What went wrong:` header.
      this.#failedSeen = true;
      this.#section = "wwr";
      this.#block = { lines: [], found: 0 };
      return this.#blockLine(text);
    }
    if (isConfigCacheProblemsHeader(text)) {
      this.#configCache = true;
      return { text, kind: "warning" };
    }
    if (this.#configCache) {
      if (text.startsWith("See the complete report at") || text.trim() === "") {
        this.#configCache = false;
      } else {
        const d = this.#matchConfigCache(text, Severity.warning);
        if (d) return { text, kind: "warning", ...(d.task ? { task: d.task } : {}) };
      }
    }
    const located = this.#matchLocated(text, false);
    if (located) {
      return {
        text,
        kind: located.severity,
        ...(located.task ? { task: located.task } : {}),
      };
    }
    const actionable = matchActionableTasks(text);
    if (actionable) {
      this.#actionable = actionable;
      return { text, kind: "summary" };
    }
    if (/^\d+ errors?, \d+ warnings?\s*$|^\d+ (?:errors?|warnings?)\s*$/.test(text)) {
      return { text, kind: "summary" };
    }
    if (text.startsWith("AGPBI: ")) return { text, kind: "info" };
    if (STACK_RE.test(text)) return { text, kind: "stack" };
    if (/^OpenJDK .*warning:|^Warning: /.test(text)) return { text, kind: "warning" };
    if (INFO_RE.test(text)) return { text, kind: "info" };
    return { text, kind: "other" };
  }

  /**
   * Located and tool-tagged diagnostics. Inside a `What went wrong` block only formats that
   * carry a tool or a location count (AGP's bare `ERROR:` lines there repeat the cause text).
   */
  #matchLocated(text: string, inBlock: boolean): Diagnostic | null {
    const task = inBlock ? this.#blockTask() ?? this.#attribTask : this.#attribTask;
    let m: LineMatch | null = matchAgpbi(text);
    if (!m && text.startsWith("AGPBI: ")) return null;
    m ??= matchAapt(text);
    if (m) return this.#add(m, task, undefined, inBlock);
    const r8 = matchR8(text);
    if (r8 && !inBlock) {
      const d = this.#make(r8, task, r8.source ?? "r8");
      this.#pending = { diag: d, expect: "listed", fromBlock: false };
      return d;
    }
    if (r8) return this.#add(r8, task, undefined, inBlock);
    const prefixed = /^[ew]: (\S.*)$/.exec(text);
    const pj = prefixed ? matchJavac(prefixed[1]) : null;
    if (pj) {
      // Old kapt: javac's `path:line: error: msg`, every line after `e: `.
      const d = this.#make(pj, task, javaSource(task), inBlock);
      this.#pending = { diag: d, expect: "source", fromBlock: inBlock, prefixed: true };
      return d;
    }
    const k = matchKotlin(text);
    if (k) {
      const d = this.#make(k, task, k.source ?? kotlinSource(task), inBlock);
      if (d.file === null && CUT_URI_RE.test(text)) {
        this.#pending = { diag: d, expect: "wrap", fromBlock: inBlock, wrapped: text, wraps: 0 };
      } else if (d.file === null && !inBlock) {
        this.#pending = { diag: d, expect: "more", fromBlock: false };
      } else if (d.message === "") {
        this.#pending = { diag: d, expect: "message", fromBlock: inBlock };
      } else this.#commit(d);
      return d;
    }
    const j = rejoinJavacLine(text, this.#lastLines) ?? matchJavac(text);
    if (j) {
      const d = this.#make(j, task, javaSource(task), inBlock);
      const expect = d.message === "" ? "javac_message" : "source";
      this.#pending = { diag: d, expect, fromBlock: inBlock };
      return d;
    }
    const direct = matchManifestMerger(text);
    const mm = direct && isAnchored(direct)
      ? direct
      : rejoinManifestLine(text, this.#lastLines) ?? direct;
    if (mm) {
      const d = this.#make(mm, task, "manifest_merger", inBlock);
      if (mm.library !== undefined) d.dependency = mm.library;
      this.#pending = { diag: d, expect: "indented", fromBlock: inBlock };
      return d;
    }
    const l = matchLint(text);
    if (l) {
      const d = this.#make(l, task, "lint", inBlock);
      this.#pending = { diag: d, expect: "source", fromBlock: inBlock };
      return d;
    }
    if (inBlock) return null;
    const bare = matchJavacBare(text);
    if (bare && task && /JavaWithJavac|^kapt|JavaCompile/.test(taskName(task))) {
      return this.#add(bare, task, javaSource(task));
    }
    const level = matchLevelLine(text);
    if (level) {
      const d = this.#make(level, task, "gradle");
      this.#pending = { diag: d, expect: "more", fromBlock: false };
      return d;
    }
    return null;
  }

  #matchConfigCache(text: string, severity: Severity): Diagnostic | null {
    const m = matchConfigCacheProblem(text);
    if (!m) return null;
    return this.#add({ ...m, severity }, m.task ?? this.#attribTask);
  }

  /** A line after an `e: `-prefixed javac diagnostic: its own lines carry the prefix. */
  #continuePrefixed(text: string): BuildLine | null {
    const p = this.#pending!;
    const m = /^[ew]:(?: (.*))?$/.exec(text);
    const rest = m ? (m[1] ?? "") : null;
    if ((rest === null ? text : rest).trim() === "" && p.expect === "source") {
      if ((p.blanks ?? 0) < MAX_PREFIXED_BLANKS) {
        p.blanks = (p.blanks ?? 0) + 1;
        return { text, kind: p.diag.severity, ...(p.diag.task ? { task: p.diag.task } : {}) };
      }
    }
    if (rest === null) {
      this.#commitPending();
      return null;
    }
    const line = this.#continuePending(rest);
    return line ? { ...line, text } : null;
  }

  /** Feed a line to the pending diagnostic; returns its classification if the line was taken. */
  #continuePending(text: string): BuildLine | null {
    const p = this.#pending!;
    const taken = continuePending(p, text, this.#section === "none");
    if (taken === null) {
      this.#commitPending();
      return null;
    }
    if (p.fromBlock && this.#block && this.#block.lines.length < MAX_BLOCK_LINES) {
      this.#block.lines.push(text);
    }
    if (taken === "done") this.#commitPending();
    return { text, kind: p.diag.severity, ...(p.diag.task ? { task: p.diag.task } : {}) };
  }

  #commitPending(): void {
    const p = this.#pending;
    if (!p) return;
    this.#pending = null;
    this.#commit(p.diag);
  }

  #make(
    m: LineMatch,
    task: string | undefined,
    source: DiagnosticSource,
    inBlock = false,
  ): Diagnostic {
    const d: Diagnostic = {
      severity: m.severity,
      source,
      file: m.file,
      line: m.line,
      column: m.column,
      message: clip(m.message, MAX_MESSAGE_CHARS),
    };
    const t = m.task ?? task;
    if (t) d.task = t;
    if (m.rule) d.rule = m.rule;
    if (m.file !== null && isGeneratedPath(m.file)) d.generated = true;
    if (inBlock) this.#fromBlock.add(d);
    return d;
  }

  #add(
    m: LineMatch,
    task: string | undefined,
    source?: DiagnosticSource,
    inBlock = false,
  ): Diagnostic {
    const d = this.#make(m, task, source ?? m.source ?? "gradle", inBlock);
    if (d.source === "dependency_resolution") {
      const coordinates = dependencyCoordinates(d.message);
      if (coordinates !== undefined) d.dependency = coordinates;
    }
    this.#commit(d);
    return d;
  }

  /** Record `d` unless it repeats one recorded (diagnostic_tally.ts). */
  #commit(d: Diagnostic): void {
    this.#tally.add(d, this.#fromBlock.has(d));
  }

  #addFailedTask(task: string): void {
    if (this.#failedTasks.includes(task) || this.#failedTasks.length >= MAX_FAILED_TASKS) return;
    this.#failedTasks.push(task);
  }

  /** The task a `What went wrong` block names, read across console hard-wraps. */
  #blockTask(): string | undefined {
    return this.#block ? blockTask(this.#block.lines) : undefined;
  }

  /** End of a `What went wrong` block: its failed task, dependency leaves, or one diagnostic. */
  #closeBlock(): void {
    this.#commitPending();
    const block = this.#block;
    if (!block) return;
    this.#block = null;
    this.#configCache = false;
    const where = this.#where;
    this.#where = null;
    const end = endBlock(block, where, (task) => this.#tally.explains(task));
    if (end.failedTask) this.#addFailedTask(end.failedTask);
    for (const m of end.found) this.#add(m, end.task);
  }
}
