/**
 * `settings.json` in the data directory: trust, the last active project, active variants, MCP
 * settings, and the user's JDK and SDK choices.
 *
 * Read on every use, never cached, so `keynobi trust` applies to a running server at once.
 * A missing file is the defaults. A corrupt file is the defaults (with a warning on stderr) for
 * readers and an actionable error for writers, which never overwrite what they cannot parse.
 * Writers hold `settings.lock` and replace the file atomically; fields this module does not know
 * are kept as they are.
 *
 * Trust (which Gradle roots may run `gradlew`, keyed on the canonical root) is read and written
 * through lib/project/trust.ts, beside the Gradle root it keys on.
 */
import { ensureDataDir, settingsLockPath, settingsPath } from "./data_dir.ts";
import { ToolError } from "./errors.ts";
import { withFileLock, writeFileAtomic } from "./file_lock.ts";
import { isRecord } from "./json.ts";
import { log } from "./log.ts";

/** A settings file larger than this is treated as corrupt. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

interface TrustEntry {
  trusted_at: string;
  [key: string]: unknown;
}

interface McpSettings {
  build_timeout_sec?: number;
  allow_unrestricted_gradle?: boolean;
  default_build_log_lines?: number;
  logcat_default_count?: number;
  [key: string]: unknown;
}

export interface Settings {
  version: 1;
  trusted_projects: Record<string, TrustEntry>;
  last_active_project?: string;
  /** Owned by the variants code; kept as it is here. */
  active_variants?: Record<string, unknown>;
  mcp?: McpSettings;
  java_home?: string;
  sdk_path?: string;
  [key: string]: unknown;
}

/** The top-level keys keynobi reads or writes in `settings.json`. */
const KNOWN_SETTINGS_KEYS: readonly string[] = [
  "version",
  "trusted_projects",
  "last_active_project",
  "active_variants",
  "approved_run_configurations",
  "mcp",
  "java_home",
  "sdk_path",
];
/** The `mcp` keys keynobi reads. */
const KNOWN_MCP_SETTINGS_KEYS: readonly string[] = [
  "build_timeout_sec",
  "allow_unrestricted_gradle",
  "default_build_log_lines",
  "logcat_default_count",
  "logcat_buffer_entries",
  "min_action_interval_ms",
];
/** At most this many unknown keys are reported. */
const MAX_UNKNOWN_SETTINGS_KEYS = 50;

export interface UnknownSettingsKey {
  /** Dotted path, e.g. `mcp.allowUnrestrictedGradle`. */
  key: string;
  /** The known key it probably meant (the snake_case spelling), or `null`. */
  did_you_mean: string | null;
}

/** `allowUnrestrictedGradle` / `allow-unrestricted-gradle` → `allow_unrestricted_gradle`. Pure. */
function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[-\s]+/g, "_").toLowerCase();
}

/**
 * Keys in `settings` that keynobi does not read (they are kept, and ignored): typically the
 * spec's camelCase spellings (`mcp.allowUnrestrictedGradle`). Pure.
 */
export function unknownSettingsKeys(settings: Settings): UnknownSettingsKey[] {
  const out: UnknownSettingsKey[] = [];
  const check = (key: string, known: readonly string[], prefix: string) => {
    if (known.includes(key) || out.length >= MAX_UNKNOWN_SETTINGS_KEYS) return;
    const snake = snakeCase(key);
    out.push({
      key: `${prefix}${key}`,
      did_you_mean: known.includes(snake) ? `${prefix}${snake}` : null,
    });
  };
  for (const key of Object.keys(settings)) check(key, KNOWN_SETTINGS_KEYS, "");
  if (isRecord(settings.mcp)) {
    for (const key of Object.keys(settings.mcp)) check(key, KNOWN_MCP_SETTINGS_KEYS, "mcp.");
  }
  return out;
}

export function defaultSettings(): Settings {
  return { version: 1, trusted_projects: {} };
}

/**
 * Settings from parsed JSON: fields of the wrong type are dropped (each named in `problems`),
 * unknown fields kept. Pure; tests call it directly.
 */
