/**
 * The activity log: `mcp-activity.jsonl` in the data directory, one JSON line per lifecycle event,
 * tool call, prompt or resource read, and per action the user took in the dashboard. Arguments are never logged: the API does not take them.
 *
 * The app (`keynobi app`) and every standalone server append to the same file, so appends,
 * rotation and clearing all hold one cross-process lock (`mcp-activity.lock`). Rotation writes
 * the kept lines to a temp file and renames it over the log; appenders take the same lock, so no
 * line is appended to a file being replaced, and each line goes out in one write, so none is torn.
 */
import { join } from "../core/path.ts";
import { activityLogPath } from "../core/data_dir.ts";
import { withFileLock, writeFileAtomic } from "../core/file_lock.ts";
import { parseJsonRecord } from "../core/json.ts";
import { log } from "../core/log.ts";

/** The log is rotated once it grows past this. */
export const ROTATE_THRESHOLD_BYTES = 256 * 1024;
/** Entries rotation keeps (the newest). */
export const ROTATE_KEEP = 500;
/** A summary is at most this many bytes of UTF-8, the `…` included. */
export const SUMMARY_MAX_BYTES = 120;
/** A name (tool, prompt, resource URI) is cut to this many bytes. */
const NAME_MAX_BYTES = 200;
/** A session id is cut to this many bytes. */
const SESSION_MAX_BYTES = 100;
/** `read()` returns this many entries by default … */
const READ_DEFAULT_ENTRIES = 200;
/** … and at most this many. */
export const READ_MAX_ENTRIES = 2_000;
/** Reads and rotation look only at this much of the end of the file. */
const READ_TAIL_MAX_BYTES = 2 * 1024 * 1024;
/**
 * Entries waiting in this process for the next batched write. A burst is written in one write per
 * batch; only past this many waiting entries is one dropped, and the drops are counted in the log
 * itself (one `activity_log` entry saying how many) as soon as a write succeeds.
 */
export const MAX_PENDING_ENTRIES = 20_000;

/** `user`: something the user did in the app's dashboard (lib/dashboard/actions.ts). */
const ACTIVITY_KINDS = ["lifecycle", "tool", "prompt", "resource", "user"] as const;
type ActivityKind = typeof ACTIVITY_KINDS[number];
const ACTIVITY_STATUSES = ["ok", "error", "refused"] as const;
type ActivityStatus = typeof ACTIVITY_STATUSES[number];

/** One line of the log. */
export interface ActivityEntry {
  /** ISO 8601 time the event ended. */
  at: string;
  kind: ActivityKind;
  name: string;
  duration_ms: number;
  status: ActivityStatus;
  summary: string;
  pid: number;
  session?: string;
}

/** What a caller records: no arguments, only the outcome. `at` defaults to now. */
export interface ActivityRecord {
  kind: ActivityKind;
  name: string;
  duration_ms: number;
  status: ActivityStatus;
  /** A rendering of the result; cut to `SUMMARY_MAX_BYTES` and redacted. */
  summary: string;
  /**
   * The call's argument values: never written, only scrubbed out of the summary (each occurrence
   * becomes `‹arg›`), so no argument value reaches the log even when a result echoes it.
   */
  argument_values?: readonly string[];
  /**
   * Those of `argument_values` this process's dashboard page may show in the summary (a device
   * serial, a package name: not secrets). The file still gets `‹arg›` for them.
   */
  shown_values?: readonly string[];
  session?: string;
  at?: Date;
}

/** Summaries with shown values kept for this process's dashboard page (oldest forgotten). */
const MAX_PAGE_SUMMARIES = 2_000;
/** The arguments a page may show: a device and a package, in the shapes they must have. */
const SHOWN_ARGUMENTS: Record<string, RegExp> = {
  device_serial: /^[A-Za-z0-9._:\-]{1,128}$/,
  package: /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/,
};

/** The device and package values of a call's arguments that the page may show. Pure. */
export function shownArguments(args: unknown): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  const out: string[] = [];
  for (const [name, shape] of Object.entries(SHOWN_ARGUMENTS)) {
    const v = (args as Record<string, unknown>)[name];
    if (typeof v === "string" && shape.test(v)) out.push(v);
  }
  return out;
}

/** The key of an entry in the page's summaries: its line's identity. */
function pageKey(e: ActivityEntry): string {
  return JSON.stringify([e.at, e.pid, e.session ?? null, e.kind, e.name]);
}

