/**
 * `<data dir>/mcp.sock`: claim it for this app, or learn that another instance owns it. A socket
 * file that answers belongs to a live instance and is left alone; one that does not answer is
 * stale and replaced; anything that is not a socket (a file, a folder, a symlink) is never
 * touched. The path must fit `sun_path`. The socket is made 0600 inside the 0700 data dir, which
 * is how peers of another uid are kept out: Deno does not expose the peer's credentials
 * (SO_PEERCRED / getpeereid), so the check is the socket's mode and the folder's.
 */
import { boundedWait } from "../core/abortable.ts";
import { attachSocketPath } from "../core/data_dir.ts";

/** `sun_path` holds this many bytes of path (the rest is the terminating NUL). */
const SUN_PATH_MAX_BYTES = Deno.build.os === "linux" ? 107 : 103;
/** How long a probe of an existing socket file waits for it to accept. */
const PROBE_TIMEOUT_MS = 1000;

export class SocketClaimError extends Error {
  constructor(message: string, readonly ownerPid: number | null = null) {
    super(message);
  }
}

export interface ClaimedSocket {
  path: string;
  listener: Deno.Listener<Deno.UnixConn, Deno.UnixAddr>;
  /** Close the listener and remove the socket file if it is still ours. */
  release(): Promise<void>;
}

async function answers(path: string): Promise<boolean> {
  const pending = Deno.connect({ transport: "unix", path });
  try {
    const c = await boundedWait(pending, PROBE_TIMEOUT_MS);
    if (c === undefined) {
      pending.then((x) => x.close(), () => {});
      // Accepting nothing within the probe: a hung instance still owns it.
      return true;
    }
    c.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Listen on the data dir's socket. `ownerPid` asks a live instance for its pid (for the message).
 * Throws `SocketClaimError` for a live instance, a path too long, or a file that is not a socket.
 */
export async function claimSocket(
  dataDir: string,
  ownerPid: () => Promise<number | null>,
): Promise<ClaimedSocket> {
  const path = attachSocketPath(dataDir);
  const bytes = new TextEncoder().encode(path).length;
  if (bytes > SUN_PATH_MAX_BYTES) {
    throw new SocketClaimError(
      `the attach socket path ${path} is ${bytes} bytes, over the ${SUN_PATH_MAX_BYTES}-byte ` +
        "limit of a Unix socket path: set KEYNOBI_HOME to a shorter folder",
    );
  }
  let existing: Deno.FileInfo | null = null;
  try {
    existing = await Deno.lstat(path);
  } catch { /* none */ }
  if (existing) {
    if (!existing.isSocket) {
      throw new SocketClaimError(
        `${path} exists and is not a socket (${
          existing.isSymlink ? "a symlink" : existing.isDirectory ? "a folder" : "a file"
        }): keynobi leaves it alone; move it away and start keynobi app again`,
      );
    }
    if (await answers(path)) {
      const pid = await ownerPid().catch(() => null);
      throw new SocketClaimError(
        `another keynobi app${pid ? ` (pid ${pid})` : ""} is already listening on ${path}; ` +
          "it keeps serving: stop it first to start this one",
        pid,
      );
    }
    await Deno.remove(path);
  }
  const listener = Deno.listen({ transport: "unix", path });
  await Deno.chmod(path, 0o600);
  const ours = await Deno.lstat(path);
  let released = false;
  return {
    path,
    listener,
    async release() {
      if (released) return;
      released = true;
      try {
        listener.close();
      } catch { /* closed */ }
      try {
        const now = await Deno.lstat(path);
        if (now.isSocket && now.ino === ours.ino && now.dev === ours.dev) await Deno.remove(path);
      } catch { /* gone */ }
    },
  };
}
