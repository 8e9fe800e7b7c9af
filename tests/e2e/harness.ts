/**
 * End-to-end harness: the real entry point spawned the way an MCP client spawns it, driven by the
 * MCP SDK's own `Client` over stdio, against the simulator; `keynobi app` as a user runs it; and
 * the helpers every e2e and dashboard test shares (trusting a project, the simulator's services,
 * typed readers of tool results) so that none writes them again.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";
import { startSimulator } from "../sim/mod.ts";
import { childEnv } from "../child_env.ts";
import { pollUntil, type WaitOptions } from "../wait.ts";
import { assert, assertEquals } from "../assert.ts";
import { findRealAdb } from "../sim/real_adb_server.ts";
import type { LogcatService } from "../sim/logcat/service.ts";
import type { UiService } from "../sim/ui/service.ts";

/** How e2e tests poll the server (each poll is an MCP call or a file read, not free). */
export const E2E_WAIT: WaitOptions = { intervalMs: 50, timeoutMs: 20_000 };

export type Simulator = Awaited<ReturnType<typeof startSimulator>>;

export const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** The command line a client registered with `deno task mcp` runs. */
export function keynobiArgv(args: readonly string[]): string[] {
  return ["run", ...RUN_FLAGS, MAIN, ...args];
}

export interface World {
  sim: Simulator;
  home: string;
  dataDir: string;
  env: Record<string, string>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * A simulator plus a private HOME and KEYNOBI_HOME, so nothing touches the real user's files.
 * `realAdb`: Google's ADB server in front (device serials then come from `sim.serialOf`).
 */
export async function startWorld(
  opts: { grpc?: boolean; realAdb?: boolean } = {},
): Promise<World> {
  const sim = await startSimulator({ grpc: opts.grpc ?? false, realAdb: opts.realAdb ?? false });
  const home = await Deno.makeTempDir({ prefix: "keynobi-e2e-home-" });
  const dataDir = `${home}/.keynobi-data`;
  const env = await childEnv({
    HOME: home,
    KEYNOBI_HOME: dataDir,
    ADB_SERVER_SOCKET: sim.adbServerSocket,
    ANDROID_HOME: sim.sdkRoot,
    ANDROID_AVD_HOME: sim.avdHome,
    // Where emulators advertise their gRPC endpoint: the simulator's, never the user's.
    XDG_RUNTIME_DIR: sim.discoveryRoot,
  });
  return {
    sim,
    home,
    dataDir,
    env,
    /** Every e2e test ends here: no device command it caused may have reached a shell unquoted. */
    async [Symbol.asyncDispose]() {
      try {
        await assertNoInjection(sim);
      } finally {
        await sim.close();
        await Deno.remove(home, { recursive: true }).catch(() => {});
      }
    },
  };
}

/** How much of the server's stderr a failed request's error quotes (its end, where the cause is). */
export const STDERR_TAIL_CHARS = 8_000;

/** The end of a server's stderr, as a failed request quotes it. */
export function stderrTail(stderr: string): string {
  const cut = stderr.length > STDERR_TAIL_CHARS;
  const tail = cut ? stderr.slice(-STDERR_TAIL_CHARS) : stderr;
  return `\n--- keynobi stderr${cut ? ` (last ${STDERR_TAIL_CHARS} chars)` : ""} ---\n${tail}`;
}

/**
 * Every request the client sends (tools/call, resources/read, prompts/get…) that fails carries the
 * server's stderr in its error message; the error itself (its class and JSON-RPC code) is kept.
 */
function quoteStderrOnFailure(client: Client, stderr: () => string): void {
  const request = client.request.bind(client);
  client.request = (async (...args: Parameters<typeof request>) => {
    try {
      return await request(...args);
    } catch (e) {
      if (e instanceof Error) e.message += stderrTail(stderr());
      throw e;
    }
  }) as typeof client.request;
}

export interface Session {
  client: Client;
  stderr(): string;
  /** The server process's pid (to signal it). */
  pid(): number | null;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Spawn `keynobi --mcp …` and connect the SDK client (initialize + initialized). */
export async function connect(
  world: World,
  args: readonly string[],
  opts: { cwd?: string } = {},
): Promise<Session> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: keynobiArgv(["--mcp", ...args]),
    env: world.env,
    cwd: opts.cwd ?? world.home,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Uint8Array) => {
    err += new TextDecoder().decode(d);
  });
  const client = new Client({ name: "keynobi-e2e", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`keynobi did not initialize: ${(e as Error).message}${stderrTail(err)}`);
  }
  quoteStderrOnFailure(client, () => err);
  return {
    client,
    stderr: () => err,
    pid: () => transport.pid,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/** Run `keynobi …` to completion (for exit codes and CLI output). */
export async function runKeynobi(
  world: World | { env: Record<string, string>; home: string },
  args: readonly string[],
  opts: { stdin?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(args),
    env: world.env,
    clearEnv: true,
    cwd: opts.cwd ?? world.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (opts.stdin) await writer.write(new TextEncoder().encode(opts.stdin));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** The `initialize` request (id 1) a raw client sends first, naming itself `clientName`. */
export function initializeRequest(clientName: string, clientVersion = "1") {
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: clientName, version: clientVersion },
    },
  };
}

