/**
 * The JDK Gradle builds use (the spec's `java` object), and the small process-probe adapter that
 * every version probe (java, adb, retrace, Android CLI) shares.
 *
 * Resolution order: `userGradleProperties` (`org.gradle.java.home` in
 * `$GRADLE_USER_HOME/gradle.properties`, default `~/.gradle`), `projectGradleProperties` (the
 * project's `gradle.properties`, ONLY for a trusted project: an untrusted clone must not choose
 * which executable keynobi runs), `settings` (`java_home`), `androidStudio` (its bundled `jbr`),
 * `installedJdk` (`JAVA_HOME`, then known JDK folders), else `null` with `java` on `PATH`.
 * A configured home (the first three) is reported even when broken, since that is what the build
 * would use; discovered homes are used only when they contain `bin/java`.
 */
import { basename, delimiter, dirname, join } from "../core/path.ts";
import { isFile } from "../core/file_kind.ts";
import type { Env } from "../core/env.ts";
import { homeDir } from "../core/data_dir.ts";
import type { Settings } from "../core/settings.ts";
import { readProjectProperties, readPropertiesFile } from "../core/properties.ts";
import { runCommand, type RunCommandResult } from "../core/run_command.ts";

/** Every tool version probe is killed after this long. */
export const TOOL_PROBE_TIMEOUT_MS = 4_000;
/** The largest probe timeout a caller may ask for. */
const MAX_TOOL_PROBE_TIMEOUT_MS = 30_000;
/** A probe's stdout and stderr are each kept up to this many bytes. */
const MAX_PROBE_OUTPUT_BYTES = 64 * 1024;
/** JDKs older than this get a warning (Android Gradle Plugin 8 needs 17). */
const MIN_JDK_MAJOR = 17;
/** At most this many entries of a JDK parent folder are considered. */
const MAX_JDK_CANDIDATES = 200;

/** A probe's run; `ok`: exit status 0 within the timeout. */
type ProbeResult = Omit<RunCommandResult, "notFound"> & { ok: boolean };

/** Run `path args…` (an argument vector, never a shell) with a timeout; never throws. */
export async function runProbe(
  path: string,
  args: string[],
  timeoutMs = TOOL_PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  const timeout = Math.min(Math.max(1, timeoutMs), MAX_TOOL_PROBE_TIMEOUT_MS);
  const run = await runCommand(path, args, {
    timeoutMs: timeout,
    maxOutputBytes: MAX_PROBE_OUTPUT_BYTES,
  });
  return {
    ok: run.code === 0,
    code: run.code,
    stdout: run.stdout,
    stderr: run.stderr,
    timedOut: run.timedOut,
    error: run.timedOut ? `it did not finish within ${timeout} ms` : run.error,
  };
}

/** The folders of `PATH`. */
export function pathDirs(env: Env): string[] {
  return (env.get("PATH") ?? "").split(delimiter).filter((d) => d !== "");
}

/** The first `dir/name` (`name.exe` on Windows) that is an executable file. */
export async function findExecutable(name: string, dirs: string[]): Promise<string | null> {
  const names = Deno.build.os === "windows" ? [`${name}.exe`, `${name}.bat`, name] : [name];
  for (const dir of dirs) {
    for (const n of names) {
      const candidate = join(dir, n);
      try {
        const info = await Deno.stat(candidate);
        if (info.isFile && (info.mode === null || (info.mode & 0o111) !== 0)) return candidate;
      } catch { /* next */ }
    }
  }
  return null;
}

type JavaSource =
  | "userGradleProperties"
  | "projectGradleProperties"
  | "settings"
  | "androidStudio"
  | "installedJdk";

export interface JavaInfo {
  ok: boolean;
  java_home: string | null;
  source: JavaSource | null;
  major_version: number | null;
  version: string | null;
  bin: string | null;
  warning: string | null;
  hint: string | null;
}

/** `openjdk version "17.0.15"` → `{version: "17.0.15", major: 17}`; `"1.8.0_392"` → 8. Pure. */
export function parseJavaVersion(output: string): { version: string; major: number } | null {
  const m = /version "([^"]+)"/.exec(output);
  if (!m) return null;
  const major = javaMajor(m[1]);
  return major === null ? null : { version: m[1], major };
}

