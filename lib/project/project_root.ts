/**
 * Which project a session serves (spec "Modes"): `--project`, else the Gradle build that contains
 * the client's working directory, else the last active project from settings, else none.
 */
import { dirname, join, resolve } from "../core/path.ts";
import { isDirectory, isFile } from "../core/file_kind.ts";
import { canonicalPathOrResolved } from "../core/project_paths.ts";
import { readSettings, updateSettings } from "../core/settings.ts";

const SETTINGS_FILE_NAMES = ["settings.gradle.kts", "settings.gradle"] as const;

/** How far up `findGradleRoot` walks before it gives up (a bound, not a real-world limit). */
const MAX_ROOT_SEARCH_DEPTH = 64;

export interface ProjectSelection {
  /** Canonical Gradle root (or the canonical folder itself when it has no Gradle build). */
  root: string;
  /** The absolute path that was asked for, before resolving the Gradle root. */
  requested: string;
  selectedBy: "argument" | "working_directory" | "last_active_project";
}

/** Whether `dir` itself holds `settings.gradle.kts` or `settings.gradle`. */
async function hasGradleSettings(dir: string): Promise<boolean> {
  for (const name of SETTINGS_FILE_NAMES) {
    if (await isFile(join(dir, name))) return true;
  }
  return false;
}

/**
 * The nearest folder, `start` itself or a parent, with a Gradle settings file, as a canonical
 * path; `null` when there is none or `start` does not exist.
 */
export async function findGradleRoot(start: string): Promise<string | null> {
  let dir: string;
  try {
    dir = await Deno.realPath(resolve(start));
    if (!(await Deno.stat(dir)).isDirectory) dir = dirname(dir);
  } catch {
    return null;
  }
  for (let depth = 0; depth < MAX_ROOT_SEARCH_DEPTH; depth++) {
    if (await hasGradleSettings(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

/** The key a path is trusted under: its canonical Gradle root, else its canonical path. */
export async function trustKeyFor(path: string): Promise<string> {
  const abs = resolve(path);
  const root = await findGradleRoot(abs);
  return root ?? await canonicalPathOrResolved(abs);
}

/** The Gradle root containing `path`, else the canonical folder itself; `null` if not a folder. */
export async function projectRootFor(path: string): Promise<string | null> {
  const abs = resolve(path);
  if (!(await isDirectory(abs))) return null;
  return (await findGradleRoot(abs)) ?? await Deno.realPath(abs);
}

interface SelectProjectOptions {
  /** `--project`, relative to `cwd` when not absolute. */
  argument?: string;
  cwd: string;
  dataDir: string;
  /** Fall back to settings' `last_active_project` (standalone servers). Default true. */
  useLastActive?: boolean;
}

/**
 * Pick the session's project. An `argument` that is not an existing folder is an Error whose
 * message the CLI prints before exiting with status 2.
 */
export async function selectProject(
  options: SelectProjectOptions,
): Promise<ProjectSelection | null> {
  if (options.argument !== undefined) {
    const requested = resolve(options.cwd, options.argument);
    const root = await projectRootFor(requested);
    if (root === null) {
      throw new Error(
        `Cannot use --project ${options.argument}: ${requested} is not an existing folder; ` +
          "pass the Android project's folder",
      );
    }
    return { root, requested, selectedBy: "argument" };
  }
  const cwd = resolve(options.cwd);
  const fromCwd = await findGradleRoot(cwd);
  if (fromCwd !== null) return { root: fromCwd, requested: cwd, selectedBy: "working_directory" };
  if (options.useLastActive === false) return null;
  const last = (await readSettings(options.dataDir)).last_active_project;
  if (last === undefined) return null;
  const root = await projectRootFor(last);
  return root === null ? null : { root, requested: last, selectedBy: "last_active_project" };
}

/** Remember `root` (canonicalized) as the project a standalone server falls back to. */
export async function setLastActiveProject(dataDir: string, root: string): Promise<string> {
  const key = await trustKeyFor(root);
  // Every server start calls this: no write (and no lock) when it is already the one.
  if ((await readSettings(dataDir, { warn: () => {} })).last_active_project === key) return key;
  await updateSettings(dataDir, (s) => {
    s.last_active_project = key;
  });
  return key;
}
