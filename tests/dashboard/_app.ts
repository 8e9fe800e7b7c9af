/** `keynobi app` with its dashboard, and MCP agents with names of their own, for dashboard tests. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type AppProcess, keynobiArgv, type World } from "../e2e/harness.ts";
import { pollUntil } from "../wait.ts";

/** The dashboard URL the app printed on stderr (it follows the ready line). */
export async function dashboardUrl(app: AppProcess): Promise<URL> {
  const m = await pollUntil(
    () =>
      /keynobi app dashboard: open (http:\/\/127\.0\.0\.1:\d+\/\?k=[0-9a-f]+)/.exec(app.stderr()),
    (m) => m !== null,
    "the dashboard URL on the app's stderr",
    { timeoutMs: 5_000 },
  );
  return new URL(m![1]);
}

export interface Agent {
  client: Client;
  stderr(): string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** `keynobi --mcp` as an MCP client named `name` spawns it. */
export async function agent(world: World, name: string, args: string[] = []): Promise<Agent> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: keynobiArgv(["--mcp", ...args]),
    env: world.env,
    cwd: world.home,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Uint8Array) => {
    err += new TextDecoder().decode(d);
  });
  const client = new Client({ name, version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`keynobi did not initialize: ${(e as Error).message}\nstderr:\n${err}`);
  }
  return {
    client,
    stderr: () => err,
    async [Symbol.asyncDispose]() {
      await client.close();
    },
  };
}

/** A cookie jar of one: log in with the printed URL, then send requests as the page would. */
export async function login(url: URL): Promise<string> {
  const r = await fetch(url, { redirect: "manual" });
  await r.body?.cancel();
  if (r.status !== 303) throw new Error(`login answered ${r.status}`);
  const cookie = r.headers.get("set-cookie") ?? "";
  return cookie.split(";")[0];
}
