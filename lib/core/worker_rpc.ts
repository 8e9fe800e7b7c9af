/**
 * The request/response/cancel/progress layer between the main thread and a worker.
 *
 * A worker channel is treated like a transport: both ends take any `MessagePort`-like endpoint
 * (a `Worker`, the worker's `self`, or one side of a `MessageChannel` in tests). Messages are one
 * discriminated union. Structured clone drops the `ToolError` subclass and its fields, so errors
 * cross as `ToolErrorData` and are rebuilt with `ToolError.from()` on arrival.
 */
import { ToolError, type ToolErrorCode, type ToolErrorData } from "./errors.ts";

/** Requests one client may have waiting at once (and one worker may run at once). */
export const MAX_PENDING_REQUESTS = 256;
/** Timeout of a request that names none. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The longest timeout a request may ask for (a long Gradle build); larger values are clamped. */
export const MAX_REQUEST_TIMEOUT_MS = 2 * 60 * 60 * 1000;
/** Progress messages longer than this are cut; progress is for humans, not payloads. */
const MAX_PROGRESS_MESSAGE_CHARS = 1_000;

/** One method's parameter and result types. */
interface MethodSpec {
  params: unknown;
  result: unknown;
}

/** A method map: `{ [method]: {params, result} }`. Interfaces satisfy it too. */
export type MethodsOf<M> = { [K in keyof M]: MethodSpec };

interface RequestMessage {
  type: "request";
  id: number;
  method: string;
  params: unknown;
}
interface CancelMessage {
  type: "cancel";
  id: number;
}
interface ProgressMessage {
  type: "progress";
  id: number;
  progress: number;
  total?: number;
  message?: string;
}
interface ResultMessage {
  type: "result";
  id: number;
  value: unknown;
}
interface ErrorMessage {
  type: "error";
  id: number;
  error: ToolErrorData;
}
type RpcMessage =
  | RequestMessage
  | CancelMessage
  | ProgressMessage
  | ResultMessage
  | ErrorMessage;

/** What both ends need from a channel: a `Worker`, a worker's `self`, or a `MessagePort`. */
interface RpcEndpoint {
  postMessage(message: unknown): void;
  addEventListener?(type: "message", listener: (event: MessageEvent) => void): void;
  removeEventListener?(type: "message", listener: (event: MessageEvent) => void): void;
  onmessage?: ((event: MessageEvent) => void) | null;
  /** `MessagePort.start()`: needed when listening with `addEventListener`. */
  start?(): void;
  /** `MessagePort.close()`: called by `close()` when present. */
  close?(): void;
}

interface RequestOptions {
  signal?: AbortSignal;
  /** Default `DEFAULT_REQUEST_TIMEOUT_MS`, clamped to `MAX_REQUEST_TIMEOUT_MS`. */
  timeoutMs?: number;
  onProgress?: (progress: Progress) => void;
  /** Restart the timeout whenever progress arrives (long builds that keep reporting). */
  resetTimeoutOnProgress?: boolean;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

interface RpcChannelOptions {
  /** Names the worker in error messages ("logcat", "ui", "build"). */
  name?: string;
  /** Called once by `close()`, e.g. to terminate the `Worker`. */
  onClose?: () => void;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onProgress?: (progress: Progress) => void;
  restartTimer?: () => void;
  cleanup(): void;
}

/** The error every pending and later request gets once the channel is gone. */
function closedError(name: string): ToolError {
  return new ToolError(
    "cancelled",
    `The ${name} worker was stopped: retry the call once the server has restarted it`,
  );
}

/** Rejects a bad `timeoutMs`; clamps a large one to `MAX_REQUEST_TIMEOUT_MS`. */
export function effectiveTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return DEFAULT_REQUEST_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`Cannot use request timeout: ${timeoutMs} is not a positive number`);
  }
  return Math.min(Math.ceil(timeoutMs), MAX_REQUEST_TIMEOUT_MS);
}

