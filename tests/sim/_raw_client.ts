/** Test helper: a byte-level TCP client for asserting exact wire replies. */
import { concat, protocolString } from "./wire.ts";

const dec = new TextDecoder();

export const READ_TIMEOUT_MS = 5000;

export class RawClient {
  private buf = new Uint8Array();
  private constructor(readonly conn: Deno.TcpConn) {}

  static async connect(port: number): Promise<RawClient> {
    return new RawClient(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  async write(b: Uint8Array | string) {
    const bytes = typeof b === "string" ? new TextEncoder().encode(b) : b;
    let off = 0;
    while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
  }

  request(service: string) {
    return this.write(protocolString(service));
  }

  private async fill(): Promise<boolean> {
    const tmp = new Uint8Array(65536);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      this.conn.read(tmp).catch(() => null),
      new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), READ_TIMEOUT_MS)),
    ]);
    clearTimeout(timer);
    if (n === "timeout") throw new Error("Read timed out: the simulator sent nothing");
    if (n === null) return false;
    this.buf = concat(this.buf, tmp.subarray(0, n));
    return true;
  }

  async read(n: number): Promise<Uint8Array> {
    while (this.buf.length < n) {
      if (!await this.fill()) throw new Error(`EOF after ${this.buf.length} of ${n} bytes`);
    }
    const out = this.buf.slice(0, n);
    this.buf = this.buf.slice(n);
    return out;
  }

  async readText(n: number): Promise<string> {
    return dec.decode(await this.read(n));
  }

  /** 4-hex length + payload. */
  async readProtocolString(): Promise<string> {
    const len = parseInt(await this.readText(4), 16);
    return await this.readText(len);
  }

  /** Everything until the server closes. */
  async readAll(): Promise<Uint8Array> {
    while (await this.fill()) { /* keep reading */ }
    const out = this.buf;
    this.buf = new Uint8Array();
    return out;
  }

  close() {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }

  [Symbol.dispose]() {
    this.close();
  }
}

/** One host request on a fresh connection; the whole reply until EOF, as text. */
export async function hostQuery(port: number, service: string): Promise<string> {
  using c = await RawClient.connect(port);
  await c.request(service);
  return dec.decode(await c.readAll());
}
