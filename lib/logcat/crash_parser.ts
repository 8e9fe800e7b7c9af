/**
 * A crash's log lines (messages only, without the logcat prefix) → its parts: exception type,
 * message, frames with class/method/file/line, the `Caused by:` chain with `... N more`, the
 * `Suppressed:` exceptions apart from that chain (as the JVM prints them: indented under the
 * throwable that suppressed them, each with its own causes), the process, and which frames are
 * the app's own. Three kinds:
 * - `java`: `FATAL EXCEPTION: <thread>` / `Process: <name>, PID: <pid>` / `Type: message` /
 *   `\tat …` (RuntimeInit's uncaught-exception handler; `*** FATAL EXCEPTION IN SYSTEM PROCESS`
 *   for system_server);
 * - `anr`: ActivityManager's (or MediaTek's ANRManager's) `ANR in <process>` / `PID:` / `Reason:`;
 * - `native`: libc's `Fatal signal N (SIG…)` and debuggerd's tombstone (`*** *** ***`,
 *   `pid: N, tid: M, name: T  >>> P <<<`, `signal …`, `Abort message:`, `backtrace:` `#00 pc …`).
 * Pure: tests feed it the real logs' lines.
 */

import type { Frame, SuppressedThrowable, Throwable } from "./shared/crash_frames.ts";

export {
  describeFrame,
  type Frame,
  type SuppressedThrowable,
  type Throwable,
} from "./shared/crash_frames.ts";

export type CrashKind = "java" | "anr" | "native";

/**
 * Whether MediaTek's system server wrote the line: it writes the ANR report (`ANR in <process>,
 * time=…`, `Reason: …`) under its own tag in place of ActivityManager's, `ANRManager` (the
 * corpus's logcat/democode--*.log), `AnrManager` on newer builds (at level I).
 */
export function isAnrManagerTag(tag: string): boolean {
  return tag === "ANRManager" || tag === "AnrManager";
}

/** Frames kept per throwable; deeper ones are counted in `omitted_frames`. */
const MAX_FRAMES_PER_THROWABLE = 256;
/** `Caused by:` links kept. */
const MAX_CAUSES = 32;
/** `Suppressed:` exceptions kept (each with up to MAX_CAUSES causes). */
const MAX_SUPPRESSED = 16;
/** Lines of a retraced crash parsed again (logcat_service.ts `rederive`). */
export const MAX_CRASH_LINES_REDERIVED = 4_000;
/** Characters kept of an exception message or ANR reason. */
const MAX_CRASH_MESSAGE_CHARS = 4_000;

export interface ParsedCrash {
  kind: CrashKind;
  exception_type: string | null;
  message: string | null;
  process: string | null;
  /** The package (process name before `:`), when the process is an app. */
  package: string | null;
  pid: number | null;
  thread: string | null;
  frames: Frame[];
  more: number | null;
  omitted_frames: number;
  causes: Throwable[];
  /** `Suppressed:` exceptions (closing a resource failed while the crash unwound, …). */
  suppressed: SuppressedThrowable[];
  /** Native crashes: `signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0`. */
  signal: { number: number; name: string; code: string | null; fault_addr: string | null } | null;
  /** ANRs: the activity or component in parentheses after the process. */
  component: string | null;
  /** The first frame marked `app` over the whole chain (innermost cause first). */
  first_app_frame: Frame | null;
}

/** Class prefixes of the platform and common libraries: never "the app's own" frames. */
export const FRAMEWORK_PREFIXES = [
  "java.",
  "javax.",
  "jdk.",
  "sun.",
  "libcore.",
  "dalvik.",
  "android.",
  "androidx.",
  "com.android.",
  "com.google.android.",
  "com.google.common.",
  "kotlin.",
  "kotlinx.",
  "org.json.",
  "org.xml.",
  "org.w3c.",
  "org.apache.",
  "okhttp3.",
  "okio.",
  "retrofit2.",
  "io.reactivex.",
  "com.squareup.",
] as const;

/** The package of a process name: `com.x:remote` → `com.x`; `system_server`, paths → null. */
export function packageOfProcess(process: string | null | undefined): string | null {
  if (!process) return null;
  const colon = process.indexOf(":");
  const base = colon < 0 ? process : process.slice(0, colon);
  if (base.includes("/") || base.includes(" ") || !base.includes(".")) return null;
  return /^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(base) ? base : null;
}

function isFrameworkClass(cls: string): boolean {
  for (const p of FRAMEWORK_PREFIXES) if (cls.startsWith(p)) return true;
  return false;
}

