/**
 * The server half of attach: `keynobi app`'s socket. It accepts connections (at most
 * MAX_PENDING_HANDSHAKES waiting for their handshake line), answers the `status` and `open`
 * queries, and makes each accepted attach one attached session: an MCP session (made by the app,
 * `AppServerHost.newAttachedSession`) over an `AttachedTransport` on that connection. A client
 * that disconnects never stops what it started; quitting answers what is in flight (spec
 * `quit_sessions`).
 */
import { boundedWait } from "../core/abortable.ts";
import { log } from "../core/log.ts";
import type { ActivityRecord } from "../mcp/activity_log.ts";
import type { McpSession } from "../mcp/session.ts";
import type { BuildClient } from "../build/shared/build_client.ts";
import { VERSION } from "../version.ts";
import { AttachedTransport } from "./attached_transport.ts";
import {
  type AppQuery,
  type AttachRequest,
  continueStream,
  decideAttach,
  HandshakeError,
  MAX_PENDING_HANDSHAKES,
  parseQuery,
  readHandshakeLine,
} from "./handshake.ts";
import type { LogcatShares } from "./logcat_shares.ts";
import type { ClaimedSocket } from "./socket_file.ts";

/** How long quitting waits for a cancelled build to be recorded. */
const QUIT_BUILD_TIMEOUT_MS = 1500;
/** How long each other step of quitting may take before the app goes on. */
const QUIT_STEP_TIMEOUT_MS = 5000;

/** Resolve with `p`, or after `ms` with undefined (a step of quitting). */
export function withinQuitStep<T>(
  p: Promise<T>,
  ms = QUIT_STEP_TIMEOUT_MS,
): Promise<T | undefined> {
  return boundedWait(p, ms);
}

/** One attached session as the app lists it (`keynobi status`, the dashboard). */
interface AttachedSessionView {
  session_id: string;
  pid: number;
  client_name: string | null;
  version: string;
  project: string | null;
  follows_app: boolean;
  since: string;
}

/** What `open` did: the app's project switched, or why not. */
type ProjectOpened =
  | { ok: true; project: string; previous: string | null }
  | { ok: false; reason: string };

/** What the socket needs of the app around it. */
interface AppServerHost {
  socket: ClaimedSocket;
  activity: { append(entry: ActivityRecord): Promise<unknown> };
  builds: Pick<BuildClient, "status" | "cancel" | "shutdown">;
  logcatShares: Pick<LogcatShares, "release">;
  /** The app's open project now. */
  project(): string | null;
  /** The answer to the `status` query. */
  status(): unknown;
  /** The `open` query: switch the app's project. */
  openProject(path: string): Promise<ProjectOpened>;
  /** The MCP session of one accepted attach (its id names it everywhere). */
  newAttachedSession(req: AttachRequest): McpSession<unknown>;
}

interface AttachedSession {
  info: AttachedSessionView;
  mcpSession: McpSession<unknown>;
  /** Null until the handshake's answer is written. */
  transport: AttachedTransport | null;
  conn: Deno.UnixConn;
}

export class AppServer {
  readonly #host: AppServerHost;
  readonly #live = new Map<string, AttachedSession>();
  readonly #detaching = new Set<Promise<void>>();
  #pendingHandshakes = 0;
  #quitting = false;
  #accepting: Promise<void> = Promise.resolve();

  constructor(host: AppServerHost) {
    this.#host = host;
  }

