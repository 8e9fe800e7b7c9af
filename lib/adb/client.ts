/**
 * The ADB host-protocol client: host services (`host:version`, `host:devices-l`, features) and
 * device services (`shell,v2,raw:`, `shell:`, `exec:`) over one fresh connection per request, as
 * the server closes after every answered host request (sockets.cpp). It sees only `Connection`s;
 * `tcp_connection.ts` is the real I/O.
 */
import { ABORTED, raceAbort } from "../core/abortable.ts";
import { type Env, processEnv } from "../core/env.ts";
import { invalidParams, ToolError } from "../core/errors.ts";
import { classifyFailure, FailKind, failureToToolError } from "./adb_errors.ts";
import { type CallOptions, CallScope } from "./call_scope.ts";
import { boundedInt } from "../core/bounds.ts";
import { concatBytes } from "../core/bytes.ts";
import type { RandomAccess } from "../core/file_read.ts";
import { ByteReader, type Connection, ConnectionRefused } from "./connection.ts";
import type { Connector } from "./connection.ts";
import { type AdbDevice, parseDeviceList } from "./devices.ts";
import { type AdbServerAddress, formatAddress, isLocalAddress } from "./server_address.ts";
import { quoteShellCommand } from "./shell_quote.ts";
import { createShellStream, type ShellStream } from "./shell_stream.ts";
import { ShellPacketId, ShellV2Decoder } from "./shell_v2.ts";
import { findAdbExecutable, runStartServer, START_SERVER_TIMEOUT_MS } from "./start_server.ts";
import { tcpConnector } from "./tcp_connection.ts";
import {
  AdbFailure,
  encodeRequest,
  parseTransportId,
  ProtocolError,
  readProtocolString,
  readStatus,
} from "./wire.ts";

export type { AdbDevice, DeviceKind } from "./devices.ts";
export type { AdbServerAddress } from "./server_address.ts";
export type { CallOptions } from "./call_scope.ts";
export { DEFAULT_COMMAND_TIMEOUT_MS, MAX_COMMAND_TIMEOUT_MS } from "./call_scope.ts";
export type { ShellStream } from "./shell_stream.ts";

