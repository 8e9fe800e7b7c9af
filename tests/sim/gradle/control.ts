/**
 * The fake Gradle's control file (what tests ask of the next builds) and its journal (what each
 * invocation did). Both live in `<sim root>/gradle/`. Pure: parsing and types only.
 *
 * control.json:
 * ```json
 * {"default": "success", "tasks": {"assembleDemoDebug": "kotlin_error"}, "task_delay_ms": 20,
 *  "hang_at": null, "up_to_date": false, "require_sdk": false,
 *  "projects": {"sample-kts": {"default": "java_error"}}}
 * ```
 * `tasks` keys match a requested task as typed, its resolved name or its path. `projects` holds
 * per-project overrides (by folder name) of the same fields.
 */

export const SCENARIOS = [
  "success",
  "kotlin_error",
  "java_error",
  "aapt_error",
  "sdk_location",
  "dependency_resolution",
  "lint_error",
  "kotlin_warning_success",
  /** A successful build whose app is broken: its sign-in never signs in (tests/sim/ui/app.ts). */
  "ui_regression",
  "test_failure",
  "hang",
] as const;
export type Scenario = typeof SCENARIOS[number];

/** Default pause between two task lines. */
export const DEFAULT_TASK_DELAY_MS = 20;
/** Largest pause between two task lines a control file may ask for. */
export const MAX_TASK_DELAY_MS = 60_000;
/** A control file larger than this is refused. */
export const MAX_CONTROL_BYTES = 64 * 1024;
/** At most this many per-task scenarios are read. */
export const MAX_TASK_SCENARIOS = 256;

export interface ControlSettings {
  default: Scenario;
  tasks: Record<string, Scenario>;
  task_delay_ms: number;
  /** A task (name or path) at which the build stops making progress and waits to be killed. */
  hang_at: string | null;
  /** When the APK exists, every task is UP-TO-DATE and nothing is rewritten. */
  up_to_date: boolean;
  /** Fail like AGP when neither ANDROID_HOME, ANDROID_SDK_ROOT nor local.properties names an SDK. */
  require_sdk: boolean;
  /** Device name printed by connected tests. */
  connected_device: string;
  /**
   * A successful build leaves a daemon running in its process group, as Gradle's daemon outlives
   * the client (here a sleeping process, its pid journaled as `daemon_pid`).
   */
  leave_daemon: boolean;
}

export interface ControlFile extends Partial<ControlSettings> {
  projects?: Record<string, Partial<ControlSettings>>;
}

export const DEFAULT_CONTROL: ControlSettings = {
  default: "success",
  tasks: {},
  task_delay_ms: DEFAULT_TASK_DELAY_MS,
  hang_at: null,
  up_to_date: false,
  require_sdk: false,
  connected_device: "Pixel_8_API_35(AVD) - 15",
  leave_daemon: false,
};

export function isScenario(s: unknown): s is Scenario {
  return typeof s === "string" && (SCENARIOS as readonly string[]).includes(s);
}

function bad(detail: string): never {
  throw new TypeError(`Cannot read the fake Gradle control file: ${detail}: fix the test's setup`);
}

