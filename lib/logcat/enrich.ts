/**
 * Enrichment of parsed lines: which process (and package) a pid belongs to, learned from the
 * device's process list and from the stream itself, the entry's category, and JSON payloads.
 * Pure functions plus a small bounded table; tests call them directly.
 */
import { packageOfProcess } from "./crash_parser.ts";
import { ForwardSearch, indexIn } from "./line_parser.ts";

/** Process names remembered per device; beyond it new names are not attributed. */
const MAX_PROCESS_NAMES = 20_000;
/** pid → process entries remembered per device (a device has at most ~32k pids). */
const MAX_PID_ENTRIES = 65_536;
/** Longest message checked for a JSON payload. */
export const MAX_JSON_DETECT_CHARS = 64 * 1024;

export const CATEGORIES = [
  "system",
  "app",
  "crash",
  "lifecycle",
  "gc",
  "network",
  "performance",
] as const;
type Category = typeof CATEGORIES[number];
export const Cat = {
  system: 0,
  app: 1,
  crash: 2,
  lifecycle: 3,
  gc: 4,
  network: 5,
  performance: 6,
} as const;

const LIFECYCLE_TAGS = new Set([
  "ActivityManager",
  "ActivityTaskManager",
  "ActivityThread",
  "Zygote",
  "Process",
  "libprocessgroup",
]);
const NETWORK_TAGS = new Set([
  "OkHttp",
  "okhttp.OkHttpClient",
  "NetworkSecurityConfig",
  "ConnectivityManager",
  "ConnectivityService",
  "NetworkMonitor",
  "TrafficStats",
  "Volley",
  "Retrofit",
]);
const PERFORMANCE_TAGS = new Set(["Choreographer", "StrictMode", "OpenGLRenderer", "Looper"]);

/** The category of an entry (crash lines are marked by the crash detector instead). */
export function classify(tag: string, message: string, hasPackage: boolean): number {
  return classifyAt(tag, message, 0, message.length, hasPackage);
}

/** `classify` of the message `text[start, end)`. */
export function classifyAt(
  tag: string,
  text: string,
  start: number,
  end: number,
  hasPackage: boolean,
): number {
  return classifyClassAt(tagClass(tag), text, start, end, hasPackage);
}

/**
 * What the tag alone says of an entry's category (the tests of classifyAt on the tag, for the
 * ingest path to make once per tag): the category it gives (Cat.gc: when the message says `GC`),
 * or Cat.system for none. Below 8.
 */
export function tagClass(tag: string): number {
  if (LIFECYCLE_TAGS.has(tag)) return Cat.lifecycle;
  if (tag === "art" || tag === "dalvikvm") return Cat.gc;
  if (NETWORK_TAGS.has(tag)) return Cat.network;
  if (PERFORMANCE_TAGS.has(tag)) return Cat.performance;
  return Cat.system;
}

/** `classifyAt` of a tag whose tagClass is `cls`. */
export function classifyClassAt(
  cls: number,
  text: string,
  start: number,
  end: number,
  hasPackage: boolean,
): number {
  const none = hasPackage ? Cat.app : Cat.system;
  if (cls === Cat.gc) return indexIn(text, "GC", start, end) >= 0 ? Cat.gc : none;
  return cls !== Cat.system ? cls : none;
}

/** Whether the message is (or ends with) a JSON object or array that parses. */
export function detectJson(message: string): boolean {
  return detectJsonAt(message, 0, message.length);
}

/** `detectJson` of the message `text[from, to)`. */
export function detectJsonAt(text: string, from: number, to: number): boolean {
  const n = to - from;
  if (n < 2 || n > MAX_JSON_DETECT_CHARS) return false;
  let end = to - 1;
  while (end > from && text.charCodeAt(end) === 32) end--;
  const last = text.charCodeAt(end);
  if (last !== 125 && last !== 93) return false; // } ]
  const start = (last === 125 ? OPEN_BRACE : OPEN_BRACKET).find(text, from, to);
  if (start < 0 || start >= end) return false;
  // Most messages that end in } or ] are not JSON (`Bundle[{…}]`, `{mGsm=…}`, `[SUB0]`): refuse
  // what JSON.parse would refuse by its second character before paying for a throw.
  if (!opensJson(text, start, end)) return false;
  try {
    const v = JSON.parse(text.slice(start, end + 1));
    return typeof v === "object" && v !== null;
  } catch {
    return false;
  }
}

const OPEN_BRACE = new ForwardSearch("{");
const OPEN_BRACKET = new ForwardSearch("[");

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Whether the text at `start` (a `{` or `[`) can begin a JSON value: after the bracket and any
 * whitespace an object needs `"` or `}`, an array a value's first character or `]`. Anything else
 * is a sure JSON.parse failure.
 */
function opensJson(s: string, start: number, end: number): boolean {
  let i = start + 1;
  while (i < end && isJsonSpace(s.charCodeAt(i))) i++;
  const c = s.charCodeAt(i);
  if (s.charCodeAt(start) === 123) return c === 34 || (c === 125 && i === end); // " }
  // [ then ] " { [ - digit t f n
  return c === 93 || c === 34 || c === 123 || c === 91 || c === 45 || (c >= 48 && c <= 57) ||
    c === 116 || c === 102 || c === 110;
}