/** How long opening the TCP connection to the ADB server may take. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Default cap on a command's stdout + stderr. */
export const DEFAULT_SHELL_OUTPUT_BYTES = 8 * 1024 * 1024;
/** Largest cap a caller may ask for (a 4K screenshot PNG fits well below this). */
const MAX_SHELL_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Longest quoted command line sent with shell_v2 (adbd's payload limit is larger). */
const MAX_SHELL_COMMAND_BYTES = 64 * 1024;
/** Without shell_v2 the CLI refuses longer commands ("shell command too long"). */
const MAX_V1_SHELL_COMMAND_BYTES = 4096;
/** Serials whose feature sets are remembered. */
const MAX_FEATURE_CACHE_ENTRIES = 64;
/** Budget for the device listing a `device_not_found` message includes. */
const NOT_FOUND_LISTING_TIMEOUT_MS = 3_000;
/** `exec` writes stdin in chunks of this size (progress is reported per chunk). */
export const EXEC_STDIN_CHUNK_BYTES = 64 * 1024;

/**
 * Bytes `exec` streams to a command's stdin from where they are (an open file), chunk by chunk,
 * without holding them all: exactly `size` bytes, read by position.
 */
export type StdinSource = RandomAccess;

/** `exec` options: a call's options plus bytes for the command's stdin. */
interface ExecOptions extends CallOptions {
  /**
   * Written to the command after the service opens, before its output is read. The stream is
   * not half-closed (adbd would end the command): the command must know how much to read, as
   * `cmd package install -S <size>` does (PROTOCOLS.md 5.1).
   */
  stdin?: Uint8Array | StdinSource;
  /** Called after each stdin chunk with the bytes sent so far and the total. */
  onStdinProgress?: (sent: number, total: number) => void;
}

export interface ShellResult {
  stdout: Uint8Array;
  /** Empty without shell_v2, where the device merges stderr into stdout. */
  stderr: Uint8Array;
  /** The command's exit status; null without shell_v2 or when the device sent none. */
  exitCode: number | null;
  /** stdout decoded as UTF-8. */
  text(): string;
}

/**
 * The part of `AdbClient` a device command needs: one shell command on one device. Services take
 * this (with `& Pick<AdbClient, …>` for the few other calls one makes), never a copy of its
 * signature, and tests hand them the one fake in tests/fake_adb.ts.
 */
export type DeviceShell = Pick<AdbClient, "shell">;

interface AdbClientOptions {
  address: AdbServerAddress;
  connector?: Connector;
  /** Where `adb` is looked up for `start-server` (`ANDROID_HOME`, `ANDROID_SDK_ROOT`, `PATH`). */
  env?: Env;
  /** Run `adb start-server` once when nothing listens on a local address. Default true. */
  startServer?: boolean;
}

interface FeatureEntry {
  features: Set<string>;
  transportId?: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class AdbClient {
  readonly address: AdbServerAddress;
  #connector: Connector;
  #env: Env;
  #startServer: boolean;
  #legacyTransport = false;
  #features = new Map<string, FeatureEntry>();
  #starting: Promise<void> | null = null;

  constructor(opts: AdbClientOptions) {
    this.address = opts.address;
    this.#connector = opts.connector ?? tcpConnector;
    this.#env = opts.env ?? processEnv;
    this.#startServer = opts.startServer ?? true;
  }

  /** `host:version`: the server's protocol version (41 for current Platform-Tools). */
  serverVersion(opts: CallOptions = {}): Promise<number> {
    return this.#call(opts, "read the ADB server version", {}, async (scope) => {
      const text = await this.#hostQuery("host:version", scope);
      const n = parseInt(text, 16);
      if (!/^[0-9a-fA-F]+$/.test(text) || !Number.isFinite(n)) {
        throw new ProtocolError(`Bad version reply ${JSON.stringify(text)}`);
      }
      return n;
    });
  }

  /** `host:devices-l`: every device the server knows, in any state. */
  listDevices(opts: CallOptions = {}): Promise<AdbDevice[]> {
    return this.#call(opts, "list devices", {}, async (scope) => {
      const devices = parseDeviceList(await this.#hostQuery("host:devices-l", scope));
      this.#syncFeatureCache(devices);
      return devices;
    });
  }

  /** The device's feature set (`host-serial:<s>:features`), cached until it reconnects. */
  features(serial: string, opts: CallOptions = {}): Promise<Set<string>> {
    return this.#call(opts, `read features of ${serial}`, { serial }, async (scope) => {
      return new Set(await this.#featuresIn(serial, scope));
    });
  }

  /**
   * Runs `argv` (each element quoted with `quoteShellArg`) with `shell,v2,raw:` when the device
   * has shell_v2, else `shell:` (no exit code, stderr merged into stdout).
   */
  async shell(
    serial: string,
    argv: readonly string[],
    opts: CallOptions = {},
  ): Promise<ShellResult> {
    const command = buildCommand(argv);
    const what = `shell ${summarize(command)} on ${serial}`;
    return await this.#call(opts, what, { serial, what: "shell" }, async (scope) => {
      const v2 = (await this.#featuresIn(serial, scope)).has("shell_v2");
      checkCommandLength(command, v2);
      const service = v2 ? `shell,v2,raw:${command}` : `shell:${command}`;
      const { conn, reader } = await this.#openDeviceService(serial, service, scope);
      try {
        return v2
          ? await readShellV2(reader, scope, outputCap(opts))
          : await readRawShell(reader, scope, outputCap(opts));
      } finally {
        conn.close();
      }
    });
  }

  /**
   * `exec:` with a quoted argv: raw stdout bytes (stderr merged), no exit status. With
   * `opts.stdin`, those bytes are written to the command first (streamed installs).
   */
  async exec(serial: string, argv: readonly string[], opts: ExecOptions = {}): Promise<Uint8Array> {
    const command = buildCommand(argv);
    const what = `exec ${summarize(command)} on ${serial}`;
    return await this.#call(opts, what, { serial, what: "exec" }, async (scope) => {
      checkCommandLength(command, true);
      const { conn, reader } = await this.#openDeviceService(serial, `exec:${command}`, scope);
      try {
        const input = opts.stdin;
        if (input instanceof Uint8Array) {
          for (let off = 0; off < input.length; off += EXEC_STDIN_CHUNK_BYTES) {
            const end = Math.min(off + EXEC_STDIN_CHUNK_BYTES, input.length);
            await scope.run(conn.write(input.subarray(off, end)));
            opts.onStdinProgress?.(end, input.length);
          }
        } else if (input !== undefined) {
          const chunk = new Uint8Array(EXEC_STDIN_CHUNK_BYTES);
          for (let off = 0; off < input.size;) {
            const want = Math.min(EXEC_STDIN_CHUNK_BYTES, input.size - off);
            const n = await scope.run(input.read(chunk.subarray(0, want), off));
            if (n === 0) {
              throw new ToolError(
                "io_error",
                `The input of ${what} ended after ${off} of ${input.size} bytes (was the file ` +
                  "changed while it was sent?)",
              );
            }
            await scope.run(conn.write(chunk.subarray(0, n)));
            off += n;
            opts.onStdinProgress?.(off, input.size);
          }
        }
        return await readAll(reader, scope, outputCap(opts));
      } finally {
        conn.close();
      }
    });
  }

  /**
   * Starts a long-running command and returns its output as streams. `timeoutMs` bounds only the
   * opening (connect, transport, service); afterwards the command runs until it ends, `close()`
   * is called, stdout is cancelled, or `signal` aborts. `maxOutputBytes` does not apply: the
   * reader consumes the stream at its own pace (stdout has backpressure).
   */
  async openShellStream(
    serial: string,
    argv: readonly string[],
    opts: CallOptions = {},
  ): Promise<ShellStream> {
    const command = buildCommand(argv);
    const what = `stream ${summarize(command)} on ${serial}`;
    return await this.#call(opts, what, { serial, what: "shell" }, async (scope) => {
      const v2 = (await this.#featuresIn(serial, scope)).has("shell_v2");
      checkCommandLength(command, v2);
      const service = v2 ? `shell,v2,raw:${command}` : `shell:${command}`;
      const { conn, reader } = await this.#openDeviceService(serial, service, scope);
      if (scope.aborted) {
        conn.close();
        throw scope.abortError();
      }
      return createShellStream(conn, reader, v2, opts.signal);
    });
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────

  async #call<T>(
    opts: CallOptions,
    what: string,
    ctx: { serial?: string; what?: string },
    fn: (scope: CallScope) => Promise<T>,
  ): Promise<T> {
    const scope = new CallScope(opts, what);
    try {
      if (scope.aborted) throw scope.abortError();
      return await fn(scope);
    } catch (e) {
      throw await this.#translate(e, scope, ctx.serial, ctx.what ?? what);
    } finally {
      scope.dispose();
    }
  }

  async #translate(
    e: unknown,
    scope: CallScope,
    serial: string | undefined,
    what: string,
  ): Promise<ToolError> {
    if (scope.aborted) return scope.abortError();
    if (e instanceof ToolError) return e;
    if (e instanceof AdbFailure) {
      const kind = classifyFailure(e.failMessage);
      let connected: string[] | undefined;
      if (serial !== undefined && kind !== FailKind.other && kind !== FailKind.closed) {
        this.#features.delete(serial);
      }
      if (kind === FailKind.notFound || kind === FailKind.noDevices) {
        connected = await this.listDevices({ timeoutMs: NOT_FOUND_LISTING_TIMEOUT_MS })
          .then((ds) => ds.map((d) => d.serial))
          .catch(() => undefined);
      }
      return failureToToolError(e.failMessage, { serial, connected, what });
    }
    const detail = e instanceof Error ? e.message : String(e);
    return new ToolError(
      "adb_error",
      `ADB connection failed during ${scope.what}: ${detail}; retry, and if it keeps failing ` +
        "restart the ADB server (adb kill-server)",
      serial === undefined ? undefined : { serial },
      { cause: e },
    );
  }

  async #connect(scope: CallScope): Promise<Connection> {
    try {
      return await this.#connectOnce(scope);
    } catch (e) {
      if (!(e instanceof ConnectionRefused)) throw e;
      const where = formatAddress(this.address);
      if (!isLocalAddress(this.address)) {
        throw new ToolError(
          "adb_unavailable",
          `ADB server at ${where} is unreachable: connection refused; check that the server ` +
            "runs there and that ADB_SERVER_SOCKET or ANDROID_ADB_SERVER_ADDRESS is right",
          { address: where },
        );
      }
      if (!this.#startServer) {
        throw new ToolError(
          "adb_unavailable",
          `ADB server is not running at ${where}: start it with adb start-server, then retry`,
          { address: where },
        );
      }
      await this.#ensureServerStarted(scope);
      try {
        return await this.#connectOnce(scope);
      } catch (e2) {
        if (!(e2 instanceof ConnectionRefused)) throw e2;
        throw new ToolError(
          "adb_unavailable",
          `ADB server is still not reachable at ${where} after adb start-server: run ` +
            "adb start-server yourself and read its output",
          { address: where },
        );
      }
    }
  }

  async #connectOnce(scope: CallScope): Promise<Connection> {
    const ctl = new AbortController();
    let connectTimedOut = false;
    const timer = setTimeout(() => {
      connectTimedOut = true;
      ctl.abort();
    }, Math.min(CONNECT_TIMEOUT_MS, scope.timeoutMs));
    const onScopeAbort = () => ctl.abort();
    scope.signal.addEventListener("abort", onScopeAbort, { once: true });
    const pending = this.#connector(this.address, ctl.signal);
    try {
      const conn = await raceAbort(pending, ctl.signal);
      if (conn === ABORTED) throw ctl.signal.reason;
      if (ctl.signal.aborted) {
        conn.close();
        throw ctl.signal.reason;
      }
      scope.onAbort(() => conn.close());
      return conn;
    } catch (e) {
      // A connector that ignored the abort may still deliver a socket: close it on arrival.
      pending.then((c) => c.close(), () => {});
      if (scope.aborted) throw scope.abortError();
      if (connectTimedOut) {
        throw new ToolError(
          "adb_unavailable",
          `Cannot connect to the ADB server at ${formatAddress(this.address)}: no answer within ` +
            `${CONNECT_TIMEOUT_MS} ms; check the address and that the server runs`,
        );
      }
      if (e instanceof ConnectionRefused || e instanceof ToolError) throw e;
      throw new ToolError(
        "adb_unavailable",
        `Cannot connect to the ADB server at ${formatAddress(this.address)}: ` +
          `${e instanceof Error ? e.message : e}; check the address and that the server runs`,
        undefined,
        { cause: e },
      );
    } finally {
      clearTimeout(timer);
      scope.signal.removeEventListener("abort", onScopeAbort);
    }
  }

  #ensureServerStarted(scope: CallScope): Promise<void> {
    if (this.#starting === null) {
      this.#starting = this.#startServerOnce().finally(() => this.#starting = null);
    }
    return scope.run(this.#starting);
  }

  async #startServerOnce(): Promise<void> {
    const where = formatAddress(this.address);
    const adb = findAdbExecutable(this.#env);
    if (adb === null) {
      throw new ToolError(
        "adb_unavailable",
        `ADB server is not running at ${where} and no adb executable was found: install ` +
          "Android SDK Platform-Tools or set ANDROID_HOME",
        { address: where },
      );
    }
    let result;
    try {
      result = await runStartServer(adb, this.address.port, START_SERVER_TIMEOUT_MS);
    } catch (e) {
      throw new ToolError(
        "adb_unavailable",
        `ADB server is not running at ${where} and ${adb} could not be run: ` +
          `${e instanceof Error ? e.message : e}; check the file, or start the server yourself`,
        { address: where, adb },
      );
    }
    if (!result.ok) {
      const why = result.timedOut
        ? `it did not finish within ${START_SERVER_TIMEOUT_MS} ms`
        : `it exited with code ${result.code}`;
      throw new ToolError(
        "adb_unavailable",
        `ADB server is not running at ${where} and ${adb} start-server failed: ${why}` +
          (result.output ? ` (${result.output})` : "") +
          "; run adb start-server yourself and fix what it reports",
        { address: where, adb },
      );
    }
  }

  /** One host request on its own connection; returns the length-prefixed answer. */
  async #hostQuery(service: string, scope: CallScope): Promise<string> {
    const conn = await this.#connect(scope);
    try {
      const reader = new ByteReader(conn);
      await scope.run(conn.write(encodeRequest(service)));
      await scope.run(readStatus(reader));
      return await scope.run(readProtocolString(reader));
    } finally {
      conn.close();
    }
  }

  async #featuresIn(serial: string, scope: CallScope): Promise<Set<string>> {
    const cached = this.#features.get(serial);
    if (cached !== undefined) return cached.features;
    const text = await this.#hostQuery(`host-serial:${serial}:features`, scope);
    const features = new Set(text.split(",").map((f) => f.trim()).filter((f) => f !== ""));
    if (this.#features.size >= MAX_FEATURE_CACHE_ENTRIES) {
      const oldest = this.#features.keys().next().value;
      if (oldest !== undefined) this.#features.delete(oldest);
    }
    this.#features.set(serial, { features });
    return features;
  }

  /** A new transport id for a serial means the device reconnected: forget its features. */
  #noteTransportId(serial: string, id: number): void {
    const entry = this.#features.get(serial);
    if (entry === undefined) return;
    if (entry.transportId === undefined) entry.transportId = id;
    else if (entry.transportId !== id) this.#features.delete(serial);
  }

  #syncFeatureCache(devices: readonly AdbDevice[]): void {
    const listed = new Map(devices.map((d) => [d.serial, d]));
    for (const serial of [...this.#features.keys()]) {
      const d = listed.get(serial);
      if (d === undefined || d.state !== "device") this.#features.delete(serial);
      else if (d.transportId !== undefined) this.#noteTransportId(serial, d.transportId);
    }
  }

  /**
   * Binds a new connection to the device and opens `service` on it. The service request is sent
   * only once `host:tport:serial:` has been answered: Google's server discards whatever else was
   * in its buffer when it switches the transport (sockets.cpp `smart_socket_data.clear()`), so a
   * pipelined service is lost and the connection hangs. A server older than `tport` answers FAIL
   * "unknown host service", after which `host:transport:` is used.
   */
  async #openDeviceService(
    serial: string,
    service: string,
    scope: CallScope,
  ): Promise<{ conn: Connection; reader: ByteReader }> {
    const conn = await this.#connect(scope);
    const reader = new ByteReader(conn);
    try {
      if (!this.#legacyTransport) {
        await scope.run(conn.write(encodeRequest(`host:tport:serial:${serial}`)));
        try {
          await scope.run(readStatus(reader));
        } catch (e) {
          if (
            e instanceof AdbFailure &&
            classifyFailure(e.failMessage) === FailKind.unknownService
          ) {
            conn.close();
            this.#legacyTransport = true;
            return await this.#openDeviceService(serial, service, scope);
          }
          throw e;
        }
        const id = await scope.run(reader.readExactly(8));
        if (id === null) throw new ProtocolError("ADB server closed before the transport id");
        this.#noteTransportId(serial, parseTransportId(id));
        await scope.run(conn.write(encodeRequest(service)));
      } else {
        await scope.run(conn.write(encodeRequest(`host:transport:${serial}`)));
        await scope.run(readStatus(reader));
        await scope.run(conn.write(encodeRequest(service)));
      }
      await scope.run(readStatus(reader));
      return { conn, reader };
    } catch (e) {
      conn.close();
      throw e;
    }
  }
}

