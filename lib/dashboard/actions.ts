/**
 * The user's actions from the dashboard: cancel the running build, trust / untrust a project,
 * switch the open project, install the agent skill for Claude Code, and note that the setup
 * commands were copied. Each is prepared (validated, described to the user: nothing changes),
 * confirmed by the user (the token back), run through the same code the CLI runs, and written to
 * the activity log as the user's (`kind: "user"`).
 */
import { isAbsolute, resolve } from "../core/path.ts";
import { resolveDataDir } from "../core/data_dir.ts";
import { trustProject, untrustProject } from "../project/trust.ts";
import { describeOrigin } from "../build/shared/build_record.ts";
import { Confirmations } from "./confirmations.ts";
import type { DashboardHost } from "./host.ts";
import { installSkill, SkillInstallRefused, skillStatus } from "./skill_install.ts";

/** Longest path an action takes. */
const MAX_ACTION_PATH_CHARS = 4_096;

const ACTION_NAMES = [
  "cancel_build",
  "trust_project",
  "untrust_project",
  "open_project",
  "install_skill",
] as const;
type ActionName = typeof ACTION_NAMES[number];

type Action =
  | { name: "cancel_build"; build_id: number }
  | { name: "trust_project"; path: string }
  | { name: "untrust_project"; path: string }
  | { name: "open_project"; path: string }
  | { name: "install_skill"; replace: boolean };

/** A bad request: 400 with this message; nothing changed. */
export class ActionRefused extends Error {
  constructor(message: string, readonly data: Record<string, unknown> = {}) {
    super(message);
  }
}

interface Prepared {
  token: string;
  title: string;
  message: string;
  confirm_label: string;
}

interface Outcome {
  ok: boolean;
  message: string;
}

function pathArg(v: unknown): string {
  if (typeof v !== "string" || v === "" || v.length > MAX_ACTION_PATH_CHARS) {
    throw new ActionRefused(`"path" must be an absolute folder path`);
  }
  if (v.includes("\0")) throw new ActionRefused(`"path" contains a NUL byte`);
  if (!isAbsolute(v)) throw new ActionRefused(`"path" must be absolute, got ${v}`);
  return v;
}

/** The action a request body names, validated. Pure. */
export function parseAction(body: unknown): Action {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ActionRefused("The request must be one JSON object naming an action");
  }
  const b = body as Record<string, unknown>;
  switch (b.action) {
    case "cancel_build":
      if (!Number.isSafeInteger(b.build_id) || (b.build_id as number) < 1) {
        throw new ActionRefused(`"build_id" must be the running build's id`);
      }
      return { name: "cancel_build", build_id: b.build_id as number };
    case "trust_project":
    case "untrust_project":
    case "open_project":
      return { name: b.action, path: pathArg(b.path) };
    case "install_skill":
      if (b.replace !== undefined && typeof b.replace !== "boolean") {
        throw new ActionRefused(`"replace" must be true or false`);
      }
      return { name: "install_skill", replace: b.replace === true };
    default:
      throw new ActionRefused(
        `Unknown action ${JSON.stringify(b.action)}: one of ${ACTION_NAMES.join(", ")}`,
      );
  }
}

export class DashboardActions {
  readonly #host: DashboardHost;
  readonly confirmations = new Confirmations<Action>();

  constructor(host: DashboardHost) {
    this.#host = host;
  }

