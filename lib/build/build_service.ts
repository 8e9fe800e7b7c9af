/**
 * The build slot, run inside the build worker: one Gradle build at a time per process, and one per
 * project across processes (the build lock). It re-checks trust right before anything is made
 * executable or spawned, runs `gradlew` with an argument vector, parses its output as it streams,
 * keeps the raw log, and records the build in the history whatever happens to it (what it is
 * recorded as is build_outcome.ts).
 */
import { join } from "../core/path.ts";
import { ToolError } from "../core/errors.ts";
import { isTrusted, untrustedBuildError } from "../project/trust.ts";
import { killGroup, killTree } from "../core/process_tree.ts";
import { ABORTED, raceTimeout } from "../core/abortable.ts";
import { BuildOutputParser } from "./build_parser.ts";
import { markOrphanedBuilds, startBuildRecord } from "./shared/build_history.ts";
import { describeOrigin, type Origin } from "./shared/build_record.ts";
import { type BuildLock, buildLockRefusal, tryAcquireBuildLock } from "./build_lock.ts";
import { type BuildGroup, endBuildGroup, groupIsAlive, groupOf } from "./build_group.ts";
import { buildLogPath, BuildLogWriter } from "./shared/build_log.ts";
import { readProvenance } from "./shared/provenance.ts";
import { GradleOutputDecoder } from "./build_output_decode.ts";
import {
  type Opened,
  pointAtSources,
  recordCouldNotRun,
  recordOutcome,
  type StopReason,
} from "./build_outcome.ts";
import {
  boundBuildTimeoutMs,
  type BuildRunParams,
  type BuildRunResult,
  type RunningBuild,
  SHUTDOWN_WAIT_MS,
} from "./shared/build_protocol.ts";

/** Lines of output kept in memory for a failure's message. */
const TAIL_LINES = 40;
/** How long a stopped build gets to exit after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 3_000;
/**
 * Once `gradlew` has exited, how long its output may stay open (a process it left in the
 * background holding stdout) before keynobi stops reading it and answers.
 */
const OUTPUT_DRAIN_MS = 2_000;
/** Process groups of finished builds remembered to end at exit (older ones are checked first). */
const MAX_LEFT_GROUPS = 32;

interface Current {
  id: number;
  project: string;
  tasks: string[];
  origin: Origin;
  startedAt: number;
  startedIso: string;
  parser: BuildOutputParser;
  stop(reason: StopReason): void;
}

interface BuildServiceOptions {
  dataDir: string;
  /** The keynobi binary (for the lock holder record). */
  binary: string;
  version: string;
  /** Who runs this slot, for messages: "the Keynobi app", "this keynobi server" (the default). */
  owner?: string;
}

export class BuildService {
  #opts: BuildServiceOptions;
  #current: Current | null = null;
  /** Set while a build is starting (checks, lock, record, spawn): a second run waits for it. */
  #starting: Promise<void> | null = null;
  /** Settles when the build running now has been recorded and its lock released. */
  #settled: Promise<void> | null = null;
  #orphansMarked = false;
  /** Groups of this slot's builds that may still have processes (a daemon left behind). */
  #groups: BuildGroup[] = [];

  constructor(opts: BuildServiceOptions) {
    this.#opts = opts;
  }

  status(): RunningBuild | null {
    const c = this.#current;
    if (!c) return null;
    return {
      id: c.id,
      project: c.project,
      tasks: c.tasks,
      origin: c.origin,
      started_at: c.startedIso,
      elapsed_ms: Math.round(performance.now() - c.startedAt),
      current_task: c.parser.currentTask,
    };
  }

