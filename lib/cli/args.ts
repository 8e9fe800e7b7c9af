/** Command-line parsing: pure, so every refusal is testable without spawning. */
import type { ToolsetName } from "../mcp/toolsets.ts";
import { parseToolsets } from "../mcp/toolsets.ts";
import { type HttpAddress, parseHttpAddress } from "../mcp/http_address.ts";
import { MAX_MIN_ACTION_INTERVAL_MS } from "../ui/shared/limits.ts";

type Command =
  | {
    kind: "mcp";
    project: string | null;
    attachOnly: boolean;
    toolsets: ToolsetName[] | null;
    /** `--min-interval-ms`: the minimum gap between UI actions on one device. */
    minIntervalMs?: number | null;
    /** `--grpc HOST:PORT`: an emulator's gRPC endpoint when no discovery file names it. */
    grpc?: string | null;
    /** `--http [HOST:]PORT`: streamable HTTP instead of stdio. */
    http?: HttpAddress | null;
    /** `--http-no-token`: loopback HTTP without the install's token (single-user machines). */
    httpNoToken?: boolean;
  }
  | { kind: "trust" | "untrust"; path: string }
  | { kind: "approve-configurations"; path: string }
  | { kind: "projects" }
  | { kind: "setup"; mcpArgs: string[]; http?: HttpAddress; httpNoToken?: boolean }
  | {
    kind: "app";
    project: string | null;
    /** `--ui-port`: the dashboard's port on 127.0.0.1 (0: the system picks); null with --no-ui. */
    uiPort?: number | null;
  }
  | { kind: "open"; path: string }
  /** `keynobi retrace --mapping FILE [TRACE_FILE]`: the trace from the file, or stdin (null). */
  | { kind: "retrace"; mapping: string; trace: string | null }
  | { kind: "status"; json: boolean }
  | { kind: "version" }
  | { kind: "help" };

/** The largest `--ui-port`. */
const MAX_UI_PORT = 65_535;

/** `--grpc`: a loopback host and a port (lib/emulator/shared/discovery.ts explicitEndpoint checks it). */
const GRPC_FLAG =
  /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):([1-9]\d{0,3}|[1-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5])$/;

