/**
 * The `keynobi --mcp` side of attaching: connect to `<data dir>/mcp.sock` within
 * `ATTACH_TIMEOUT`, send the handshake, read the app's answer. Also the one-line queries the CLI
 * sends (`keynobi status`, `keynobi open`).
 */
import { boundedWait } from "../core/abortable.ts";
import { attachSocketPath } from "../core/data_dir.ts";
import type { ToolsetName } from "../mcp/toolsets.ts";
import {
  ATTACH_VERSION,
  type AttachReply,
  HandshakeError,
  MAX_HANDSHAKE_BYTES,
  readHandshakeLine,
  type SelectedBy,
} from "./handshake.ts";

/** How long `keynobi --mcp` waits for the app's socket and its answer before running standalone. */
const ATTACH_TIMEOUT_MS = 1500;

export type AttachOutcome =
  | {
    kind: "attached";
    conn: Deno.UnixConn;
    reader: ReadableStreamDefaultReader<Uint8Array>;
    rest: Uint8Array;
    reply: Extract<AttachReply, { accepted: true }>;
  }
  | { kind: "standalone"; reason: string };

/**
 * Close a connection the app may already have closed: an app that accepts and closes at once (its
 * pending handshakes full, or quitting) leaves the resource closed, and closing it again throws.
 */
function closeQuietly(conn: Deno.UnixConn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** Connect within `timeoutMs`; null when nothing answers (no file, refused, or too slow). */
async function connectWithin(path: string, timeoutMs: number): Promise<Deno.UnixConn | null> {
  const pending = Deno.connect({ transport: "unix", path });
  const r = await boundedWait(pending, timeoutMs);
  if (r === undefined) pending.then(closeQuietly, () => {});
  return r ?? null;
}

/** Send one line, read one line back (both bounded), within `timeoutMs`. */
async function exchange(
  conn: Deno.UnixConn,
  message: unknown,
  timeoutMs: number,
): Promise<{ value: unknown; reader: ReadableStreamDefaultReader<Uint8Array>; rest: Uint8Array }> {
  const writer = conn.writable.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  writer.releaseLock();
  const reader = conn.readable.getReader();
  const { line, rest } = await readHandshakeLine(reader, {
    maxBytes: MAX_HANDSHAKE_BYTES * 16,
    timeoutMs,
    what: "the Keynobi app's answer",
  });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new HandshakeError("the Keynobi app's answer is not JSON");
  }
  return { value, reader, rest };
}

export async function tryAttach(opts: {
  dataDir: string;
  version: string;
  project: string | null;
  selectedBy: SelectedBy;
  toolsets: ToolsetName[] | null;
  timeoutMs?: number;
}): Promise<AttachOutcome> {
  const timeoutMs = opts.timeoutMs ?? ATTACH_TIMEOUT_MS;
  const path = attachSocketPath(opts.dataDir);
  try {
    await Deno.lstat(path);
  } catch {
    return { kind: "standalone", reason: "no Keynobi app is running" };
  }
  const started = performance.now();
  let conn: Deno.UnixConn | null;
  try {
    conn = await connectWithin(path, timeoutMs);
  } catch {
    return { kind: "standalone", reason: "no Keynobi app is running (its socket is stale)" };
  }
  if (conn === null) {
    return { kind: "standalone", reason: `the Keynobi app did not answer within ${timeoutMs} ms` };
  }
  const request: Record<string, unknown> = {
    attach: ATTACH_VERSION,
    version: opts.version,
    project: opts.project,
    pid: Deno.pid,
    selected_by: opts.selectedBy,
  };
  if (opts.toolsets) request.toolsets = opts.toolsets;
  try {
    const left = Math.max(1, timeoutMs - (performance.now() - started));
    const { value, reader, rest } = await exchange(conn, request, left);
    const reply = value as Record<string, unknown>;
    const appVersion = typeof reply.version === "string" ? reply.version : "unknown";
    if (reply.accepted !== true) {
      closeQuietly(conn);
      const reason = typeof reply.reason === "string" ? reply.reason : "no reason given";
      return { kind: "standalone", reason: `the Keynobi app refused: ${reason}` };
    }
    const echoed = Array.isArray(reply.toolsets) ? reply.toolsets as ToolsetName[] : null;
    if (opts.toolsets && (!echoed || echoed.join(",") !== opts.toolsets.join(","))) {
      closeQuietly(conn);
      return {
        kind: "standalone",
        reason: `the Keynobi app (version ${appVersion}) cannot limit a session to --toolsets`,
      };
    }
    return {
      kind: "attached",
      conn,
      reader,
      rest,
      reply: {
        accepted: true,
        project: typeof reply.project === "string" ? reply.project : null,
        version: appVersion,
        toolsets: echoed ?? [],
      },
    };
  } catch (e) {
    closeQuietly(conn);
    return {
      kind: "standalone",
      reason: e instanceof HandshakeError
        ? `the Keynobi app did not complete the handshake: ${e.message}`
        : `the Keynobi app socket failed: ${(e as Error).message}`,
    };
  }
}

/**
 * One query line to the app (`{"status":1}`, `{"open":1,…}`) and its answer; null when no app
 * answers within `timeoutMs`.
 */
export async function queryApp(
  dataDir: string,
  query: Record<string, unknown>,
  timeoutMs = ATTACH_TIMEOUT_MS,
): Promise<Record<string, unknown> | null> {
  let conn: Deno.UnixConn | null;
  try {
    conn = await connectWithin(attachSocketPath(dataDir), timeoutMs);
  } catch {
    return null;
  }
  if (conn === null) return null;
  try {
    const { value } = await exchange(conn, query, timeoutMs);
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : null;
  } catch {
    return null;
  } finally {
    closeQuietly(conn);
  }
}
