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
import { installHttpToken } from "../mcp/http_token.ts";

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
 * How the HTTP lines authenticate on loopback: the install's token (written into the claude
 * header and the Codex environment line), or none (`--http-no-token`, single-user machines).
 * Off loopback the token is always `$KEYNOBI_HTTP_TOKEN`, read from the environment, never written.
 */
type SetupHttpAuth = { token: string } | { noToken: true };

/**
 * The streamable-HTTP lines: how to start the server, then how to register its URL with the
 * bearer token it requires.
 */
export function httpSetupLines(
  command: readonly string[],
  mcpArgs: readonly string[],
  http: HttpAddress | null,
  auth: SetupHttpAuth,
): string[] {
  const address = http ?? { hostname: DEFAULT_HTTP_HOST, port: SETUP_HTTP_PORT };
  const bind = address.hostname.includes(":")
    ? `[${address.hostname}]:${address.port}`
    : `${address.hostname}:${address.port}`;
  const loopback = isLoopback(address.hostname);
  const noToken = loopback && "noToken" in auth;
  const args = [
    ...command,
    "--mcp",
    "--http",
    bind,
    ...(noToken ? ["--http-no-token"] : []),
    ...mcpArgs,
  ];
  const run = args.map(shellQuote).join(" ");
  const url = `${originOf(address.hostname, address.port)}${HTTP_MCP_PATH}`;
  const register = address.hostname === "0.0.0.0" || address.hostname === "::"
    ? "# then register its URL (from another machine, with this machine's address instead):"
    : "# then register its URL:";
  if (noToken) {
    return [
      "# Or over streamable HTTP without a token (every local user can connect: single-user " +
      "machines only): start the server (it keeps running; Ctrl-C stops it):",
      run,
      register,
      `claude mcp add --scope user --transport http keynobi ${url}`,
      `codex mcp add keynobi --url ${url}`,
    ];
  }
  if (!loopback) {
    return [
      "# Or over streamable HTTP: start the server (it keeps running; Ctrl-C stops it), with " +
      "KEYNOBI_HTTP_TOKEN set to a secret of 16+ characters:",
      `KEYNOBI_HTTP_TOKEN="$KEYNOBI_HTTP_TOKEN" ${run}`,
      register,
      `claude mcp add --scope user --transport http keynobi ${url} --header "Authorization: Bearer $KEYNOBI_HTTP_TOKEN"`,
      `codex mcp add keynobi --url ${url} --bearer-token-env-var KEYNOBI_HTTP_TOKEN`,
    ];
  }
  const token = (auth as { token: string }).token;
  return [
    "# Or over streamable HTTP: start the server (it keeps running; Ctrl-C stops it); it requires " +
    "this install's bearer token:",
    run,
    `${
      register.slice(0, -1)
    } with the token (Codex reads it from KEYNOBI_HTTP_TOKEN where it runs):`,
    `claude mcp add --scope user --transport http keynobi ${url} --header "Authorization: Bearer ${token}"`,
    `export KEYNOBI_HTTP_TOKEN=${token}`,
    `codex mcp add keynobi --url ${url} --bearer-token-env-var KEYNOBI_HTTP_TOKEN`,
  ];
}

/**
 * The command a registration runs: the compiled binary; from a checkout, its bundle (lib/cli/
 * bundle.ts: it starts in ~60 % of main.ts's time), built first when missing or built from other
 * sources; main.ts when it cannot be built (`note` says why).
 */
async function registeredCommand(note: (line: string) => void): Promise<string[]> {
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
function registeredCommandNow(): string[] {
  if (isCompiled()) return [Deno.execPath()];
  const root = decodeURIComponent(new URL("../../", import.meta.url).pathname).replace(/\/$/, "");
  const entry = bundleIsCurrent(root) ? `${root}/${BUNDLE_DIR}/main.js` : `${root}/main.ts`;
  return selfCommandFor(Deno.execPath(), entry, Deno.version.deno);
}

/**
 * The setup lines for the command registered now (nothing built; the dashboard shows them), with
 * the install's token (`auth`, read by the caller).
 */
export function setupCommandNow(mcpArgs: readonly string[], auth: SetupHttpAuth): string[] {
  const self = registeredCommandNow();
  return [...setupLines(self, mcpArgs), ...httpSetupLines(self, mcpArgs, null, auth)];
}

/**
 * `keynobi setup`: the stdio lines, then the HTTP ones for `http` (127.0.0.1:8848 by default),
 * with the install's token (created in `dataDir` when missing) unless `noToken`.
 */
export async function setupCommand(opts: {
  mcpArgs: readonly string[];
  http: HttpAddress | null;
  noToken: boolean;
  dataDir: string;
  note?: (line: string) => void;
}): Promise<string[]> {
  const self = await registeredCommand(opts.note ?? ((line) => console.error(line)));
  const loopback = isLoopback((opts.http ?? { hostname: DEFAULT_HTTP_HOST }).hostname);
  const auth: SetupHttpAuth = opts.noToken
    ? { noToken: true }
    : { token: loopback ? await installHttpToken(opts.dataDir) : "$KEYNOBI_HTTP_TOKEN" };
  return [
    ...setupLines(self, opts.mcpArgs),
    ...httpSetupLines(self, opts.mcpArgs, opts.http, auth),
  ];
}
