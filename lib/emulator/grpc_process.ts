/**
 * The UI worker's side of the emulator gRPC client process (workers/grpc_child.ts): an
 * `EmulatorRpc` whose calls run in a child process, so that an abort in Deno's HTTP/2 client
 * (denoland/deno#36788, ../shared/EMULATOR.md §4.8) ends that child and never keynobi.
 *
 * One child per endpoint address, started on the first call with network access to that address
 * only, read of proto/ and the gRPC environment variables; the token travels with each call on
 * stdin, never on the command line. When the child dies, every call in flight fails with
 * `GrpcClientDied` (the link turns it into an ADB fallback with the reason) and the next call
 * starts a new child. A child that does not answer within its call's deadline and a slack is
 * killed.
 */
import { GRPC_ENV_NAMES } from "../core/worker_permissions.ts";
import { log } from "../core/log.ts";
import { type FromChild, readFrames, type ToChild } from "./child_wire.ts";
import { encodeFrame } from "./child_wire.ts";
import type { GrpcEndpoint } from "./shared/discovery.ts";
import { GRPC_CHILD_ARG } from "./shared/limits.ts";
import {
  type CallOpts,
  type ClipDataMsg,
  DEFAULT_GRPC_DEADLINE_MS,
  type EmulatorRpc,
  type EmulatorStatusMsg,
  GrpcFailure,
  GrpcStatus,
  type ImageFormatMsg,
  type ImageMsg,
  type KeyboardEventMsg,
  MAX_GRPC_DEADLINE_MS,
  type PhysicalModelMsg,
  type TouchEventMsg,
} from "./grpc_client.ts";

/** Client processes kept at once (one per emulator in use); the least recently used ends. */
const MAX_GRPC_CHILDREN = 4;
/** On top of a call's deadline before a silent child is killed. */
const CHILD_ANSWER_SLACK_MS = 5_000;
/** V8 heap of a child, MB (frames are buffers outside it; this bounds a misbehaving one). */
const CHILD_HEAP_MB = 256;
/** What is kept of a child's stderr, for the reason when it dies. */
const MAX_CHILD_STDERR_CHARS = 2_000;

/** A call failed because the client process died (an abort in Deno's HTTP/2 client). */
export class GrpcClientDied extends GrpcFailure {
  readonly exit: string;
  constructor(method: string, exit: string, stderr: string) {
    super(method, GrpcStatus.UNAVAILABLE, `the gRPC client process died (${exit})${stderr}`);
    this.name = "GrpcClientDied";
    this.exit = exit;
  }
}

/** How to start a child for `address` (tests may count or replace it). */
type ChildCommand = (address: string) => { command: string; args: string[] };

const CHECKOUT = new URL("../../", import.meta.url);

/** From source: deno with the narrow flags; a compiled binary: itself with GRPC_CHILD_ARG. */
export function childCommand(address: string): { command: string; args: string[] } {
  const exec = Deno.execPath();
  const base = exec.split(/[\\/]/).pop() ?? "";
  if (!/^deno(\.exe)?$/i.test(base)) return { command: exec, args: [GRPC_CHILD_ARG, address] };
  const root = decodeURIComponent(CHECKOUT.pathname).replace(/\/$/, "");
  return {
    command: exec,
    args: [
      "run",
      "--no-prompt",
      `--config=${root}/deno.json`,
      `--allow-net=${address}`,
      `--allow-read=${root}/proto`,
      `--allow-env=${GRPC_ENV_NAMES.join(",")}`,
      `--v8-flags=--max-old-space-size=${CHILD_HEAP_MB}`,
      `${root}/workers/grpc_child.ts`,
      address,
    ],
  };
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  onAbort: (() => void) | null;
  signal?: AbortSignal;
}

interface Proc {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  pending: Map<number, Pending>;
  stderr: string;
  dead: boolean;
}

function exitText(s: Deno.CommandStatus): string {
  return s.signal ? `signal ${s.signal}` : `exit code ${s.code}`;
}

