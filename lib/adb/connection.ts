/**
 * The byte pipe the ADB host-protocol client talks through. The protocol core only sees these
 * interfaces; `tcp_connection.ts` is the one adapter that does real socket I/O, and tests hand the
 * client a scripted fake.
 */
import { concatBytes } from "../core/bytes.ts";
import type { AdbServerAddress } from "./server_address.ts";

/** A bidirectional byte stream to the ADB server. */
export interface Connection {
  /** The next chunk of bytes, or `null` at end of stream. */
  read(): Promise<Uint8Array | null>;
  /** Writes every byte of `data`. */
  write(data: Uint8Array): Promise<void>;
  /** Closes both directions at once; idempotent. A pending `read` may resolve `null` or reject. */
  close(): void;
}

/** Opens a connection to the ADB server; rejects with `ConnectionRefused` when nothing listens. */
export type Connector = (address: AdbServerAddress, signal: AbortSignal) => Promise<Connection>;

/** Nothing listens at the address (ECONNREFUSED): the one failure that may start a server. */
export class ConnectionRefused extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConnectionRefused";
  }
}

/**
 * Buffered reads over a `Connection`: exact-length reads for protocol framing, and chunk reads
 * that first hand back whatever framing left buffered.
 */
export class ByteReader {
  #conn: Connection;
  #buf: Uint8Array = new Uint8Array(0);
  #eof = false;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /** Reads exactly `n` bytes; `null` if the stream ended first (the partial bytes are lost). */
  async readExactly(n: number): Promise<Uint8Array | null> {
    while (this.#buf.length < n) {
      if (this.#eof) return null;
      const chunk = await this.#conn.read();
      if (chunk === null) {
        this.#eof = true;
        return null;
      }
      this.#buf = this.#buf.length === 0 ? chunk : concatBytes([this.#buf, chunk]);
    }
    const out = this.#buf.slice(0, n);
    this.#buf = this.#buf.subarray(n);
    return out;
  }

  /** The buffered remainder if any, else the next chunk from the connection; `null` at EOF. */
  async readChunk(): Promise<Uint8Array | null> {
    if (this.#buf.length > 0) {
      const out = this.#buf;
      this.#buf = new Uint8Array(0);
      return out;
    }
    if (this.#eof) return null;
    const chunk = await this.#conn.read();
    if (chunk === null) this.#eof = true;
    return chunk;
  }
}
