/**
 * Reading a mapping file for the retrace worker, through the safe open (lib/core/safe_open.ts):
 * never following a symlink, only a regular file (a FIFO or device swapped in is refused without
 * blocking), bounded by `MAX_MAPPING_BYTES` before a byte is read, bytes read from the open
 * handle only. A kept mapping is `<data dir>/mappings/<sha256>.txt`; a project's mapping goes
 * through the project-path rules (lib/core/project_paths.ts `openProjectFile`).
 */
import { ToolError } from "../core/errors.ts";
import { isAbsolute, relative, resolve } from "../core/path.ts";
import { openProjectFile } from "../core/project_paths.ts";
import { type OpenedRegularFile, openRegularNoFollow, SafeOpenError } from "../core/safe_open.ts";
import { MAX_MAPPING_BYTES } from "./shared/mapping_file.ts";
import { isSha256, mappingFilePath } from "./shared/mapping_store.ts";
import type { MappingRef } from "./shared/retrace_protocol.ts";

/** An opened mapping: its cache key, size, a description for messages, and its reader. */
interface OpenedMapping {
  key: string;
  bytes: number;
  what: string;
  read(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** Reads all of `file` (its `size`, at most `max`), from the handle. */
async function readWhole(file: OpenedRegularFile, max: number): Promise<Uint8Array> {
  if (file.size > max) {
    throw new RangeError(`${file.path} is ${file.size} bytes, more than ${max}`);
  }
  const buf = new Uint8Array(file.size);
  let off = 0;
  while (off < buf.length) {
    const n = await file.read(buf.subarray(off), off);
    if (n === 0) break;
    off += n;
  }
  // A file that shrank while read: what is there.
  return off === buf.length ? buf : buf.slice(0, off);
}

/** The cache key of a kept mapping: its content's hash, so a cached one needs no open. */
export function keptKey(sha256: string): string {
  return `kept:${sha256}`;
}

/** A file's key: its path and identity; rewritten in place, its size or modification time. */
async function fileKey(path: string, file: OpenedRegularFile): Promise<string> {
  const mtime = (await Deno.stat(path).catch(() => null))?.mtime?.getTime() ?? 0;
  return `file:${path}:${file.dev}:${file.ino}:${file.size}:${mtime}`;
}

function opened(file: OpenedRegularFile, key: string, what: string): OpenedMapping {
  return {
    key,
    bytes: file.size,
    what,
    read: () => readWhole(file, MAX_MAPPING_BYTES),
    close: () => file.close(),
  };
}

function safeOpenRefusal(e: unknown, what: string): never {
  if (e instanceof SafeOpenError) {
    if (e.reason === "missing") {
      throw new ToolError("resource_not_found", `${what} does not exist`);
    }
    throw new ToolError(
      e.reason === "io" || e.reason === "denied" ? "io_error" : "invalid_request",
      `Cannot read ${what}: ${e.message}`,
    );
  }
  throw e;
}

/** The project path `path` as the project-path rules take it: relative to the project root. */
function relativeToRoot(root: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(resolve(root), resolve(path));
  if (rel === "" || isAbsolute(rel) || rel.split(/[\\/]/)[0] === "..") {
    throw new ToolError(
      "invalid_params",
      `Cannot read the mapping ${path}: it is outside the project ${root}; pass a path inside ` +
        "the project (e.g. app/build/outputs/mapping/release/mapping.txt)",
      { path },
    );
  }
  return rel;
}

/** Opens the mapping `ref` names (see the module comment). */
export async function openMapping(dataDir: string, ref: MappingRef): Promise<OpenedMapping> {
  if (ref.kind === "kept") {
    if (!isSha256(ref.sha256)) {
      throw new ToolError("invalid_params", "A kept mapping is named by its SHA-256 in hex");
    }
    const what = `the kept mapping ${ref.sha256.slice(0, 12)}…`;
    try {
      const file = await openRegularNoFollow(mappingFilePath(dataDir, ref.sha256));
      return opened(file, keptKey(ref.sha256), what);
    } catch (e) {
      safeOpenRefusal(e, what);
    }
  }
  if (ref.kind === "project") {
    const rel = relativeToRoot(ref.root, ref.path);
    const { path, file } = await openProjectFile(ref.root, rel);
    return opened(file, await fileKey(path, file), `the mapping ${rel}`);
  }
  const what = `the mapping ${ref.path}`;
  try {
    const path = resolve(ref.path);
    const file = await openRegularNoFollow(path);
    return opened(file, await fileKey(path, file), what);
  } catch (e) {
    safeOpenRefusal(e, what);
  }
}