interface ActivityLogOptions {
  pid: number;
  /** Where failures go; default the stderr logger. Appending never throws. */
  warn?: (message: string) => void;
}

const activityLockPath = (dataDir: string) => join(dataDir, "mcp-activity.lock");

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `text` cut to at most `maxBytes` of UTF-8 at a code point boundary, `…` counted inside. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (encoder.encode(text).length <= maxBytes) return text;
  const ellipsis = "…";
  let budget = maxBytes - encoder.encode(ellipsis).length;
  if (budget < 0) return "";
  let out = "";
  for (const ch of text) {
    const size = utf8Size(ch.codePointAt(0)!);
    if (size > budget) break;
    budget -= size;
    out += ch;
  }
  return out + ellipsis;
}

function utf8Size(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * Secrets that show up in results (a token in a URL, a password in a Gradle property, a bearer
 * header) are masked before a summary is kept. The spec leaves summaries unredacted (a known gap).
 */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [redacted]"],
  [
    /\b([\w.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|credentials?)[\w.-]*)(["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)/gi,
    "$1$2[redacted]",
  ],
  [/\b(https?:\/\/)[^\s/:@]+:[^\s/@]+@/gi, "$1[redacted]@"],
];

export function redactSummary(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** One line: whitespace runs collapsed, secrets masked, then cut to `SUMMARY_MAX_BYTES`. */
export function summarize(text: string): string {
  return cutUtf8(redactSummary(text.replace(/\s+/g, " ").trim()), SUMMARY_MAX_BYTES);
}

/** What an argument value becomes in a summary. */
const ARGUMENT_MARK = "‹arg›";
/** Argument values shorter than this are left (a flag, a small number: not a value to hide). */
const MIN_SCRUBBED_VALUE_CHARS = 3;
/** At most this many argument values are scrubbed per entry (longest first). */
const MAX_SCRUBBED_VALUES = 64;

/**
 * `text` with every argument value (as given, and as JSON would escape it) replaced by
 * `ARGUMENT_MARK`; for a refusal or an error, every quoted span too (`"…"`), since refusals echo
 * what was passed, possibly cut. Pure.
 */
function scrubArguments(
  text: string,
  values: readonly string[],
  status: ActivityStatus,
): string {
  const forms = new Set<string>();
  for (const v of values) {
    if (typeof v !== "string" || v.length < MIN_SCRUBBED_VALUE_CHARS) continue;
    forms.add(v);
    forms.add(JSON.stringify(v).slice(1, -1));
  }
  let out = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length).slice(0, MAX_SCRUBBED_VALUES)) {
    out = out.split(form).join(ARGUMENT_MARK);
  }
  if (status !== "ok") out = out.replace(/"(?:[^"\\]|\\.)*"?/g, '"…"');
  return out;
}

/** Every string inside `value` (objects and arrays walked, at most `MAX_SCRUBBED_VALUES`). Pure. */
export function argumentStrings(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (out.length >= MAX_SCRUBBED_VALUES || depth > 8) return;
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) { for (const x of v) walk(x, depth + 1); }
    else if (typeof v === "object" && v !== null) {
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(value, 0);
  return out;
}

/**
 * A resource URI reduced to its shape: `scheme://name` when the authority is a plain resource
 * name (`android://manifest`), the scheme alone otherwise; a query or fragment becomes `?…`/`#…`.
 * Pure.
 */
