/**
 * Stopping a process and everything it started. `gradlew` is a shell script that runs a JVM, and
 * the JVM may start workers and daemons; killing only the direct child would leave them running.
 *
 * The tree is read from `ps -e -o pid=,ppid=,stat=` (POSIX; the same on Linux and macOS), run as
 * an argument vector with a timeout. Deno refuses `/proc` without `--allow-all`, so `ps` is the one
 * source on every OS. The whole tree is collected first, then every member is signalled (parents
 * before children, so a parent cannot replace a child we just stopped), then we wait up to the
 * grace period and SIGKILL what is left.
 */
import { delay } from "./abortable.ts";
import { runCommand } from "./run_command.ts";
import { appendAll } from "./arrays.ts";

/** How long one `ps` listing may take. */
const PS_LIST_TIMEOUT_MS = 5_000;
/** The largest timeout a caller may ask for. */
const MAX_PS_LIST_TIMEOUT_MS = 30_000;
/** `ps` output beyond this is not read (a machine with that many processes is unusual). */
const MAX_PS_OUTPUT_BYTES = 8 * 1024 * 1024;
/** At most this many processes are treated as one tree. */
const MAX_TREE_SIZE = 4_096;
/** How long `killTree` waits after the first signal before SIGKILL. */
const DEFAULT_KILL_GRACE_MS = 3_000;
/** The longest grace period a caller may ask for. */
const MAX_KILL_GRACE_MS = 60_000;
/** How often `killTree` checks whether the tree has exited. */
const KILL_POLL_MS = 100;
/** How long `killTree` waits, after SIGKILL, to see the tree gone. */
const SIGKILL_SETTLE_MS = 1_000;
/** How long the `kill` command may take where `Deno.kill` is not allowed. */
const KILL_COMMAND_TIMEOUT_MS = 5_000;

/** Runs `kill <args>` (a narrowed worker's grant names it); whether it succeeded. */
async function killCommand(args: string[]): Promise<boolean> {
  const out = await runCommand("kill", args, {
    timeoutMs: KILL_COMMAND_TIMEOUT_MS,
    maxOutputBytes: 0,
  });
  return out.code === 0;
}

interface PsEntry {
  pid: number;
  ppid: number;
  /** `ps` state letters (`S`, `R`, `Z`…); "" when the listing had no state column. */
  stat: string;
}

/** Parses `ps -o pid=,ppid=[,stat=]` lines; malformed lines are skipped. Pure. */
export function parsePsTable(text: string): PsEntry[] {
  const out: PsEntry[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)(?:\s+(\S+))?\s*$/.exec(line);
    if (!m) continue;
    out.push({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3] ?? "" });
  }
  return out;
}

/**
 * The descendants of `root` in `table`, breadth first (parents before their children), without
 * `root` itself; at most `max`. Pure.
 */
export function descendantsIn(
  table: readonly PsEntry[],
  root: number,
  max = MAX_TREE_SIZE,
): number[] {
  const children = new Map<number, number[]>();
  for (const e of table) {
    if (e.pid === e.ppid) continue;
    const list = children.get(e.ppid);
    if (list) list.push(e.pid);
    else children.set(e.ppid, [e.pid]);
  }
  const seen = new Set<number>([root]);
  const out: number[] = [];
  const queue = [root];
  for (let i = 0; i < queue.length && out.length < max; i++) {
    for (const child of children.get(queue[i]) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
      if (out.length >= max) break;
    }
  }
  return out;
}

/** The PIDs of `pids` that still run in `table` (a zombie has exited). Pure. */
export function stillRunning(table: readonly PsEntry[], pids: readonly number[]): number[] {
  const alive = new Set(table.filter((e) => !e.stat.startsWith("Z")).map((e) => e.pid));
  return pids.filter((p) => alive.has(p));
}

function clampTimeout(ms: number | undefined, fallback: number, max: number): number {
  if (ms === undefined) return fallback;
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`Timeout must be 0..${max} ms: ${ms}`);
  return Math.min(ms, max);
}

/** Runs `ps -e -o pid=,ppid=,stat=`; `null` when `ps` is missing, fails, or times out. */
export async function listProcesses(timeoutMs = PS_LIST_TIMEOUT_MS): Promise<PsEntry[] | null> {
  const timeout = clampTimeout(timeoutMs, PS_LIST_TIMEOUT_MS, MAX_PS_LIST_TIMEOUT_MS);
  const run = await runCommand("ps", ["-e", "-o", "pid=,ppid=,stat="], {
    timeoutMs: timeout,
    maxOutputBytes: MAX_PS_OUTPUT_BYTES,
  });
  return run.code === 0 ? parsePsTable(run.stdout) : null;
}

/**
 * The PIDs of `pid`'s descendants, parents before children; `[]` when it has none. Throws when
 * the process table cannot be read (`ps` missing or hanging).
 */
export async function descendants(
  pid: number,
  options: { timeoutMs?: number } = {},
): Promise<number[]> {
  checkPid(pid);
  const table = await listProcesses(options.timeoutMs);
  if (table === null) {
    throw new Error(
      "Cannot list processes: `ps -e -o pid=,ppid=,stat=` failed or timed out; install procps",
    );
  }
  return descendantsIn(table, pid);
}

function checkPid(pid: number): void {
  if (!Number.isSafeInteger(pid) || pid <= 1) {
    throw new RangeError(`Cannot stop process ${pid}: not a process id other than init`);
  }
}

