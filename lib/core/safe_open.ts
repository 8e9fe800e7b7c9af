/**
 * Open a file that was checked by path so that what is read is provably what was checked.
 *
 * `openRegularNoFollow(path)` first `lstat`s the path: a symlink as the last component is refused
 * (`symlink`), and so is anything but a regular file (a folder, a FIFO, a device: `not_regular`),
 * before anything is opened. It then opens once with `O_NOFOLLOW | O_NONBLOCK`, `fstat`s the
 * handle, refuses anything but a regular file, and refuses a handle whose device and inode are not
 * the ones `lstat` saw (`moved`: the path was swapped between the two). `O_NONBLOCK` means a FIFO
 * or device swapped in after the `lstat` opens without waiting for a writer.
 *
 * Why `lstat` and not `O_NOFOLLOW` alone: unless Deno runs with `--allow-all`, its permission
 * layer resolves every symlink in a path (one `readlink` per component) and opens the resolved
 * target, with the flags unchanged, so `O_NOFOLLOW` applies to the target and never fails. That is
 * the case under `RUN_FLAGS` (lib/cli/permissions.ts) and in every worker with narrowed
 * permissions. Under `--allow-all` the open itself refuses a symlink (`ELOOP`); elsewhere a swap
 * after the `lstat` opens the target, whose inode differs.
 *
 * `locate()` names where the open file really is: on Linux the kernel's own path of the handle
 * (`/proc/<pid>/fd/N`, read by a `readlink` child because Deno reserves `/proc/self` for
 * `--allow-all`), which no swap of a folder or file can fake; elsewhere (no `/proc`, or no
 * `readlink`) the path is checked again after the open — `lstat` must be a regular file with the
 * handle's device and inode, and the path must resolve to itself — which narrows a folder swap to
 * a window but cannot close it.
 *
 * Deno's own `Deno.open` has neither flag, so this uses `node:fs` (loaded on first use, not at
 * start-up). Bytes are read from the handle only; nothing is re-opened by path.
 */
import type { FileHandle } from "node:fs/promises";
import { readAt } from "./file_read.ts";
import { runCommand } from "./run_command.ts";

type NodeFs = typeof import("node:fs");
let fsModule: NodeFs | null = null;

async function nodeFs(): Promise<NodeFs> {
  fsModule ??= await import("node:fs");
  return fsModule;
}

/** Why an open was refused. */
type OpenRefusal =
  | "missing"
  | "symlink"
  | "not_regular"
  | "moved"
  | "denied"
  | "io";

export class SafeOpenError extends Error {
  constructor(readonly reason: OpenRefusal, message: string) {
    super(message);
    this.name = "SafeOpenError";
  }
}

/** A regular file opened without following symlinks. */
export interface OpenedRegularFile {
  /** The path it was opened by. */
  readonly path: string;
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
  /**
   * Hard links to the file. More than one means another name may be outside the folder it was
   * checked in: project reads refuse it (`refuseHardLinked`).
   */
  readonly nlink: number;
  /** Read up to `buf.length` bytes at `position` (or at the current offset); 0 at the end. */
  read(buf: Uint8Array, position?: number): Promise<number>;
  /**
   * Where the open file is now: the kernel's path of the handle (Linux), or, where the system has
   * no such path, `path` after checking it still names the handle's file. `null` when the file is
   * no longer at a path that names it (removed, replaced, moved through a symlink).
   */
  locate(): Promise<string | null>;
  close(): Promise<void>;
}

function codeOf(e: unknown): string {
  return (e as { code?: string }).code ?? "";
}

type NodeStats = Awaited<ReturnType<NodeFs["promises"]["lstat"]>>;

/** The refusal for an error of `lstat` or `open` on `path`. */
function refusalOf(e: unknown, path: string): SafeOpenError {
  const code = codeOf(e);
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new SafeOpenError("missing", `${path} does not exist`);
  }
  if (code === "ELOOP" || code === "EMLINK") {
    return new SafeOpenError("symlink", `${path} is a symlink`);
  }
  if (code === "EACCES" || code === "EPERM") {
    return new SafeOpenError("denied", `${path} cannot be read (${code})`);
  }
  if (code === "EISDIR") return new SafeOpenError("not_regular", `${path} is a folder`);
  return new SafeOpenError("io", `${path} cannot be opened: ${(e as Error).message}`);
}