/** A JDK dynamic proxy (`$Proxy6`, `com.sun.proxy.$Proxy6`, `jdk.proxy2.$Proxy6`). */
const PROXY_CLASS = /(^|\.)\$Proxy\d+$/;
/**
 * A name R8 or ProGuard gave: in a package, every part of one or two characters, nested classes
 * included (`n.d.c`, `a.b5`, `t3.c0$a`, `a1.d$1`).
 */
function isObfuscatedClass(cls: string): boolean {
  if (!cls.includes(".")) return false;
  return cls.split(/[.$]+/).every((part) => part.length > 0 && part.length <= 2);
}

function inPackage(cls: string, pkg: string | null): boolean {
  return pkg !== null && (cls === pkg || cls.startsWith(pkg + "."));
}

/**
 * Whether a Java frame's class is the app's own, given the crash's package: its package's classes
 * are; the platform's, common libraries' and JDK proxies are not; an obfuscated name outside the
 * package (`n.d.c`) is the app's only when `obfuscatedIsApp` (no frame of the crash is in the
 * app's package, so the app itself was obfuscated wholesale): when the app's classes kept their
 * names, a renamed class beside them is library code R8 renamed (androidx.browser as `n.d.c`).
 */
function isAppClass(
  cls: string | null,
  pkg: string | null,
  obfuscatedIsApp = true,
): boolean {
  if (!cls) return false;
  if (inPackage(cls, pkg)) return true;
  if (isFrameworkClass(cls) || PROXY_CLASS.test(cls)) return false;
  return obfuscatedIsApp || !isObfuscatedClass(cls);
}

function frame(raw: string): Frame {
  return {
    raw,
    class: null,
    method: null,
    file: null,
    line: null,
    pc: null,
    library: null,
    symbol: null,
    app: false,
  };
}

/** `at com.x.Y.method(Y.java:12)` (without `at `) → class, method, file, line. */
export function parseJavaFrame(text: string): Frame {
  const f = frame(`at ${text}`);
  let open = text.indexOf("(");
  // Unity/Mono frames put arguments in parentheses before the location: `M (args)(0x4c:76)`.
  const lastOpen = text.lastIndexOf("(");
  if (open >= 0 && lastOpen > open && text.endsWith(")")) open = lastOpen;
  const head = (open < 0 ? text : text.slice(0, open)).trim();
  const firstParen = head.indexOf(" (");
  const name = firstParen < 0 ? head : head.slice(0, firstParen);
  const dot = name.lastIndexOf(".");
  if (dot > 0) {
    f.class = name.slice(0, dot);
    f.method = name.slice(dot + 1);
  } else {
    f.method = name || null;
  }
  if (open >= 0 && text.endsWith(")")) {
    const loc = text.slice(open + 1, -1);
    const colon = loc.lastIndexOf(":");
    const lineNo = colon < 0 ? NaN : Number(loc.slice(colon + 1));
    if (colon >= 0 && Number.isInteger(lineNo)) {
      f.file = loc.slice(0, colon) || null;
      f.line = lineNo;
    } else {
      f.file = loc || null;
    }
  }
  return f;
}

/** `#00 pc 0001c84  /system/lib/libc.so (sym+9) (BuildId: …)` → pc, library, symbol. */
export function parseNativeFrame(text: string): Frame | null {
  const t = text.trim();
  const m = /^#(\d+)\s+pc\s+([0-9a-fA-F]+)\s+(\S+)(.*)$/.exec(t);
  if (!m) return null;
  const f = frame(t);
  f.pc = m[2];
  f.library = m[3];
  const rest = m[4].trim();
  if (rest.startsWith("(") && !rest.startsWith("(offset ") && !rest.startsWith("(BuildId")) {
    // The symbol may hold parentheses itself: `(__fseeko64(__sFILE*, long long, int, int)+9)`.
    let depth = 0;
    let end = -1;
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i];
      if (c === "(") depth++;
      else if (c === ")" && --depth === 0) {
        end = i;
        break;
      }
    }
    if (end > 0) f.symbol = rest.slice(1, end).replace(/\+\d+$/, "");
  }
  return f;
}

const EXCEPTION_HEADER = /^([A-Za-z_$][\w$]*(?:\.[\w$]+)+)(?::\s?(.*))?$/;

function clip(s: string): string {
  return s.length > MAX_CRASH_MESSAGE_CHARS ? s.slice(0, MAX_CRASH_MESSAGE_CHARS) + "…" : s;
}

