/**
 * Cross-process exclusive locks on a lock file (`flock` through `Deno.FsFile.lock`), and the
 * write-to-temp-then-rename that every shared file in the data directory uses.
 */
import { dirname } from "./path.ts";

/** Run `fn` while holding an exclusive lock on `lockPath` (created, mode 0600, if missing). */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T> | T,
  opts: { dirReady?: boolean } = {},
): Promise<T> {
  // `dirReady`: the caller made the folder already (saves a mkdir on hot paths); if it has gone
  // since, it is made again.
  const mkdir = () => Deno.mkdir(dirname(lockPath), { recursive: true, mode: 0o700 });
  if (!opts.dirReady) await mkdir();
  const open = () => Deno.open(lockPath, { read: true, write: true, create: true, mode: 0o600 });
  let file: Deno.FsFile;
  try {
    file = await open();
  } catch (e) {
    if (!opts.dirReady || !(e instanceof Deno.errors.NotFound)) throw e;
    await mkdir();
    file = await open();
  }
  try {
    await file.lock(true);
    try {
      return await fn();
    } finally {
      await file.unlock();
    }
  } finally {
    file.close();
  }
}

/** Replace `path` with `data` atomically: write a unique temp file beside it, then rename. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const tmp = `${path}.${Deno.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    if (typeof data === "string") await Deno.writeTextFile(tmp, data, { mode });
    else await Deno.writeFile(tmp, data, { mode });
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}
