/** `keynobi app` spawned as a user runs it, and raw attach-socket clients for hostile handshakes. */
import { keynobiArgv, type World } from "./harness.ts";

export interface AppProcess {
  child: Deno.ChildProcess;
  pid: number;
  stderr(): string;
  /** Send a signal and wait for the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Spawn `keynobi app …` and wait for its ready line; rejects with its stderr if it exits first. */
export async function startApp(world: World, args: readonly string[] = []): Promise<AppProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(["app", ...args]),
    env: world.env,
    clearEnv: true,
    cwd: world.home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const ready = Promise.withResolvers<number>();
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      err += chunk;
      const m = /keynobi app \S+ ready: pid (\d+)/.exec(err);
      if (m) ready.resolve(Number(m[1]));
    }
    ready.reject(new Error(`keynobi app exited before its ready line:\n${err}`));
  })();
  const stdout = new Response(child.stdout).text();
  let status: Promise<Deno.CommandStatus> | null = null;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    if (!status) {
      try {
        child.kill(signal);
      } catch { /* gone */ }
      status = child.status;
    }
    return status;
  };
  let pid: number;
  try {
    pid = await ready.promise;
  } catch (e) {
    await stop();
    await stdout;
    throw e;
  }
  return {
    child,
    pid,
    stderr: () => err,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      const out = await stdout;
      if (out !== "") throw new Error(`keynobi app wrote to stdout: ${out.slice(0, 200)}`);
    },
  };
}

/** Wait for `keynobi app` (already started, e.g. by a test) to exit with its status. */
export async function exitOf(p: AppProcess): Promise<Deno.CommandStatus> {
  return await p.child.status;
}

/** One raw connection to the attach socket: send bytes, read one answer line (or the close). */
export async function rawExchange(
  dataDir: string,
  send: string | Uint8Array | null,
  opts: { keepOpen?: boolean } = {},
): Promise<{ answer: Record<string, unknown> | null; conn: Deno.UnixConn }> {
  const conn = await Deno.connect({ transport: "unix", path: `${dataDir}/mcp.sock` });
  if (send !== null) {
    const w = conn.writable.getWriter();
    await w.write(typeof send === "string" ? new TextEncoder().encode(send) : send).catch(() => {});
    w.releaseLock();
  }
  const reader = conn.readable.getReader();
  let text = "";
  const dec = new TextDecoder();
  while (!text.includes("\n")) {
    const r = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (r.done) break;
    text += dec.decode(r.value, { stream: true });
  }
  reader.releaseLock();
  if (!opts.keepOpen) conn.close();
  const line = text.split("\n")[0];
  return { answer: line ? JSON.parse(line) : null, conn };
}

export function attachLine(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    attach: 1,
    version: "0.1.0",
    project: null,
    pid: Deno.pid,
    selected_by: null,
    ...fields,
  }) + "\n";
}
