/**
 * Standalone session records: each standalone `keynobi --mcp` writes
 * `<data dir>/mcp-sessions/<pid>.json` at start and removes it at exit, so `keynobi status` and
 * the app can list the servers running outside the app, with their versions.
 *
 * A server that crashed leaves its record behind, and its PID may later run something else, so
 * readers prune a record whose process is gone or whose PID now runs a different binary (Linux:
 * `/proc/<pid>` and the `/proc/<pid>/exe` link when Deno allows reading `/proc`; otherwise and
 * elsewhere `ps -p <pid> -o stat=,comm=`, with a timeout). When the process cannot be inspected
 * (another user's process, no `ps`), the record is kept.
 */
import { basename, join } from "node:path";
import { sessionsDir } from "../core/data_dir.ts";
import { writeFileAtomic } from "../core/file_lock.ts";

/** The single-slot PID file of older releases, deleted at start. */
export const LEGACY_PID_FILE = "mcp-server.pid";
/** Records a listing looks at; more files than this are left for a later listing. */
export const MAX_SESSION_RECORDS = 256;
/** A record file larger than this is not ours and is pruned. */
export const MAX_RECORD_BYTES = 16 * 1024;
/** How long `ps` may take to describe one process. */
export const PS_TIMEOUT_MS = 2_000;

export interface SessionRecord {
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
}

/** What the OS says about a PID. `binary: null` means it runs but cannot be inspected. */
export type ProcessProbe =
  | { state: "gone" }
  | { state: "running"; binary: string | null; nameOnly?: boolean };

export const sessionRecordPath = (dataDir: string, pid: number) =>
  join(sessionsDir(dataDir), `${pid}.json`);
export const legacyPidPath = (dataDir: string) => join(dataDir, LEGACY_PID_FILE);

