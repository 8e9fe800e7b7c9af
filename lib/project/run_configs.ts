/**
 * Run configurations: what "run the app" means for a project — which application module and
 * variant to build (and the task that builds it), what to launch, and on which device.
 *
 * Two sources:
 * - Per project in the data directory, `run-configurations/<key>.json` (key: the first 16 hex of
 *   the SHA-256 of the canonical root), created on the first read of a project: one per
 *   application module and debug variant (`target: lastUsed`, `launch: default`). Writers hold
 *   `<key>.lock` and replace the file atomically. It also remembers each configuration's last
 *   device (shared ones too) and which is active.
 * - The project's shared file `.keynobi/run-configurations.json`, written by people and
 *   committed. Running one needs the user's approval of the file as it is now: `keynobi
 *   approve-configurations <path>` stores the file's SHA-256 in settings
 *   (`approved_run_configurations[<root>]`); any change to the file unapproves it. No MCP tool
 *   can approve.
 */
import { join } from "../core/path.ts";
import { ensureDataDir } from "../core/data_dir.ts";
import { sha256Hex } from "../core/hash.ts";
import { withFileLock, writeFileAtomic } from "../core/file_lock.ts";
import { isRecord, parseJsonRecord } from "../core/json.ts";
import { ToolError } from "../core/errors.ts";
import { readProjectBytes } from "../core/project_paths.ts";
import { readSettings, updateSettings } from "../core/settings.ts";
import { projectKey } from "./project_key.ts";
import { type Variant } from "./variants.ts";

/** Configurations kept per project (created, plus shared). */
const MAX_RUN_CONFIGS = 100;
/** Debug variants per module that get a configuration on first read. */
const MAX_CREATED_PER_MODULE = 20;
/** Largest shared file read. */
const MAX_SHARED_FILE_BYTES = 256 * 1024;
/** Longest configuration name. */
const MAX_CONFIG_NAME_CHARS = 100;
/** Longest free-text field (task, activity, filter, deep link). */
const MAX_CONFIG_FIELD_CHARS = 2_048;
const RUN_CONFIGS_VERSION = 1;
/** The shared file, relative to the project root. */
export const SHARED_CONFIGS_FILE = ".keynobi/run-configurations.json";

type RunTarget =
  | { kind: "lastUsed" }
  | { kind: "ask" }
  | { kind: "serial"; serial: string }
  | { kind: "avd"; avd: string };

export type RunLaunch =
  | { kind: "default" }
  | { kind: "activity"; activity: string }
  | { kind: "deep_link"; uri: string }
  | { kind: "none" };

interface RunConfiguration {
  name: string;
  /** Gradle path of the application module (`:app`). */
  module: string;
  variant: string;
  /** A custom task; `null` builds `<module>:assemble<Variant>`. */
  task: string | null;
  launch: RunLaunch;
  target: RunTarget;
  /** The logcat filter to apply after a launch; `null` means `package:mine`. */
  logcat_filter: string | null;
}

interface StoredConfigs {
  version: number;
  project: string;
  active: string | null;
  configurations: RunConfiguration[];
  /** Configuration name → serial it last ran on (shared configurations too). */
  last_devices: Record<string, string>;
}

interface SharedConfigs {
  /** The file's SHA-256 as read now; `null` when there is no shared file. */
  sha256: string | null;
  configurations: RunConfiguration[];
  /** Why entries (or the whole file) were skipped. */
  problems: string[];
  /** Whether the user approved the file as it is now. */
  approved: boolean;
}

