/**
 * Google's Android CLI (`android`), for information only: found on `PATH` and in its documented
 * install folders, version from the first line of `android --no-metrics --version`. keynobi runs
 * it for nothing else. Any `android` found counts (the retired SDK Tools script has that name too).
 */
import { join } from "../core/path.ts";
import type { Env } from "../core/env.ts";
import { homeDir } from "../core/data_dir.ts";
import { findExecutable, pathDirs, runProbe, TOOL_PROBE_TIMEOUT_MS } from "./jdk.ts";

const ANDROID_CLI_DOCS = "https://developer.android.com/tools/agents/android-cli";

export interface AndroidCliInfo {
  installed: boolean;
  /** Canonical path of the executable found. */
  path: string | null;
  version: string | null;
  docs: string;
  hint: string | null;
}

/** `PATH`, then `~/.local/bin`, `/usr/local/bin`, `/opt/homebrew/bin`. */
function androidCliDirs(env: Env): string[] {
  const home = homeDir(env);
  return [
    ...pathDirs(env),
    ...(home ? [join(home, ".local", "bin")] : []),
    "/usr/local/bin",
    "/opt/homebrew/bin",
  ];
}

/** First non-empty line of the version output, else `null`. Pure. */
export function firstLine(text: string): string | null {
  return text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ?? null;
}

export async function describeAndroidCli(
  env: Env,
  options: { dirs?: string[]; timeoutMs?: number } = {},
): Promise<AndroidCliInfo> {
  const found = await findExecutable("android", options.dirs ?? androidCliDirs(env));
  if (found === null) {
    return {
      installed: false,
      path: null,
      version: null,
      docs: ANDROID_CLI_DOCS,
      hint: `Android CLI is not installed (optional): see ${ANDROID_CLI_DOCS} to install it`,
    };
  }
  let path = found;
  try {
    path = await Deno.realPath(found);
  } catch { /* keep as found */ }
  const probe = await runProbe(
    path,
    ["--no-metrics", "--version"],
    options.timeoutMs ?? TOOL_PROBE_TIMEOUT_MS,
  );
  return {
    installed: true,
    path,
    version: probe.ok ? firstLine(probe.stdout) : null,
    docs: ANDROID_CLI_DOCS,
    hint: null,
  };
}
