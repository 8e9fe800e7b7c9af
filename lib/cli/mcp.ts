/**
 * `keynobi --mcp`: pick the project, try to attach to a running `keynobi app`, else serve
 * standalone: on stdio until the client closes stdin, or with `--http` over streamable HTTP until a
 * signal. Attached, this process only relays stdio to the app's socket (lib/attach/relay.ts), and
 * becomes a standalone server in place when the app goes away. Every MCP session is one
 * `createSession` (lib/mcp/session.ts) on the process's runtime (lib/cli/runtime.ts).
 */
import { explicitEndpoint, type GrpcEndpoint } from "../emulator/shared/discovery.ts";
import { setLastActiveProject } from "../project/project_root.ts";
import { boundedWait } from "../core/abortable.ts";
import { ensureDataDir, resolveDataDir } from "../core/data_dir.ts";
import type { Env } from "../core/env.ts";
import { log } from "../core/log.ts";
import { type ProjectSelection, selectProject } from "../project/project_root.ts";
import { ActivityLog } from "../mcp/activity_log.ts";
import { buildInstructions } from "../mcp/instructions.ts";
import { LineTransport } from "../mcp/line_transport.ts";
import { earlyAnswers, type EarlyInitialize } from "../mcp/early_initialize.ts";
import { RequestGate } from "../mcp/request_gate.ts";
import type { Session } from "../mcp/session.ts";
import { type HttpAddress, type HttpAuth, httpAuthFor } from "../mcp/http_address.ts";
import {
  currentSessionRecord,
  pruneStaleSessionRecords,
  removeSessionRecord,
  writeSessionRecord,
} from "../mcp/session_records.ts";
import { type ToolsetName, TOOLSETS } from "../mcp/toolsets.ts";
import type { ToolContext } from "../tools/context.ts";
import { VERSION } from "../version.ts";
import { ATTACH_TIMEOUT_MS, tryAttach } from "../attach/attach_client.ts";
import { runRelay } from "../attach/relay.ts";
import { bundledListing } from "./bundle.ts";

export { ATTACH_TIMEOUT_MS };

/**
 * How long, after an early answer, the SDK waits for the client's next message to load (a client
 * sends `initialized` and `tools/list` within a few ms of the `initialize` answer).
 */
export const READ_AHEAD_GRACE_MS = 25;

/** Every tool's listing entry in registry order, when this is the bundle (else null). */
function listedTools(): unknown[] | null {
  const listing = bundledListing(import.meta.url);
  return listing ? [...listing.values()] : null;
}

export interface McpLaunchOptions {
  project: string | null;
  attachOnly: boolean;
  toolsets: ToolsetName[] | null;
  /** `--min-interval-ms` (null: the `mcp.min_action_interval_ms` setting, else 300 ms). */
  minIntervalMs?: number | null;
  /** `--grpc HOST:PORT` (null: `KEYNOBI_GRPC`, else discovery files only). */
  grpc?: string | null;
  env: Env;
  cwd: string;
  stdin: ReadableStream<Uint8Array>;
  stdout: WritableStream<Uint8Array>;
  /** `--http [HOST:]PORT`: serve streamable HTTP instead of stdio. */
  http?: HttpAddress | null;
  /** `--http-no-token`: on loopback, require no token (also `KEYNOBI_HTTP_NO_TOKEN=1`). */
  httpNoToken?: boolean;
  /** Set when the relay hands its session over: serve standalone for this reason, no attach. */
  standaloneReason?: string;
}

/**
 * How long a signal's shutdown waits for each step (stopping the build, answering what is in
 * flight, the workers, the bookkeeping) before going on; the process then exits whatever is left.
 */
export const SHUTDOWN_GRACE_MS = 5_000;

/** Resolve with `p`, or after `ms` with undefined; the timer never outlives the wait. */
function withinGrace<T>(p: Promise<T>, ms = SHUTDOWN_GRACE_MS): Promise<T | undefined> {
  return boundedWait(p, ms);
}

