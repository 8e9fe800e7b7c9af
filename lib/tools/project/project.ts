/**
 * `get_project_info` and `run_health_check`. Both keep working in a pinned session whose project
 * the app closed (spec "Attaching"), so both are project-independent: without a project they
 * answer (with a hint), never fail.
 */
import { defineTool } from "../define_tool.ts";
import { readSettings } from "../../core/settings.ts";
import { isTrusted } from "../../project/trust.ts";
import { readGradleProject } from "../../project/build_files.ts";
import { inspectWrapper } from "../../project/wrapper.ts";
import { describeJava, type JavaInfo } from "../../android/jdk.ts";
import { NO_PROJECT_HINT, renderHealth, runHealthCheck, trustHint } from "../../project/health.ts";
import type { McpSessionMode, ToolContext } from "../context.ts";

/** At most this many modules are listed in the text rendering (all are in the structure). */
const MAX_TEXT_MODULES = 20;

function selectedBy(ctx: ToolContext): string | null {
  if (ctx.project === null) return null;
  return ctx.session.followsApp ? "app" : ctx.project.selectedBy;
}

function modeFields(ctx: ToolContext) {
  return {
    mode: ctx.session.mode,
    standalone_reason: ctx.session.standaloneReason,
    follows_app: ctx.session.followsApp,
    pinned_project: ctx.session.pinnedProject,
  };
}

function javaLine(java: JavaInfo): string {
  if (!java.ok) return `Java: not usable: ${java.hint ?? "unknown problem"}`;
  const warn = java.warning ? ` (warning: ${java.warning})` : "";
  return `Java: ${java.version} from ${java.source ?? "PATH"} at ${java.java_home}${warn}`;
}

/** The structured answer of `get_project_info`. */
async function projectInfo(ctx: ToolContext): Promise<Record<string, unknown>> {
  const settings = await readSettings(ctx.dataDir);
  if (ctx.project === null) {
    const java = await describeJava({ env: ctx.env, settings, projectRoot: null, trusted: false });
    return {
      project: null,
      ...modeFields(ctx),
      open: false,
      trusted: false,
      trust_hint: null,
      java,
      hint: NO_PROJECT_HINT,
    };
  }
  const root = ctx.project.root;
  const closedByApp = appSwitchedAway(ctx);
  const trusted = await isTrusted(ctx.dataDir, root);
  const [info, wrapper, java] = await Promise.all([
    readGradleProject(root),
    inspectWrapper(root),
    describeJava({ env: ctx.env, settings, projectRoot: root, trusted }),
  ]);
  return {
    project: {
      root,
      name: info.name,
      selected_by: selectedBy(ctx),
      requested: ctx.project.requested,
      settings_file: info.settings_file,
      modules: info.modules,
      application_modules: info.application_modules,
      build_files: info.files,
      gradle_wrapper: wrapper,
    },
    ...modeFields(ctx),
    ...(closedByApp !== undefined
      ? {
        open: false,
        app_project: closedByApp,
        hint: `The Keynobi app now has ${closedByApp ?? "no project"} open; this session is ` +
          `pinned to ${root}, so its project tools are refused: ask the user to run ` +
          `keynobi open ${root}, or restart the MCP client to follow the app's project`,
      }
      : {
        open: true,
        hint: info.settings_file === null
          ? `${root} has no settings.gradle.kts or settings.gradle: select the Android project's root`
          : null,
      }),
    trusted,
    trust_hint: trusted ? null : trustHint(root),
    java,
  };
}

/**
 * Why a pinned attached session refuses project tools and project resources now (the app has
 * switched to another project since it attached), or null.
 */
export function pinnedRefusal(session: McpSessionMode): string | null {
  const pinned = session.pinnedProject;
  if (session.mode !== "attached" || pinned === null || !session.appProject) return null;
  const now = session.appProject();
  if (now === pinned) return null;
  return `Keynobi now has ${now ?? "no project"} open; this session is for ${pinned}, so its ` +
    `project tools and files are refused: ask the user to run keynobi open ${pinned}, or restart ` +
    "the MCP client to follow the app's project (device, UI, logcat, get_project_info and " +
    "run_health_check keep working)";
}

/**
 * A pinned attached session whose project the app switched away from: the app's project now
 * (null: none); undefined when the session's project is still the app's (or it is not pinned).
 */
function appSwitchedAway(ctx: ToolContext): string | null | undefined {
  const pinned = ctx.session.pinnedProject;
  if (ctx.session.mode !== "attached" || pinned === null || !ctx.session.appProject) {
    return undefined;
  }
  const now = ctx.session.appProject();
  return now === pinned ? undefined : now;
}

interface ProjectShape {
  root: string;
  name: string;
  selected_by: string;
  modules: Array<{ path: string; application: boolean }>;
  application_modules: string[];
  gradle_wrapper: { gradle_version: string | null; present: boolean };
}

/** A compact rendering of `projectInfo`. Pure. */
function renderProjectInfo(s: Record<string, unknown>): string {
  const mode = `Mode: ${s.mode}${s.standalone_reason ? ` (${s.standalone_reason})` : ""}`;
  const p = s.project as ProjectShape | null;
  if (p === null) {
    return [`No project selected. ${s.hint}`, mode, javaLine(s.java as JavaInfo)].join("\n");
  }
  const mods = p.modules.slice(0, MAX_TEXT_MODULES).map((m) =>
    m.application ? `${m.path}*` : m.path
  );
  if (p.modules.length > MAX_TEXT_MODULES) {
    mods.push(`… ${p.modules.length - MAX_TEXT_MODULES} more`);
  }
  return [
    `Project: ${p.name} at ${p.root} (selected by ${p.selected_by})`,
    `Modules (* = application): ${mods.join(", ") || "none"}`,
    `Gradle wrapper: ${
      p.gradle_wrapper.present ? `Gradle ${p.gradle_wrapper.gradle_version ?? "?"}` : "missing"
    }`,
    s.trusted ? "Trusted: yes (builds allowed)" : `Trusted: no. ${s.trust_hint}`,
    mode,
    javaLine(s.java as JavaInfo),
    ...(s.hint ? [`Hint: ${s.hint}`] : []),
  ].join("\n");
}

const getProjectInfo = defineTool({
  name: "get_project_info",
  toolset: "core",
  kind: "R",
  description: "Start here: the open project (root, modules, app modules, build files, Gradle " +
    "wrapper), whether it is trusted to build, the JDK builds use, the session mode.",
  params: {},
  async run(_args, ctx) {
    const structured = await projectInfo(ctx);
    return { structured, text: renderProjectInfo(structured) };
  },
});

const runHealthCheckTool = defineTool({
  name: "run_health_check",
  toolset: "core",
  kind: "R",
  description:
    "When a build or deploy fails for setup reasons: checks JDK, Android SDK, adb server, " +
    "Gradle wrapper, project and trust; a failed check has a hint.",
  params: {},
  async run(_args, ctx) {
    const report = await runHealthCheck({
      env: ctx.env,
      dataDir: ctx.dataDir,
      project: ctx.project,
      selectedBy: selectedBy(ctx),
      adb: ctx.adb,
    });
    return { structured: { ...report }, text: renderHealth(report) };
  },
});

export const projectTools = [getProjectInfo, runHealthCheckTool];