/** The record for this process. */
export function currentSessionRecord(
  fields: { project: string | null; reason: string; version: string; argv0?: string },
  now = new Date(),
): SessionRecord {
  const record: SessionRecord = {
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
export async function writeSessionRecord(dataDir: string, record: SessionRecord): Promise<string> {
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
export async function removeLegacyPidFile(dataDir: string): Promise<void> {
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
export function parseSessionRecord(text: string, fileName: string): SessionRecord | null {
  const m = /^(\d{1,10})\.json$/.exec(fileName);
  if (!m) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  if (r.pid !== Number(m[1]) || typeof r.binary !== "string" || r.binary === "") return null;
  const record: SessionRecord = {
    pid: r.pid as number,
    started_at: typeof r.started_at === "string" ? r.started_at : "",
    project: typeof r.project === "string" ? r.project : null,
    reason: typeof r.reason === "string" ? r.reason : "",
    binary: r.binary,
    version: typeof r.version === "string" ? r.version : null,
  };
  if (typeof r.argv0 === "string") record.argv0 = r.argv0;
  return record;
}

/** `/proc/<pid>/exe` of a replaced binary reads `<path> (deleted)`. */
function stripDeleted(path: string): string {
  return path.endsWith(" (deleted)") ? path.slice(0, -" (deleted)".length) : path;
}

/** Linux `ps -o comm=` shows at most 15 characters of the name. */
const COMM_MAX_CHARS = 15;

/**
 * Why a record is stale, or `null` to keep it. `knownPaths` are the paths the record's binary is
 * known by (as recorded, and resolved through symlinks).
 */
export function staleReason(
  record: SessionRecord,
  probe: ProcessProbe,
  knownPaths: readonly string[] = [record.binary],
): string | null {
  if (probe.state === "gone") return `process ${record.pid} is gone`;
  if (probe.binary === null) return null;
  const running = stripDeleted(probe.binary);
  if (probe.nameOnly) {
    const name = basename(running);
    const same = knownPaths.some((p) => {
      const expected = basename(p);
      return expected === name ||
        (name.length >= COMM_MAX_CHARS && expected.startsWith(name));
    });
    return same ? null : `process ${record.pid} now runs ${name}`;
  }
  return knownPaths.map(stripDeleted).includes(running)
    ? null
    : `process ${record.pid} now runs ${running}`;
}

/**
 * Inspects `pid`. Linux: `/proc/<pid>` and its `exe` link. Deno lets only `--allow-all` read
 * `/proc`, and we launch with explicit `--allow-*` lists, so usually this falls back to
 * `ps -p <pid> -o stat=,comm=` (needs run access to `ps`), then on Linux `readlink` of the `exe`
 * link in a child process for the full path (run access to `readlink`).
 */
export async function probeProcess(pid: number): Promise<ProcessProbe> {
  const linux = Deno.build.os === "linux";
  if (linux) {
    try {
      return await probeWithProc(pid);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotCapable)) throw e;
    }
  }
  const probe = await probeWithPs(pid);
  if (!linux || probe.state !== "running" || probe.binary === null) return probe;
  const exe = await runText("readlink", ["-n", `/proc/${pid}/exe`]);
  return exe?.success && exe.text !== "" ? { state: "running", binary: exe.text } : probe;
}

/** `/proc` (or a folder laid out like it). Throws `NotCapable` without `--allow-all`. */
export async function probeWithProc(pid: number, procRoot = "/proc"): Promise<ProcessProbe> {
  try {
    await Deno.stat(join(procRoot, String(pid)));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { state: "gone" };
    if (e instanceof Deno.errors.NotCapable) throw e;
    return { state: "running", binary: null };
  }
  try {
    return { state: "running", binary: await Deno.readLink(join(procRoot, String(pid), "exe")) };
  } catch (e) {
    // A zombie (exited, not yet reaped) still has `/proc/<pid>` but no `exe` link.
    if (e instanceof Deno.errors.NotFound) return { state: "gone" };
    if (e instanceof Deno.errors.NotCapable) throw e;
    return { state: "running", binary: null };
  }
}

/** Parses `ps -o stat=,comm=`: a zombie (`Z`) counts as gone. */
export function parsePsLine(output: string): ProcessProbe {
  const line = output.trim().split("\n")[0] ?? "";
  const m = /^(\S+)\s+(.+)$/.exec(line.trim());
  if (!m) return { state: "gone" };
  if (m[1].startsWith("Z")) return { state: "gone" };
  return { state: "running", binary: m[2].trim(), nameOnly: true };
}

/** `ps -p <pid> -o stat=,comm=` (POSIX). No `ps`, or one that hangs, keeps the record. */
export async function probeWithPs(pid: number, timeoutMs = PS_TIMEOUT_MS): Promise<ProcessProbe> {
  const out = await runText("ps", ["-p", String(pid), "-o", "stat=,comm="], timeoutMs);
  if (out === null) return { state: "running", binary: null };
  if (out.text.trim() === "") {
    return out.success ? { state: "running", binary: null } : { state: "gone" };
  }
  return parsePsLine(out.text);
}

/** Runs a small command with a timeout; `null` when it cannot run or times out. */
async function runText(
  command: string,
  args: string[],
  timeoutMs = PS_TIMEOUT_MS,
): Promise<{ success: boolean; text: string } | null> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const output = await new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal,
    }).output();
    // A command killed by the timeout says nothing about the process: keep the record.
    if (signal.aborted) return null;
    return { success: output.success, text: new TextDecoder().decode(output.stdout) };
  } catch {
    return null;
  }
}

export interface ListOptions {
  /** How to inspect a PID (tests pass a fake). */
  probe?: (pid: number) => Promise<ProcessProbe>;
}

/** The records of running standalone servers, sorted by start; stale ones are deleted. */
export async function listSessionRecords(
  dataDir: string,
  options: ListOptions = {},
): Promise<SessionRecord[]> {
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
  const live: SessionRecord[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const record = await readRecord(path, name);
    if (record === undefined) continue; // vanished meanwhile
    if (record === null) {
      await removeIfPresent(path);
      continue;
    }
    const known = [record.binary];
    const real = await Deno.realPath(record.binary).catch(() => null);
    if (real && real !== record.binary) known.push(real);
    if (staleReason(record, await probe(record.pid), known) !== null) {
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
async function readRecord(path: string, name: string): Promise<SessionRecord | null | undefined> {
  try {
    const info = await Deno.stat(path);
    if (info.size > MAX_RECORD_BYTES) return null;
    return parseSessionRecord(await Deno.readTextFile(path), name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}