  attachedSessions(): AttachedSessionView[] {
    return [...this.#live.values()].map((a) => a.info);
  }

  /** Accept connections until `quit`. */
  start(): void {
    this.#accepting = this.#accept();
  }

  /** Refuse every connection from now on (the first step of quitting). */
  refuseNew(): void {
    this.#quitting = true;
  }

  /**
   * Quitting (spec `quit_sessions`): stop listening, cancel a running build (recorded as cancelled
   * because Keynobi quit) and wait up to QUIT_BUILD_TIMEOUT for it to be recorded, answer every
   * request in flight with -32603, close the sessions; then wait for the detaching ones.
   */
  async quit(): Promise<void> {
    this.refuseNew();
    await this.#host.socket.release();
    const sessions = [...this.#live.values()];
    this.#live.clear();
    for (const a of sessions) a.transport?.holdAnswers();
    const message = await this.#stopBuild();
    await withinQuitStep(Promise.allSettled(sessions.map((a) => this.#closeOnQuit(a, message))));
    await this.#accepting;
    await withinQuitStep(Promise.allSettled([...this.#detaching]));
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#host.socket.listener) {
        if (this.#quitting || this.#pendingHandshakes >= MAX_PENDING_HANDSHAKES) {
          closeQuietly(conn);
          continue;
        }
        this.#pendingHandshakes++;
        this.#serveConnection(conn).catch((e) => {
          log.warn(`attach connection failed: ${(e as Error).message}`);
          closeQuietly(conn);
        });
      }
    } catch { /* the listener closed */ }
  }

  async #serveConnection(conn: Deno.UnixConn): Promise<void> {
    const reader = conn.readable.getReader();
    let handshake;
    let query: AppQuery;
    try {
      try {
        handshake = await readHandshakeLine(reader);
      } finally {
        this.#pendingHandshakes--;
      }
      query = parseQuery(handshake.line);
    } catch (e) {
      const reason = e instanceof HandshakeError
        ? e.message
        : handshake === undefined
        ? "the connection failed"
        : String(e);
      return await answerAndClose(conn, { accepted: false, reason, version: VERSION });
    }
    if (query.kind === "status") return await answerAndClose(conn, this.#host.status());
    if (query.kind === "open") {
      const r = await this.#host.openProject(query.project);
      return await answerAndClose(
        conn,
        r.ok
          ? { ok: true, project: r.project, previous: r.previous, version: VERSION }
          : { ok: false, reason: r.reason, version: VERSION },
      );
    }
    const a = await this.#accepted(conn, query.request);
    if (a === null) return;
    const transport = new AttachedTransport(continueStream(handshake.rest, reader), conn.writable, {
      gate: a.mcpSession.gate,
    });
    a.transport = transport;
    await a.mcpSession.server.connect(transport);
    await this.#serveAttached(a, query.request, transport);
  }

  /** Decide an attach; when accepted, the session is live and its answer written. */
  async #accepted(conn: Deno.UnixConn, req: AttachRequest): Promise<AttachedSession | null> {
    const canonical = req.project === null
      ? null
      : await Deno.realPath(req.project).catch(() => null);
    const reply = this.#quitting
      ? { accepted: false as const, reason: "the Keynobi app is quitting", version: VERSION }
      : decideAttach(req, {
        version: VERSION,
        project: this.#host.project(),
        attached: this.#live.size,
        canonical,
      });
    if (!reply.accepted) {
      await answerAndClose(conn, reply);
      return null;
    }
    const a = this.#attachedSession(req, conn);
    this.#live.set(a.info.session_id, a);
    try {
      await writeLine(conn, reply);
    } catch {
      this.#live.delete(a.info.session_id);
      closeQuietly(conn);
      return null;
    }
    return a;
  }

  #attachedSession(req: AttachRequest, conn: Deno.UnixConn): AttachedSession {
    const mcpSession = this.#host.newAttachedSession(req);
    const info: AttachedSessionView = {
      session_id: mcpSession.sessionId,
      pid: req.pid,
      client_name: null,
      version: req.version,
      project: req.project,
      follows_app: req.project === null,
      since: new Date().toISOString(),
    };
    return { info, mcpSession, transport: null, conn };
  }

  /** Serve one attached session until its client goes away, then let it detach. */
  async #serveAttached(
    a: AttachedSession,
    req: AttachRequest,
    transport: AttachedTransport,
  ): Promise<void> {
    await this.#record(
      `Client attached (pid ${req.pid}) — project: ${
        req.project ?? `${this.#host.project() ?? "none"} (follows the app)`
      }`,
      a,
    );
    const clientName = setInterval(() => {
      a.info.client_name = a.mcpSession.handlers.clientName;
      if (a.info.client_name !== null) clearInterval(clientName);
    }, 50);
    await transport.ended;
    clearInterval(clientName);
    if (!this.#live.has(a.info.session_id)) return; // quitting closed it
    this.#live.delete(a.info.session_id);
    // A client that disconnects never stops what it started: let its handlers finish.
    const done = (async () => {
      await a.mcpSession.drain();
      await a.mcpSession.close();
      await this.#host.logcatShares.release(a.info.session_id);
      closeQuietly(a.conn);
      await this.#record("Client detached", a);
    })().catch((e) => log.warn(`detaching a session failed: ${(e as Error).message}`));
    this.#detaching.add(done);
    done.finally(() => this.#detaching.delete(done));
  }

  /** Cancel a running build for the quit; the message every open request is answered with. */
  async #stopBuild(): Promise<string> {
    const { builds } = this.#host;
    // The cancel waits for a build that is starting, so it is not missed while its record
    // already reads running; it starts no worker when no build ever ran.
    const cancelled = (await withinQuitStep(
      builds.cancel({ kind: "appQuit" }).catch(() => null),
    )) != null;
    if (cancelled) {
      await withinQuitStep(builds.shutdown("the Keynobi app quit"), QUIT_BUILD_TIMEOUT_MS);
    }
    return "The Keynobi app quit before answering this request" +
      (cancelled ? " (it cancelled the running Gradle build)" : "") +
      "; this session continues standalone: send it again";
  }

  async #closeOnQuit(a: AttachedSession, message: string): Promise<void> {
    await a.transport?.quit(message);
    await a.mcpSession.close();
    closeQuietly(a.conn);
    await this.#record("Client detached (the app quit)", a);
  }

  #record(summary: string, a: AttachedSession): Promise<unknown> {
    return this.#host.activity.append({
      kind: "lifecycle",
      name: "session",
      duration_ms: 0,
      status: "ok",
      summary,
      session: a.info.session_id,
    });
  }
}

async function writeLine(conn: Deno.UnixConn, value: unknown): Promise<void> {
  const w = conn.writable.getWriter();
  try {
    await w.write(new TextEncoder().encode(JSON.stringify(value) + "\n"));
  } finally {
    w.releaseLock();
  }
}

/** Write one answer line (a failure to write changes nothing), then close. */
async function answerAndClose(conn: Deno.UnixConn, value: unknown): Promise<void> {
  await writeLine(conn, value).catch(() => {});
  closeQuietly(conn);
}

function closeQuietly(conn: Deno.UnixConn): void {
  try {
    conn.close();
  } catch { /* closed */ }
}
