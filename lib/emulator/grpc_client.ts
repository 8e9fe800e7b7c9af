/**
 * The emulator's gRPC service (proto/emulator_controller.proto) through `@grpc/grpc-js` and
 * `@grpc/proto-loader`. Only the UI worker loads this module, and only when an emulator with a
 * gRPC endpoint is in use: both packages are imported on first use (grpc-js costs ~120 ms to
 * import), never on the main thread.
 *
 * Every call has a deadline and is cancelled with its request's signal; token auth travels as
 * `authorization: Bearer <token>`; the receive limit is raised so a full frame fits. Failures are
 * `GrpcFailure`s carrying the gRPC status code and its name.
 */
import type { GrpcEndpoint } from "./shared/discovery.ts";
import { MAX_FRAME_PIXELS } from "./shared/limits.ts";

/** Default deadline of one call. */
export const DEFAULT_GRPC_DEADLINE_MS = 5_000;
/** The longest deadline a call may ask for (a long press or drag is several calls). */
export const MAX_GRPC_DEADLINE_MS = 30_000;
/**
 * Largest message received: one RGB888 frame of the largest display accepted (MAX_FRAME_PIXELS),
 * plus its fields. A larger answer fails as RESOURCE_EXHAUSTED before it is held in memory.
 */
export const MAX_GRPC_RECEIVE_BYTES = MAX_FRAME_PIXELS * 3 + 1024 * 1024;
/** Channels kept open (one per endpoint and token). */
const MAX_GRPC_CHANNELS = 8;
/**
 * A channel with no call for this long is closed (the next call opens a new one, ~1 ms on
 * loopback). An idle HTTP/2 session that then receives the emulator's GOAWAY (it exits) can crash
 * Deno 2.9 inside nghttp2 (denoland/deno#36788), and a crash in the UI worker ends the process,
 * so no session stays open between tool calls.
 */
export const GRPC_IDLE_CLOSE_MS = 1_000;

/** gRPC status codes we name in results (grpc/doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  PERMISSION_DENIED: 7,
  UNAUTHENTICATED: 16,
} as const;

function grpcStatusName(code: number): string {
  const found = Object.entries(GrpcStatus).find(([, v]) => v === code);
  return found ? found[0] : `STATUS_${code}`;
}

export class GrpcFailure extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly details: string;
  readonly method: string;
  constructor(method: string, code: number, details: string) {
    super(`${method}: ${grpcStatusName(code)}${details ? `: ${details}` : ""}`);
    this.name = "GrpcFailure";
    this.code = code;
    this.codeName = grpcStatusName(code);
    this.details = details;
    this.method = method;
  }
}

type ImgFormatName = "PNG" | "RGBA8888" | "RGB888";
export type SkinRotationName = "PORTRAIT" | "LANDSCAPE" | "REVERSE_PORTRAIT" | "REVERSE_LANDSCAPE";

export interface ImageFormatMsg {
  format?: ImgFormatName;
  rotation?: { rotation?: SkinRotationName; xAxis?: number; yAxis?: number; zAxis?: number };
  width?: number;
  height?: number;
  display?: number;
}

export interface ImageMsg {
  format?: ImageFormatMsg;
  width?: number;
  height?: number;
  image?: Uint8Array;
  seq?: number;
  timestampUs?: string;
}

export interface TouchMsg {
  x: number;
  y: number;
  identifier: number;
  pressure: number;
  expiration?: "EVENT_EXPIRATION_UNSPECIFIED" | "NEVER_EXPIRE";
}

export interface TouchEventMsg {
  touches: TouchMsg[];
  display?: number;
}

export interface KeyboardEventMsg {
  codeType?: "Usb" | "Evdev" | "XKB" | "Win" | "Mac";
  eventType: "keydown" | "keyup" | "keypress";
  keyCode?: number;
  key?: string;
  text?: string;
}

export interface PhysicalModelMsg {
  target: "ROTATION" | "POSITION";
  value?: { data: number[] };
  status?: string;
}

export interface EmulatorStatusMsg {
  version?: string;
  uptime?: string;
  booted?: boolean;
  hardwareConfig?: { entry?: { key: string; value: string }[] };
}

/** The emulator's clipboard (text only). */
export interface ClipDataMsg {
  text: string;
}

