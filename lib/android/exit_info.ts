/**
 * `dumpsys activity exit-info [<pkg>]` (PROTOCOLS §10): the device's process exit history,
 * Android 11+. Android 12+ prints three field lines per record; Android 11 prints one field per
 * line and no subreason. Both are read by finding the known keys in order. Pure functions.
 */

/** The most records one call returns (`limit` maximum). */
export const MAX_EXIT_RECORDS = 100;
/** Default `limit`. */
export const DEFAULT_EXIT_RECORDS = 20;
/** Records parsed from one dump before the rest are ignored (a dump holds a few hundred). */
const MAX_PARSED_EXIT_RECORDS = 5_000;
/** A description is cut to this many characters. */
const MAX_EXIT_DESCRIPTION_CHARS = 300;
/** First API level with `ApplicationExitInfo` (Android 11). */
export const EXIT_INFO_MIN_API = 30;

/** Reason codes (`ApplicationExitInfo.REASON_*`) that mean the app crashed or hung. */
const CRASH_REASONS: ReadonlySet<number> = new Set([4, 5, 6]);

interface ExitRecord {
  package: string | null;
  uid: number | null;
  timestamp: string | null;
  pid: number | null;
  real_uid: number | null;
  package_uid: number | null;
  defining_uid: number | null;
  user: number | null;
  process: string | null;
  reason_code: number | null;
  /** `APP CRASH(EXCEPTION)`, `ANR`, `USER REQUESTED`, … as the device names it. */
  reason: string | null;
  subreason_code: number | null;
  subreason: string | null;
  /** Exit code for EXIT_SELF, signal number for SIGNALED. */
  status: number | null;
  importance: number | null;
  pss: string | null;
  rss: string | null;
  description: string | null;
  state: string | null;
  trace: string | null;
}

export interface ExitInfoDump {
  records: ExitRecord[];
  /** More records were present than `MAX_PARSED_EXIT_RECORDS`. */
  truncated: boolean;
}

const KEYS = [
  "timestamp",
  "pid",
  "realUid",
  "packageUid",
  "definingUid",
  "user",
  "process",
  "reason",
  "subreason",
  "status",
  "importance",
  "pss",
  "rss",
  "description",
  "state",
  "trace",
] as const;
type Key = typeof KEYS[number];

function int(v: string | undefined): number | null {
  if (v === undefined) return null;
  const m = /^-?\d+/.exec(v.trim());
  return m === null ? null : Number(m[0]);
}

/** `4 (APP CRASH(EXCEPTION))` → code 4, name `APP CRASH(EXCEPTION)`. */
function codeAndName(v: string | undefined): { code: number | null; name: string | null } {
  if (v === undefined) return { code: null, name: null };
  const m = /^\s*(-?\d+)\s*(?:\((.*)\))?\s*$/.exec(v);
  if (m === null) return { code: null, name: v.trim() || null };
  return { code: Number(m[1]), name: m[2] === undefined ? null : m[2].trim() };
}

/** Splits one record's text into its fields: each key is searched after the previous one. */
function fields(body: string): Partial<Record<Key, string>> {
  const flat = body.replace(/\s*\r?\n\s*/g, " ").trim();
  const found: { key: Key; at: number; valueAt: number }[] = [];
  let from = 0;
  for (const key of KEYS) {
    // `description=` is free text: the `state=` after it is its last occurrence.
    const re = new RegExp(`(?:^|\\s)${key}=`, "g");
    let hit: RegExpExecArray | null = null;
    if (key === "state" || key === "trace") {
      re.lastIndex = from;
      for (let m = re.exec(flat); m !== null; m = re.exec(flat)) hit = m;
    } else {
      re.lastIndex = from;
      hit = re.exec(flat);
    }
    if (hit === null) continue;
    const at = hit.index;
    const valueAt = at + hit[0].length;
    found.push({ key, at, valueAt });
    from = valueAt;
  }
  const out: Partial<Record<Key, string>> = {};
  for (let i = 0; i < found.length; i++) {
    const end = i + 1 < found.length ? found[i + 1].at : flat.length;
    out[found[i].key] = flat.slice(found[i].valueAt, end).trim();
  }
  return out;
}