/** The JSON payload of a message `detectJson` accepted, or null. */
export function jsonPayload(message: string): unknown {
  const t = message.trimEnd();
  const start = t.indexOf(t.endsWith("}") ? "{" : "[");
  if (start < 0) return null;
  try {
    return JSON.parse(t.slice(start));
  } catch {
    return null;
  }
}

/** What a line teaches about processes: a pid now runs `process`, or a pid died. */
interface ProcessFact {
  pid: number;
  process: string | null;
  died: boolean;
}

/**
 * Process facts from ActivityManager and AndroidRuntime lines: `Start proc 5572:com.x/u0a209
 * for …`, `Process com.x (pid 5572) has died`, `Killing 4310:com.x/u0a77 (adj 906): …`, and a
 * crash's `Process: com.x, PID: 5572`. Cheap prefix checks first; null for other lines.
 */
export function processFact(tag: string, message: string): ProcessFact | null {
  if (tag === "ActivityManager" || tag === "ActivityTaskManager") {
    if (message.startsWith("Start proc ")) {
      const colon = message.indexOf(":", 11);
      const slash = colon < 0 ? -1 : message.indexOf("/", colon);
      const space = colon < 0 ? -1 : message.indexOf(" ", colon);
      const end = slash < 0 ? space : space < 0 ? slash : Math.min(slash, space);
      const pid = colon < 0 ? NaN : Number(message.slice(11, colon));
      if (Number.isInteger(pid) && end > colon) {
        return { pid, process: message.slice(colon + 1, end), died: false };
      }
      return null;
    }
    if (message.startsWith("Process ") && message.includes(" has died")) {
      const m = /^Process (\S+) \(pid (\d+)\) has died/.exec(message);
      return m ? { pid: Number(m[2]), process: m[1], died: true } : null;
    }
    if (message.startsWith("Killing ")) {
      const m = /^Killing (\d+):([^/\s]+)/.exec(message);
      return m ? { pid: Number(m[1]), process: m[2], died: true } : null;
    }
    return null;
  }
  if (tag === "AndroidRuntime" && message.startsWith("Process: ")) {
    const m = /^Process: (\S+?), PID: (\d+)/.exec(message);
    return m ? { pid: Number(m[2]), process: m[1], died: false } : null;
  }
  return null;
}

/**
 * `ps -A -o PID,NAME` (or plain `ps` / `ps -A`) output → pid and name, found by the header's
 * PID and NAME (or CMD/ARGS) columns. Lines that do not fit are skipped.
 */
export function parseProcessList(text: string): { pid: number; name: string }[] {
  const lines = text.split("\n").map((l) => l.replace(/\r+$/, "")).filter((l) => l.trim());
  if (lines.length === 0) return [];
  const header = lines[0].trim().split(/\s+/);
  const pidCol = header.indexOf("PID");
  let nameCol = header.findIndex((h) => h === "NAME" || h === "CMD" || h === "ARGS");
  if (pidCol < 0) return [];
  if (nameCol < 0) nameCol = header.length - 1;
  const out: { pid: number; name: string }[] = [];
  for (const line of lines.slice(1)) {
    const cols = line.trim().split(/\s+/);
    // The name is the last column and may be preceded by a state column `S` that some ps omit.
    const pid = Number(cols[pidCol]);
    const name = nameCol === header.length - 1 ? cols[cols.length - 1] : cols[nameCol];
    if (Number.isInteger(pid) && pid > 0 && name) out.push({ pid, name });
  }
  return out;
}

/** The pid → process table of one device, bounded. */
export class ProcessTable {
  readonly names: string[] = [];
  readonly packages: (string | null)[] = [];
  #index = new Map<string, number>();
  #byPid = new Map<number, number>();

  /** The index of `name` in `names`, adding it; -1 when the table is full. */
  intern(name: string): number {
    let i = this.#index.get(name);
    if (i !== undefined) return i;
    if (this.names.length >= MAX_PROCESS_NAMES) return -1;
    i = this.names.length;
    this.names.push(name);
    this.packages.push(packageOfProcess(name));
    this.#index.set(name, i);
    return i;
  }

  /** Records that `pid` runs `name`; true when that changed what the pid maps to. */
  set(pid: number, name: string): boolean {
    const i = this.intern(name);
    if (i < 0) return false;
    const before = this.#byPid.get(pid);
    if (before === i) return false;
    if (before === undefined && this.#byPid.size >= MAX_PID_ENTRIES) return false;
    this.#byPid.set(pid, i);
    this.version++;
    return true;
  }

  /** Bumped whenever a pid's process changes (cached derivations check it). */
  version = 0;

  /** The process index of `pid`, or -1. */
  of(pid: number): number {
    return this.#byPid.get(pid) ?? -1;
  }

  has(pid: number): boolean {
    return this.#byPid.has(pid);
  }

  get pidCount(): number {
    return this.#byPid.size;
  }

  clear(): void {
    this.#byPid.clear();
    this.version++;
  }
}
