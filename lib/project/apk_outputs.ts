/**
 * Built APKs, found where AGP writes them: `<module>/build/outputs/apk/<flavors>/<buildType>/`,
 * with `output-metadata.json` (AGP 4.1+, `version` 3) naming the variant, the application id and
 * each output file. A variant is matched exactly: metadata for another variant in the same folder
 * is never taken for this one. Every path is resolved canonically and must be a regular file
 * inside the project, so a symlink out of the project is never returned.
 */
import { relative } from "../core/path.ts";
import { ToolError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { parseJsonRecord } from "../core/json.ts";
import {
  isInside,
  readProjectBytes,
  readProjectFile,
  resolveProjectFile,
} from "../core/project_paths.ts";
import type { AndroidModel } from "./android_model.ts";
import { canonicalRoot, validateVariant, type Variant } from "./variants.ts";

/** `output-metadata.json` files larger than this are not read. */
export const MAX_OUTPUT_METADATA_BYTES = 256 * 1024;
/** At most this many elements of one metadata file are considered. */
const MAX_METADATA_ELEMENTS = 64;
/** At most this many entries of an output folder are looked at. */
const MAX_APK_DIR_ENTRIES = 1_000;
/** `listBuiltApplicationIds` reads at most this many metadata files. */
const MAX_METADATA_FILES = 100;
/** … and walks at most this deep below `build/outputs/apk` (flavors nest one level each). */
export const MAX_METADATA_DEPTH = 6;
/** … and looks at most at this many folder entries in all. */
const MAX_WALK_ENTRIES = 5_000;

export const OUTPUT_METADATA = "output-metadata.json";

interface OutputElement {
  outputFile: string;
  versionCode: number | null;
  versionName: string | null;
}

interface OutputMetadata {
  variantName: string;
  applicationId: string | null;
  elements: OutputElement[];
}

const APPLICATION_ID_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

/** Parse `output-metadata.json`; null when it is not one. Pure. */
export function parseOutputMetadata(text: string): OutputMetadata | null {
  const raw = parseJsonRecord(text);
  if (raw === null) return null;
  const o = raw;
  if (typeof o.variantName !== "string" || !Array.isArray(o.elements)) return null;
  const elements: OutputElement[] = [];
  for (const e of o.elements.slice(0, MAX_METADATA_ELEMENTS)) {
    if (typeof e !== "object" || e === null) continue;
    const el = e as Record<string, unknown>;
    if (typeof el.outputFile !== "string" || el.outputFile === "") continue;
    elements.push({
      outputFile: el.outputFile,
      versionCode: typeof el.versionCode === "number" && Number.isInteger(el.versionCode)
        ? el.versionCode
        : null,
      versionName: typeof el.versionName === "string" ? el.versionName : null,
    });
  }
  const id = typeof o.applicationId === "string" && APPLICATION_ID_RE.test(o.applicationId)
    ? o.applicationId
    : null;
  return { variantName: o.variantName, applicationId: id, elements };
}

type ApkResult =
  | {
    found: true;
    variant: string;
    /** Relative to the (canonical) project root. */
    path: string;
    /** Canonical absolute path. */
    absolute_path: string;
    application_id: string | null;
    version_code: number | null;
    version_name: string | null;
    /** Whether `output-metadata.json` named this APK. */
    output_metadata: boolean;
  }
  | { found: false; variant: string; reason: string };

/** The folders AGP may write a variant's APKs to, relative to the root. Pure. */
export function apkDirsFor(moduleDir: string, variant: Variant): string[] {
  const base = `${moduleDir === "" ? "" : `${moduleDir}/`}build/outputs/apk`;
  if (variant.flavors.length === 0) return [`${base}/${variant.build_type}`];
  const combined = variant.flavors[0] +
    variant.flavors.slice(1).map((f) => f[0].toUpperCase() + f.slice(1)).join("");
  const dirs = [`${base}/${combined}/${variant.build_type}`];
  const nested = `${base}/${variant.flavors.join("/")}/${variant.build_type}`;
  if (!dirs.includes(nested)) dirs.push(nested);
  return dirs;
}

/** A folder inside the project (canonically); else why not. */
async function projectDirOrWhy(
  rootReal: string,
  rel: string,
): Promise<{ dir: string } | { why: string }> {
  let real: string;
  try {
    real = await Deno.realPath(`${rootReal}/${rel}`);
  } catch {
    return { why: `${rel} does not exist` };
  }
  if (!isInside(rootReal, real)) return { why: `${rel} resolves outside the project` };
  try {
    if ((await Deno.stat(real)).isDirectory) return { dir: real };
  } catch { /* reported below */ }
  return { why: `${rel} is not a folder` };
}

async function projectDir(rootReal: string, rel: string): Promise<string | null> {
  const r = await projectDirOrWhy(rootReal, rel);
  return "dir" in r ? r.dir : null;
}

async function readMetadata(root: string, rel: string): Promise<OutputMetadata | "invalid" | null> {
  let text: string;
  try {
    const file = await readProjectFile(root, rel, MAX_OUTPUT_METADATA_BYTES);
    if (file.truncated) return "invalid";
    text = file.text;
  } catch (e) {
    if (e instanceof ToolError && e.code === "resource_not_found") return null;
    if (e instanceof ToolError) return "invalid";
    throw e;
  }
  return parseOutputMetadata(text) ?? "invalid";
}

/** A file inside the project, canonically, regular; else null. */
async function projectFile(root: string, rel: string): Promise<string | null> {
  try {
    return await resolveProjectFile(root, rel);
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}

interface FindApkOptions {
  /** The module's model (from `readAndroidModel`); its `dir` locates the outputs. */
  model: AndroidModel & { dir: string };
  variant: string;
  /** Only used in messages; defaults to the model's module. */
  module?: string;
}

interface Match {
  rel: string;
  abs: string;
  applicationId: string | null;
  versionCode: number | null;
  versionName: string | null;
  metadata: boolean;
}

/** The APK of exactly one variant of a module, or why there is none (see the module comment). */
// deno-lint-ignore house/long-function -- one walk; each step adds to what was seen and why not
export async function findApk(root: string, options: FindApkOptions): Promise<ApkResult> {
  const { model } = options;
  const variant = validateVariant(model, options.variant);
  const module = options.module ?? model.module;
  const rootReal = await canonicalRoot(root);
  const seen: string[] = [];
  const matches = new Map<string, Match>();

  for (const dirRel of apkDirsFor(model.dir, variant)) {
    const found = await projectDirOrWhy(rootReal, dirRel);
    if ("why" in found) {
      seen.push(found.why);
      continue;
    }
    const dir = found.dir;
    const meta = await readMetadata(rootReal, `${dirRel}/${OUTPUT_METADATA}`);
    if (meta === "invalid") seen.push(`${dirRel}/${OUTPUT_METADATA} is not valid output metadata`);
    if (meta !== null && meta !== "invalid") {
      if (meta.variantName !== variant.name) {
        seen.push(`${dirRel}/${OUTPUT_METADATA} is for variant ${meta.variantName}`);
        continue;
      }
      for (const el of meta.elements) {
        const rel = `${dirRel}/${el.outputFile}`;
        if (el.outputFile.split(/[\\/]/).includes("..") || el.outputFile.startsWith("/")) {
          seen.push(`${OUTPUT_METADATA} lists ${el.outputFile}, which leaves the folder`);
          continue;
        }
        const abs = await projectFile(rootReal, rel);
        if (abs === null) {
          seen.push(`${rel} is listed in ${OUTPUT_METADATA} but is missing or not a file`);
          continue;
        }
        matches.set(abs, {
          rel,
          abs,
          applicationId: meta.applicationId,
          versionCode: el.versionCode,
          versionName: el.versionName,
          metadata: true,
        });
      }
      if (meta.elements.length === 0) seen.push(`${dirRel}/${OUTPUT_METADATA} lists no APK`);
      continue;
    }
    // No metadata (older AGP, or deleted): the folder's own APKs.
    let count = 0;
    const apks: string[] = [];
    for await (const entry of Deno.readDir(dir)) {
      if (++count > MAX_APK_DIR_ENTRIES) break;
      if (entry.name.endsWith(".apk")) apks.push(entry.name);
    }
    apks.sort();
    if (apks.length === 0) seen.push(`${dirRel} has no APK`);
    for (const name of apks) {
      const rel = `${dirRel}/${name}`;
      const abs = await projectFile(rootReal, rel);
      if (abs === null) {
        seen.push(`${rel} is not a regular file inside the project`);
        continue;
      }
      matches.set(abs, {
        rel,
        abs,
        applicationId: variant.application_id,
        versionCode: model.version_code,
        versionName: model.version_name,
        metadata: false,
      });
    }
  }

  const list = [...matches.values()];
  if (list.length === 1) {
    const m = list[0];
    return {
      found: true,
      variant: variant.name,
      path: relative(rootReal, m.abs),
      absolute_path: m.abs,
      application_id: m.applicationId,
      version_code: m.versionCode,
      version_name: m.versionName,
      output_metadata: m.metadata,
    };
  }
  if (list.length === 0) {
    return {
      found: false,
      variant: variant.name,
      reason: `No APK of variant ${variant.name} in module ${module}: ${seen.join("; ")}; ` +
        `build it with ${variant.assemble_task}`,
    };
  }
  return {
    found: false,
    variant: variant.name,
    reason: `${list.length} APKs match variant ${variant.name} in module ${module} ` +
      `(${list.map((m) => m.rel).join(", ")}): splits or leftovers; pick one of these paths ` +
      `or clean and rebuild with ${variant.assemble_task}`,
  };
}

/**
 * The `applicationId` of every `output-metadata.json` under the given modules'
 * `build/outputs/apk/` (bounded by `MAX_METADATA_FILES`, `MAX_METADATA_DEPTH`,
 * `MAX_WALK_ENTRIES`). Symlinked folders are not followed.
 */
/** One `output-metadata.json` with an application id, and the SHA-256 of its bytes. */
interface BuiltOutput {
  application_id: string;
  /** Relative to the project root. */
  path: string;
  sha256: string;
}

/**
 * Every `output-metadata.json` under the modules' `build/outputs/apk/` (bounded walk, read
 * through the project-file checks) that names an application id, with its hash.
 */
export async function listBuiltOutputs(
  root: string,
  modules: ReadonlyArray<{ dir: string }>,
): Promise<BuiltOutput[]> {
  const rootReal = await canonicalRoot(root);
  const out: BuiltOutput[] = [];
  let files = 0;
  let entries = 0;
  const walk = async (rel: string, depth: number): Promise<void> => {
    const dir = await projectDir(rootReal, rel);
    if (dir === null) return;
    const subdirs: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (++entries > MAX_WALK_ENTRIES) return;
        if (entry.isDirectory && !entry.isSymlink) subdirs.push(entry.name);
        else if (entry.name === OUTPUT_METADATA && files < MAX_METADATA_FILES) {
          files++;
          const path = `${rel}/${entry.name}`;
          const raw = await readMetadataBytes(rootReal, path);
          if (raw === null) continue;
          const meta = parseOutputMetadata(decoder.decode(raw));
          if (meta?.applicationId) {
            out.push({
              application_id: meta.applicationId,
              path,
              sha256: await sha256Hex(raw),
            });
          }
        }
      }
    } catch {
      return;
    }
    if (depth >= MAX_METADATA_DEPTH) return;
    for (const name of subdirs.sort()) await walk(`${rel}/${name}`, depth + 1);
  };
  for (const m of modules) {
    await walk(`${m.dir === "" ? "" : `${m.dir}/`}build/outputs/apk`, 1);
  }
  return out;
}

/** The application ids of `listBuiltOutputs`, each once. */
export async function listBuiltApplicationIds(
  root: string,
  modules: ReadonlyArray<{ dir: string }>,
): Promise<string[]> {
  return [...new Set((await listBuiltOutputs(root, modules)).map((o) => o.application_id))];
}

const decoder = new TextDecoder();

async function readMetadataBytes(root: string, rel: string): Promise<Uint8Array | null> {
  try {
    const file = await readProjectBytes(root, rel, MAX_OUTPUT_METADATA_BYTES);
    return file.truncated ? null : file.bytes;
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
}