export function uriShape(uri: string): string {
  const m = /^([a-z][a-z0-9+.-]{0,31}):(\/\/)?([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(uri);
  if (!m) return "‹uri›";
  const [, scheme, slashes, rest, query, fragment] = m;
  const plain = /^[a-z0-9-]{1,64}$/i.test(rest);
  return `${scheme.toLowerCase()}:${slashes ?? ""}${plain ? rest : "…"}` + (query ? "?…" : "") +
    (fragment ? "#…" : "");
}

/**
 * The summary of `entry` (made by toEntry from `record`) as this process's dashboard page shows
 * it: the shown values (device, package) kept, every other argument still `‹arg›`; `null` when it
 * is the same. Pure.
 */
function pageSummaryOf(record: ActivityRecord, entry: ActivityEntry): string | null {
  const shown = record.shown_values ?? [];
  if (shown.length === 0 || entry.kind !== "tool") return null;
  const hidden = (record.argument_values ?? []).filter((v) => !shown.includes(v));
  const page = summarize(scrubArguments(String(record.summary ?? ""), hidden, entry.status));
  return page === entry.summary ? null : page;
}

/** The entry as written: only known fields, bounded, whatever the caller passed. */
export function toEntry(record: ActivityRecord, pid: number, now = new Date()): ActivityEntry {
  const at = record.at instanceof Date && !Number.isNaN(record.at.getTime()) ? record.at : now;
  const duration = Number.isFinite(record.duration_ms)
    ? Math.max(0, Math.round(record.duration_ms))
    : 0;
  const entry: ActivityEntry = {
    at: at.toISOString(),
    kind: ACTIVITY_KINDS.includes(record.kind) ? record.kind : "lifecycle",
    name: "",
    duration_ms: duration,
    status: ACTIVITY_STATUSES.includes(record.status) ? record.status : "error",
    summary: "",
    pid,
  };
  const rawName = String(record.name);
  entry.name = cutUtf8(
    (entry.kind === "resource" ? uriShape(rawName) : rawName).replace(/\s+/g, " "),
    NAME_MAX_BYTES,
  );
  // A resource's URI is its argument: it is scrubbed from the summary like any other.
  const values = [...(record.argument_values ?? [])];
  if (entry.kind === "resource") values.push(rawName);
  entry.summary = summarize(scrubArguments(String(record.summary ?? ""), values, entry.status));

  if (typeof record.session === "string" && record.session !== "") {
    entry.session = cutUtf8(record.session, SESSION_MAX_BYTES);
  }
  return entry;
}

/** Parses one line; `null` for a torn, foreign or malformed line. */
export function parseEntry(line: string): ActivityEntry | null {
  if (line.trim() === "") return null;
  const e = parseJsonRecord(line);
  if (e === null) return null;
  if (
    typeof e.at !== "string" || typeof e.name !== "string" || typeof e.summary !== "string" ||
    typeof e.duration_ms !== "number" || typeof e.pid !== "number" ||
    !ACTIVITY_KINDS.includes(e.kind as ActivityKind) ||
    !ACTIVITY_STATUSES.includes(e.status as ActivityStatus)
  ) return null;
  const entry: ActivityEntry = {
    at: e.at,
    kind: e.kind as ActivityKind,
    name: e.name,
    duration_ms: e.duration_ms,
    status: e.status as ActivityStatus,
    summary: e.summary,
    pid: e.pid,
  };
  if (typeof e.session === "string") entry.session = e.session;
  return entry;
}

/** The last `keep` non-empty lines of `text`, each with its newline. */
export function lastLines(text: string, keep: number): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const kept = lines.slice(Math.max(0, lines.length - keep));
  return kept.length === 0 ? "" : kept.join("\n") + "\n";
}

/** The end of the file as text, from the first whole line within `READ_TAIL_MAX_BYTES`. */
async function readTail(path: string): Promise<string> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "";
    throw e;
  }
  try {
    const { size } = await file.stat();
    const start = Math.max(0, size - READ_TAIL_MAX_BYTES);
    await file.seek(start, Deno.SeekMode.Start);
    const buf = new Uint8Array(size - start);
    let filled = 0;
    while (filled < buf.length) {
      const n = await file.read(buf.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    let text = decoder.decode(buf.subarray(0, filled));
    if (start > 0) text = text.slice(text.indexOf("\n") + 1);
    return text;
  } finally {
    file.close();
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return 0;
    throw e;
  }
}

export class ActivityLog {
  readonly path: string;
  readonly lockPath: string;
  readonly #pid: number;
  readonly #warn: (message: string) => void;
  /** Lines waiting for the next batch. */
  #pending: string[] = [];
  /** Summaries with devices and packages shown, by `pageKey`, for the dashboard page only. */
  #pageSummaries = new Map<string, string>();
  /** Entries dropped or lost (a failed write) since the last successful write. */
  #lost = 0;
  /** Settles when the batch that holds the pending lines is written. */
  #next: PromiseWithResolvers<void> | null = null;
  #writing = false;

  constructor(dataDir: string, options: ActivityLogOptions) {
    this.path = activityLogPath(dataDir);
    this.lockPath = activityLockPath(dataDir);
    this.#pid = options.pid;
    this.#warn = options.warn ?? ((m) => log.warn(m));
  }

  /**
   * Appends one entry and rotates when the log passed `ROTATE_THRESHOLD_BYTES`. Entries that
   * arrive while a write is running are written together in the next one (one lock, one write).
   * Never rejects: a failure is logged to stderr. Resolves once the entry's batch is written.
   */
  /** The summary this process's dashboard page shows for `e` (devices and packages kept). */
  pageSummary(e: ActivityEntry): string | null {
    return this.#pageSummaries.get(pageKey(e)) ?? null;
  }

  append(record: ActivityRecord): Promise<void> {
    let line: string;
    try {
      const entry = toEntry(record, this.#pid);
      const page = pageSummaryOf(record, entry);
      if (page !== null) {
        this.#pageSummaries.set(pageKey(entry), page);
        if (this.#pageSummaries.size > MAX_PAGE_SUMMARIES) {
          this.#pageSummaries.delete(this.#pageSummaries.keys().next().value!);
        }
      }
      line = JSON.stringify(entry) + "\n";
    } catch (e) {
      this.#warn(`Cannot record activity: ${errorText(e)}`);
      return Promise.resolve();
    }
    if (this.#pending.length >= MAX_PENDING_ENTRIES) {
      if (this.#lost === 0) {
        this.#warn(
          `Cannot record activity: ${MAX_PENDING_ENTRIES} entries are waiting for the log; ` +
            "dropping entries and counting them in the log (check that the data directory is " +
            "writable)",
        );
      }
      this.#lost++;
    } else {
      this.#pending.push(line);
    }
    this.#next ??= Promise.withResolvers<void>();
    const done = this.#next.promise;
    if (!this.#writing) void this.#drain();
    return done;
  }

  /** Writes batches until nothing is pending. Only one runs at a time. */
  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#next !== null) {
        const batch = this.#next;
        this.#next = null;
        const lines = this.#pending;
        this.#pending = [];
        const lost = this.#lost;
        if (lost > 0) lines.push(JSON.stringify(this.#lostEntry(lost)) + "\n");
        try {
          await this.#locked(async () => {
            await Deno.writeTextFile(this.path, lines.join(""), {
              append: true,
              create: true,
              mode: 0o600,
            });
            await this.#rotateLocked();
          });
          this.#lost -= lost;
        } catch (e) {
          this.#lost += lines.length - (lost > 0 ? 1 : 0);
          this.#warn(`Cannot append to the activity log ${this.path}: ${errorText(e)}`);
        }
        batch.resolve();
      }
    } finally {
      this.#writing = false;
    }
  }

  #lostEntry(count: number): ActivityEntry {
    return toEntry({
      kind: "lifecycle",
      name: "activity_log",
      duration_ms: 0,
      status: "error",
      summary: `${count} activity entries of this process were not written (dropped or failed)`,
    }, this.#pid);
  }

  /** The newest `limit` entries (default 200, at most 2,000), oldest first. */
  async read(limit: number = READ_DEFAULT_ENTRIES): Promise<ActivityEntry[]> {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`Cannot read activity: limit ${limit} is not a positive integer`);
    }
    const n = Math.min(limit, READ_MAX_ENTRIES);
    const text = await readTail(this.path);
    const entries: ActivityEntry[] = [];
    for (const line of text.split("\n")) {
      const entry = parseEntry(line);
      if (entry) entries.push(entry);
    }
    return entries.slice(Math.max(0, entries.length - n));
  }

  /** Rotates when the log is past the threshold (call at standalone start). */
  async rotateIfNeeded(): Promise<void> {
    await this.#locked(() => this.#rotateLocked());
  }

  /** Empties the log. */
  async clear(): Promise<void> {
    await this.#locked(async () => {
      if ((await fileSize(this.path)) === 0) return;
      await writeFileAtomic(this.path, "");
    });
  }

  /** `withFileLock` also creates the data directory (0700) when it is missing. */
  #locked<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(this.lockPath, fn);
  }

  /** Caller holds the lock. */
  async #rotateLocked(): Promise<void> {
    if ((await fileSize(this.path)) <= ROTATE_THRESHOLD_BYTES) return;
    const kept = lastLines(await readTail(this.path), ROTATE_KEEP);
    await writeFileAtomic(this.path, kept);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
