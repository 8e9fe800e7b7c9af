/**
 * Finding a running emulator's gRPC endpoint: the `pid_<pid>.ini` files the emulator writes into
 * its discovery directory (`<root>/avd/running`), matched to the ADB serial `emulator-<console
 * port>` by `port.serial`; else the `--grpc HOST:PORT` / `KEYNOBI_GRPC` endpoint.
 *
 * Parsing and choosing are pure; `readDiscoveryDir` is the file adapter. Facts:
 * ../shared/EMULATOR.md §1 (keys, directories, stale files) and §2 (auth modes).
 */
import { join } from "../../core/path.ts";
import { openRegularNoFollow, readHead } from "../../core/safe_open.ts";

/** Discovery files read per directory, at most. */
export const MAX_DISCOVERY_FILES = 64;
/** Largest discovery file read (real ones are under 4 KiB). */
const MAX_DISCOVERY_FILE_BYTES = 64 * 1024;
/** Directories scanned, at most. */
const MAX_DISCOVERY_DIRS = 12;
/** Longest gRPC token used (real ones are 88 base64 characters). */
const MAX_GRPC_TOKEN_CHARS = 4096;

/**
 * Whether a token can travel as `authorization: Bearer <token>`: printable ASCII, no spaces, CR,
 * LF or anything else a header value cannot hold. Pure.
 */
function isUsableGrpcToken(token: string): boolean {
  return token.length <= MAX_GRPC_TOKEN_CHARS && /^[\x21-\x7e]+$/.test(token);
}

type GrpcAuth =
  | { kind: "none" }
  | { kind: "token"; token: string }
  | { kind: "jwt"; jwksDir: string; activeJwk: string | null };

export interface GrpcEndpoint {
  /** `host:port` as dialled and as the worker's net grant names it. */
  address: string;
  host: string;
  port: number;
  auth: GrpcAuth;
  /** Where it came from: the discovery file's path, or `--grpc` / `KEYNOBI_GRPC`. */
  source: string;
  /** `emulator-<port.serial>` when the file says, else null (an explicit endpoint). */
  serial: string | null;
  pid: number | null;
  /** The file's modification time (ms), to prefer the newest of two files for one serial. */
  mtimeMs: number;
}

/** `key=value` lines, split on the first `=` (base64 tokens end in `=`). Pure. */
export function parseDiscoveryIni(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    out.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return out;
}

function port(v: string | undefined): number | null {
  if (v === undefined || !/^\d{1,5}$/.test(v)) return null;
  const n = Number(v);
  return n >= 1 && n <= 65535 ? n : null;
}

/**
 * The endpoint one discovery file describes, or null when it has no gRPC port (the emulator
 * started without gRPC) or a token no header can carry (CR, non-ASCII…: the file is not the
 * emulator's, and the call goes by ADB, the token never quoted). gRPC without TLS is
 * loopback-only (the emulator rebinds), so the host is `127.0.0.1`. Pure.
 */
export function endpointFromIni(
  ini: Map<string, string>,
  source: string,
  mtimeMs = 0,
): GrpcEndpoint | null {
  const grpcPort = port(ini.get("grpc.port"));
  if (grpcPort === null) return null;
  const consolePort = port(ini.get("port.serial"));
  const token = ini.get("grpc.token");
  if (token && !isUsableGrpcToken(token)) return null;
  const jwks = ini.get("grpc.jwks");
  const auth: GrpcAuth = token
    ? { kind: "token", token }
    : jwks
    ? { kind: "jwt", jwksDir: jwks, activeJwk: ini.get("grpc.jwk_active") ?? null }
    : { kind: "none" };
  const pidMatch = /pid_(\d+)\.ini$/.exec(source);
  return {
    address: `127.0.0.1:${grpcPort}`,
    host: "127.0.0.1",
    port: grpcPort,
    auth,
    source,
    serial: consolePort === null ? null : `emulator-${consolePort}`,
    pid: pidMatch ? Number(pidMatch[1]) : null,
    mtimeMs,
  };
}

/**
 * `--grpc HOST:PORT` or `KEYNOBI_GRPC`: loopback only (the emulator's token or open port is never
 * meant for the network), token from `KEYNOBI_GRPC_TOKEN` when set. Throws a message that says
 * what is wrong. Pure.
 */
export function explicitEndpoint(
  value: string,
  token: string | undefined,
  source: string,
): GrpcEndpoint {
  const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\]):(\d{1,5})$/.exec(value.trim());
  const p = m ? port(m[2]) : null;
  if (!m || p === null) {
    throw new TypeError(
      `${source} takes a loopback HOST:PORT (127.0.0.1:8554, localhost:8554 or [::1]:8554), ` +
        `got "${value}"`,
    );
  }
  if (token && !isUsableGrpcToken(token)) {
    throw new TypeError(
      `KEYNOBI_GRPC_TOKEN must be printable ASCII without spaces, at most ` +
        `${MAX_GRPC_TOKEN_CHARS} characters (it travels in a header)`,
    );
  }
  const host = m[1] === "localhost" ? "127.0.0.1" : m[1];
  return {
    address: `${host}:${p}`,
    host,
    port: p,
    auth: token ? { kind: "token", token } : { kind: "none" },
    source,
    serial: null,
    pid: null,
    mtimeMs: 0,
  };
}

