/** `keynobi setup`: the registration commands for Claude Code and Codex, for this binary. */
import { selfCommand } from "./permissions.ts";

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

export function setupCommand(mcpArgs: readonly string[]): string[] {
  return setupLines(selfCommand(), mcpArgs);
}
