/**
 * The main thread's handle on the build worker. The worker starts on the first build, with
 * permissions computed from the facts of that build (project, SDK, JDK, data directory), and is
 * restarted when those facts change while no build runs. Status, cancel and shutdown start no
 * worker: before the first build there is nothing to ask.
 */
import {
  buildWorkerPermissions,
  startWorker,
  type WorkerFacts,
} from "../../core/worker_permissions.ts";
import { type MethodTable, WorkerClient } from "../../core/worker_client.ts";
import { checkoutUrl } from "../../core/checkout_url.ts";
import type { Origin } from "./build_record.ts";
import { SHUTDOWN_WAIT_MS } from "./build_protocol.ts";
import type {
  BuildMethods,
  BuildRunParams,
  BuildRunResult,
  RunningBuild,
} from "./build_protocol.ts";

/** Helpers the build worker may run besides gradlew: provenance, process probes, stopping trees. */
const BUILD_WORKER_COMMANDS = ["git", "ps", "readlink", "kill", "cat"] as const;
/** Slack on top of the build timeout before the main thread gives up on the worker's answer. */
const WORKER_ANSWER_SLACK_MS = 60_000;
/** How much longer than `SHUTDOWN_WAIT_MS` the worker may take to answer `build.shutdown`. */
const SHUTDOWN_ANSWER_SLACK_MS = 2_000;
/** Budget of a status or cancel question. */
const QUERY_TIMEOUT_MS = 5_000;

/** Each method's budget (a build's is its own timeout plus slack); queries start no worker. */
const BUILD_METHODS: MethodTable<BuildMethods> = {
  "build.run": { budgetMs: (p) => p.timeoutMs + WORKER_ANSWER_SLACK_MS },
  "build.status": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => ({ running: null }) },
  "build.cancel": { budgetMs: QUERY_TIMEOUT_MS, whenStopped: () => ({ cancelled: null }) },
  "build.shutdown": {
    budgetMs: SHUTDOWN_WAIT_MS + SHUTDOWN_ANSWER_SLACK_MS,
    whenStopped: () => ({ stopped: false }),
  },
};

interface BuildClientOptions {
  dataDir: string;
  version: string;
  /** Who runs the builds, for the build worker's messages ("the Keynobi app"). */
  owner?: string;
  /** Where workers/build.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
}

export class BuildClient {
  readonly #opts: BuildClientOptions;
  readonly #worker: WorkerClient<BuildMethods>;
  /** The facts the running worker was granted, and those the next start grants. */
  #factsKey = "";
  #nextFacts: WorkerFacts | null = null;
  #running = 0;
  /** Task lists of the builds this client is running now. */
  #runningTasks = new Set<string[]>();

  constructor(opts: BuildClientOptions) {
    this.#opts = opts;
    this.#worker = new WorkerClient(BUILD_METHODS, () => this.#startWorker());
  }

  #startWorker() {
    const facts = this.#nextFacts!;
    const url = new URL(
      this.#opts.workerUrl ?? checkoutUrl("../../../workers/build.ts", import.meta.url),
    );
    url.searchParams.set("dataDir", this.#opts.dataDir);
    url.searchParams.set("binary", Deno.execPath());
    url.searchParams.set("version", this.#opts.version);
    if (this.#opts.owner) url.searchParams.set("owner", this.#opts.owner);
    const channel = startWorker<BuildMethods>(url, buildWorkerPermissions(facts), "build");
    this.#factsKey = JSON.stringify(facts);
    return channel;
  }

  /** A build with other facts renews the worker, unless a build still runs on the old one. */
  #prepare(p: BuildRunParams): void {
    const facts: WorkerFacts = {
      dataDir: this.#opts.dataDir,
      projectRoot: p.project,
      sdkRoot: p.androidHome,
      javaHome: p.javaHome,
      gradlew: `${p.project}/gradlew`,
      commands: BUILD_WORKER_COMMANDS,
    };
    const key = JSON.stringify(facts);
    if (this.#worker.running && (key === this.#factsKey || this.#running > 0)) return;
    this.#nextFacts = facts;
    this.#worker.renew();
  }

  async run(
    params: BuildRunParams,
    opts: { signal: AbortSignal; onProgress(elapsedMs: number, task: string | null): void },
  ): Promise<BuildRunResult> {
    this.#prepare(params);
    this.#running++;
    this.#runningTasks.add(params.tasks);
    try {
      return await this.#worker.call("build.run", params, {
        signal: opts.signal,
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
    return (await this.#worker.call("build.status", null)).running;
  }

  async cancel(by: Origin): Promise<RunningBuild | null> {
    return (await this.#worker.call("build.cancel", { by })).cancelled;
  }

  /** Stop a running build (keynobi is exiting): the worker answers once it is recorded. */
  async shutdown(reason: string): Promise<void> {
    await this.#worker.call("build.shutdown", { reason }).catch(() => {});
  }

  /** Whether a build started through this client is still running. */
  get busy(): boolean {
    return this.#running > 0;
  }

  close(): void {
    this.#worker.close();
  }
}
