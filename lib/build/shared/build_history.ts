/**
 * The build history, `<data dir>/build-history.json`, shared by every keynobi process (the app and
 * standalone servers): who started each build, how it ended, its diagnostics, APKs, provenance and
 * log. Every read-modify-write holds `build-history.lock` (`withFileLock`) and replaces the file
 * atomically, so concurrent processes lose no record and ids stay unique and increasing.
 *
 * Readers that only look do not take the lock (the file is always whole thanks to the rename).
 * A file that cannot be parsed is moved aside as `build-history.json.corrupt-<time>` with a
 * warning, and a fresh history starts after the highest id that can still be seen. What one
 * record holds, and how a record read back is checked, is build_record.ts.
 */
import { join } from "../../core/path.ts";
import { buildHistoryPath } from "../../core/data_dir.ts";
import { withFileLock, writeFileAtomic } from "../../core/file_lock.ts";
import { parseJsonRecord } from "../../core/json.ts";
import { log } from "../../core/log.ts";
import { canonicalPathOrResolved } from "../../core/project_paths.ts";
import {
  knownBinaryPaths,
  probeProcess,
  type ProcessProbe,
  staleReason,
} from "../../core/process_probe.ts";
import {
  type BuildLogInfo,
  buildLogPath,
  maxLogId,
  pruneBuildLogs,
  removeBuildLogs,
} from "./build_log.ts";
import type { BuiltApk } from "./built_apks.ts";
import type { Provenance } from "./provenance.ts";
import type { BuildMapping } from "../../retrace/shared/mapping_store.ts";
import {
  BuildKind,
  type BuildRecord,
  BuildStatus,
  type FinishedStatus,
  isBuildStatus,
  normalizeRecord,
  type Origin,
} from "./build_record.ts";

/** Records kept; the oldest are dropped, with their logs. */
export const MAX_BUILD_RECORDS = 200;
/** `listBuildRecords` default count. */
const DEFAULT_BUILD_LIST_LIMIT = 20;
/** A history file larger than this is treated as corrupt. */
const MAX_HISTORY_FILE_BYTES = 64 * 1024 * 1024;
/** The format version written in the file. */
const HISTORY_VERSION = 1;
/** The reason recorded for a build whose keynobi process went away. */
export const ORPHANED_REASON = "keynobi stopped before the build finished";

interface HistoryState {
  version: number;
  next_id: number;
  /** Oldest first. */
  records: BuildRecord[];
}

const buildHistoryLockPath = (dataDir: string) => join(dataDir, "build-history.lock");

/** The canonical path of a project root (symlinks resolved), or its absolute path. */
export { canonicalPathOrResolved as canonicalProjectRoot };

/** `o` without the keys whose value is `undefined` (so a patch never erases by omission). Pure. */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The history in `text`, or `null` when it is not one (corrupt). Pure. */
export function parseHistory(text: string, dataDir: string): HistoryState | null {
  const v = parseJsonRecord(text);
  if (v === null || !Array.isArray(v.records)) return null;
  const byId = new Map<number, BuildRecord>();
  for (const raw of v.records) {
    const r = normalizeRecord(raw, dataDir);
    if (r !== null) byId.set(r.id, r);
  }
  const records = [...byId.values()].sort((a, b) => a.id - b.id);
  const maxId = records.at(-1)?.id ?? 0;
  const nextId = Math.max(Number.isSafeInteger(v.next_id) ? v.next_id as number : 1, maxId + 1, 1);
  return { version: HISTORY_VERSION, next_id: nextId, records };
}

// ---- File access ----

type Loaded =
  | { kind: "ok"; state: HistoryState }
  | { kind: "absent" }
  | { kind: "corrupt"; why: string; text: string };

const emptyState = (nextId = 1): HistoryState => ({
  version: HISTORY_VERSION,
  next_id: nextId,
  records: [],
});

async function load(dataDir: string): Promise<Loaded> {
  const path = buildHistoryPath(dataDir);
  let text: string;
  try {
    const info = await Deno.stat(path);
    if (info.size > MAX_HISTORY_FILE_BYTES) {
      return {
        kind: "corrupt",
        why: `it is larger than ${MAX_HISTORY_FILE_BYTES} bytes`,
        text: "",
      };
    }
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "absent" };
    throw e;
  }
  const state = parseHistory(text, dataDir);
  return state ? { kind: "ok", state } : {
    kind: "corrupt",
    why: "it is not valid JSON or not a build history",
    text,
  };
}

/** The time as a file-name-safe stamp. Pure. */
export function fileStamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, "-");
}

