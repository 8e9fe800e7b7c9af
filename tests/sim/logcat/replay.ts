/**
 * Reads captured logcat text back into entries: threadtime (with year/epoch/uid/zone), time,
 * brief, the Android Studio copy formats, `--------- beginning of` separators (they set the
 * buffer), CRLF (any number of CRs). A line that is none of these continues the previous entry's
 * message (logcat prints every line of a multi-line message); lines before the first entry (the
 * adb banner) are dropped. A bare tombstone file becomes `F DEBUG` lines, as crash_dump logs it.
 * Times are file-relative (ms); the service shifts them to now. Pure.
 */
import type { LogEntry, LogLevel } from "../device_log.ts";

/** Epoch ms of the UTC date and time in groups i..i+6 (year, month, day, h, m, s, ms). */
function utcAt(m: RegExpExecArray, i: number): number {
  return Date.UTC(+m[i], +m[i + 1] - 1, +m[i + 2], +m[i + 3], +m[i + 4], +m[i + 5], +m[i + 6]);
}

export interface ParsedEntry {
  /** Milliseconds on the file's clock (wall fields read as UTC; epoch as is); null = unknown. */
  time: number | null;
  pid: number;
  tid: number;
  uid: number | null;
  level: LogLevel;
  tag: string;
  message: string;
  buffer: LogEntry["buffer"];
}

export interface ParsedLog {
  entries: ParsedEntry[];
  /** Lines before the first entry that were dropped. */
  dropped: number;
  /** True when the text was a bare tombstone (no logcat prefix at all). */
  tombstone: boolean;
}

/** The buffers tests/sim/device_log.ts keeps. */
export const STORED_BUFFERS = ["main", "system", "crash", "events", "radio"] as const;

/** Largest replay file accepted (bytes). */
export const MAX_REPLAY_BYTES = 64 * 1024 * 1024;

const LEVEL_WORDS: Record<string, LogLevel> = {
  Verbose: "V",
  Debug: "D",
  Info: "I",
  Warn: "W",
  Warning: "W",
  Error: "E",
  Assert: "F",
  Fatal: "F",
};
const UID_BY_NAME: Record<string, number> = {
  root: 0,
  system: 1000,
  radio: 1001,
  wifi: 1010,
  media: 1013,
  dhcp: 1014,
  drm: 1019,
  mdnsr: 1020,
  gps: 1021,
  nfc: 1027,
  logd: 1036,
  shell: 2000,
};

const WALL = String.raw`(?:(\d{4})-)?(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3,9})(?: [+-]\d{4})?`;
const EPOCH = String.raw`\s*(\d{6,})\.(\d{3,9})`;
const THREADTIME_TAIL = String.raw`\s+(?:(\S+)\s+)?(\d+)\s+(\d+) ([VDIWEFA]) (.*?)\s*:(?: (.*))?$`;
const RE_THREADTIME = new RegExp(`^${WALL}${THREADTIME_TAIL}`);
const RE_THREADTIME_EPOCH = new RegExp(`^${EPOCH}${THREADTIME_TAIL}`);
const TIME_TAIL = String.raw` ([VDIWEFA])/(.*?)\s*\(\s*(?:(\S+):\s*)?(\d+)\):(?: (.*))?$`;
const RE_TIME = new RegExp(`^${WALL}${TIME_TAIL}`);
const RE_TIME_EPOCH = new RegExp(`^${EPOCH}${TIME_TAIL}`);
const RE_BRIEF = /^([VDIWEFA])\/(.*?)\s*\(\s*(?:(\S+):\s*)?(\d+)\):(?: (.*))?$/;
const RE_STUDIO_OLD =
  /^(\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) +(\d+) +(\d+) (Verbose|Debug|Info|Warn|Warning|Error|Assert|Fatal) (\S+)(?: (.*))?$/;
const RE_STUDIO_NEW =
  /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) +(\d+)-(\d+) +(\S+) +(\S+) +([VDIWEFA]) {1,2}(.*)$/;
const RE_SEPARATOR = /^--------- (?:beginning of|switch to) (\S+)$/;
const RE_TOMBSTONE = /^\*\*\* \*\*\* \*\*\*/;

function wallMs(m: RegExpExecArray, at: number, defaultYear: number): number {
  const year = m[at] ? Number(m[at]) : defaultYear;
  const frac = Number((m[at + 6] ?? "0").padEnd(3, "0").slice(0, 3));
  return Date.UTC(
    year,
    Number(m[at + 1]) - 1,
    Number(m[at + 2]),
    Number(m[at + 3]),
    Number(m[at + 4]),
    Number(m[at + 5]),
    frac,
  );
}

