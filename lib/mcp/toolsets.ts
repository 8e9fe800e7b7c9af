/** Toolsets: the groups of tools a session can be limited to with `--toolsets`. */

/** The toolsets, in the order they are listed. Loads nothing (start-up reads it). */
export const TOOLSETS = ["core", "ui", "device-admin"] as const;
export type ToolsetName = typeof TOOLSETS[number];

function isToolsetName(name: string): name is ToolsetName {
  return (TOOLSETS as readonly string[]).includes(name);
}

/**
 * Parse the value of `--toolsets` (`core,ui`). Throws a `TypeError` naming the valid toolsets for an
 * empty value, an empty name or an unknown one; duplicates are folded.
 */
export function parseToolsets(value: string): ToolsetName[] {
  const valid = TOOLSETS.join(", ");
  if (value.trim() === "") {
    throw new TypeError(`--toolsets needs a value: one or more of ${valid}, comma-separated`);
  }
  const out: ToolsetName[] = [];
  for (const raw of value.split(",")) {
    const name = raw.trim();
    if (name === "") {
      throw new TypeError(
        `--toolsets has an empty name in "${value}": valid toolsets are ${valid}`,
      );
    }
    if (!isToolsetName(name)) {
      throw new TypeError(`Unknown toolset "${name}": valid toolsets are ${valid}`);
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** The message for a call to a tool whose toolset this server does not serve. */
export function hiddenToolMessage(
  tool: string,
  toolset: ToolsetName,
  enabled: readonly ToolsetName[],
): string {
  const withIt = [...enabled, toolset].join(",");
  return `${tool} is in the "${toolset}" toolset, which this Keynobi MCP server does not serve ` +
    `(it serves ${enabled.join(", ")}): ask the user to add it to the registration, for example ` +
    `\`keynobi --mcp --toolsets ${withIt}\`, or to remove --toolsets to serve every tool`;
}
