/**
 * Per-worker Deno permissions, computed at start from runtime facts, and the one place that
 * starts a worker with them.
 *
 * A worker gets only what its job needs, so a bug in it cannot read, write, connect or spawn
 * outside that. Deno refuses to give a worker more than the thread that starts it has ("Can't
 * escalate parent thread permissions"): the main thread must be launched with `--allow-*` flags
 * that cover every grant below, and `startWorker()` names what is missing before trying.
 *
 * What a worker needs only to load its code: nothing. Deno does not check `read` when a worker
 * loads its own modules (static or dynamic `import` of `file:` URLs, npm packages from the cache,
 * modules embedded by `deno compile`), and `import` only governs remote (https:) modules, so
 * `import` stays `false`. Reading a data file shipped beside the code (for example a `.proto`
 * loaded at runtime) is a real read and needs `programRoot`.
 *
 * Processes a worker spawns (Gradle, the JDK) run outside Deno's sandbox with the user's rights;
 * `run` narrows which executables the worker may start, not what they do.
 */
import { isAbsolute } from "./path.ts";
import { ToolError } from "./errors.ts";
import { RpcChannel } from "./worker_rpc.ts";
import type { MethodsOf } from "./worker_rpc.ts";

/** What the main thread knows when it starts a worker. Paths are absolute. */
export interface WorkerFacts {
  /** The data directory (read and write for every worker). */
  dataDir: string;
  /** The ADB server as the worker will dial it, `host:port` (e.g. `127.0.0.1:5037`). */
  adbServer?: string | null;
  /** Emulator gRPC endpoints, `host:port` each. */
  emulatorGrpc?: readonly string[];
  /** The open project's root (Gradle root). */
  projectRoot?: string | null;
  /** The Android SDK. */
  sdkRoot?: string | null;
  /** The project's `gradlew` (only after the project is trusted). */
  gradlew?: string | null;
  /** The JDK's `java` executable. */
  java?: string | null;
  /** The JDK folder (`JAVA_HOME`). */
  javaHome?: string | null;
  /** Folder of the program's own data files (e.g. `proto/`), read-only. */
  programRoot?: string | null;
  /** Emulator discovery directories (`…/avd/running`), read-only. */
  discoveryDirs?: readonly string[];
  /** Environment variables the worker may read, beyond `BASE_WORKER_ENV`. */
  env?: readonly string[];
  /** Helper executables by name, resolved through PATH (`git`, `ps`, `kill`). */
  commands?: readonly string[];
  /**
   * The executable that runs the emulator gRPC client process (this Deno, or the compiled
   * binary): the UI worker may start only it (lib/emulator/grpc_process.ts).
   */
  grpcClientExec?: string | null;
}

/** Every worker may read these environment variables. */
const BASE_WORKER_ENV = ["KEYNOBI_LOG"] as const;

/**
 * What `@grpc/grpc-js` reads from the environment when it loads and dials (its tracing,
 * verbosity, resolver and proxy settings). Without them the UI worker's gRPC client throws.
 */
export const GRPC_ENV_NAMES = [
  "GRPC_TRACE",
  "GRPC_VERBOSITY",
  "GRPC_NODE_TRACE",
  "GRPC_NODE_VERBOSITY",
  "GRPC_NODE_USE_ALTERNATIVE_RESOLVER",
  "GRPC_SSL_CIPHER_SUITES",
  "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH",
  "GRPC_EXPERIMENTAL_ENABLE_OUTLIER_DETECTION",
  "GRPC_NODE_DEBUG_SEND_ERROR_DETAILS",
  "grpc_proxy",
  "https_proxy",
  "http_proxy",
  "no_grpc_proxy",
  "no_proxy",
] as const;

/** Paths a grant list may hold; more is a bug in the facts. */
const MAX_GRANT_ENTRIES = 64;

function paths(label: string, values: readonly (string | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (v === null || v === undefined || v === "") continue;
    if (!isAbsolute(v)) {
      throw new TypeError(`Cannot grant ${label} access: ${v} is not an absolute path`);
    }
    if (!out.includes(v)) out.push(v);
  }
  if (out.length > MAX_GRANT_ENTRIES) {
    throw new RangeError(`Cannot grant ${label} access: more than ${MAX_GRANT_ENTRIES} paths`);
  }
  return out;
}

