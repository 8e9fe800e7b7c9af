/**
 * Trust: which Gradle builds keynobi may build and deploy, stored in `settings.json`
 * (lib/core/settings.ts) under their canonical Gradle root (lib/project/project_root.ts).
 *
 * Trusting a subfolder of a Gradle build trusts the build's root (that is what runs `gradlew`); a
 * nested build with its own settings file is a different root and needs its own trust. No MCP tool
 * calls the trust writers: only `keynobi trust`. Read on every use, never cached, so `keynobi trust`
 * applies to a running server at once.
 */
import { resolve } from "../core/path.ts";
import { invalidParams, type ToolError } from "../core/errors.ts";
import { readSettings, type Settings, updateSettings } from "../core/settings.ts";
import { findGradleRoot, trustKeyFor } from "./project_root.ts";

/** At most this many trusted projects are kept; trusting one more is refused. */
const MAX_TRUSTED_PROJECTS = 500;

/** Whether the Gradle build at (or containing) `root` is trusted. Reads the file every time. */
export async function isTrusted(dataDir: string, root: string): Promise<boolean> {
  return await isTrustedIn(await readSettings(dataDir), root);
}

/** Whether the Gradle build at (or containing) `root` is trusted in settings already read. */
export async function isTrustedIn(settings: Settings, root: string): Promise<boolean> {
  return Object.hasOwn(settings.trusted_projects, await trustKeyFor(root));
}

/**
 * The refusal of a build of an untrusted project: the one message, whether the main thread refuses
 * the call or the build worker refuses the request when it checks again before spawning.
 */
export function untrustedBuildError(root: string): ToolError {
  return invalidParams(
    `The project ${root} is not trusted, so keynobi will not run its Gradle build (that runs ` +
      `its gradlew and build scripts): ask the user to run \`keynobi trust ${root}\` in a ` +
      "terminal. Tools that do not build keep working",
    { trust_hint: `keynobi trust ${root}` },
  );
}

interface TrustResult {
  /** The canonical Gradle root that is now trusted. */
  root: string;
  alreadyTrusted: boolean;
}

/**
 * Trust the Gradle build at or above `path`. Only `keynobi trust` calls this: no MCP tool can.
 * Throws when `path` is not a folder or is in no Gradle build.
 */
export async function trustProject(dataDir: string, path: string): Promise<TrustResult> {
  const abs = resolve(path);
  let info: Deno.FileInfo | null = null;
  try {
    info = await Deno.stat(abs);
  } catch { /* reported below */ }
  if (info === null || !info.isDirectory) {
    throw new Error(`Cannot trust ${abs}: it is not an existing folder; pass the project's folder`);
  }
  const root = await findGradleRoot(abs);
  if (root === null) {
    throw new Error(
      `Cannot trust ${abs}: it is not in a Gradle build (no settings.gradle.kts or ` +
        "settings.gradle in it or a parent folder); pass the Android project's folder",
    );
  }
  let alreadyTrusted = false;
  await updateSettings(dataDir, (s) => {
    if (Object.hasOwn(s.trusted_projects, root)) {
      alreadyTrusted = true;
      return;
    }
    if (Object.keys(s.trusted_projects).length >= MAX_TRUSTED_PROJECTS) {
      throw new Error(
        `Cannot trust ${root}: ${MAX_TRUSTED_PROJECTS} projects are already trusted; ` +
          "untrust some with `keynobi untrust <path>` first",
      );
    }
    s.trusted_projects[root] = { trusted_at: new Date().toISOString() };
  });
  return { root, alreadyTrusted };
}

/**
 * Revoke trust for `path` (its Gradle root, its canonical path, or the path as written, so a
 * deleted project can be untrusted). Returns the keys removed; empty when it was not trusted.
 */
export async function untrustProject(dataDir: string, path: string): Promise<string[]> {
  const abs = resolve(path);
  const candidates = new Set([abs, await trustKeyFor(abs)]);
  const removed: string[] = [];
  const current = await readSettings(dataDir, { warn: () => {} });
  if (![...candidates].some((c) => Object.hasOwn(current.trusted_projects, c))) return removed;
  await updateSettings(dataDir, (s) => {
    for (const key of candidates) {
      if (Object.hasOwn(s.trusted_projects, key)) {
        delete s.trusted_projects[key];
        removed.push(key);
      }
    }
  });
  return removed;
}

interface TrustedProject {
  root: string;
  trusted_at: string;
  /** Whether the folder still exists. */
  exists: boolean;
}

interface ProjectList {
  projects: TrustedProject[];
  last_active_project: string | null;
}

/** Trusted projects, sorted by path, and the last active project. */
export async function listProjects(dataDir: string): Promise<ProjectList> {
  const settings = await readSettings(dataDir);
  const projects: TrustedProject[] = [];
  for (const root of Object.keys(settings.trusted_projects).sort()) {
    let exists = false;
    try {
      exists = (await Deno.stat(root)).isDirectory;
    } catch { /* gone */ }
    projects.push({ root, trusted_at: settings.trusted_projects[root].trusted_at, exists });
  }
  return { projects, last_active_project: settings.last_active_project ?? null };
}
