/**
 * `<data dir>/installed-builds.json`: which build of which app each device has, as keynobi
 * installed it. One record per device and package (a new install replaces the old one), with the
 * APK's SHA-256, its version, the build-history record whose APK list holds that hash, when, and
 * who installed it. Shared by every keynobi process: writers hold `installed-builds.lock` and
 * replace the file atomically; readers do not lock (the rename keeps the file whole). A file that
 * cannot be parsed is moved aside as `installed-builds.json.corrupt-<time>` with a warning.
 */
import { join } from "../core/path.ts";
import { ensureDataDir, installedBuildsPath } from "../core/data_dir.ts";
import { withFileLock, writeFileAtomic } from "../core/file_lock.ts";
import { isRecord, parseJsonRecord } from "../core/json.ts";
import { log } from "../core/log.ts";
import { clip } from "../core/text.ts";
import { fileStamp } from "../build/shared/build_history.ts";
import {
  type BuildRecord,
  describeOrigin,
  type Origin,
  parseOrigin,
} from "../build/shared/build_record.ts";
import type { BuiltApk } from "../build/shared/built_apks.ts";

/** Records kept (one per device and package); the oldest installs are dropped. */
export const MAX_INSTALLED_BUILDS = 500;
/** A file larger than this is treated as corrupt. */
const MAX_INSTALLED_FILE_BYTES = 16 * 1024 * 1024;
/** Longest string field kept. */
const MAX_INSTALLED_FIELD_CHARS = 4_096;
const INSTALLED_VERSION = 1;
/** Map ids kept per install record. */
const MAX_MAP_IDS = 16;

const installedBuildsLockPath = (dataDir: string) => join(dataDir, "installed-builds.lock");

export interface InstalledBuild {
  serial: string;
  package: string;
  version_code: number | null;
  version_name: string | null;
  apk_sha256: string;
  apk_bytes: number;
  /** The canonical path that was installed. */
  apk_path: string;
  /** The canonical project root, when the APK came from one. */
  project: string | null;
  /** The build-history record that lists this APK's hash; `null` when none does. */
  build_id: number | null;
  module: string | null;
  variant: string | null;
  task: string | null;
  /** ISO 8601. */
  installed_at: string;
  installed_by: Origin;
  /** `standalone` or `attached`: which kind of keynobi server recorded it. */
  recorded_by: "standalone" | "attached";
  /** The R8 map ids and the kept mapping of the build it came from (`[]` / `null`: none). */
  map_ids: string[];
  mapping_sha256: string | null;
  /**
   * `lastUpdateTime` as the device's `dumpsys package` printed it right after the install, so a
   * later reinstall by anything else shows as a different value (`null`: not read).
   */
  device_last_update_time: string | null;
}

const str = (v: unknown) => typeof v === "string" ? clip(v, MAX_INSTALLED_FIELD_CHARS) : null;
const int = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) ? v : null;

/** A valid record, bounded, or `null`. Pure. */
export function normalizeInstalled(v: unknown): InstalledBuild | null {
  if (!isRecord(v)) return null;
  const serial = str(v.serial);
  const pkg = str(v.package);
  const sha = typeof v.apk_sha256 === "string" && /^[0-9a-f]{64}$/.test(v.apk_sha256)
    ? v.apk_sha256
    : null;
  const by = parseOrigin(v.installed_by);
  const at = str(v.installed_at);
  if (!serial || !pkg || !sha || !by || !at) return null;
  return {
    serial,
    package: pkg,
    version_code: int(v.version_code),
    version_name: str(v.version_name),
    apk_sha256: sha,
    apk_bytes: Math.max(0, int(v.apk_bytes) ?? 0),
    apk_path: str(v.apk_path) ?? "",
    project: str(v.project),
    build_id: int(v.build_id),
    module: str(v.module),
    variant: str(v.variant),
    task: str(v.task),
    installed_at: at,
    installed_by: by,
    recorded_by: v.recorded_by === "attached" ? "attached" : "standalone",
    map_ids: Array.isArray(v.map_ids)
      ? v.map_ids.filter((m): m is string => typeof m === "string" && /^[0-9a-f]{1,64}$/.test(m))
        .slice(0, MAX_MAP_IDS)
      : [],
    mapping_sha256: typeof v.mapping_sha256 === "string" && /^[0-9a-f]{64}$/.test(v.mapping_sha256)
      ? v.mapping_sha256
      : null,
    device_last_update_time: str(v.device_last_update_time),
  };
}

