/**
 * Line recognisers for the formats tools print into a Gradle console: Kotlin (`e:`/`w:`, old and
 * new location syntax), javac/kapt, Android Lint's text report, AAPT2, AGP's `AGPBI:` JSON lines,
 * R8/D8 and configuration-cache problem lists. Each takes one cleaned line and returns what it
 * found, or null. Pure; the state machine that strings them together is `build_parser.ts`.
 */

import { type DiagnosticSource, Severity } from "./shared/diagnostic.ts";

/** What a recogniser found; `source` may still depend on the task (Kotlin vs KSP, javac vs kapt). */
export interface LineMatch {
  severity: Severity;
  file: string | null;
  line: number | null;
  column: number | null;
  message: string;
  source?: DiagnosticSource;
  rule?: string;
  task?: string;
}

const TASK_OUTCOMES = [
  "FAILED",
  "UP-TO-DATE",
  "FROM-CACHE",
  "NO-SOURCE",
  "SKIPPED",
] as const;
export type TaskOutcome = typeof TASK_OUTCOMES[number];

const TASK_RE = /^> Task (\S+)(?: (FAILED|UP-TO-DATE|FROM-CACHE|NO-SOURCE|SKIPPED))?\s*$/;

/** `> Task :app:compileDebugKotlin FAILED` → task and outcome. */
export function matchTaskHeader(line: string): { task: string; outcome?: TaskOutcome } | null {
  const m = TASK_RE.exec(line);
  if (!m) return null;
  return m[2] ? { task: m[1], outcome: m[2] as TaskOutcome } : { task: m[1] };
}

/** `file:///C:/Android%20Development/x.kt` → `C:/Android Development/x.kt`; `file:///a/b` → `/a/b`. */
export function fileUriToPath(uri: string): string {
  let rest = uri.replace(/^file:\/\//i, "");
  try {
    rest = decodeURIComponent(rest);
  } catch {
    // A stray `%` that is not an escape: keep the text as printed.
  }
  // `/C:/x` is a Windows drive path in URI form.
  return /^\/[A-Za-z]:[\\/]/.test(rest) ? rest.slice(1) : rest;
}

function int(s: string | undefined): number | null {
  if (s === undefined) return null;
  const n = Number.parseInt(s, 10);
  return Number.isFinite(n) ? n : null;
}

const KOTLIN_PREFIX_RE = /^([ew]): (.*)$/;
const KOTLIN_URI_RE = /^(file:\/\/\S+?):(\d+):(\d+):? (.*)$/;
const KOTLIN_OLD_RE = /^(.+?\.(?:kts?|java)): \((\d+), (\d+)\): (.*)$/;
const KOTLIN_PATH_RE = /^((?:[A-Za-z]:)?[\\/].*?\.(?:kts?|java|gradle)):(\d+)(?::(\d+))?:? (.*)$/;

/**
 * Kotlin compiler lines: `e: file:///x.kt:8:25 msg` (Kotlin 2), `e: /x.kt: (8, 25): msg` (1.x),
 * `e: [ksp] /x.kt:12: msg`, and location-less `w: msg`. `source` is set only for `[ksp]`.
 */
export function matchKotlin(line: string): LineMatch | null {
  const p = KOTLIN_PREFIX_RE.exec(line);
  if (!p) return null;
  const severity = p[1] === "e" ? Severity.error : Severity.warning;
  let rest = p[2];
  let source: DiagnosticSource | undefined;
  if (rest.startsWith("[ksp] ")) {
    source = "ksp";
    rest = rest.slice(6);
  }
  let m = KOTLIN_URI_RE.exec(rest);
  if (m) {
    return {
      severity,
      file: fileUriToPath(m[1]),
      line: int(m[2]),
      column: int(m[3]),
      message: m[4].trim(),
      source,
    };
  }
  m = KOTLIN_OLD_RE.exec(rest) ?? KOTLIN_PATH_RE.exec(rest);
  if (m) {
    return {
      severity,
      file: m[1],
      line: int(m[2]),
      column: int(m[3]),
      message: m[4].trim(),
      source,
    };
  }
  return { severity, file: null, line: null, column: null, message: rest.trim(), source };
}

/** The path never starts with blanks: indentation is a block's (a pasted `What went wrong`). */
const JAVAC_RE = /^\s*(\S.*?\.java):(\d+): (error|warning): (.*)$/;
const JAVAC_BARE_RE = /^(error|warning): (.*)$/;

/** javac/kapt: `/x/A.java:814: error: ';' expected`; the source and caret lines follow. */
export function matchJavac(line: string): LineMatch | null {
  if (!line.includes(": error: ") && !line.includes(": warning: ")) return null;
  const m = JAVAC_RE.exec(line);
  if (m) {
    return {
      severity: m[3] === "error" ? Severity.error : Severity.warning,
      file: m[1],
      line: int(m[2]),
      column: null,
      message: m[4].trim(),
    };
  }
  return null;
}

/** javac/kapt without a location: `warning: [options] source value 8 is obsolete`. */
export function matchJavacBare(line: string): LineMatch | null {
  const m = JAVAC_BARE_RE.exec(line);
  if (!m) return null;
  return {
    severity: m[1] === "error" ? Severity.error : Severity.warning,
    file: null,
    line: null,
    column: null,
    message: m[2].trim(),
  };
}

/** javac's caret line (`      ^`) → 1-based column, or null. */
export function caretColumn(line: string): number | null {
  return /^\s*\^\s*$/.test(line) ? line.indexOf("^") + 1 : null;
}

/** javac's detail lines after the caret (`  symbol:   class Foo`, `  location: class Bar`). */
export function isJavacDetail(line: string): boolean {
  return /^\s+(?:symbol|location|required|found|reason|where)\b[^:]*:/.test(line);
}

const LINT_RE =
  /^(.*?[\\/.][^:]*?)(?::(\d+))?: (Error|Warning): (.*?)(?: \[([A-Za-z0-9_]+)(?: from [^\]]*)?\])?$/;

