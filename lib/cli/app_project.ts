/**
 * The project `keynobi app` has open: chosen at start, switched by `keynobi open` (the socket's
 * `open` query) and the dashboard's Open, one function for both. Attached sessions that follow
 * the app ask it per request.
 */
import type { ActivityLog } from "../mcp/activity_log.ts";
import type { OpenOutcome } from "../dashboard/host.ts";
import {
  projectRootFor,
  type ProjectSelection,
  setLastActiveProject,
} from "../project/project_root.ts";

export class AppProject {
  #selection: ProjectSelection | null;

  constructor(
    readonly dataDir: string,
    selection: ProjectSelection | null,
    readonly activity: Pick<ActivityLog, "append">,
  ) {
    this.#selection = selection;
  }

  /** The open project's root, or null. */
  get root(): string | null {
    return this.#selection?.root ?? null;
  }

  /** A copy of the selection (a session may keep it). */
  selection(): ProjectSelection | null {
    return this.#selection ? { ...this.#selection } : null;
  }

  /** Open `path`'s Gradle root (it becomes the last active project) and log the switch. */
  async open(path: string): Promise<OpenOutcome> {
    const root = await projectRootFor(path).catch(() => null);
    if (root === null) return { ok: false, reason: `${path} is not an existing folder` };
    const before = this.root;
    this.#selection = { root, requested: path, selectedBy: "argument" };
    await setLastActiveProject(this.dataDir, root).catch(() => {});
    await this.activity.append({
      kind: "lifecycle",
      name: "app",
      duration_ms: 0,
      status: "ok",
      summary: `Project opened: ${root} (was ${before ?? "none"})`,
    });
    return { ok: true, project: root, previous: before };
  }
}