/** Under the lock: moves a corrupt file aside and returns a fresh state. */
async function recoverCorrupt(
  dataDir: string,
  loaded: Extract<Loaded, { kind: "corrupt" }>,
): Promise<HistoryState> {
  const path = buildHistoryPath(dataDir);
  let aside = `${path}.corrupt-${fileStamp(new Date())}`;
  if (await Deno.lstat(aside).then(() => true, () => false)) {
    aside += `-${crypto.randomUUID().slice(0, 8)}`;
  }
  await Deno.rename(path, aside);
  log.warn(
    `Build history ${path} could not be read (${loaded.why}); moved it to ${aside} ` +
      "and started a fresh history",
  );
  // Keep ids increasing past anything still visible, so no new build reuses an old log name.
  const salvaged = /"next_id"\s*:\s*(\d{1,15})/.exec(loaded.text);
  const next = Math.max(salvaged ? Number(salvaged[1]) : 1, (await maxLogId(dataDir)) + 1, 1);
  return emptyState(next);
}

/** Reads the history for looking only; a corrupt file is repaired under the lock. */
async function readState(dataDir: string): Promise<HistoryState> {
  const loaded = await load(dataDir);
  if (loaded.kind === "ok") return loaded.state;
  if (loaded.kind === "absent") return emptyState();
  return await mutate(dataDir, (state) => ({ result: state, changed: false }));
}

interface Mutation<T> {
  result: T;
  changed: boolean;
}

/** Runs `fn` on the current history under the lock and writes it back when changed. */
async function mutate<T>(
  dataDir: string,
  fn: (state: HistoryState) => Mutation<T> | Promise<Mutation<T>>,
): Promise<T> {
  return await withFileLock(buildHistoryLockPath(dataDir), async () => {
    const loaded = await load(dataDir);
    let state: HistoryState;
    let recovered = false;
    if (loaded.kind === "ok") state = loaded.state;
    else if (loaded.kind === "absent") state = emptyState();
    else {
      state = await recoverCorrupt(dataDir, loaded);
      recovered = true;
    }
    const { result, changed } = await fn(state);
    let dropped: number[] = [];
    if (state.records.length > MAX_BUILD_RECORDS) {
      dropped = dropOldest(state, MAX_BUILD_RECORDS);
    }
    if (changed || recovered || dropped.length > 0) {
      await writeFileAtomic(buildHistoryPath(dataDir), JSON.stringify(state) + "\n");
    }
    if (dropped.length > 0 || recovered) {
      await removeBuildLogs(dataDir, dropped);
      await pruneBuildLogs(dataDir, new Set(state.records.map((r) => r.id)));
    }
    return result;
  });
}

/**
 * Drops records beyond `max`, oldest first, finished builds before running ones; returns the
 * dropped ids. Mutates `state`. Pure otherwise.
 */
export function dropOldest(state: { records: BuildRecord[] }, max: number): number[] {
  const excess = state.records.length - max;
  if (excess <= 0) return [];
  const finished = state.records.filter((r) => r.status !== BuildStatus.running);
  const victims = new Set(finished.slice(0, excess).map((r) => r.id));
  for (const r of state.records) {
    if (victims.size >= excess) break;
    victims.add(r.id);
  }
  state.records = state.records.filter((r) => !victims.has(r.id));
  return [...victims].sort((a, b) => a - b);
}

// ---- API ----

interface NewBuildRecord {
  project: string;
  task: string;
  tasks?: string[];
  variant?: string | null;
  module?: string | null;
  kind?: BuildKind;
  origin: Origin;
  provenance?: Provenance | null;
  gradle_pid?: number | null;
  started_at?: Date;
  /** The keynobi process running the build; default this one (`Deno.pid`). */
  pid?: number;
  /** Its executable; default `Deno.execPath()`. */
  binary?: string;
}

/** Adds a running build and returns it with its new id. */
export async function startBuildRecord(
  dataDir: string,
  fields: NewBuildRecord,
): Promise<BuildRecord> {
  const project = await canonicalPathOrResolved(fields.project);
  return await mutate(dataDir, (state) => {
    const id = state.next_id;
    const record = normalizeRecord({
      id,
      project,
      task: fields.task,
      tasks: fields.tasks ?? [fields.task],
      variant: fields.variant ?? null,
      module: fields.module ?? null,
      kind: fields.kind ?? BuildKind.gradleTask,
      status: BuildStatus.running,
      started_at: (fields.started_at ?? new Date()).toISOString(),
      origin: fields.origin,
      pid: fields.pid ?? Deno.pid,
      binary: fields.binary ?? Deno.execPath(),
      gradle_pid: fields.gradle_pid ?? null,
      provenance: fields.provenance ?? null,
      log: { path: buildLogPath(dataDir, id), bytes: 0, lines: 0, truncated: false },
    }, dataDir)!;
    state.next_id = id + 1;
    state.records.push(record);
    return { result: record, changed: true };
  });
}

/** Fields a running or finishing build may change. */
interface BuildRecordPatch {
  status?: BuildStatus;
  /** A date or an ISO 8601 string. */
  finished_at?: Date | string;
  duration_ms?: number | null;
  exit_code?: number | null;
  summary?: string;
  error_count?: number;
  warning_count?: number;
  diagnostics?: unknown[];
  failed_tasks?: string[];
  cancelled_by?: Origin | null;
  reason?: string | null;
  gradle_pid?: number | null;
  apks?: BuiltApk[];
  mappings?: BuildMapping[];
  provenance?: Provenance | null;
  log?: BuildLogInfo;
}

