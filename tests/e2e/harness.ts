/**
 * End-to-end harness: the real entry point spawned the way an MCP client spawns it, driven by the
 * MCP SDK's own `Client` over stdio, against the simulator.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";
import { startSimulator } from "../sim/mod.ts";
import { childEnv } from "../child_env.ts";

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

/** A simulator plus a private HOME and KEYNOBI_HOME, so nothing touches the real user's files. */
export async function startWorld(opts: { grpc?: boolean } = {}): Promise<World> {
  const sim = await startSimulator({ grpc: opts.grpc ?? false });
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
    async [Symbol.asyncDispose]() {
      await sim.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
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
    throw new Error(`keynobi did not initialize: ${(e as Error).message}\nstderr:\n${err}`);
  }
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

export async function call(
  s: Session,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallResult> {
  return await s.client.callTool({ name, arguments: args }) as CallResult;
}
