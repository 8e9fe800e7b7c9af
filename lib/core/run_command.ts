/**
 * Running a short external command: an argument vector (never a shell), a timeout after which the
 * child gets SIGKILL, and stdout/stderr each kept up to a byte cap. Every short command lib/ runs
 * goes through here: tool probes (`java -version`, `adb version`…), `adb start-server`, git, `ps`,
 * `readlink`, `kill`.
 *
 * When the timeout fires we also stop reading: the killed child's grandchildren (a JVM's workers,
 * a shell's background jobs) may hold its pipes open for as long as they live.
 */
import { concatBytes } from "./bytes.ts";

/** The longest timeout `runCommand` accepts; longer ones are cut to it. */
const MAX_RUN_COMMAND_TIMEOUT_MS = 10 * 60_000;
/** The largest output cap `runCommand` accepts; larger ones are cut to it. */
const MAX_RUN_COMMAND_OUTPUT_BYTES = 64 * 1024 * 1024;

interface RunCommandOptions {
  /** SIGKILL the command after this long (0..`MAX_RUN_COMMAND_TIMEOUT_MS`). */
  timeoutMs: number;
  /** stdout and stderr are each kept up to this many bytes (0..`MAX_RUN_COMMAND_OUTPUT_BYTES`). */
  maxOutputBytes: number;
  /** Variables added to (or replacing) ours. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Receives every stdout chunk, uncapped, instead of `stdout` collecting it (`stdout` is then "").
   * If it throws, the rest of stdout is not read.
   */
  onStdout?: (chunk: Uint8Array) => void;
}

export interface RunCommandResult {
  /** The exit code; `null` when the command could not start or timed out. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The executable does not exist. */
  notFound: boolean;
  /** Why it could not start, or that it timed out; `null` when it ran to its end. */
  error: string | null;
}

function clamp(n: number, max: number): number {
  return Number.isNaN(n) ? 0 : Math.min(Math.max(0, n), max);
}

/** Bytes up to `max`, then decoded as UTF-8 at the end. */
function collector(max: number) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  return {
    add(chunk: Uint8Array): void {
      if (size >= max) return;
      const part = chunk.subarray(0, max - size);
      chunks.push(part);
      size += part.length;
    },
    text(): string {
      return new TextDecoder().decode(concatBytes(chunks, size));
    },
  };
}

/** Reads `stream` to its end, or until `signal` aborts (a killed child's pipe may stay open). */
async function readAll(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
  signal: AbortSignal,
): Promise<void> {
  const reader = stream.getReader();
  const onAbort = () => reader.cancel().catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      onChunk(value);
    }
  } catch {
    /* cancelled after the timeout, or `onChunk` threw */
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}

/** Runs `command args…` with a timeout and capped output (see the module comment); never throws. */
export async function runCommand(
  command: string,
  args: string[],
  opts: RunCommandOptions,
): Promise<RunCommandResult> {
  const timeoutMs = clamp(opts.timeoutMs, MAX_RUN_COMMAND_TIMEOUT_MS);
  const maxBytes = clamp(opts.maxOutputBytes, MAX_RUN_COMMAND_OUTPUT_BYTES);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command, {
      args,
      env: opts.env ? { ...opts.env } : undefined,
      cwd: opts.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (e) {
    return {
      code: null,
      stdout: "",
      stderr: "",
      timedOut: false,
      notFound: e instanceof Deno.errors.NotFound,
      error: e instanceof Error ? e.message : String(e),
    };
  }
  let timedOut = false;
  const stop = new AbortController();
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    stop.abort();
  }, timeoutMs);
  const out = collector(maxBytes);
  const err = collector(maxBytes);
  try {
    const [, , status] = await Promise.all([
      readAll(child.stdout, opts.onStdout ?? out.add, stop.signal),
      readAll(child.stderr, err.add, stop.signal),
      child.status,
    ]);
    return {
      code: timedOut ? null : status.code,
      stdout: out.text(),
      stderr: err.text(),
      timedOut,
      notFound: false,
      error: timedOut ? `it did not finish within ${timeoutMs} ms` : null,
    };
  } catch (e) {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    return {
      code: null,
      stdout: out.text(),
      stderr: err.text(),
      timedOut,
      notFound: false,
      error: e instanceof Error ? e.message : String(e),
    };
  } finally {
    clearTimeout(timer);
  }
}