/** Lint text report: `X.java:55: Error: msg [IssueId from vendor]` (also `Warning:`). */
export function matchLint(line: string): LineMatch | null {
  // Cheap guard: the regex below backtracks over the path part on lines that cannot match.
  if (!line.includes(": Error: ") && !line.includes(": Warning: ")) return null;
  const m = LINT_RE.exec(line);
  // A path and a message both: a hard-wrapped console can cut `…webp: Error:` off its message.
  if (!m || m[1].trim() === "" || m[4].trim() === "") return null;
  const out: LineMatch = {
    severity: m[3] === "Error" ? Severity.error : Severity.warning,
    file: m[1],
    line: int(m[2]),
    column: null,
    message: m[4].trim(),
    source: "lint",
  };
  if (m[5]) out.rule = m[5];
  return out;
}

/** Lint's underline (`    ~~~~~`) → 1-based column, or null. */
export function underlineColumn(line: string): number | null {
  return /^\s*~+\s*$/.test(line) ? line.indexOf("~") + 1 : null;
}

const AAPT_RE =
  /^(?:ERROR:\s*)?(?:(.+?):(\d+)(?::(\d+))?(?:-\d+)?:\s+)?AAPT: (error|warn|warning): (.*)$/;

/** AAPT2: `ERROR: D:\x\a.xml:189: AAPT: error: msg`, `a.xml:13:5-61: AAPT: error: msg`. */
export function matchAapt(line: string): LineMatch | null {
  if (!line.includes("AAPT: ")) return null;
  const m = AAPT_RE.exec(line);
  if (!m) return null;
  return {
    severity: m[4] === "error" ? Severity.error : Severity.warning,
    file: m[1] ?? null,
    line: int(m[2]),
    column: int(m[3]),
    message: m[5].trim(),
    source: "aapt2",
  };
}

const MANIFEST_RE =
  /^(?:\[([^\]]+)\] )?(\S.*?\.xml)(?::(\d+):(\d+)(?:-(?:\d+:)?\d+)?)? (Error|Warning):\s*$/;

/**
 * The manifest merger's report line: `/x/AndroidManifest.xml:10:9-15:20 Error:`, `[g:a:1.0]
 * /y/AndroidManifest.xml Warning:`, `/x/AndroidManifest.xml Error:`. The message is on the
 * indented lines that follow; `library` is the bracketed module whose manifest it is.
 */
export function matchManifestMerger(line: string): (LineMatch & { library?: string }) | null {
  if (!/ (?:Error|Warning):\s*$/.test(line)) return null;
  const m = MANIFEST_RE.exec(line);
  if (!m) return null;
  const out: LineMatch & { library?: string } = {
    severity: m[5] === "Error" ? Severity.error : Severity.warning,
    file: m[2],
    line: int(m[3]),
    column: int(m[4]),
    message: "",
    source: "manifest_merger",
  };
  if (m[1]) out.library = m[1];
  return out;
}

