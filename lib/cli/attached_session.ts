/**
 * The MCP session of one attach to `keynobi app`: the tools on the app's runtime, pinned to the
 * project the client asked for or following the app's, its activity entries and logcat holds
 * named by its session id.
 */
import { buildInstructions } from "../mcp/instructions.ts";
import type { McpSession } from "../mcp/session.ts";
import type { ProjectSelection } from "../project/project_root.ts";
import type { AttachRequest } from "../attach/handshake.ts";
import type { LogcatShares } from "../attach/logcat_shares.ts";
import type { McpSessionMode, ToolContext } from "../tools/context.ts";
import { pinnedRefusal } from "../tools/project/project.ts";
import type { AppProject } from "./app_project.ts";
import { newToolSession, type Runtime } from "./runtime.ts";

type CreateSession = typeof import("../mcp/session.ts").createMcpSession;

/** Make the attached sessions of `rt`: one call per accepted attach. */
export function attachedSessions(
  rt: Runtime,
  app: AppProject,
  logcatShares: LogcatShares,
  createSession: CreateSession,
): (req: AttachRequest) => McpSession<ToolContext> {
  return (req) => {
    const pinned = req.project;
    const mode: McpSessionMode = {
      mode: "attached",
      standaloneReason: null,
      followsApp: pinned === null,
      pinnedProject: pinned,
      appProject: () => app.root,
    };
    const selection = (): ProjectSelection | null =>
      pinned === null
        ? app.selection()
        : { root: pinned, requested: pinned, selectedBy: req.selected_by ?? "argument" };
    const enabledToolsets = req.toolsets ?? ["core", "ui", "device-admin"] as const;
    // Each entry this session logs names it, so the dashboard can filter the log by session.
    const sessionId = crypto.randomUUID();
    return newToolSession(rt, {
      sessionId,
      title: "Keynobi (attached to the app)",
      instructions: buildInstructions({
        mode: "attached",
        standaloneReason: null,
        enabledToolsets,
        project: selection()?.root ?? null,
      }),
      enabledToolsets,
      project: selection,
      mode,
      projectRefusal: () => pinnedRefusal(mode),
      activity: { append: (entry) => rt.activity.append({ ...entry, session: sessionId }) },
      logcat: (id) => logcatShares.view(id),
    }, createSession);
  };
}