function uidOf(s: string | undefined): number | null {
  if (s === undefined) return null;
  if (/^\d+$/.test(s)) return Number(s);
  const m = /^u\d+_a(\d+)$/.exec(s);
  if (m) return 10000 + Number(m[1]);
  return UID_BY_NAME[s] ?? null;
}

/** One line as an entry, or null when it is not a log line of a known format. */
export function parseLine(
  line: string,
  buffer: LogEntry["buffer"],
  defaultYear = 2026,
): ParsedEntry | null {
  let m: RegExpExecArray | null;
  if ((m = RE_THREADTIME.exec(line))) {
    return {
      time: wallMs(m, 1, defaultYear),
      uid: uidOf(m[8]),
      pid: Number(m[9]),
      tid: Number(m[10]),
      level: m[11] === "A" ? "F" : m[11] as LogLevel,
      tag: m[12],
      message: m[13] ?? "",
      buffer,
    };
  }
  if ((m = RE_THREADTIME_EPOCH.exec(line))) {
    return {
      time: Number(m[1]) * 1000 + Number(m[2].padEnd(3, "0").slice(0, 3)),
      uid: uidOf(m[3]),
      pid: Number(m[4]),
      tid: Number(m[5]),
      level: m[6] === "A" ? "F" : m[6] as LogLevel,
      tag: m[7],
      message: m[8] ?? "",
      buffer,
    };
  }
  if ((m = RE_TIME.exec(line))) {
    return {
      time: wallMs(m, 1, defaultYear),
      level: m[8] === "A" ? "F" : m[8] as LogLevel,
      tag: m[9],
      uid: uidOf(m[10]),
      pid: Number(m[11]),
      tid: Number(m[11]),
      message: m[12] ?? "",
      buffer,
    };
  }
  if ((m = RE_TIME_EPOCH.exec(line))) {
    return {
      time: Number(m[1]) * 1000 + Number(m[2].padEnd(3, "0").slice(0, 3)),
      level: m[3] === "A" ? "F" : m[3] as LogLevel,
      tag: m[4],
      uid: uidOf(m[5]),
      pid: Number(m[6]),
      tid: Number(m[6]),
      message: m[7] ?? "",
      buffer,
    };
  }
  if ((m = RE_STUDIO_OLD.exec(line))) {
    return {
      time: utcAt(m, 1),
      pid: Number(m[8]),
      tid: Number(m[9]),
      uid: null,
      level: LEVEL_WORDS[m[10]],
      tag: m[11],
      message: m[12] ?? "",
      buffer,
    };
  }
  if ((m = RE_STUDIO_NEW.exec(line))) {
    return {
      time: utcAt(m, 1),
      pid: Number(m[8]),
      tid: Number(m[9]),
      uid: null,
      tag: m[10],
      level: m[12] as LogLevel,
      message: m[13],
      buffer,
    };
  }
  if ((m = RE_BRIEF.exec(line))) {
    return {
      time: null,
      level: m[1] === "A" ? "F" : m[1] as LogLevel,
      tag: m[2],
      uid: uidOf(m[3]),
      pid: Number(m[4]),
      tid: Number(m[4]),
      message: m[5] ?? "",
      buffer,
    };
  }
  return null;
}

/** Splits text into lines: `\n` separated, any trailing CRs removed, no final empty line. */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1].replace(/\r+$/, "") === "") lines.pop();
  return lines.map((l) => l.replace(/\r+$/, ""));
}

/** Parses a captured log (any of the formats above). */
export function parseLogText(text: string, defaultYear = 2026): ParsedLog {
  const lines = splitLines(text);
  const firstReal = lines.find((l) => l.trim() !== "");
  if (firstReal !== undefined && RE_TOMBSTONE.test(firstReal)) {
    return {
      entries: lines.map((message) => ({
        time: null,
        pid: 0,
        tid: 0,
        uid: 0,
        level: "F" as const,
        tag: "DEBUG",
        message,
        buffer: "crash" as const,
      })),
      dropped: 0,
      tombstone: true,
    };
  }
  const entries: ParsedEntry[] = [];
  let buffer: LogEntry["buffer"] = "main";
  let dropped = 0;
  for (const line of lines) {
    const sep = RE_SEPARATOR.exec(line);
    if (sep) {
      // Buffers the device log does not keep (kernel, stats, security) read as main.
      buffer = (STORED_BUFFERS as readonly string[]).includes(sep[1])
        ? sep[1] as LogEntry["buffer"]
        : "main";
      continue;
    }
    const parsed = parseLine(line, buffer, defaultYear);
    if (parsed) {
      entries.push(parsed);
      continue;
    }
    const prev = entries[entries.length - 1];
    if (prev) prev.message += "\n" + line;
    else dropped++;
  }
  return { entries, dropped, tombstone: false };
}