interface KillTreeOptions {
  /** The first signal; default SIGTERM. */
  signal?: Deno.Signal;
  /** How long to wait for the tree to exit before SIGKILL; default 3 s, max 60 s. */
  graceMs?: number;
  /** Timeout of each `ps` listing. */
  psTimeoutMs?: number;
}

interface KillTreeResult {
  /** The root PID. */
  pid: number;
  /** Every PID of the tree that was signalled with the first signal, root first. */
  signalled: number[];
  /** The first signal. */
  signal: Deno.Signal;
  /** PIDs that were still running after the grace period and got SIGKILL. */
  killed: number[];
  /** PIDs still running at the end (should be empty). */
  remaining: number[];
  /** `false` when `ps` could not be read: only the root was signalled. */
  tree_known: boolean;
  /** Milliseconds from the first signal until the tree was gone (or we gave up). */
  elapsed_ms: number;
}

/**
 * Sends `signal`; `true` when it was delivered, `false` when the process is gone. `Deno.kill` needs
 * unrestricted `--allow-run`, which a worker with a narrowed grant does not have: there the `kill`
 * command (which the grant names) sends it instead.
 */
async function sendSignal(pid: number, signal: Deno.Signal): Promise<boolean> {
  try {
    Deno.kill(pid, signal);
    return true;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied)) {
      return false;
    }
  }
  return await killCommand(["-s", signal.replace(/^SIG/, ""), String(pid)]);
}

async function signalAll(pids: number[], signal: Deno.Signal): Promise<number[]> {
  const sent = await Promise.all(pids.map((p) => sendSignal(p, signal)));
  return pids.filter((_, i) => sent[i]);
}

async function waitGone(
  pids: number[],
  ms: number,
  psTimeoutMs: number | undefined,
): Promise<number[] | null> {
  const deadline = Date.now() + ms;
  let left: number[] | null = pids;
  while (true) {
    const table = await listProcesses(psTimeoutMs);
    left = table === null ? null : stillRunning(table, pids);
    if (left !== null && left.length === 0) return left;
    const wait = Math.min(KILL_POLL_MS, deadline - Date.now());
    if (wait <= 0) return left;
    await delay(wait);
  }
}

/**
 * Stops `pid` and all its descendants: collects the tree, signals every member with `signal`
 * (default SIGTERM), waits up to `graceMs` for them to exit, then SIGKILLs what is left (including
 * processes the tree started meanwhile). Returns what it did.
 */
export async function killTree(
  pid: number,
  options: KillTreeOptions = {},
): Promise<KillTreeResult> {
  checkPid(pid);
  const signal = options.signal ?? "SIGTERM";
  const graceMs = clampTimeout(options.graceMs, DEFAULT_KILL_GRACE_MS, MAX_KILL_GRACE_MS);
  const started = Date.now();
  const table = await listProcesses(options.psTimeoutMs);
  const tree = table === null ? [pid] : [pid, ...descendantsIn(table, pid)];
  const signalled = await signalAll(tree, signal);
  let left = signal === "SIGKILL"
    ? await waitGone(tree, SIGKILL_SETTLE_MS, options.psTimeoutMs)
    : await waitGone(tree, graceMs, options.psTimeoutMs);
  const killed: number[] = [];
  if (signal !== "SIGKILL" && (left === null || left.length > 0)) {
    // Children started during the grace period belong to the tree too.
    const now = await listProcesses(options.psTimeoutMs);
    const targets = now === null
      ? (left ?? tree)
      : [...new Set([...stillRunning(now, tree), ...descendantsIn(now, pid)])];
    appendAll(killed, await signalAll(targets, "SIGKILL"));
    left = await waitGone(
      [...new Set([...tree, ...targets])],
      SIGKILL_SETTLE_MS,
      options.psTimeoutMs,
    );
  }
  return {
    pid,
    signalled,
    signal,
    killed,
    remaining: left ?? [],
    tree_known: table !== null,
    elapsed_ms: Date.now() - started,
  };
}

/** How often `killGroup` looks whether the group is gone. */
const GROUP_POLL_MS = 50;

/** Sends `signal` to every process of group `pgid`; false when no process is in it. */
export async function signalGroup(pgid: number, signal: Deno.Signal | 0): Promise<boolean> {
  checkPid(pgid);
  if (signal !== 0) {
    try {
      Deno.kill(-pgid, signal);
      return true;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied)) {
        return false;
      }
    }
  }
  const name = signal === 0 ? "0" : signal.replace(/^SIG/, "");
  return await killCommand([signal === 0 ? "-0" : `-${name}`, "--", `-${pgid}`]);
}

/**
 * Stops the whole process group `pgid` (a child spawned `detached` leads its own group, and
 * everything it starts stays in it unless it makes a new session — a background process it left
 * behind included): SIGTERM, up to `graceMs` for the group to empty, then SIGKILL.
 */
export async function killGroup(
  pgid: number,
  options: { graceMs?: number } = {},
): Promise<{ terminated: boolean; killed: boolean }> {
  const graceMs = clampTimeout(options.graceMs, DEFAULT_KILL_GRACE_MS, MAX_KILL_GRACE_MS);
  const terminated = await signalGroup(pgid, "SIGTERM");
  if (!terminated) return { terminated, killed: false };
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!(await signalGroup(pgid, 0))) return { terminated, killed: false };
    await delay(GROUP_POLL_MS);
  }
  return { terminated, killed: await signalGroup(pgid, "SIGKILL") };
}
