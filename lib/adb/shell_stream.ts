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
const STREAM_HIGH_WATER_BYTES = 1024 * 1024;
/** stderr bytes kept for a stream; later stderr is dropped. */
const MAX_STREAM_STDERR_BYTES = 1024 * 1024;

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
  return new DeviceStream(conn, reader, v2, signal);
}

/** The streams of one command and the pump that fills them from its socket. */
class DeviceStream implements ShellStream {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exitCode: Promise<number | null>;
  readonly close: () => Promise<void>;
  #out!: ReadableStreamDefaultController<Uint8Array>;
  #err!: ReadableStreamDefaultController<Uint8Array>;
  #closing = false;
  #stderrOpen = true;
  #stderrBytes = 0;
  #wake: (() => void) | null = null;
  // Aborted on close(), so the pump stops even if a pending read ignores the socket close. Each
  // read races it through raceAbort: a plain Promise.race against one pending promise kept every
  // chunk read for the whole stream (issue 9).
  readonly #closed = new AbortController();
  readonly #conn: Connection;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => void this.close();
  #resolveExit!: (code: number | null) => void;
  readonly #pump: Promise<void>;

  constructor(conn: Connection, reader: ByteReader, v2: boolean, signal?: AbortSignal) {
    this.#conn = conn;
    this.#signal = signal;
    const strategy = { highWaterMark: STREAM_HIGH_WATER_BYTES, size: (c: Uint8Array) => c.length };
    this.stdout = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#out = c;
      },
      pull: () => {
        this.#wake?.();
      },
      cancel: () => {
        void this.close();
      },
    }, strategy);
    this.stderr = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.#err = c;
      },
      cancel: () => {
        this.#stderrOpen = false;
      },
    });
    if (!v2) this.#closeStderr();
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.exitCode = new Promise<number | null>((r) => this.#resolveExit = r);
    this.close = async () => {
      this.#closing = true;
      this.#closed.abort();
      this.#conn.close();
      this.#wake?.();
      await this.#pump;
    };
    this.#pump = this.#run(reader, v2 ? new ShellV2Decoder() : null);
  }

  async #run(reader: ByteReader, decoder: ShellV2Decoder | null): Promise<void> {
    let exit: number | null = null;
    let failure: unknown = null;
    try {
      while (!this.#closing) {
        while (!this.#closing && (this.#out.desiredSize ?? 1) <= 0) {
          await new Promise<void>((r) => this.#wake = r);
          this.#wake = null;
        }
        if (this.#closing) break;
        const chunk = await raceAbort(reader.readChunk(), this.#closed.signal);
        if (chunk === null || chunk === ABORTED) break;
        if (decoder === null) this.#out.enqueue(chunk);
        else {
          const status = this.#deliver(decoder, chunk);
          if (status !== undefined) exit = status;
        }
      }
    } catch (e) {
      if (!this.#closing) failure = e;
    } finally {
      this.#conn.close();
      this.#signal?.removeEventListener("abort", this.#onAbort);
      if (failure !== null) this.#fail(failure);
      else this.#end();
      this.#resolveExit(exit);
    }
  }

  /** Routes one chunk's shell_v2 packets; returns the exit status when it carried one. */
  #deliver(decoder: ShellV2Decoder, chunk: Uint8Array): number | null | undefined {
    let exit: number | null | undefined;
    for (const p of decoder.push(chunk)) {
      if (p.id === ShellPacketId.stdout && p.data.length > 0) this.#out.enqueue(p.data);
      else if (p.id === ShellPacketId.stderr && this.#stderrOpen) {
        if (this.#stderrBytes + p.data.length <= MAX_STREAM_STDERR_BYTES) {
          this.#stderrBytes += p.data.length;
          this.#err.enqueue(p.data);
        }
      } else if (p.id === ShellPacketId.exit) exit = p.data[0] ?? null;
    }
    return exit;
  }

  #fail(failure: unknown): void {
    const err = failure instanceof ToolError ? failure : new ToolError(
      "adb_error",
      `Device stream failed: ${failure instanceof Error ? failure.message : failure}; restart it`,
    );
    try {
      this.#out.error(err);
    } catch { /* already closed */ }
    if (this.#stderrOpen) {
      this.#stderrOpen = false;
      try {
        this.#err.error(err);
      } catch { /* already closed */ }
    }
  }

  #end(): void {
    try {
      this.#out.close();
    } catch { /* cancelled */ }
    this.#closeStderr();
  }

  #closeStderr(): void {
    if (!this.#stderrOpen) return;
    this.#stderrOpen = false;
    try {
      this.#err.close();
    } catch {
      // Already closed.
    }
  }
}