/** Checks `host:port` (IPv6 in brackets) and returns it unchanged. */
export function netGrant(hostPort: string): string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(hostPort);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) {
    throw new TypeError(`Cannot grant net access: ${hostPort} is not host:port`);
  }
  return hostPort;
}

function hosts(values: readonly (string | null | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (v === null || v === undefined || v === "") continue;
    const grant = netGrant(v);
    if (!out.includes(grant)) out.push(grant);
  }
  if (out.length > MAX_GRANT_ENTRIES) {
    throw new RangeError(`Cannot grant net access: more than ${MAX_GRANT_ENTRIES} hosts`);
  }
  return out;
}

function envNames(...lists: readonly (readonly string[] | undefined)[]): string[] {
  const out: string[] = [];
  for (const list of lists) {
    for (const name of list ?? []) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new TypeError(`Cannot grant env access: ${name} is not a variable name`);
      }
      if (!out.includes(name)) out.push(name);
    }
  }
  return out;
}

/** Nothing at all; each worker adds what it needs. */
function none(): Deno.PermissionOptionsObject {
  return {
    env: false,
    ffi: false,
    import: false,
    net: false,
    read: false,
    run: false,
    sys: false,
    write: false,
  };
}

/** `false` for an empty list: Deno reads `[]` as "none" too, but `false` says it plainly. */
function listOrFalse(list: string[]): string[] | false {
  return list.length === 0 ? false : list;
}

/**
 * The logcat worker: ADB only; reads and writes the data directory; reads the project root for R8
 * mapping files when deobfuscating.
 */
export function logcatWorkerPermissions(facts: WorkerFacts): Deno.PermissionOptionsObject {
  return {
    ...none(),
    net: listOrFalse(hosts([facts.adbServer])),
    read: paths("read", [facts.dataDir, facts.projectRoot]),
    write: paths("write", [facts.dataDir]),
    env: envNames(BASE_WORKER_ENV, facts.env),
  };
}

/**
 * The UI worker: ADB and the emulator's gRPC endpoints; reads and writes the data directory
 * (UI Automator locks); reads the program's own data files (the emulator proto); runs the
 * emulator gRPC client process (started with network access to one endpoint only).
 */
export function uiWorkerPermissions(facts: WorkerFacts): Deno.PermissionOptionsObject {
  return {
    ...none(),
    run: listOrFalse(paths("run", [facts.grpcClientExec])),
    net: listOrFalse(hosts([facts.adbServer, ...(facts.emulatorGrpc ?? [])])),
    read: paths("read", [facts.dataDir, facts.programRoot, ...(facts.discoveryDirs ?? [])]),
    write: paths("write", [facts.dataDir]),
    env: envNames(BASE_WORKER_ENV, GRPC_ENV_NAMES, facts.env),
  };
}

/**
 * The build worker: reads the project, the SDK, the JDK and the data directory; writes the
 * project (build outputs) and the data directory (history, build locks); runs only the project's
 * `gradlew` and the JDK's `java`. No network: Gradle downloads in its own process.
 */
export function buildWorkerPermissions(facts: WorkerFacts): Deno.PermissionOptionsObject {
  if (!facts.projectRoot) {
    throw new TypeError("Cannot compute build worker permissions: no project root");
  }
  return {
    ...none(),
    read: paths("read", [facts.projectRoot, facts.sdkRoot, facts.javaHome, facts.dataDir]),
    write: paths("write", [facts.projectRoot, facts.dataDir]),
    run: listOrFalse([
      ...paths("run", [facts.gradlew, facts.java]),
      ...(facts.commands ?? []).filter((c) => /^[A-Za-z0-9_.-]+$/.test(c)),
    ]),
    env: envNames(BASE_WORKER_ENV, facts.env),
  };
}

/**
 * The retrace worker: reads the data directory (kept mappings) and the project roots whose
 * mappings it retraces; runs only `readlink` (where an opened file really is, the safe open's
 * check). No network, no write.
 */
