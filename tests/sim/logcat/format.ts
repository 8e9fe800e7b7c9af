/**
 * logcat's text output (PROTOCOLS.md §6, liblog `android_log_formatLogLine`): the `-v` words, the
 * time string (local, year, epoch, monotonic, UTC, zone, usec/nsec), and one line per message
 * line for every base format. Pure: the service and tests call it directly.
 */
import type { LogEntry } from "../device_log.ts";

export const BASE_FORMATS = [
  "brief",
  "long",
  "process",
  "raw",
  "tag",
  "thread",
  "threadtime",
  "time",
] as const;
export type BaseFormat = typeof BASE_FORMATS[number];

export interface LogFormat {
  base: BaseFormat;
  year: boolean;
  epoch: boolean;
  monotonic: boolean;
  uid: boolean;
  zone: boolean;
  /** Digits after the seconds: 3 (default), 6 (`usec`), 9 (`nsec`). */
  digits: 3 | 6 | 9;
  /** IANA zone for the time string; null = the host's local zone (`UTC` sets "UTC"). */
  tz: string | null;
}

export function defaultFormat(tz: string | null = null): LogFormat {
  return {
    base: "threadtime",
    year: false,
    epoch: false,
    monotonic: false,
    uid: false,
    zone: false,
    digits: 3,
    tz,
  };
}

/** Modifiers logcat accepts but that change nothing here (no colour, no binary decoding). */
const IGNORED_MODIFIERS = new Set(["color", "colour", "descriptive", "printable"]);

/**
 * Applies one `-v` word (logcat splits the argument on space, comma, tab, newline). Returns false
 * for a word logcat would refuse. A word that names a time zone sets it, as logcat does.
 */
export function applyFormatWord(fmt: LogFormat, word: string): boolean {
  if ((BASE_FORMATS as readonly string[]).includes(word)) {
    fmt.base = word as BaseFormat;
    return true;
  }
  switch (word) {
    case "year":
      fmt.year = true;
      return true;
    case "epoch":
      fmt.epoch = true;
      return true;
    case "monotonic":
      fmt.monotonic = true;
      return true;
    case "uid":
      fmt.uid = true;
      return true;
    case "zone":
      fmt.zone = true;
      return true;
    case "usec":
      fmt.digits = 6;
      return true;
    case "nsec":
      fmt.digits = 9;
      return true;
    case "UTC":
      fmt.tz = "UTC";
      return true;
  }
  if (IGNORED_MODIFIERS.has(word)) return true;
  if (isTimeZone(word)) {
    fmt.tz = word;
    fmt.zone = true;
    return true;
  }
  return false;
}

export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || !name.includes("/")) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of an instant in a zone. */
export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Minutes east of UTC. */
  offset: number;
}

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `ms` (epoch milliseconds, whole seconds used) in `tz` (null = host local). */
export function wallClock(ms: number, tz: string | null): Wall {
  const sec = Math.floor(ms / 1000) * 1000;
  if (tz === null) {
    const d = new Date(sec);
    return {
      year: d.getFullYear(),
      month: d.getMonth() + 1,
      day: d.getDate(),
      hour: d.getHours(),
      minute: d.getMinutes(),
      second: d.getSeconds(),
      offset: -d.getTimezoneOffset(),
    };
  }
  let f = zoneFormatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    zoneFormatters.set(tz, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(sec))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, 0) +
    parts.second * 1000;
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
    offset: Math.round((asUtc - sec) / 60000),
  };
}

/** Epoch ms of a wall-clock time in `tz` (null = host local); `ms` is the fraction. */
export function wallToEpoch(w: Omit<Wall, "offset">, ms: number, tz: string | null): number {
  if (tz === null) {
    return new Date(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, ms).getTime();
  }
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, ms);
  let guess = asUtc - wallClock(asUtc, tz).offset * 60000;
  guess = asUtc - wallClock(guess, tz).offset * 60000;
  return guess;
}

const two = (n: number) => (n < 10 ? "0" + n : String(n));

