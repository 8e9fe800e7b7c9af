/**
 * The emulator gRPC client process: the only place keynobi runs an HTTP/2 client. Deno 2.9.6's
 * HTTP/2 client aborts its whole process when the emulator sends a graceful GOAWAY at the wrong
 * moment (denoland/deno#36788, ../shared/EMULATOR.md §4.8); here that abort ends this process
 * only, and the UI worker (lib/emulator/grpc_process.ts) answers the call through ADB and starts
 * a new one on the next call.
 *
 * One process per endpoint address, given as the only argument. It is started with network
 * access to that address only, read of the program's proto/ and the gRPC environment variables
 * (nothing else), reads lib/emulator/child_wire.ts frames on stdin, runs each call through
 * lib/emulator/grpc_client.ts, and answers on stdout; logs go to stderr. It exits when stdin
 * ends (the worker went away) or after `CHILD_IDLE_EXIT_MS` without a call.
 */
import { type FromChild, readFrames, type ToChild } from "../lib/emulator/child_wire.ts";
import { encodeFrame } from "../lib/emulator/child_wire.ts";
import type { EmulatorRpc, ImageMsg } from "../lib/emulator/grpc_client.ts";
import type { GrpcEndpoint } from "../lib/emulator/shared/discovery.ts";

/** The process ends after this long without a call (the next call starts another). */
const CHILD_IDLE_EXIT_MS = 60_000;
/** Calls run at once, at most (the worker sends one gesture or frame at a time per device). */
const MAX_CHILD_CALLS = 64;

/** The calls a parent may ask for (lib/emulator/grpc_client.ts's EmulatorRpc). */
const METHODS = new Set([
  "getScreenshot",
  "sendTouch",
  "sendKey",
  "setPhysicalModel",
  "getPhysicalModel",
  "getStatus",
  "getClipboard",
  "setClipboard",
]);

/** The unary calls of `rpc` by name (getStatus takes no request). */
function invoke(
  rpc: EmulatorRpc,
  method: string,
  req: unknown,
  o: { signal: AbortSignal; deadlineMs: number },
): Promise<unknown> {
  // deno-lint-ignore no-explicit-any
  const r = rpc as any;
  return method === "getStatus" || method === "getClipboard" ? r[method](o) : r[method](req, o);
}

// deno-lint-ignore house/long-function -- address check, channel and message loop share state
async function runGrpcChild(args: readonly string[]): Promise<number> {
  const address = args[0] ?? "";
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address);
  if (!m) {
    console.error(`keynobi grpc client: ${JSON.stringify(address)} is not host:port`);
    return 2;
  }
  const { emulatorRpc, closeEmulatorChannels, GrpcFailure, GrpcStatus } = await import(
    "../lib/emulator/grpc_client.ts"
  );
  const out = Deno.stdout.writable.getWriter();
  let writing = Promise.resolve();
  const send = (msg: FromChild, binary?: Uint8Array) => {
    const bytes = encodeFrame(msg, binary);
    writing = writing.then(() => out.write(bytes)).catch(() => {});
    return writing;
  };
  const calls = new Map<number, AbortController>();
  const held = new Set<EmulatorRpc>();
  let idle: ReturnType<typeof setTimeout> | null = null;
  const armIdle = () => {
    if (idle !== null) clearTimeout(idle);
    idle = setTimeout(() => {
      if (calls.size === 0 && held.size === 0) {
        closeEmulatorChannels();
        Deno.exit(0);
      }
      armIdle();
    }, CHILD_IDLE_EXIT_MS);
  };
  const endpoint = (token: string | null): GrpcEndpoint => ({
    address,
    host: m[1],
    port: Number(m[2]),
    auth: token === null ? { kind: "none" } : { kind: "token", token },
    source: "the UI worker",
    serial: null,
    pid: null,
    mtimeMs: 0,
  });
  let lastToken: string | null = null;

  const run = async (c: Extract<ToChild, { t: "call" }>) => {
    const ctl = new AbortController();
    calls.set(c.id, ctl);
    try {
      if (!METHODS.has(c.method)) {
        throw new GrpcFailure(c.method, GrpcStatus.UNIMPLEMENTED, "not a call keynobi makes");
      }
      lastToken = c.token;
      const rpc = await emulatorRpc(endpoint(c.token));
      const value = await invoke(rpc, c.method, c.req, {
        signal: ctl.signal,
        deadlineMs: c.deadlineMs,
      });
      const img = c.method === "getScreenshot" ? (value as ImageMsg) : null;
      if (img?.image) {
        const { image, ...rest } = img;
        await send({ t: "ok", id: c.id, value: rest, binary: true }, image);
      } else await send({ t: "ok", id: c.id, value: value ?? null, binary: false });
    } catch (e) {
      const f = e instanceof GrpcFailure
        ? e
        : new GrpcFailure(c.method, GrpcStatus.UNKNOWN, (e as Error).message ?? String(e));
      await send({ t: "err", id: c.id, code: f.code, details: f.details });
    } finally {
      calls.delete(c.id);
      armIdle();
    }
  };

  await send({ t: "ready" });
  armIdle();
  try {
    for await (const { msg } of readFrames<ToChild>(Deno.stdin.readable)) {
      if (msg.t === "call") {
        if (calls.size >= MAX_CHILD_CALLS) {
          await send({
            t: "err",
            id: msg.id,
            code: GrpcStatus.UNAVAILABLE,
            details: `more than ${MAX_CHILD_CALLS} calls at once`,
          });
        } else void run(msg);
      } else if (msg.t === "cancel") calls.get(msg.id)?.abort();
      else if (msg.t === "hold") {
        const rpc = await emulatorRpc(endpoint(lastToken));
        if (msg.on && !held.has(rpc)) {
          rpc.acquire?.();
          held.add(rpc);
        } else if (!msg.on) {
          for (const h of held) h.release?.();
          held.clear();
        }
      }
    }
  } catch (e) {
    console.error(`keynobi grpc client: ${(e as Error).message}`);
  }
  for (const c of calls.values()) c.abort();
  closeEmulatorChannels();
  await writing;
  return 0;
}

if (import.meta.main) Deno.exit(await runGrpcChild(Deno.args));
