/**
 * The UI worker's way to an emulator's gRPC endpoint: which endpoint serves a serial (discovery
 * files, else the explicit `--grpc` endpoint), whether this worker may dial it, and running calls
 * with every failure turned into a fallback reason the tool result carries. The calls run in a
 * supervised child process (lib/emulator/grpc_process.ts, workers/grpc_child.ts): the worker never
 * loads grpc-js, and an abort in Deno's HTTP/2 client ends that child only.
 */
import {
  endpointForSerial,
  type GrpcEndpoint,
  isEmulatorSerial,
  readDiscovery,
} from "./shared/discovery.ts";
import type { EmulatorRpc, EmulatorStatusMsg } from "./grpc_client.ts";
import { GrpcFailure, GrpcStatus, MAX_GRPC_RECEIVE_BYTES } from "./grpc_client.ts";
import { MAX_FRAME_DIMENSION, MAX_FRAME_PIXELS } from "./shared/limits.ts";
import { naturalSizeFromStatus } from "./frames.ts";
import { childRpc, GrpcClientDied } from "./grpc_process.ts";
import type { Fallback } from "./shared/fallback.ts";

type LinkResult<T> =
  | { ok: true; value: T; endpoint: GrpcEndpoint }
  | { ok: false; fallback: Fallback };

interface EmulatorLinkOptions {
  /** Discovery directories this worker may read. */
  discoveryDirs: readonly string[];
  /** `--grpc` / `KEYNOBI_GRPC`, for emulators without a discovery file. */
  explicit?: GrpcEndpoint | null;
  /** Whether this worker may connect to `host:port` (its net grant). */
  mayDial?: (address: string) => boolean;
  /** Opens a client (tests may count calls); default lib/emulator/grpc_client.ts. */
  open?: (e: GrpcEndpoint) => Promise<EmulatorRpc>;
}

/**
 * What to set when none of the discovery folders exists (EMULATOR.md §1.2): the emulator writes
 * `<root>/avd/running`, the root being `$XDG_RUNTIME_DIR` on Linux (else `~/.android`), so a
 * server started without that variable (a service, `env -i`, another user) looks nowhere.
 */
const NO_DISCOVERY_DIR_HINT =
  "set XDG_RUNTIME_DIR (Linux; else ANDROID_EMULATOR_HOME or HOME) as the emulator's shell had " +
  "it: the emulator writes <that folder>/avd/running/pid_<n>.ini";

/** Endpoints' answers to getStatus kept (the natural display size). */
const MAX_STATUS_CACHE = 16;

function defaultMayDial(address: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "net", host: address }).state === "granted";
  } catch {
    return false;
  }
}

function fromFailure(e: GrpcFailure, ep: GrpcEndpoint): Fallback {
  const at = `${ep.address} (${e.method})`;
  if (e instanceof GrpcClientDied) {
    return {
      code: "client_died",
      reason: `the gRPC client process for ${at} died (${e.exit}; Deno's HTTP/2 client aborts ` +
        "when the emulator closes the connection, as an emulator that exits does: " +
        "denoland/deno#36788); keynobi kept running, and the next call starts a new client",
    };
  }
  switch (e.code) {
    case GrpcStatus.UNAUTHENTICATED:
      return {
        code: "unauthenticated",
        reason: `the emulator at ${at} refused the token (UNAUTHENTICATED: ${e.details}); the ` +
          `discovery file ${ep.source} may be stale`,
      };
    case GrpcStatus.PERMISSION_DENIED:
      return {
        code: "permission_denied",
        reason: `the emulator at ${at} does not allow this call (PERMISSION_DENIED: ${e.details})`,
      };
    case GrpcStatus.UNIMPLEMENTED:
      return {
        code: "unimplemented",
        reason: `the emulator at ${at} does not implement ${e.method} (UNIMPLEMENTED: an older ` +
          "emulator)",
      };
    case GrpcStatus.UNAVAILABLE:
      return {
        code: "unavailable",
        reason: `nothing answers gRPC at ${at} (UNAVAILABLE: ${e.details.slice(0, 160)}); the ` +
          "emulator may have exited and left its discovery file",
      };
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return {
        code: "frame_too_large",
        reason: `the emulator at ${at} answered more than keynobi accepts (` +
          `${MAX_GRPC_RECEIVE_BYTES} bytes: frames up to ${MAX_FRAME_DIMENSION} px a side and ` +
          `${MAX_FRAME_PIXELS / (1024 * 1024)} Mpx; RESOURCE_EXHAUSTED: ${
            e.details.slice(0, 160)
          })`,
      };
    case GrpcStatus.DEADLINE_EXCEEDED:
      return { code: "deadline_exceeded", reason: `the emulator at ${at} did not answer in time` };
    default:
      return { code: "grpc_error", reason: `gRPC call failed at ${at}: ${e.message}` };
  }
}