export function retraceWorkerPermissions(
  facts: WorkerFacts & { projectRoots?: readonly string[] },
): Deno.PermissionOptionsObject {
  return {
    ...none(),
    read: paths("read", [facts.dataDir, facts.projectRoot, ...(facts.projectRoots ?? [])]),
    run: ["readlink"],
    env: envNames(BASE_WORKER_ENV, facts.env),
  };
}

/** One permission the main thread must hold for a grant, as `Deno.permissions` describes it. */
type GrantDescriptor = Deno.PermissionDescriptor;

/** Every descriptor a worker's grant implies (`"inherit"` and `false` imply nothing). */
function grantDescriptors(permissions: Deno.PermissionOptionsObject): GrantDescriptor[] {
  const out: GrantDescriptor[] = [];
  const each = <T>(
    value: "inherit" | boolean | T[] | undefined,
    make: (v?: T) => GrantDescriptor,
  ) => {
    if (value === true) out.push(make());
    else if (Array.isArray(value)) { for (const v of value) out.push(make(v)); }
  };
  each(permissions.read, (v) => ({ name: "read", path: v }));
  each(permissions.write, (v) => ({ name: "write", path: v }));
  each(permissions.net, (v) => ({ name: "net", host: v }));
  each(permissions.run, (v) => ({ name: "run", command: v }));
  each(permissions.env, (v) => ({ name: "env", variable: v }));
  each(permissions.ffi, (v) => ({ name: "ffi", path: v }));
  each(permissions.import, (v) => ({ name: "import", host: v }));
  if (permissions.sys === true) out.push({ name: "sys" });
  else if (Array.isArray(permissions.sys)) {
    for (const kind of permissions.sys) {
      out.push({ name: "sys", kind: kind as Deno.SysPermissionDescriptor["kind"] });
    }
  }
  return out;
}

/** `read access to /x`, for messages. */
function describeGrant(d: GrantDescriptor): string {
  const detail = "path" in d
    ? d.path
    : "host" in d
    ? d.host
    : "command" in d
    ? d.command
    : "variable" in d
    ? d.variable
    : "kind" in d
    ? d.kind
    : undefined;
  return detail === undefined ? `${d.name} access` : `${d.name} access to ${String(detail)}`;
}

/** The grants the main thread lacks (so the worker cannot get them). */
export function missingGrants(
  permissions: Deno.PermissionOptionsObject,
  query: (d: GrantDescriptor) => Deno.PermissionState = (d) => Deno.permissions.querySync(d).state,
): string[] {
  return grantDescriptors(permissions).filter((d) => query(d) !== "granted").map(describeGrant);
}

function launchError(name: string, detail: string, missing: string[]): ToolError {
  return new ToolError(
    "internal_error",
    `Cannot start the ${name} worker: ${detail}: launch keynobi with the --allow-* flags the ` +
      "README lists (a worker cannot get more permissions than the main process)",
    { worker: name, missing },
  );
}

interface StartWorkerOptions {
  /** How to ask whether the main thread holds a permission (tests pass a fake). */
  query?: (d: GrantDescriptor) => Deno.PermissionState;
}

/**
 * Starts `url` as a module worker named `name` with `permissions` and returns its client.
 * Needs `--unstable-worker-options`. A worker that dies (an uncaught error, a module that fails
 * to load) rejects every pending request with `internal_error` and is terminated; `close()`
 * terminates it.
 */
export function startWorker<M extends MethodsOf<M>>(
  url: URL | string,
  permissions: Deno.PermissionOptionsObject,
  name: string,
  options: StartWorkerOptions = {},
): RpcChannel<M> {
  const missing = missingGrants(permissions, options.query);
  if (missing.length > 0) {
    throw launchError(name, `this process lacks ${missing.join(", ")}`, missing);
  }
  let worker: Worker;
  try {
    worker = new Worker(url, { type: "module", name, deno: { permissions } });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw launchError(name, message, []);
  }
  const client = new RpcChannel<M>(worker, { name, onClose: () => worker.terminate() });
  worker.addEventListener("error", (event) => {
    // Without preventDefault an uncaught error in a worker ends the whole process.
    event.preventDefault();
    client.fail(
      new ToolError(
        "internal_error",
        `The ${name} worker stopped unexpectedly: ${event.message}: retry the call; if it ` +
          "fails again, restart the MCP server and report the error in its log",
      ),
    );
    client.close();
  });
  return client;
}
