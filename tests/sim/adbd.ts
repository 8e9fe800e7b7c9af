/**
 * A virtual device's adbd: the device side of the ADB transport over TCP, the way a real ADB
 * server reaches an emulator (`host:emulator:<port>`) or a network device (`adb connect`). A
 * new front door to the same device: every stream runs the simulator's own device services
 * (AdbServer.runDeviceService), so both servers see one device, one journal.
 *
 * Transport (AOSP adb protocol.txt): the server sends CNXN; adbd answers with AUTH TOKEN (or, with
 * auth off, its CNXN banner at once); a SIGNATURE or the RSAPUBLICKEY is accepted ("accept") or
 * answered with a new token and then silence ("refuse": the server lists the device
 * `unauthorized`); an `offline` device never answers CNXN. Streams: OPEN(remote, 0, service) →
 * OKAY(local, remote) or CLSE(0, remote); each WRTE waits for the peer's OKAY before the next
 * (flow control); CLSE ends a stream from either side.
 */
import type { DeviceStream } from "./adb_server.ts";
import type { VirtualDevice } from "./device.ts";
import {
  A_VERSION,
  AuthType,
  Cmd,
  deviceBanner,
  HEADER_BYTES,
  MAX_INBOUND_PAYLOAD,
  MAX_PAYLOAD,
  message,
  parseHeader,
  TOKEN_SIZE,
} from "./adbd_wire.ts";
import { ConnReader } from "./wire.ts";

const dec = new TextDecoder();

/** How a device answers the server's keys: no AUTH at all, accept them, or keep refusing. */
export type AuthMode = "none" | "accept" | "refuse";

export type RunService = (
  device: VirtualDevice,
  service: string,
  stream: DeviceStream,
) => Promise<void>;

/** Streams open at once on one transport; more OPENs are refused. */
export const MAX_STREAMS = 256;
/** Data one WRTE carries at most, whatever larger size the server allows. */
export const MAX_WRTE_BYTES = 256 * 1024;
/** Bytes received on a stream and not yet read by its service; the OKAY waits beyond that. */
export const MAX_INBOUND_QUEUE_BYTES = 4 * 1024 * 1024;

/** One stream of a transport: the service's DeviceStream plus the flow-control state. */
class AdbdStream implements DeviceStream {
  private outbound: Uint8Array[] = [];
  private waitingAck = false;
  private closed = false;
  private inbound: Uint8Array[] = [];
  private inboundEnded = false;
  private readers: ((b: Uint8Array | null) => void)[] = [];
  private drainWaiters: (() => void)[] = [];

  constructor(
    private readonly transport: AdbdTransport,
    readonly localId: number,
    readonly remoteId: number,
  ) {}

  open(ok: boolean): void {
    if (ok) this.transport.send(message(Cmd.OKAY, this.localId, this.remoteId));
    else {
      this.transport.send(message(Cmd.CLSE, 0, this.remoteId));
      this.end(false);
    }
  }

  send(b: Uint8Array): void {
    if (this.closed) return;
    const max = this.transport.maxData;
    for (let off = 0; off < b.length; off += max) this.outbound.push(b.slice(off, off + max));
    this.pump();
  }

  private pump() {
    if (this.closed || this.waitingAck) return;
    const next = this.outbound.shift();
    if (!next) {
      for (const w of this.drainWaiters.splice(0)) w();
      return;
    }
    this.waitingAck = true;
    this.transport.send(message(Cmd.WRTE, this.localId, this.remoteId, next));
  }

  /** The server's OKAY for our last WRTE. */
  acked() {
    this.waitingAck = false;
    this.pump();
  }

  /** A WRTE from the server: queued for the service; OKAY once it is read (or while room). */
  received(data: Uint8Array) {
    if (this.inboundEnded) return;
    const reader = this.readers.shift();
    if (reader) {
      reader(data);
      this.okay();
      return;
    }
    this.inbound.push(data);
    if (this.queued() <= MAX_INBOUND_QUEUE_BYTES) this.okay();
    else this.owedOkay = true;
  }

  private owedOkay = false;
  private okay() {
    this.transport.send(message(Cmd.OKAY, this.localId, this.remoteId));
  }
  private queued() {
    return this.inbound.reduce((n, b) => n + b.length, 0);
  }

  readChunk(): Promise<Uint8Array | null> {
    const next = this.inbound.shift();
    if (next) {
      if (this.owedOkay && this.queued() <= MAX_INBOUND_QUEUE_BYTES) {
        this.owedOkay = false;
        this.okay();
      }
      return Promise.resolve(next);
    }
    if (this.inboundEnded) return Promise.resolve(null);
    return new Promise((resolve) => this.readers.push(resolve));
  }

  drained(): Promise<void> {
    if (this.closed || (!this.waitingAck && this.outbound.length === 0)) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** The service is done: CLSE to the server. */
  close(): void {
    if (this.closed) return;
    this.transport.send(message(Cmd.CLSE, this.localId, this.remoteId));
    this.end(false);
  }

  /** Ends the stream (the server's CLSE, the transport gone, or our own close). */
  end(notify: boolean) {
    if (this.closed && this.inboundEnded) return;
    this.closed = true;
    this.inboundEnded = true;
    this.outbound = [];
    for (const r of this.readers.splice(0)) r(null);
    for (const w of this.drainWaiters.splice(0)) w();
    this.transport.forget(this.localId);
    if (notify) this.transport.send(message(Cmd.CLSE, this.localId, this.remoteId));
  }
}

/** One TCP connection from the server: the handshake, then the streams. */
class AdbdTransport {
  private chain: Promise<void> = Promise.resolve();
  private broken = false;
  private online = false;
  private tokensSent = 0;
  private nextLocalId = 1;
  private readonly streams = new Map<number, AdbdStream>();
  maxData = MAX_WRTE_BYTES;