function buildCommand(argv: readonly string[]): string {
  if (argv.length === 0) {
    throw invalidParams("Cannot run an empty device command: pass the program and its arguments");
  }
  return quoteShellCommand(argv);
}

function checkCommandLength(command: string, v2: boolean): void {
  const bytes = encoder.encode(command).length;
  const max = v2 ? MAX_SHELL_COMMAND_BYTES : MAX_V1_SHELL_COMMAND_BYTES;
  if (bytes > max) {
    throw invalidParams(
      `Device command is too long: ${bytes} bytes, the limit is ${max}` +
        (v2 ? "" : " on this device (no shell_v2)") + "; send less text per call",
    );
  }
}

function summarize(command: string): string {
  return JSON.stringify(command.length > 80 ? `${command.slice(0, 77)}...` : command);
}

function outputCap(opts: CallOptions): number {
  return boundedInt(opts.maxOutputBytes, DEFAULT_SHELL_OUTPUT_BYTES, 1, MAX_SHELL_OUTPUT_BYTES);
}

function outputTooLarge(cap: number, scope: CallScope): ToolError {
  return new ToolError(
    "adb_error",
    `Device output went over the ${cap}-byte limit: ${scope.what}; ask for less output ` +
      "(filter on the device or use a narrower command)",
    { limit_bytes: cap },
  );
}

