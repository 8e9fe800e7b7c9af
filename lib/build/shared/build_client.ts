/**
 * The main thread's handle on the build worker. The worker starts on the first build, with
 * permissions computed from the facts of that build (project, SDK, JDK, data directory), and is
 * restarted when those facts change while no build runs.
 */
import { buildWorkerPermissions, startWorker } from "../../core/worker_permissions.ts";
import type { WorkerClient } from "../../core/worker_rpc.ts";
import type { Origin } from "./build_history.ts";
import { SHUTDOWN_WAIT_MS } from "./build_protocol.ts";
import type {
  BuildMethods,
  BuildRunParams,
  BuildRunResult,
  RunningBuild,
} from "./build_protocol.ts";

/** Helpers the build worker may run besides gradlew: provenance, process probes, stopping trees. */
export const BUILD_WORKER_COMMANDS = ["git", "ps", "readlink", "kill", "cat"] as const;
/** Slack on top of the build timeout before the main thread gives up on the worker's answer. */
export const WORKER_ANSWER_SLACK_MS = 60_000;
/** How much longer than `SHUTDOWN_WAIT_MS` the worker may take to answer `build.shutdown`. */
export const SHUTDOWN_ANSWER_SLACK_MS = 2_000;

export interface BuildClientOptions {
  dataDir: string;
  version: string;
  /** Who runs the builds, for the build worker's messages ("the Keynobi app"). */
  owner?: string;
  /** Where workers/build.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
}

export class BuildClient {
  #opts: BuildClientOptions;
  #worker: WorkerClient<BuildMethods> | null = null;
  #factsKey = "";
  #running = 0;
  /** Task lists of the builds this client is running now. */
  #runningTasks = new Set<string[]>();

  constructor(opts: BuildClientOptions) {
    this.#opts = opts;
  }

  #ensure(p: BuildRunParams): WorkerClient<BuildMethods> {
    const facts = {
      dataDir: this.#opts.dataDir,
      projectRoot: p.project,
      sdkRoot: p.androidHome,
      javaHome: p.javaHome,
      gradlew: `${p.project}/gradlew`,
      commands: BUILD_WORKER_COMMANDS,
    };
    const key = JSON.stringify(facts);
    if (this.#worker && !this.#worker.closed && key === this.#factsKey) return this.#worker;
    if (this.#worker && this.#running === 0) this.#worker.close();
    else if (this.#worker && !this.#worker.closed) return this.#worker;
    const url = new URL(
      this.#opts.workerUrl ?? new URL("../../../workers/build.ts", import.meta.url),
    );
    url.searchParams.set("dataDir", this.#opts.dataDir);
    url.searchParams.set("binary", Deno.execPath());
    url.searchParams.set("version", this.#opts.version);
    if (this.#opts.owner) url.searchParams.set("owner", this.#opts.owner);
    this.#worker = startWorker<BuildMethods>(url, buildWorkerPermissions(facts), "build");
    this.#factsKey = key;
    return this.#worker;
  }

  async run(
    params: BuildRunParams,
    opts: { signal: AbortSignal; onProgress(elapsedMs: number, task: string | null): void },
  ): Promise<BuildRunResult> {
    const worker = this.#ensure(params);
    this.#running++;
    this.#runningTasks.add(params.tasks);
    try {
      return await worker.request("build.run", params, {
        signal: opts.signal,
        timeoutMs: params.timeoutMs + WORKER_ANSWER_SLACK_MS,
        onProgress: (p) => opts.onProgress(p.progress, p.message ?? null),
      });
    } finally {
      this.#running--;
      this.#runningTasks.delete(params.tasks);
    }
  }

  /**
   * Whether a build this process started runs instrumentation on devices (`connected…` tasks, such
   * as run_tests with test_type connected): UI Automator captures must wait for it. A connected
   * test run targets every device (or ANDROID_SERIAL), so this does not depend on the serial.
   */
  instrumentationRunning(): boolean {
    for (const tasks of this.#runningTasks) {
      if (tasks.some((t) => t.slice(t.lastIndexOf(":") + 1).startsWith("connected"))) {
        return true;
      }
    }
    return false;
  }

  async status(): Promise<RunningBuild | null> {
    if (!this.#worker || this.#worker.closed) return null;
    return (await this.#worker.request("build.status", null, { timeoutMs: 5000 })).running;
  }

  async cancel(by: Origin): Promise<RunningBuild | null> {
    if (!this.#worker || this.#worker.closed) return null;
    return (await this.#worker.request("build.cancel", { by }, { timeoutMs: 5000 })).cancelled;
  }

  /** Stop a running build (keynobi is exiting), then the worker. */
  async shutdown(reason: string): Promise<void> {
    if (!this.#worker || this.#worker.closed) return;
    // The worker answers once the stopped build is recorded and its lock released.
    await this.#worker.request("build.shutdown", { reason }, {
      timeoutMs: SHUTDOWN_WAIT_MS + SHUTDOWN_ANSWER_SLACK_MS,
    }).catch(() => {});
  }

  /** Whether a build started through this client is still running. */
  get busy(): boolean {
    return this.#running > 0;
  }

  close(): void {
    this.#worker?.close();
    this.#worker = null;
  }
}
