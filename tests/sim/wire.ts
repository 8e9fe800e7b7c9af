/**
 * Byte framing of the ADB host protocol (PROTOCOLS.md 1.1) and shell protocol v2 (3), written
 * from the protocol facts, not from `lib/adb`.
 */

const enc = new TextEncoder();

/** adbd/adb server refuse a request longer than MAX_PAYLOAD (1 MiB) by closing the socket. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** Largest shell v2 packet the simulator sends (adbd splits output into chunks too). */
export const MAX_V2_CHUNK = 64 * 1024;
/** Largest shell v2 packet accepted from a client. */
export const MAX_V2_INBOUND = 1024 * 1024;

export const ShellId = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  exit: 3,
  closeStdin: 4,
  windowSizeChange: 5,
} as const;

export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const n = parts.reduce((a, p) => a + p.length, 0);
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** 4 lowercase hex digits of the byte length, then the bytes. */
export function protocolString(payload: string | Uint8Array): Uint8Array {
  const bytes = typeof payload === "string" ? enc.encode(payload) : payload;
  return concat(enc.encode(bytes.length.toString(16).padStart(4, "0")), bytes);
}

export function okay(payload?: string | Uint8Array): Uint8Array {
  return payload === undefined
    ? enc.encode("OKAY")
    : concat(enc.encode("OKAY"), protocolString(payload));
}

export function fail(message: string): Uint8Array {
  return concat(enc.encode("FAIL"), protocolString(message));
}

/** The 8-byte little-endian transport id that follows OKAY for `host:tport:`. */
export function transportIdBytes(id: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(id), true);
  return b;
}

/** Parses the 4-hex length; null when not hex (the server then just closes). */
export function parseHexLength(four: Uint8Array): number | null {
  const s = new TextDecoder().decode(four);
  if (!/^[0-9a-fA-F]{4}$/.test(s)) return null;
  return parseInt(s, 16);
}

export function v2Packet(id: number, payload: Uint8Array = new Uint8Array()): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = id;
  new DataView(out.buffer).setUint32(1, payload.length, true);
  out.set(payload, 5);
  return out;
}

/** Splits output into v2 packets no larger than MAX_V2_CHUNK. */
export function v2Packets(id: number, payload: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let off = 0; off < payload.length; off += MAX_V2_CHUNK) {
    out.push(v2Packet(id, payload.subarray(off, off + MAX_V2_CHUNK)));
  }
  return out;
}

export interface V2Packet {
  id: number;
  payload: Uint8Array;
}

/** Incremental v2 decoder: feed any split of bytes, get whole packets. */
export class V2Decoder {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array();
  push(bytes: Uint8Array): V2Packet[] {
    this.buf = concat(this.buf, bytes);
    const out: V2Packet[] = [];
    for (;;) {
      if (this.buf.length < 5) return out;
      const len = new DataView(this.buf.buffer, this.buf.byteOffset).getUint32(1, true);
      if (len > MAX_V2_INBOUND) throw new RangeError(`Shell v2 packet too large: ${len} bytes`);
      if (this.buf.length < 5 + len) return out;
      out.push({ id: this.buf[0], payload: this.buf.slice(5, 5 + len) });
      this.buf = this.buf.slice(5 + len);
    }
  }
}

/** Ordered reads of exact sizes from a connection, keeping what was over-read. */
export class ConnReader {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array();
  private eof = false;
  constructor(private readonly conn: { read(p: Uint8Array): Promise<number | null> }) {}

  /** Exactly n bytes, or null at EOF (or on a read error, which ends the connection too). */
  async readExact(n: number): Promise<Uint8Array | null> {
    while (this.buf.length < n) {
      if (this.eof) return null;
      const chunk = await this.readSome();
      if (!chunk) return null;
    }
    const out = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return out;
  }

  /** Drops what was read and not yet taken (bytes a client sent ahead of an answer). */
  discardBuffered(): number {
    const n = this.buf.length;
    this.buf = new Uint8Array();
    return n;
  }

  /** Whatever is buffered, else the next chunk; null at EOF. */
  async readChunk(): Promise<Uint8Array | null> {
    if (this.buf.length) {
      const out = this.buf;
      this.buf = new Uint8Array();
      return out;
    }
    if (this.eof) return null;
    const got = await this.readSome();
    if (!got) return null;
    const out = this.buf;
    this.buf = new Uint8Array();
    return out;
  }

  private async readSome(): Promise<boolean> {
    const tmp = new Uint8Array(64 * 1024);
    let n: number | null;
    try {
      n = await this.conn.read(tmp);
    } catch {
      n = null;
    }
    if (n === null) {
      this.eof = true;
      return false;
    }
    this.buf = concat(this.buf, tmp.subarray(0, n));
    return true;
  }
}