function newThrowable(type: string | null, message: string | null): Throwable {
  return { type, message, frames: [], more: null, omitted_frames: 0 };
}

function addFrame(t: Throwable, f: Frame): void {
  if (t.frames.length < MAX_FRAMES_PER_THROWABLE) t.frames.push(f);
  else t.omitted_frames++;
}

function emptyCrash(kind: CrashKind): ParsedCrash {
  return {
    kind,
    exception_type: null,
    message: null,
    process: null,
    package: null,
    pid: null,
    thread: null,
    frames: [],
    more: null,
    omitted_frames: 0,
    causes: [],
    suppressed: [],
    signal: null,
    component: null,
    first_app_frame: null,
  };
}

/**
 * `pid: 2640, tid: 3407, name: gpsd  >>> /system/bin/gpsd <<<`; newer debuggerd (Android 14)
 * writes the parent too: `pid: 1507, ppid: 477, tid: 1678, name: …`.
 */
function parsePidLine(
  line: string,
): { pid: number; tid: number; thread: string; process: string } | null {
  const m = /^pid: (\d+), (?:ppid: \d+, )?tid: (\d+), name: (.*?)\s+>>> (.*) <<<$/.exec(
    line.trim(),
  );
  return m ? { pid: Number(m[1]), tid: Number(m[2]), thread: m[3], process: m[4] } : null;
}

// deno-lint-ignore house/long-function -- one pass; a line's throwable depends on the lines before
function parseJava(lines: readonly string[]): ParsedCrash {
  const c = emptyCrash("java");
  let current: Throwable | null = null;
  let top: Throwable | null = null;
  let supp: SuppressedThrowable | null = null;
  for (const rawLine of lines) {
    const line = rawLine.trimEnd();
    const t = line.trim();
    if (t === "") continue;
    if (t.startsWith("FATAL EXCEPTION: ")) {
      c.thread = t.slice(17).trim();
      continue;
    }
    if (t.startsWith("*** FATAL EXCEPTION IN SYSTEM PROCESS: ")) {
      c.thread = t.slice(39).trim();
      c.process = "system_server";
      continue;
    }
    if (t.startsWith("Process: ") && top === null) {
      const m = /^Process: (.*?), PID: (\d+)/.exec(t);
      if (m) {
        c.process = m[1];
        c.pid = Number(m[2]);
      } else c.process = t.slice(9).trim();
      continue;
    }
    if (t.startsWith("at ")) {
      if (!current) {
        current = top = newThrowable(null, null);
      }
      addFrame(current, parseJavaFrame(t.slice(3)));
      continue;
    }
    if (t.startsWith("... ") && t.endsWith(" more") && current) {
      const n = Number(t.slice(4, -5));
      if (Number.isInteger(n)) current.more = n;
      continue;
    }
    const isCause = t.startsWith("Caused by: ");
    const isSuppressed = t.startsWith("Suppressed: ");
    if ((isCause || isSuppressed) && top !== null) {
      const header = t.slice(isCause ? 11 : 12);
      const m = EXCEPTION_HEADER.exec(header);
      const thrown = newThrowable(m ? m[1] : header, m ? (m[2] ?? null) : null);
      const indent = line.length - line.trimStart().length;
      if (isSuppressed) {
        // Suppressed by the throwable of the main chain being printed (the top or a cause).
        const s: SuppressedThrowable = {
          ...thrown,
          suppressed_by: c.causes.length - 1,
          causes: [],
        };
        if (c.suppressed.length < MAX_SUPPRESSED) c.suppressed.push(s);
        supp = s;
        current = s;
      } else if (supp !== null && indent > 0) {
        // An indented cause belongs to the suppressed exception above it.
        if (supp.causes.length < MAX_CAUSES) supp.causes.push(thrown);
        current = thrown;
      } else {
        supp = null;
        if (c.causes.length < MAX_CAUSES) c.causes.push(thrown);
        current = thrown;
      }
      continue;
    }
    if (top === null) {
      if (t.startsWith("pid: ") || t.startsWith("#")) continue; // Unity's native-style header
      const m = EXCEPTION_HEADER.exec(t);
      if (m) {
        current = top = newThrowable(m[1], m[2] ?? null);
        continue;
      }
      continue;
    }
    // A multi-line exception message: lines before the throwable's first frame.
    if (current && current.frames.length === 0 && current.type !== null) {
      current.message = current.message === null ? t : `${current.message}\n${t}`;
    }
  }
  if (top) {
    c.exception_type = top.type;
    c.message = top.message === null ? null : clip(top.message);
    c.frames = top.frames;
    c.more = top.more;
    c.omitted_frames = top.omitted_frames;
  }
  for (const cause of c.causes) if (cause.message) cause.message = clip(cause.message);
  for (const x of c.suppressed) {
    if (x.message) x.message = clip(x.message);
    for (const cause of x.causes) if (cause.message) cause.message = clip(cause.message);
  }
  c.package = packageOfProcess(c.process);
  markJavaApp(c);
  return c;
}