const runConfigsDir = (dataDir: string) => join(dataDir, "run-configurations");

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.:()-]*$/;
const CLASS = /^\.?[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const AVD = /^[A-Za-z0-9._-]+$/;
const SERIAL = /^[A-Za-z0-9._:\-[\]%]+$/;

const field = (v: unknown) =>
  typeof v === "string" && v.length > 0 && v.length <= MAX_CONFIG_FIELD_CHARS ? v : null;

/** A configuration from JSON, or why it is not one. Pure. */
export function parseRunConfiguration(v: unknown): RunConfiguration | string {
  if (!isRecord(v)) return "an entry is not an object";
  const name = typeof v.name === "string" ? v.name : "";
  if (!NAME.test(name) || name.length > MAX_CONFIG_NAME_CHARS) {
    return `name ${JSON.stringify(name).slice(0, 120)} is not a name (letters, digits, spaces, ` +
      `_ . : ( ) -, at most ${MAX_CONFIG_NAME_CHARS})`;
  }
  const module = typeof v.module === "string" && /^:[A-Za-z0-9_.:-]*$/.test(v.module)
    ? v.module
    : null;
  if (module === null) return `${name}: module must be a Gradle path like :app`;
  const variant = typeof v.variant === "string" && /^[A-Za-z][A-Za-z0-9_]*$/.test(v.variant)
    ? v.variant
    : null;
  if (variant === null) return `${name}: variant must be a variant name like debug`;
  const task = v.task === undefined || v.task === null ? null : field(v.task);
  if (v.task !== undefined && v.task !== null && task === null) return `${name}: task is invalid`;
  let launch: RunLaunch = { kind: "default" };
  if (isRecord(v.launch)) {
    const k = v.launch.kind;
    if (k === "none") launch = { kind: "none" };
    else if (k === "activity" && typeof v.launch.activity === "string") {
      if (!CLASS.test(v.launch.activity)) return `${name}: launch.activity is not a class name`;
      launch = { kind: "activity", activity: v.launch.activity };
    } else if (k === "deep_link" && field(v.launch.uri) !== null) {
      launch = { kind: "deep_link", uri: v.launch.uri as string };
    } else if (k !== "default") {
      return `${name}: launch must be default, activity, deep_link or none`;
    }
  } else if (v.launch !== undefined) {
    return `${name}: launch must be an object like {"kind":"default"}`;
  }
  let target: RunTarget = { kind: "lastUsed" };
  if (isRecord(v.target)) {
    const k = v.target.kind;
    if (k === "ask") target = { kind: "ask" };
    else if (
      k === "serial" && typeof v.target.serial === "string" && SERIAL.test(v.target.serial)
    ) {
      target = { kind: "serial", serial: v.target.serial };
    } else if (k === "avd" && typeof v.target.avd === "string" && AVD.test(v.target.avd)) {
      target = { kind: "avd", avd: v.target.avd };
    } else if (k !== "lastUsed") return `${name}: target must be lastUsed, ask, serial or avd`;
  } else if (v.target !== undefined) return `${name}: target must be an object like {"kind":"ask"}`;
  const logcat = v.logcat_filter === undefined || v.logcat_filter === null
    ? null
    : field(v.logcat_filter);
  return { name, module, variant, task, launch, target, logcat_filter: logcat };
}

/** The configurations a JSON document lists (`{"configurations": [...]}`), bounded. Pure. */
function parseConfigList(raw: unknown): { configs: RunConfiguration[]; problems: string[] } {
  const problems: string[] = [];
  const configs: RunConfiguration[] = [];
  if (!isRecord(raw) || !Array.isArray(raw.configurations)) {
    return { configs, problems: ['the file is not {"configurations": [...]}'] };
  }
  for (const entry of raw.configurations.slice(0, MAX_RUN_CONFIGS)) {
    const c = parseRunConfiguration(entry);
    if (typeof c === "string") problems.push(c);
    else if (configs.some((x) => x.name === c.name)) problems.push(`${c.name}: duplicate name`);
    else configs.push(c);
  }
  if (raw.configurations.length > MAX_RUN_CONFIGS) {
    problems.push(`only the first ${MAX_RUN_CONFIGS} configurations are read`);
  }
  return { configs, problems };
}

export interface AppModuleVariants {
  /** Gradle path. */
  module: string;
  variants: Variant[];
}

/** `app demoDebug`; the root project is named by the project folder. Pure. */
export function configName(module: string, variant: string, projectName = "app"): string {
  const m = module === ":" ? projectName : module.slice(1).replaceAll(":", "-");
  return `${m} ${variant}`.slice(0, MAX_CONFIG_NAME_CHARS);
}

/**
 * The configurations a project gets on first read: each application module's debug variants
 * (build type `debug`; the first variant when a module has none). Pure.
 */
export function defaultConfigurations(
  modules: readonly AppModuleVariants[],
  projectName = "app",
): RunConfiguration[] {
  const out: RunConfiguration[] = [];
  for (const m of modules) {
    let picked = m.variants.filter((v) => v.build_type === "debug");
    if (picked.length === 0) picked = m.variants.slice(0, 1);
    for (const v of picked.slice(0, MAX_CREATED_PER_MODULE)) {
      if (out.length >= MAX_RUN_CONFIGS) return out;
      out.push({
        name: configName(m.module, v.name, projectName),
        module: m.module,
        variant: v.name,
        task: null,
        launch: { kind: "default" },
        target: { kind: "lastUsed" },
        logcat_filter: null,
      });
    }
  }
  return out;
}

async function storePaths(dataDir: string, root: string) {
  const key = await projectKey(root);
  return {
    file: join(runConfigsDir(dataDir), `${key}.json`),
    lock: join(runConfigsDir(dataDir), `${key}.lock`),
  };
}

function parseStored(text: string, root: string): StoredConfigs | null {
  const raw = parseJsonRecord(text);
  if (raw === null || raw.project !== root) return null;
  const { configs } = parseConfigList(raw);
  const last: Record<string, string> = {};
  if (isRecord(raw.last_devices)) {
    for (const [k, v] of Object.entries(raw.last_devices).slice(0, MAX_RUN_CONFIGS * 2)) {
      if (typeof v === "string" && SERIAL.test(v)) last[k] = v;
    }
  }
  return {
    version: RUN_CONFIGS_VERSION,
    project: root,
    active: typeof raw.active === "string" ? raw.active : null,
    configurations: configs,
    last_devices: last,
  };
}

async function readStoredFile(file: string, root: string): Promise<StoredConfigs | null> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile || info.size > MAX_SHARED_FILE_BYTES * 4) return null;
    return parseStored(await Deno.readTextFile(file), root);
  } catch {
    return null;
  }
}

