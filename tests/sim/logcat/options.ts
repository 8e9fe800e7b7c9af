/**
 * The `logcat` command line as logcat's getopt_long reads it: short options clustered (`-dv
 * time`), option arguments attached or separate, long options with `=` or a separate value, and
 * the filterspecs after them. Pure.
 */
import type { LogEntry, LogLevel } from "../device_log.ts";
import { applyFormatWord, defaultFormat, type LogFormat } from "./format.ts";

export const BUFFER_NAMES = [
  "main",
  "radio",
  "events",
  "system",
  "crash",
  "stats",
  "security",
  "kernel",
] as const;
export type BufferName = typeof BUFFER_NAMES[number];
/** What logcat reads without `-b`. */
export const DEFAULT_BUFFERS: readonly BufferName[] = ["main", "system", "crash"];

/** Priorities in filterspecs; S (silent) is above every level. */
export const PRIORITY: Record<string, number> = { V: 2, D: 3, I: 4, W: 5, E: 6, F: 7, S: 8 };
export const LEVEL_PRIORITY: Record<LogLevel, number> = { V: 2, D: 3, I: 4, W: 5, E: 6, F: 7 };

export type Start =
  | { kind: "count"; count: number }
  | { kind: "wall"; year: number | null; month: number; day: number; hms: number[]; ms: number }
  | { kind: "epoch"; ms: number };

export interface LogcatOptions {
  format: LogFormat;
  /** `-d`, or `-t`: print what is buffered and exit. */
  dump: boolean;
  clear: boolean;
  sizes: boolean;
  dividers: boolean;
  buffers: BufferName[];
  start: Start | null;
  maxCount: number | null;
  pid: number | null;
  regex: RegExp | null;
  /** Default priority for tags without a rule (`-s` → S). */
  defaultPriority: number;
  tagRules: Map<string, number>;
  help: boolean;
}

export type ParseResult = { ok: true; opts: LogcatOptions } | { ok: false; error: string };

const SHORT_WITH_ARG = new Set(["v", "b", "t", "T", "m", "e", "f", "r", "n", "G", "p", "P"]);
const SHORT_FLAGS = new Set(["d", "c", "g", "s", "D", "h", "B", "S", "L"]);
const LONG_WITH_ARG = new Set([
  "format",
  "buffer",
  "max-count",
  "regex",
  "pid",
  "file",
  "rotate-kbytes",
  "rotate-count",
  "buffer-size",
]);
const UNSUPPORTED: Record<string, string> = {
  B: "-B (binary output)",
  S: "-S (statistics)",
  L: "-L (last)",
  f: "-f (file output)",
  r: "-r (rotation)",
  n: "-n (rotation)",
  G: "-G (buffer size)",
  p: "-p (prune list)",
  P: "-P (prune list)",
  file: "--file",
  "rotate-kbytes": "--rotate-kbytes",
  "rotate-count": "--rotate-count",
  "buffer-size": "--buffer-size",
};

/** Largest `-t`/`-T`/`-m` count honoured (larger counts mean "everything"). */
export const MAX_LOGCAT_COUNT = 1_000_000;

/**
 * Parses argv after `logcat`. `envTags` is ANDROID_LOG_TAGS, used (as logcat does) only when no
 * filterspec is given on the command line.
 */