/**
 * Marks the app's frames and finds the first app frame, from the frames' names as they are now:
 * run again when the names change (after retrace), so nothing derived keeps an obfuscated name.
 */
export function markJavaApp(c: ParsedCrash): void {
  const all = [c.frames, ...c.causes.map((x) => x.frames)];
  const every = [
    ...all,
    ...c.suppressed.flatMap((x) => [x.frames, ...x.causes.map((y) => y.frames)]),
  ];
  const pkg = c.package;
  const anyInPackage = every.some((frames) =>
    frames.some((f) => f.class !== null && inPackage(f.class, pkg))
  );
  for (const frames of every) {
    for (const f of frames) f.app = isAppClass(f.class, pkg, !anyInPackage);
  }
  c.first_app_frame = null;
  // The innermost cause is where it went wrong; fall back outwards. A frame in the app's package
  // comes first: a library it called (`com.google.firebase.FirebaseApp`, `trikita.anvil.BaseDSL`)
  // is where it threw, not where the app went wrong.
  const mine = (f: Frame) => f.class !== null && inPackage(f.class, pkg);
  for (const wanted of [mine, (f: Frame) => f.app]) {
    for (let i = all.length - 1; i >= 0 && !c.first_app_frame; i--) {
      c.first_app_frame = all[i].find(wanted) ?? null;
    }
  }
}

function parseAnr(lines: readonly string[]): ParsedCrash {
  const c = emptyCrash("anr");
  c.exception_type = "ANR";
  for (const raw of lines) {
    const t = raw.trim();
    if (t.startsWith("ANR in ")) {
      // MediaTek's ANRManager writes `ANR in <process>, time=<uptime>`.
      const m = /^ANR in ([^\s,]+)(?: \((.*)\))?/.exec(t);
      if (m) {
        c.process = m[1];
        c.component = m[2] ?? null;
      }
    } else if (t.startsWith("PID: ") && c.pid === null) {
      const n = Number(t.slice(5).trim());
      if (Number.isInteger(n)) c.pid = n;
    } else if (t.startsWith("Reason: ") && c.message === null) {
      c.message = clip(t.slice(8).trim());
    }
  }
  c.package = packageOfProcess(c.process);
  return c;
}

const SIGNAL_LINE =
  /^signal (\d+) \((\w+)\)(?:, code (-?\d+ \(\w+\)|-?\d+))?(?:.*?fault addr (\S+))?/;
const FATAL_SIGNAL =
  /^Fatal signal (\d+) \((\w+)\)(?:, code (-?\d+ \(\w+\)|-?\d+))?(?:, fault addr (\S+))?(?: in tid (\d+) \((.*?)\))?(?:, pid (\d+) \((.*?)\))?/;

/** Tombstone lines that end the crashing thread's backtrace: another section or the end. */
const ENDS_BACKTRACE =
  /^(--- --- ---|\*\*\* \*\*\* \*\*\*|pid: \d+|Tombstone written|stack:|memory (map|near)|code around|backtrace:)/;

