/**
 * The simulated ADB server: host services (PROTOCOLS.md 1), transport switches, and the device
 * services `shell,v2`, `shell:` and `exec:` (2-4) answered by the virtual devices.
 */
import { type DeviceHost, type DeviceKind, VirtualDevice } from "./device.ts";
import { type Journal, type JournalService } from "./journal.ts";
import { ShAborted, ShellRun, type ShIo } from "./sh_exec.ts";
import { parseSh } from "./sh_parse.ts";
import {
  concat,
  ConnReader,
  fail,
  MAX_REQUEST_BYTES,
  okay,
  parseHexLength,
  protocolString,
  ShellId,
  transportIdBytes,
  V2Decoder,
  v2Packet,
  v2Packets,
} from "./wire.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `ADB_SERVER_VERSION` in adb.h: the real client kills a server that answers anything else. */
export const ADB_SERVER_VERSION = 41;

/** What `host:host-features` answers: the server-side features of a current adb. */
export const HOST_FEATURES = [
  "shell_v2",
  "cmd",
  "stat_v2",
  "ls_v2",
  "fixed_push_mkdir",
  "apex",
  "abb",
  "fixed_push_symlink_timestamp",
  "abb_exec",
  "remount_shell",
  "track_app",
  "sendrecv_v2",
  "sendrecv_v2_brotli",
  "sendrecv_v2_lz4",
  "sendrecv_v2_zstd",
  "sendrecv_v2_dry_run_send",
  "openscreen_mdns",
] as const;

/** Bound on connections served at once; more are closed on accept. */
export const MAX_CONNECTIONS = 256;
/** Bound on stdin a device stream buffers from the client. */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024;

export const UNAUTHORIZED_MESSAGE = "device unauthorized.\n" +
  "This adb server's $ADB_VENDOR_KEYS is not set\n" +
  "Try 'adb kill-server' if that seems wrong.\n" +
  "Otherwise check for a confirmation dialog on your device.";

type Selector =
  | { by: "any" | "usb" | "local" }
  | { by: "serial"; serial: string }
  | { by: "id"; id: string };

/** kTransportUsb = 0, kTransportLocal = 1 (emulators and network devices are both "local"). */
function transportType(kind: DeviceKind): number {
  return kind === "usb" ? 0 : 1;
}

/** Model as `devices -l` prints it: every non-alphanumeric character becomes `_`. */
export function sanitizeModel(model: string): string {
  return model.replace(/[^A-Za-z0-9]/g, "_");
}

export function deviceListText(devices: VirtualDevice[], long: boolean): string {
  const sorted = [...devices].sort((a, b) =>
    transportType(a.kind) - transportType(b.kind) ||
    (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0)
  );
  let out = "";
  for (const d of sorted) {
    const serial = d.serial || "(no serial number)";
    if (!long) {
      out += `${serial}\t${d.state}\n`;
      continue;
    }
    let line = `${serial.padEnd(22)} ${d.state}`;
    const known = d.state === "device";
    if (d.devpath) line += " " + d.devpath.replace(/\n/g, "_");
    if (known && d.product) line += " product:" + d.product.replace(/\n/g, "_");
    if (known && d.model) line += " model:" + sanitizeModel(d.model);
    if (known && d.deviceName) line += " device:" + d.deviceName.replace(/\n/g, "_");
    line += ` transport_id:${d.transportId}`;
    out += line + "\n";
  }
  return out;
}

/**
 * Splits `host-serial:<serial>:<request>` the way adb's parse_host_service does: an optional
 * `tcp:`/`udp:` prefix, `[ipv6]`, and a numeric port segment stay part of the serial.
 */
export function splitHostSerial(rest: string): { serial: string; request: string } | null {
  let start = 0;
  for (const p of ["tcp:", "udp:"]) if (rest.startsWith(p)) start = p.length;
  let end: number;
  if (rest[start] === "[") {
    const close = rest.indexOf("]", start);
    if (close < 0) return null;
    end = rest.indexOf(":", close);
  } else {
    end = rest.indexOf(":", start);
  }
  if (end < 0) return null;
  const portMatch = /^:(\d+):/.exec(rest.slice(end));
  if (portMatch) end += portMatch[0].length - 1;
  return { serial: rest.slice(0, end), request: rest.slice(end + 1) };
}

