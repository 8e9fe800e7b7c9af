/**
 * What keynobi reads from a Gradle build without running it: the settings file (modules, custom
 * project folders, `rootProject.name`), which modules are Android applications, and where the
 * fixed project files that resources serve are. Kotlin DSL and Groovy alike.
 *
 * Parsing is pure and textual: it sees literal `include` calls and plugin declarations, not code
 * that computes them. Application modules are recognised by a plugin id (or a version-catalog
 * alias resolved through `gradle/libs.versions.toml`) that is `com.android.application` or ends
 * in `android.application` (convention plugins such as `nowinandroid.android.application`).
 */
import { join } from "../core/path.ts";
import { readProjectFile, resolveProjectFile } from "../core/project_paths.ts";
import { ToolError } from "../core/errors.ts";

/** Build and settings files larger than this are read only up to it. */
export const MAX_BUILD_FILE_BYTES = 1024 * 1024;
/** At most this many modules are reported. */
const MAX_MODULES = 500;

/** Replace comments with spaces (newlines kept), leaving string literals intact. Pure. */
export function stripComments(src: string): string {
  let out = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (c === "/" && next === "/") {
      while (i < src.length && src[i] !== "\n") {
        out += " ";
        i++;
      }
    } else if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end === -1 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (c === '"' && src.startsWith('"""', i)) {
      const end = src.indexOf('"""', i + 3);
      const stop = end === -1 ? src.length : end + 3;
      out += src.slice(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const STRING_RE = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'/g;

function stringLiterals(s: string): string[] {
  return [...s.matchAll(STRING_RE)].map((m) => m[1] ?? m[2]);
}

/** The text between the `(` at `open` and its matching `)`, skipping strings. */
function parenBody(src: string, open: number): string {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      i = j;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return src.slice(open + 1, i);
  }
  return src.slice(open + 1);
}

/** `app` or `:app` → `:app`; `a:b` → `:a:b`. */
export function normalizeProjectPath(name: string): string {
  return name.startsWith(":") ? name : `:${name}`;
}

interface SettingsInfo {
  rootProjectName: string | null;
  /** Gradle paths (`:app`, `:feature:home`), in order, without duplicates. */
  modules: string[];
  /** Folders set with `project(":x").projectDir = …`, relative to the root. */
  projectDirs: Record<string, string>;
}

/** Parse `settings.gradle.kts` or `settings.gradle`. Pure. */
export function parseSettings(text: string): SettingsInfo {
  const src = stripComments(text);
  const modules: string[] = [];
  const seen = new Set<string>();
  for (const m of src.matchAll(/(?<![\w.])include\b[ \t]*/g)) {
    const at = m.index + m[0].length;
    let args: string;
    if (src[at] === "(") args = parenBody(src, at);
    else {
      // Groovy command syntax: `include ':a', ':b'`, continued while a line ends with a comma.
      let end = src.indexOf("\n", at);
      if (end === -1) end = src.length;
      args = src.slice(at, end);
      while (args.trimEnd().endsWith(",") && end < src.length) {
        const nextEnd = src.indexOf("\n", end + 1);
        const stop = nextEnd === -1 ? src.length : nextEnd;
        args += src.slice(end, stop);
        end = stop;
      }
    }
    for (const name of stringLiterals(args)) {
      if (name === "" || name.includes("$")) continue;
      const path = normalizeProjectPath(name);
      if (!seen.has(path) && modules.length < MAX_MODULES) {
        seen.add(path);
        modules.push(path);
      }
    }
  }
  const projectDirs: Record<string, string> = {};
  const dirRe = new RegExp(
    String.raw`project\(\s*["']([^"']+)["']\s*\)\s*\.projectDir\s*=\s*` +
      String.raw`(?:file\(\s*["']([^"']+)["']\s*\)|(?:new\s+)?File\(\s*(?:rootDir|settingsDir|` +
      String.raw`rootProject\.projectDir)\s*,\s*["']([^"']+)["']\s*\))`,
    "g",
  );
  for (const m of src.matchAll(dirRe)) {
    const dir = (m[2] ?? m[3]).replace(/^\.\//, "").replace(/\/+$/, "");
    projectDirs[normalizeProjectPath(m[1])] = dir;
  }
  const name = /rootProject\.name\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)')/.exec(src);
  return { rootProjectName: name ? (name[1] ?? name[2]) : null, modules, projectDirs };
}

/** The folder of a module, relative to the root (`:a:b` → `a/b`, or its custom folder). Pure. */
export function moduleDir(path: string, projectDirs: Record<string, string> = {}): string {
  return projectDirs[path] ?? path.split(":").filter((p) => p !== "").join("/");
}

/** `[plugins]` of a version catalog: accessor (`android.application`) → plugin id. Pure. */
export function parseCatalogPlugins(toml: string): Map<string, string> {
  const out = new Map<string, string>();
  let inPlugins = false;
  for (const raw of toml.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "").trim();
    if (line.startsWith("[")) {
      inPlugins = line === "[plugins]";
      continue;
    }
    if (!inPlugins || line === "" || line.startsWith("#")) continue;
    const m = /^([\w.\-]+)\s*=\s*(.+)$/.exec(line);
    if (!m) continue;
    const id = /\bid\s*=\s*["']([^"']+)["']/.exec(m[2])?.[1] ??
      /^["']([^"':]+)(?::[^"']*)?["']$/.exec(m[2])?.[1];
    if (id) out.set(m[1].replace(/[-_]/g, "."), id);
  }
  return out;
}

interface PluginRefs {
  ids: string[];
  /** Catalog aliases as written after `libs.plugins.` (`android.application`). */
  aliases: string[];
}

/** Plugin ids and catalog aliases a build file applies. Pure. */
export function parsePlugins(text: string): PluginRefs {
  const src = stripComments(text);
  const ids = new Set<string>();
  const aliases = new Set<string>();
  // `id(…) version "x" apply false` (root build files) declares a plugin without applying it.
  const applied = (m: RegExpMatchArray) => {
    const end = src.indexOf("\n", m.index! + m[0].length);
    const rest = src.slice(m.index! + m[0].length, end === -1 ? src.length : end);
    return !/\bapply\s*\(?\s*false\b/.test(rest);
  };
  for (const m of src.matchAll(/(?<![\w.])id\s*\(?\s*["']([\w.\-]+)["']/g)) {
    if (applied(m)) ids.add(m[1]);
  }
  for (const m of src.matchAll(/\bapply\s*\(?\s*plugin\s*[:=]\s*["']([\w.\-]+)["']/g)) {
    ids.add(m[1]);
  }
  for (const m of src.matchAll(/\balias\s*\(\s*\w+\.plugins\.([\w.]+?)(?:\.get\(\))?\s*\)/g)) {
    if (applied(m)) aliases.add(m[1]);
  }
  return { ids: [...ids], aliases: [...aliases] };
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

/** `com.android.application` or a convention plugin ending in `android.application`. Pure. */
function isApplicationPluginId(id: string): boolean {
  return squash(id).endsWith("androidapplication");
}

/** Whether a build file applies the Android application plugin. Pure. */
export function isApplicationBuild(text: string, catalog = new Map<string, string>()): boolean {
  const { ids, aliases } = parsePlugins(text);
  if (ids.some(isApplicationPluginId)) return true;
  return aliases.some((alias) => {
    const id = catalog.get(alias.replace(/[-_]/g, "."));
    return isApplicationPluginId(id ?? alias);
  });
}

interface ModuleInfo {
  /** Gradle path: `:app`; `:` for the root project. */
  path: string;
  /** Folder relative to the root ("" for the root project). */
  dir: string;
  /** Its build file relative to the root, or `null` when it has none inside the project. */
  build_file: string | null;
  application: boolean;
}

/** Resource name → file relative to the root, or `null` when it is not served. */
interface ProjectFiles {
  manifest: string | null;
  "app-build-gradle": string | null;
  "build-gradle": string | null;
  "gradle-settings": string | null;
}

interface GradleProjectInfo {
  root: string;
  name: string;
  settings_file: string | null;
  modules: ModuleInfo[];
  application_modules: string[];
  files: ProjectFiles;
}

/** Read a project file's text through the resource checks; `null` when it is not served. */
async function readIfServed(root: string, rel: string): Promise<string | null> {
  try {
    return (await readProjectFile(root, rel, MAX_BUILD_FILE_BYTES)).text;
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

async function isServed(root: string, rel: string): Promise<boolean> {
  try {
    await resolveProjectFile(root, rel);
    return true;
  } catch (e) {
    if (e instanceof ToolError) return false;
    throw e;
  }
}

async function firstServed(root: string, rels: string[]): Promise<[string, string] | null> {
  for (const rel of rels) {
    const text = await readIfServed(root, rel);
    if (text !== null) return [rel, text];
  }
  return null;
}

const buildFileNames = (dir: string) =>
  ["build.gradle.kts", "build.gradle"].map((n) => dir === "" ? n : `${dir}/${n}`);

/**
 * Everything `get_project_info` and the resources need about the build at `root` (canonical).
 * Files reached through a symlink that leaves the project count as absent.
 */
export async function readGradleProject(root: string): Promise<GradleProjectInfo> {
  const settingsFile = await firstServed(root, ["settings.gradle.kts", "settings.gradle"]);
  const settings = settingsFile
    ? parseSettings(settingsFile[1])
    : { rootProjectName: null, modules: [], projectDirs: {} };
  const catalogText = await readIfServed(root, join("gradle", "libs.versions.toml"));
  const catalog = catalogText ? parseCatalogPlugins(catalogText) : new Map<string, string>();

  const modules: ModuleInfo[] = [];
  for (const path of settings.modules) {
    const dir = moduleDir(path, settings.projectDirs);
    const build = await firstServed(root, buildFileNames(dir));
    modules.push({
      path,
      dir,
      build_file: build?.[0] ?? null,
      application: build ? isApplicationBuild(build[1], catalog) : false,
    });
  }
  const rootBuild = await firstServed(root, buildFileNames(""));
  let applicationModules = modules.filter((m) => m.application).map((m) => m.path);
  if (applicationModules.length === 0 && rootBuild && isApplicationBuild(rootBuild[1], catalog)) {
    // A single-module build: the root project itself is the app.
    modules.unshift({ path: ":", dir: "", build_file: rootBuild[0], application: true });
    applicationModules = [":"];
  }

  const files: ProjectFiles = {
    manifest: null,
    "app-build-gradle": null,
    "build-gradle": rootBuild?.[0] ?? null,
    "gradle-settings": settingsFile?.[0] ?? null,
  };
  if (applicationModules.length === 1) {
    const app = modules.find((m) => m.path === applicationModules[0])!;
    files["app-build-gradle"] = app.build_file;
    const manifest = app.dir === ""
      ? "src/main/AndroidManifest.xml"
      : `${app.dir}/src/main/AndroidManifest.xml`;
    if (await isServed(root, manifest)) files.manifest = manifest;
  }
  const name = settings.rootProjectName ?? root.split(/[\\/]/).filter((p) => p !== "").pop() ??
    root;
  return {
    root,
    name,
    settings_file: settingsFile?.[0] ?? null,
    modules,
    application_modules: applicationModules,
    files,
  };
}