function checkSettings(o: Record<string, unknown>, where: string): Partial<ControlSettings> {
  const out: Partial<ControlSettings> = {};
  if ("default" in o) {
    if (!isScenario(o.default)) bad(`${where}.default is not one of ${SCENARIOS.join(", ")}`);
    out.default = o.default;
  }
  if ("tasks" in o) {
    if (typeof o.tasks !== "object" || o.tasks === null) bad(`${where}.tasks is not an object`);
    const entries = Object.entries(o.tasks as Record<string, unknown>);
    if (entries.length > MAX_TASK_SCENARIOS) bad(`${where}.tasks has over ${MAX_TASK_SCENARIOS}`);
    out.tasks = {};
    for (const [k, v] of entries) {
      if (!isScenario(v)) bad(`${where}.tasks.${k} is not one of ${SCENARIOS.join(", ")}`);
      out.tasks[k] = v;
    }
  }
  if ("task_delay_ms" in o) {
    const d = o.task_delay_ms;
    if (typeof d !== "number" || !Number.isInteger(d) || d < 0 || d > MAX_TASK_DELAY_MS) {
      bad(`${where}.task_delay_ms is not an integer in 0..${MAX_TASK_DELAY_MS}`);
    }
    out.task_delay_ms = d;
  }
  if ("hang_at" in o) {
    if (o.hang_at !== null && typeof o.hang_at !== "string") {
      bad(`${where}.hang_at is not a string`);
    }
    out.hang_at = o.hang_at as string | null;
  }
  for (const k of ["up_to_date", "require_sdk", "leave_daemon"] as const) {
    if (k in o) {
      if (typeof o[k] !== "boolean") bad(`${where}.${k} is not a boolean`);
      out[k] = o[k] as boolean;
    }
  }
  if ("connected_device" in o) {
    if (typeof o.connected_device !== "string") bad(`${where}.connected_device is not a string`);
    out.connected_device = o.connected_device;
  }
  return out;
}

/** Parses a control file; `null` text (no file) means the defaults. */
export function parseControl(text: string | null): ControlFile {
  if (text === null || text.trim() === "") return {};
  if (text.length > MAX_CONTROL_BYTES) bad(`larger than ${MAX_CONTROL_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    bad(`not JSON (${(e as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) bad("not an object");
  const o = raw as Record<string, unknown>;
  const out: ControlFile = checkSettings(o, "control");
  if ("projects" in o) {
    if (typeof o.projects !== "object" || o.projects === null) bad("projects is not an object");
    out.projects = {};
    for (const [name, v] of Object.entries(o.projects as Record<string, unknown>)) {
      if (typeof v !== "object" || v === null) bad(`projects.${name} is not an object`);
      out.projects[name] = checkSettings(v as Record<string, unknown>, `projects.${name}`);
    }
  }
  return out;
}

/** The settings for one project: defaults, then the file's top level, then its project entry. */
export function settingsFor(c: ControlFile, project: string): ControlSettings {
  const { projects: _, ...top } = c;
  const own = c.projects?.[project] ?? {};
  return {
    ...DEFAULT_CONTROL,
    ...top,
    ...own,
    tasks: { ...(top.tasks ?? {}), ...(own.tasks ?? {}) },
  };
}

/** The scenario of a build: the first requested task with one (as typed, name or path), else default. */
export function scenarioFor(
  s: ControlSettings,
  requested: { typed: string; names: string[]; paths: string[] }[],
): Scenario {
  for (const r of requested) {
    for (const key of [r.typed, ...r.names, ...r.paths]) {
      if (Object.hasOwn(s.tasks, key)) return s.tasks[key];
    }
  }
  return s.default;
}

export const OUTCOMES = [
  "success",
  "build_failed",
  "configuration_failed",
  "task_selection_failed",
  "usage_error",
  "version",
  "help",
  "no_build",
  "sigterm",
  "sigint",
  "stdout_closed",
  "sim_error",
] as const;
export type Outcome = typeof OUTCOMES[number];

/** One journal line: one gradlew invocation. */
export interface GradleRun {
  /** ISO time the invocation started. */
  t: string;
  cwd: string;
  argv: string[];
  env: { JAVA_HOME: string | null; ANDROID_HOME: string | null; ANDROID_SDK_ROOT: string | null };
  pid: number;
  /** Folder name of the project built (null when none was found). */
  project: string | null;
  /** Task paths scheduled, in order (empty when selection failed). */
  tasks: string[];
  scenario: Scenario | null;
  /** 1 for the first invocation journaled in this sim, and so on. */
  build: number;
  outcome: Outcome;
  exit_code: number;
  /** Files written, relative to the project root. */
  outputs: string[];
  /** The daemon a successful build left running (`leave_daemon`), else absent. */
  daemon_pid?: number;
}
