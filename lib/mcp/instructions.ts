/**
 * The `instructions` text of `initialize`, generated from the registry so it names exactly the tools
 * this session serves.
 */
import { type ToolsetName, TOOLSETS } from "./tool_def.ts";

export interface InstructionsInput {
  mode: "standalone" | "attached";
  standaloneReason: string | null;
  enabledToolsets: readonly ToolsetName[];
  /** Served tools in registry order. */
  tools: readonly { name: string; toolset: ToolsetName }[];
  project: string | null;
}

const TOOLSET_PURPOSE: Record<ToolsetName, string> = {
  core: "project, health, builds, logcat, crashes and reading devices and apps",
  ui: "reading the screen and driving the UI",
  "device-admin": "installing, launching and stopping apps and changing devices",
};

export function buildInstructions(input: InstructionsInput): string {
  const hidden = TOOLSETS.filter((t) => !input.enabledToolsets.includes(t));
  const modeLine = input.mode === "standalone"
    ? `Keynobi MCP server, standalone (${input.standaloneReason ?? "no app"}): its builds and ` +
      "logcat are not visible in a Keynobi app."
    : "Keynobi MCP server, attached to the Keynobi app.";
  const toolsetLine = `Toolsets served: ${input.enabledToolsets.join(", ")}; hidden: ` +
    (hidden.length ? hidden.join(", ") : "none") + ".";
  const lines = [
    `${modeLine} ${toolsetLine}`,
    input.project ? `Project: ${input.project}.` : "No Android project is open.",
    "Keynobi covers the stateful Android loop (devices, builds, logcat and crashes, UI). " +
    "Read keynobi://skill for when to use it and when Google's Android CLI fits better.",
  ];
  for (const set of input.enabledToolsets) {
    const names = input.tools.filter((t) => t.toolset === set).map((t) => t.name);
    lines.push(
      `${set} (${TOOLSET_PURPOSE[set]}): ${names.length ? names.join(", ") : "no tools yet"}.`,
    );
  }
  lines.push(
    "Refusals come back as tool errors with error.code invalid_params and say what to change.",
  );
  return lines.join("\n");
}
