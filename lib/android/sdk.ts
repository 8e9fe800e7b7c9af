/**
 * Android SDK discovery: settings `sdk_path`, `ANDROID_HOME`, `ANDROID_SDK_ROOT`, the project's
 * `local.properties` `sdk.dir` (ONLY for a trusted project: an untrusted clone must not choose
 * which `adb` keynobi runs), then the default install folders.
 */
import { join } from "../core/path.ts";
import { isDirectory } from "../core/file_kind.ts";
import type { Env } from "../core/env.ts";
import { homeDir } from "../core/data_dir.ts";
import type { Settings } from "../core/settings.ts";
import { readProjectProperties } from "../core/properties.ts";
import { findExecutable } from "./jdk.ts";

/** At most this many entries of `platforms/`, `build-tools/` or `cmdline-tools/` are listed. */
const MAX_SDK_ENTRIES = 200;

type SdkSource =
  | "settings"
  | "ANDROID_HOME"
  | "ANDROID_SDK_ROOT"
  | "localProperties"
  | "default";

export interface SdkInfo {
  ok: boolean;
  path: string | null;
  source: SdkSource | null;
  /** `android-35`, … newest first. */
  platforms: string[];
  /** `35.0.0`, … newest first. */
  build_tools: string[];
  adb_path: string | null;
  hint: string | null;
}

interface FindSdkOptions {
  env: Env;
  settings: Settings;
  /** Canonical project root; its `local.properties` is read only when `trusted`. */
  projectRoot?: string | null;
  trusted?: boolean;
  /** Default install folders; tests pass their own. */
  defaults?: string[];
}

function defaultSdkLocations(env: Env): string[] {
  const home = homeDir(env);
  const out: string[] = [];
  if (home) out.push(join(home, "Android", "Sdk"), join(home, "Library", "Android", "sdk"));
  const localAppData = env.get("LOCALAPPDATA");
  if (localAppData) out.push(join(localAppData, "Android", "Sdk"));
  return out;
}

/** Compare dotted versions numerically, newest first (`35.0.0` before `34.0.1`). Pure. */
export function compareVersionsDesc(a: string, b: string): number {
  const pa = a.split(/[^0-9]+/).filter((x) => x !== "").map(Number);
  const pb = b.split(/[^0-9]+/).filter((x) => x !== "").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pb[i] ?? -1) - (pa[i] ?? -1);
    if (d !== 0) return d;
  }
  return b.localeCompare(a);
}

async function listDirNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (names.length >= MAX_SDK_ENTRIES) break;
      if ((e.isDirectory || e.isSymlink) && !e.name.startsWith(".")) names.push(e.name);
    }
  } catch { /* missing */ }
  return names;
}

/** Where the SDK is and what it holds. Never runs anything. */
export async function findSdk(options: FindSdkOptions): Promise<SdkInfo> {
  const candidates: Array<{ path: string; source: SdkSource }> = [];
  if (options.settings.sdk_path) {
    candidates.push({ path: options.settings.sdk_path, source: "settings" });
  }
  for (const name of ["ANDROID_HOME", "ANDROID_SDK_ROOT"] as const) {
    const v = options.env.get(name);
    if (v) candidates.push({ path: v, source: name });
  }
  if (options.projectRoot && options.trusted) {
    const dir = (await readProjectProperties(options.projectRoot, "local.properties"))
      ?.get("sdk.dir")?.trim();
    if (dir) candidates.push({ path: dir, source: "localProperties" });
  }
  for (const path of options.defaults ?? defaultSdkLocations(options.env)) {
    candidates.push({ path, source: "default" });
  }
  const skipped: string[] = [];
  for (const { path, source } of candidates) {
    if (!(await isDirectory(path))) {
      if (source !== "default") skipped.push(`${source} points to ${path}, which is not a folder`);
      continue;
    }
    const platforms = (await listDirNames(join(path, "platforms")))
      .sort((a, b) => compareVersionsDesc(a, b));
    const buildTools = (await listDirNames(join(path, "build-tools"))).sort(compareVersionsDesc);
    const adb = await findExecutable("adb", [join(path, "platform-tools")]);
    const looksLikeSdk = platforms.length > 0 || buildTools.length > 0 || adb !== null;
    const missing: string[] = [];
    if (adb === null) missing.push('"platform-tools"');
    if (platforms.length === 0) missing.push('"platforms;android-<api>"');
    if (buildTools.length === 0) missing.push('"build-tools;<version>"');
    let hint: string | null = null;
    if (!looksLikeSdk) {
      hint = `${path} (from ${source}) does not look like an Android SDK: it has no ` +
        "platform-tools, platforms or build-tools; point sdk_path or ANDROID_HOME at the SDK";
    } else if (missing.length > 0) {
      hint = `The SDK lacks ${missing.join(", ")}: install with sdkmanager or Android Studio's ` +
        "SDK Manager";
    }
    if (skipped.length > 0) hint = `${skipped.join("; ")}. ${hint ?? ""}`.trim();
    return {
      ok: looksLikeSdk,
      path,
      source,
      platforms,
      build_tools: buildTools,
      adb_path: adb,
      hint,
    };
  }
  return {
    ok: false,
    path: null,
    source: null,
    platforms: [],
    build_tools: [],
    adb_path: null,
    hint: (skipped.length > 0 ? `${skipped.join("; ")}. ` : "") +
      "No Android SDK found: install it with Android Studio (or the command-line tools) and set " +
      "ANDROID_HOME, or sdk_path in keynobi's settings.json",
  };
}