/** The refusal for what `st` describes, `null` for a regular file. */
function notRegular(st: NodeStats, path: string): SafeOpenError | null {
  if (st.isFile()) return null;
  const what = st.isSymbolicLink()
    ? "a symlink"
    : st.isDirectory()
    ? "a folder"
    : st.isFIFO()
    ? "a FIFO"
    : st.isSocket()
    ? "a socket"
    : st.isCharacterDevice() || st.isBlockDevice()
    ? "a device"
    : "not a regular file";
  return new SafeOpenError(st.isSymbolicLink() ? "symlink" : "not_regular", `${path} is ${what}`);
}

/** Opens `path` (see the module comment); throws `SafeOpenError`. */
export async function openRegularNoFollow(path: string): Promise<OpenedRegularFile> {
  const fs = await nodeFs();
  const c = fs.constants;
  // What is at the path itself: Deno opens the target of a symlink unless run with --allow-all.
  let before: NodeStats;
  try {
    before = await fs.promises.lstat(path);
  } catch (e) {
    throw refusalOf(e, path);
  }
  const refused = notRegular(before, path);
  if (refused) throw refused;
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(path, c.O_RDONLY | c.O_NOFOLLOW | c.O_NONBLOCK);
  } catch (e) {
    throw refusalOf(e, path);
  }
  let ok = false;
  try {
    const st = await handle.stat();
    const swapped = notRegular(st, path);
    if (swapped) throw swapped;
    if (st.dev !== before.dev || st.ino !== before.ino) {
      throw new SafeOpenError("moved", `${path} was replaced while it was being opened`);
    }
    const opened = new NodeOpenedFile(path, handle, st.size, st.dev, st.ino, st.nlink);
    ok = true;
    return opened;
  } finally {
    if (!ok) await handle.close().catch(() => {});
  }
}

class NodeOpenedFile implements OpenedRegularFile {
  constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    readonly size: number,
    readonly dev: number,
    readonly ino: number,
    readonly nlink: number,
  ) {}

  async read(buf: Uint8Array, position?: number): Promise<number> {
    const r = await this.handle.read(buf, 0, buf.length, position ?? null);
    return r.bytesRead;
  }

  async locate(): Promise<string | null> {
    const kernelPath = await kernelPathOfFd(this.handle.fd);
    if (kernelPath !== null) {
      // Linux appends " (deleted)" to a removed file's path.
      return kernelPath.startsWith("/") && !kernelPath.endsWith(" (deleted)") ? kernelPath : null;
    }
    // No kernel path (not Linux, or no way to read it): the path must still name this file.
    try {
      const st = await Deno.lstat(this.path);
      if (!st.isFile || st.dev !== this.dev || st.ino !== this.ino) return null;
      return (await Deno.realPath(this.path)) === this.path ? this.path : null;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => {});
  }
}

/** Longest kernel path we accept from `readlink`. */
const MAX_KERNEL_PATH_BYTES = 64 * 1024;
/** How long the `readlink` child may take. */
const READLINK_TIMEOUT_MS = 5_000;

/**
 * The kernel's path of our open fd, `/proc/<pid>/fd/<fd>` (Linux), or `null` where it cannot be
 * read. Deno lets only `--allow-all` read `/proc/self`, and we launch with explicit `--allow-*`
 * lists, so the link is read by a `readlink` child (run access to `readlink`), as
 * `lib/mcp/session_records.ts` does for `/proc/<pid>/exe`.
 */
async function kernelPathOfFd(fd: number): Promise<string | null> {
  if (Deno.build.os !== "linux") return null;
  const link = `/proc/${Deno.pid}/fd/${fd}`;
  try {
    return await Deno.readLink(link);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotCapable)) return null;
  }
  // One byte over the bound is read, so a longer path is seen to be longer and refused.
  const out = await runCommand("readlink", ["-n", "--", link], {
    timeoutMs: READLINK_TIMEOUT_MS,
    maxOutputBytes: MAX_KERNEL_PATH_BYTES + 1,
  });
  if (out.code !== 0 || out.stdout === "") return null;
  return new TextEncoder().encode(out.stdout).length > MAX_KERNEL_PATH_BYTES ? null : out.stdout;
}

/**
 * Whether `file` has more than one name: a hard link made inside a project to a file outside it
 * passes every path check (its path is inside, and it is no symlink), so project reads refuse it.
 */
export function isHardLinked(file: OpenedRegularFile): boolean {
  return file.nlink > 1;
}

/** Reads up to `limit` bytes from the start of `file`. */
export function readHead(file: OpenedRegularFile, limit: number): Promise<Uint8Array> {
  return readAt(file, 0, limit);
}
