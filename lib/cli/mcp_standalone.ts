/**
 * `keynobi --mcp` standalone: its own runtime and sessions, on stdio until the client closes
 * stdin, or over streamable HTTP until a signal. On stdio it reads ahead and answers `initialize`
 * before the SDK's engine loads (lib/mcp/early_initialize.ts). Its bookkeeping (the activity
 * log's start and stop, the session record) is `StandaloneRecord`'s.
 */
import { type ProjectSelection, selectProject } from "../project/project_root.ts";
import { buildInstructions } from "../mcp/instructions.ts";
import { LineTransport } from "../mcp/line_transport.ts";
import { earlyAnswers, type EarlyInitialize } from "../mcp/early_initialize.ts";
import { RequestGate } from "../mcp/request_gate.ts";
import type { McpSession } from "../mcp/session.ts";
import { type ToolsetName, TOOLSETS } from "../mcp/toolsets.ts";
import type { McpSessionMode, ToolContext } from "../tools/context.ts";
import { VERSION } from "../version.ts";
import { bundledListing } from "./bundle.ts";
import type { McpLaunch, McpLaunchOptions } from "./mcp_launch.ts";
import { StandaloneRecord } from "./standalone_record.ts";
import { withinGrace } from "./shutdown_grace.ts";

/**
 * How long, after an early answer, the SDK waits for the client's next message to load (a client
 * sends `initialized` and `tools/list` within a few ms of the `initialize` answer).
 */
const READ_AHEAD_GRACE_MS = 25;

/** What a standalone session needs beyond start-up: the SDK's engine, the registry, the workers. */
export type McpSessionModules = [typeof import("../mcp/session.ts"), typeof import("./runtime.ts")];

export function loadSessionModules(): Promise<McpSessionModules> {
  const p = Promise.all([import("../mcp/session.ts"), import("./runtime.ts")]);
  p.catch(() => {});
  return p;
}

interface StandaloneStart {
  opts: McpLaunchOptions;
  launch: McpLaunch;
  /** Why standalone (initialize's instructions and the activity log say it). */
  reason: string;
  sessionModules: Promise<McpSessionModules> | null;
  /** Loading when serving HTTP; null on stdio. */
  httpModule: Promise<typeof import("../mcp/http_server.ts")> | null;
  signalled: Promise<"signal">;
}

/** What every MCP session of this server is told and serves. */
interface StandaloneSpec {
  title: string;
  instructions: string;
  enabledToolsets: readonly ToolsetName[];
  mode: McpSessionMode;
  project: ProjectSelection | null;
}

/** Makes one MCP session on the process's runtime. */
type NewMcpSession = (sessionId?: string, gate?: RequestGate) => McpSession<ToolContext>;

/** Serve until the client goes (stdio) or a signal; the exit code. */
export async function runStandalone(s: StandaloneStart): Promise<number> {
  const { opts, launch } = s;
  const spec = await standaloneSpec(s);
  const record = new StandaloneRecord(launch.dataDir, spec.project, s.reason, opts.http ?? null);
  const stdio = s.httpModule ? null : await readAheadOnStdio(opts, spec, s.signalled);
  const [{ createMcpSession }, { closeRuntime, createRuntime, newToolSession }] =
    await (s.sessionModules ?? loadSessionModules());
  const rt = createRuntime({
    env: opts.env,
    dataDir: launch.dataDir,
    activity: record.activity,
    minIntervalMs: opts.minIntervalMs ?? null,
    grpc: launch.grpc,
  });
  /** One MCP session: its own id, client, requests and UI pacing; the process's workers. */
  const newMcpSession: NewMcpSession = (sessionId, gate) =>
    newToolSession(rt, {
      sessionId,
      gate,
      title: spec.title,
      instructions: spec.instructions,
      enabledToolsets: spec.enabledToolsets,
      project: () => spec.project,
      mode: spec.mode,
      // Entries wait for the start-up entry so the log reads in order; tool results never wait.
      activity: { append: (entry) => record.append(entry) },
    }, createMcpSession);
  let stopReason: "signal" | "client" = "client";
  const closing = { transport: () => Promise.resolve() };
  try {
    const served = stdio
      ? await serveStdio(stdio, newMcpSession, rt.builds, closing, s.signalled)
      : await serveHttpUntilSignal(s, record, newMcpSession, rt.builds, closing);
    if (typeof served === "number") return served;
    stopReason = served;
    await withinGrace(rt.builds.shutdown("keynobi exited"));
    await closeRuntime(rt, withinGrace);
  } finally {
    await record.stopped(stopReason);
    await withinGrace(closing.transport());
  }
  return 0;
}

