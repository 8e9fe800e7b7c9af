/** `keynobi app` spawned as a user runs it, and raw attach-socket clients for hostile handshakes. */
import { spawnUntilReady, type World } from "./harness.ts";

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
  const p = await spawnUntilReady(
    world,
    ["app", ...args],
    /keynobi app \S+ ready: pid (\d+)/,
    "keynobi app",
  );
  return {
    child: p.child,
    pid: Number(p.match[1]),
    stderr: p.stderr,
    stop: p.stop,
    [Symbol.asyncDispose]: () => p[Symbol.asyncDispose](),
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