/** The major of a Java version string or a JDK folder name (`jdk1.8.0_392`, `java-17-…`). Pure. */
export function javaMajor(s: string): number | null {
  const m = /(\d+)(?:\.(\d+))?/.exec(s);
  if (!m) return null;
  const first = Number(m[1]);
  if (first === 1 && m[2] !== undefined) return Number(m[2]);
  return first;
}

export interface JdkLocations {
  /** Android Studio `jbr` (or `jre`) homes to try, in order. */
  androidStudio: string[];
  /** Folders whose children are JDK homes (`/usr/lib/jvm`). */
  jdkParents: string[];
}

/** Where Android Studio and JDKs are usually installed on this OS. */
function defaultJdkLocations(env: Env): JdkLocations {
  const home = homeDir(env) ?? "/nonexistent";
  switch (Deno.build.os) {
    case "darwin":
      return {
        androidStudio: [
          "/Applications/Android Studio.app/Contents/jbr/Contents/Home",
          join(home, "Applications/Android Studio.app/Contents/jbr/Contents/Home"),
          "/Applications/Android Studio.app/Contents/jre/Contents/Home",
        ],
        jdkParents: [
          "/Library/Java/JavaVirtualMachines",
          join(home, "Library/Java/JavaVirtualMachines"),
        ],
      };
    case "windows": {
      const pf = env.get("ProgramFiles") ?? "C:\\Program Files";
      return {
        androidStudio: [join(pf, "Android", "Android Studio", "jbr")],
        jdkParents: [join(pf, "Java"), join(pf, "Eclipse Adoptium"), join(pf, "Microsoft")],
      };
    }
    default:
      return {
        androidStudio: [
          "/opt/android-studio/jbr",
          join(home, "android-studio/jbr"),
          "/usr/local/android-studio/jbr",
          "/snap/android-studio/current/jbr",
          join(home, ".local/share/JetBrains/Toolbox/apps/android-studio/jbr"),
        ],
        jdkParents: ["/usr/lib/jvm", "/usr/java", join(home, ".jdks")],
      };
  }
}

const javaBin = (home: string) =>
  join(home, "bin", Deno.build.os === "windows" ? "java.exe" : "java");

function hasJava(home: string): Promise<boolean> {
  return isFile(javaBin(home));
}

/** Order JDK folder names: majors 17–21 (newest first), then the rest (newest first). Pure. */
export function rankJdkNames(names: string[]): string[] {
  const score = (n: string) => {
    const major = javaMajor(n) ?? 0;
    return major >= MIN_JDK_MAJOR && major <= 21 ? 1000 + major : major;
  };
  return [...names].sort((a, b) => score(b) - score(a) || a.localeCompare(b));
}

async function jdkHomesUnder(parent: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(parent)) {
      if (names.length >= MAX_JDK_CANDIDATES) break;
      if (entry.isDirectory || entry.isSymlink) names.push(entry.name);
    }
  } catch {
    return [];
  }
  const homes: string[] = [];
  for (const name of rankJdkNames(names)) {
    // macOS bundles keep the home in Contents/Home.
    for (const home of [join(parent, name), join(parent, name, "Contents", "Home")]) {
      if (await hasJava(home)) {
        homes.push(home);
        break;
      }
    }
  }
  return homes;
}

interface ResolveJavaOptions {
  env: Env;
  settings: Settings;
  /** Canonical project root, or `null` when none is selected. */
  projectRoot: string | null;
  /** Whether that project is trusted; its `gradle.properties` is read only when it is. */
  trusted: boolean;
  locations?: JdkLocations;
  timeoutMs?: number;
  /**
   * Take the version from the JDK's `release` file when it has one instead of running
   * `java -version` (builds do; the health check runs the JVM to prove it works).
   */
  versionFromReleaseFile?: boolean;
}

/** `$GRADLE_USER_HOME` or `~/.gradle`. */
function gradleUserHome(env: Env): string | null {
  const g = env.get("GRADLE_USER_HOME");
  if (g) return g;
  const home = homeDir(env);
  return home ? join(home, ".gradle") : null;
}

async function javaHomeProperty(path: string): Promise<string | null> {
  const value = (await readPropertiesFile(path))?.get("org.gradle.java.home")?.trim();
  return value ? value : null;
}

