/**
 * The `instructions` text of `initialize`: the mode, the project, what each served toolset is for
 * and the conventions every tool shares. It names no tool: `tools/list` already gives them, and a
 * client pays for these lines in every conversation.
 */
import { type ToolsetName, TOOLSETS } from "./toolsets.ts";

interface InstructionsInput {
  mode: "standalone" | "attached";
  standaloneReason: string | null;
  enabledToolsets: readonly ToolsetName[];
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
  lines.push(
    "Served: " + input.enabledToolsets.map((set) => `${set} (${TOOLSET_PURPOSE[set]})`).join("; ") +
      ".",
    "device_serial is a serial as adb lists it; left out, a tool uses the only online device " +
      "and refuses when several are online. Package-scoped tools act on the project's app ids; " +
      "another package needs allow_foreign_package: true, only when the user asked for it.",
    "Refusals come back as tool errors with error.code invalid_params and say what to change.",
  );
  return lines.join("\n");
}
