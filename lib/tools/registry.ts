/**
 * THE registry: every tool keynobi serves, in the order `tools/list` shows them. `tools/list`,
 * toolsets, annotations, `instructions`, the docs tables and the skill are derived from or checked
 * against this list by tests.
 *
 * Layout: a tool lives in `lib/tools/<area>/<family>.ts`, where the area is what it works on
 * (project, build, logcat, sessions, deploy, devices, apps, ui) and the family is the group of
 * tool names it belongs to (`ui_tap`, `ui_tap_element`, `ui_long_press` → `ui/tap.ts`). Each family
 * file exports one array; the docs table lists each tool's file (`FAMILIES` below).
 */
import type { AnyTool } from "../mcp/server.ts";
import type { ToolContext } from "./context.ts";
import { withAgentActions } from "./agent_actions.ts";
import { projectTools } from "./project/project.ts";
import { gradleTools } from "./gradle/gradle.ts";
import { variantTools } from "./gradle/variants.ts";
import { logcatTools } from "./logcat/logcat.ts";
import { crashTools } from "./logcat/crashes.ts";
import { sessionTools } from "./sessions/debug_sessions.ts";
import { installApkTools } from "./deploy/install_apk.ts";
import { runConfigurationTools } from "./deploy/run_configurations.ts";
import { avdTools } from "./devices/avds.ts";
import { devicesTools } from "./devices/devices.ts";
import { deviceSettingsTools } from "./devices/device_settings.ts";
import { appInfoTools } from "./apps/app_info.ts";
import { appListTools } from "./apps/app_list.ts";
import { frameStatsTools } from "./apps/frame_stats.ts";
import { appControlTools } from "./apps/app_control.ts";
import { permissionTools } from "./apps/permissions.ts";
import { hierarchyTools } from "./ui/hierarchy.ts";
import { findTools } from "./ui/find.ts";
import { waitTools } from "./ui/wait.ts";
import { tapTools } from "./ui/tap.ts";
import { textTools } from "./ui/text.ts";
import { gestureTools } from "./ui/gestures.ts";
import { screenshotTools } from "./ui/screenshot.ts";
import { recordingTools } from "./ui/recording.ts";
import { flowTools } from "./ui/flows.ts";

/** One family file: its path under lib/tools/ and the tools it defines, in `tools/list` order. */
interface ToolFamily {
  file: string;
  tools: readonly AnyTool<ToolContext>[];
}

export const FAMILIES: readonly ToolFamily[] = [
  { file: "project/project.ts", tools: projectTools },
  { file: "gradle/gradle.ts", tools: gradleTools },
  { file: "gradle/variants.ts", tools: variantTools },
  { file: "logcat/logcat.ts", tools: logcatTools },
  { file: "logcat/crashes.ts", tools: crashTools },
  { file: "sessions/debug_sessions.ts", tools: sessionTools },
  { file: "deploy/install_apk.ts", tools: installApkTools },
  { file: "deploy/run_configurations.ts", tools: runConfigurationTools },
  { file: "devices/devices.ts", tools: devicesTools },
  { file: "devices/avds.ts", tools: avdTools },
  { file: "devices/device_settings.ts", tools: deviceSettingsTools },
  { file: "apps/app_info.ts", tools: appInfoTools },
  { file: "apps/app_list.ts", tools: appListTools },
  { file: "apps/frame_stats.ts", tools: frameStatsTools },
  { file: "apps/app_control.ts", tools: appControlTools },
  { file: "apps/permissions.ts", tools: permissionTools },
  { file: "ui/hierarchy.ts", tools: hierarchyTools },
  { file: "ui/find.ts", tools: findTools },
  { file: "ui/wait.ts", tools: waitTools },
  { file: "ui/tap.ts", tools: tapTools },
  { file: "ui/text.ts", tools: textTools },
  { file: "ui/gestures.ts", tools: gestureTools },
  { file: "ui/screenshot.ts", tools: screenshotTools },
  { file: "ui/recording.ts", tools: recordingTools },
  { file: "ui/flows.ts", tools: flowTools },
];

/** Every tool; those acting on a device record their calls as agent actions (agent_actions.ts). */
export const TOOLS: readonly AnyTool<ToolContext>[] = FAMILIES.flatMap((f) => f.tools).map(
  withAgentActions,
);

export function findTool(name: string): AnyTool<ToolContext> | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The file (under lib/tools/) that defines tool `name`, or `undefined` for an unknown name. */
export function fileOfTool(name: string): string | undefined {
  return FAMILIES.find((f) => f.tools.some((t) => t.name === name))?.file;
}