/** The notification a client sends once it has the `initialize` answer. */
export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

/**
 * What `deno <argv>` writes for a first handshake sent at once (`initialize`, `initialized`,
 * `tools/list`) followed by the end of input, as a client that pipelines its first messages sees
 * it: the stdout lines (the two answers) and stderr.
 */
export async function handshakeLines(
  argv: readonly string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ lines: string[]; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [...argv],
    env,
    clearEnv: true,
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  const line = (m: unknown) => new TextEncoder().encode(JSON.stringify(m) + "\n");
  await w.write(line(initializeRequest("t")));
  await w.write(line(INITIALIZED));
  await w.write(line({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
  await w.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { lines: dec.decode(out.stdout).trim().split("\n"), stderr: dec.decode(out.stderr) };
}

/** Every device command the simulator ran must have been free of unquoted metacharacters. */
export async function assertNoInjection(sim: Simulator): Promise<void> {
  const bad = (await sim.readJournal()).filter((e) => e.injection);
  if (bad.length) {
    throw new Error(
      `device commands with unquoted metacharacters: ${JSON.stringify(bad, null, 1)}`,
    );
  }
}

export interface CallResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** Call a tool; `timeoutMs` for a long one (a build) instead of the SDK's default request timeout. */
export async function call(
  s: Pick<Session, "client">,
  name: string,
  args: Record<string, unknown> = {},
  opts: { timeoutMs?: number } = {},
): Promise<CallResult> {
  if (opts.timeoutMs === undefined) {
    return await s.client.callTool({ name, arguments: args }) as CallResult;
  }
  return await s.client.callTool({ name, arguments: args }, undefined, {
    timeout: opts.timeoutMs,
  }) as CallResult;
}

/** How long a test lets a build of the fake Gradle take. */
export const BUILD_TIMEOUT_MS = 120_000;

/** run_gradle_task `task` (a debug build by default), asserted to succeed; its result. */
export async function built(
  s: Pick<Session, "client">,
  task = "assembleDemoDebug",
): Promise<CallResult> {
  const r = await call(s, "run_gradle_task", { task }, { timeoutMs: BUILD_TIMEOUT_MS });
  assert(!r.isError, textOf(r));
  return r;
}

export interface HttpServerProcess {
  /** The MCP endpoint, from the server's listening line. */
  url: string;
  /**
   * The header that authenticates to it: `KEYNOBI_HTTP_TOKEN` when the test set it, else the
   * install's token from the data directory; none with `--http-no-token`.
   */
  auth: Record<string, string>;
  child: Deno.ChildProcess;
  stderr(): string;
  /** SIGTERM, then wait for the exit status. */
  stop(): Promise<Deno.CommandStatus>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A keynobi child started by a test, once its ready line has appeared on stderr. */
export interface ReadyChild {
  child: Deno.ChildProcess;
  /** The ready line's match. */
  match: RegExpExecArray;
  stderr(): string;
  /** Send a signal (SIGTERM by default), once, and wait for the exit status. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Stop it and fail if it wrote anything to stdout (stdout is JSON-RPC only, and unused here). */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Spawn keynobi with `args` as a user runs it and wait until its stderr matches `ready`; rejects
 * with the stderr so far (after stopping it) if it exits first. `what` names it in errors.
 */
export async function spawnUntilReady(
  world: World,
  args: readonly string[],
  ready: RegExp,
  what: string,
  env: Record<string, string> = {},
): Promise<ReadyChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(args),
    env: { ...world.env, ...env },
    clearEnv: true,
    cwd: world.home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const seen = Promise.withResolvers<RegExpExecArray>();
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      err += chunk;
      const m = ready.exec(err);
      if (m) seen.resolve(m);
    }
    seen.reject(new Error(`${what} exited before its ready line:\n${err}`));
  })();
  const stdout = new Response(child.stdout).text();
  let status: Promise<Deno.CommandStatus> | null = null;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    if (!status) {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      status = child.status;
    }
    return status;
  };
  let match: RegExpExecArray;
  try {
    match = await seen.promise;
  } catch (e) {
    await stop();
    await stdout;
    throw e;
  }
  return {
    child,
    match,
    stderr: () => err,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
      await stderrDone;
      const out = await stdout;
      if (out !== "") throw new Error(`${what} wrote to stdout: ${out.slice(0, 200)}`);
    },
  };
}