async function standaloneSpec(s: StandaloneStart): Promise<StandaloneSpec> {
  const { opts, launch, reason } = s;
  const project = launch.project ??
    await selectProject({ cwd: opts.cwd, dataDir: launch.dataDir }).catch(() => null);
  const enabledToolsets = opts.toolsets ?? [...TOOLSETS];
  return {
    title: "Keynobi (standalone)",
    instructions: buildInstructions({
      mode: "standalone",
      standaloneReason: reason,
      enabledToolsets,
      project: project?.root ?? null,
    }),
    enabledToolsets,
    mode: { mode: "standalone", standaloneReason: reason, followsApp: false, pinnedProject: null },
    project,
  };
}

/** Every tool's listing entry in registry order, when this is the bundle (else null). */
function listedTools(): unknown[] | null {
  const listing = bundledListing(import.meta.url);
  return listing ? [...listing.values()] : null;
}

interface StdioReadAhead {
  transport: LineTransport;
  /** The `initialize` answered early, if one was. */
  initialize?: EarlyInitialize;
}

/**
 * Read ahead on stdio and answer `initialize` (and, from the bundle, `tools/list`) now; the SDK's
 * engine, the registry and the workers' clients load after. Loading holds the event loop, so it
 * starts once reading ahead stops, or when the client has sent nothing for READ_AHEAD_GRACE_MS
 * after an early answer (or stdin ended, or a signal). The timer starts once the answer is
 * written: the first timer loads Deno's Node timers.
 */
async function readAheadOnStdio(
  opts: McpLaunchOptions,
  spec: StandaloneSpec,
  signalled: Promise<"signal">,
): Promise<StdioReadAhead> {
  const early: StdioReadAhead = {
    transport: new LineTransport(opts.stdin, opts.stdout, { gate: new RequestGate() }),
  };
  const load = Promise.withResolvers<void>();
  let loading = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const wait = () => {
    if (loading) return;
    if (grace !== undefined) clearTimeout(grace);
    grace = setTimeout(() => load.resolve(), READ_AHEAD_GRACE_MS);
  };
  const allServed = TOOLSETS.every((t) => spec.enabledToolsets.includes(t));
  const answers = earlyAnswers(
    { title: spec.title, version: VERSION, instructions: spec.instructions },
    () => allServed ? listedTools() : null,
    (e) => (early.initialize = e),
  );
  early.transport.readAhead((m) => {
    const decided = answers(m);
    if (!decided.more) load.resolve();
    else if (!decided.answer) wait();
    return decided;
  }, wait);
  await Promise.race([load.promise, early.transport.ended, signalled]);
  loading = true;
  if (grace !== undefined) clearTimeout(grace);
  return early;
}

type Builds = { shutdown(reason: string): Promise<void> };

/** The one stdio session, until the client goes (and its handlers drain) or a signal. */
async function serveStdio(
  stdio: StdioReadAhead,
  newMcpSession: NewMcpSession,
  builds: Builds,
  closing: { transport: () => Promise<void> },
  signalled: Promise<"signal">,
): Promise<"signal" | "client"> {
  const transport = stdio.transport;
  const s = newMcpSession(undefined, transport.gate);
  // The client's early-answered initialize, told to the session (its answer was written).
  if (stdio.initialize) s.handlers.initialize(stdio.initialize.params);
  closing.transport = () => transport.close();
  await s.server.connect(transport);
  const first = await Promise.race([signalled, transport.ended.then(() => "client" as const)]);
  const second = first === "signal"
    ? first
    // The client went away: a build it started finishes and is recorded (bounded by the build
    // timeout) before this server exits, unless a signal comes first.
    : await Promise.race([signalled, s.drain().then(() => "drained" as const)]);
  if (second !== "signal") return "client";
  // Stop the build (recorded as such), then answer what is in flight.
  await withinGrace(builds.shutdown("keynobi was stopped by a signal"));
  await withinGrace(s.close());
  return "signal";
}

/** Streamable HTTP until a signal (then "signal"), or 1 when it cannot listen or fails. */
async function serveHttpUntilSignal(
  s: StandaloneStart,
  record: StandaloneRecord,
  newMcpSession: NewMcpSession,
  builds: Builds,
  closing: { transport: () => Promise<void> },
): Promise<"signal" | 1> {
  const address = s.opts.http!;
  const { serveHttp } = await s.httpModule!;
  let http;
  try {
    http = serveHttp({
      address,
      token: s.launch.httpToken,
      newSession: (sessionId) => newMcpSession(sessionId) as McpSession<unknown>,
      onListen: (url) => {
        console.error(`keynobi: serving MCP over streamable HTTP at ${url}`);
        record.httpUrl(url);
      },
    });
  } catch (e) {
    console.error(
      `keynobi: cannot listen on ${address.hostname}:${address.port}: ${(e as Error).message}`,
    );
    return 1;
  }
  closing.transport = () => http.close();
  const first = await Promise.race([s.signalled, http.finished.then(() => "failed" as const)]);
  if (first === "failed") return 1;
  await withinGrace(builds.shutdown("keynobi was stopped by a signal"));
  await withinGrace(http.close());
  return "signal";
}