// deno-lint-ignore house/long-function -- one pass; each section changes how the next lines read
function parseNative(lines: readonly string[]): ParsedCrash {
  const c = emptyCrash("native");
  const t = newThrowable(null, null);
  let inBacktrace = false;
  let seenBacktrace = false;
  let cause: string | null = null;
  let abort: string | null = null;
  let signalDetail: string | null = null;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith("Fatal signal ")) {
      const m = FATAL_SIGNAL.exec(line);
      if (m) {
        c.signal ??= {
          number: Number(m[1]),
          name: m[2],
          code: m[3] ?? null,
          fault_addr: m[4] ?? null,
        };
        if (m[6] !== undefined && c.thread === null) c.thread = m[6];
        if (m[7] !== undefined && c.pid === null) c.pid = Number(m[7]);
        if (m[8] !== undefined && c.process === null) c.process = m[8];
        signalDetail ??= line.slice(line.indexOf(")") + 1).replace(/^,\s*/, "");
      }
      continue;
    }
    const pidLine = line.startsWith("pid: ") ? parsePidLine(line) : null;
    if (pidLine) {
      c.pid = pidLine.pid;
      c.thread = pidLine.thread;
      c.process = pidLine.process;
      continue;
    }
    if (line.startsWith("signal ")) {
      const m = SIGNAL_LINE.exec(line);
      if (m) {
        c.signal = {
          number: Number(m[1]),
          name: m[2],
          code: m[3] ?? null,
          fault_addr: m[4] ?? null,
        };
        signalDetail = line.slice(line.indexOf(")") + 1).replace(/^,\s*/, "");
      }
      continue;
    }
    if (line.startsWith("Cause: ")) {
      cause ??= line.slice(7);
      continue;
    }
    if (line.startsWith("Abort message: ")) {
      abort ??= line.slice(15).replace(/^'(.*)'$/, "$1");
      continue;
    }
    if (line === "backtrace:") {
      // Only the crashing thread's backtrace (the first one); later ones are other threads.
      inBacktrace = !seenBacktrace;
      seenBacktrace = true;
      continue;
    }
    if (inBacktrace) {
      // The backtrace ends by its own structure: frames are numbered on from #00, and another
      // thread's section, a frame numbered from #00 again or the end of the tombstone ends it. A
      // line between frames that is none of these (an `E DEBUG` complaint, an empty line, a line
      // of another tag or process interleaved) is skipped, not taken for the end.
      const f = line.startsWith("#") ? parseNativeFrame(line) : null;
      const n = t.frames.length + t.omitted_frames;
      if (f !== null) {
        const index = Number(/^#(\d+)/.exec(line)![1]);
        if (index === n) addFrame(t, f);
        else if (n > 0) inBacktrace = false;
      } else if (n > 0 && ENDS_BACKTRACE.test(line)) inBacktrace = false;
    }
  }
  c.exception_type = c.signal?.name ?? null;
  c.message = abort ?? cause ?? signalDetail;
  if (c.message) c.message = clip(c.message);
  c.frames = t.frames;
  c.omitted_frames = t.omitted_frames;
  c.package = packageOfProcess(c.process);
  const exe = c.process?.startsWith("/") ? c.process : null;
  for (const f of c.frames) {
    f.app = f.library !== null &&
      (f.library.startsWith("/data/") || (exe !== null && f.library === exe));
  }
  c.first_app_frame = c.frames.find((f) => f.app) ?? null;
  return c;
}

export function parseCrash(kind: CrashKind, lines: readonly string[]): ParsedCrash {
  switch (kind) {
    case "java":
      return parseJava(lines);
    case "anr":
      return parseAnr(lines);
    case "native":
      return parseNative(lines);
  }
}

/** Frames used for the signature: the top app frames, else the top frames. */
const SIGNATURE_FRAMES = 3;

function frameKey(f: Frame): string {
  if (f.library !== null) {
    return `${f.library.replace(/^\/data\/app\/[^/]*\/[^/]*\//, "")}!${f.symbol ?? ""}`;
  }
  return `${f.class ?? ""}.${f.method ?? ""}`;
}

/**
 * The text a crash group is keyed on: kind, package, type, and its top app frames; for an ANR,
 * the package (or process) alone.
 */
export function crashSignature(c: ParsedCrash): string {
  const innermost = c.causes.length ? c.causes[c.causes.length - 1] : null;
  const type = innermost?.type ?? c.exception_type ?? "";
  // Innermost cause first (where it went wrong), then outwards to the top throwable.
  const pool = c.kind === "java"
    ? [...[...c.causes].reverse().flatMap((t) => t.frames), ...c.frames]
    : c.frames;
  const app = pool.filter((f) => f.app);
  const chosen = (app.length ? app : pool).slice(0, SIGNATURE_FRAMES).map(frameKey);
  const who = c.package ?? c.process ?? "";
  // An ANR is the app's main thread not answering, whichever deadline noticed it first: one
  // group per process, its distinct reasons counted in the group (anr_reasons.ts).
  if (c.kind === "anr") return `anr|${who}`;
  return `${c.kind}|${who}|${c.exception_type ?? ""}|${type}|${chosen.join("|")}`;
}

/** A stable 12-hex-digit id for a signature (two FNV-1a 32-bit hashes). */
export function crashGroupId(signature: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < signature.length; i++) {
    const c = signature.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x01000193 + 2);
  }
  const a = (h1 >>> 0).toString(16).padStart(8, "0");
  const b = (h2 >>> 0).toString(16).padStart(8, "0");
  return (a + b).slice(0, 12);
}
