/**
 * The APK an install may use: a regular `.apk` whose canonical path lies under an application
 * module's build outputs (`<module>/build/outputs/`) inside the canonical project root. The file
 * that is installed is the file that was checked: it is opened once without following a symlink
 * and without blocking (`lib/core/safe_open.ts`), must be a regular file where the check said, is
 * refused over `MAX_APK_BYTES` or without the ZIP signature before anything else is read, and is
 * returned open: its bytes are read from that handle only, by position and in chunks (no second
 * open by path, no check-then-use gap, never the whole APK in memory).
 */
import { isAbsolute, join, relative, resolve, sep } from "../core/path.ts";
import { invalidParams, ToolError } from "../core/errors.ts";
import { isInside } from "../core/project_paths.ts";
import { MAX_APK_BYTES } from "../android/apk.ts";
import {
  isHardLinked,
  type OpenedRegularFile,
  openRegularNoFollow,
  readHead,
  SafeOpenError,
} from "../core/safe_open.ts";

/** The local file header signature every ZIP (and so every APK) starts with. */
const ZIP_LOCAL_MAGIC: readonly number[] = [0x50, 0x4b, 0x03, 0x04];

/** Longest `apk_path` accepted. */
const MAX_APK_PATH_CHARS = 4_096;

export interface CheckedApk {
  /** Canonical path. */
  path: string;
  /** Relative to the project root. */
  relative: string;
  /** The application module's Gradle path (`:app`). */
  module: string;
  /**
   * The open, checked file: everything reads from it by position (the manifest's entries, the
   * hash, the install stream), so the APK is never held in memory whole. Close it when done.
   */
  file: OpenedRegularFile;
  size: number;
}

/** Application modules: Gradle path and folder relative to the root (`""` for the root). */
export interface AppModuleDir {
  path: string;
  dir: string;
}

/**
 * Which application module's `build/outputs/` holds `canonical`, or `null`. Pure: both paths
 * canonical.
 */
export function outputsModuleOf(
  rootReal: string,
  canonical: string,
  modules: readonly AppModuleDir[],
): AppModuleDir | null {
  for (const m of modules) {
    const outputs = join(rootReal, m.dir, "build", "outputs");
    const rel = relative(outputs, canonical);
    if (rel !== "" && !isAbsolute(rel) && rel.split(sep)[0] !== "..") return m;
  }
  return null;
}

function refuse(apkPath: string, why: string): ToolError {
  return invalidParams(
    `Cannot install ${JSON.stringify(apkPath)}: ${why}; pass an .apk from an application ` +
      "module's build/outputs/ (find_apk_path gives it)",
    { apk_path: apkPath },
  );
}

/** Checks `apkPath` (relative to the project or absolute) and reads the checked file. */
export async function openCheckedApk(
  root: string,
  apkPath: string,
  modules: readonly AppModuleDir[],
  hooks: { afterCheck?: () => Promise<void> | void } = {},
): Promise<CheckedApk> {
  if (apkPath.length === 0 || apkPath.length > MAX_APK_PATH_CHARS || apkPath.includes("\0")) {
    throw refuse(apkPath.slice(0, 200), "the path is empty, too long or holds a NUL");
  }
  const rootReal = await Deno.realPath(root);
  const given = isAbsolute(apkPath) ? apkPath : resolve(rootReal, apkPath);
  let canonical: string;
  try {
    canonical = await Deno.realPath(given);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw refuse(apkPath, "no such file");
    throw refuse(apkPath, `it cannot be resolved (${(e as Error).message})`);
  }
  if (!isInside(rootReal, canonical)) {
    throw refuse(apkPath, `it resolves outside the project (${canonical})`);
  }
  if (!canonical.endsWith(".apk")) throw refuse(apkPath, "it is not an .apk file");
  const module = outputsModuleOf(rootReal, canonical, modules);
  if (module === null) {
    throw refuse(
      apkPath,
      `${relative(rootReal, canonical)} is not under an application module's build outputs (${
        modules.map((m) => join(m.dir, "build", "outputs")).join(", ") || "no application module"
      })`,
    );
  }
  await hooks.afterCheck?.();
  let file: OpenedRegularFile;
  try {
    file = await openRegularNoFollow(canonical);
  } catch (e) {
    if (!(e instanceof SafeOpenError)) throw e;
    if (e.reason === "not_regular") throw refuse(apkPath, "it is not a regular file");
    if (e.reason === "missing" || e.reason === "symlink" || e.reason === "moved") {
      throw refuse(apkPath, "it changed while it was being opened (try again)");
    }
    throw new ToolError(
      "io_error",
      `Cannot open ${canonical}: ${e.message}; rebuild the APK and retry`,
    );
  }
  let ok = false;
  try {
    if ((await file.locate()) !== canonical) {
      throw refuse(apkPath, "it changed while it was being opened (try again)");
    }
    if (isHardLinked(file)) {
      throw refuse(
        apkPath,
        `it has ${file.nlink} hard links, so it may be a file outside the project (rebuild it)`,
      );
    }
    // The size bound and the ZIP signature are checked before the file is read.
    if (file.size > MAX_APK_BYTES) {
      throw refuse(apkPath, `it is ${file.size} bytes, over the ${MAX_APK_BYTES}-byte limit`);
    }
    const head = await readHead(file, ZIP_LOCAL_MAGIC.length);
    if (head.length < ZIP_LOCAL_MAGIC.length || !ZIP_LOCAL_MAGIC.every((b, i) => head[i] === b)) {
      throw refuse(apkPath, "it is not an APK (it does not start with the ZIP signature PK\\3\\4)");
    }
    ok = true;
    return {
      path: canonical,
      relative: relative(rootReal, canonical),
      module: module.path,
      file,
      size: file.size,
    };
  } finally {
    if (!ok) await file.close();
  }
}
