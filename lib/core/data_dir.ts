/**
 * The data directory: `KEYNOBI_HOME`, else `~/.keynobi`, mode 0700. Every file keynobi shares
 * between processes (trust, build history, locks, activity, sessions, the attach socket) lives
 * here, so the names are defined once.
 */
import { join, resolve } from "./path.ts";
import type { Env } from "./env.ts";

/** The user's home folder from `HOME` (POSIX) or `USERPROFILE` (Windows), else `null`. */
export function homeDir(env: Env): string | null {
  const home = env.get("HOME") || env.get("USERPROFILE");
  return home ? home : null;
}

/** `KEYNOBI_HOME` when set, else `<home>/.keynobi`; an absolute path. */
export function resolveDataDir(env: Env): string {
  const override = env.get("KEYNOBI_HOME");
  if (override) return resolve(override);
  const home = homeDir(env);
  if (home === null) {
    throw new Error(
      "Cannot find the data directory: neither KEYNOBI_HOME nor HOME (USERPROFILE) is set; " +
        "set KEYNOBI_HOME to a folder keynobi may use",
    );
  }
  return join(resolve(home), ".keynobi");
}

/** Create the data directory (mode 0700); tighten it when it exists with looser permissions. */
export async function ensureDataDir(path: string): Promise<string> {
  await Deno.mkdir(path, { recursive: true, mode: 0o700 });
  if (Deno.build.os === "windows") return path;
  const info = await Deno.stat(path);
  if (!info.isDirectory) {
    throw new Error(`Cannot use the data directory: ${path} is not a folder; move it away`);
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) await Deno.chmod(path, 0o700);
  return path;
}

export const settingsPath = (dataDir: string) => join(dataDir, "settings.json");
/** The lock file that serializes writers of `settings.json` across processes. */
export const settingsLockPath = (dataDir: string) => join(dataDir, "settings.lock");
export const buildHistoryPath = (dataDir: string) => join(dataDir, "build-history.json");
export const buildLocksDir = (dataDir: string) => join(dataDir, "build-locks");
export const uiAutomatorLocksDir = (dataDir: string) => join(dataDir, "ui-automator-locks");
export const installedBuildsPath = (dataDir: string) => join(dataDir, "installed-builds.json");
export const debugSessionsDir = (dataDir: string) => join(dataDir, "debug-sessions");
export const activityLogPath = (dataDir: string) => join(dataDir, "mcp-activity.jsonl");
export const sessionsDir = (dataDir: string) => join(dataDir, "mcp-sessions");
export const attachSocketPath = (dataDir: string) => join(dataDir, "mcp.sock");