/** Which JDK home the build would use and where that choice came from; no process is run. */
export async function resolveJavaHome(
  options: ResolveJavaOptions,
): Promise<{ home: string; source: JavaSource } | null> {
  const gradleHome = gradleUserHome(options.env);
  if (gradleHome) {
    const home = await javaHomeProperty(join(gradleHome, "gradle.properties"));
    if (home) return { home, source: "userGradleProperties" };
  }
  if (options.projectRoot !== null && options.trusted) {
    const value = (await readProjectProperties(options.projectRoot, "gradle.properties"))
      ?.get("org.gradle.java.home")?.trim();
    const home = value ? value : null;
    if (home) return { home, source: "projectGradleProperties" };
  }
  if (options.settings.java_home) return { home: options.settings.java_home, source: "settings" };
  const locations = options.locations ?? defaultJdkLocations(options.env);
  for (const home of locations.androidStudio) {
    if (await hasJava(home)) return { home, source: "androidStudio" };
  }
  const javaHome = options.env.get("JAVA_HOME");
  if (javaHome && await hasJava(javaHome)) return { home: javaHome, source: "installedJdk" };
  for (const parent of locations.jdkParents) {
    const homes = await jdkHomesUnder(parent);
    if (homes.length > 0) return { home: homes[0], source: "installedJdk" };
  }
  return null;
}

const SOURCE_LABEL: Record<JavaSource, string> = {
  userGradleProperties: "org.gradle.java.home in the user's gradle.properties",
  projectGradleProperties: "org.gradle.java.home in the project's gradle.properties",
  settings: "java_home in keynobi's settings.json",
  androidStudio: "Android Studio's bundled JDK",
  installedJdk: "an installed JDK",
};

/** `JAVA_VERSION="17.0.15"` from a JDK's `release` file, as `java -version` would say it. */
export async function releaseVersion(
  home: string,
): Promise<{ version: string; major: number } | null> {
  const text = await Deno.readTextFile(join(home, "release")).catch(() => null);
  const m = text ? /^JAVA_VERSION="([^"]+)"/m.exec(text) : null;
  return m ? parseJavaVersion(`version "${m[1]}"`) : null;
}

/** The spec's `java` object: resolve the JDK, then probe `java -version`. */
export async function describeJava(options: ResolveJavaOptions): Promise<JavaInfo> {
  const resolved = await resolveJavaHome(options);
  let bin: string | null;
  let home: string | null = null;
  if (resolved) {
    home = resolved.home;
    bin = javaBin(home);
  } else {
    bin = await findExecutable("java", pathDirs(options.env));
    if (bin === null) {
      return {
        ok: false,
        java_home: null,
        source: null,
        major_version: null,
        version: null,
        bin: null,
        warning: null,
        hint: `No JDK found: install JDK ${MIN_JDK_MAJOR} or newer (or Android Studio), or set ` +
          "JAVA_HOME or java_home in keynobi's settings.json",
      };
    }
    try {
      home = dirname(dirname(await Deno.realPath(bin)));
      if (basename(home) === "jre") home = dirname(home);
    } catch { /* keep null */ }
  }
  // Builds only need the version: the JDK's `release` file has it without starting a JVM.
  const fromRelease = options.versionFromReleaseFile && home ? await releaseVersion(home) : null;
  const probe = fromRelease
    ? { ok: true, code: 0, stdout: "", stderr: "", timedOut: false, error: null }
    : await runProbe(bin, ["-version"], options.timeoutMs);
  const parsed = fromRelease ?? parseJavaVersion(`${probe.stderr}\n${probe.stdout}`);
  const from = resolved ? SOURCE_LABEL[resolved.source] : "java on PATH";
  if (!probe.ok || parsed === null) {
    const why = probe.error ?? (probe.ok ? "it printed no version" : `exit status ${probe.code}`);
    return {
      ok: false,
      java_home: home,
      source: resolved?.source ?? null,
      major_version: parsed?.major ?? null,
      version: parsed?.version ?? null,
      bin,
      warning: null,
      hint: `Cannot run ${bin} -version (from ${from}): ${why}; point it at a JDK ` +
        `${MIN_JDK_MAJOR} or newer`,
    };
  }
  const old = parsed.major < MIN_JDK_MAJOR;
  return {
    ok: true,
    java_home: home,
    source: resolved?.source ?? null,
    major_version: parsed.major,
    version: parsed.version,
    bin,
    warning: old
      ? `JDK ${parsed.major} is older than ${MIN_JDK_MAJOR}, which Android Gradle Plugin 8 ` +
        "requires: builds will likely fail"
      : null,
    hint: old ? `Install JDK ${MIN_JDK_MAJOR} or newer and select it through ${from}` : null,
  };
}