/** Spawn `keynobi --mcp --http HOST:0 …` and wait for its listening line on stderr. */
export async function startHttpServer(
  world: World,
  args: readonly string[],
  opts: { bind?: string; env?: Record<string, string> } = {},
): Promise<HttpServerProcess> {
  const p = await spawnUntilReady(
    world,
    ["--mcp", "--http", opts.bind ?? "127.0.0.1:0", ...args],
    /serving MCP over streamable HTTP at (\S+)/,
    "keynobi --http",
    opts.env,
  );
  let token: string | null = opts.env?.KEYNOBI_HTTP_TOKEN ?? null;
  if (token === null && !args.includes("--http-no-token")) {
    token = (await Deno.readTextFile(`${world.dataDir}/http-token`)).trim();
  }
  return {
    url: p.match[1],
    auth: token === null ? {} : { authorization: `Bearer ${token}` },
    child: p.child,
    stderr: p.stderr,
    stop: () => p.stop(),
    [Symbol.asyncDispose]: () => p[Symbol.asyncDispose](),
  };
}

/** Connect the SDK client to a running `--http` server over streamable HTTP. */
export async function connectHttp(
  server: HttpServerProcess,
  opts: { headers?: Record<string, string> } = {},
): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { ...server.auth, ...opts.headers } },
  });
  const client = new Client({ name: "keynobi-e2e-http", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(
      `keynobi --http did not initialize: ${(e as Error).message}${stderrTail(server.stderr())}`,
    );
  }
  quoteStderrOnFailure(client, () => server.stderr());
  return {
    client,
    pid: () => server.child.pid,
    stderr: () => server.stderr(),
    async [Symbol.asyncDispose]() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

// ---- What tests read from the simulator and from tool results ----

/** The simulated emulator every test device-tool call defaults to. */
export const EMU = "emulator-5554";

/** Google's `adb` is installed, so the real-server halves can run (else they skip with a note). */
export const haveAdb: boolean = findRealAdb() !== null;

/** `keynobi trust` a simulated project (exit 0 or fail with its stderr); its path, or real path. */
export async function trusted(
  world: World,
  name = "sample-kts",
  opts: { realPath?: boolean } = {},
): Promise<string> {
  const project = world.sim.projects[name];
  const r = await runKeynobi(world, ["trust", project]);
  assertEquals(r.code, 0, r.stderr);
  return opts.realPath ? await Deno.realPath(project) : project;
}

/** The simulator's logcat service on `serial` (to crash apps and set the traffic rate). */
export function simLogcat(world: World, serial = EMU): LogcatService {
  const s = world.sim.device(serial).service<LogcatService>("logcat");
  if (!s) throw new Error("the simulator has no logcat service");
  return s;
}

/** The simulator's UI service on `serial`. */
export function uiOf(world: World, serial = EMU): UiService {
  return world.sim.device(serial).service<UiService>("ui")!;
}

/** A JSON object as a tool answers it, before a test narrows it. */
export type Json = Record<string, unknown>;

/** The first text block of a result ("" when there is none). */
export function textOf(r: CallResult): string {
  return r.content.find((c) => c.type === "text")?.text ?? "";
}

/** A result's structured answer, typed as the test reads it (not checked: the asserts do). */
export function json<T = Json>(r: { structuredContent?: Record<string, unknown> }): T {
  return r.structuredContent as T;
}

/** Assert the call succeeded (the failure quotes its text) and give its structured answer. */
export function ok<T = Json>(r: CallResult, what = "the call"): T {
  assert(!r.isError, `${what} failed: ${textOf(r)}`);
  return json<T>(r);
}

/** A row of a UI answer's `elements` (get_ui_hierarchy, ui_* actions, a failed flow's screen). */
export interface UiRow {
  handle: string;
  class: string;
  label: string;
  resource_id: string;
  tree_path: string;
  x: number;
  y: number;
  width: number;
  height: number;
  flags: string[];
}

/** A UI answer: the settled screen's rows. */
export interface UiScreen {
  elements: UiRow[];
}

/** The rows of a UI answer. */
export function rows(s: Json | UiScreen): UiRow[] {
  return s.elements as UiRow[];
}

/** The first row `pred` picks, or fail naming `what` and the labels there are. */
export function rowBy(s: Json | UiScreen, pred: (r: UiRow) => boolean, what: string): UiRow {
  const r = rows(s).find(pred);
  assert(r, `no row for ${what} in ${JSON.stringify(rows(s).map((x) => x.label))}`);
  return r;
}

/** The `error` object of a failed call's structured answer. */
export interface ToolError {
  code: string;
  message?: string;
  [k: string]: unknown;
}

/** The structured error of a call (undefined when it has none). */
export function errorOf(r: { structuredContent?: Record<string, unknown> }): ToolError {
  return r.structuredContent?.error as ToolError;
}

/** A temporary directory, removed (with all it holds) when the test's `using` scope ends. */
export async function tempDir(
  prefix = "keynobi-test-",
): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/** A row of list_devices. */
export interface DeviceRow {
  serial: string;
  state: string;
  kind: string;
  [k: string]: unknown;
}

/** list_devices */
export interface DeviceList {
  count: number;
  devices: DeviceRow[];
}

/** Poll list_devices until `serial` is listed in `state` (null: not listed); that answer. */
export async function listedAs(
  s: Session,
  serial: string,
  state: string | null,
  what = `${serial} ${state ?? "gone"} on list_devices`,
): Promise<CallResult> {
  return await pollUntil(
    () => call(s, "list_devices"),
    (r) => {
      const d = (json<Partial<DeviceList>>(r)?.devices ?? []).find((x) => x.serial === serial);
      return (d?.state ?? null) === state;
    },
    what,
    E2E_WAIT,
  );
}

// ---- `keynobi app` spawned as a user runs it, and raw attach-socket clients ----

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
