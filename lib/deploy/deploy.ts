/**
 * The deploy service `install_apk` and `run_run_configuration` share: install checked APK bytes
 * (streamed, with progress and cancellation), record the install in `installed-builds.json`
 * matched to the build that wrote it, and launch the app per a configuration's `launch`.
 */
import type { DeviceShell } from "../adb/client.ts";
import {
  ApkFormatError,
  type ApkManifest,
  readApkManifestFrom,
  sha256OfAccess,
} from "../android/apk.ts";
import { invalidParams } from "../core/errors.ts";
import { listBuildRecords, MAX_BUILD_RECORDS } from "../build/shared/build_history.ts";
import { type Origin } from "../build/shared/build_record.ts";
import type { RunLaunch } from "../project/run_configs.ts";
import {
  type InstalledBuild,
  matchBuildRecord,
  recordInstall,
} from "../sessions/installed_builds.ts";
import type { CheckedApk } from "./apk_file.ts";
import { type InstallAdb, streamInstall } from "./install.ts";
import { componentFor, type LaunchResult, resolveLauncher, startActivity } from "./launch.ts";
import { amStart } from "../android/am.ts";
import { validateDeepLink } from "../core/validation.ts";
import { parseDumpsysPackage } from "../android/dumpsys_package.ts";
import { touchMapping } from "../retrace/shared/mapping_store.ts";
import type { DebugSessionRecorder } from "../sessions/session_recorder.ts";
import { openOp } from "../sessions/session_events.ts";

/** Output of `dumpsys package` read at most. */
const MAX_DUMPSYS_BYTES = 2 * 1024 * 1024;

export interface DeployDeps {
  adb: InstallAdb & DeviceShell;
  dataDir: string;
  origin: Origin;
  recordedBy: "standalone" | "attached";
  /** Where the install opens its debug session (queued; never waited for). */
  sessions?: DebugSessionRecorder;
}

interface InstallOutcome {
  record: InstalledBuild;
  manifest: ApkManifest;
  sha256: string;
}

/** The manifest of checked APK bytes; an unreadable APK is refused before any device command. */
export async function apkManifestOf(apk: CheckedApk): Promise<ApkManifest> {
  try {
    return await readApkManifestFrom(apk.file);
  } catch (e) {
    if (e instanceof ApkFormatError) {
      throw invalidParams(
        `Cannot install ${apk.relative}: it is not a readable APK (${e.message}); rebuild it`,
        { apk_path: apk.relative },
      );
    }
    throw e;
  }
}

/**
 * Installs `apk` on `serial` and records it. `project` is the canonical root the APK came from.
 * `onProgress(sent, total)` follows the bytes streamed.
 */