const R8_RE = /^(ERROR|WARNING|Error|Warning):\s*(?:(.+?):(\d+)(?::(\d+))?:\s*)?(R8|D8):\s*(.*)$/;
const R8_LOOSE_RE = /^(ERROR|WARNING):\s*(.*\b(R8|D8)\b.*)$/;

/** R8/D8: `ERROR: R8: Missing class X (referenced from: Y)`, `ERROR: Missing classes … R8. …`. */
export function matchR8(line: string): LineMatch | null {
  let m = R8_RE.exec(line);
  if (m) {
    return {
      severity: m[1].toUpperCase() === "ERROR" ? Severity.error : Severity.warning,
      file: m[2] ?? null,
      line: int(m[3]),
      column: int(m[4]),
      message: m[6].trim(),
      source: m[5] === "R8" ? "r8" : "d8",
    };
  }
  m = R8_LOOSE_RE.exec(line);
  if (m) {
    return {
      severity: m[1] === "ERROR" ? Severity.error : Severity.warning,
      file: null,
      line: null,
      column: null,
      message: m[2].trim(),
      source: m[3] === "R8" ? "r8" : "d8",
    };
  }
  return null;
}

/** AGP's own `ERROR: msg` / `WARNING: msg` lines (no known tool). */
export function matchLevelLine(line: string): LineMatch | null {
  const m = /^(ERROR|WARNING):\s*(.*)$/.exec(line);
  if (!m || m[2].trim() === "") return null;
  return {
    severity: m[1] === "ERROR" ? Severity.error : Severity.warning,
    file: null,
    line: null,
    column: null,
    message: m[2].trim(),
    source: "gradle",
  };
}

function agpbiSource(tool: unknown): DiagnosticSource {
  const t = typeof tool === "string" ? tool.toLowerCase() : "";
  if (t.includes("aapt")) return "aapt2";
  if (t === "r8") return "r8";
  if (t === "d8") return "d8";
  if (t.includes("kotlin")) return "kotlin";
  if (t.includes("java")) return "java";
  return "gradle";
}

/**
 * AGP's machine-readable `AGPBI: {"kind":"error","text":…,"sources":[{"file":…,"position":
 * {"startLine":12,"startColumn":4}}],"original":…,"tool":"AAPT"}`. Positions are 0-based.
 * Returns null for `info` kinds and for JSON that does not parse (e.g. a cut line).
 */
export function matchAgpbi(line: string): LineMatch | null {
  if (!line.startsWith("AGPBI: ")) return null;
  let msg: Record<string, unknown>;
  try {
    const v = JSON.parse(line.slice(7));
    if (!v || typeof v !== "object") return null;
    msg = v as Record<string, unknown>;
  } catch {
    return null;
  }
  const kind = String(msg.kind ?? "").toLowerCase();
  if (kind !== "error" && kind !== "warning") return null;
  const source = agpbiSource(msg.tool);
  const sources = Array.isArray(msg.sources) ? msg.sources : [];
  const first = (sources[0] ?? {}) as Record<string, unknown>;
  const pos = (first.position ?? {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
  const startLine = num(pos.startLine);
  const startColumn = num(pos.startColumn);
  let message = typeof msg.text === "string" ? msg.text.trim() : "";
  // `original` holds the tool's own line, whose message is more specific than `text`.
  if (typeof msg.original === "string") {
    const orig = msg.original.trim();
    const aapt = matchAapt(orig);
    if (aapt) message = aapt.message;
    else if (!message) message = orig;
  }
  return {
    severity: kind === "error" ? Severity.error : Severity.warning,
    file: typeof first.file === "string" ? first.file : null,
    line: startLine === null ? null : startLine + 1,
    column: startColumn === null ? null : startColumn + 1,
    message,
    source,
  };
}

const CC_HEADER_RE =
  /problems? (?:was|were) found (?:storing|reusing|loading) the configuration cache/;

/** `1 problem was found storing the configuration cache.` starts a problem list. */
export function isConfigCacheProblemsHeader(line: string): boolean {
  return CC_HEADER_RE.test(line);
}

/**
 * One configuration cache problem: `- Task `:a:b` of type `T`: msg`, `- Build file 'x': line 3:
 * msg`, or `- <location>: msg` (the location stays in the message).
 */
export function matchConfigCacheProblem(line: string): LineMatch | null {
  const m = /^\s*- (.+)$/.exec(line);
  if (!m) return null;
  const text = m[1].trim();
  const base = { file: null, line: null, column: null, source: "configuration_cache" as const };
  let t = /^Task `([^`]+)`(?: of type `[^`]+`)?: (.+)$/.exec(text);
  if (t) return { ...base, severity: Severity.error, message: t[2].trim(), task: t[1] };
  t = /^(?:Build file|Settings file|Script|Initialization script) '([^']+)': line (\d+): (.+)$/
    .exec(text);
  if (t) {
    return { ...base, severity: Severity.error, file: t[1], line: int(t[2]), message: t[3].trim() };
  }
  if (!/^[^:]+: ./.test(text)) return null;
  return { ...base, severity: Severity.error, message: text };
}

