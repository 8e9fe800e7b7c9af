/**
 * The R8 mappings builds leave behind, kept in `<data dir>/mappings/<sha256>.txt` so a crash of an
 * older install still retraces after the project was rebuilt or cleaned. A successful build copies
 * each `build/outputs/mapping/<variant>/mapping.txt` its application modules wrote (named by the
 * file's SHA-256, so two builds with the same mapping share one file) and lists it in its history
 * record (`mappings`: module, variant, map id, hash, size).
 *
 * Bounded: at most `MAX_KEPT_MAPPINGS` files and `MAX_KEPT_MAPPING_BYTES` in all, the least
 * recently used dropped first (a copy or an install touches its file); a mapping larger than
 * `MAX_MAPPING_FILE_BYTES` is not kept. Writers hold `mappings.lock` and write through a temporary
 * file renamed into place; readers open files by hash without the lock.
 */
import { join, relative } from "../../core/path.ts";
import { withFileLock, writeFileAtomic } from "../../core/file_lock.ts";
import { sha256Hex } from "../../core/hash.ts";
import { isInside, openProjectFile } from "../../core/project_paths.ts";
import { readAt } from "../../core/file_read.ts";
import { log } from "../../core/log.ts";
import { MAX_MAPPING_BYTES, readMappingHeader } from "./mapping_file.ts";

/** Mapping files kept at most. */
export const MAX_KEPT_MAPPINGS = 40;
/** Bytes of mapping files kept at most, in all. */
const MAX_KEPT_MAPPING_BYTES = 2 * 1024 * 1024 * 1024;
/** A mapping larger than this is not kept (nor read: lib/retrace/mapping_cache.ts). */
const MAX_MAPPING_FILE_BYTES = MAX_MAPPING_BYTES;
/** Mappings one build record lists at most. */
export const MAX_MAPPINGS_PER_BUILD = 16;
/** Entries walked under one module's `build/outputs/mapping` at most. */
const MAX_MAPPING_WALK_ENTRIES = 1_000;

const mappingsDir = (dataDir: string) => join(dataDir, "mappings");
const mappingsLockPath = (dataDir: string) => join(dataDir, "mappings.lock");
export const mappingFilePath = (dataDir: string, sha256: string) =>
  join(mappingsDir(dataDir), `${sha256}.txt`);

