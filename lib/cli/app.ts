/**
 * `keynobi app`: the long-lived keynobi every agent shares. It runs in the foreground until
 * SIGINT/SIGTERM, prints one ready line on stderr, and owns the workers (builds, logcat, UI) and
 * their state, the open project, the live session registry and `<data dir>/mcp.sock`. Each
 * accepted connection is one more SDK session (`newToolSession`) over our line transport.
 */
import { boundedWait } from "../core/abortable.ts";
import { ensureDataDir, resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { log } from "../core/log.ts";
import { setLastActiveProject } from "../project/project_root.ts";
import type { GrpcEndpoint } from "../emulator/shared/discovery.ts";
import { projectRootFor, type ProjectSelection, selectProject } from "../project/project_root.ts";
import { buildInstructions } from "../mcp/instructions.ts";
import { LineTransport } from "../mcp/line_transport.ts";
import { type JsonRpcId, RpcCode } from "../mcp/jsonrpc.ts";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Session } from "../mcp/session.ts";
import type { SessionMode, ToolContext } from "../tools/context.ts";
import { pinnedRefusal } from "../tools/project/project.ts";
import { VERSION } from "../version.ts";
import {
  type AttachRequest,
  continueStream,
  decideAttach,
  HandshakeError,
  MAX_ATTACHED_SESSIONS,
  MAX_PENDING_HANDSHAKES,
  parseQuery,
  readHandshakeLine,
} from "../attach/handshake.ts";
import { claimSocket, SocketClaimError } from "../attach/socket_file.ts";
import { queryApp } from "../attach/attach_client.ts";
import { LogcatShares } from "../attach/logcat_shares.ts";
import { closeRuntime, createRuntime, newToolSession, type Runtime } from "./runtime.ts";
import { setupCommandNow } from "./setup.ts";
import { readSkill } from "../tools/resources.ts";
import { UiObserver } from "../dashboard/ui_observer.ts";
import type { Dashboard } from "../dashboard/server.ts";
import type { AppStatusView, AttachedView, OpenOutcome } from "../dashboard/host.ts";

/** How long quitting waits for a cancelled build to be recorded. */
export const QUIT_BUILD_TIMEOUT_MS = 1500;
/** How long each other step of quitting may take before the app goes on. */
export const QUIT_STEP_TIMEOUT_MS = 5000;

export interface AppOptions {
  project: string | null;
  /** The dashboard's port on 127.0.0.1 (0: the system picks one); null: no dashboard. */
  uiPort?: number | null;
  env: Env;
  cwd: string;
  minIntervalMs: number | null;
  grpc: GrpcEndpoint | null;
  stderr(line: string): void;
  /** Resolves when the app should quit (SIGINT/SIGTERM in the CLI). */
  stop: Promise<unknown>;
}

interface Attached {
  info: AttachedView;
  session: Session<ToolContext>;
  /** Null until the handshake's answer is written. */
  transport: AttachedTransport | null;
  conn: Deno.UnixConn;
}

/**
 * The line transport of one attached session, which can hold its answers while the app quits: a
 * handler that ends because quitting cancelled its build does not answer on its own; the quit
 * answers it with -32603 like every other request in flight.
 */
class AttachedTransport extends LineTransport {
  #holding = false;
  /**
   * Requests handed to the SDK whose answer has not gone out (held ones included), less those the
   * client cancelled: the SDK settles the gate before it sends, and sends nothing for a request
   * aborted by the close, so the quit answers from this set rather than from the gate.
   */
  readonly #unanswered = new Set<JsonRpcId>();

  holdAnswers(): void {
    this.#holding = true;
  }

  protected override delivered(message: JSONRPCMessage): void {
    const m = message as {
      id?: JsonRpcId | null;
      method?: string;
      params?: { requestId?: unknown };
    };
    if (m.method === undefined) return;
    if (m.id !== undefined && m.id !== null) this.#unanswered.add(m.id);
    else if (m.method === "notifications/cancelled") {
      const id = m.params?.requestId;
      if (typeof id === "string" || typeof id === "number") this.#unanswered.delete(id);
    }
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: JsonRpcId | null; method?: string };
    const isAnswer = m.method === undefined && m.id !== undefined && m.id !== null;
    if (isAnswer && this.#holding) return Promise.resolve();
    if (isAnswer) this.#unanswered.delete(m.id!);
    return super.send(message, options);
  }