export class ChildEmulatorRpc implements EmulatorRpc {
  endpoint: GrpcEndpoint;
  #command: ChildCommand;
  #proc: Proc | null = null;
  #nextId = 1;
  #holds = 0;
  /** Children started so far (the first, and each restart). */
  starts = 0;
  closed = false;

  constructor(endpoint: GrpcEndpoint, command: ChildCommand = childCommand) {
    this.endpoint = endpoint;
    this.#command = command;
  }

  #start(method: string): Proc {
    const { command, args } = this.#command(this.endpoint.address);
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(command, {
        args,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (e) {
      throw new GrpcFailure(
        method,
        GrpcStatus.UNAVAILABLE,
        `cannot start the gRPC client process: ${(e as Error).message}`,
      );
    }
    this.starts++;
    const proc: Proc = {
      child,
      writer: child.stdin.getWriter(),
      pending: new Map(),
      stderr: "",
      dead: false,
    };
    const stderrDone = (async () => {
      const dec = new TextDecoder();
      try {
        for await (const chunk of child.stderr) {
          proc.stderr = (proc.stderr + dec.decode(chunk, { stream: true })).slice(
            -MAX_CHILD_STDERR_CHARS,
          );
        }
      } catch {
        // the child went away
      }
    })();
    void (async () => {
      try {
        for await (const { msg, binary } of readFrames<FromChild>(child.stdout)) {
          if (msg.t === "ready") continue;
          const p = proc.pending.get(msg.id);
          if (!p) continue;
          this.#settle(proc, msg.id);
          if (msg.t === "ok") {
            const value = msg.binary ? { ...(msg.value as object), image: binary } : msg.value;
            p.resolve(value);
          } else p.reject(new GrpcFailure(p.method, msg.code, msg.details));
        }
      } catch (e) {
        proc.stderr += `\n${(e as Error).message}`;
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
      const status = await child.status;
      await stderrDone;
      proc.dead = true;
      if (this.#proc === proc) this.#proc = null;
      const last = proc.stderr.trim().split("\n").filter((l) => l.trim() !== "").pop();
      const why = exitText(status);
      if (!status.success && !this.closed) {
        log.warn(
          `the emulator gRPC client process for ${this.endpoint.address} died (${why}${
            last ? `: ${last.slice(0, 300)}` : ""
          }); ${proc.pending.size} call(s) in flight fall back to ADB, the next call starts ` +
            "a new one",
        );
      }
      for (const [id, p] of [...proc.pending]) {
        this.#settle(proc, id);
        p.reject(new GrpcClientDied(p.method, why, last ? `: ${last.slice(0, 300)}` : ""));
      }
    })();
    if (this.#holds > 0) this.#write(proc, { t: "hold", on: true });
    return proc;
  }

  #settle(proc: Proc, id: number) {
    const p = proc.pending.get(id);
    if (!p) return;
    proc.pending.delete(id);
    clearTimeout(p.timer);
    if (p.onAbort) p.signal?.removeEventListener("abort", p.onAbort);
  }

  #write(proc: Proc, msg: ToChild) {
    proc.writer.write(encodeFrame(msg)).catch(() => {
      // The child is gone: its exit rejects what is pending.
    });
  }

  #call<T>(method: string, req: unknown, o?: CallOpts): Promise<T> {
    if (this.closed) {
      return Promise.reject(new GrpcFailure(method, GrpcStatus.UNAVAILABLE, "channel closed"));
    }
    if (o?.signal?.aborted) {
      return Promise.reject(
        new GrpcFailure(method, GrpcStatus.CANCELLED, "cancelled before it was sent"),
      );
    }
    let proc: Proc;
    try {
      proc = this.#proc && !this.#proc.dead ? this.#proc : (this.#proc = this.#start(method));
    } catch (e) {
      return Promise.reject(e);
    }
    const deadlineMs = Math.min(
      MAX_GRPC_DEADLINE_MS,
      Math.max(1, o?.deadlineMs ?? DEFAULT_GRPC_DEADLINE_MS),
    );
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = {
        method,
        resolve: resolve as (v: unknown) => void,
        reject,
        signal: o?.signal,
        onAbort: null,
        timer: setTimeout(() => {
          this.#settle(proc, id);
          reject(
            new GrpcFailure(
              method,
              GrpcStatus.DEADLINE_EXCEEDED,
              `the gRPC client process did not answer in ${deadlineMs + CHILD_ANSWER_SLACK_MS} ms`,
            ),
          );
          try {
            proc.child.kill("SIGKILL");
          } catch {
            // already gone
          }
        }, deadlineMs + CHILD_ANSWER_SLACK_MS),
      };
      if (o?.signal) {
        p.onAbort = () => {
          this.#settle(proc, id);
          this.#write(proc, { t: "cancel", id });
          reject(new GrpcFailure(method, GrpcStatus.CANCELLED, "cancelled"));
        };
        o.signal.addEventListener("abort", p.onAbort, { once: true });
      }
      proc.pending.set(id, p);
      const auth = this.endpoint.auth;
      this.#write(proc, {
        t: "call",
        id,
        method,
        req,
        token: auth.kind === "token" ? auth.token : null,
        deadlineMs,
      });
    });
  }

  getScreenshot(f: ImageFormatMsg, o?: CallOpts) {
    return this.#call<ImageMsg>("getScreenshot", f, o);
  }
  async sendTouch(e: TouchEventMsg, o?: CallOpts) {
    await this.#call("sendTouch", e, o);
  }
  async sendKey(e: KeyboardEventMsg, o?: CallOpts) {
    await this.#call("sendKey", e, o);
  }
  async setPhysicalModel(v: PhysicalModelMsg, o?: CallOpts) {
    await this.#call("setPhysicalModel", v, o);
  }
  getPhysicalModel(v: PhysicalModelMsg, o?: CallOpts) {
    return this.#call<PhysicalModelMsg>("getPhysicalModel", v, o);
  }
  getStatus(o?: CallOpts) {
    return this.#call<EmulatorStatusMsg>("getStatus", {}, o);
  }
  getClipboard(o?: CallOpts) {
    return this.#call<ClipDataMsg>("getClipboard", {}, o);
  }
  async setClipboard(c: ClipDataMsg, o?: CallOpts) {
    await this.#call("setClipboard", c, o);
  }
  acquire() {
    this.#holds++;
    if (this.#holds === 1 && this.#proc && !this.#proc.dead) {
      this.#write(this.#proc, { t: "hold", on: true });
    }
  }
  release() {
    this.#holds = Math.max(0, this.#holds - 1);
    if (this.#holds === 0 && this.#proc && !this.#proc.dead) {
      this.#write(this.#proc, { t: "hold", on: false });
    }
  }

  /** Ends the child (its stdin closes; it exits after its calls). */
  close() {
    this.closed = true;
    const proc = this.#proc;
    this.#proc = null;
    if (!proc) return;
    proc.writer.close().catch(() => {});
  }
}

/** Client processes by endpoint address (least recently used first). */
const children = new Map<string, ChildEmulatorRpc>();

/** The client for `endpoint` (its token as last read); starts its process on the first call. */
export function childRpc(endpoint: GrpcEndpoint, command?: ChildCommand): ChildEmulatorRpc {
  const have = children.get(endpoint.address);
  if (have && !have.closed) {
    children.delete(endpoint.address);
    children.set(endpoint.address, have);
    have.endpoint = endpoint;
    return have;
  }
  const rpc = new ChildEmulatorRpc(endpoint, command);
  children.set(endpoint.address, rpc);
  while (children.size > MAX_GRPC_CHILDREN) {
    const [oldKey, old] = children.entries().next().value!;
    children.delete(oldKey);
    old.close();
  }
  return rpc;
}
