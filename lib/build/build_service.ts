/**
 * The build slot, run inside the build worker: one Gradle build at a time per process, and one per
 * project across processes (the build lock). It re-checks trust right before anything is made
 * executable or spawned, runs `gradlew` with an argument vector, parses its output as it streams,
 * keeps the raw log, and records the build in the history whatever happens to it.
 */
import { join } from "../core/path.ts";
import { ToolError } from "../core/errors.ts";
import { isTrusted, untrustedBuildError } from "../project/trust.ts";
import { killGroup, killTree } from "../core/process_tree.ts";
import { ABORTED, raceTimeout } from "../core/abortable.ts";
import { BuildOutputParser, type Diagnostic } from "./build_parser.ts";
import { findClassSource } from "../project/source_lookup.ts";
import { finishBuildRecord, markOrphanedBuilds, startBuildRecord } from "./shared/build_history.ts";
import { type BuildRecord, describeOrigin, type Origin } from "./shared/build_record.ts";
import { buildLockRefusal, tryAcquireBuildLock } from "./build_lock.ts";
import { type BuildGroup, endBuildGroup, groupIsAlive, groupOf } from "./build_group.ts";
import { buildLogPath, BuildLogWriter } from "./shared/build_log.ts";
import { readProvenance } from "./shared/provenance.ts";
import { collectBuiltApks } from "./shared/built_apks.ts";
import { GradleOutputDecoder } from "./build_output_decode.ts";
import { type BuildMapping, findBuiltMappings, keepMapping } from "../retrace/mapping_store.ts";
import {
  boundBuildTimeoutMs,
  type BuildRunParams,
  type BuildRunResult,
  type RunningBuild,
  SHUTDOWN_WAIT_MS,
} from "./shared/build_protocol.ts";

/** How many diagnostics a history record keeps. */
export const MAX_RECORDED_DIAGNOSTICS = 100;
/** Lines of output kept in memory for a failure's message. */
export const TAIL_LINES = 40;
/** How long a stopped build gets to exit after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 3_000;
/**
 * Once `gradlew` has exited, how long its output may stay open (a process it left in the
 * background holding stdout) before keynobi stops reading it and answers.
 */
export const OUTPUT_DRAIN_MS = 2_000;
export { SHUTDOWN_WAIT_MS };
/** Process groups of finished builds remembered to end at exit (older ones are checked first). */
export const MAX_LEFT_GROUPS = 32;

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

type StopReason =
  | { kind: "cancelled"; by: Origin; message: string }
  | { kind: "timeout"; message: string };

export interface BuildServiceOptions {
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