export class EmulatorLink {
  #o: EmulatorLinkOptions;
  #status = new Map<string, { width: number; height: number } | null>();

  constructor(o: EmulatorLinkOptions) {
    this.#o = o;
  }

  /** The endpoint for `serial`, or why there is none usable. */
  async endpoint(serial: string): Promise<
    { ok: true; endpoint: GrpcEndpoint } | {
      ok: false;
      fallback: Fallback;
    }
  > {
    if (!isEmulatorSerial(serial)) {
      return {
        ok: false,
        fallback: { code: "not_emulator", reason: `${serial} is not an emulator` },
      };
    }
    const found = endpointForSerial(await readDiscovery(this.#o.discoveryDirs), serial) ??
      this.#o.explicit ?? null;
    if (!found) {
      return {
        ok: false,
        fallback: {
          code: "no_endpoint",
          reason: `no discovery file names ${serial} (${
            this.#o.discoveryDirs.length
              ? `looked in ${this.#o.discoveryDirs.join(", ")}`
              : `no folder an emulator advertises in exists here: ${NO_DISCOVERY_DIR_HINT}`
          }) and no --grpc / KEYNOBI_GRPC endpoint was given`,
        },
      };
    }
    if (found.auth.kind === "jwt") {
      return {
        ok: false,
        fallback: {
          code: "jwt_auth",
          reason: `${serial} asks for JWT auth (grpc.jwks in ${found.source}); keynobi uses ` +
            "token auth: launch the emulator with -grpc-use-token",
        },
      };
    }
    if (!(this.#o.mayDial ?? defaultMayDial)(found.address)) {
      return {
        ok: false,
        fallback: {
          code: "not_granted",
          reason: `the UI worker may not connect to ${found.address} (advertised after it ` +
            "started); the next UI call restarts it with that port",
        },
      };
    }
    return { ok: true, endpoint: found };
  }

  /** Runs `fn` against `serial`'s emulator; a gRPC refusal becomes a fallback, not an error. */
  async run<T>(
    serial: string,
    fn: (rpc: EmulatorRpc, endpoint: GrpcEndpoint) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<LinkResult<T>> {
    const e = await this.endpoint(serial);
    if (!e.ok) return e;
    const open = this.#o.open ?? ((ep: GrpcEndpoint) => Promise.resolve(childRpc(ep)));
    const rpc = await open(e.endpoint);
    rpc.acquire?.();
    try {
      return { ok: true, value: await fn(rpc, e.endpoint), endpoint: e.endpoint };
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      if (err instanceof GrpcFailure) return { ok: false, fallback: fromFailure(err, e.endpoint) };
      throw err;
    } finally {
      rpc.release?.();
    }
  }

  /** The display's natural size (hw.lcd.*) from getStatus, cached per endpoint. */
  async naturalSize(
    rpc: EmulatorRpc,
    signal?: AbortSignal,
  ): Promise<{ width: number; height: number } | null> {
    const key = rpc.endpoint.address;
    if (this.#status.has(key)) return this.#status.get(key)!;
    let s: EmulatorStatusMsg;
    try {
      s = await rpc.getStatus({ signal });
    } catch (e) {
      if (e instanceof GrpcFailure && e.code === GrpcStatus.PERMISSION_DENIED) return null;
      throw e;
    }
    const size = naturalSizeFromStatus(s.hardwareConfig?.entry);
    this.#status.set(key, size);
    while (this.#status.size > MAX_STATUS_CACHE) {
      this.#status.delete(this.#status.keys().next().value!);
    }
    return size;
  }
}