  /**
   * Stops the running build and answers which it was. A build still starting (trust, lock,
   * record) is waited for first: a cancel never misses a build whose record already reads
   * running, and that build's Gradle process is then never spawned.
   */
  async cancel(by: Origin, message: string): Promise<RunningBuild | null> {
    if (!this.#current && this.#starting) await this.#starting;
    const running = this.status();
    this.#current?.stop({ kind: "cancelled", by, message });
    return running;
  }

  /**
   * keynobi is exiting: stop the running build (recorded as cancelled by `shutdown`) and wait,
   * at most `SHUTDOWN_WAIT_MS`, until it is recorded and its lock released. Whether one ran.
   */
  async shutdown(reason: string): Promise<boolean> {
    // The message completes "task 'x' was …" in the summary, and is the record's reason.
    const stopped =
      (await this.cancel({ kind: "shutdown" }, `cancelled because ${reason}`)) !== null;
    const settled = this.#settled;
    if (settled) await raceTimeout(settled, SHUTDOWN_WAIT_MS);
    // What finished builds left running (a daemon in the group) does not outlive keynobi.
    const groups = this.#groups;
    this.#groups = [];
    await raceTimeout(
      Promise.all(groups.map((g) => endBuildGroup(g).catch(() => false))),
      SHUTDOWN_WAIT_MS,
    );
    return stopped;
  }

  async #remember(group: BuildGroup): Promise<void> {
    const alive: BuildGroup[] = [];
    for (const g of this.#groups) if (await groupIsAlive(g).catch(() => false)) alive.push(g);
    alive.push(group);
    this.#groups = alive.slice(-MAX_LEFT_GROUPS);
  }

  /**
   * Runs one build: admitted when the slot is free, started with the project's lock held,
   * recorded in the history however it ends. Settles once recorded and its lock released.
   */
  async run(
    p: BuildRunParams,
    ctl: { signal: AbortSignal; progress(elapsedMs: number, currentTask: string | null): void },
  ): Promise<BuildRunResult> {
    // One start at a time: a request that arrives while another build is starting waits until
    // that one runs (and is then refused as busy) or has failed.
    while (this.#starting) await this.#starting;
    this.#refuseIfBusy();
    const start = Promise.withResolvers<void>();
    this.#starting = start.promise;
    const started = () => {
      if (this.#starting === start.promise) this.#starting = null;
      start.resolve();
    };
    const lock = await this.#admit(p).catch((e) => {
      started();
      throw e;
    });
    const gradlew = join(p.project, Deno.build.os === "windows" ? "gradlew.bat" : "gradlew");
    const settled = Promise.withResolvers<void>();
    this.#settled = settled.promise;
    const opened: Opened = { record: null, log: null };
    try {
      return await this.#build(p, ctl, { gradlew, lock, opened, started });
    } catch (e) {
      await recordCouldNotRun(this.#opts.dataDir, opened, e as Error);
      if (e instanceof ToolError) throw e;
      throw new ToolError(
        "build_failed",
        `Could not run ${gradlew}: ${(e as Error).message}: check that the project has a Gradle ` +
          "wrapper (run_health_check shows it)",
      );
    } finally {
      started();
      this.#current = null;
      await lock.release().catch(() => {});
      settled.resolve();
      if (this.#settled === settled.promise) this.#settled = null;
    }
  }

  /** Throws `build_busy` when this slot runs a build. */
  #refuseIfBusy(): void {
    const c = this.status();
    if (!c) return;
    throw new ToolError(
      "build_busy",
      `A Gradle build is already running in ${this.#opts.owner ?? "this keynobi server"} ` +
        `(pid ${Deno.pid}; build #${c.id}, ` +
        `${c.tasks.join(" ")}, started by ${describeOrigin(c.origin)}, ` +
        `${Math.round(c.elapsed_ms / 1000)} s so far): wait for it with ` +
        "get_build_status, or stop it with cancel_build",
      { running: c },
    );
  }

  /**
   * The project's build lock, once trust is checked again (right before anything runs); the
   * first build of this slot marks the records other processes left running first.
   */
  async #admit(p: BuildRunParams): Promise<BuildLock> {
    const { dataDir } = this.#opts;
    if (!this.#orphansMarked) {
      this.#orphansMarked = true;
      await markOrphanedBuilds(dataDir).catch(() => {});
    }
    if (!(await isTrusted(dataDir, p.project))) throw untrustedBuildError(p.project);
    const lock = await tryAcquireBuildLock(dataDir, p.project, {
      task: p.tasks.join(" "),
      binary: this.#opts.binary,
    });
    if (!lock.ok) throw buildLockRefusal(lock.held_by);
    return lock.lock;
  }

  /** The build itself, lock held: record, spawn, read its output, record how it ended. */
  async #build(
    p: BuildRunParams,
    ctl: { signal: AbortSignal; progress(elapsedMs: number, currentTask: string | null): void },
    at: { gradlew: string; lock: BuildLock; opened: Opened; started: () => void },
  ): Promise<BuildRunResult> {
    const { dataDir } = this.#opts;
    const timeoutMs = boundBuildTimeoutMs(p.timeoutMs);
    await ensureExecutable(at.gradlew);
    const provenance = readProvenance(p.project, {
      gradleVersion: p.gradleVersion,
      jdkVersion: p.jdkVersion,
      timeoutMs: 5000,
    }).catch(() => null);
    const record = at.opened.record = await startBuildRecord(dataDir, {
      project: p.project,
      task: p.tasks.join(" "),
      tasks: p.tasks,
      variant: p.variant,
      module: p.module,
      kind: p.kind,
      origin: p.origin,
      pid: Deno.pid,
    });
    const startedAt = performance.now();
    const startedWall = Date.now();
    const stopper = new Stopper();
    const parser = new BuildOutputParser();
    // Visible (status, cancel) from the moment its record reads running; a cancel from now on
    // (or a caller who gave up already) stops it, before the spawn if it comes first.
    this.#current = {
      id: record.id,
      project: p.project,
      tasks: p.tasks,
      origin: p.origin,
      startedAt,
      startedIso: new Date(startedWall).toISOString(),
      parser,
      stop: stopper.stop,
    };
    const unlisten = stopOnAbort(ctl.signal, stopper, p.origin);
    at.started();
    const tail: string[] = [];
    let ran: { status: Deno.CommandStatus; gradlePid: number } | null = null;
    let log: BuildLogWriter;
    try {
      log = at.opened.log = await BuildLogWriter.open(buildLogPath(dataDir, record.id));
      if (stopper.reason === null) {
        const onLine = outputSink(parser, log, tail, (task) => {
          ctl.progress(performance.now() - startedAt, task);
        });
        ran = await this.#spawnAndRead(at, p, stopper, timeoutMs, onLine);
      }
    } finally {
      unlisten();
    }
    const summary = parser.finish();
    await pointAtSources(p.project, summary.diagnostics);
    const logInfo = await log.close();
    at.opened.log = null;
    const finished = await recordOutcome(dataDir, p, record.id, {
      summary,
      status: ran?.status ?? null,
      reason: stopper.reason,
      startedAt,
      startedWall,
      gradlePid: ran?.gradlePid ?? null,
      provenance: await provenance,
      log: logInfo,
    });
    return { record: finished, tail };
  }

  /** Spawns gradlew, stoppable by `stopper`, and reads its output until it has exited. */
  async #spawnAndRead(
    at: { gradlew: string; lock: BuildLock },
    p: BuildRunParams,
    stopper: Stopper,
    timeoutMs: number,
    onLine: (line: string) => void,
  ): Promise<{ status: Deno.CommandStatus; gradlePid: number }> {
    const child = spawnGradle(at.gradlew, p);
    const grouped = this.#keepGroup(child.pid, at.lock);
    stopper.attach(child.pid);
    const status = await readBuild(child, grouped, { stopper, timeoutMs, onLine });
    return { status, gradlePid: child.pid };
  }

  /**
   * The build's process group goes into the lock (for a server that takes a stale lock over)
   * and into the list this slot ends at exit.
   */
  #keepGroup(pid: number, lock: BuildLock): Promise<void> {
    if (Deno.build.os === "windows") return Promise.resolve();
    return groupOf(pid).then(async (g) => {
      if (g === null) return;
      await lock.recordGroup(g);
      await this.#remember(g);
    }, () => {});
  }
}

