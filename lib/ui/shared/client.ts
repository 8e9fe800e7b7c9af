/**
 * The main thread's handle on the UI worker. The worker starts on the first UI call, with network
 * access to the ADB server only and read/write of the data directory (the UI Automator locks),
 * and lives until `close()`. Every method takes the tool's cancellation signal and answers with
 * plain data (lib/ui/shared/protocol.ts).
 */
import type { AdbServerAddress } from "../../adb/server_address.ts";
import { startWorker, uiWorkerPermissions } from "../../core/worker_permissions.ts";
import { type MethodTable, WorkerClient } from "../../core/worker_client.ts";
import { checkoutUrl } from "../../core/checkout_url.ts";
import type { ActParams, ActResult } from "./act_types.ts";
import type {
  CompareParams,
  CompareResult,
  FindParams,
  FindResult,
  FlowFindParams,
  FlowFindResult,
  LookParams,
  LookResult,
  ObserveParams,
  ObserveResult,
  ResolveParams,
  ResolveResult,
  ScreenshotParams,
  SettleParams,
  SettleResultMessage,
  TreeParams,
  TreeResult,
  UiMethods,
  WaitParams,
  WaitResult,
} from "./protocol.ts";
import { instrumentationBusyError } from "./busy.ts";
import {
  CAPTURE_TOTAL_DEADLINE_MS,
  MAX_MIN_ACTION_INTERVAL_MS,
  MAX_SETTLE_MAX_MS,
  MAX_WAIT_TIMEOUT_MS,
  SCREENSHOT_TIMEOUT_MS,
} from "./limits.ts";
import { existingDirs, type GrpcEndpoint, readDiscovery } from "../../emulator/shared/discovery.ts";
import type {
  FastScreenshotParams,
  FastScreenshotResult,
  PathResult,
  RotateParams,
} from "./fast_path_types.ts";
import { MAX_GESTURE_BUDGET_MS } from "./gesture_limits.ts";

/** Slack on top of a call's own deadlines before the main thread gives up on the worker. */
const UI_WORKER_ANSWER_SLACK_MS = 15_000;
/** The whole budget of `ui.forget` (it drops a device's state; nothing to capture). */
const FORGET_TIMEOUT_MS = 5_000;

interface UiClientOptions {
  dataDir: string;
  /** The ADB server the worker dials. */
  adbServer: AdbServerAddress;
  /** Whether a connected test run this process started holds `serial` (spec: fail at once). */
  instrumentationRunning?: (serial: string) => boolean;
  /** Where workers/ui.ts is (tests and the compiled binary may point elsewhere). */
  workerUrl?: URL;
  /**
   * Where emulators advertise their gRPC endpoints (lib/emulator/shared/discovery.ts discoveryDirs);
   * those that exist when the worker starts are granted read, their endpoints' ports net.
   */
  discoveryDirs?: readonly string[];
  /** `--grpc` / `KEYNOBI_GRPC`: granted and used for emulators without a discovery file. */
  grpc?: GrpcEndpoint | null;
}

/** The program's data files the worker reads (the emulator proto). */
const PROTO_DIR = checkoutUrl("../../../proto/", import.meta.url);

interface UiCallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: number, total: number | undefined, message: string | undefined) => void;
}

/** `host:port` as a net grant writes it (IPv6 in brackets). */
function adbServerGrant(a: AdbServerAddress): string {
  return a.host.includes(":") ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/** A method's own deadlines plus the slack before the main thread gives up on the worker. */
function withSlack<P>(budget: number | ((p: P) => number)): number | ((p: P) => number) {
  if (typeof budget === "number") return budget + UI_WORKER_ANSWER_SLACK_MS;
  return (p) => budget(p) + UI_WORKER_ANSWER_SLACK_MS;
}

/** Each method's budget; `ui.forget` starts no worker (there is nothing to forget). */
const UI_METHODS: MethodTable<UiMethods> = {
  "ui.act": {
    budgetMs: withSlack((p: ActParams) =>
      2 * CAPTURE_TOTAL_DEADLINE_MS + MAX_MIN_ACTION_INTERVAL_MS + MAX_GESTURE_BUDGET_MS +
      (p.observeAfter === false ? 0 : MAX_SETTLE_MAX_MS + 2 * CAPTURE_TOTAL_DEADLINE_MS)
    ),
  },
  "ui.compare": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS) },
  "ui.observe": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS) },
  "ui.look": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS + SCREENSHOT_TIMEOUT_MS) },
  "ui.tree": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS) },
  "ui.find": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS) },
  "ui.resolve": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS) },
  "ui.settle": {
    budgetMs: withSlack((p: SettleParams) =>
      Math.min(p.options?.maxMs ?? MAX_SETTLE_MAX_MS, MAX_SETTLE_MAX_MS) +
      2 * CAPTURE_TOTAL_DEADLINE_MS
    ),
  },
  "ui.wait": {
    budgetMs: withSlack((p: WaitParams) =>
      Math.min(p.timeoutMs ?? MAX_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS) + CAPTURE_TOTAL_DEADLINE_MS
    ),
  },
  "ui.flowFind": {
    budgetMs: withSlack((p: FlowFindParams) =>
      Math.min(p.timeoutMs, MAX_WAIT_TIMEOUT_MS) + CAPTURE_TOTAL_DEADLINE_MS
    ),
  },
  "ui.screenshot": { budgetMs: withSlack(SCREENSHOT_TIMEOUT_MS) },
  "ui.rotateBody": { budgetMs: withSlack(CAPTURE_TOTAL_DEADLINE_MS) },
  "ui.forget": { budgetMs: FORGET_TIMEOUT_MS, whenStopped: () => null },
};