/** The records of a file's text, or `null` when it is not a valid installed-builds file. Pure. */
function parseInstalled(text: string): InstalledBuild[] | null {
  const raw = parseJsonRecord(text);
  if (raw === null || !Array.isArray(raw.installs)) return null;
  return raw.installs.map(normalizeInstalled).filter((r): r is InstalledBuild => r !== null)
    .slice(-MAX_INSTALLED_BUILDS);
}

/**
 * `records` with `entry` replacing any record for the same device and package, newest last,
 * bounded to `max`. Pure.
 */
export function withInstall(
  records: readonly InstalledBuild[],
  entry: InstalledBuild,
  max = MAX_INSTALLED_BUILDS,
): InstalledBuild[] {
  const kept = records.filter((r) => !(r.serial === entry.serial && r.package === entry.package));
  kept.push(entry);
  return kept.slice(-max);
}

/**
 * The newest build record (of `project`, when given) whose APK list holds `sha256`, and that
 * APK. Pure.
 */
export function matchBuildRecord(
  records: readonly BuildRecord[],
  sha256: string,
  project: string | null = null,
): { record: BuildRecord; apk: BuiltApk } | null {
  let best: { record: BuildRecord; apk: BuiltApk } | null = null;
  for (const r of records) {
    if (project !== null && r.project !== project) continue;
    const apk = r.apks.find((a) => a.sha256 === sha256);
    if (apk && (best === null || r.id > best.record.id)) best = { record: r, apk };
  }
  return best;
}

async function load(dataDir: string): Promise<InstalledBuild[]> {
  const path = installedBuildsPath(dataDir);
  let text: string;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_INSTALLED_FILE_BYTES) {
      await setAside(path, info.isFile ? `it is ${info.size} bytes` : "it is not a file");
      return [];
    }
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const parsed = parseInstalled(text);
  if (parsed === null) {
    await setAside(path, "it is not valid JSON of the expected shape");
    return [];
  }
  return parsed;
}

async function setAside(path: string, why: string): Promise<void> {
  const aside = `${path}.corrupt-${fileStamp(new Date())}`;
  log.warn(`Moving ${path} aside to ${aside}: ${why}; installs recorded from now on start afresh`);
  await Deno.rename(path, aside).catch(() => {});
}

/** Every recorded install, oldest first. Reads without the lock. */
export async function listInstalledBuilds(
  dataDir: string,
  filter: { serial?: string; package?: string; project?: string } = {},
): Promise<InstalledBuild[]> {
  let text: string;
  try {
    const info = await Deno.stat(installedBuildsPath(dataDir));
    if (!info.isFile || info.size > MAX_INSTALLED_FILE_BYTES) return [];
    text = await Deno.readTextFile(installedBuildsPath(dataDir));
  } catch {
    return [];
  }
  return (parseInstalled(text) ?? []).filter((r) =>
    (filter.serial === undefined || r.serial === filter.serial) &&
    (filter.package === undefined || r.package === filter.package) &&
    (filter.project === undefined || r.project === filter.project)
  );
}

/** The record of `package` on `serial`, or `null`. */
export async function getInstalledBuild(
  dataDir: string,
  serial: string,
  pkg: string,
): Promise<InstalledBuild | null> {
  return (await listInstalledBuilds(dataDir, { serial, package: pkg }))[0] ?? null;
}

/** Saves `entry` under the data lock, replacing the device's record of that package. */
export async function recordInstall(dataDir: string, entry: InstalledBuild): Promise<void> {
  await ensureDataDir(dataDir);
  const clean = normalizeInstalled(entry);
  if (clean === null) throw new TypeError("Cannot record an install: the entry is incomplete");
  await withFileLock(installedBuildsLockPath(dataDir), async () => {
    const next = withInstall(await load(dataDir), clean);
    await writeFileAtomic(
      installedBuildsPath(dataDir),
      JSON.stringify({ version: INSTALLED_VERSION, installs: next }, null, 2) + "\n",
    );
  });
}

/** The `Recorded …` line an install result ends with. Pure. */
export function recordedLine(r: InstalledBuild): string {
  const version = r.version_name !== null || r.version_code !== null
    ? ` ${r.version_name ?? "?"} (${r.version_code ?? "?"})`
    : "";
  const build = r.build_id !== null
    ? `build #${r.build_id}${r.variant ? ` ${r.variant}` : ""}`
    : "no build record lists this APK";
  return `Recorded ${r.package}${version} on ${r.serial}: sha256 ${
    r.apk_sha256.slice(0, 12)
  }…, ${build}, installed by ${describeOrigin(r.installed_by)}`;
}