/** Dependency resolution leaves inside `What went wrong` (not the `Could not resolve all` parent). */
export const DEPENDENCY_CAUSE_RE =
  /^(?:Could not (?:find|resolve) (?:project :|[\w.-]+:[\w.-]+)|Could not find any (?:matches for|version that matches) [\w.-]+:|Could not (?:download|GET|HEAD) |No matching (?:configuration|variant)s? |No variants of )/;

/**
 * Module coordinates in a dependency error (`group:artifact[:version]`, `:+` and ranges too), not
 * a project path (`project :app`) or a configuration name (`':app:debugRuntimeClasspath'`).
 */
const COORDINATES_RE =
  /(?<![\w.:'-])([A-Za-z_][\w.-]*:[A-Za-z_][\w.-]*(?::(?:[\w.+-]*[\w+]|[[(][\w.,+-]*[\])]))?)/;
/(?<![\w.:'-])([A-Za-z_][\w.-]*:[A-Za-z_][\w.-]*(?::[\w.+\-[\](),]*[\w+\])])?)/;

/** The first module coordinates a dependency-resolution message names, or `undefined`. */
export function dependencyCoordinates(message: string): string | undefined {
  for (const line of message.split("\n")) {
    if (/^\s*(?:project |Required by:)/.test(line)) continue;
    const m = COORDINATES_RE.exec(line.replace(/'[^']*'/g, "''"));
    if (m) return m[1].replace(/[.]$/, "");
  }
  return undefined;
}

/** `BUILD SUCCESSFUL in 1m 19s` / `BUILD FAILED in 37s`. */
export function matchBuildResult(
  line: string,
): { status: "success" | "failed"; durationText?: string; durationMs?: number } | null {
  const m = /^BUILD (SUCCESSFUL|FAILED)(?: in (.+?))?\s*$/.exec(line);
  if (!m) return null;
  const status = m[1] === "SUCCESSFUL" ? "success" : "failed";
  if (!m[2]) return { status };
  const ms = parseGradleDuration(m[2]);
  return ms === null
    ? { status, durationText: m[2] }
    : { status, durationText: m[2], durationMs: ms };
}

/** Gradle's duration text (`1h 2m 3s`, `1m 19s`, `450ms`) → milliseconds, or null. */
export function parseGradleDuration(text: string): number | null {
  const parts = text.trim().split(/\s+/);
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
  let total = 0;
  for (const p of parts) {
    const m = /^(\d+(?:\.\d+)?)(h|m|s|ms)$/.exec(p);
    if (!m) return null;
    total += Number.parseFloat(m[1]) * unit[m[2]];
  }
  return parts.length ? Math.round(total) : null;
}

export interface ActionableTasks {
  total: number;
  executed: number;
  up_to_date: number;
  from_cache: number;
}

/** `42 actionable tasks: 29 executed, 12 from cache, 1 up-to-date`. */
export function matchActionableTasks(line: string): ActionableTasks | null {
  const m = /^(\d+) actionable tasks?: (.*)$/.exec(line);
  if (!m) return null;
  const out: ActionableTasks = { total: Number(m[1]), executed: 0, up_to_date: 0, from_cache: 0 };
  for (const part of m[2].split(",")) {
    const p = /^\s*(\d+) (executed|up-to-date|from cache)\s*$/.exec(part);
    if (!p) continue;
    const n = Number(p[1]);
    if (p[2] === "executed") out.executed = n;
    else if (p[2] === "up-to-date") out.up_to_date = n;
    else out.from_cache = n;
  }
  return out;
}

/** Generated sources: AGP's `build/generated/…` and kapt's stubs. */
const GENERATED_PATH_RE = /[\\/]build[\\/](?:generated|tmp[\\/]kapt\d*)[\\/]/;

/** Whether a diagnostic's file is generated (its cause is in the source it was made from). */
export function isGeneratedPath(file: string): boolean {
  return GENERATED_PATH_RE.test(file);
}
