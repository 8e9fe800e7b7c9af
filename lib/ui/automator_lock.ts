/**
 * One UI Automator client per device: captures on one device take turns, in this process and
 * across keynobi processes; different devices run in parallel.
 *
 * In-process: a queue per serial. Across processes: `<data dir>/ui-automator-locks/<hash>.lock`
 * (`<hash>`: the first 16 hex digits of the SHA-256 of the serial) holding JSON that names the
 * holder (`{pid, serial, token, acquired_at, renewed_at}`). A lease rather than a held `flock`:
 * Deno's `FsFile.lock()` has no try-lock and cannot be given up while it waits, and the UI worker
 * may not run `ps` to see whether a PID lives. So the holder renews `renewed_at` every
 * `LEASE_RENEW_MS`; a lock not renewed for `LEASE_STALE_MS` (its process died mid-capture) is
 * taken over. Check-and-write happens under a short `withFileLock` on `<hash>.guard`.
 *
 * The spec's gap "a lock file that cannot be created is skipped with a warning" is closed: the
 * capture fails with `io_error` instead of running unserialized.
 */
import { ABORTED, delay, raceAbort } from "../core/abortable.ts";
import { sha256Hex } from "../core/hash.ts";
import { join } from "../core/path.ts";
import { uiAutomatorLocksDir } from "../core/data_dir.ts";
import { ToolError } from "../core/errors.ts";
import { withFileLock, writeFileAtomic } from "../core/file_lock.ts";
import { isPid, parseJsonRecord } from "../core/json.ts";

/** How often the holder renews its lease. */
const LEASE_RENEW_MS = 1_000;
/** A lease not renewed for this long belongs to a process that died: it is taken over. */
export const LEASE_STALE_MS = 5_000;
/** How often a waiter looks at another process's lock again. */
const LOCK_POLL_MS = 100;
/** A lock file larger than this is not ours and counts as stale. */
const MAX_UI_LOCK_FILE_BYTES = 4 * 1024;
/** Captures waiting on one device in this process, at most. */
const MAX_QUEUED_CAPTURES = 64;
/** Devices whose lock path this process remembers (the path is a hash of the serial). */
const MAX_LOCK_PATHS_CACHED = 256;

interface UiLockHolder {
  pid: number;
  serial: string;
  token: string;
  acquired_at: string;
  /** Epoch milliseconds of the last renewal. */
  renewed_at: number;
}

/** The first 16 hex digits of the SHA-256 of `serial`. */
async function serialLockKey(serial: string): Promise<string> {
  return (await sha256Hex(serial)).slice(0, 16);
}

export async function uiLockPath(dataDir: string, serial: string): Promise<string> {
  return join(uiAutomatorLocksDir(dataDir), `${await serialLockKey(serial)}.lock`);
}

/** The holder in a lock file's text, or `null` when it is not a valid lock. Pure. */
function parseUiLockHolder(text: string): UiLockHolder | null {
  const r = parseJsonRecord(text);
  if (r === null || !isPid(r.pid)) return null;
  if (typeof r.token !== "string" || typeof r.renewed_at !== "number") return null;
  return {
    pid: r.pid,
    serial: typeof r.serial === "string" ? r.serial : "",
    token: r.token,
    acquired_at: typeof r.acquired_at === "string" ? r.acquired_at : "",
    renewed_at: r.renewed_at,
  };
}

/** Whether `holder` still holds the device at `now` (epoch ms). Pure. */
function leaseIsLive(holder: UiLockHolder, now: number): boolean {
  return now - holder.renewed_at < LEASE_STALE_MS && holder.renewed_at - now < LEASE_STALE_MS;
}

async function readHolder(path: string): Promise<UiLockHolder | null> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_UI_LOCK_FILE_BYTES) return null;
    return parseUiLockHolder(await Deno.readTextFile(path));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

interface LockWait {
  /** Aborts the wait (request cancelled, capture deadline). */
  signal: AbortSignal;
  /** Called with the holder while another process holds the device. */
  onBusy?: (holder: UiLockHolder) => void;
  now?: () => number;
}

/** The busy error for a device another process still holds at the deadline. Pure. */
function busyError(serial: string, holder: UiLockHolder): ToolError {
  return new ToolError(
    "device_busy",
    `Device ${serial} is busy with a request from another Keynobi process (pid ${holder.pid}): ` +
      "wait for it to finish, then retry",
    { serial, held_by: { pid: holder.pid, since: holder.acquired_at } },
  );
}

function lockIoError(serial: string, path: string, e: unknown): ToolError {
  return new ToolError(
    "io_error",
    `Cannot capture the UI of ${serial}: the UI Automator lock ${path} could not be written ` +
      `(${(e as Error).message}), so nothing was sent to the device; make the data directory ` +
      "writable or set KEYNOBI_HOME to a writable folder, then retry",
    { serial, path },
    { cause: e },
  );
}

/**
 * How long this process may keep a device's lease across back-to-back captures of its own queue
 * (handing it from one to the next without touching the lock file), before it lets go once so
 * another process gets its turn.
 */
const MAX_LEASE_HANDOVER_MS = 2_000;

/** This process's lease on one device, while held. */
interface HeldLease {
  path: string;
  guard: string;
  token: string;
  since: number;
  renew: ReturnType<typeof setInterval>;
  renewing: Promise<void>;
}

