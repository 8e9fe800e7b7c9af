/**
 * Fixed project files (resources) read safely: the canonical path must be a regular file inside
 * the canonical project root, and the file that is read must be the file that was checked.
 *
 * Closing the spec's "check then use" gap: after checking, the file is opened and the open handle
 * is compared (device + inode) with the checked file, and the path is resolved again and must be
 * unchanged. A folder swapped for a symlink between check and open therefore opens some other
 * inode, or resolves elsewhere, and is refused. Bytes are read from the open handle only.
 *
 * Remaining limit: Deno cannot open with O_NONBLOCK, so a regular file replaced by a FIFO in the
 * instant between the check and the open would block that read until a writer appears.
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "./errors.ts";

/** Resource reads return at most this many bytes of a file. */
export const MAX_RESOURCE_BYTES = 512 * 1024;
/** The upper bound a caller may ask for. */
export const MAX_RESOURCE_BYTES_LIMIT = 8 * 1024 * 1024;

/**
 * The canonical path of `path` (symlinks resolved), or, when it cannot be resolved (it does not
 * exist, or is not readable), its absolute path. The key projects are stored under.
 */
export async function canonicalPathOrResolved(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return resolve(path);
  }
}

/** Whether `path` is `root` or inside it; both canonical. Pure. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel.split(sep)[0] !== "..");
}

function checkRelPath(relPath: string): void {
  if (relPath === "" || isAbsolute(relPath) || relPath.split(/[\\/]/).includes("..")) {
    throw new ToolError(
      "invalid_request",
      `Cannot read project file ${relPath}: the path must be relative to the project and stay in it`,
    );
  }
}

async function canonicalRoot(root: string): Promise<string> {
  try {
    return await Deno.realPath(root);
  } catch (e) {
    throw new ToolError(
      "resource_not_found",
      `Cannot read the project at ${root}: ${(e as Error).message}; open an existing project`,
    );
  }
}

async function resolveInside(rootReal: string, relPath: string): Promise<string> {
  let real: string;
  try {
    real = await Deno.realPath(join(rootReal, relPath));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new ToolError(
        "resource_not_found",
        `Project file ${relPath} does not exist in ${rootReal}`,
        { path: relPath },
      );
    }
    throw new ToolError(
      "io_error",
      `Cannot resolve project file ${relPath}: ${(e as Error).message}`,
    );
  }
  if (!isInside(rootReal, real)) {
    throw new ToolError(
      "invalid_request",
      `Cannot read project file ${relPath}: it resolves outside the project (${real}); ` +
        "only files inside the project are served",
      { path: relPath },
    );
  }
  return real;
}

/**
 * The canonical path of `relPath` under `root`; a regular file inside the canonical root.
 * Outside (through a symlink) → `invalid_request`; missing → `resource_not_found`.
 */
export async function resolveProjectFile(root: string, relPath: string): Promise<string> {
  checkRelPath(relPath);
  const rootReal = await canonicalRoot(root);
  const real = await resolveInside(rootReal, relPath);
  const info = await Deno.stat(real);
  if (!info.isFile) {
    throw new ToolError(
      "invalid_request",
      `Cannot read project file ${relPath}: it is not a regular file`,
      { path: relPath },
    );
  }
  return real;
}

export interface ProjectFileText {
  /** Canonical path. */
  path: string;
  text: string;
  /** The file's size in bytes. */
  bytes: number;
  truncated: boolean;
}

export interface ReadProjectFileHooks {
  /** Runs between the check and the open (tests swap files here). */
  afterCheck?: () => Promise<void> | void;
}

function changedError(relPath: string): ToolError {
  return new ToolError(
    "invalid_request",
    `Cannot read project file ${relPath}: it changed while it was being opened; try again`,
    { path: relPath },
  );
}

/** Cut `bytes` at `max` without splitting a UTF-8 sequence. Pure. */
export function utf8CutPoint(bytes: Uint8Array, max: number): number {
  if (bytes.length <= max) return bytes.length;
  let cut = max;
  // Back up over continuation bytes (10xxxxxx), at most 3, to the start of a sequence.
  for (let i = 0; i < 3 && cut > 0 && (bytes[cut] & 0xc0) === 0x80; i++) cut--;
  return cut;
}

/** Decode with U+FFFD for invalid UTF-8, cut at `maxBytes` with a final note. Pure. */
export function decodeBounded(
  data: Uint8Array,
  fileBytes: number,
  maxBytes: number,
): { text: string; truncated: boolean } {
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
  if (data.length <= maxBytes) {
    return { text: decoder.decode(data), truncated: false };
  }
  const cut = utf8CutPoint(data, maxBytes);
  const size = Math.max(fileBytes, data.length);
  const text = decoder.decode(data.subarray(0, cut)) +
    `\n[truncated: the file is ${size} bytes; showing the first ${cut}]`;
  return { text, truncated: true };
}

/** Read a fixed project file safely (see the module comment); at most `maxBytes`. */
export async function readProjectFile(
  root: string,
  relPath: string,
  maxBytes = MAX_RESOURCE_BYTES,
  hooks: ReadProjectFileHooks = {},
): Promise<ProjectFileText> {
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_RESOURCE_BYTES_LIMIT) {
    throw new RangeError(`maxBytes must be 1..${MAX_RESOURCE_BYTES_LIMIT}, got ${maxBytes}`);
  }
  const checked = await resolveProjectFile(root, relPath);
  const rootReal = await canonicalRoot(root);
  const before = await Deno.stat(checked);
  await hooks.afterCheck?.();
  let file: Deno.FsFile;
  try {
    file = await Deno.open(checked, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw changedError(relPath);
    throw new ToolError("io_error", `Cannot open project file ${relPath}: ${(e as Error).message}`);
  }
  try {
    const opened = await file.stat();
    if (!opened.isFile || opened.dev !== before.dev || opened.ino !== before.ino) {
      throw changedError(relPath);
    }
    let again: string;
    try {
      again = await resolveInside(rootReal, relPath);
    } catch {
      throw changedError(relPath);
    }
    if (again !== checked || (await Deno.realPath(root).catch(() => "")) !== rootReal) {
      throw changedError(relPath);
    }
    const limit = maxBytes + 1;
    const buf = new Uint8Array(limit);
    let filled = 0;
    while (filled < limit) {
      const n = await file.read(buf.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    const data = buf.subarray(0, filled);
    const { text, truncated } = decodeBounded(data, opened.size, maxBytes);
    return { path: checked, text, bytes: Math.max(opened.size, filled), truncated };
  } finally {
    file.close();
  }
}