export async function runMcp(opts: McpLaunchOptions): Promise<number> {
  // Over HTTP, start loading the SDK's engine now: its import is most of start-up, and overlaps
  // the disk reads below. On stdio it loads once `initialize` is answered (`serve`).
  const sessionModule = opts.http ? loadSessionModule() : null;
  const httpModule = opts.http ? import("../mcp/http_server.ts") : null;
  httpModule?.catch(() => {});
  // Signals always start the shutdown, whatever is in flight (before start-up finished too).
  const signalled = Promise.withResolvers<"signal">();
  const onSignal = () => signalled.resolve("signal");
  for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, onSignal);
  try {
    return await serve(opts, sessionModule, httpModule, signalled.promise);
  } finally {
    for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(sig, onSignal);
  }
}

/** What a standalone session needs beyond start-up: the SDK's engine, the registry, the workers. */
type SessionModules = [typeof import("../mcp/session.ts"), typeof import("./runtime.ts")];

function loadSessionModule(): Promise<SessionModules> {
  const p = Promise.all([import("../mcp/session.ts"), import("./runtime.ts")]);
  p.catch(() => {});
  return p;
}

async function serve(
  opts: McpLaunchOptions,
  sessionModule: Promise<SessionModules> | null,
  httpModule: Promise<typeof import("../mcp/http_server.ts")> | null,
  signalled: Promise<"signal">,
): Promise<number> {
  let httpAuth: HttpAuth | null = null;
  const tokenModule = opts.http ? import("../mcp/http_token.ts") : null;
  if (opts.http) {
    try {
      const noToken = (opts.httpNoToken ?? false) ||
        (await tokenModule!).noTokenFromEnv(opts.env.get("KEYNOBI_HTTP_NO_TOKEN"));
      httpAuth = httpAuthFor(opts.http, opts.env.get("KEYNOBI_HTTP_TOKEN"), noToken);
    } catch (e) {
      console.error(`keynobi: ${(e as Error).message}`);
      return 2;
    }
  }
  let grpc: GrpcEndpoint | null = null;
  const grpcValue = opts.grpc ?? opts.env.get("KEYNOBI_GRPC") ?? "";
  if (grpcValue !== "") {
    try {
      grpc = explicitEndpoint(
        grpcValue,
        opts.env.get("KEYNOBI_GRPC_TOKEN"),
        opts.grpc ? "--grpc" : "KEYNOBI_GRPC",
      );
    } catch (e) {
      console.error(`keynobi: ${(e as Error).message}`);
      return 2;
    }
  }
  const dataDir = await ensureDataDir(resolveDataDir(opts.env));
  let httpToken: string | null = null;
  if (httpAuth?.kind === "token") httpToken = httpAuth.token;
  else if (httpAuth?.kind === "install") {
    try {
      httpToken = await (await tokenModule!).installHttpToken(dataDir);
    } catch (e) {
      console.error(`keynobi: ${(e as Error).message}`);
      return 2;
    }
  } else if (httpAuth?.kind === "none") {
    log.warn(
      "serving loopback HTTP without a token (--http-no-token): every user of this machine can " +
        "connect",
    );
  }
  let project: ProjectSelection | null;
  try {
    // The last active project is a standalone fallback only: an attaching session without a
    // project of its own follows the app's.
    project = await selectProject({
      argument: opts.project ?? undefined,
      cwd: opts.cwd,
      dataDir,
      useLastActive: false,
    });
  } catch (e) {
    console.error(`keynobi: ${(e as Error).message}`);
    return 2;
  }
  let reason: string;
  if (opts.standaloneReason !== undefined) {
    reason = opts.standaloneReason;
  } else if (opts.http) {
    reason = "it serves streamable HTTP (--http), which never attaches";
  } else {
    const outcome = await tryAttach({
      dataDir,
      version: VERSION,
      project: project?.root ?? null,
      selectedBy: project?.selectedBy ?? null,
      toolsets: opts.toolsets,
    });
    if (outcome.kind === "attached") {
      log.info(`attached to the Keynobi app ${outcome.reply.version}`);
      return await runRelay({
        stdin: opts.stdin,
        stdout: opts.stdout,
        conn: outcome.conn,
        socketReader: outcome.reader,
        rest: outcome.rest,
        stop: signalled,
        onAppGone: (open) =>
          log.warn(
            `the Keynobi app went away${open ? ` with ${open} requests unanswered` : ""}` +
              (opts.attachOnly ? "; exiting (--attach-only)" : "; continuing standalone"),
          ),
        // A session that followed the app keeps the app's project when it goes standalone.
        fallback: opts.attachOnly ? null : (stdin, stdout) =>
          serve(
            {
              ...opts,
              project: opts.project ?? (project === null ? outcome.reply.project : null),
              stdin,
              stdout,
              standaloneReason: "the Keynobi app quit",
            },
            sessionModule,
            null,
            signalled,
          ),
      });
    }
    reason = outcome.reason;
    if (opts.attachOnly) {
      console.error(`keynobi: cannot attach to the Keynobi app: ${reason} (--attach-only)`);
      return 2;
    }
  }
  if (project === null) {
    project = await selectProject({ cwd: opts.cwd, dataDir }).catch(() => null);
  }
  const enabledToolsets = opts.toolsets ?? [...TOOLSETS];
  const mode = {
    mode: "standalone" as const,
    standaloneReason: reason,
    followsApp: false,
    pinnedProject: null,
  };
  const title = "Keynobi (standalone)";
  const instructions = buildInstructions({
    mode: "standalone",
    standaloneReason: reason,
    enabledToolsets,
    project: project?.root ?? null,
  });
  const activity = new ActivityLog(dataDir, { pid: Deno.pid });
  const started = performance.now();
  const record = currentSessionRecord({ project: project?.root ?? null, reason, version: VERSION });
  const housekeeping = (async () => {
    await activity.rotateIfNeeded();
    // The project this server serves becomes the one a later server without a project (and no
    // Gradle build in its working directory) falls back to.
    if (project !== null && project.selectedBy !== "last_active_project") {
      await setLastActiveProject(dataDir, project.root).catch((e) =>
        log.warn(`Cannot remember the last active project: ${(e as Error).message}`)
      );
    }
    await pruneStaleSessionRecords(dataDir);
    await writeSessionRecord(dataDir, record);
    await activity.append({
      kind: "lifecycle",
      name: "server",
      duration_ms: 0,
      status: "ok",
      summary: `Server started (standalone: ${reason})` +
        (opts.http ? ` over streamable HTTP on port ${opts.http.port}` : ""),
    });
  })().catch((e) => log.warn(`start-up bookkeeping failed: ${(e as Error).message}`));
  /** The session record's writes, in order; the last one finishes before the record is removed. */
  let recordWrites: Promise<unknown> = housekeeping;

  // On stdio, read ahead and answer `initialize` (and, from the bundle, `tools/list`) now; the
  // SDK's engine, the registry and the workers' clients load after (lib/mcp/early_initialize.ts).
  let transport: LineTransport | null = null;
  const early: { initialize?: EarlyInitialize } = {};
  if (!httpModule) {
    transport = new LineTransport(opts.stdin, opts.stdout, { gate: new RequestGate() });
    // Loading holds the event loop, so it starts once reading ahead stops, or when the client has
    // sent nothing for READ_AHEAD_GRACE_MS after an early answer (or stdin ended, or a signal).
    // The timer starts once the answer is written: the first timer loads Deno's Node timers.
    const load = Promise.withResolvers<void>();
    let loading = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const wait = () => {
      if (loading) return;
      if (grace !== undefined) clearTimeout(grace);
      grace = setTimeout(() => load.resolve(), READ_AHEAD_GRACE_MS);
    };
    const allServed = TOOLSETS.every((t) => enabledToolsets.includes(t));
    const answers = earlyAnswers(
      { title, version: VERSION, instructions },
      () => allServed ? listedTools() : null,
      (e) => (early.initialize = e),
    );
    transport.readAhead((m) => {
      const decided = answers(m);
      if (!decided.more) load.resolve();
      else if (!decided.answer) wait();
      return decided;
    }, wait);
    await Promise.race([load.promise, transport.ended, signalled]);
    loading = true;
    if (grace !== undefined) clearTimeout(grace);
  }
  const [{ createSession }, { closeRuntime, createRuntime, newToolSession }] =
    await (sessionModule ?? loadSessionModule());
  const rt = createRuntime({
    env: opts.env,
    dataDir,
    activity,
    minIntervalMs: opts.minIntervalMs ?? null,
    grpc,
  });
  const { builds } = rt;
  const fixedProject = project;
  /** One MCP session: its own id, client, requests and UI pacing; the process's workers. */
  const newSession = (sessionId?: string, gate?: RequestGate): Session<ToolContext> =>
    newToolSession(rt, {
      sessionId,
      gate,
      title,
      instructions,
      enabledToolsets,
      project: () => fixedProject,
      mode,
      // Entries wait for the start-up entry so the log reads in order; tool results never wait.
      activity: { append: (entry) => housekeeping.then(() => activity.append(entry)) },
    }, createSession);

  let stopReason: "signal" | "client" = "client";
  let closeTransport: () => Promise<void> = () => Promise.resolve();
  try {
    if (httpModule) {
      const { serveHttp } = await httpModule;
      let http;
      try {
        http = serveHttp({
          address: opts.http!,
          token: httpToken,
          newSession: (sessionId) => newSession(sessionId) as Session<unknown>,
          onListen: (url) => {
            console.error(`keynobi: serving MCP over streamable HTTP at ${url}`);
            // `keynobi status` shows where (with --http 0, nowhere else says the port).
            recordWrites = recordWrites.then(() =>
              writeSessionRecord(dataDir, { ...record, http_url: url })
            ).catch((e) => log.warn(`Cannot record the HTTP URL: ${(e as Error).message}`));
          },
        });
      } catch (e) {
        console.error(
          `keynobi: cannot listen on ${opts.http!.hostname}:${opts.http!.port}: ` +
            `${(e as Error).message}`,
        );
        return 1;
      }
      closeTransport = () => http.close();
      const first = await Promise.race([signalled, http.finished.then(() => "failed" as const)]);
      if (first === "failed") return 1;
      stopReason = "signal";
      await withinGrace(builds.shutdown("keynobi was stopped by a signal"));
      await withinGrace(http.close());
    } else {
      const stdio = transport!;
      const s = newSession(undefined, stdio.gate);
      // The client's early-answered initialize, told to the session (its answer was written).
      if (early.initialize) s.handlers.initialize(early.initialize.params);
      closeTransport = () => stdio.close();
      await s.server.connect(stdio);
      const first = await Promise.race([signalled, stdio.ended.then(() => "client" as const)]);
      const second = first === "signal"
        ? first
        // The client went away: a build it started finishes and is recorded (bounded by the build
        // timeout) before this server exits, unless a signal comes first.
        : await Promise.race([signalled, s.drain().then(() => "drained" as const)]);
      if (second === "signal") {
        stopReason = "signal";
        // Stop the build (recorded as such), then answer what is in flight.
        await withinGrace(builds.shutdown("keynobi was stopped by a signal"));
        await withinGrace(s.close());
      }
    }
    await withinGrace(builds.shutdown("keynobi exited"));
    await closeRuntime(rt, withinGrace);
  } finally {
    await withinGrace(recordWrites);
    await withinGrace(
      activity.append({
        kind: "lifecycle",
        name: "server",
        duration_ms: Math.round(performance.now() - started),
        status: "ok",
        summary: stopReason === "signal" ? "Server stopped by a signal" : "Server stopped",
      }).catch(() => {}),
    );
    await withinGrace(removeSessionRecord(dataDir, Deno.pid).catch(() => {}));
    await withinGrace(closeTransport());
  }
  return 0;
}