/** Parses an incoming message; anything that is not one of ours is `null` and ignored. */
export function parseRpcMessage(data: unknown): RpcMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const m = data as Record<string, unknown>;
  if (typeof m.id !== "number" || !Number.isSafeInteger(m.id)) return null;
  switch (m.type) {
    case "request":
      return typeof m.method === "string" ? (m as unknown as RequestMessage) : null;
    case "cancel":
    case "result":
      return m as unknown as RpcMessage;
    case "progress":
      return typeof m.progress === "number" ? (m as unknown as ProgressMessage) : null;
    case "error":
      return m as unknown as ErrorMessage;
    default:
      return null;
  }
}

/** Rebuilds a `ToolError` from what crossed the channel, tolerating a malformed payload. */
export function rebuildError(error: unknown, name: string, method: string): ToolError {
  if (typeof error === "object" && error !== null) {
    const e = error as Record<string, unknown>;
    if (typeof e.code === "string" && typeof e.message === "string") {
      const data = typeof e.data === "object" && e.data !== null
        ? e.data as Record<string, unknown>
        : undefined;
      return ToolError.from({ code: e.code as ToolErrorCode, message: e.message, data });
    }
  }
  return new ToolError(
    "internal_error",
    `The ${name} worker answered ${method} with a malformed error: report this as a Keynobi bug`,
  );
}

function listen(endpoint: RpcEndpoint, listener: (event: MessageEvent) => void): () => void {
  if (endpoint.addEventListener) {
    endpoint.addEventListener("message", listener);
    endpoint.start?.();
    return () => endpoint.removeEventListener?.("message", listener);
  }
  endpoint.onmessage = listener;
  return () => {
    if (endpoint.onmessage === listener) endpoint.onmessage = null;
  };
}

/** The host side: typed requests over one worker channel (lib/core/worker_client.ts sits above). */
export class RpcChannel<M extends MethodsOf<M>> {
  readonly name: string;
  #endpoint: RpcEndpoint;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #unlisten: () => void;
  #onClose: (() => void) | undefined;
  /** Set once the channel is closed or the worker died; every request rejects with it. */
  #failure: ToolError | null = null;
  #closed = false;

  constructor(endpoint: RpcEndpoint, options: RpcChannelOptions = {}) {
    this.#endpoint = endpoint;
    this.name = options.name ?? "background";
    this.#onClose = options.onClose;
    this.#unlisten = listen(endpoint, (event) => this.#receive(event.data));
  }

  /** Requests waiting for an answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** True once `close()` or `fail()` ran. */
  get closed(): boolean {
    return this.#failure !== null;
  }

