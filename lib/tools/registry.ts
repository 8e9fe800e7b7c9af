/**
 * THE registry: every tool keynobi serves, in the order `tools/list` shows them. `tools/list`,
 * toolsets, annotations, `instructions`, the docs tables and the skill are derived from or checked
 * against this list by tests.
 */
import type { AnyTool } from "../mcp/server.ts";
import type { ToolContext } from "./context.ts";
import { projectTools } from "./project/project.ts";
import { devicesTools } from "./devices/devices.ts";
import { buildTools } from "./build/gradle.ts";
import { deployTools } from "./deploy/run_configurations.ts";
import { avdTools } from "./devices/avds.ts";
import { appsTools } from "./apps/app_control.ts";
import { logcatTools } from "./logcat/logcat.ts";
import { uiTools } from "./ui/ui.ts";
import { sessionTools } from "./sessions/debug_sessions.ts";
import { withAgentActions } from "./agent_actions.ts";

/** Every tool; those acting on a device record their calls as agent actions (agent_actions.ts). */
export const TOOLS: readonly AnyTool<ToolContext>[] = [
  ...projectTools,
  ...buildTools,
  ...logcatTools,
  ...sessionTools,
  ...deployTools,
  ...avdTools,
  ...devicesTools,
  ...appsTools,
  ...uiTools,
].map(withAgentActions);

export function findTool(name: string): AnyTool<ToolContext> | undefined {
  return TOOLS.find((t) => t.name === name);
}