function toRecord(body: string, pkg: string | null, uid: number | null): ExitRecord {
  const f = fields(body);
  const reason = codeAndName(f.reason);
  const sub = codeAndName(f.subreason);
  const desc = f.description === undefined || f.description === "null"
    ? null
    : f.description.slice(0, MAX_EXIT_DESCRIPTION_CHARS);
  return {
    package: pkg,
    uid,
    timestamp: f.timestamp ?? null,
    pid: int(f.pid),
    real_uid: int(f.realUid),
    package_uid: int(f.packageUid),
    defining_uid: int(f.definingUid),
    user: int(f.user),
    process: f.process ?? null,
    reason_code: reason.code,
    reason: reason.name,
    subreason_code: sub.code,
    subreason: sub.name,
    status: int(f.status),
    importance: int(f.importance),
    pss: f.pss ?? null,
    rss: f.rss ?? null,
    description: desc,
    state: f.state ?? null,
    trace: f.trace === undefined || f.trace === "null" ? null : f.trace,
  };
}

/**
 * Parses a whole dump (a leading BOM and CRLF are tolerated). Records come back newest first
 * across packages (timestamps are `yyyy-MM-dd HH:mm:ss.SSS`, so they sort as text). Pure.
 */
export function parseExitInfo(text: string): ExitInfoDump {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const records: ExitRecord[] = [];
  let pkg: string | null = null;
  let uid: number | null = null;
  let body: string[] | null = null;
  let truncated = false;
  const flush = () => {
    if (body === null) return;
    if (records.length < MAX_PARSED_EXIT_RECORDS) records.push(toRecord(body.join("\n"), pkg, uid));
    else truncated = true;
    body = null;
  };
  for (const line of lines) {
    const p = /^\s*package: (\S+)\s*$/.exec(line);
    if (p !== null) {
      flush();
      pkg = p[1];
      uid = null;
      continue;
    }
    const u = /^\s*Historical Process Exit for uid=(\d+)/.exec(line);
    if (u !== null) {
      flush();
      uid = Number(u[1]);
      continue;
    }
    if (/^\s*ApplicationExitInfo #\d+:\s*$/.test(line)) {
      flush();
      body = [];
      continue;
    }
    if (body !== null) {
      if (line.trim() === "" || /^\S/.test(line)) flush();
      else (body as string[]).push(line);
    }
  }
  flush();
  // Stable sort: equal timestamps keep the device's order (newest first within a uid).
  const indexed = records.map((r, i) => ({ r, i }));
  indexed.sort((a, b) => {
    const ta = a.r.timestamp ?? "", tb = b.r.timestamp ?? "";
    return ta < tb ? 1 : ta > tb ? -1 : a.i - b.i;
  });
  return { records: indexed.map((x) => x.r), truncated };
}

/** Whether a record is a crash (Java or native) or an ANR. */
export function isCrashOrAnr(r: ExitRecord): boolean {
  return r.reason_code !== null && CRASH_REASONS.has(r.reason_code);
}

/**
 * One line per exit: time, reason, sub-reason, signal or exit status, process, importance,
 * memory, then the description. Pure.
 */
export function renderExitLine(r: ExitRecord): string {
  const parts: string[] = [r.timestamp ?? "unknown time"];
  parts.push(r.reason ?? (r.reason_code === null ? "unknown reason" : `reason ${r.reason_code}`));
  if (r.subreason !== null && r.subreason_code !== 0) parts.push(`(${r.subreason})`);
  if (r.status !== null && r.status !== 0) {
    parts.push(r.reason_code === 2 ? `signal ${r.status}` : `status ${r.status}`);
  }
  parts.push(`${r.process ?? "?"} pid ${r.pid ?? "?"}`);
  if (r.importance !== null) parts.push(`importance ${r.importance}`);
  const mem = [
    r.pss && r.pss !== "0.00" ? `pss ${r.pss}` : null,
    r.rss && r.rss !== "0.00" ? `rss ${r.rss}` : null,
  ].filter((x) => x !== null);
  if (mem.length > 0) parts.push(mem.join(" "));
  let line = parts.join(" · ");
  if (r.description !== null) line += ` — ${r.description}`;
  return line;
}