  request<K extends keyof M & string>(
    method: K,
    params: M[K]["params"],
    options: RequestOptions = {},
  ): Promise<M[K]["result"]> {
    if (this.#failure) return Promise.reject(this.#failure);
    const timeoutMs = effectiveTimeout(options.timeoutMs);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(this.#cancelledError(method));
    if (this.#pending.size >= MAX_PENDING_REQUESTS) {
      return Promise.reject(
        new ToolError(
          "invalid_request",
          `Too many requests are waiting on the ${this.name} worker (${MAX_PENDING_REQUESTS}): ` +
            "wait for running calls to finish, then retry",
        ),
      );
    }
    const id = this.#nextId++;
    return new Promise<M[K]["result"]>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        this.#settle(id)?.reject(this.#cancelledError(method));
        this.#send({ type: "cancel", id });
      };
      const onTimeout = () => {
        this.#settle(id)?.reject(
          new ToolError(
            "timeout",
            `The ${this.name} worker did not answer ${method} within ${timeoutMs} ms: ` +
              "retry, or check the device and the server log",
            { timeout_ms: timeoutMs },
          ),
        );
        this.#send({ type: "cancel", id });
      };
      const startTimer = () => {
        clearTimeout(timer);
        timer = setTimeout(onTimeout, timeoutMs);
      };
      const entry: Pending = {
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        onProgress: options.onProgress,
        restartTimer: options.resetTimeoutOnProgress ? startTimer : undefined,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      this.#pending.set(id, entry);
      signal?.addEventListener("abort", onAbort, { once: true });
      startTimer();
      try {
        this.#endpoint.postMessage({ type: "request", id, method, params } satisfies RpcMessage);
      } catch (e) {
        this.#settle(id)?.reject(
          new ToolError(
            "internal_error",
            `Cannot send ${method} to the ${this.name} worker: ${errorText(e)}: ` +
              "report this as a Keynobi bug",
          ),
        );
      }
    });
  }

  /** Rejects every pending and later request with `error` (the worker died). Idempotent. */
  fail(error: ToolError): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#unlisten();
    for (const id of [...this.#pending.keys()]) this.#settle(id)?.reject(error);
  }

  /** Stops listening, rejects what is pending (code `cancelled`), and closes the endpoint. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.fail(closedError(this.name));
    this.#endpoint.close?.();
    this.#onClose?.();
  }

  #cancelledError(method: string): ToolError {
    return new ToolError("cancelled", `The ${method} request was cancelled`);
  }

  #settle(id: number): Pending | undefined {
    const entry = this.#pending.get(id);
    if (!entry) return undefined;
    this.#pending.delete(id);
    entry.cleanup();
    return entry;
  }

  #send(message: RpcMessage): void {
    try {
      this.#endpoint.postMessage(message);
    } catch {
      // The channel is already gone; the pending entry was settled by the caller.
    }
  }

  #receive(data: unknown): void {
    const message = parseRpcMessage(data);
    if (!message) return;
    switch (message.type) {
      case "result":
        this.#settle(message.id)?.resolve(message.value);
        return;
      case "error": {
        const entry = this.#settle(message.id);
        entry?.reject(rebuildError(message.error, this.name, entry.method));
        return;
      }
      case "progress": {
        const entry = this.#pending.get(message.id);
        if (!entry) return;
        entry.restartTimer?.();
        if (!entry.onProgress) return;
        const p: Progress = { progress: message.progress };
        if (typeof message.total === "number") p.total = message.total;
        if (typeof message.message === "string") p.message = message.message;
        try {
          entry.onProgress(p);
        } catch {
          // A failing progress listener must not break the request it listens to.
        }
        return;
      }
      default:
        return; // requests and cancels flow the other way
    }
  }
}

/** What a handler receives beside its params. */
interface HandlerContext {
  /** Aborted when the host cancels the request, it times out, or the server stops. */
  signal: AbortSignal;
  progress(progress: number, total?: number, message?: string): void;
}

export type Handlers<M extends MethodsOf<M>> = {
  [K in keyof M]: (
    params: M[K]["params"],
    ctx: HandlerContext,
  ) => Promise<M[K]["result"]> | M[K]["result"];
};

interface ServeOptions {
  /** Names the worker in error messages. */
  name?: string;
}

export interface WorkerServer {
  /** Handlers still running. */
  readonly running: number;
  /**
   * Stops listening, aborts every running handler, and closes the endpoint when it has `close()`
   * (a `MessagePort`; inside a worker, `workerScope().close()` ends the worker).
   */
  close(): void;
}

/**
 * Turns any thrown value into what crosses the channel: `ToolError`s keep their code; a denied
 * Deno permission and everything else become `internal_error` (a worker doing what its grant does
 * not cover is our bug).
 */
function toErrorData(e: unknown, name: string, method: string): ToolErrorData {
  if (e instanceof ToolError) return e.toErrorData();
  if (e instanceof Deno.errors.NotCapable) {
    return {
      code: "internal_error",
      message: `The ${name} worker is not allowed to do this in ${method}: ${e.message}: ` +
        "its permissions come from lib/core/worker_permissions.ts; report this as a Keynobi bug",
      data: { error: "NotCapable" },
    };
  }
  const errorName = e instanceof Error ? e.name : typeof e;
  return {
    code: "internal_error",
    message: `The ${name} worker failed in ${method}: ${errorText(e)}: ` +
      "report this as a Keynobi bug",
    data: { error: errorName },
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The worker side: answers requests with `handlers`. */
// deno-lint-ignore house/long-function -- the message loop and the running-request table it shares
export function serveWorker<M extends MethodsOf<M>>(
  endpoint: RpcEndpoint,
  handlers: Handlers<M>,
  options: ServeOptions = {},
): WorkerServer {
  const name = options.name ?? "background";
  const running = new Map<number, AbortController>();

  const post = (message: RpcMessage, method: string) => {
    try {
      endpoint.postMessage(message);
    } catch (e) {
      // A result that cannot be cloned (a function, a class with private state) is our bug.
      if (message.type === "result" || message.type === "error") {
        const fallback: RpcMessage = {
          type: "error",
          id: message.id,
          error: {
            code: "internal_error",
            message: `The ${name} worker cannot send its answer to ${method}: ${errorText(e)}: ` +
              "report this as a Keynobi bug",
          },
        };
        try {
          endpoint.postMessage(fallback);
        } catch {
          // The channel itself is gone.
        }
      }
    }
  };

  const run = async (message: RequestMessage) => {
    const { id, method } = message;
    if (running.has(id)) return;
    const handler = Object.hasOwn(handlers, method)
      ? (handlers as Record<string, Handlers<M>[keyof M]>)[method]
      : undefined;
    if (typeof handler !== "function") {
      post({
        type: "error",
        id,
        error: {
          code: "internal_error",
          message: `The ${name} worker has no method ${method}: report this as a Keynobi bug`,
        },
      }, method);
      return;
    }
    if (running.size >= MAX_PENDING_REQUESTS) {
      post({
        type: "error",
        id,
        error: {
          code: "invalid_request",
          message: `The ${name} worker is running ${MAX_PENDING_REQUESTS} requests: ` +
            "wait for running calls to finish, then retry",
        },
      }, method);
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    const ctx: HandlerContext = {
      signal: controller.signal,
      progress(progress, total, text) {
        if (controller.signal.aborted || !Number.isFinite(progress)) return;
        const m: ProgressMessage = { type: "progress", id, progress };
        if (total !== undefined && Number.isFinite(total)) m.total = total;
        if (text !== undefined) m.message = String(text).slice(0, MAX_PROGRESS_MESSAGE_CHARS);
        post(m, method);
      },
    };
    try {
      const value = await handler(message.params, ctx);
      if (!controller.signal.aborted) post({ type: "result", id, value }, method);
    } catch (e) {
      if (!controller.signal.aborted) {
        post({ type: "error", id, error: toErrorData(e, name, method) }, method);
      }
    } finally {
      running.delete(id);
    }
  };

  const unlisten = listen(endpoint, (event) => {
    const message = parseRpcMessage(event.data);
    if (!message) return;
    if (message.type === "request") {
      void run(message);
    } else if (message.type === "cancel") {
      running.get(message.id)?.abort(
        new ToolError("cancelled", "The request was cancelled by the server"),
      );
    }
  });

  return {
    get running() {
      return running.size;
    },
    close() {
      unlisten();
      for (const controller of running.values()) {
        controller.abort(new ToolError("cancelled", `The ${name} worker is stopping`));
      }
      running.clear();
      endpoint.close?.();
    },
  };
}

/**
 * The worker's own global scope as an endpoint, for `serveWorker(workerScope(), …)` inside a
 * worker module (Deno types `self` as `Window`, which has no one-argument `postMessage`).
 */
export function workerScope(): RpcEndpoint {
  return globalThis as unknown as RpcEndpoint;
}