export function parseLogcatArgs(
  args: string[],
  envTags = "",
  tz: string | null = null,
): ParseResult {
  const fmt = defaultFormat(tz);
  const opts: LogcatOptions = {
    format: fmt,
    dump: false,
    clear: false,
    sizes: false,
    dividers: false,
    buffers: [],
    start: null,
    maxCount: null,
    pid: null,
    regex: null,
    defaultPriority: PRIORITY.V,
    tagRules: new Map(),
    help: false,
  };
  const specs: string[] = [];
  const handle = (opt: string, value: string | undefined): string | null => {
    if (opt in UNSUPPORTED) return `${UNSUPPORTED[opt]} is not simulated`;
    switch (opt) {
      case "d":
        opts.dump = true;
        return null;
      case "c":
        opts.clear = true;
        return null;
      case "g":
        opts.sizes = true;
        return null;
      case "s":
        opts.defaultPriority = PRIORITY.S;
        return null;
      case "D":
      case "dividers":
        opts.dividers = true;
        return null;
      case "h":
      case "help":
        opts.help = true;
        return null;
      case "v":
      case "format": {
        for (const word of (value ?? "").split(/[\s,]+/).filter(Boolean)) {
          if (!applyFormatWord(fmt, word)) return `Invalid parameter "${word}" to -v`;
        }
        return null;
      }
      case "b":
      case "buffer": {
        for (const name of (value ?? "").split(/[\s,|]+/).filter(Boolean)) {
          if (name === "all") opts.buffers.push(...BUFFER_NAMES);
          else if (name === "default") opts.buffers.push(...DEFAULT_BUFFERS);
          else if ((BUFFER_NAMES as readonly string[]).includes(name)) {
            opts.buffers.push(name as BufferName);
          } else return `unknown buffer ${name}`;
        }
        return null;
      }
      case "t":
      case "T": {
        const s = parseStart(value ?? "");
        if (!s) return `-${opt} "${value}" not in time format`;
        opts.start = s;
        if (opt === "t") opts.dump = true;
        return null;
      }
      case "m":
      case "max-count": {
        const n = Number(value);
        if (!/^\d+$/.test(value ?? "") || n < 1) {
          return `-m "${value}" isn't an integer greater than zero`;
        }
        opts.maxCount = Math.min(n, MAX_LOGCAT_COUNT);
        return null;
      }
      case "e":
      case "regex": {
        try {
          opts.regex = new RegExp(value ?? "");
        } catch {
          return `Invalid regex: ${value}`;
        }
        return null;
      }
      case "pid": {
        if (!/^\d+$/.test(value ?? "") || Number(value) < 1) {
          return `pid "${value}" is not a valid pid`;
        }
        opts.pid = Number(value);
        return null;
      }
    }
    return `unknown option -- ${opt}`;
  };

  let k = 0;
  for (; k < args.length; k++) {
    const a = args[k];
    if (a === "--") {
      k++;
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      let value: string | undefined = eq < 0 ? undefined : a.slice(eq + 1);
      if (LONG_WITH_ARG.has(name) && value === undefined) {
        if (k + 1 >= args.length) {
          return { ok: false, error: `option '--${name}' requires an argument` };
        }
        value = args[++k];
      }
      const err = handle(name, value);
      if (err) return { ok: false, error: err };
      continue;
    }
    if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j];
        if (SHORT_WITH_ARG.has(c)) {
          let value = a.slice(j + 1);
          if (value === "") {
            if (k + 1 >= args.length) {
              return { ok: false, error: `option requires an argument -- ${c}` };
            }
            value = args[++k];
          }
          const err = handle(c, value);
          if (err) return { ok: false, error: err };
          break;
        }
        if (!SHORT_FLAGS.has(c)) return { ok: false, error: `unknown option -- ${c}` };
        const err = handle(c, undefined);
        if (err) return { ok: false, error: err };
      }
      continue;
    }
    specs.push(a);
  }
  specs.push(...args.slice(k));
  if (specs.length === 0 && envTags !== "" && envTags !== "''") {
    specs.push(...envTags.split(/\s+/).filter(Boolean));
  }
  for (const spec of specs) {
    const colon = spec.lastIndexOf(":");
    const tag = colon < 0 ? spec : spec.slice(0, colon);
    const p = colon < 0 ? "V" : spec.slice(colon + 1).toUpperCase();
    const pri = p === "*" ? PRIORITY.V : PRIORITY[p];
    if (pri === undefined || tag === "") return { ok: false, error: "Invalid filter expression" };
    if (tag === "*") opts.defaultPriority = pri;
    else opts.tagRules.set(tag, pri);
  }
  if (opts.buffers.length === 0) opts.buffers.push(...DEFAULT_BUFFERS);
  opts.buffers = [...new Set(opts.buffers)];
  return { ok: true, opts };
}

/** `-t`/`-T` argument: a count, `MM-DD hh:mm:ss.mmm`, `YYYY-MM-DD hh:mm:ss.mmm` or `sss.mmm`. */
export function parseStart(s: string): Start | null {
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    return n < 1 ? null : { kind: "count", count: Math.min(n, MAX_LOGCAT_COUNT) };
  }
  let m = /^(?:(\d{4})-)?(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$/.exec(s.trim());
  if (m) {
    const month = Number(m[2]);
    const day = Number(m[3]);
    const hms = [Number(m[4]), Number(m[5]), Number(m[6])];
    if (
      month < 1 || month > 12 || day < 1 || day > 31 || hms[0] > 23 || hms[1] > 59 || hms[2] > 60
    ) {
      return null;
    }
    return {
      kind: "wall",
      year: m[1] ? Number(m[1]) : null,
      month,
      day,
      hms,
      ms: m[7] ? Number(m[7].padEnd(3, "0").slice(0, 3)) : 0,
    };
  }
  m = /^(\d+)\.(\d{1,9})$/.exec(s.trim());
  if (m) {
    return { kind: "epoch", ms: Number(m[1]) * 1000 + Number(m[2].padEnd(3, "0").slice(0, 3)) };
  }
  return null;
}

/** Whether an entry passes the tag filterspecs, the regex and the pid (not the buffers). */
export function passes(opts: LogcatOptions, e: LogEntry): boolean {
  if (opts.pid !== null && e.pid !== opts.pid) return false;
  const rule = opts.tagRules.get(e.tag) ?? opts.defaultPriority;
  if (LEVEL_PRIORITY[e.level] < rule) return false;
  if (opts.regex && !opts.regex.test(e.message)) return false;
  return true;
}