/** A kept mapping as a build record lists it. */
export interface BuildMapping {
  /** `:app` */
  module: string;
  variant: string;
  /** `pg_map_id` from the mapping's header; `null` when it has none (ProGuard, old R8). */
  map_id: string | null;
  sha256: string;
  bytes: number;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Whether `s` is a SHA-256 in lower-case hex. Pure. */
export function isSha256(s: unknown): s is string {
  return typeof s === "string" && SHA256.test(s);
}

/** The `mapping.txt` files under `moduleDirs` written at or after `sinceMs` (epoch ms). */
export async function findBuiltMappings(
  root: string,
  moduleDirs: readonly string[],
  sinceMs: number,
): Promise<BuiltMapping[]> {
  const out: BuiltMapping[] = [];
  for (const moduleDir of moduleDirs) {
    const base = join(root, moduleDir, "build", "outputs", "mapping");
    let entries: Deno.DirEntry[];
    try {
      entries = (await Array.fromAsync(Deno.readDir(base))).slice(0, MAX_MAPPING_WALK_ENTRIES);
    } catch {
      continue;
    }
    for (const e of entries) {
      if (!e.isDirectory) continue;
      const path = join(base, e.name, "mapping.txt");
      if (!isInside(root, path)) continue;
      const st = await Deno.lstat(path).catch(() => null);
      // A second of slack: some file systems keep whole-second modification times.
      if (!st?.isFile || !st.mtime || st.mtime.getTime() < sinceMs - 1000) continue;
      out.push({
        module: moduleDir === "" ? ":" : `:${moduleDir.replaceAll("/", ":")}`,
        variant: e.name,
        root,
        path,
      });
      if (out.length >= MAX_MAPPINGS_PER_BUILD) return out;
    }
  }
  return out;
}

/** A mapping a build wrote: in project `root`, at `path` under a module's build outputs. */
interface BuiltMapping {
  module: string;
  variant: string;
  root: string;
  path: string;
}

/**
 * Copies the mapping at `path` into the store (unless a file with its hash is there) and prunes
 * the store. Returns what a build record lists, or `null` (with a warning) when it is too large
 * or cannot be read. It is read like every project file (lib/core/project_paths.ts): a
 * `build/outputs/mapping` symlinked out of the project, a hard link, a FIFO are not read.
 */
export async function keepMapping(
  dataDir: string,
  found: BuiltMapping,
): Promise<BuildMapping | null> {
  const opened = await openProjectFile(found.root, relative(found.root, found.path)).catch((e) => {
    log.warn(`Not keeping the R8 mapping ${found.path}: ${(e as Error).message}`);
    return null;
  });
  if (opened === null) return null;
  const { file } = opened;
  let data: Uint8Array | null;
  try {
    if (file.size > MAX_MAPPING_FILE_BYTES) {
      log.warn(
        `Not keeping the R8 mapping ${found.path}: it is ${file.size} bytes, more than ` +
          `${MAX_MAPPING_FILE_BYTES}; crashes of this build will not retrace`,
      );
      return null;
    }
    data = await readAt(file, 0, file.size + 1).catch(() => null);
  } finally {
    await file.close();
  }
  if (!data || data.length > MAX_MAPPING_FILE_BYTES) return null;
  const sha256 = await sha256Hex(data);
  const header = readMappingHeader(new TextDecoder().decode(data.subarray(0, 16 * 1024)));
  await withFileLock(mappingsLockPath(dataDir), async () => {
    await Deno.mkdir(mappingsDir(dataDir), { recursive: true, mode: 0o700 });
    const target = mappingFilePath(dataDir, sha256);
    const have = await Deno.stat(target).then((s) => s.isFile, () => false);
    if (have) {
      const now = new Date();
      await Deno.utime(target, now, now).catch(() => {});
    } else await writeFileAtomic(target, data);
    await pruneLocked(dataDir);
  });
  return {
    module: found.module,
    variant: found.variant,
    map_id: header.mapId,
    sha256,
    bytes: data.length,
  };
}

/** Marks a kept mapping as just used (an install of its build), so pruning keeps it longest. */
export async function touchMapping(dataDir: string, sha256: string): Promise<void> {
  if (!isSha256(sha256)) return;
  const now = new Date();
  await Deno.utime(mappingFilePath(dataDir, sha256), now, now).catch(() => {});
}

/** Whether the mapping with this hash is still kept. */
export async function hasMapping(dataDir: string, sha256: string): Promise<boolean> {
  if (!isSha256(sha256)) return false;
  return await Deno.stat(mappingFilePath(dataDir, sha256)).then((s) => s.isFile, () => false);
}

/** Which kept files to drop: beyond `maxCount` or `maxBytes`, least recently used first. Pure. */
export function mappingsToDrop(
  files: readonly { name: string; bytes: number; mtimeMs: number }[],
  maxCount = MAX_KEPT_MAPPINGS,
  maxBytes = MAX_KEPT_MAPPING_BYTES,
): string[] {
  const newest = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs);
  const drop: string[] = [];
  let count = 0;
  let bytes = 0;
  for (const f of newest) {
    if (count + 1 > maxCount || bytes + f.bytes > maxBytes) {
      drop.push(f.name);
      continue;
    }
    count++;
    bytes += f.bytes;
  }
  return drop;
}

async function pruneLocked(dataDir: string): Promise<void> {
  const dir = mappingsDir(dataDir);
  const files: { name: string; bytes: number; mtimeMs: number }[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isFile || !/^[0-9a-f]{64}\.txt$/.test(e.name)) continue;
    const st = await Deno.stat(join(dir, e.name)).catch(() => null);
    if (st) files.push({ name: e.name, bytes: st.size, mtimeMs: st.mtime?.getTime() ?? 0 });
  }
  for (const name of mappingsToDrop(files)) await Deno.remove(join(dir, name)).catch(() => {});
}
