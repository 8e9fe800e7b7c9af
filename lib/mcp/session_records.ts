/**
 * Standalone session records: each standalone `keynobi --mcp` writes
 * `<data dir>/mcp-sessions/<pid>.json` at start and removes it at exit, so `keynobi status` and
 * the app can list the servers running outside the app, with their versions.
 *
 * A server that crashed leaves its record behind, and its PID may later run something else, so
 * readers prune a record whose process is gone or whose PID now runs a different binary
 * (lib/core/process_probe.ts). When the process cannot be inspected (another user's process, no
 * `ps`), the record is kept.
 */
import { join } from "../core/path.ts";
import { sessionsDir } from "../core/data_dir.ts";
import { writeFileAtomic } from "../core/file_lock.ts";
import { parseJsonRecord } from "../core/json.ts";
import { probeProcess, type ProcessProbe, staleProcessReason } from "../core/process_probe.ts";

/** The single-slot PID file of older releases, deleted at start. */
const LEGACY_PID_FILE = "mcp-server.pid";
/** Records a listing looks at; more files than this are left for a later listing. */
const MAX_SESSION_RECORDS = 256;
/** A record file larger than this is not ours and is pruned. */
const MAX_RECORD_BYTES = 16 * 1024;

export interface McpSessionRecord {
  pid: number;
  /** ISO 8601. */
  started_at: string;
  /** The project this server serves, or `null`. */
  project: string | null;
  /** Why it runs standalone ("the Keynobi app is not running", …). */
  reason: string;
  /** The executable: `Deno.execPath()` (the compiled binary, or `deno` when run from source). */
  binary: string;
  /** The binary's version; `null` in a record an older release wrote. */
  version: string | null;
  /** `argv[0]` as launched, when it differs from `binary` (a symlink on PATH). */
  argv0?: string;
  /** The streamable-HTTP endpoint (`--http`), once it listens: the port 0 chose shows here. */
  http_url?: string;
}

/** Longest `http_url` a record keeps (a longer one is not ours and is dropped). */
const MAX_HTTP_URL_CHARS = 300;

export const sessionRecordPath = (dataDir: string, pid: number) =>
  join(sessionsDir(dataDir), `${pid}.json`);
export const legacyPidPath = (dataDir: string) => join(dataDir, LEGACY_PID_FILE);

/** The record for this process. */
export function currentMcpSessionRecord(
  fields: { project: string | null; reason: string; version: string; argv0?: string },
  now = new Date(),
): McpSessionRecord {
  const record: McpSessionRecord = {
    pid: Deno.pid,
    started_at: now.toISOString(),
    project: fields.project,
    reason: fields.reason,
    binary: Deno.execPath(),
    version: fields.version,
  };
  if (fields.argv0 && fields.argv0 !== record.binary) record.argv0 = fields.argv0;
  return record;
}

/** Writes `mcp-sessions/<pid>.json` (0600, atomically) and deletes the legacy PID file. */
export async function writeSessionRecord(
  dataDir: string,
  record: McpSessionRecord,
): Promise<string> {
  if (!Number.isSafeInteger(record.pid) || record.pid <= 0) {
    throw new RangeError(`Cannot write session record: ${record.pid} is not a process id`);
  }
  await Deno.mkdir(sessionsDir(dataDir), { recursive: true, mode: 0o700 });
  const path = sessionRecordPath(dataDir, record.pid);
  await writeFileAtomic(path, JSON.stringify(record, null, 2) + "\n");
  await removeLegacyPidFile(dataDir);
  return path;
}

/** Deletes `mcp-server.pid` of older releases; a missing file is fine. */
async function removeLegacyPidFile(dataDir: string): Promise<void> {
  await removeIfPresent(legacyPidPath(dataDir));
}

/** Removes this (or `pid`'s) record at exit; a missing record is fine. */
export async function removeSessionRecord(dataDir: string, pid = Deno.pid): Promise<void> {
  await removeIfPresent(sessionRecordPath(dataDir, pid));
}

async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

/** Parses a record file named `<pid>.json`; `null` when it is not a valid record for that PID. */
export function parseMcpSessionRecord(text: string, fileName: string): McpSessionRecord | null {
  const m = /^(\d{1,10})\.json$/.exec(fileName);
  if (!m) return null;
  const v = parseJsonRecord(text);
  if (v === null) return null;
  const r = v as Record<string, unknown>;
  if (r.pid !== Number(m[1]) || typeof r.binary !== "string" || r.binary === "") return null;
  const record: McpSessionRecord = {
    pid: r.pid as number,
    started_at: typeof r.started_at === "string" ? r.started_at : "",
    project: typeof r.project === "string" ? r.project : null,
    reason: typeof r.reason === "string" ? r.reason : "",
    binary: r.binary,
    version: typeof r.version === "string" ? r.version : null,
  };
  if (typeof r.argv0 === "string") record.argv0 = r.argv0;
  if (
    typeof r.http_url === "string" && /^https?:\/\//.test(r.http_url) &&
    r.http_url.length <= MAX_HTTP_URL_CHARS
  ) record.http_url = r.http_url;
  return record;
}

interface ListOptions {
  /** How to inspect a PID (tests pass a fake). */
  probe?: (pid: number) => Promise<ProcessProbe>;
}

/** The records of running standalone servers, sorted by start; stale ones are deleted. */
export async function listSessionRecords(
  dataDir: string,
  options: ListOptions = {},
): Promise<McpSessionRecord[]> {
  const probe = options.probe ?? probeProcess;
  const dir = sessionsDir(dataDir);
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".json")) continue;
      names.push(entry.name);
      if (names.length >= MAX_SESSION_RECORDS) break;
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const live: McpSessionRecord[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const record = await readRecord(path, name);
    if (record === undefined) continue; // vanished meanwhile
    if (record === null) {
      await removeIfPresent(path);
      continue;
    }
    if (await staleProcessReason(record, probe) !== null) {
      await removeIfPresent(path);
      continue;
    }
    live.push(record);
  }
  return live.sort((a, b) => a.started_at.localeCompare(b.started_at) || a.pid - b.pid);
}

/** Deletes stale records; returns how many records remain. */
export async function pruneStaleSessionRecords(
  dataDir: string,
  options: ListOptions = {},
): Promise<number> {
  return (await listSessionRecords(dataDir, options)).length;
}

/** `undefined` when the file is gone, `null` when it is not a valid record. */
async function readRecord(
  path: string,
  name: string,
): Promise<McpSessionRecord | null | undefined> {
  try {
    const info = await Deno.stat(path);
    if (info.size > MAX_RECORD_BYTES) return null;
    return parseMcpSessionRecord(await Deno.readTextFile(path), name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}
