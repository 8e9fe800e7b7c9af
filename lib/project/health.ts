/**
 * `run_health_check`: can this machine build and deploy the selected project? Java, SDK, adb (and
 * whether the ADB server answers), the Gradle wrapper and the project decide `all_ok`; the Android
 * CLI is for information only (retrace runs in process, lib/retrace: the SDK's tool is not looked
 * for). For an untrusted project its `local.properties` `sdk.dir`
 * and `gradle.properties` are ignored.
 */
import type { Env } from "../core/env.ts";
import {
  readSettings,
  type Settings,
  type UnknownSettingsKey,
  unknownSettingsKeys,
} from "../core/settings.ts";
import { isTrusted } from "./trust.ts";
import type { ProjectSelection } from "./project_root.ts";
import { readGradleProject } from "./build_files.ts";
import { inspectWrapper, type WrapperInfo } from "./wrapper.ts";
import { type AndroidCliInfo, describeAndroidCli } from "../android/android_cli.ts";
import {
  describeJava,
  findExecutable,
  type JavaInfo,
  type JdkLocations,
  pathDirs,
  runProbe,
  TOOL_PROBE_TIMEOUT_MS,
} from "../android/jdk.ts";
import { findSdk, type SdkInfo } from "../android/sdk.ts";

/** How long the health check waits for the ADB server to answer `host:version`. */
const ADB_SERVER_PROBE_TIMEOUT_MS = 2_000;

/** What the health check needs of the ADB client (`AdbClient` in lib/adb/client.ts). */
export interface AdbServerProbe {
  serverVersion(options: { timeoutMs: number }): Promise<unknown>;
}

interface AdbCheck {
  ok: boolean;
  path: string | null;
  /** `1.0.41` from `adb version`. */
  version: string | null;
  /** The platform-tools version (`35.0.2-12147458`) from `adb version`. */
  tools_version: string | null;
  server_running: boolean;
  server_version: number | null;
  hint: string | null;
}

interface ProjectCheck {
  ok: boolean;
  root: string | null;
  name: string | null;
  selected_by: string | null;
  trusted: boolean;
  trust_hint: string | null;
  hint: string | null;
}

interface GradleWrapperCheck extends Omit<WrapperInfo, "hint"> {
  hint: string | null;
}

interface HealthReport {
  all_ok: boolean;
  checks: {
    java: JavaInfo;
    android_sdk: SdkInfo;
    adb: AdbCheck;
    gradle_wrapper: GradleWrapperCheck;
    project: ProjectCheck;
    android_cli: AndroidCliInfo;
    settings: SettingsCheck;
  };
}

/**
 * `settings.json` keys keynobi ignores (informational: it does not fail the check), such as the
 * spec's camelCase `mcp.allowUnrestrictedGradle` for `mcp.allow_unrestricted_gradle`.
 */
interface SettingsCheck {
  ok: boolean;
  unknown_keys: UnknownSettingsKey[];
  hint: string | null;
}

/** The settings check from the settings as read. Pure. */
function settingsCheck(settings: Settings): SettingsCheck {
  const unknown = unknownSettingsKeys(settings);
  if (unknown.length === 0) return { ok: true, unknown_keys: [], hint: null };
  const named = unknown.map((u) =>
    u.did_you_mean ? `${u.key} (did you mean ${u.did_you_mean}?)` : u.key
  ).join(", ");
  return {
    ok: false,
    unknown_keys: unknown,
    hint: `settings.json has keys keynobi does not read, so they change nothing: ${named}; ` +
      "rename them (keys are snake_case) or remove them",
  };
}

/** What an agent tells its user when a project is not trusted. */
export function trustHint(root: string): string {
  return `Ask the user to run \`keynobi trust ${root}\` in a terminal to let keynobi run this ` +
    "project's gradlew and build scripts; until then builds are refused (every other tool works)";
}

export const NO_PROJECT_HINT = "No Android project is selected: start `keynobi --mcp` in the " +
  "project's folder, or pass `--project <path>`";

/** `adb version` output → versions. Pure. */
export function parseAdbVersion(
  output: string,
): { version: string | null; tools_version: string | null } {
  const version = /Android Debug Bridge version (\S+)/.exec(output)?.[1] ?? null;
  const tools = /^Version (\S+)/m.exec(output)?.[1] ?? null;
  return { version, tools_version: tools };
}

interface HealthOptions {
  env: Env;
  dataDir: string;
  project: ProjectSelection | null;
  /** How the project was selected as reported (`app` for a session following the app). */
  selectedBy?: string | null;
  adb: AdbServerProbe;
  /** Test seams: where JDKs, SDKs and Android CLI are looked for. */
  jdkLocations?: JdkLocations;
  sdkDefaults?: string[];
  androidCliDirs?: string[];
  timeoutMs?: number;
}

async function checkAdb(
  env: Env,
  sdk: SdkInfo,
  adb: AdbServerProbe,
  timeoutMs: number,
): Promise<AdbCheck> {
  const path = sdk.adb_path ?? await findExecutable("adb", pathDirs(env));
  const [probe, server] = await Promise.all([
    path ? runProbe(path, ["version"], timeoutMs) : Promise.resolve(null),
    adb.serverVersion({ timeoutMs: ADB_SERVER_PROBE_TIMEOUT_MS }).then(
      (v) => ({ ok: true as const, version: typeof v === "number" ? v : null }),
      (e: unknown) => ({ ok: false as const, error: (e as Error)?.message ?? String(e) }),
    ),
  ]);
  const versions = probe?.ok
    ? parseAdbVersion(probe.stdout)
    : { version: null, tools_version: null };
  let hint: string | null = null;
  if (!server.ok && path === null) {
    hint = "No adb found and no ADB server answers: install Android SDK Platform-Tools " +
      "(or set ANDROID_HOME) so keynobi can start the server";
  } else if (!server.ok) {
    hint = `The ADB server does not answer (${server.error}); keynobi starts it with ` +
      `\`${path} start-server\` when a device tool needs it`;
  } else if (path === null) {
    hint = "The ADB server answers but no adb executable was found (fine for a remote server)";
  } else if (probe && !probe.ok) {
    hint = `Cannot run ${path} version: ${probe.error ?? `exit status ${probe.code}`}`;
  }
  return {
    ok: server.ok || (path !== null && probe?.ok === true),
    path,
    version: versions.version,
    tools_version: versions.tools_version,
    server_running: server.ok,
    server_version: server.ok ? server.version : null,
    hint,
  };
}