  cancel(by: Origin, message: string): RunningBuild | null {
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
    const stopped = this.cancel({ kind: "shutdown" }, `cancelled because ${reason}`) !== null;
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

  async run(
    p: BuildRunParams,
    ctl: { signal: AbortSignal; progress(elapsedMs: number, currentTask: string | null): void },
  ): Promise<BuildRunResult> {
    const { dataDir } = this.#opts;
    if (!this.#orphansMarked) {
      this.#orphansMarked = true;
      await markOrphanedBuilds(dataDir).catch(() => {});
    }
    // One start at a time: a request that arrives while another build is starting waits until
    // that one runs (and is then refused as busy) or has failed.
    while (this.#starting) await this.#starting;
    if (this.#current) {
      const c = this.status()!;
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
    const start = Promise.withResolvers<void>();
    this.#starting = start.promise;
    const started = () => {
      if (this.#starting === start.promise) this.#starting = null;
      start.resolve();
    };
    const timeoutMs = boundBuildTimeoutMs(p.timeoutMs);
    const gradlew = join(p.project, Deno.build.os === "windows" ? "gradlew.bat" : "gradlew");
    let lock: Awaited<ReturnType<typeof tryAcquireBuildLock>>;
    try {
      // Trust is checked again here, right before anything is made executable or spawned.
      if (!(await isTrusted(dataDir, p.project))) throw untrustedBuildError(p.project);
      lock = await tryAcquireBuildLock(dataDir, p.project, {
        task: p.tasks.join(" "),
        binary: this.#opts.binary,
      });
    } catch (e) {
      started();
      throw e;
    }
    if (!lock.ok) {
      started();
      throw buildLockRefusal(lock.held_by);
    }

    const parser = new BuildOutputParser();
    const tail: string[] = [];
    let record: BuildRecord | null = null;
    let log: BuildLogWriter | null = null;
    const settled = Promise.withResolvers<void>();
    this.#settled = settled.promise;
    try {
      await ensureExecutable(gradlew);
      const provenance = readProvenance(p.project, {
        gradleVersion: p.gradleVersion,
        jdkVersion: p.jdkVersion,
        timeoutMs: 5000,
      }).catch(() => null);
      record = await startBuildRecord(dataDir, {
        project: p.project,
        task: p.tasks.join(" "),
        tasks: p.tasks,
        variant: p.variant,
        module: p.module,
        kind: p.kind,
        origin: p.origin,
        pid: Deno.pid,
      });
      log = await BuildLogWriter.open(buildLogPath(dataDir, record.id));
      const startedAt = performance.now();
      const startedWall = Date.now();
      const child = new Deno.Command(gradlew, {
        args: ["--console=plain", ...p.tasks],
        cwd: p.project,
        env: {
          ...(p.javaHome ? { JAVA_HOME: p.javaHome } : {}),
          ...(p.androidHome
            ? { ANDROID_HOME: p.androidHome, ANDROID_SDK_ROOT: p.androidHome }
            : {}),
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        // Its own process group: stopping the build stops everything it started, including a
        // background process that outlived its parent (no longer in the tree, still in the group).
        detached: Deno.build.os !== "windows",
      }).spawn();

      // The group goes into the lock (for a server that takes a stale lock over) and into the
      // list this slot ends at exit.
      const grouped = Deno.build.os === "windows" ? Promise.resolve() : groupOf(child.pid).then(
        async (g) => {
          if (g === null) return;
          await lock.lock.recordGroup(g);
          await this.#remember(g);
        },
        () => {},
      );
      let stopReason: StopReason | null = null;
      const stop = (reason: StopReason) => {
        if (stopReason) return;
        stopReason = reason;
        void killTree(child.pid, { signal: "SIGTERM", graceMs: KILL_GRACE_MS }).catch(() => {});
        if (Deno.build.os !== "windows") {
          void killGroup(child.pid, { graceMs: KILL_GRACE_MS }).catch(() => {});
        }
      };
      this.#current = {
        id: record.id,
        project: p.project,
        tasks: p.tasks,
        origin: p.origin,
        startedAt,
        startedIso: new Date(startedWall).toISOString(),
        parser,
        stop,
      };
      started();
      const onAbort = () =>
        stop({
          kind: "cancelled",
          by: p.origin,
          message: `cancelled by ${describeOrigin(p.origin)}`,
        });
      ctl.signal.addEventListener("abort", onAbort);
      const timer = setTimeout(
        () =>
          stop({ kind: "timeout", message: `timed out after ${Math.round(timeoutMs / 1000)} s` }),
        timeoutMs,
      );
      let lastTask: string | null = null;
      const onLine = (line: string) => {
        parser.push(line);
        log!.write(line);
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        if (parser.currentTask !== lastTask) {
          lastTask = parser.currentTask;
          ctl.progress(performance.now() - startedAt, lastTask);
        }
      };
      const reading = new AbortController();
      const pumps = Promise.all([
        pumpLines(child.stdout, onLine, reading.signal),
        pumpLines(child.stderr, onLine, reading.signal),
      ]);
      const status = await child.status;
      clearTimeout(timer);
      await grouped;
      // gradlew has exited; what it left in the background may hold its output open. Read what
      // is there for OUTPUT_DRAIN_MS at most, then answer.
      if ((await raceTimeout(pumps, OUTPUT_DRAIN_MS)) === ABORTED) {
        reading.abort();
        await pumps.catch(() => {});
        onLine(
          `[keynobi] stopped reading the build output ${OUTPUT_DRAIN_MS} ms after gradlew ` +
            "exited: a process it left running still holds it",
        );
      }
      ctl.signal.removeEventListener("abort", onAbort);

      const summary = parser.finish();
      await pointAtSources(p.project, summary.diagnostics);
      const logInfo = await log.close();
      log = null;
      const duration = Math.round(performance.now() - startedAt);
      const reason = stopReason as StopReason | null;
      const outcome = reason?.kind === "cancelled"
        ? "cancelled"
        : reason?.kind === "timeout"
        ? "failed"
        : status.success
        ? "success"
        : "failed";
      const apks = outcome === "success"
        ? await collectBuiltApks(p.project, p.appModuleDirs, startedWall).catch(() => [])
        : [];
      const mappings = outcome === "success"
        ? await keepBuiltMappings(dataDir, p.project, p.appModuleDirs, startedWall)
        : [];
      const finished = await finishBuildRecord(dataDir, record.id, {
        status: outcome,
        finished_at: new Date().toISOString(),
        duration_ms: duration,
        exit_code: status.code,
        summary: summaryLine(
          outcome,
          p.tasks,
          duration,
          summary.failed_tasks,
          summary.error_count,
          reason,
        ),
        // Exact counts; the record keeps the first errors, then warnings (bounded).
        error_count: summary.error_count,
        warning_count: summary.warning_count,
        diagnostics: [
          ...summary.diagnostics.filter((d) => d.severity === "error"),
          ...summary.diagnostics.filter((d) => d.severity !== "error"),
        ].slice(0, MAX_RECORDED_DIAGNOSTICS),
        failed_tasks: summary.failed_tasks,
        cancelled_by: reason?.kind === "cancelled" ? reason.by : null,
        reason: reason ? reason.message : outcome === "failed" ? failureReason(summary) : null,
        gradle_pid: child.pid,
        apks,
        mappings,
        provenance: await provenance,
        log: logInfo,
      });
      if (!finished) {
        throw new ToolError(
          "io_error",
          `Build #${record.id} finished but its history record is gone (the history was reset)`,
        );
      }
      return { record: finished, tail };
    } catch (e) {
      if (record) {
        await finishBuildRecord(dataDir, record.id, {
          status: "failed",
          finished_at: new Date().toISOString(),
          summary: `Build could not run: ${(e as Error).message}`,
          reason: (e as Error).message,
          log: log ? await log.close().catch(() => null) ?? undefined : undefined,
        }).catch(() => {});
      }
      if (e instanceof ToolError) throw e;
      throw new ToolError(
        "build_failed",
        `Could not run ${gradlew}: ${(e as Error).message}: check that the project has a Gradle ` +
          "wrapper (run_health_check shows it)",
      );
    } finally {
      started();
      this.#current = null;
      await lock.lock.release().catch(() => {});
      settled.resolve();
      if (this.#settled === settled.promise) this.#settled = null;
    }
  }
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

function failureReason(summary: ReturnType<BuildOutputParser["finish"]>): string {
  const first = summary.diagnostics.find((d) => d.severity === "error");
  if (first) return first.message.split("\n")[0].slice(0, 300);
  if (summary.failed_tasks.length) return `task ${summary.failed_tasks[0]} failed`;
  return "Gradle exited with an error";
}

function summaryLine(
  outcome: string,
  tasks: string[],
  durationMs: number,
  failedTasks: string[],
  errors: number,
  reason: StopReason | null,
): string {
  const secs = (durationMs / 1000).toFixed(1);
  const what = tasks.join(" ");
  if (outcome === "success") return `BUILD SUCCESSFUL — ${what} in ${secs} s`;
  if (outcome === "cancelled") return `BUILD CANCELLED — task '${what}' was ${reason?.message}`;
  if (reason?.kind === "timeout") return `BUILD FAILED — ${what} ${reason.message}`;
  const failed = failedTasks.length ? `; failed: ${failedTasks.join(", ")}` : "";
  return `BUILD FAILED — ${what} in ${secs} s: ${errors} error${errors === 1 ? "" : "s"}${failed}`;
}

/** Keeps the R8 mappings a build wrote (lib/retrace/mapping_store.ts); never fails the build. */
async function keepBuiltMappings(
  dataDir: string,
  root: string,
  moduleDirs: readonly string[],
  sinceMs: number,
): Promise<BuildMapping[]> {
  const out: BuildMapping[] = [];
  try {
    for (const found of await findBuiltMappings(root, moduleDirs, sinceMs)) {
      const kept = await keepMapping(dataDir, found).catch(() => null);
      if (kept) out.push(kept);
    }
  } catch {
    // A mapping that cannot be kept only means its crashes will not retrace.
  }
  return out;
}

/** Diagnostics whose `caused_at` is looked up in the project, at most. */
export const MAX_SOURCE_LOOKUPS = 10;

/** Gives each diagnostic that names a cause (`caused_at`) the file of that class, when found. */
async function pointAtSources(root: string, diagnostics: Diagnostic[]): Promise<void> {
  let n = 0;
  for (const d of diagnostics) {
    if (d.caused_at === undefined || n++ >= MAX_SOURCE_LOOKUPS) continue;
    const file = await findClassSource(root, d.caused_at).catch(() => null);
    if (file !== null) d.caused_at_file = file;
  }
}