/** Serializes UI Automator use per device; one instance per process (the UI worker's). */
export class UiAutomatorLocks {
  readonly dataDir: string;
  #queues = new Map<string, { tail: Promise<void>; waiting: number }>();
  #paths = new Map<string, string>();
  #dirReady = false;
  #held = new Map<string, HeldLease>();
  /** Tokens of leases being given up (their file may still name them for a moment). */
  #releasing = new Set<string>();

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  /** Runs `fn` while this process, and no other, uses UI Automator on `serial`. */
  async run<T>(serial: string, wait: LockWait, fn: () => Promise<T>): Promise<T> {
    const q = this.#queues.get(serial) ?? { tail: Promise.resolve(), waiting: 0 };
    if (q.waiting >= MAX_QUEUED_CAPTURES) {
      throw new ToolError(
        "device_busy",
        `Device ${serial} has ${MAX_QUEUED_CAPTURES} UI captures waiting in this process: ` +
          "wait for running calls to finish, then retry",
        { serial },
      );
    }
    let release!: () => void;
    const mine = new Promise<void>((r) => release = r);
    const before = q.tail;
    q.tail = before.then(() => mine);
    q.waiting++;
    this.#queues.set(serial, q);
    try {
      if (await raceAbort(before, wait.signal) === ABORTED) throw wait.signal.reason;
      const lease = this.#held.get(serial) ?? await this.#acquire(serial, wait);
      try {
        return await fn();
      } finally {
        // Another capture of this process waits for the device: hand it the lease as it is (no
        // lock-file round trip), unless it has been held long enough that others deserve a turn.
        const handOver = q.waiting > 1 &&
          (wait.now ?? Date.now)() - lease.since < MAX_LEASE_HANDOVER_MS;
        if (!handOver) await this.#release(serial, lease);
      }
    } finally {
      release();
      q.waiting--;
      if (q.waiting === 0) {
        if (this.#queues.get(serial) === q) this.#queues.delete(serial);
        // Nobody of this process is left for the device (a waiter handed the lease gave up).
        const left = this.#held.get(serial);
        if (left) await this.#release(serial, left);
      }
    }
  }

  async #pathOf(serial: string): Promise<string> {
    let path = this.#paths.get(serial);
    if (path === undefined) {
      path = await uiLockPath(this.dataDir, serial);
      if (this.#paths.size >= MAX_LOCK_PATHS_CACHED) this.#paths.clear();
      this.#paths.set(serial, path);
    }
    if (!this.#dirReady) {
      await Deno.mkdir(uiAutomatorLocksDir(this.dataDir), { recursive: true, mode: 0o700 })
        .catch(() => {});
      this.#dirReady = true;
    }
    return path;
  }

  /** Takes the device's lock file (free or stale); polls while another process holds it. */
  async #acquire(serial: string, wait: LockWait): Promise<HeldLease> {
    const now = wait.now ?? Date.now;
    const path = await this.#pathOf(serial);
    const guard = path.replace(/\.lock$/, ".guard");
    const token = crypto.randomUUID();
    const acquired_at = new Date(now()).toISOString();
    const mineAt = (t: number): UiLockHolder => ({
      pid: Deno.pid,
      serial,
      token,
      acquired_at,
      renewed_at: t,
    });
    while (true) {
      let held: UiLockHolder | null;
      try {
        held = await withFileLock(guard, async () => {
          const current = await readHolder(path);
          if (
            current && current.token !== token && !this.#releasing.has(current.token) &&
            leaseIsLive(current, now())
          ) return current;
          await writeFileAtomic(path, JSON.stringify(mineAt(now())) + "\n");
          return null;
        }, { dirReady: true });
      } catch (e) {
        throw lockIoError(serial, path, e);
      }
      if (held === null) break;
      wait.onBusy?.(held);
      try {
        await delay(LOCK_POLL_MS, wait.signal);
      } catch (e) {
        throw busyOrAbort(e, serial, held);
      }
    }
    const lease: HeldLease = {
      path,
      guard,
      token,
      since: now(),
      renewing: Promise.resolve(),
      renew: setInterval(() => {
        lease.renewing = lease.renewing.then(() =>
          withFileLock(guard, async () => {
            const current = await readHolder(path);
            if (current?.token === token) {
              await writeFileAtomic(path, JSON.stringify(mineAt(now())) + "\n");
            }
          }, { dirReady: true })
        ).catch(() => {});
      }, LEASE_RENEW_MS),
    };
    this.#held.set(serial, lease);
    return lease;
  }

  async #release(serial: string, lease: HeldLease): Promise<void> {
    if (this.#held.get(serial) === lease) this.#held.delete(serial);
    // A capture of this process that comes meanwhile may take the file over at once.
    this.#releasing.add(lease.token);
    clearInterval(lease.renew);
    try {
      await lease.renewing;
      await withFileLock(lease.guard, async () => {
        const current = await readHolder(lease.path);
        if (current?.token === lease.token) await Deno.remove(lease.path).catch(() => {});
      }, { dirReady: true }).catch(() => {});
    } finally {
      this.#releasing.delete(lease.token);
    }
  }
}

/** A capture deadline that ends the wait reads as busy (naming the holder); a cancel stays. */
function busyOrAbort(e: unknown, serial: string, holder: UiLockHolder): unknown {
  if (e instanceof ToolError && e.code === "cancelled") return e;
  if (e instanceof ToolError && e.code === "timeout") {
    const busy = busyError(serial, holder);
    return new ToolError(
      "device_busy",
      busy.message.replace(": wait", `, and the capture's total deadline was hit: wait`),
      { ...busy.data, ...(e.data ?? {}) },
    );
  }
  return e;
}