  #home(): string {
    const home = this.#host.env.get("HOME");
    if (!home) throw new ActionRefused("HOME is not set, so there is no ~/.claude/skills");
    return home;
  }

  /** What `action` would do, and the token that confirms it. Changes nothing. */
  async prepare(action: Action): Promise<Prepared> {
    const described = await this.#describe(action);
    return { token: this.confirmations.issue(action), ...described };
  }

  async #describe(a: Action): Promise<Omit<Prepared, "token">> {
    switch (a.name) {
      case "cancel_build": {
        const running = await this.#host.builds.status().catch(() => null);
        if (running === null || running.id !== a.build_id) {
          throw new ActionRefused(
            `Build #${a.build_id} is not running in the app` +
              (running ? ` (build #${running.id} is)` : "") +
              "; a build a standalone server runs is stopped from its own agent",
          );
        }
        return {
          title: `Cancel build #${running.id}?`,
          message: `${running.tasks.join(" ")} in ${running.project}, started by ` +
            `${describeOrigin(running.origin)}. The agent that started it is told it was ` +
            "cancelled by the app.",
          confirm_label: "Cancel the build",
        };
      }
      case "trust_project":
        return {
          title: `Trust ${a.path}?`,
          message: "keynobi may then run this project's gradlew and Gradle build scripts, with " +
            "your permissions, whenever an agent asks for a build. Only trust code you would " +
            "run yourself.",
          confirm_label: "Trust",
        };
      case "untrust_project":
        return {
          title: `Untrust ${a.path}?`,
          message: "keynobi will refuse to build it until it is trusted again.",
          confirm_label: "Untrust",
        };
      case "open_project": {
        const current = this.#host.status().app.project;
        return {
          title: `Open ${a.path}?`,
          message: `The app switches from ${current ?? "no project"}. Sessions that follow the ` +
            "app move with it; sessions pinned to another project refuse project tools.",
          confirm_label: "Open",
        };
      }
      case "install_skill": {
        const st = await skillStatus(this.#home(), await this.#host.skill());
        if (st.state === "outside") throw new ActionRefused(`Not installed: ${st.detail}`);
        if (st.state === "installed") {
          throw new ActionRefused(`The shipped skill is already installed at ${st.path}`);
        }
        if (st.state === "different" && !a.replace) {
          throw new ActionRefused(
            `${st.detail} at ${st.path}: replacing it needs your explicit choice`,
            { needs_replace: true },
          );
        }
        return {
          title: st.state === "different" ? `Replace ${st.path}?` : `Install the skill?`,
          message: st.state === "different"
            ? `${st.detail}; it will be overwritten with the one this keynobi ships.`
            : `Writes ${st.path} (Claude Code's user skills folder).`,
          confirm_label: st.state === "different" ? "Replace" : "Install",
        };
      }
    }
  }

  /** Runs the action `token` confirms, and records it as the user's. */
  async run(token: unknown): Promise<Outcome> {
    const action = this.confirmations.take(token);
    if (action === null) {
      throw new ActionRefused(
        "That confirmation is unknown, used or expired: start the action again",
      );
    }
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await this.#run(action);
    } catch (e) {
      outcome = { ok: false, message: (e as Error).message };
    }
    await this.record(action.name, outcome, performance.now() - started);
    return outcome;
  }

  /** One activity entry for something the user did in the dashboard. */
  record(name: string, outcome: Outcome, durationMs = 0): Promise<void> {
    return this.#host.activity.append({
      kind: "user",
      name,
      duration_ms: durationMs,
      status: outcome.ok ? "ok" : "error",
      summary: `From the dashboard: ${outcome.message}`,
    });
  }

  async #run(a: Action): Promise<Outcome> {
    switch (a.name) {
      case "cancel_build": {
        const r = await this.#host.builds.cancel({ kind: "app" });
        if (r === null) return { ok: false, message: `No build was running to cancel` };
        if (r.id !== a.build_id) {
          return { ok: true, message: `Cancelled build #${r.id} (asked for #${a.build_id})` };
        }
        return {
          ok: true,
          message: `Cancelled build #${r.id} (${r.tasks.join(" ")}, started by ` +
            `${describeOrigin(r.origin)})`,
        };
      }
      case "trust_project":
      case "untrust_project": {
        // What `keynobi trust` / `untrust` do and say first (lib/cli/trust.ts), on the same layer.
        const dataDir = resolveDataDir(this.#host.env);
        const path = resolve(this.#host.cwd, a.path);
        try {
          if (a.name === "trust_project") {
            const { root, alreadyTrusted } = await trustProject(dataDir, path);
            return {
              ok: true,
              message: `${alreadyTrusted ? "Already trusted" : "Trusted"}: ${root}`,
            };
          }
          const removed = await untrustProject(dataDir, path);
          return {
            ok: true,
            message: removed.length === 0
              ? `Not trusted: ${path}; nothing changed (\`keynobi projects\` lists trusted projects)`
              : `Untrusted: ${removed[0]}`,
          };
        } catch (e) {
          return { ok: false, message: (e as Error).message };
        }
      }
      case "open_project": {
        const r = await this.#host.openProject(a.path);
        return r.ok
          ? { ok: true, message: `Opened ${r.project} (was ${r.previous ?? "none"})` }
          : { ok: false, message: `Not opened: ${r.reason}` };
      }
      case "install_skill": {
        try {
          const st = await installSkill(this.#home(), await this.#host.skill(), {
            replace: a.replace,
          });
          return { ok: st.state === "installed", message: `Skill installed at ${st.path}` };
        } catch (e) {
          if (e instanceof SkillInstallRefused) return { ok: false, message: e.message };
          throw e;
        }
      }
    }
  }
}