class Collector {
  parts: Uint8Array[] = [];
  bytes = 0;
  add(data: Uint8Array): void {
    if (data.length === 0) return;
    this.parts.push(data);
    this.bytes += data.length;
  }
  join(): Uint8Array {
    return concatBytes(this.parts);
  }
}

async function readShellV2(reader: ByteReader, scope: CallScope, cap: number) {
  const dec = new ShellV2Decoder();
  const out = new Collector();
  const err = new Collector();
  let exitCode: number | null = null;
  while (true) {
    const chunk = await scope.run(reader.readChunk());
    if (chunk === null) break;
    for (const p of dec.push(chunk)) {
      if (p.id === ShellPacketId.stdout) out.add(p.data);
      else if (p.id === ShellPacketId.stderr) err.add(p.data);
      else if (p.id === ShellPacketId.exit) exitCode = p.data[0] ?? null;
      if (out.bytes + err.bytes > cap) throw outputTooLarge(cap, scope);
    }
  }
  return shellResult(out.join(), err.join(), exitCode);
}

async function readRawShell(reader: ByteReader, scope: CallScope, cap: number) {
  return shellResult(await readAll(reader, scope, cap), new Uint8Array(0), null);
}

async function readAll(reader: ByteReader, scope: CallScope, cap: number): Promise<Uint8Array> {
  const out = new Collector();
  while (true) {
    const chunk = await scope.run(reader.readChunk());
    if (chunk === null) break;
    out.add(chunk);
    if (out.bytes > cap) throw outputTooLarge(cap, scope);
  }
  return out.join();
}

function shellResult(stdout: Uint8Array, stderr: Uint8Array, exitCode: number | null): ShellResult {
  return { stdout, stderr, exitCode, text: () => decoder.decode(stdout) };
}
