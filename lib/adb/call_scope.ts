/**
 * The deadline and cancellation of one client call. A timeout or the caller's abort aborts the
 * scope at once; the client closes its socket on abort and every awaited I/O step races the abort,
 * so a call never outlives its deadline even over a connection that ignores `close()`.
 */
import { ABORTED, raceAbort } from "../core/abortable.ts";
import { boundedInt } from "../core/bounds.ts";
import { ToolError } from "../core/errors.ts";

/** Options every `AdbClient` call accepts. */
export interface CallOptions {
  /** Whole-call deadline; default `DEFAULT_COMMAND_TIMEOUT_MS`, clamped to the maximum. */
  timeoutMs?: number;
  /** Aborting closes the socket at once and fails the call with `cancelled`. */
  signal?: AbortSignal;
  /** Output cap in bytes; default `DEFAULT_SHELL_OUTPUT_BYTES`, clamped to the maximum. */
  maxOutputBytes?: number;
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
export const MAX_COMMAND_TIMEOUT_MS = 10 * 60_000;

function clampTimeout(ms: number | undefined): number {
  return boundedInt(ms, DEFAULT_COMMAND_TIMEOUT_MS, 1, MAX_COMMAND_TIMEOUT_MS);
}

export class CallScope {
  readonly timeoutMs: number;
  readonly what: string;
  #controller = new AbortController();
  #reason: "timeout" | "cancelled" | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #cleanups: (() => void)[] = [];

  /** `what` names the call for messages, e.g. `shell "getprop" on emulator-5554`. */
  constructor(opts: CallOptions, what: string) {
    this.what = what;
    this.timeoutMs = clampTimeout(opts.timeoutMs);
    const user = opts.signal;
    if (user?.aborted) {
      this.#abort("cancelled");
      return;
    }
    this.#timer = setTimeout(() => this.#abort("timeout"), this.timeoutMs);
    if (user) {
      const onUserAbort = () => this.#abort("cancelled");
      user.addEventListener("abort", onUserAbort, { once: true });
      this.#cleanups.push(() => user.removeEventListener("abort", onUserAbort));
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#reason !== null;
  }

  #abort(reason: "timeout" | "cancelled"): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    this.#controller.abort();
  }

  /** Runs `fn` when the scope aborts (now, if it already has). */
  onAbort(fn: () => void): void {
    if (this.aborted) fn();
    else this.signal.addEventListener("abort", fn, { once: true });
  }

  /** Settles like `p`, or rejects with the abort error as soon as the scope aborts. */
  run<T>(p: Promise<T>): Promise<T> {
    if (this.aborted) {
      p.catch(() => {});
      return Promise.reject(this.abortError());
    }
    return raceAbort(p, this.signal).then((v) =>
      v === ABORTED ? Promise.reject(this.abortError()) : v
    );
  }

  abortError(): ToolError {
    if (this.#reason === "cancelled") {
      return new ToolError("cancelled", `Cancelled: ${this.what}`);
    }
    return new ToolError(
      "timeout",
      `Timed out after ${this.timeoutMs} ms: ${this.what}; check that the device responds ` +
        "(list_devices) and retry, with a longer timeout if the command is slow",
      { timeout_ms: this.timeoutMs },
    );
  }

  /** Clears the timer and listeners; call once the call has settled. */
  dispose(): void {
    clearTimeout(this.#timer);
    for (const c of this.#cleanups) c();
    this.#cleanups = [];
  }
}
