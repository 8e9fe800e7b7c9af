/** The command line: parse, dispatch, exit code. */
import { type Env, processEnv } from "../core/env.ts";
import { isCompiled } from "./permissions.ts";
import { setLogLevel } from "../core/log.ts";
import { VERSION } from "../version.ts";
import { parseArgs, USAGE, UsageError } from "./args.ts";

/**
 * The folder the user ran keynobi from. `deno task` runs in the folder of deno.json and puts the
 * user's folder in INIT_CWD; we trust INIT_CWD only in exactly that situation (running from source,
 * with the working directory being this checkout), so a stray INIT_CWD inherited from some npm
 * script never changes which project a client's server picks.
 */
export function invocationDir(env: Env, cwd = Deno.cwd()): string {
  const init = env.get("INIT_CWD");
  if (!init || isCompiled()) return cwd;
  const checkout = decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(
    /\/$/,
    "",
  );
  return cwd === checkout ? init : cwd;
}

// deno-lint-ignore house/long-function -- one case per command, each loading only its own modules
export async function main(argv: readonly string[]): Promise<number> {
  const env = processEnv;
  setLogLevel(env.get("KEYNOBI_LOG"));
  let cmd;
  try {
    cmd = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`keynobi: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const cwd = invocationDir(env);
  const io = {
    env,
    cwd,
    stdout: (line: string) => console.log(line),
    stderr: (line: string) => console.error(line),
  };
  switch (cmd.kind) {
    case "version":
      console.log(`keynobi ${VERSION}`);
      return 0;
    case "help":
      console.log(USAGE);
      return 0;
    // Each command loads its own modules: `--mcp` (what clients start) loads none of the others.
    case "trust":
      return await (await import("./trust.ts")).trustCommand([cmd.path], io);
    case "untrust":
      return await (await import("./trust.ts")).untrustCommand([cmd.path], io);
    case "projects":
      return await (await import("./trust.ts")).projectsCommand([], io);
    case "approve-configurations":
      return await (await import("./approve.ts")).approveConfigurationsCommand([cmd.path], io);
    case "setup": {
      const { setupCommand } = await import("./setup.ts");
      const { ensureDataDir, resolveDataDir } = await import("../core/data_dir.ts");
      const { noTokenFromEnv } = await import("../mcp/http_token.ts");
      let lines: string[];
      try {
        const noToken = (cmd.httpNoToken ?? false) ||
          noTokenFromEnv(env.get("KEYNOBI_HTTP_NO_TOKEN"));
        lines = await setupCommand({
          mcpArgs: cmd.mcpArgs,
          http: cmd.http ?? null,
          noToken,
          dataDir: await ensureDataDir(resolveDataDir(env)),
          note: io.stderr,
        });
      } catch (e) {
        io.stderr(`keynobi setup: ${(e as Error).message}`);
        return 2;
      }
      for (const line of lines) console.log(line);
      return 0;
    }
    case "status":
      return await (await import("./status.ts")).statusCommand(io, { json: cmd.json });
    case "open":
      return await (await import("./status.ts")).openCommand(cmd.path, io);
    case "retrace":
      return await (await import("./retrace.ts")).retraceCommand(cmd, {
        ...io,
        stdin: Deno.stdin.readable,
        write: async (text) => {
          const bytes = new TextEncoder().encode(text);
          for (let off = 0; off < bytes.length;) {
            off += await Deno.stdout.write(bytes.subarray(off));
          }
        },
      });
    case "app": {
      const { runApp } = await import("./app.ts");
      const stop = Promise.withResolvers<void>();
      const onSignal = () => stop.resolve();
      for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, onSignal);
      try {
        return await runApp({
          project: cmd.project,
          uiPort: cmd.uiPort === undefined ? 0 : cmd.uiPort,
          env,
          cwd,
          minIntervalMs: null,
          grpc: null,
          stderr: io.stderr,
          stop: stop.promise,
        });
      } finally {
        for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(sig, onSignal);
      }
    }
    case "mcp": {
      const { runMcp } = await import("./mcp.ts");
      return await runMcp({
        project: cmd.project,
        attachOnly: cmd.attachOnly,
        toolsets: cmd.toolsets,
        minIntervalMs: cmd.minIntervalMs ?? null,
        grpc: cmd.grpc ?? null,
        http: cmd.http ?? null,
        httpNoToken: cmd.httpNoToken ?? false,
        env,
        cwd,
        stdin: Deno.stdin.readable,
        stdout: Deno.stdout.writable,
      });
    }
  }
}
