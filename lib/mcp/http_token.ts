/**
 * The install's HTTP bearer token: `<data dir>/http-token`, 64 hex characters, mode 0600 in the
 * 0700 data directory. Streamable HTTP on loopback requires it unless the user opts out
 * (`--http-no-token` / `KEYNOBI_HTTP_NO_TOKEN=1`, for single-user machines): a loopback port is
 * reachable by every local user, the attach socket's 0600 mode is not. `keynobi setup` prints it
 * in the registration lines. Created once (written to a private temporary file, then linked into
 * place, so a concurrent reader sees the whole token or none), read without following a symlink,
 * regular files only, bounded.
 */
import { dirname, join } from "../core/path.ts";
import { hexOf } from "../core/hash.ts";
import { openRegularNoFollow, readHead, SafeOpenError } from "../core/safe_open.ts";

export const HTTP_TOKEN_FILE = "http-token";
/** Random bytes in a generated token (64 hex characters). */
export const HTTP_TOKEN_BYTES = 32;
/** Longest token file read (a token, a newline, some slack). */
const MAX_TOKEN_FILE_BYTES = 256;
/** The environment variable that opts out of the loopback token. */
export const HTTP_NO_TOKEN_ENV = "KEYNOBI_HTTP_NO_TOKEN";

export const httpTokenPath = (dataDir: string) => join(dataDir, HTTP_TOKEN_FILE);

const TOKEN = /^[0-9a-f]{64}$/;

/** Read the install's token, creating it first when there is none. Throws an actionable Error. */
export async function installHttpToken(dataDir: string): Promise<string> {
  const path = httpTokenPath(dataDir);
  const existing = await readToken(path);
  if (existing !== null) return existing;
  const token = hexOf(crypto.getRandomValues(new Uint8Array(HTTP_TOKEN_BYTES)));
  const tmp = join(dataDir, `.${HTTP_TOKEN_FILE}-${crypto.randomUUID()}`);
  try {
    await Deno.writeTextFile(tmp, token + "\n", { createNew: true, mode: 0o600 });
    await Deno.chmod(tmp, 0o600);
    await Deno.link(tmp, path);
    return token;
  } catch (e) {
    // Another server created it meanwhile: that one is the token.
    if (!(e instanceof Deno.errors.AlreadyExists)) {
      throw new Error(`Cannot create the HTTP token ${path}: ${(e as Error).message}`);
    }
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
  const raced = await readToken(path);
  if (raced === null) throw new Error(`Cannot read the HTTP token ${path}: it disappeared`);
  return raced;
}

/** The token at `path`, null when there is no file; throws when it is there but unusable. */
async function readToken(path: string): Promise<string | null> {
  const fix = `delete it (keynobi makes a new one; re-register your HTTP clients)`;
  let file;
  try {
    file = await openRegularNoFollow(path);
  } catch (e) {
    if (e instanceof SafeOpenError && e.reason === "missing") return null;
    throw new Error(`Cannot use the HTTP token ${path}: ${(e as Error).message}; ${fix}`);
  }
  try {
    // The safe open refuses a symlink at `path`; the handle's own path says whether the file
    // is still there (not moved, not reached through a symlinked folder).
    const canonical = join(await Deno.realPath(dirname(path)), HTTP_TOKEN_FILE);
    if ((await file.locate()) !== canonical) {
      throw new Error(`Cannot use the HTTP token ${path}: it is a symlink or moved; ${fix}`);
    }
    const info = await Deno.lstat(path);
    if (info.mode !== null && (info.mode & 0o077) !== 0) {
      throw new Error(
        `Cannot use the HTTP token ${path}: other users can read it (mode ` +
          `${(info.mode & 0o777).toString(8)}); ${fix}`,
      );
    }
    if (info.uid !== null && info.uid !== Deno.uid()) {
      throw new Error(`Cannot use the HTTP token ${path}: another user owns it; ${fix}`);
    }
    const text = new TextDecoder().decode(await readHead(file, MAX_TOKEN_FILE_BYTES)).trim();
    if (!TOKEN.test(text)) {
      throw new Error(`Cannot use the HTTP token ${path}: it is not 64 hex characters; ${fix}`);
    }
    return text;
  } finally {
    await file.close();
  }
}

/** Whether `KEYNOBI_HTTP_NO_TOKEN` opts out ("1"); any other non-empty value is an error. */
export function noTokenFromEnv(value: string | undefined): boolean {
  if (value === undefined || value === "") return false;
  if (value === "1") return true;
  throw new TypeError(
    `${HTTP_NO_TOKEN_ENV} takes 1 (serve loopback HTTP without a token), got ` +
      `"${value.slice(0, 32)}"`,
  );
}