/** One open device stream, whichever front door it came through. */
export interface DeviceStream {
  /** The service opened (true) or was refused (false). */
  open(ok: boolean): void;
  send(b: Uint8Array): void;
  /** The client's next bytes; null at its end. */
  readChunk(): Promise<Uint8Array | null>;
  /** Resolves once everything sent so far has left. */
  drained(): Promise<void>;
  /** The device side closes the stream (the client sees its end). */
  close(): void;
}

interface Tracker {
  long: boolean;
  last: string;
  send: (b: Uint8Array) => void;
}

export class AdbServer implements DeviceHost {
  readonly devices: VirtualDevice[];
  private listener: Deno.TcpListener | null = null;
  private readonly conns = new Set<Deno.Conn>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly trackers = new Set<Tracker>();
  private readonly timers = new Map<VirtualDevice, ReturnType<typeof setTimeout>>();
  private readonly aborts = new Set<AbortController>();
  private nextTransportId = 1;
  private closing = false;
  port = 0;
  /**
   * Called on `host:emulator:<console port>`, the request a booting emulator sends to announce
   * itself (adb.cpp handle_host_request: no reply; the server then connects to console port + 1).
   */
  onEmulator: ((consolePort: number) => void) | null = null;

  constructor(devices: VirtualDevice[], private readonly journal: Journal) {
    this.devices = devices;
    for (const d of devices) {
      d.host = this;
      d.transportId = this.nextTransportId++;
    }
  }

