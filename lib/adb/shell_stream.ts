/**
 * A long-running device command as streams (logcat, `getevent`): stdout honours backpressure, so a
 * slow reader slows the socket instead of growing memory; stderr is buffered up to a cap and then
 * dropped, so a reader that ignores it never stalls stdout.
 */
import { ABORTED, raceAbort } from "../core/abortable.ts";
import { ToolError } from "../core/errors.ts";
import type { ByteReader, Connection } from "./connection.ts";
import { ShellPacketId, ShellV2Decoder } from "./shell_v2.ts";

/** Bytes of stdout queued for a slow reader before the socket is no longer read. */
export const STREAM_HIGH_WATER_BYTES = 1024 * 1024;
/** stderr bytes kept for a stream; later stderr is dropped. */
export const MAX_STREAM_STDERR_BYTES = 1024 * 1024;

export interface ShellStream {
  /** Device stdout (everything, stderr included, without shell_v2). Cancelling it closes all. */
  stdout: ReadableStream<Uint8Array>;
  /** Device stderr (closed at once without shell_v2). */
  stderr: ReadableStream<Uint8Array>;
  /** The exit status once the command ends; null when closed early or unknown (no shell_v2). */
  exitCode: Promise<number | null>;
  /** Stops the command (closes the socket) and waits until the streams are closed. */
  close(): Promise<void>;
}

export function createShellStream(
  conn: Connection,
  reader: ByteReader,
  v2: boolean,
  signal?: AbortSignal,
): ShellStream {
  let outCtl!: ReadableStreamDefaultController<Uint8Array>;
  let errCtl!: ReadableStreamDefaultController<Uint8Array>;
  let closing = false;
  let stderrOpen = true;
  let stderrBytes = 0;
  let wake: (() => void) | null = null;
  // Aborted on close(), so the pump stops even if a pending read ignores the socket close. Each
  // read races it through raceAbort: a plain Promise.race against one pending promise kept every
  // chunk read for the whole stream (issue 9).
  const closed = new AbortController();
  const strategy = { highWaterMark: STREAM_HIGH_WATER_BYTES, size: (c: Uint8Array) => c.length };

  const stdout = new ReadableStream<Uint8Array>({
    start(c) {
      outCtl = c;
    },
    pull() {
      wake?.();
    },
    cancel() {
      void close();
    },
  }, strategy);
  const stderr = new ReadableStream<Uint8Array>({
    start(c) {
      errCtl = c;
    },
    cancel() {
      stderrOpen = false;
    },
  });

  const closeStderr = () => {
    if (!stderrOpen) return;
    stderrOpen = false;
    try {
      errCtl.close();
    } catch {
      // Already closed.
    }
  };
  if (!v2) closeStderr();

  const onAbort = () => void close();
  signal?.addEventListener("abort", onAbort, { once: true });

  let resolveExit!: (code: number | null) => void;
  const exitCode = new Promise<number | null>((r) => resolveExit = r);

  const pump = (async () => {
    const decoder = v2 ? new ShellV2Decoder() : null;
    let exit: number | null = null;
    let failure: unknown = null;
    try {
      while (!closing) {
        while (!closing && (outCtl.desiredSize ?? 1) <= 0) {
          await new Promise<void>((r) => wake = r);
          wake = null;
        }
        if (closing) break;
        const chunk = await raceAbort(reader.readChunk(), closed.signal);
        if (chunk === null || chunk === ABORTED) break;
        if (decoder === null) {
          outCtl.enqueue(chunk);
          continue;
        }
        for (const p of decoder.push(chunk)) {
          if (p.id === ShellPacketId.stdout && p.data.length > 0) outCtl.enqueue(p.data);
          else if (p.id === ShellPacketId.stderr && stderrOpen) {
            if (stderrBytes + p.data.length <= MAX_STREAM_STDERR_BYTES) {
              stderrBytes += p.data.length;
              errCtl.enqueue(p.data);
            }
          } else if (p.id === ShellPacketId.exit) exit = p.data[0] ?? null;
        }
      }
    } catch (e) {
      if (!closing) failure = e;
    } finally {
      conn.close();
      signal?.removeEventListener("abort", onAbort);
      if (failure !== null) {
        const err = failure instanceof ToolError ? failure : new ToolError(
          "adb_error",
          `Device stream failed: ${failure instanceof Error ? failure.message : failure}; ` +
            "restart it",
        );
        try {
          outCtl.error(err);
        } catch { /* already closed */ }
        if (stderrOpen) {
          stderrOpen = false;
          try {
            errCtl.error(err);
          } catch { /* already closed */ }
        }
      } else {
        try {
          outCtl.close();
        } catch { /* cancelled */ }
        closeStderr();
      }
      resolveExit(exit);
    }
  })();

  async function close(): Promise<void> {
    closing = true;
    closed.abort();
    conn.close();
    wake?.();
    await pump;
  }

  return { stdout, stderr, exitCode, close };
}