export class UiClient {
  readonly #opts: UiClientOptions;
  readonly #worker: WorkerClient<UiMethods>;

  constructor(opts: UiClientOptions) {
    this.#opts = opts;
    this.#worker = new WorkerClient(UI_METHODS, () => this.#start());
  }

  async #start() {
    const dirs = await existingDirs(this.#opts.discoveryDirs ?? []);
    const advertised = (await readDiscovery(dirs)).map((e) => e.address);
    const explicit = this.#opts.grpc ?? null;
    const url = new URL(
      this.#opts.workerUrl ?? checkoutUrl("../../../workers/ui.ts", import.meta.url),
    );
    url.searchParams.set("dataDir", this.#opts.dataDir);
    url.searchParams.set("adbHost", this.#opts.adbServer.host);
    url.searchParams.set("adbPort", String(this.#opts.adbServer.port));
    url.searchParams.set("discoveryDirs", JSON.stringify(dirs));
    if (explicit) url.searchParams.set("grpc", JSON.stringify(explicit));
    const emulatorGrpc = [...new Set([...advertised, ...(explicit ? [explicit.address] : [])])];
    const permissions = uiWorkerPermissions({
      dataDir: this.#opts.dataDir,
      adbServer: adbServerGrant(this.#opts.adbServer),
      emulatorGrpc,
      discoveryDirs: dirs,
      programRoot: emulatorGrpc.length > 0 ? PROTO_DIR.pathname.replace(/\/$/, "") : null,
      grpcClientExec: emulatorGrpc.length > 0 ? Deno.execPath() : null,
    });
    return startWorker<UiMethods>(url, permissions, "ui");
  }

  /**
   * A result that says the worker may not dial an advertised port (a new emulator since it
   * started): the next call starts a worker granted it.
   */
  #watch<T>(result: T): T {
    const f = (result as { fallback?: { code?: string } | null } | null)?.fallback;
    if (f?.code === "not_granted") this.#worker.renew();
    return result;
  }

  async #call<K extends keyof UiMethods & string>(
    method: K,
    params: UiMethods[K]["params"] & { serial: string },
    opts: UiCallOptions,
  ): Promise<UiMethods[K]["result"]> {
    if (this.#opts.instrumentationRunning?.(params.serial)) {
      throw instrumentationBusyError(params.serial);
    }
    return this.#watch(
      await this.#worker.call(method, params, {
        signal: opts.signal,
        onProgress: opts.onProgress
          ? (p) => opts.onProgress!(p.progress, p.total, p.message)
          : undefined,
      }),
    );
  }

  /**
   * A whole UI action in one request: the worker checks the screen, paces, acts (gRPC or ADB),
   * settles and remembers the settled list (lib/ui/act_service.ts).
   */
  act(p: ActParams, opts: UiCallOptions = {}): Promise<ActResult> {
    return this.#call("ui.act", p, opts);
  }

  /** compare_ui_state: the screen now against the last list shown (kept in the worker). */
  compare(p: CompareParams, opts: UiCallOptions = {}): Promise<CompareResult> {
    return this.#call("ui.compare", p, opts);
  }

  /** Capture and return the element list (stored: its handles become the device's). */
  observe(p: ObserveParams, opts: UiCallOptions = {}): Promise<ObserveResult> {
    return this.#call("ui.observe", p, opts);
  }

  /** The element list and a small picture of the same moment (get_ui_hierarchy screenshot). */
  look(p: LookParams, opts: UiCallOptions = {}): Promise<LookResult> {
    return this.#call("ui.look", p, opts);
  }

  /** Capture and return the full tree (and optionally the XML). */
  tree(p: TreeParams, opts: UiCallOptions = {}): Promise<TreeResult> {
    return this.#call("ui.tree", p, opts);
  }

  /** Capture and return the nodes matching a selector (validated in the worker). */
  find(p: FindParams, opts: UiCallOptions = {}): Promise<FindResult> {
    return this.#call("ui.find", p, opts);
  }

  /** Capture and resolve a handle or tree path; `screen_changed` / `not_found` when it cannot. */
  resolve(p: ResolveParams, opts: UiCallOptions = {}): Promise<ResolveResult> {
    return this.#call("ui.resolve", p, opts);
  }

  /** After an action: capture until the screen responded and settled; returns the list. */
  settle(p: SettleParams, opts: UiCallOptions = {}): Promise<SettleResultMessage> {
    return this.#call("ui.settle", p, opts);
  }

  /** Capture until a selector matches (or, with `gone`, stops matching) or the timeout. */
  wait(p: WaitParams, opts: UiCallOptions = {}): Promise<WaitResult> {
    return this.#call("ui.wait", p, opts);
  }

  /** Capture until a flow's selector is visible, gone or tappable, or its timeout. */
  flowFind(p: FlowFindParams, opts: UiCallOptions = {}): Promise<FlowFindResult> {
    return this.#call("ui.flowFind", p, opts);
  }

  /** An emulator frame over gRPC, else `screencap -p`; downscaled and encoded in the worker. */
  screenshot(
    p: ScreenshotParams & FastScreenshotParams,
    opts: UiCallOptions = {},
  ): Promise<FastScreenshotResult> {
    return this.#call("ui.screenshot", p, opts);
  }

  /** Turns an emulator's body to a quadrant (`setPhysicalModel`). */
  rotateBody(p: RotateParams, opts: UiCallOptions = {}): Promise<PathResult> {
    return this.#call("ui.rotateBody", p, opts);
  }

  /** Forget a device's list and last capture (it went away). No-op before the worker runs. */
  async forget(serial: string): Promise<void> {
    await this.#worker.call("ui.forget", { serial });
  }

  close(): void {
    this.#worker.close();
  }
}
