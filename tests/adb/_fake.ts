/** A scripted fake `Connection`/`Connector` for exact-bytes tests of the ADB client. */
import { type Connection, ConnectionRefused, type Connector } from "../../lib/adb/connection.ts";
import type { AdbServerAddress } from "../../lib/adb/server_address.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A read step: bytes (strings are UTF-8), or HANG (never answers until closed). */
export const HANG = Symbol("hang");
export type Step = Uint8Array | string | typeof HANG;

export class FakeConnection implements Connection {
  readonly writes: Uint8Array[] = [];
  /** How many reads had been answered when each write was made (what the client had seen). */
  readonly readsAtWrite: number[] = [];
  #reads = 0;
  closed = false;
  #steps: Step[];
  #pending: ((v: Uint8Array | null) => void) | null = null;

  constructor(steps: Step[]) {
    this.#steps = [...steps];
  }

  read(): Promise<Uint8Array | null> {
    if (this.closed) return Promise.resolve(null);
    const step = this.#steps.shift();
    this.#reads++;
    if (step === undefined) return Promise.resolve(null);
    if (step === HANG) return new Promise((r) => this.#pending = r);
    return Promise.resolve(typeof step === "string" ? enc.encode(step) : step);
  }

  write(data: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new Error("write after close"));
    this.writes.push(data.slice());
    this.readsAtWrite.push(this.#reads);
    return Promise.resolve();
  }

  close(): void {
    this.closed = true;
    this.#pending?.(null);
    this.#pending = null;
  }

  /** Everything written, as text. */
  get written(): string {
    return this.writes.map((w) => dec.decode(w)).join("");
  }
}

export type ConnectorStep = FakeConnection | "refused" | (() => FakeConnection | "refused");

/** Hands out the scripted connections in order; records every connect. */
export function fakeConnector(steps: ConnectorStep[]): Connector & {
  calls: AdbServerAddress[];
  remaining: () => number;
} {
  const queue = [...steps];
  const calls: AdbServerAddress[] = [];
  const connector = (address: AdbServerAddress, _signal: AbortSignal) => {
    calls.push(address);
    let step = queue.shift();
    if (typeof step === "function") step = step();
    if (step === undefined) return Promise.reject(new Error("fake connector: no more connections"));
    if (step === "refused") return Promise.reject(new ConnectionRefused("refused"));
    return Promise.resolve(step);
  };
  return Object.assign(connector, { calls, remaining: () => queue.length });
}

/** `<hex4><text>` as the server writes a length-prefixed string. */
export function lp(text: string): string {
  return enc.encode(text).length.toString(16).padStart(4, "0") + text;
}

/** A shell v2 packet. */
export function packet(id: number, data: string | Uint8Array): Uint8Array {
  const body = typeof data === "string" ? enc.encode(data) : data;
  const out = new Uint8Array(5 + body.length);
  out[0] = id;
  new DataView(out.buffer).setUint32(1, body.length, true);
  out.set(body, 5);
  return out;
}

export function concat(...parts: (Uint8Array | string)[]): Uint8Array {
  const bs = parts.map((p) => typeof p === "string" ? enc.encode(p) : p);
  const out = new Uint8Array(bs.reduce((n, b) => n + b.length, 0));
  let off = 0;
  for (const b of bs) {
    out.set(b, off);
    off += b.length;
  }
  return out;
}

/** The 8-byte little-endian transport id that follows OKAY for `host:tport:`. */
export function tportId(id: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(id), true);
  return b;
}

/** A features connection answering `features`. */
export function featuresConn(features: string): FakeConnection {
  return new FakeConnection(["OKAY" + lp(features)]);
}

export const V2_FEATURES = "shell_v2,cmd,stat_v2";

export function assertRejectsCode(
  p: Promise<unknown>,
  code: string,
): Promise<{ code: string; message: string; data?: Record<string, unknown> }> {
  return p.then(
    () => {
      throw new Error(`expected a ToolError with code ${code}, got success`);
    },
    (e) => {
      if (e?.code !== code) {
        throw new Error(`expected code ${code}, got ${e?.code}: ${e?.message}`, { cause: e });
      }
      return e;
    },
  );
}
