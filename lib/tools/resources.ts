/**
 * The resources: the project's info and health (the tools' answers as JSON), the agent skill, and
 * fixed project files, which are listed and read only when their canonical path is a regular file
 * inside the canonical project root (see lib/core/project_paths.ts, which also closes the
 * check-then-use gap).
 */
import { pinnedRefusal } from "./project/project.ts";
import { isToolError } from "../core/errors.ts";
import { readProjectFile } from "../core/project_paths.ts";
import { readGradleProject } from "../project/build_files.ts";
import { RpcCode, RpcError } from "../mcp/jsonrpc.ts";
import type { ResourceContent, ResourceEntry, ResourceProvider } from "../mcp/resources.ts";
import type { ToolContext } from "./context.ts";
import { findTool } from "./registry.ts";

const SKILL_URI = "keynobi://skill";

const PROJECT_FILES = {
  "android://manifest": {
    key: "manifest",
    name: "AndroidManifest.xml",
    title: "App manifest",
    mimeType: "application/xml",
  },
  "android://app-build-gradle": {
    key: "app-build-gradle",
    name: "app build file",
    title: "Application module build file",
    mimeType: "text/plain",
  },
  "android://build-gradle": {
    key: "build-gradle",
    name: "root build file",
    title: "Root build file",
    mimeType: "text/plain",
  },
  "android://gradle-settings": {
    key: "gradle-settings",
    name: "settings file",
    title: "Gradle settings file",
    mimeType: "text/plain",
  },
} as const;

type ProjectUri = keyof typeof PROJECT_FILES;

const TOOL_RESOURCES = {
  "android://project-info": { tool: "get_project_info", title: "Project info" },
  "android://health": { tool: "run_health_check", title: "Health check" },
} as const;

export async function readSkill(): Promise<string> {
  return await Deno.readTextFile(new URL("../../skills/keynobi/SKILL.md", import.meta.url));
}

// deno-lint-ignore house/long-function -- the provider's methods share one closure and lookup
export function projectResources(
  makeContext: (signal: AbortSignal) => ToolContext,
): ResourceProvider {
  /** The served file (listed), else the first candidate that exists at all (refused on read). */
  async function fileFor(uri: ProjectUri, ctx: ToolContext, servedOnly: boolean) {
    const root = ctx.project?.root;
    if (!root) return null;
    const info = await readGradleProject(root);
    const served = info.files[PROJECT_FILES[uri].key];
    if (served || servedOnly) return served;
    const apps = info.modules.filter((m) => m.application);
    const appDir = apps.length === 1 ? apps[0].dir : null;
    const prefix = (dir: string) => (dir === "" ? "" : `${dir}/`);
    const candidates: Record<ProjectUri, string[]> = {
      "android://gradle-settings": ["settings.gradle.kts", "settings.gradle"],
      "android://build-gradle": ["build.gradle.kts", "build.gradle"],
      "android://app-build-gradle": appDir === null
        ? []
        : ["build.gradle.kts", "build.gradle"].map((n) => prefix(appDir) + n),
      "android://manifest": appDir === null
        ? []
        : [prefix(appDir) + "src/main/AndroidManifest.xml"],
    };
    for (const rel of candidates[uri]) {
      try {
        await Deno.lstat(`${root}/${rel}`);
        return rel;
      } catch { /* try the next */ }
    }
    return null;
  }

  return {
    async list(signal) {
      const ctx = makeContext(signal);
      const out: ResourceEntry[] = [];
      for (const [uri, r] of Object.entries(TOOL_RESOURCES)) {
        out.push({
          uri,
          name: uri.slice("android://".length),
          title: r.title,
          mimeType: "application/json",
        });
      }
      out.push({
        uri: SKILL_URI,
        name: "skill",
        title: "Keynobi agent skill",
        description: "When to use Keynobi's tools, and when Android CLI fits better",
        mimeType: "text/markdown",
      });
      // A pinned session whose project the app left lists no project files (reads are refused).
      const away = pinnedRefusal(ctx.session) !== null;
      for (const uri of away ? [] : Object.keys(PROJECT_FILES) as ProjectUri[]) {
        const rel = await fileFor(uri, ctx, true);
        if (!rel) continue; // Missing, not a regular file, or outside the project: not listed.
        const f = PROJECT_FILES[uri];
        out.push({ uri, name: rel, title: f.title, mimeType: f.mimeType });
      }
      return out;
    },

    async read(uri, signal): Promise<ResourceContent> {
      if (uri === SKILL_URI) return { uri, mimeType: "text/markdown", text: await readSkill() };
      const ctx = makeContext(signal);
      if (uri in TOOL_RESOURCES) {
        const tool = findTool(TOOL_RESOURCES[uri as keyof typeof TOOL_RESOURCES].tool);
        if (!tool) {
          throw new RpcError(RpcCode.resourceNotFound, `Resource not found: ${uri}`, { uri });
        }
        const out = await tool.run({}, ctx);
        return { uri, mimeType: "application/json", text: JSON.stringify(out.structured, null, 2) };
      }
      if (!(uri in PROJECT_FILES)) {
        throw new RpcError(
          RpcCode.resourceNotFound,
          `Resource not found: ${uri}; resources/list names the available ones`,
          { uri },
        );
      }
      const away = pinnedRefusal(ctx.session);
      if (away !== null) throw new RpcError(RpcCode.invalidRequest, away, { uri });
      const rel = await fileFor(uri as ProjectUri, ctx, false);
      if (!rel || !ctx.project) {
        throw new RpcError(
          RpcCode.resourceNotFound,
          ctx.project
            ? `Resource not found: ${uri}: the project has no such file`
            : `Resource not found: ${uri}: no Android project is open`,
          { uri },
        );
      }
      try {
        const file = await readProjectFile(ctx.project.root, rel);
        return { uri, mimeType: PROJECT_FILES[uri as ProjectUri].mimeType, text: file.text };
      } catch (e) {
        if (isToolError(e)) {
          const code = e.code === "resource_not_found"
            ? RpcCode.resourceNotFound
            : RpcCode.invalidRequest;
          throw new RpcError(code, e.message, { uri, code: e.code });
        }
        throw e;
      }
    },
  };
}