  constructor(
    private readonly conn: Deno.Conn,
    private readonly adbd: Adbd,
  ) {}

  send(b: Uint8Array) {
    this.chain = this.chain.then(async () => {
      if (this.broken) return;
      try {
        let off = 0;
        while (off < b.length) off += await this.conn.write(b.subarray(off));
      } catch {
        this.broken = true;
      }
    });
  }

  forget(localId: number) {
    this.streams.delete(localId);
  }

  close() {
    this.broken = true;
    try {
      this.conn.close();
    } catch { /* closed */ }
  }

  async serve(): Promise<void> {
    const reader = new ConnReader(this.conn);
    try {
      for (;;) {
        const head = await reader.readExact(HEADER_BYTES);
        if (!head) return;
        const h = parseHeader(head);
        if (!h || h.length > MAX_INBOUND_PAYLOAD) return;
        const data = h.length ? await reader.readExact(h.length) : new Uint8Array();
        if (!data) return;
        this.handle(h.command, h.arg0, h.arg1, data);
      }
    } finally {
      for (const s of [...this.streams.values()]) s.end(false);
      this.close();
      await this.chain;
    }
  }

  private banner() {
    const d = this.adbd.device;
    return deviceBanner(
      { name: d.product, model: d.model, device: d.deviceName },
      d.features,
    );
  }

  private connect() {
    this.online = true;
    this.send(message(Cmd.CNXN, A_VERSION, MAX_PAYLOAD, this.banner()));
  }

  private token() {
    this.tokensSent++;
    this.send(
      message(Cmd.AUTH, AuthType.token, 0, crypto.getRandomValues(new Uint8Array(TOKEN_SIZE))),
    );
  }

  private handle(command: number, arg0: number, arg1: number, data: Uint8Array) {
    switch (command) {
      case Cmd.CNXN: {
        if (this.adbd.offline) return;
        // The server's max data: our WRTEs stay within it.
        if (arg1 > 0) this.maxData = Math.min(arg1, MAX_WRTE_BYTES);
        if (this.adbd.auth === "none") this.connect();
        else this.token();
        return;
      }
      case Cmd.AUTH: {
        if (this.online || this.adbd.offline) return;
        if (this.adbd.auth === "accept") {
          if (arg0 === AuthType.signature || arg0 === AuthType.rsaPublicKey) this.connect();
          return;
        }
        // "refuse": the key is never accepted; one more token makes the server offer its public
        // key, which is then left unanswered (the dialog nobody confirms).
        if (arg0 === AuthType.signature && this.tokensSent < 2) this.token();
        return;
      }
      case Cmd.OPEN: {
        if (!this.online) return;
        const service = dec.decode(data).replace(/\0+$/, "");
        if (this.streams.size >= MAX_STREAMS) {
          this.send(message(Cmd.CLSE, 0, arg0));
          return;
        }
        const localId = this.nextLocalId++;
        const stream = new AdbdStream(this, localId, arg0);
        this.streams.set(localId, stream);
        this.adbd.run(this.adbd.device, service, stream).catch((e) => {
          console.error(`adbd ${this.adbd.device.serial}: ${service}: ${(e as Error).message}`);
        }).finally(() => stream.close());
        return;
      }
      case Cmd.OKAY:
        this.streams.get(arg1)?.acked();
        return;
      case Cmd.WRTE:
        this.streams.get(arg1)?.received(data);
        return;
      case Cmd.CLSE:
        this.streams.get(arg1)?.end(false);
        return;
    }
  }
}

/**
 * A device's adbd listening on a TCP port (an emulator's adb port, a network device's 5555).
 * Not listening while the device is away: the server's connection is refused.
 */
export class Adbd {
  port = 0;
  auth: AuthMode = "accept";
  /** An `offline` device: connected, but it never answers the server's CNXN. */
  offline = false;
  private listener: Deno.TcpListener | null = null;
  private readonly transports = new Set<AdbdTransport>();
  private readonly tasks = new Set<Promise<void>>();
  private closed = false;

  constructor(
    readonly device: VirtualDevice,
    readonly run: RunService,
  ) {}

  /** Listens on `port` (0 = any free one; later calls reuse the first port). */
  listen(port = this.port): void {
    if (this.listener || this.closed) return;
    this.adopt(Deno.listen({ hostname: "127.0.0.1", port, transport: "tcp" }));
  }

  /** Serves on a listener already bound (a port reserved before the device was named). */
  adopt(listener: Deno.TcpListener): void {
    this.listener = listener;
    this.port = (listener.addr as Deno.NetAddr).port;
    this.track(this.acceptLoop(listener));
  }

  get listening(): boolean {
    return this.listener !== null;
  }

  /** Stops listening (the device is gone): new connections are refused. */
  stopListening(): void {
    try {
      this.listener?.close();
    } catch { /* closed */ }
    this.listener = null;
  }

  /** Closes every transport: the server sees the device go. */
  dropTransports(): void {
    for (const t of this.transports) t.close();
    this.transports.clear();
  }

  get connected(): number {
    return this.transports.size;
  }

  private track(p: Promise<void>) {
    this.tasks.add(p);
    p.finally(() => this.tasks.delete(p));
  }

  private async acceptLoop(listener: Deno.TcpListener) {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      if (this.closed || this.transports.size >= MAX_STREAMS) {
        conn.close();
        continue;
      }
      const t = new AdbdTransport(conn, this);
      this.transports.add(t);
      this.track(t.serve().finally(() => this.transports.delete(t)));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening();
    this.dropTransports();
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }
}
