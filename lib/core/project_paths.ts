/**
 * Fixed project files (resources) read safely: the canonical path must be a regular file inside
 * the canonical project root, and the file that is read must be the file that was checked.
 *
 * Closing the spec's "check then use" gap: the canonical path is decided (inside the canonical
 * root), then opened once by the safe open (`lstat`, `O_NOFOLLOW | O_NONBLOCK`: a symlink at the
 * path is refused, a FIFO opens without blocking), the open handle must be a regular file
 * (`fstat`) with the inode `lstat` saw, and where the opened file really is (the kernel's path of
 * the handle on Linux) must be the checked path. A file or folder swapped for a symlink at any
 * instant therefore reads nothing from outside. Bytes are read from the open handle only; nothing
 * is re-opened by path.
 */
import { isAbsolute, join, relative, resolve, sep } from "./path.ts";
import { ToolError } from "./errors.ts";
import {
  isHardLinked,
  type OpenedRegularFile,
  openRegularNoFollow,
  readHead,
  SafeOpenError,
} from "./safe_open.ts";

/** Resource reads return at most this many bytes of a file. */
export const MAX_RESOURCE_BYTES = 512 * 1024;
/** The upper bound a caller may ask for. */
const MAX_RESOURCE_BYTES_LIMIT = 8 * 1024 * 1024;

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

interface ProjectFileText {
  /** Canonical path. */
  path: string;
  text: string;
  /** The file's size in bytes. */
  bytes: number;
  truncated: boolean;
}

interface ReadProjectFileHooks {
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

interface ProjectFileBytes {
  /** Canonical path. */
  path: string;
  /** At most `maxBytes` bytes from the start of the file. */
  bytes: Uint8Array;
  /** The file's size in bytes. */
  size: number;
  /** Whether the file is longer than `maxBytes`. */
  truncated: boolean;
}

/**
 * Read at most `maxBytes` of a fixed project file safely (see the module comment): the bytes come
 * from a handle opened without following symlinks, that is a regular file, and that is where the
 * containment decision said.
 */
export async function readProjectBytes(
  root: string,
  relPath: string,
  maxBytes = MAX_RESOURCE_BYTES,
  hooks: ReadProjectFileHooks = {},
): Promise<ProjectFileBytes> {
  if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_RESOURCE_BYTES_LIMIT) {
    throw new RangeError(`maxBytes must be 1..${MAX_RESOURCE_BYTES_LIMIT}, got ${maxBytes}`);
  }
  const { path: checked, file } = await openProjectFile(root, relPath, hooks);
  try {
    const data = await readHead(file, maxBytes + 1);
    const truncated = data.length > maxBytes;
    return {
      path: checked,
      bytes: data,
      size: Math.max(file.size, data.length),
      truncated,
    };
  } finally {
    await file.close();
  }
}

/** Read a fixed project file's text safely (see the module comment); at most `maxBytes`. */
export async function readProjectFile(
  root: string,
  relPath: string,
  maxBytes = MAX_RESOURCE_BYTES,
  hooks: ReadProjectFileHooks = {},
): Promise<ProjectFileText> {
  const file = await readProjectBytes(root, relPath, maxBytes, hooks);
  const { text, truncated } = decodeBounded(file.bytes, file.size, maxBytes);
  return { path: file.path, text, bytes: file.size, truncated };
}

/** A project file with more than one name: another may be outside the project. */
function hardLinkedError(relPath: string, links: number): ToolError {
  return new ToolError(
    "invalid_request",
    `Cannot read project file ${relPath}: it has ${links} hard links, so it may be a file ` +
      "outside the project; replace the link with a copy of the file",
    { path: relPath },
  );
}

/**
 * Opens the checked canonical path without following a symlink and without blocking, refusing
 * anything but a regular file (see `lib/core/safe_open.ts`).
 */
async function openChecked(checked: string, relPath: string): Promise<OpenedRegularFile> {
  try {
    return await openRegularNoFollow(checked);
  } catch (e) {
    if (!(e instanceof SafeOpenError)) throw e;
    switch (e.reason) {
      case "missing":
      case "symlink":
      case "moved":
        throw changedError(relPath);
      case "not_regular":
        throw new ToolError(
          "invalid_request",
          `Cannot read project file ${relPath}: it is not a regular file`,
          { path: relPath },
        );
      default:
        throw new ToolError("io_error", `Cannot open project file ${relPath}: ${e.message}`);
    }
  }
}

/**
 * Opens a project file for a caller that reads more than `readProjectBytes` serves (an R8 mapping
 * of hundreds of MB), by the same rules: inside the canonical root, opened without following a
 * symlink, a regular file with one link, and the open handle where the check said. The caller reads from the
 * handle (bounded by `file.size`) and closes it.
 */
export async function openProjectFile(
  root: string,
  relPath: string,
  hooks: ReadProjectFileHooks = {},
): Promise<{ path: string; file: OpenedRegularFile }> {
  checkRelPath(relPath);
  const rootReal = await canonicalRoot(root);
  const checked = await resolveInside(rootReal, relPath);
  await hooks.afterCheck?.();
  const file = await openChecked(checked, relPath);
  try {
    if ((await file.locate()) !== checked) throw changedError(relPath);
    if (isHardLinked(file)) throw hardLinkedError(relPath, file.nlink);
  } catch (e) {
    await file.close();
    throw e;
  }
  return { path: checked, file };
}