/**
 * The project's stored configurations; on the first read (no valid file yet) they are created
 * from `modules` and saved, under the lock.
 */
export async function loadRunConfigs(
  dataDir: string,
  root: string,
  modules: () => Promise<AppModuleVariants[]>,
  projectName = "app",
): Promise<StoredConfigs> {
  const paths = await storePaths(dataDir, root);
  const existing = await readStoredFile(paths.file, root);
  if (existing) return existing;
  await ensureDataDir(dataDir);
  await Deno.mkdir(runConfigsDir(dataDir), { recursive: true, mode: 0o700 });
  return await withFileLock(paths.lock, async () => {
    const again = await readStoredFile(paths.file, root);
    if (again) return again;
    const configurations = defaultConfigurations(await modules(), projectName);
    const created: StoredConfigs = {
      version: RUN_CONFIGS_VERSION,
      project: root,
      active: configurations[0]?.name ?? null,
      configurations,
      last_devices: {},
    };
    await writeFileAtomic(paths.file, JSON.stringify(created, null, 2) + "\n");
    return created;
  });
}

/** Remembers `serial` as the last device of configuration `name` (and makes it active). */
export async function recordLastDevice(
  dataDir: string,
  root: string,
  name: string,
  serial: string,
): Promise<void> {
  const paths = await storePaths(dataDir, root);
  await Deno.mkdir(runConfigsDir(dataDir), { recursive: true, mode: 0o700 });
  await withFileLock(paths.lock, async () => {
    const current = await readStoredFile(paths.file, root) ?? {
      version: RUN_CONFIGS_VERSION,
      project: root,
      active: null,
      configurations: [],
      last_devices: {},
    };
    current.last_devices[name] = serial;
    const names = Object.keys(current.last_devices);
    for (const extra of names.slice(0, Math.max(0, names.length - MAX_RUN_CONFIGS * 2))) {
      delete current.last_devices[extra];
    }
    current.active = name;
    await writeFileAtomic(paths.file, JSON.stringify(current, null, 2) + "\n");
  });
}