export interface CallOpts {
  signal?: AbortSignal;
  deadlineMs?: number;
}

/** The calls keynobi makes. */
export interface EmulatorRpc {
  readonly endpoint: GrpcEndpoint;
  getScreenshot(f: ImageFormatMsg, o?: CallOpts): Promise<ImageMsg>;
  sendTouch(e: TouchEventMsg, o?: CallOpts): Promise<void>;
  sendKey(e: KeyboardEventMsg, o?: CallOpts): Promise<void>;
  setPhysicalModel(v: PhysicalModelMsg, o?: CallOpts): Promise<void>;
  getPhysicalModel(v: PhysicalModelMsg, o?: CallOpts): Promise<PhysicalModelMsg>;
  getStatus(o?: CallOpts): Promise<EmulatorStatusMsg>;
  getClipboard(o?: CallOpts): Promise<ClipDataMsg>;
  setClipboard(c: ClipDataMsg, o?: CallOpts): Promise<void>;
  /**
   * Keeps the channel open across several calls (a gesture holds a finger down between them):
   * every `acquire()` is paired with a `release()`.
   */
  acquire?(): void;
  release?(): void;
  close(): void;
}

/** The proto file, beside the program (`deno compile` includes proto/). */
const PROTO_URL = new URL("../../proto/emulator_controller.proto", import.meta.url);

// deno-lint-ignore no-explicit-any
type Any = any;

interface Loaded {
  grpc: Any;
  ctor: Any;
}

let loading: Promise<Loaded> | null = null;