  /** Answer (bypassing the hold) every request this session has open, then close. */
  async quit(message: string): Promise<void> {
    const ids = new Set<JsonRpcId>([...this.gate.ids(), ...this.#unanswered]);
    this.#unanswered.clear();
    for (const id of ids) {
      void super.send(
        { jsonrpc: "2.0", id, error: { code: RpcCode.internalError, message } } as JSONRPCMessage,
      );
    }
    await this.close();
  }
}

function within<T>(p: Promise<T>, ms = QUIT_STEP_TIMEOUT_MS): Promise<T | undefined> {
  return boundedWait(p, ms);
}

export async function runApp(opts: AppOptions): Promise<number> {
  let dataDir: string;
  let project: ProjectSelection | null;
  try {
    dataDir = await ensureDataDir(resolveDataDir(opts.env));
    project = await selectProject({
      argument: opts.project ?? undefined,
      cwd: opts.cwd,
      dataDir,
    });
  } catch (e) {
    opts.stderr(`keynobi: ${(e as Error).message}`);
    return 2;
  }
  let socket;
  try {
    socket = await claimSocket(dataDir, async () => {
      const r = await queryApp(dataDir, { status: 1 });
      const pid = (r?.app as { pid?: unknown } | undefined)?.pid;
      return typeof pid === "number" ? pid : null;
    });
  } catch (e) {
    opts.stderr(`keynobi: cannot start keynobi app: ${(e as Error).message}`);
    return e instanceof SocketClaimError ? 2 : 1;
  }
  const { createSession } = await import("../mcp/session.ts");
  const rt = createRuntime({
    env: opts.env,
    dataDir,
    minIntervalMs: opts.minIntervalMs,
    grpc: opts.grpc,
    owner: "the Keynobi app",
  });
  const logcatShares = new LogcatShares(rt.logcat);
  const startedAt = new Date();
  const live = new Map<string, Attached>();
  const detaching = new Set<Promise<void>>();
  let pending = 0;
  let quitting = false;
  if (project) {
    await setLastActiveProject(dataDir, project.root).catch(() => {});
  }
  await rt.activity.rotateIfNeeded().catch(() => {});
  await rt.activity.append({
    kind: "lifecycle",
    name: "app",
    duration_ms: 0,
    status: "ok",
    summary: `App started — project: ${project?.root ?? "none"}`,
  });

  const status = (): AppStatusView => ({
    app: {
      pid: Deno.pid,
      version: VERSION,
      project: project?.root ?? null,
      started_at: startedAt.toISOString(),
      uptime_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
      socket: socket.path,
    },
    attached: [...live.values()].map((a) => a.info),
  });

  /** `keynobi open` (the socket's `open` query) and the dashboard's Open: one function. */
  const openProject = async (path: string): Promise<OpenOutcome> => {
    const root = await projectRootFor(path).catch(() => null);
    if (root === null) return { ok: false, reason: `${path} is not an existing folder` };
    const before = project?.root ?? null;
    project = { root, requested: path, selectedBy: "argument" };
    await setLastActiveProject(dataDir, root).catch(() => {});
    await rt.activity.append({
      kind: "lifecycle",
      name: "app",
      duration_ms: 0,
      status: "ok",
      summary: `Project opened: ${root} (was ${before ?? "none"})`,
    });
    return { ok: true, project: root, previous: before };
  };

  const uiObserver = new UiObserver();
  uiObserver.watch(rt.ui);
  let dashboard: Dashboard | null = null;
  if (opts.uiPort !== null && opts.uiPort !== undefined) {
    try {
      const { startDashboard } = await import("../dashboard/server.ts");
      const { httpTokenPath, installHttpToken } = await import("../mcp/http_token.ts");
      // The HTTP lines carry the install's token; when it cannot be read, the shell reads it.
      const httpToken = await installHttpToken(dataDir).catch(() =>
        `$(cat ${JSON.stringify(httpTokenPath(dataDir))})`
      );
      dashboard = startDashboard({
        env: opts.env,
        cwd: opts.cwd,
        dataDir,
        adb: rt.adb,
        builds: rt.builds,
        logcat: rt.logcat,
        activity: rt.activity,
        ui: uiObserver,
        status,
        openProject,
        setupCommands: () => setupCommandNow([], { token: httpToken }),
        skill: readSkill,
      }, { port: opts.uiPort });
    } catch (e) {
      opts.stderr(
        `keynobi: cannot start the dashboard on 127.0.0.1:${opts.uiPort}: ` +
          `${(e as Error).message} (choose another --ui-port, or --no-ui)`,
      );
      await socket.release();
      await within(closeRuntime(rt, within));
      return 1;
    }
  }

  const sessionFor = (req: AttachRequest, conn: Deno.UnixConn): Attached => {
    const pinned = req.project;
    const mode: SessionMode = {
      mode: "attached",
      standaloneReason: null,
      followsApp: pinned === null,
      pinnedProject: pinned,
      appProject: () => project?.root ?? null,
    };
    const selection = (): ProjectSelection | null =>
      pinned === null
        ? (project ? { ...project } : null)
        : { root: pinned, requested: pinned, selectedBy: req.selected_by ?? "argument" };
    const enabledToolsets = req.toolsets ?? ["core", "ui", "device-admin"] as const;
    // Each entry this session logs names it, so the dashboard can filter the log by session.
    const sessionId = crypto.randomUUID();
    const session = newToolSession(rt, {
      sessionId,
      title: "Keynobi (attached to the app)",
      instructions: buildInstructions({
        mode: "attached",
        standaloneReason: null,
        enabledToolsets,
        project: selection()?.root ?? null,
      }),
      enabledToolsets,
      project: selection,
      mode,
      projectRefusal: () => pinnedRefusal(mode),
      activity: { append: (entry) => rt.activity.append({ ...entry, session: sessionId }) },
      logcat: (id) => logcatShares.view(id),
    }, createSession);
    const info: AttachedView = {
      session_id: session.sessionId,
      pid: req.pid,
      client_name: null,
      version: req.version,
      project: pinned,
      follows_app: pinned === null,
      since: new Date().toISOString(),
    };
    return { info, session, transport: null, conn };
  };

  const write = async (conn: Deno.UnixConn, value: unknown) => {
    const w = conn.writable.getWriter();
    try {
      await w.write(new TextEncoder().encode(JSON.stringify(value) + "\n"));
    } finally {
      w.releaseLock();
    }
  };

  const serveConnection = async (conn: Deno.UnixConn) => {
    const reader = conn.readable.getReader();
    let handshake;
    try {
      handshake = await readHandshakeLine(reader);
    } catch (e) {
      pending--;
      const reason = e instanceof HandshakeError ? e.message : "the connection failed";
      await write(conn, { accepted: false, reason, version: VERSION }).catch(() => {});
      closeQuietly(conn);
      return;
    }
    pending--;
    let query;
    try {
      query = parseQuery(handshake.line);
    } catch (e) {
      const reason = e instanceof HandshakeError ? e.message : String(e);
      await write(conn, { accepted: false, reason, version: VERSION }).catch(() => {});
      closeQuietly(conn);
      return;
    }
    if (query.kind === "status") {
      await write(conn, { ...status(), dashboard: dashboard?.url ?? null }).catch(() => {});
      closeQuietly(conn);
      return;
    }
    if (query.kind === "open") {
      const r = await openProject(query.project);
      await write(
        conn,
        r.ok
          ? { ok: true, project: r.project, previous: r.previous, version: VERSION }
          : { ok: false, reason: r.reason, version: VERSION },
      ).catch(() => {});
      closeQuietly(conn);
      return;
    }
    const req = query.request;
    const canonical = req.project === null
      ? null
      : await Deno.realPath(req.project).catch(() => null);
    const reply = quitting
      ? { accepted: false as const, reason: "the Keynobi app is quitting", version: VERSION }
      : decideAttach(req, {
        version: VERSION,
        project: project?.root ?? null,
        attached: live.size,
        canonical,
      });
    if (!reply.accepted) {
      await write(conn, reply).catch(() => {});
      closeQuietly(conn);
      return;
    }
    const a = sessionFor(req, conn);
    live.set(a.info.session_id, a);
    try {
      await write(conn, reply);
    } catch {
      live.delete(a.info.session_id);
      closeQuietly(conn);
      return;
    }
    const transport = new AttachedTransport(continueStream(handshake.rest, reader), conn.writable, {
      gate: a.session.gate,
    });
    a.transport = transport;
    await a.session.server.connect(transport);
    await rt.activity.append({
      kind: "lifecycle",
      name: "session",
      duration_ms: 0,
      status: "ok",
      summary: `Client attached (pid ${req.pid}) — project: ${
        req.project ?? `${project?.root ?? "none"} (follows the app)`
      }`,
      session: a.info.session_id,
    });
    const clientName = setInterval(() => {
      a.info.client_name = a.session.handlers.clientName;
      if (a.info.client_name !== null) clearInterval(clientName);
    }, 50);
    await transport.ended;
    clearInterval(clientName);
    if (!live.has(a.info.session_id)) return; // quitting closed it
    live.delete(a.info.session_id);
    // A client that disconnects never stops what it started: let its handlers finish.
    const done = (async () => {
      await a.session.drain();
      await a.session.close();
      await logcatShares.release(a.info.session_id);
      closeQuietly(conn);
      await rt.activity.append({
        kind: "lifecycle",
        name: "session",
        duration_ms: 0,
        status: "ok",
        summary: "Client detached",
        session: a.info.session_id,
      });
    })().catch((e) => log.warn(`detaching a session failed: ${(e as Error).message}`));
    detaching.add(done);
    done.finally(() => detaching.delete(done));
  };

  const accepting = (async () => {
    try {
      for await (const conn of socket.listener) {
        if (quitting || pending >= MAX_PENDING_HANDSHAKES) {
          closeQuietly(conn);
          continue;
        }
        pending++;
        serveConnection(conn).catch((e) => {
          log.warn(`attach connection failed: ${(e as Error).message}`);
          closeQuietly(conn);
        });
      }
    } catch { /* the listener closed */ }
  })();

  opts.stderr(
    `keynobi app ${VERSION} ready: pid ${Deno.pid}, listening on ${socket.path}, project ` +
      `${project?.root ?? "none"} (up to ${MAX_ATTACHED_SESSIONS} sessions)`,
  );
  if (dashboard) {
    opts.stderr(
      `keynobi app dashboard: open ${dashboard.url} (this machine only; keep it private)`,
    );
  }

  await opts.stop;
  quitting = true;
  await within(dashboard?.close() ?? Promise.resolve());
  await quit(rt, live, socket.release);
  await accepting;
  await within(Promise.allSettled([...detaching]));
  await within(closeRuntime(rt, within));
  await within(rt.activity.append({
    kind: "lifecycle",
    name: "app",
    duration_ms: Math.round(Date.now() - startedAt.getTime()),
    status: "ok",
    summary: "App stopped",
  }));
  return 0;
}

/**
 * Quitting (spec `quit_sessions`): stop listening, cancel a running build (recorded as cancelled
 * because Keynobi quit) and wait up to QUIT_BUILD_TIMEOUT for it to be recorded, answer every
 * request in flight with -32603, close the sessions.
 */
async function quit(
  rt: Runtime,
  live: Map<string, Attached>,
  release: () => Promise<void>,
): Promise<void> {
  await release();
  const sessions = [...live.values()];
  live.clear();
  for (const a of sessions) a.transport?.holdAnswers();
  const running = await within(rt.builds.status().catch(() => null), QUIT_BUILD_TIMEOUT_MS);
  let cancelled = false;
  if (running) {
    cancelled = (await within(rt.builds.cancel({ kind: "appQuit" }).catch(() => null))) != null;
    await within(rt.builds.shutdown("the Keynobi app quit"), QUIT_BUILD_TIMEOUT_MS);
  }
  const message = "The Keynobi app quit before answering this request" +
    (cancelled ? " (it cancelled the running Gradle build)" : "") +
    "; this session continues standalone: send it again";
  await within(Promise.allSettled(sessions.map(async (a) => {
    await a.transport?.quit(message);
    await a.session.close();
    closeQuietly(a.conn);
    await rt.activity.append({
      kind: "lifecycle",
      name: "session",
      duration_ms: 0,
      status: "ok",
      summary: "Client detached (the app quit)",
      session: a.info.session_id,
    });
  })));
}

function closeQuietly(conn: Deno.UnixConn): void {
  try {
    conn.close();
  } catch { /* closed */ }
}