  listen(port: number): void {
    this.listener = Deno.listen({ hostname: "127.0.0.1", port, transport: "tcp" });
    this.port = (this.listener.addr as Deno.NetAddr).port;
    this.track(this.acceptLoop(this.listener));
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
      if (this.closing || this.conns.size >= MAX_CONNECTIONS) {
        conn.close();
        continue;
      }
      this.conns.add(conn);
      this.track(this.serve(conn));
    }
  }

  present(): VirtualDevice[] {
    return this.devices.filter((d) => d.present);
  }

  /** A device that comes online while the server runs (an emulator that booted). */
  addDevice(device: VirtualDevice): void {
    if (this.devices.some((d) => d.serial === device.serial)) {
      throw new RangeError(`Cannot add device ${device.serial}: it is already on the list`);
    }
    device.host = this;
    device.transportId = this.nextTransportId++;
    this.devices.push(device);
    this.deviceChanged(device);
  }

  /** A device that goes away for good (an emulator that powered off): its streams close. */
  removeDevice(device: VirtualDevice): void {
    const i = this.devices.indexOf(device);
    if (i < 0) return;
    this.devices.splice(i, 1);
    const timer = this.timers.get(device);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(device);
    device.present = false;
    device.closeStreams();
    this.deviceChanged(device);
  }

  // ---- DeviceHost

  /** Told of every change too (presence, state, features): another front door to the devices. */
  onDeviceChanged: ((device: VirtualDevice) => void) | null = null;

  deviceChanged(device: VirtualDevice): void {
    for (const t of this.trackers) this.sendTrack(t);
    this.onDeviceChanged?.(device);
  }

  disconnectFor(device: VirtualDevice, seconds: number): void {
    if (this.closing) return;
    const old = this.timers.get(device);
    if (old !== undefined) clearTimeout(old);
    device.present = false;
    device.closeStreams();
    this.deviceChanged(device);
    const timer = setTimeout(() => {
      this.timers.delete(device);
      if (this.closing) return;
      device.present = true;
      // A device that comes back is a new transport, with a new id.
      device.transportId = this.nextTransportId++;
      this.deviceChanged(device);
    }, seconds * 1000);
    this.timers.set(device, timer);
  }

  private sendTrack(t: Tracker) {
    const list = deviceListText(this.present(), t.long);
    if (list === t.last) return;
    t.last = list;
    t.send(protocolString(list));
  }

  // ---- connections

  private async serve(conn: Deno.Conn) {
    const reader = new ConnReader(conn);
    let chain: Promise<void> = Promise.resolve();
    let broken = false;
    const send = (b: Uint8Array) => {
      chain = chain.then(async () => {
        if (broken) return;
        try {
          let off = 0;
          while (off < b.length) off += await conn.write(b.subarray(off));
        } catch {
          broken = true;
        }
      });
    };
    let bound: VirtualDevice | null = null;
    let unbind = () => {};
    try {
      for (;;) {
        const head = await reader.readExact(4);
        if (!head) return;
        const len = parseHexLength(head);
        if (len === null || len === 0 || len > MAX_REQUEST_BYTES) return;
        const body = await reader.readExact(len);
        if (!body) return;
        const service = dec.decode(body);
        if (service.startsWith("host")) {
          const r = this.hostRequest(service);
          if ("emulator" in r) {
            this.onEmulator?.(r.emulator);
            return;
          }
          if ("track" in r) {
            await this.serveTracker(r.track, send, reader);
            return;
          }
          send(r.reply);
          if (!r.bind) return;
          // Like Google's server (sockets.cpp: a transport switch does
          // `smart_socket_data.clear()`), bytes that came with the switch request are lost: a
          // client must wait for the answer before it names the service.
          reader.discardBuffered();
          unbind();
          bound = r.bind;
          const closer = () => {
            broken = true;
            try {
              conn.close();
            } catch { /* already closed */ }
          };
          const dev = bound;
          dev.streams.add(closer);
          unbind = () => dev.streams.delete(closer);
          continue;
        }
        if (!bound) {
          send(fail("device offline (no transport)"));
          return;
        }
        await this.runDeviceService(bound, service, {
          open: (ok) => send(ok ? okay() : fail("closed")),
          send,
          readChunk: () => reader.readChunk(),
          drained: () => chain,
          close: () => {
            try {
              conn.close();
            } catch { /* already closed */ }
          },
        });
        return;
      }
    } finally {
      unbind();
      await chain;
      this.conns.delete(conn);
      try {
        conn.close();
      } catch { /* closed by a device disconnect */ }
    }
  }

  private async serveTracker(
    long: boolean,
    send: (b: Uint8Array) => void,
    reader: ConnReader,
  ) {
    const t: Tracker = { long, last: "\0", send };
    send(okay());
    this.trackers.add(t);
    try {
      this.sendTrack(t);
      // The client never speaks again; its EOF ends the tracker.
      while (await reader.readChunk()) { /* ignore */ }
    } finally {
      this.trackers.delete(t);
    }
  }

  private acquire(
    sel: Selector,
    anyState: boolean,
  ): { device: VirtualDevice } | { error: string } {
    const present = this.present();
    let device: VirtualDevice | undefined;
    if (sel.by === "serial") {
      device = present.find((d) => d.serial === sel.serial);
      if (!device) return { error: `device '${sel.serial}' not found` };
    } else if (sel.by === "id") {
      if (!/^\d+$/.test(sel.id)) return { error: "invalid transport id" };
      device = present.find((d) => d.transportId === Number(sel.id));
      if (!device) return { error: `no device with transport id '${sel.id}'` };
    } else {
      const pool = present.filter((d) =>
        sel.by === "any" || (sel.by === "usb" ? d.kind === "usb" : d.kind !== "usb")
      );
      if (pool.length === 0) {
        return {
          error: sel.by === "any"
            ? "no devices/emulators found"
            : sel.by === "usb"
            ? "no devices found"
            : "no emulators found",
        };
      }
      if (pool.length > 1) {
        return {
          error: sel.by === "any"
            ? "more than one device/emulator"
            : sel.by === "usb"
            ? "more than one device"
            : "more than one emulator",
        };
      }
      device = pool[0];
    }
    if (!anyState) {
      if (device.state === "offline") return { error: "device offline" };
      if (device.state === "unauthorized") return { error: UNAUTHORIZED_MESSAGE };
    }
    return { device };
  }

  /** One host request → reply bytes, plus a device binding or a tracker. */
  hostRequest(
    service: string,
  ): { reply: Uint8Array; bind?: VirtualDevice } | { track: boolean } | { emulator: number } {
    let sel: Selector;
    let req: string;
    let plainHost = false;
    if (service.startsWith("host:")) {
      sel = { by: "any" };
      req = service.slice(5);
      plainHost = true;
    } else if (service.startsWith("host-usb:")) {
      sel = { by: "usb" };
      req = service.slice(9);
    } else if (service.startsWith("host-local:")) {
      sel = { by: "local" };
      req = service.slice(11);
    } else if (service.startsWith("host-serial:")) {
      const s = splitHostSerial(service.slice(12));
      if (!s) return { reply: fail(`unknown host service '${service}'`) };
      sel = { by: "serial", serial: s.serial };
      req = s.request;
    } else if (service.startsWith("host-transport-id:")) {
      const rest = service.slice(18);
      const colon = rest.indexOf(":");
      if (colon < 0) return { reply: fail(`unknown host service '${service}'`) };
      sel = { by: "id", id: rest.slice(0, colon) };
      req = rest.slice(colon + 1);
    } else {
      return { reply: fail(`unknown host service '${service}'`) };
    }

    const withDevice = (anyState: boolean, f: (d: VirtualDevice) => Uint8Array) => {
      const r = this.acquire(sel, anyState);
      return { reply: "error" in r ? fail(r.error) : f(r.device) };
    };
    const bindTo = (s: Selector, withId: boolean) => {
      const r = this.acquire(s, false);
      if ("error" in r) return { reply: fail(r.error) };
      const reply = withId ? concat(okay(), transportIdBytes(r.device.transportId)) : okay();
      return { reply, bind: r.device };
    };

    if (plainHost) {
      switch (req) {
        case "version":
          return { reply: okay(ADB_SERVER_VERSION.toString(16).padStart(4, "0")) };
        case "devices":
        case "devices-l":
          return { reply: okay(deviceListText(this.present(), req === "devices-l")) };
        case "track-devices":
        case "track-devices-l":
          return { track: req === "track-devices-l" };
        case "host-features":
          return { reply: okay(HOST_FEATURES.join(",")) };
        case "kill":
          // The simulator stays up: tests own its lifetime.
          return { reply: okay() };
        case "transport-any":
          return bindTo({ by: "any" }, false);
        case "transport-usb":
          return bindTo({ by: "usb" }, false);
        case "transport-local":
          return bindTo({ by: "local" }, false);
        case "tport:any":
          return bindTo({ by: "any" }, true);
        case "tport:usb":
          return bindTo({ by: "usb" }, true);
        case "tport:local":
          return bindTo({ by: "local" }, true);
      }
      if (req.startsWith("emulator:")) {
        const consolePort = Number(req.slice(9));
        if (Number.isInteger(consolePort) && consolePort > 0 && consolePort < 65535) {
          return { emulator: consolePort };
        }
      }
      if (req.startsWith("transport:")) {
        return bindTo({ by: "serial", serial: req.slice(10) }, false);
      }
      if (req.startsWith("transport-id:")) return bindTo({ by: "id", id: req.slice(13) }, false);
      if (req.startsWith("tport:serial:")) {
        return bindTo({ by: "serial", serial: req.slice(13) }, true);
      }
    }
    switch (req) {
      case "features":
        return withDevice(false, (d) => okay(d.features.join(",")));
      case "get-state":
        return withDevice(true, (d) => okay(d.state));
      case "get-serialno":
        return withDevice(true, (d) => okay(d.serial));
      case "get-devpath":
        return withDevice(true, (d) => okay(d.devpath || "unknown"));
    }
    return { reply: fail(`unknown host service '${req}'`) };
  }

  // ---- device services

  /**
   * Runs one device service (`shell…`, `exec:`) on `device` over `stream`: the host protocol's
   * connection here, or an adbd stream (tests/sim/adbd.ts) when a real server is in front.
   */
  async runDeviceService(device: VirtualDevice, service: string, stream: DeviceStream) {
    const send = (b: Uint8Array) => stream.send(b);
    const drained = () => stream.drained();
    const closeConn = () => stream.close();
    const reader = stream;
    let kind: JournalService;
    let command: string;
    let pty = false;
    if (service.startsWith("shell") && (service[5] === ":" || service[5] === ",")) {
      const colon = service.indexOf(":");
      if (colon < 0) {
        stream.open(false);
        return;
      }
      const args = service[5] === "," ? service.slice(6, colon).split(",") : [];
      command = service.slice(colon + 1);
      kind = args.includes("v2") ? "shell,v2" : "shell";
      // adbd: PTY when asked, or by default when the command is empty.
      pty = args.includes("pty") || (!args.includes("raw") && command === "");
      // An adbd without shell_v2 does not know the `shell,` form: it refuses the stream.
      if (kind === "shell,v2" && !device.features.includes("shell_v2")) {
        stream.open(false);
        return;
      }
    } else if (service.startsWith("exec:")) {
      kind = "exec";
      command = service.slice(5);
    } else {
      // sync:, framebuffer:, abb_exec:, reverse:... are not simulated: adbd closes them.
      stream.open(false);
      return;
    }
    stream.open(true);

    const parsed = parseSh(command);
    const onlySimctl = parsed.ok && parsed.argv.length === 1 && parsed.argv[0][0] === "simctl" &&
      parsed.script.length === 1;
    this.journal.append({
      t: new Date().toISOString(),
      serial: device.serial,
      service: kind,
      raw: command,
      argv: parsed.argv,
      injection: onlySimctl ? false : parsed.injection,
      unquoted: parsed.unquoted,
    });

    const abort = new AbortController();
    this.aborts.add(abort);
    let stdinBytes: Uint8Array[] = [];
    let stdinSize = 0;
    let stdinDone = false;
    const stdinWaiters: (() => void)[] = [];
    // Readers of a known size (`cmd package install -S`): checked on every chunk and at EOF.
    const sizeWaiters = new Set<() => void>();
    const endStdin = () => {
      stdinDone = true;
      for (const w of stdinWaiters.splice(0)) w();
      for (const w of [...sizeWaiters]) w();
    };
    const pushStdin = (b: Uint8Array) => {
      if (stdinSize + b.length > MAX_STDIN_BYTES) return;
      stdinBytes.push(b);
      stdinSize += b.length;
      for (const w of [...sizeWaiters]) w();
    };
    const v2 = kind === "shell,v2";
    const readLoop = (async () => {
      const decoder = new V2Decoder();
      for (;;) {
        const chunk = await reader.readChunk();
        if (!chunk) break;
        if (!v2) {
          pushStdin(chunk);
          continue;
        }
        let packets;
        try {
          packets = decoder.push(chunk);
        } catch {
          break;
        }
        for (const p of packets) {
          if (p.id === ShellId.stdin) pushStdin(p.payload);
          else if (p.id === ShellId.closeStdin) endStdin();
        }
      }
      endStdin();
      // A client that goes away ends the command (adbd tears the subprocess down). Every form:
      // shell,v2 (which also has close-stdin for EOF), and exec:/shell: whose only end of input
      // is the connection closing (adb's smart sockets have no half-close), so a streaming
      // `logcat` over exec: stops with its reader.
      abort.abort();
    })();

    const closer = () => abort.abort();
    device.streams.add(closer);
    const tx = (id: number) => (b: Uint8Array) => {
      if (abort.signal.aborted || b.length === 0) return;
      const bytes = pty ? enc.encode(dec.decode(b).replace(/\r?\n/g, "\r\n")) : b;
      if (v2) { for (const p of v2Packets(pty ? ShellId.stdout : id, bytes)) send(p); }
      else send(bytes);
    };
    const io: ShIo = {
      stdin: () =>
        stdinDone ? Promise.resolve(concat(...stdinBytes)) : new Promise((resolve) => {
          stdinWaiters.push(() => resolve(concat(...stdinBytes)));
        }),
      stdinExactly: (n) =>
        new Promise((resolve) => {
          const check = () => {
            if (stdinSize < n && !stdinDone) return;
            sizeWaiters.delete(check);
            resolve(concat(...stdinBytes).subarray(0, n));
          };
          sizeWaiters.add(check);
          check();
        }),
      out: tx(ShellId.stdout),
      err: tx(ShellId.stderr),
      drained,
    };
    const shell = new ShellRun({
      env: device.env,
      fs: device.fs(),
      commands: device.commands(),
      signal: abort.signal,
    });
    let status: number | null = null;
    try {
      status = await shell.runScript(command, io);
    } catch (e) {
      if (!(e instanceof ShAborted)) throw e;
    } finally {
      device.streams.delete(closer);
    }
    if (status !== null && v2 && !abort.signal.aborted) {
      send(v2Packet(ShellId.exit, new Uint8Array([status & 255])));
    }
    await drained();
    // End of output = the device side closes: the client sees EOF.
    abort.abort();
    this.aborts.delete(abort);
    for (const act of device.afterStream.splice(0)) act();
    stdinBytes = [];
    endStdin();
    // Closing the socket ends the read loop too.
    closeConn();
    await readLoop;
  }

  async close(): Promise<void> {
    this.closing = true;
    try {
      this.listener?.close();
    } catch { /* closed */ }
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const a of this.aborts) a.abort();
    for (const c of this.conns) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }
}