/** Imports grpc-js and proto-loader and loads the service (once per worker). */
function loadEmulatorService(): Promise<Loaded> {
  loading ??= (async () => {
    const grpc = await import("@grpc/grpc-js");
    const loader = await import("@grpc/proto-loader");
    const def = loader.loadSync(PROTO_URL.pathname, {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as Any;
    return { grpc, ctor: pkg.android.emulation.control.EmulatorController };
  })();
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

function deadlineOf(o: CallOpts | undefined): number {
  const ms = Math.min(MAX_GRPC_DEADLINE_MS, Math.max(1, o?.deadlineMs ?? DEFAULT_GRPC_DEADLINE_MS));
  return Date.now() + ms;
}

class GrpcEmulator implements EmulatorRpc {
  readonly endpoint: GrpcEndpoint;
  #grpc: Any;
  #client: Any;
  #inFlight = 0;
  #idle: ReturnType<typeof setTimeout> | null = null;
  #onIdleClose: () => void;
  closed = false;

  constructor(endpoint: GrpcEndpoint, loaded: Loaded, onIdleClose: () => void) {
    this.endpoint = endpoint;
    this.#onIdleClose = onIdleClose;
    this.#grpc = loaded.grpc;
    this.#client = new loaded.ctor(endpoint.address, loaded.grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": MAX_GRPC_RECEIVE_BYTES,
      "grpc.max_send_message_length": 4 * 1024 * 1024,
      // One emulator, one connection: no DNS, no load balancing, no retries behind our back;
      // a pool of its own, so closing the channel closes its connection.
      "grpc.enable_retries": 0,
      "grpc.use_local_subchannel_pool": 1,
    });
  }

  #busy() {
    this.#inFlight++;
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
  }

  #quiet() {
    this.#inFlight--;
    if (this.#inFlight > 0 || this.closed) return;
    this.#idle = setTimeout(() => {
      this.#idle = null;
      if (this.#inFlight === 0) {
        this.close();
        this.#onIdleClose();
      }
    }, GRPC_IDLE_CLOSE_MS);
    Deno.unrefTimer(this.#idle as unknown as number);
  }

  #metadata(): Any {
    const md = new this.#grpc.Metadata();
    const auth = this.endpoint.auth;
    if (auth.kind === "token") md.set("authorization", `Bearer ${auth.token}`);
    return md;
  }

  #unary<T>(method: string, req: unknown, o?: CallOpts): Promise<T> {
    if (this.closed) {
      return Promise.reject(new GrpcFailure(method, GrpcStatus.UNAVAILABLE, "channel closed"));
    }
    this.#busy();
    return new Promise<T>((resolve, reject) => {
      if (o?.signal?.aborted) {
        reject(new GrpcFailure(method, GrpcStatus.CANCELLED, "cancelled before it was sent"));
        return;
      }
      let onAbort: (() => void) | null = null;
      const call = this.#client[method](
        req,
        this.#metadata(),
        { deadline: deadlineOf(o) },
        (err: Any, value: T) => {
          if (onAbort) o?.signal?.removeEventListener("abort", onAbort);
          this.#quiet();
          if (err) {
            const code = typeof err.code === "number" ? err.code : GrpcStatus.UNKNOWN;
            reject(new GrpcFailure(method, code, String(err.details ?? err.message ?? "")));
          } else resolve(value);
        },
      );
      if (o?.signal) {
        onAbort = () => call.cancel();
        o.signal.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  getScreenshot(f: ImageFormatMsg, o?: CallOpts) {
    return this.#unary<ImageMsg>("getScreenshot", f, o);
  }
  async sendTouch(e: TouchEventMsg, o?: CallOpts) {
    await this.#unary("sendTouch", e, o);
  }
  async sendKey(e: KeyboardEventMsg, o?: CallOpts) {
    await this.#unary("sendKey", e, o);
  }
  async setPhysicalModel(v: PhysicalModelMsg, o?: CallOpts) {
    await this.#unary("setPhysicalModel", v, o);
  }
  getPhysicalModel(v: PhysicalModelMsg, o?: CallOpts) {
    return this.#unary<PhysicalModelMsg>("getPhysicalModel", v, o);
  }
  getStatus(o?: CallOpts) {
    return this.#unary<EmulatorStatusMsg>("getStatus", {}, o);
  }
  getClipboard(o?: CallOpts) {
    return this.#unary<ClipDataMsg>("getClipboard", {}, o);
  }
  async setClipboard(c: ClipDataMsg, o?: CallOpts) {
    await this.#unary("setClipboard", c, o);
  }
  acquire() {
    this.#busy();
  }
  release() {
    this.#quiet();
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    this.#client.close();
  }
}

/** Open channels, by endpoint address and token (least recently used dropped first). */
const channels = new Map<string, EmulatorRpc>();

function channelKey(e: GrpcEndpoint): string {
  const a = e.auth;
  return `${e.address}|${a.kind === "token" ? a.token : a.kind}`;
}

/** A (cached) client for `endpoint`; loads grpc-js on first use. */
export async function emulatorRpc(endpoint: GrpcEndpoint): Promise<EmulatorRpc> {
  const key = channelKey(endpoint);
  const have = channels.get(key);
  if (have && !(have as GrpcEmulator).closed) {
    channels.delete(key);
    channels.set(key, have);
    return have;
  }
  const loaded = await loadEmulatorService();
  const rpc: GrpcEmulator = new GrpcEmulator(endpoint, loaded, () => {
    if (channels.get(key) === rpc) channels.delete(key);
  });
  channels.set(key, rpc);
  while (channels.size > MAX_GRPC_CHANNELS) {
    const [oldKey, old] = channels.entries().next().value!;
    channels.delete(oldKey);
    old.close();
  }
  return rpc;
}

/** Closes every channel (the worker is stopping, or tests). */
export function closeEmulatorChannels(): void {
  for (const c of channels.values()) c.close();
  channels.clear();
}