export function normalizeSettings(raw: unknown): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(raw)) {
    return { settings: defaultSettings(), problems: ["the top level is not a JSON object"] };
  }
  const s: Settings = { ...raw, version: 1, trusted_projects: {} };
  if (raw.version !== undefined && raw.version !== 1) {
    problems.push(`version ${JSON.stringify(raw.version)} is not 1`);
  }
  if (isRecord(raw.trusted_projects)) {
    for (const [path, entry] of Object.entries(raw.trusted_projects)) {
      if (isRecord(entry) && typeof entry.trusted_at === "string") {
        s.trusted_projects[path] = { ...entry, trusted_at: entry.trusted_at };
      } else problems.push(`trusted_projects["${path}"] has no trusted_at`);
    }
  } else if (raw.trusted_projects !== undefined) problems.push("trusted_projects is not an object");
  for (const key of ["last_active_project", "java_home", "sdk_path"] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== "string") {
      problems.push(`${key} is not a string`);
      delete s[key];
    }
  }
  if (raw.active_variants !== undefined && !isRecord(raw.active_variants)) {
    problems.push("active_variants is not an object");
    delete s.active_variants;
  }
  if (isRecord(raw.mcp)) {
    const mcp: McpSettings = { ...raw.mcp };
    for (const key of ["build_timeout_sec", "default_build_log_lines", "logcat_default_count"]) {
      if (mcp[key] !== undefined && (typeof mcp[key] !== "number" || !Number.isFinite(mcp[key]))) {
        problems.push(`mcp.${key} is not a number`);
        delete mcp[key];
      }
    }
    if (
      mcp.allow_unrestricted_gradle !== undefined &&
      typeof mcp.allow_unrestricted_gradle !== "boolean"
    ) {
      problems.push("mcp.allow_unrestricted_gradle is not a boolean");
      delete mcp.allow_unrestricted_gradle;
    }
    s.mcp = mcp;
  } else if (raw.mcp !== undefined) {
    problems.push("mcp is not an object");
    delete s.mcp;
  }
  return { settings: s, problems };
}

type LoadResult =
  | { kind: "missing" }
  | { kind: "ok"; settings: Settings; problems: string[] }
  | { kind: "corrupt"; reason: string };

async function loadSettings(dataDir: string): Promise<LoadResult> {
  const path = settingsPath(dataDir);
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return { kind: "corrupt", reason: "it is not a regular file" };
    if (info.size > MAX_SETTINGS_BYTES) {
      return { kind: "corrupt", reason: `it is ${info.size} bytes (over ${MAX_SETTINGS_BYTES})` };
    }
    bytes = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "missing" };
    return { kind: "corrupt", reason: `it cannot be read (${(e as Error).message})` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    return { kind: "corrupt", reason: `it is not valid JSON (${(e as Error).message})` };
  }
  if (!isRecord(raw)) return { kind: "corrupt", reason: "the top level is not a JSON object" };
  return { kind: "ok", ...normalizeSettings(raw) };
}

interface ReadOptions {
  /** Where reader warnings go; default stderr. */
  warn?: (message: string) => void;
}

/** The current settings; defaults when missing, defaults plus a warning when corrupt. */
export async function readSettings(dataDir: string, options: ReadOptions = {}): Promise<Settings> {
  const warn = options.warn ?? log.warn;
  const loaded = await loadSettings(dataDir);
  if (loaded.kind === "missing") return defaultSettings();
  if (loaded.kind === "corrupt") {
    warn(
      `Ignoring ${settingsPath(dataDir)}: ${loaded.reason}; using defaults ` +
        "(no project is trusted) until it is fixed or deleted",
    );
    return defaultSettings();
  }
  if (loaded.problems.length > 0) {
    warn(`Ignoring parts of ${settingsPath(dataDir)}: ${loaded.problems.join("; ")}`);
  }
  return loaded.settings;
}

/**
 * Change the settings under the data lock: `fn` edits the object it gets (or returns a new one),
 * which is then written atomically. Refuses to overwrite a corrupt file.
 */
export async function updateSettings(
  dataDir: string,
  fn: (settings: Settings) => Settings | void | Promise<Settings | void>,
): Promise<Settings> {
  await ensureDataDir(dataDir);
  return await withFileLock(settingsLockPath(dataDir), async () => {
    const loaded = await loadSettings(dataDir);
    if (loaded.kind === "corrupt") {
      throw new ToolError(
        "io_error",
        `Cannot update ${settingsPath(dataDir)}: ${loaded.reason}; fix the file or delete it ` +
          "(deleting forgets every trusted project), then try again",
        { path: settingsPath(dataDir) },
      );
    }
    const current = loaded.kind === "ok" ? loaded.settings : defaultSettings();
    const next = (await fn(current)) ?? current;
    next.version = 1;
    await writeFileAtomic(settingsPath(dataDir), JSON.stringify(next, null, 2) + "\n");
    return next;
  });
}