/** Run every check (concurrently). Never throws for a missing tool: each check says what to do. */
export async function runHealthCheck(options: HealthOptions): Promise<HealthReport> {
  const { env, project } = options;
  const timeoutMs = options.timeoutMs ?? TOOL_PROBE_TIMEOUT_MS;
  const settings = await readSettings(options.dataDir);
  const root = project?.root ?? null;
  const trusted = root !== null && await isTrusted(options.dataDir, root);

  const [java, sdk, wrapper, gradleProject, androidCli] = await Promise.all([
    describeJava({
      env,
      settings,
      projectRoot: root,
      trusted,
      locations: options.jdkLocations,
      timeoutMs,
    }),
    findSdk({ env, settings, projectRoot: root, trusted, defaults: options.sdkDefaults }),
    root ? inspectWrapper(root) : Promise.resolve(null),
    root ? readGradleProject(root) : Promise.resolve(null),
    describeAndroidCli(env, { dirs: options.androidCliDirs, timeoutMs }),
  ]);
  const adb = await checkAdb(env, sdk, options.adb, timeoutMs);

  const gradleWrapper: GradleWrapperCheck = wrapper ?? {
    ok: false,
    path: null,
    present: false,
    executable: false,
    distribution_url: null,
    gradle_version: null,
    hint: NO_PROJECT_HINT,
  };
  let projectCheck: ProjectCheck;
  if (root === null || gradleProject === null) {
    projectCheck = {
      ok: false,
      root: null,
      name: null,
      selected_by: null,
      trusted: false,
      trust_hint: null,
      hint: NO_PROJECT_HINT,
    };
  } else {
    const hasBuild = gradleProject.settings_file !== null;
    projectCheck = {
      ok: hasBuild,
      root,
      name: gradleProject.name,
      selected_by: options.selectedBy ?? project!.selectedBy,
      trusted,
      trust_hint: trusted ? null : trustHint(root),
      hint: hasBuild ? null : `${root} has no settings.gradle.kts or settings.gradle: ` +
        "select the Android project's root folder",
    };
  }
  const checks = {
    java,
    android_sdk: sdk,
    adb,
    gradle_wrapper: gradleWrapper,
    project: projectCheck,
    android_cli: androidCli,
    settings: settingsCheck(settings),
  };
  const allOk = java.ok && sdk.ok && adb.ok && gradleWrapper.ok && projectCheck.ok;
  return { all_ok: allOk, checks };
}

const mark = (ok: boolean) => ok ? "ok" : "FAIL";

/** A compact rendering for the tool's text content. Pure. */
export function renderHealth(report: HealthReport): string {
  const c = report.checks;
  const lines = [`Health: ${report.all_ok ? "all ok" : "problems found"}`];
  const add = (name: string, ok: boolean, detail: string, hint: string | null) => {
    lines.push(`- ${name}: ${mark(ok)} ${detail}`.trimEnd());
    if (hint) lines.push(`  hint: ${hint}`);
  };
  add(
    "java",
    c.java.ok,
    c.java.version ? `${c.java.version} (${c.java.source ?? "PATH"}) ${c.java.bin}` : "",
    [c.java.warning, c.java.hint].filter(Boolean).join(" ") || null,
  );
  add(
    "android_sdk",
    c.android_sdk.ok,
    c.android_sdk.path
      ? `${c.android_sdk.path} (${c.android_sdk.source}); platforms ${
        c.android_sdk.platforms.slice(0, 3).join(", ") || "none"
      }; build-tools ${c.android_sdk.build_tools.slice(0, 3).join(", ") || "none"}`
      : "",
    c.android_sdk.hint,
  );
  add(
    "adb",
    c.adb.ok,
    `${c.adb.path ?? "not found"}${c.adb.version ? ` ${c.adb.version}` : ""}; server ${
      c.adb.server_running ? "running" : "not answering"
    }`,
    c.adb.hint,
  );
  add(
    "gradle_wrapper",
    c.gradle_wrapper.ok,
    c.gradle_wrapper.gradle_version ? `Gradle ${c.gradle_wrapper.gradle_version}` : "",
    c.gradle_wrapper.hint,
  );
  add(
    "project",
    c.project.ok,
    c.project.root
      ? `${c.project.name} at ${c.project.root} (${c.project.trusted ? "trusted" : "not trusted"})`
      : "",
    c.project.hint ?? c.project.trust_hint,
  );
  lines.push(
    `- settings (info): ${c.settings.ok ? "ok" : "WARN"}`,
  );
  if (c.settings.hint) lines.push(`  hint: ${c.settings.hint}`);
  lines.push(
    `- android_cli (info): ${
      c.android_cli.installed ? `${c.android_cli.path} ${c.android_cli.version ?? ""}` : "missing"
    }`.trimEnd(),
  );
  return lines.join("\n");
}