/** A usage error: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE = `keynobi — the Android development loop for coding agents (MCP server)

Usage:
  keynobi --mcp [--project <path>] [--attach-only] [--toolsets <a,b>] [--min-interval-ms <ms>]
                [--grpc <host:port>]
                          serve MCP on stdio (what MCP clients run); --grpc names an emulator's
                          gRPC endpoint when its discovery file is missing (loopback only)
  keynobi --mcp --http [HOST:]PORT [options as above]
                          serve MCP over streamable HTTP at http://HOST:PORT/mcp instead
                          (HOST defaults to 127.0.0.1; any other needs KEYNOBI_HTTP_TOKEN);
                          clients send the install's token (keynobi setup --http prints it)
  keynobi --mcp --http [HOST:]PORT --http-no-token
                          on loopback, serve without a token: every local user can connect,
                          so only on a single-user machine (also KEYNOBI_HTTP_NO_TOKEN=1)
  keynobi trust <path>    let keynobi run this project's Gradle build (gradlew, build scripts)
  keynobi untrust <path>  revoke that trust
  keynobi projects        list trusted projects and the last active one
  keynobi approve-configurations <path>
                          approve the project's shared .keynobi/run-configurations.json
  keynobi setup [--project <path>] [--toolsets <a,b>] [--http [HOST:]PORT [--http-no-token]]
                          print the claude / codex registration commands for this binary
  keynobi app [--project <path>] [--ui-port <port> | --no-ui]
                          run the long-lived keynobi every MCP client attaches to (foreground,
                          until SIGINT/SIGTERM): one build slot, logcat buffer and UI lock shared;
                          prints its dashboard's URL (http://127.0.0.1:<port>/?k=<secret>)
  keynobi open <path>     switch the running app's project
  keynobi status [--json] list the app, its attached sessions and the standalone MCP servers
  keynobi retrace --mapping <mapping.txt> [<trace file>]
                          deobfuscate a stack trace (the file, or stdin) with an R8 / ProGuard
                          mapping, printed as the crash tools print it
  keynobi --version | --help

Toolsets: core, ui, device-admin (default: all).
Environment: KEYNOBI_HOME, KEYNOBI_HTTP_TOKEN, KEYNOBI_HTTP_NO_TOKEN, ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT,
ANDROID_HOME, ANDROID_SDK_ROOT, JAVA_HOME, KEYNOBI_LOG (error, warn, info, debug), KEYNOBI_GRPC
(like --grpc), KEYNOBI_GRPC_TOKEN (its token, when it has one).`;

// deno-lint-ignore house/long-function -- one short case per subcommand, all in one place
export function parseArgs(argv: readonly string[]): Command {
  if (argv.length === 0) throw new UsageError("No command given: run keynobi --mcp to serve MCP");
  const [first, ...rest] = argv;
  switch (first) {
    case "--version":
    case "-V":
      noMore(first, rest);
      return { kind: "version" };
    case "--help":
    case "-h":
    case "help":
      return { kind: "help" };
    case "trust":
    case "untrust": {
      if (rest.length !== 1 || rest[0].startsWith("-")) {
        throw new UsageError(`keynobi ${first} takes one path: keynobi ${first} <path>`);
      }
      return { kind: first, path: rest[0] };
    }
    case "approve-configurations": {
      if (rest.length !== 1 || rest[0].startsWith("-")) {
        throw new UsageError(`keynobi ${first} takes one path: keynobi ${first} <path>`);
      }
      return { kind: first, path: rest[0] };
    }
    case "projects":
      noMore(first, rest);
      return { kind: first };
    case "status": {
      if (rest.length > 1 || (rest.length === 1 && rest[0] !== "--json")) {
        throw new UsageError(`keynobi status takes only --json, got "${rest[0]}"`);
      }
      return { kind: "status", json: rest.length === 1 };
    }
    case "open": {
      if (rest.length !== 1 || rest[0].startsWith("-")) {
        throw new UsageError("keynobi open takes one path: keynobi open <path>");
      }
      return { kind: "open", path: rest[0] };
    }
    case "retrace":
      return parseRetrace(rest);
    case "app": {
      let project: string | null = null;
      let uiPort: number | null | undefined;
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i];
        if (a === "--ui-port" || a.startsWith("--ui-port=")) {
          if (uiPort !== undefined) throw new UsageError("--ui-port or --no-ui is given twice");
          const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : rest[++i];
          if (v === undefined || !/^\d{1,5}$/.test(v) || Number(v) > MAX_UI_PORT) {
            throw new UsageError(
              `--ui-port takes a port from 0 to ${MAX_UI_PORT} (0: any free port), got ` +
                `"${v ?? ""}"; the dashboard always listens on 127.0.0.1`,
            );
          }
          uiPort = Number(v);
        } else if (a === "--no-ui") {
          if (uiPort !== undefined) throw new UsageError("--ui-port or --no-ui is given twice");
          uiPort = null;
        } else if (a === "--project" || a.startsWith("--project=")) {
          if (project !== null) throw new UsageError("--project is given twice");
          const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : rest[++i];
          if (v === undefined || v === "" || (v.startsWith("--") && !a.includes("="))) {
            throw new UsageError("--project needs a path");
          }
          project = v;
        } else {
          throw new UsageError(`Unknown option "${a}" for keynobi app: see keynobi --help`);
        }
      }
      return { kind: "app", project, ...(uiPort !== undefined ? { uiPort } : {}) };
    }
    case "setup": {
      const opts = parseMcpOptions(rest, false);
      const mcpArgs: string[] = [];
      if (opts.project) mcpArgs.push("--project", opts.project);
      if (opts.toolsets) mcpArgs.push("--toolsets", opts.toolsets.join(","));
      if (opts.minIntervalMs !== undefined) {
        mcpArgs.push("--min-interval-ms", String(opts.minIntervalMs));
      }
      if (opts.grpc !== undefined) mcpArgs.push("--grpc", opts.grpc);
      const { http, httpNoToken } = opts;
      return {
        kind: "setup",
        mcpArgs,
        ...(http ? { http } : {}),
        ...(httpNoToken ? { httpNoToken } : {}),
      };
    }
    case "--mcp": {
      const opts = parseMcpOptions(rest, true);
      return { kind: "mcp", ...opts };
    }
    default:
      if (rest.includes("--mcp") || first.startsWith("--")) {
        // Options before --mcp are accepted too: keynobi --project x --mcp.
        const i = argv.indexOf("--mcp");
        if (i > 0) {
          return parseArgs(["--mcp", ...argv.slice(0, i), ...argv.slice(i + 1)]);
        }
      }
      throw new UsageError(`Unknown command or option "${first}": see keynobi --help`);
  }
}

function parseRetrace(rest: readonly string[]): Command {
  let mapping: string | null = null;
  let trace: string | null = null;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--mapping" || a.startsWith("--mapping=")) {
      if (mapping !== null) throw new UsageError("--mapping is given twice");
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : rest[++i];
      if (v === undefined || v === "" || (v.startsWith("--") && !a.includes("="))) {
        throw new UsageError("--mapping needs the path of a mapping.txt");
      }
      mapping = v;
    } else if (a.startsWith("-") && a !== "-") {
      throw new UsageError(`Unknown option "${a}" for keynobi retrace: see keynobi --help`);
    } else if (trace !== null) {
      throw new UsageError(`keynobi retrace takes one trace file, got "${trace}" and "${a}"`);
    } else trace = a;
  }
  if (mapping === null) {
    throw new UsageError(
      "keynobi retrace needs the mapping: keynobi retrace --mapping <mapping.txt> [<trace file>]",
    );
  }
  return { kind: "retrace", mapping, trace: trace === "-" ? null : trace };
}

function noMore(cmd: string, rest: readonly string[]): void {
  if (rest.length) throw new UsageError(`keynobi ${cmd} takes no arguments, got "${rest[0]}"`);
}

// deno-lint-ignore house/long-function -- one case per flag, sharing value() and what was read
function parseMcpOptions(args: readonly string[], allowAttachOnly: boolean) {
  let project: string | null = null;
  let attachOnly = false;
  let toolsets: ToolsetName[] | null = null;
  let minIntervalMs: number | null = null;
  let http: HttpAddress | null = null;
  let httpNoToken = false;
  let grpc: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith("--") && eq > 0 ? arg.slice(eq + 1) : null;
    const value = (): string => {
      if (inline !== null) return inline;
      const next = args[i + 1];
      if (next === undefined || (next.startsWith("--") && next !== "--")) {
        if (name === "--http") {
          throw new UsageError(
            "--http needs [HOST:]PORT, e.g. --http 8848 or --http 127.0.0.1:8848",
          );
        }
        if (name === "--toolsets") {
          throw new UsageError(
            "--toolsets needs a value: one or more of core, ui, device-admin, comma-separated",
          );
        }
        throw new UsageError(`${name} needs a value`);
      }
      i++;
      return next;
    };
    switch (name) {
      case "--project":
        if (project !== null) throw new UsageError("--project is given twice");
        project = value();
        if (project === "") throw new UsageError("--project needs a path");
        break;
      case "--toolsets":
        if (toolsets !== null) throw new UsageError("--toolsets is given twice");
        try {
          toolsets = parseToolsets(value());
        } catch (e) {
          if (e instanceof TypeError) throw new UsageError(e.message);
          throw e;
        }
        break;
      case "--min-interval-ms": {
        if (minIntervalMs !== null) throw new UsageError("--min-interval-ms is given twice");
        const v = value();
        if (!/^\d{1,5}$/.test(v) || Number(v) > MAX_MIN_ACTION_INTERVAL_MS) {
          throw new UsageError(
            `--min-interval-ms takes milliseconds from 0 to ${MAX_MIN_ACTION_INTERVAL_MS}, got "${v}"`,
          );
        }
        minIntervalMs = Number(v);
        break;
      }
      case "--http": {
        if (http !== null) throw new UsageError("--http is given twice");
        try {
          http = parseHttpAddress(value());
        } catch (e) {
          if (e instanceof TypeError) throw new UsageError(e.message);
          throw e;
        }
        break;
      }
      case "--grpc": {
        if (grpc !== null) throw new UsageError("--grpc is given twice");
        const v = value();
        if (!GRPC_FLAG.test(v)) {
          throw new UsageError(
            `--grpc takes a loopback HOST:PORT (127.0.0.1:8554, localhost:8554 or [::1]:8554), ` +
              `got "${v}"`,
          );
        }
        grpc = v;
        break;
      }
      case "--http-no-token":
        if (inline !== null) throw new UsageError(`Unknown option "${arg}"`);
        if (httpNoToken) throw new UsageError("--http-no-token is given twice");
        httpNoToken = true;
        break;
      case "--attach-only":
        if (!allowAttachOnly || inline !== null) throw new UsageError(`Unknown option "${arg}"`);
        attachOnly = true;
        break;
      case "--mcp":
        break;
      default:
        throw new UsageError(`Unknown option "${arg}": see keynobi --help`);
    }
  }
  if (httpNoToken && !http) {
    throw new UsageError("--http-no-token goes with --http [HOST:]PORT");
  }
  if (http && attachOnly) {
    throw new UsageError(
      "--http serves its own sessions and cannot be combined with --attach-only",
    );
  }
  return {
    project,
    attachOnly,
    toolsets,
    ...(http ? { http } : {}),
    ...(httpNoToken ? { httpNoToken } : {}),
    ...(minIntervalMs !== null ? { minIntervalMs } : {}),
    ...(grpc !== null ? { grpc } : {}),
  };
}
