/**
 * Wires the fake Gradle into a simulator root: `<root>/gradle/control.json` and `journal.jsonl`,
 * and an executable `gradlew` in each sample project that execs `fake_gradle.ts` with this Deno.
 * Also the test-side handle on it (`GradleControl`): scenarios, delays, hangs, the journal.
 */
import { join } from "node:path";
import {
  type ControlFile,
  type ControlSettings,
  type GradleRun,
  isScenario,
  MAX_TASK_DELAY_MS,
  parseControl,
  type Scenario,
  SCENARIOS,
} from "./control.ts";

const FAKE_GRADLE = new URL("./fake_gradle.ts", import.meta.url).pathname;

/** A word the POSIX shell reads back as exactly `s`. */
export function shQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The `gradlew` script text. `DENO_DIR` defaults to a cache in the sim root. */
export function gradlewScript(opts: {
  deno: string;
  fake: string;
  control: string;
  journal: string;
  cache: string;
}): string {
  return [
    "#!/bin/sh",
    "# keynobi simulator: stands in for the Gradle wrapper. It runs tests/sim/gradle/fake_gradle.ts,",
    "# which answers like Gradle 8.9 and builds from the project's .sim-gradle.json.",
    `if [ -z "$DENO_DIR" ]; then DENO_DIR=${shQuote(opts.cache)}; export DENO_DIR; fi`,
    `exec ${shQuote(opts.deno)} run --quiet --no-config --no-lock --no-remote --no-npm ` +
    `--allow-read --allow-write --allow-env --allow-sys --allow-run=${shQuote(opts.deno)} ` +
    `${shQuote(opts.fake)} --sim-control ${shQuote(opts.control)} ` +
    `--sim-journal ${shQuote(opts.journal)} -- "$@"`,
    "",
  ].join("\n");
}

export interface FakeGradlePaths {
  controlPath: string;
  journalPath: string;
}

/** Creates `<root>/gradle/` and writes each project's `gradlew`. */
export async function installFakeGradle(
  root: string,
  projects: Record<string, string>,
): Promise<FakeGradlePaths> {
  const dir = join(root, "gradle");
  await Deno.mkdir(dir, { recursive: true });
  const controlPath = join(dir, "control.json");
  const journalPath = join(dir, "journal.jsonl");
  await Deno.writeTextFile(controlPath, "{}\n");
  await Deno.writeTextFile(journalPath, "");
  const script = gradlewScript({
    deno: Deno.execPath(),
    fake: FAKE_GRADLE,
    control: controlPath,
    journal: journalPath,
    cache: join(dir, "deno-cache"),
  });
  for (const path of Object.values(projects)) {
    const gradlew = join(path, "gradlew");
    await Deno.writeTextFile(gradlew, script);
    await Deno.chmod(gradlew, 0o755);
  }
  return { controlPath, journalPath };
}

/**
 * The test-side handle on the fake Gradle of one project (or of all, with `project` null).
 * Every setter rewrites the control file atomically (temp file + rename), so a build that starts
 * meanwhile reads either the old or the new settings.
 */
export interface GradleControl {
  /** `task` is a task name or path as requested (`assembleDemoDebug`, `:app:bundleDemoRelease`),
   * or `"default"` for every build. */
  setScenario(task: string, scenario: Scenario): Promise<void>;
  /** Pause between task lines, 0..MAX_TASK_DELAY_MS (default 20). */
  setTaskDelay(ms: number): Promise<void>;
  /** Builds stop at this task (name or path) and wait to be killed; null stops hanging. */
  hangAt(task: string | null): Promise<void>;
  /** Whether builds whose APK exists report every task UP-TO-DATE and write nothing. */
  setUpToDate(on: boolean): Promise<void>;
  /** Whether builds fail with AGP's "SDK location not found" when no SDK is configured. */
  requireSdk(on: boolean): Promise<void>;
  /** Whether a successful build leaves a daemon running in its process group. */
  leaveDaemon(on: boolean): Promise<void>;
  /** Back to defaults (success, 20 ms, no hang). */
  reset(): Promise<void>;
  /** Every invocation journaled so far (of this project only, unless created for all). */
  readJournal(): Promise<GradleRun[]>;
}

let tmpCounter = 0;

async function writeAtomic(path: string, text: string) {
  const tmp = `${path}.${Deno.pid}.${++tmpCounter}.tmp`;
  await Deno.writeTextFile(tmp, text);
  await Deno.rename(tmp, path);
}

export async function readGradleJournal(path: string): Promise<GradleRun[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as GradleRun);
}

export function gradleControl(
  paths: FakeGradlePaths,
  project: string | null,
): GradleControl {
  // Setters of one handle run one after another, each a read-modify-write of the file.
  let chain: Promise<void> = Promise.resolve();
  const edit = (f: (s: Partial<ControlSettings>) => void): Promise<void> => {
    const next = chain.then(async () => {
      let file: ControlFile;
      try {
        file = parseControl(await Deno.readTextFile(paths.controlPath));
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
        file = {};
      }
      if (project === null) {
        const { projects, ...top } = file;
        f(top);
        file = { ...top, ...(projects ? { projects } : {}) };
      } else {
        file.projects ??= {};
        const own = file.projects[project] ?? {};
        f(own);
        file.projects[project] = own;
      }
      await writeAtomic(paths.controlPath, JSON.stringify(file, null, 2) + "\n");
    });
    chain = next.catch(() => {});
    return next;
  };
  return {
    setScenario(task, scenario) {
      if (!isScenario(scenario)) {
        return Promise.reject(
          new RangeError(
            `Unknown fake Gradle scenario ${scenario}: use one of ${SCENARIOS.join(", ")}`,
          ),
        );
      }
      return edit((s) => {
        if (task === "default") s.default = scenario;
        else s.tasks = { ...(s.tasks ?? {}), [task]: scenario };
      });
    },
    setTaskDelay(ms) {
      if (!Number.isInteger(ms) || ms < 0 || ms > MAX_TASK_DELAY_MS) {
        return Promise.reject(
          new RangeError(`Cannot set task delay ${ms}: use an integer in 0..${MAX_TASK_DELAY_MS}`),
        );
      }
      return edit((s) => void (s.task_delay_ms = ms));
    },
    hangAt: (task) => edit((s) => void (s.hang_at = task)),
    setUpToDate: (on) => edit((s) => void (s.up_to_date = on)),
    requireSdk: (on) => edit((s) => void (s.require_sdk = on)),
    leaveDaemon: (on) => edit((s) => void (s.leave_daemon = on)),
    reset: () =>
      edit((s) => {
        for (const k of Object.keys(s)) delete (s as Record<string, unknown>)[k];
      }),
    async readJournal() {
      await chain;
      const all = await readGradleJournal(paths.journalPath);
      return project === null ? all : all.filter((r) => r.project === project);
    },
  };
}