/** The shared file's bytes (bounded, read through the project-file checks), or `null`. */
async function readSharedBytes(root: string): Promise<Uint8Array | null> {
  let file;
  try {
    file = await readProjectBytes(root, SHARED_CONFIGS_FILE, MAX_SHARED_FILE_BYTES);
  } catch (e) {
    if (e instanceof ToolError) return null;
    throw e;
  }
  if (file.truncated) {
    throw new RangeError(
      `${SHARED_CONFIGS_FILE} is ${file.size} bytes, over the ${MAX_SHARED_FILE_BYTES}-byte limit`,
    );
  }
  return file.bytes;
}

/** The shared configurations as the file is now, parsed from the bytes that were hashed. */
export async function readSharedConfigs(
  root: string,
): Promise<{ sha256: string | null; configurations: RunConfiguration[]; problems: string[] }> {
  let bytes: Uint8Array | null;
  try {
    bytes = await readSharedBytes(root);
  } catch (e) {
    return { sha256: null, configurations: [], problems: [(e as Error).message] };
  }
  if (bytes === null) return { sha256: null, configurations: [], problems: [] };
  const hash = await sha256Hex(bytes);
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    return {
      sha256: hash,
      configurations: [],
      problems: [`${SHARED_CONFIGS_FILE} is not valid JSON: ${(e as Error).message}`],
    };
  }
  const { configs, problems } = parseConfigList(raw);
  return { sha256: hash, configurations: configs, problems };
}

/** The SHA-256 the user approved for `root`'s shared file, or `null`. */
async function approvedSharedHash(dataDir: string, root: string): Promise<string | null> {
  const s = await readSettings(dataDir);
  const all = s.approved_run_configurations;
  if (!isRecord(all)) return null;
  const entry = all[root];
  return isRecord(entry) && typeof entry.sha256 === "string" ? entry.sha256 : null;
}

/** The shared configurations and whether the user approved the file as it is now. */
export async function loadSharedConfigs(dataDir: string, root: string): Promise<SharedConfigs> {
  const shared = await readSharedConfigs(root);
  const approvedHash = shared.sha256 === null ? null : await approvedSharedHash(dataDir, root);
  return { ...shared, approved: shared.sha256 !== null && approvedHash === shared.sha256 };
}

/** Records the user's approval of `root`'s shared file with hash `sha256` (CLI only). */
export async function approveSharedConfigs(
  dataDir: string,
  root: string,
  hash: string,
): Promise<void> {
  await updateSettings(dataDir, (s) => {
    const all = isRecord(s.approved_run_configurations) ? s.approved_run_configurations : {};
    all[root] = { sha256: hash, approved_at: new Date().toISOString() };
    s.approved_run_configurations = all;
  });
}

/** One configuration as tools see it: the stored fields plus where it came from. */
export interface ListedConfiguration extends RunConfiguration {
  shared: boolean;
  last_device: string | null;
  active: boolean;
}

/** Stored and shared configurations together; a shared name that clashes is skipped. Pure. */
export function mergeConfigs(
  stored: StoredConfigs,
  shared: { configurations: RunConfiguration[]; problems: string[] },
): { configurations: ListedConfiguration[]; problems: string[] } {
  const problems = [...shared.problems];
  const out: ListedConfiguration[] = stored.configurations.map((c) => ({
    ...c,
    shared: false,
    last_device: stored.last_devices[c.name] ?? null,
    active: stored.active === c.name,
  }));
  for (const c of shared.configurations) {
    if (out.some((x) => x.name === c.name)) {
      problems.push(`shared ${c.name}: a configuration of that name exists; rename it`);
      continue;
    }
    if (out.length >= MAX_RUN_CONFIGS) break;
    out.push({
      ...c,
      shared: true,
      last_device: stored.last_devices[c.name] ?? null,
      active: stored.active === c.name,
    });
  }
  return { configurations: out, problems };
}
