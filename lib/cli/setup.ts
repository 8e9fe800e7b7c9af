/** `keynobi setup`: the registration commands for Claude Code and Codex, for this binary. */
import { selfCommand } from "./permissions.ts";
import {
  DEFAULT_HTTP_HOST,
  HTTP_MCP_PATH,
  type HttpAddress,
  isLoopback,
  originOf,
  SETUP_HTTP_PORT,
} from "../mcp/http_address.ts";

/** Quote for POSIX shells: bare when safe, else single quotes with `'\''` for each quote. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function setupLines(command: readonly string[], mcpArgs: readonly string[]): string[] {
  const run = [...command, "--mcp", ...mcpArgs].map(shellQuote).join(" ");
  return [
    `claude mcp add --scope user --transport stdio keynobi -- ${run}`,
    `codex mcp add keynobi -- ${run}`,
  ];
}

/**
 * The streamable-HTTP lines: how to start the server, then how to register its URL. Off loopback
 * the token goes in a header read from the environment, never written into the command.
 */
export function httpSetupLines(
  command: readonly string[],
  mcpArgs: readonly string[],
  http: HttpAddress | null,
): string[] {
  const address = http ?? { hostname: DEFAULT_HTTP_HOST, port: SETUP_HTTP_PORT };
  const bind = address.hostname.includes(":")
    ? `[${address.hostname}]:${address.port}`
    : `${address.hostname}:${address.port}`;
  const run = [...command, "--mcp", "--http", bind, ...mcpArgs].map(shellQuote).join(" ");
  const url = `${originOf(address.hostname, address.port)}${HTTP_MCP_PATH}`;
  const token = !isLoopback(address.hostname);
  return [
    `# Or over streamable HTTP: start the server (it keeps running; Ctrl-C stops it)${
      token ? ", with KEYNOBI_HTTP_TOKEN set to a secret of 16+ characters" : ""
    }:`,
    token ? `KEYNOBI_HTTP_TOKEN="$KEYNOBI_HTTP_TOKEN" ${run}` : run,
    address.hostname === "0.0.0.0" || address.hostname === "::"
      ? "# then register its URL (from another machine, with this machine's address instead):"
      : "# then register its URL:",
    token
      ? `claude mcp add --scope user --transport http keynobi ${url} --header "Authorization: Bearer $KEYNOBI_HTTP_TOKEN"`
      : `claude mcp add --scope user --transport http keynobi ${url}`,
    token
      ? `codex mcp add keynobi --url ${url} --bearer-token-env-var KEYNOBI_HTTP_TOKEN`
      : `codex mcp add keynobi --url ${url}`,
  ];
}

export function setupCommand(
  mcpArgs: readonly string[],
  http: HttpAddress | null = null,
): string[] {
  const self = selfCommand();
  return [...setupLines(self, mcpArgs), ...httpSetupLines(self, mcpArgs, http)];
}
