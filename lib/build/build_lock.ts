/**
 * The cross-process build lock: one Gradle build per project across every keynobi process (the
 * app and standalone servers). The lock is `<data dir>/build-locks/<hash>.lock`, `<hash>` being the
 * first 16 hex digits of the SHA-256 of the canonical project root, holding JSON that names the
 * process building (`{pid, started_at, binary, project, task, session?, token, gradle?}`);
 * `gradle` is the build's process group (lib/build/build_group.ts), added once `gradlew` runs.
 *
 * `Deno.FsFile.lock()` blocks and has no try-lock, and a held `flock` would also have to outlive
 * the build in a file handle. So acquire-or-refuse is: under a short `withFileLock` on
 * `<hash>.guard`, read `<hash>.lock`; a holder that is a live process running the same binary
 * refuses the build, naming it; an absent, unreadable or stale lock (its process is gone, or its
 * PID now runs something else) is replaced by ours. `release()` removes the lock only while it is
 * still ours (same `token`).
 *
 * A stale lock whose build still runs (its server was killed or crashed, the detached Gradle group
 * was not) is taken over only after that group has been ended — checked to be that build by the
 * leader's start time — so two builds of a project never overlap.
 *
 * The spec's "Build lock is best effort" gap is closed: when the lock cannot be written, the build
 * is refused with an `io_error`, never run unlocked.
 */
import { join } from "../core/path.ts";
import { buildLocksDir } from "../core/data_dir.ts";
import { projectKey } from "../project/project_key.ts";
import { ToolError } from "../core/errors.ts";
import { isPid, parseJsonRecord } from "../core/json.ts";
import { withFileLock, writeFileAtomic } from "../core/file_lock.ts";
import { log } from "../core/log.ts";
import { probeProcess, type ProcessProbe, staleProcessReason } from "../core/process_probe.ts";
import { canonicalProjectRoot } from "./shared/build_history.ts";
import { describeOrigin, type Origin, parseOrigin } from "./shared/build_record.ts";
import { type BuildGroup, endBuildGroup, parseBuildGroup } from "./build_group.ts";

/** A lock file larger than this is not ours and counts as stale. */
const MAX_LOCK_FILE_BYTES = 16 * 1024;
/** Longest task name stored in a lock. */
const MAX_LOCK_TASK_CHARS = 256;

/** Who holds a project's build lock. */
export interface LockHolder {
  /** The keynobi process building. */
  pid: number;
  /** ISO 8601. */
  started_at: string;
  /** That process's executable (`Deno.execPath()`), to tell a reused PID from it. */
  binary: string;
  /** The canonical project root. */
  project: string;
  task: string;
  /** Who started the build, when known. */
  session?: Origin;
  /** Identifies this acquisition, so a release never removes a lock someone else took over. */
  token: string;
  /** The build's process group, once `gradlew` runs. */
  gradle?: BuildGroup;
}

interface BuildLockInfo {
  task: string;
  session?: Origin;
  /** The executable of the process building; default `Deno.execPath()`. */
  binary?: string;
}