/** Passwd names logcat prints for `-v uid` when they fit in 5 columns (bionic's android_ids). */
const UID_NAMES: Record<number, string> = {
  0: "root",
  1001: "radio",
  1010: "wifi",
  1013: "media",
  1014: "dhcp",
  1019: "drm",
  1020: "mdnsr",
  1021: "gps",
  1027: "nfc",
  1036: "logd",
  2000: "shell",
};

/** `"%5d:"`, or `"%5s:"` with the passwd name when it has at most 5 characters. */
export function uidField(uid: number): string {
  if (uid < 0) return "      ";
  return (UID_NAMES[uid] ?? String(uid)).padStart(5) + ":";
}

/** Formats entries as one logcat process would: a time-prefix cache per second. */
export class LineFormatter {
  #lastSec = NaN;
  #lastPrefix = "";

  constructor(readonly fmt: LogFormat, readonly bootMs = 0) {}

  /** The time string: `MM-DD hh:mm:ss.mmm`, with `year`, `epoch` (19 columns), `zone`... */
  time(ms: number): string {
    const f = this.fmt;
    const whole = Math.floor(ms);
    const sec = Math.floor(whole / 1000);
    const msPart = whole - sec * 1000;
    let frac = String(msPart).padStart(3, "0");
    if (f.digits === 6) frac += "000";
    else if (f.digits === 9) frac += "000000";
    if (sec !== this.#lastSec) {
      this.#lastSec = sec;
      if (f.epoch) this.#lastPrefix = String(sec).padStart(19);
      else if (f.monotonic) {
        this.#lastPrefix = String(Math.max(0, sec - Math.floor(this.bootMs / 1000))).padStart(6);
      } else {
        const w = wallClock(sec * 1000, f.tz);
        const date = f.year
          ? `${w.year}-${two(w.month)}-${two(w.day)}`
          : `${two(w.month)}-${two(w.day)}`;
        this.#lastPrefix = `${date} ${two(w.hour)}:${two(w.minute)}:${two(w.second)}`;
      }
    }
    let s = `${this.#lastPrefix}.${frac}`;
    if (f.zone && !f.epoch && !f.monotonic) {
      const off = wallClock(sec * 1000, f.tz).offset;
      const a = Math.abs(off);
      s += ` ${off < 0 ? "-" : "+"}${two(Math.floor(a / 60))}${two(a % 60)}`;
    }
    return s;
  }

  /** Every line of the entry's message with its prefix, each ending in `\n`. */
  format(e: LogEntry): string {
    const f = this.fmt;
    const pid = String(e.pid).padStart(5);
    const tag = e.tag.padEnd(8);
    const uid = f.uid ? uidField(e.uid) : "";
    const msg = e.message.replace(/\n+$/, "");
    switch (f.base) {
      case "long": {
        const tid = String(e.tid).padStart(5);
        return `[ ${this.time(e.time)} ${uid}${pid}:${tid} ${e.level}/${tag} ]\n${msg}\n\n`;
      }
      case "raw":
        return msg + "\n";
    }
    let prefix: string;
    let suffix = "\n";
    switch (f.base) {
      case "threadtime": {
        const u = f.uid ? uid.slice(0, -1) + " " : "";
        prefix = `${this.time(e.time)} ${u}${pid} ${String(e.tid).padStart(5)} ${e.level} ${tag}: `;
        break;
      }
      case "time":
        prefix = `${this.time(e.time)} ${e.level}/${tag}(${uid}${pid}): `;
        break;
      case "brief":
        prefix = `${e.level}/${tag}(${uid}${pid}): `;
        break;
      case "process":
        prefix = `${e.level}(${uid}${pid}) `;
        suffix = `  (${e.tag})\n`;
        break;
      case "thread":
        prefix = `${e.level}(${uid}${pid}:${String(e.tid).padStart(5)}) `;
        break;
      default:
        prefix = `${e.level}/${tag}: `;
    }
    if (!msg.includes("\n")) return prefix + msg + suffix;
    let out = "";
    for (const line of msg.split("\n")) out += prefix + line + suffix;
    return out;
  }
}