/** Stops the build with `stopper` when `signal` aborts (or has already); the undo. */
function stopOnAbort(signal: AbortSignal, stopper: Stopper, origin: Origin): () => void {
  const onAbort = () =>
    stopper.stop({
      kind: "cancelled",
      by: origin,
      message: `cancelled by ${describeOrigin(origin)}`,
    });
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** Where each line of output goes: the parser, the log, the tail; `onTask` when the task moves. */
function outputSink(
  parser: BuildOutputParser,
  log: BuildLogWriter,
  tail: string[],
  onTask: (task: string | null) => void,
): (line: string) => void {
  let lastTask: string | null = null;
  return (line) => {
    parser.push(line);
    log.write(line);
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    if (parser.currentTask !== lastTask) {
      lastTask = parser.currentTask;
      onTask(lastTask);
    }
  };
}

/** Starts `gradlew` with an argument vector, in its own process group. */
function spawnGradle(gradlew: string, p: BuildRunParams): Deno.ChildProcess {
  return new Deno.Command(gradlew, {
    args: ["--console=plain", ...p.tasks],
    cwd: p.project,
    env: {
      ...(p.javaHome ? { JAVA_HOME: p.javaHome } : {}),
      ...(p.androidHome ? { ANDROID_HOME: p.androidHome, ANDROID_SDK_ROOT: p.androidHome } : {}),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // Its own process group: stopping the build stops everything it started, including a
    // background process that outlived its parent (no longer in the tree, still in the group).
    detached: Deno.build.os !== "windows",
  }).spawn();
}

/**
 * Stops a build once: its process tree and its group; remembers why. Stopped before its process
 * is attached, it stops that process as soon as it is (the build itself then never spawns).
 */
class Stopper {
  reason: StopReason | null = null;
  #pid: number | null = null;

  attach(pid: number): void {
    this.#pid = pid;
    if (this.reason) this.#kill(pid);
  }

  stop = (reason: StopReason): void => {
    if (this.reason) return;
    this.reason = reason;
    if (this.#pid !== null) this.#kill(this.#pid);
  };

  #kill(pid: number): void {
    void killTree(pid, { signal: "SIGTERM", graceMs: KILL_GRACE_MS }).catch(() => {});
    if (Deno.build.os !== "windows") {
      void killGroup(pid, { graceMs: KILL_GRACE_MS }).catch(() => {});
    }
  }
}

/**
 * Reads the build's output into `onLine` until gradlew exits (stopped by `stopper`, or once
 * `timeoutMs` has passed), and its output a little after (OUTPUT_DRAIN_MS). Its exit status.
 */
async function readBuild(
  child: Deno.ChildProcess,
  grouped: Promise<void>,
  o: { stopper: Stopper; timeoutMs: number; onLine: (line: string) => void },
): Promise<Deno.CommandStatus> {
  const timer = setTimeout(
    () =>
      o.stopper.stop({
        kind: "timeout",
        message: `timed out after ${Math.round(o.timeoutMs / 1000)} s`,
      }),
    o.timeoutMs,
  );
  const reading = new AbortController();
  const pumps = Promise.all([
    pumpLines(child.stdout, o.onLine, reading.signal),
    pumpLines(child.stderr, o.onLine, reading.signal),
  ]);
  const status = await child.status;
  clearTimeout(timer);
  await grouped;
  // gradlew has exited; what it left in the background may hold its output open. Read what
  // is there for OUTPUT_DRAIN_MS at most, then answer.
  if ((await raceTimeout(pumps, OUTPUT_DRAIN_MS)) === ABORTED) {
    reading.abort();
    await pumps.catch(() => {});
    o.onLine(
      `[keynobi] stopped reading the build output ${OUTPUT_DRAIN_MS} ms after gradlew ` +
        "exited: a process it left running still holds it",
    );
  }
  return status;
}

/** Make the wrapper executable (only ever reached for a trusted project). */
async function ensureExecutable(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    throw new ToolError(
      "build_failed",
      `The project has no Gradle wrapper at ${path}: add one (gradle wrapper) or open the right folder`,
    );
  }
  if (!info.isFile) {
    throw new ToolError(
      "build_failed",
      `${path} is not a file: the Gradle wrapper must be a script`,
    );
  }
  if (info.mode !== null && (info.mode & 0o100) === 0) await Deno.chmod(path, info.mode | 0o755);
}

/**
 * Read a child's stream line by line (LF, CR stripped by the parser) until EOF or `signal`,
 * decoded as UTF-8 or, when its first bytes say so, UTF-16 (`GradleOutputDecoder`).
 */
async function pumpLines(
  stream: ReadableStream<Uint8Array>,
  onLine: (line: string) => void,
  signal: AbortSignal,
): Promise<void> {
  let rest = "";
  const decoder = new GradleOutputDecoder();
  const take = (text: string) => {
    rest += text;
    let nl: number;
    while ((nl = rest.indexOf("\n")) >= 0) {
      onLine(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
    }
  };
  const reader = stream.getReader();
  const onAbort = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (!signal.aborted) {
      const { value, done } = await reader.read();
      if (done) break;
      take(decoder.decode(value));
    }
  } catch (e) {
    if (!signal.aborted) throw e;
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
  take(decoder.flush());
  if (rest !== "") onLine(rest);
}