function toDate(v: Date | string): Date {
  const d = typeof v === "string" ? new Date(v) : v;
  if (Number.isNaN(d.getTime())) throw new RangeError(`Not a date: ${String(v)}`);
  return d;
}

/**
 * Records how build `id` ended. `finished_at` defaults to now and `duration_ms` to the time since
 * it started. Returns the record, or `null` when it is no longer kept.
 */
export async function finishBuildRecord(
  dataDir: string,
  id: number,
  patch: BuildRecordPatch & { status: FinishedStatus },
): Promise<BuildRecord | null> {
  if ((patch.status as string) === BuildStatus.running || !isBuildStatus(patch.status)) {
    throw new RangeError(`Cannot finish build ${id} with status ${patch.status}`);
  }
  const finished = patch.finished_at === undefined ? new Date() : toDate(patch.finished_at);
  return await mutate(dataDir, (state) => {
    const at = state.records.findIndex((r) => r.id === id);
    if (at === -1) return { result: null, changed: false };
    const current = state.records[at];
    const started = Date.parse(current.started_at);
    const { finished_at: _, ...rest } = patch;
    const merged: Record<string, unknown> = {
      ...current,
      duration_ms: Number.isNaN(started) ? null : Math.max(0, finished.getTime() - started),
      ...defined(rest),
      finished_at: finished.toISOString(),
    };
    const record = normalizeRecord(merged, dataDir) ?? current;
    state.records[at] = record;
    return { result: record, changed: true };
  });
}

/** Record `id`, or `null`. */
export async function getBuildRecord(dataDir: string, id: number): Promise<BuildRecord | null> {
  return (await readState(dataDir)).records.find((r) => r.id === id) ?? null;
}

interface ListBuildOptions {
  /** Only builds of this project (canonicalized). */
  project?: string;
  /** Default `DEFAULT_BUILD_LIST_LIMIT`, max `MAX_BUILD_RECORDS`. */
  limit?: number;
}

/** Builds, newest first. */
export async function listBuildRecords(
  dataDir: string,
  options: ListBuildOptions = {},
): Promise<BuildRecord[]> {
  const limit = options.limit ?? DEFAULT_BUILD_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_BUILD_RECORDS) {
    throw new RangeError(`limit must be 1..${MAX_BUILD_RECORDS}, got ${limit}`);
  }
  const project = options.project === undefined
    ? undefined
    : await canonicalPathOrResolved(options.project);
  const records = (await readState(dataDir)).records;
  const out: BuildRecord[] = [];
  for (let i = records.length - 1; i >= 0 && out.length < limit; i--) {
    if (project === undefined || records[i].project === project) out.push(records[i]);
  }
  return out;
}

/** The newest build of `project`, or `null`. */
export async function latestBuildRecord(
  dataDir: string,
  project: string,
): Promise<BuildRecord | null> {
  return (await listBuildRecords(dataDir, { project, limit: 1 }))[0] ?? null;
}

interface OrphanOptions {
  /** How to inspect a PID (tests pass a fake). */
  probe?: (pid: number) => Promise<ProcessProbe>;
  now?: Date;
}

/** Whether the keynobi process that ran `record` is gone (or its PID now runs something else). */
async function ownerGone(
  record: BuildRecord,
  probe: (pid: number) => Promise<ProcessProbe>,
): Promise<boolean> {
  if (record.pid === Deno.pid) return false;
  if (record.pid <= 0) return true;
  const result = await probe(record.pid);
  if (record.binary === "") return result.state === "gone";
  return staleReason(record, result, await knownBinaryPaths(record.binary)) !== null;
}

/**
 * Marks builds still "running" whose keynobi process is gone as interrupted (reason
 * `ORPHANED_REASON`). Processes are inspected outside the lock. Returns the ids marked.
 */
export async function markOrphanedBuilds(
  dataDir: string,
  options: OrphanOptions = {},
): Promise<number[]> {
  const probe = options.probe ?? probeProcess;
  const running = (await readState(dataDir)).records.filter((r) =>
    r.status === BuildStatus.running
  );
  const gone: BuildRecord[] = [];
  for (const r of running) if (await ownerGone(r, probe)) gone.push(r);
  if (gone.length === 0) return [];
  const now = options.now ?? new Date();
  return await mutate(dataDir, (state) => {
    const marked: number[] = [];
    for (const g of gone) {
      const at = state.records.findIndex((r) =>
        r.id === g.id && r.status === BuildStatus.running && r.pid === g.pid
      );
      if (at === -1) continue;
      const r = state.records[at];
      state.records[at] = normalizeRecord({
        ...r,
        status: BuildStatus.interrupted,
        finished_at: now.toISOString(),
        reason: ORPHANED_REASON,
        summary: r.summary || `Build interrupted: ${ORPHANED_REASON}`,
      }, dataDir)!;
      marked.push(r.id);
    }
    return { result: marked, changed: marked.length > 0 };
  });
}