interface DiscoveryEnvFacts {
  os: typeof Deno.build.os;
  /** The user id (Linux `/run/user/<uid>`), null when unknown. */
  uid: number | null;
  env: (name: string) => string | undefined;
}

/**
 * The directories an emulator may advertise in, most likely first (EMULATOR.md §1.2: the
 * platform's runtime directory and the fallbacks emulator versions used). Pure.
 */
export function discoveryDirs(f: DiscoveryEnvFacts): string[] {
  const roots: string[] = [];
  const add = (...parts: (string | undefined)[]) => {
    if (parts.some((p) => p === undefined || p === "")) return;
    roots.push(join(...(parts as string[])));
  };
  const home = f.env("HOME") ?? f.env("USERPROFILE");
  const xdg = f.env("XDG_RUNTIME_DIR");
  if (f.os === "darwin") add(home, "Library/Caches/TemporaryItems");
  else if (f.os === "windows") add(f.env("LOCALAPPDATA"), "Temp");
  else if (xdg) add(xdg);
  else if (f.uid !== null) add(`/run/user/${f.uid}`);
  add(f.env("ANDROID_EMULATOR_HOME"));
  add(f.env("ANDROID_PREFS_ROOT"), ".android");
  add(f.env("ANDROID_SDK_HOME"), ".android");
  add(home, ".android");
  const user = f.env("USER") ?? f.env("USERNAME");
  if (f.os !== "windows") add("/tmp", `android-${user ?? ""}`);
  const out: string[] = [];
  for (const r of roots) {
    const d = join(r, "avd", "running");
    if (!out.includes(d)) out.push(d);
  }
  return out.slice(0, MAX_DISCOVERY_DIRS);
}

/** The endpoint of `serial`: the newest discovery file naming it. Pure. */
export function endpointForSerial(
  endpoints: readonly GrpcEndpoint[],
  serial: string,
): GrpcEndpoint | null {
  let best: GrpcEndpoint | null = null;
  for (const e of endpoints) {
    if (e.serial !== serial) continue;
    if (!best || e.mtimeMs > best.mtimeMs) best = e;
  }
  return best;
}

/** Whether an ADB serial is a local emulator's (`emulator-<console port>`). Pure. */
export function isEmulatorSerial(serial: string): boolean {
  return /^emulator-\d{1,5}$/.test(serial);
}

/**
 * The endpoints advertised in `dir` (missing or unreadable directory: none). Files over the size
 * limit and past the count limit are skipped; each is read like a project file — not through a
 * symlink, opened non-blocking, regular files only, bounded — so a FIFO or device swapped in
 * never holds a call.
 */
export async function readDiscoveryDir(dir: string): Promise<GrpcEndpoint[]> {
  const out: GrpcEndpoint[] = [];
  let names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && /^pid_\d+\.ini$/.test(e.name)) names.push(e.name);
    }
  } catch {
    return out;
  }
  names = names.sort().slice(0, MAX_DISCOVERY_FILES);
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = await Deno.lstat(path);
      if (!st.isFile || st.size > MAX_DISCOVERY_FILE_BYTES) continue;
      const text = await readBoundedRegular(path);
      if (text === null) continue;
      const ep = endpointFromIni(parseDiscoveryIni(text), path, st.mtime?.getTime() ?? 0);
      if (ep) out.push(ep);
    } catch {
      // Removed between the listing and the read (the emulator exited): skip it.
    }
  }
  return out;
}

/** The text of a regular file of at most MAX_DISCOVERY_FILE_BYTES; null for anything else. */
async function readBoundedRegular(path: string): Promise<string | null> {
  const file = await openRegularNoFollow(path);
  try {
    if (file.size > MAX_DISCOVERY_FILE_BYTES) return null;
    const bytes = await readHead(file, MAX_DISCOVERY_FILE_BYTES + 1);
    return bytes.length > MAX_DISCOVERY_FILE_BYTES ? null : new TextDecoder().decode(bytes);
  } finally {
    await file.close();
  }
}

/** Every endpoint advertised in `dirs`. */
export async function readDiscovery(dirs: readonly string[]): Promise<GrpcEndpoint[]> {
  const lists = await Promise.all(dirs.slice(0, MAX_DISCOVERY_DIRS).map(readDiscoveryDir));
  return lists.flat();
}

/** The directories of `dirs` that exist now (what the worker is granted). */
export async function existingDirs(dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const d of dirs) {
    try {
      if ((await Deno.stat(d)).isDirectory) out.push(d);
    } catch {
      // absent
    }
  }
  return out;
}