export interface BuildLock {
  path: string;
  /** The project hash. */
  key: string;
  holder: LockHolder;
  /** Writes the build's process group into the lock (while it is still ours). */
  recordGroup(group: BuildGroup): Promise<void>;
  /** Removes the lock if it is still ours; safe to call more than once. */
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

type AcquireResult = { ok: true; lock: BuildLock } | { ok: false; held_by: LockHolder };

interface AcquireOptions {
  /** How to inspect a PID (tests pass a fake). */
  probe?: (pid: number) => Promise<ProcessProbe>;
  now?: Date;
}

/** A project's lock is named by its key (lib/project/project_key.ts). */
export const buildLockKey = projectKey;

export const buildLockPath = (dataDir: string, key: string) =>
  join(buildLocksDir(dataDir), `${key}.lock`);
const buildLockGuardPath = (dataDir: string, key: string) =>
  join(buildLocksDir(dataDir), `${key}.guard`);

/** The holder in a lock file's text, or `null` when it is not a valid lock. Pure. */
export function parseLockHolder(text: string): LockHolder | null {
  const r = parseJsonRecord(text);
  if (r === null || !isPid(r.pid)) return null;
  if (typeof r.binary !== "string" || typeof r.project !== "string") return null;
  const holder: LockHolder = {
    pid: r.pid,
    started_at: typeof r.started_at === "string" ? r.started_at : "",
    binary: r.binary,
    project: r.project,
    task: typeof r.task === "string" ? r.task : "",
    token: typeof r.token === "string" ? r.token : "",
  };
  const session = parseOrigin(r.session);
  if (session) holder.session = session;
  const gradle = parseBuildGroup(r.gradle);
  if (gradle) holder.gradle = gradle;
  return holder;
}

/**
 * Whether `holder` still builds: its process runs and (when that can be seen) runs the binary
 * that wrote the lock. This process's own PID counts as live (another thread may be building).
 */
export async function holderIsLive(
  holder: LockHolder,
  probe: (pid: number) => Promise<ProcessProbe> = probeProcess,
): Promise<boolean> {
  if (holder.pid === Deno.pid) return true;
  return await staleProcessReason(holder, probe) === null;
}

/** `undefined` when there is no lock file, `null` when it is not a valid lock. */
async function readHolder(path: string): Promise<LockHolder | null | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_LOCK_FILE_BYTES) return null;
    return parseLockHolder(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

function lockIoError(project: string, path: string, e: unknown): ToolError {
  const why = e instanceof Error ? e.message : String(e);
  return new ToolError(
    "io_error",
    `Cannot start the Gradle build of ${project}: the build lock ${path} could not be written ` +
      `(${why}), so the build was not started; make ${
        join(path, "..")
      } writable or set KEYNOBI_HOME to a writable folder, then try again`,
    { path, project },
    { cause: e },
  );
}

/**
 * Takes the build lock of the project at `root`, or says who holds it. Throws an `io_error`
 * `ToolError` when the lock cannot be read or written (the build must not run).
 */
export async function tryAcquireBuildLock(
  dataDir: string,
  root: string,
  info: BuildLockInfo,
  options: AcquireOptions = {},
): Promise<AcquireResult> {
  const probe = options.probe ?? probeProcess;
  const project = await canonicalProjectRoot(root);
  const key = await buildLockKey(project);
  const path = buildLockPath(dataDir, key);
  const guard = buildLockGuardPath(dataDir, key);
  const holder: LockHolder = {
    pid: Deno.pid,
    started_at: (options.now ?? new Date()).toISOString(),
    binary: info.binary ?? Deno.execPath(),
    project,
    task: info.task.slice(0, MAX_LOCK_TASK_CHARS),
    token: crypto.randomUUID(),
  };
  if (info.session) holder.session = info.session;
  let result: AcquireResult;
  try {
    result = await withFileLock(guard, async () => {
      const current = await readHolder(path);
      if (current && await holderIsLive(current, probe)) {
        return { ok: false, held_by: current } as const;
      }
      if (current) {
        log.info(`Replacing the stale build lock of ${project} left by pid ${current.pid}`);
        // Its server is gone; its Gradle may not be: end that build before another starts.
        if (current.gradle && await endBuildGroup(current.gradle)) {
          log.warn(
            `Ended the Gradle build of ${project} (process group ${current.gradle.pgid}) that ` +
              `pid ${current.pid} left running`,
          );
        }
      } else if (current === null) {
        log.warn(`Replacing the unreadable build lock ${path}`);
      }
      await writeFileAtomic(path, JSON.stringify(holder, null, 2) + "\n");
      return { ok: true, lock: makeLock(dataDir, key, path, holder) } as const;
    });
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw lockIoError(project, path, e);
  }
  return result;
}

function makeLock(dataDir: string, key: string, path: string, holder: LockHolder): BuildLock {
  let released: Promise<void> | null = null;
  const release = () => {
    released ??= releaseLock(dataDir, key, path, holder.token);
    return released;
  };
  const recordGroup = async (group: BuildGroup) => {
    try {
      await withFileLock(buildLockGuardPath(dataDir, key), async () => {
        const current = await readHolder(path);
        if (!current || current.token !== holder.token) return;
        holder.gradle = group;
        await writeFileAtomic(path, JSON.stringify(holder, null, 2) + "\n");
      });
    } catch (e) {
      log.warn(`Cannot record the build's process group in ${path}: ${(e as Error).message}`);
    }
  };
  return { path, key, holder, recordGroup, release, [Symbol.asyncDispose]: release };
}

async function releaseLock(dataDir: string, key: string, path: string, token: string) {
  try {
    await withFileLock(buildLockGuardPath(dataDir, key), async () => {
      const current = await readHolder(path);
      if (current && current.token === token) await Deno.remove(path);
    });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    log.warn(
      `Cannot remove the build lock ${path}: ${(e as Error).message}; it will be ` +
        "replaced once this process exits",
    );
  }
}

/** The tool error for a build refused because another process builds the project. Pure. */
export function buildLockRefusal(held_by: LockHolder): ToolError {
  const where = held_by.pid === Deno.pid ? "this keynobi process" : "another keynobi process";
  const task = held_by.task === "" ? "an unknown task" : `task ${held_by.task}`;
  const since = held_by.started_at === "" ? "" : `, since ${held_by.started_at}`;
  return new ToolError(
    "build_busy",
    `A Gradle build of ${held_by.project} is already running in ${where} ` +
      `(pid ${held_by.pid}, ${task}${since}): wait for it or cancel it there`,
    {
      held_by: {
        pid: held_by.pid,
        started_at: held_by.started_at,
        project: held_by.project,
        task: held_by.task,
        started_by: held_by.session ? describeOrigin(held_by.session) : null,
      },
    },
  );
}
