/**
 * The APKs a build wrote: every `output-metadata.json` under the application modules'
 * `build/outputs/apk/` that changed since the build started, with its APKs hashed (SHA-256), so
 * the history can say exactly which file a build produced.
 */
import { dirname, join, relative } from "../../core/path.ts";
import { sha256Hex } from "../../core/hash.ts";
import {
  MAX_METADATA_DEPTH,
  MAX_OUTPUT_METADATA_BYTES,
  OUTPUT_METADATA,
  parseOutputMetadata,
} from "../../project/apk_outputs.ts";
import { isInside, readProjectBytes } from "../../core/project_paths.ts";

/** Most APKs one build record lists. */
const MAX_RECORDED_APKS = 32;
/** Largest APK we hash (bigger ones are recorded without a hash). */
const MAX_HASHED_APK_BYTES = 1024 * 1024 * 1024;
/** Entries walked per module before giving up. */
const MAX_APK_WALK_ENTRIES = 5_000;

/** An APK a build wrote, as collected here and as its build record keeps it. */
export interface BuiltApk {
  module: string;
  variant: string;
  /** Relative to the project root. */
  path: string;
  /** `null` when the APK could not be hashed. */
  sha256: string | null;
  bytes: number;
  application_id: string | null;
  /**
   * SHA-256 of the `output-metadata.json` this APK was found through, as the build read it; the
   * package scope counts a build output's id only when its metadata hashes to a recorded one.
   * Always set when collected; records read back have `null` where it was not written.
   */
  metadata_sha256?: string | null;
}

export async function sha256File(path: string): Promise<string> {
  return await sha256Hex(await Deno.readFile(path));
}

async function* metadataFiles(
  dir: string,
  depth: number,
  budget: { left: number },
): AsyncGenerator<string> {
  if (depth > MAX_METADATA_DEPTH) return;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch {
    return;
  }
  for (const e of entries) {
    if (--budget.left < 0) return;
    if (e.isSymlink) continue;
    const path = join(dir, e.name);
    if (e.isFile && e.name === OUTPUT_METADATA) yield path;
    else if (e.isDirectory) yield* metadataFiles(path, depth + 1, budget);
  }
}

/** APKs under `moduleDirs` whose metadata changed at or after `sinceMs` (epoch ms). */
export async function collectBuiltApks(
  root: string,
  moduleDirs: readonly string[],
  sinceMs: number,
): Promise<BuiltApk[]> {
  const out: BuiltApk[] = [];
  for (const moduleDir of moduleDirs) {
    const base = join(root, moduleDir, "build", "outputs", "apk");
    const budget = { left: MAX_APK_WALK_ENTRIES };
    for await (const meta of metadataFiles(base, 0, budget)) {
      const info = await Deno.stat(meta).catch(() => null);
      // A second of slack: some file systems keep whole-second modification times.
      if (!info?.mtime || info.mtime.getTime() < sinceMs - 1000) continue;
      const raw = await readProjectBytes(root, relative(root, meta), MAX_OUTPUT_METADATA_BYTES)
        .catch(() => null);
      if (raw === null || raw.truncated) continue;
      const parsed = parseOutputMetadata(new TextDecoder().decode(raw.bytes));
      if (!parsed) continue;
      const metadataSha = await sha256Hex(raw.bytes);
      for (const el of parsed.elements) {
        const apk = join(dirname(meta), el.outputFile);
        if (!isInside(root, apk)) continue;
        const st = await Deno.lstat(apk).catch(() => null);
        if (!st?.isFile) continue;
        out.push({
          module: moduleDir === "" ? ":" : `:${moduleDir.replaceAll("/", ":")}`,
          variant: parsed.variantName,
          path: relative(root, apk),
          sha256: st.size <= MAX_HASHED_APK_BYTES ? await sha256File(apk) : null,
          bytes: st.size,
          application_id: parsed.applicationId,
          metadata_sha256: metadataSha,
        });
        if (out.length >= MAX_RECORDED_APKS) return out;
      }
    }
  }
  return out;
}
