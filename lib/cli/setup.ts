/** `keynobi setup`: the registration commands for Claude Code and Codex, for this binary. */
import { isCompiled, selfCommandFor } from "./permissions.ts";
import { buildBundle, BUNDLE_DIR, bundleIsCurrent } from "./bundle.ts";
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

/**
 * The command a registration runs: the compiled binary; from a checkout, its bundle (lib/cli/
 * bundle.ts: it starts in ~60 % of main.ts's time), built first when missing or built from other
 * sources; main.ts when it cannot be built (`note` says why).
 */
export async function registeredCommand(note: (line: string) => void): Promise<string[]> {
  if (isCompiled()) return [Deno.execPath()];
  const root = decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(/\/$/, "");
  let entry = `${root}/${BUNDLE_DIR}/main.js`;
  if (!bundleIsCurrent(root)) {
    const failed = await buildBundle(root, Deno.execPath());
    if (failed !== null) {
      note(`keynobi setup: registering main.ts, the bundle could not be built: ${failed}`);
      entry = `${root}/main.ts`;
    }
  }
  return selfCommandFor(Deno.execPath(), entry, Deno.version.deno);
}

/** registeredCommand without building anything: the bundle only when it is current. */
export function registeredCommandNow(): string[] {
  if (isCompiled()) return [Deno.execPath()];
  const root = decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(/\/$/, "");
  const entry = bundleIsCurrent(root) ? `${root}/${BUNDLE_DIR}/main.js` : `${root}/main.ts`;
  return selfCommandFor(Deno.execPath(), entry, Deno.version.deno);
}

/** The setup lines for the command registered now (nothing built; the dashboard shows them). */
export function setupCommandNow(mcpArgs: readonly string[]): string[] {
  const self = registeredCommandNow();
  return [...setupLines(self, mcpArgs), ...httpSetupLines(self, mcpArgs, null)];
}

export async function setupCommand(
  mcpArgs: readonly string[],
  http: HttpAddress | null = null,
  note: (line: string) => void = (line) => console.error(line),
): Promise<string[]> {
  const self = await registeredCommand(note);
  return [...setupLines(self, mcpArgs), ...httpSetupLines(self, mcpArgs, http)];
}