export async function installAndRecord(
  deps: DeployDeps,
  serial: string,
  apk: CheckedApk,
  project: string,
  opts: {
    signal?: AbortSignal;
    onProgress?: (sent: number, total: number) => void;
    manifest?: ApkManifest;
  } = {},
): Promise<InstallOutcome> {
  const manifest = opts.manifest ?? await apkManifestOf(apk);
  const sha256 = await sha256OfAccess(apk.file);
  await streamInstall(deps.adb, serial, apk.file, {
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  const history = await listBuildRecords(deps.dataDir, { project, limit: MAX_BUILD_RECORDS });
  const match = matchBuildRecord(history, sha256, project);
  const mapping =
    match?.record.mappings.find((m) =>
      m.module === match.apk.module && m.variant === match.apk.variant
    ) ?? null;
  if (mapping) await touchMapping(deps.dataDir, mapping.sha256);
  const lastUpdate = await readLastUpdateTime(deps.adb, serial, manifest.package);
  const record: InstalledBuild = {
    serial,
    package: manifest.package,
    version_code: manifest.version_code,
    version_name: manifest.version_name,
    apk_sha256: sha256,
    apk_bytes: apk.size,
    apk_path: apk.path,
    project,
    build_id: match?.record.id ?? null,
    module: match?.apk.module ?? apk.module,
    variant: match?.apk.variant ?? null,
    task: match?.record.task ?? null,
    installed_at: new Date().toISOString(),
    installed_by: deps.origin,
    recorded_by: deps.recordedBy,
    map_ids: mapping?.map_id ? [mapping.map_id] : [],
    mapping_sha256: mapping?.sha256 ?? null,
    device_last_update_time: lastUpdate,
  };
  await recordInstall(deps.dataDir, record);
  if (deps.sessions) {
    const facts = await deviceFacts(deps.adb, serial);
    deps.sessions.record(openOp({
      package: manifest.package,
      serial,
      model: facts.model,
      avd: facts.avd,
      project,
      build: {
        build_id: record.build_id,
        task: record.task,
        module: record.module,
        variant: record.variant,
        version_code: record.version_code,
        version_name: record.version_name,
        apk_sha256: sha256,
        map_ids: record.map_ids,
        mapping_sha256: record.mapping_sha256,
        source: match?.record.provenance ?? null,
      },
      installedBy: deps.origin,
      recordedBy: deps.recordedBy,
      deviceInstalledAt: lastUpdate,
      at: new Date(),
    }));
  }
  return { record, manifest, sha256 };
}

/** Bound on each `getprop` read for a session's device facts. */
const DEVICE_FACTS_TIMEOUT_MS = 5_000;

/** The device's model and (for an emulator) AVD name, best effort. */
async function deviceFacts(
  adb: DeviceShell,
  serial: string,
): Promise<{ model: string | null; avd: string | null }> {
  const prop = async (name: string) => {
    try {
      const r = await adb.shell(serial, ["getprop", name], {
        timeoutMs: DEVICE_FACTS_TIMEOUT_MS,
        maxOutputBytes: 4_096,
      });
      const v = r.text().trim();
      return v === "" ? null : v.slice(0, 200);
    } catch {
      return null;
    }
  };
  const model = await prop("ro.product.model");
  const avd = serial.startsWith("emulator-") ? await prop("ro.boot.qemu.avd_name") : null;
  return { model, avd };
}

/** Bound on the `dumpsys package` read after an install. */
const LAST_UPDATE_TIMEOUT_MS = 10_000;

/** The device's `lastUpdateTime` of `pkg` (as printed), or `null` when it cannot be read. */
async function readLastUpdateTime(
  adb: DeviceShell,
  serial: string,
  pkg: string,
): Promise<string | null> {
  try {
    const r = await adb.shell(serial, ["dumpsys", "package", pkg], {
      timeoutMs: LAST_UPDATE_TIMEOUT_MS,
      maxOutputBytes: MAX_DUMPSYS_BYTES,
    });
    return parseDumpsysPackage(r.text(), pkg).last_update_time;
  } catch {
    return null;
  }
}

/** A launch after an install; `null` for `launch: none`. */
export async function launchInstalled(
  adb: DeviceShell,
  serial: string,
  manifest: ApkManifest,
  launch: RunLaunch,
  /** The project's deep-link schemes (`projectLinkSchemes`); http and https are always allowed. */
  linkSchemes: readonly string[] = [],
): Promise<LaunchResult | null> {
  const pkg = manifest.package;
  switch (launch.kind) {
    case "none":
      return null;
    case "activity": {
      const full = launch.activity.startsWith(".") ? pkg + launch.activity : launch.activity;
      return await startActivity(adb, serial, componentFor(pkg, full));
    }
    case "default":
      return await startActivity(adb, serial, await resolveLauncher(adb, serial, pkg, manifest));
    case "deep_link": {
      const uri = validateDeepLink(launch.uri, "launch.uri", linkSchemes);
      const { output, report } = await amStart(adb, serial, {
        action: "android.intent.action.VIEW",
        data: uri,
        package: pkg,
      }, {
        wait: true,
        what: `open ${uri} in ${pkg}`,
        next: "check the app's intent filters for that link",
      });
      return { component: `${pkg} ${uri}`, output, report };
    }
  }
}
