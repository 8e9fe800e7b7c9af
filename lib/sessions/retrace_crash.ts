/**
 * Deobfuscating logcat crashes: which kept R8 mapping belongs to the code that crashed, then the
 * retrace in the retrace worker (lib/retrace/shared/retrace_client.ts), one request per mapping
 * for all the crashes it matched. The mapping is matched, in this order:
 * 1. `map_id`: the `r8-map-id-<id>` every obfuscated frame names (R8 8.x writes it as the source
 *    file), against the kept builds' mappings; no device call.
 * 2. `device_hash`: the APK the device has for the package (`pm path <pkg>`, then
 *    `sha256sum <path>`, both quoted), found among keynobi's installs and the kept builds' APKs.
 * 3. `install_record`: only when the device cannot hash its APK, keynobi's install of the package
 *    on that device, if the device's `versionCode` and `lastUpdateTime` are still what they were
 *    right after that install.
 * Anything uncertain is `refused` with the reason (an unknown map id, frames naming several,
 * split APKs, an APK hash nothing kept matches, a reinstall since the record), never guessed.
 * `unavailable`: no mapping exists for the build (it was not minified) or it is no longer kept.
 * `refused` also when the mapping cannot fit the retrace memory budget (the worker says why).
 * `failed`: the mapping could not be read. Never a tool error.
 */
import type { DeviceShell } from "../adb/client.ts";
import { listBuildRecords, MAX_BUILD_RECORDS } from "../build/shared/build_history.ts";
import { type BuildRecord } from "../build/shared/build_record.ts";
import { listInstalledBuilds } from "./installed_builds.ts";
import { parseDumpsysPackage } from "../android/dumpsys_package.ts";
import type { BuildMapping } from "../retrace/shared/mapping_store.ts";
import { mapIdsInTrace } from "../retrace/shared/trace_frames.ts";
import type { RetraceStats, RunParams, RunResult } from "../retrace/shared/retrace_protocol.ts";
import { ToolError } from "../core/errors.ts";

/** What retraces a batch of traces with one mapping: the retrace worker's client. */
interface Retracer {
  run(p: RunParams, signal?: AbortSignal): Promise<RunResult>;
}

/** Each device query of the matching (`pm path`, `sha256sum`, `dumpsys package`) may take this. */
const RETRACE_DEVICE_TIMEOUT_MS = 15_000;
/** Output read of those queries. */
const MAX_DEVICE_QUERY_BYTES = 2 * 1024 * 1024;

type RetraceStatus = "retraced" | "unavailable" | "refused" | "failed";
type MatchedBy = "map_id" | "device_hash" | "install_record";

export interface RetraceResult {
  status: RetraceStatus;
  /** Deobfuscated, else as logcat printed it. */
  trace: string;
  /** What was used, or `Not deobfuscated: <reason>`. */
  mapping_line: string;
  build_id: number | null;
  module: string | null;
  variant: string | null;
  map_id: string | null;
  mapping_sha256: string | null;
  matched_by: MatchedBy | null;
  /** What the device confirmed (`null` when it was not asked). */
  device: { serial: string; apk_sha256: string | null; version_code: number | null } | null;
  reason: string | null;
  stats: RetraceStats | null;
}

export interface CrashToRetrace {
  /** Serial of the device it crashed on. */
  serial: string;
  package: string | null;
  /** The crash's lines as logcat printed them. */
  trace: string;
}

interface Found {
  record: BuildRecord | null;
  mapping: BuildMapping | null;
  module: string | null;
  variant: string | null;
  build_id: number | null;
}

function notDone(
  status: Exclude<RetraceStatus, "retraced">,
  crash: CrashToRetrace,
  reason: string,
  extra: Partial<RetraceResult> = {},
): RetraceResult {
  return {
    status,
    trace: crash.trace,
    mapping_line: `Not deobfuscated: ${reason}`,
    build_id: null,
    module: null,
    variant: null,
    map_id: null,
    mapping_sha256: null,
    matched_by: null,
    device: null,
    reason,
    stats: null,
    ...extra,
  };
}

/** The distinct kept mappings (by hash) whose map id is `id`, newest build first. Pure. */
function mappingsWithMapId(records: readonly BuildRecord[], id: string): Found[] {
  const out: Found[] = [];
  for (const r of [...records].sort((a, b) => b.id - a.id)) {
    for (const m of r.mappings) {
      if (m.map_id !== id || out.some((f) => f.mapping!.sha256 === m.sha256)) continue;
      out.push({ record: r, mapping: m, module: m.module, variant: m.variant, build_id: r.id });
    }
  }
  return out;
}

/** The build (and its mapping) whose APK list holds `sha256`, newest first. Pure. */
function buildOfApk(records: readonly BuildRecord[], sha256: string): Found | null {
  for (const r of [...records].sort((a, b) => b.id - a.id)) {
    const apk = r.apks.find((a) => a.sha256 === sha256);
    if (!apk) continue;
    const mapping = r.mappings.find((m) => m.module === apk.module && m.variant === apk.variant) ??
      null;
    return { record: r, mapping, module: apk.module, variant: apk.variant, build_id: r.id };
  }
  return null;
}

function describe(f: Found): string {
  return `build #${f.build_id ?? "?"} ${f.module ?? "?"} ${f.variant ?? "?"}`;
}

/** A crash whose mapping was found: what the worker is asked, and how the answer is labelled. */
interface Matched {
  kind: "matched";
  crash: CrashToRetrace;
  found: Found & { mapping: BuildMapping };
  base: Partial<RetraceResult>;
  line: string;
}

function matched(
  crash: CrashToRetrace,
  f: Found,
  matchedBy: MatchedBy,
  how: string,
  device: RetraceResult["device"],
): Matched | RetraceResult {
  const base = {
    build_id: f.build_id,
    module: f.module,
    variant: f.variant,
    matched_by: matchedBy,
    device,
  };
  if (!f.mapping) {
    return notDone(
      "unavailable",
      crash,
      `${describe(f)} wrote no R8 mapping (it is not minified, so its frames are source names)`,
      base,
    );
  }
  const m = f.mapping;
  return {
    kind: "matched",
    crash,
    found: { ...f, mapping: m },
    base: { ...base, map_id: m.map_id, mapping_sha256: m.sha256 },
    line: `Deobfuscated with the R8 mapping of ${describe(f)}, map id ${
      m.map_id ?? "none"
    }, matched by ${how}`,
  };
}

/** The worker's refusal or failure as a crash's status. */
function notRetraced(x: Matched, e: unknown): RetraceResult {
  const f = x.found;
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof ToolError && e.code === "resource_not_found") {
    return notDone(
      "unavailable",
      x.crash,
      `the mapping of ${describe(f)} is no longer kept (keynobi keeps the newest ones); rebuild ` +
        "that variant and reproduce the crash",
      x.base,
    );
  }
  if (e instanceof ToolError && e.code === "invalid_request") {
    return notDone("refused", x.crash, message, x.base);
  }
  return notDone(
    "failed",
    x.crash,
    `the mapping of ${describe(f)} could not be read: ${message}`,
    x.base,
  );
}

async function deviceApkHash(
  adb: DeviceShell,
  crash: CrashToRetrace,
  pkg: string,
  signal: AbortSignal | undefined,
): Promise<
  { kind: "hash"; sha256: string; path: string } | { kind: "refused"; reason: string } | {
    kind: "cannot";
    reason: string;
  }
> {
  const opts = {
    timeoutMs: RETRACE_DEVICE_TIMEOUT_MS,
    maxOutputBytes: MAX_DEVICE_QUERY_BYTES,
    signal,
  };
  const paths = await adb.shell(crash.serial, ["pm", "path", pkg], opts);
  const apks = paths.text().split(/\r?\n/).map((l) => l.trim()).filter((l) =>
    l.startsWith("package:")
  ).map((l) => l.slice("package:".length));
  if (apks.length === 0) {
    return {
      kind: "refused",
      reason:
        `${pkg} is no longer installed on ${crash.serial}, so the APK that crashed is unknown`,
    };
  }
  if (apks.length > 1) {
    return {
      kind: "refused",
      reason:
        `${pkg} is installed on ${crash.serial} as ${apks.length} split APKs; keynobi matches ` +
        "a mapping only to a single APK",
    };
  }
  const sum = await adb.shell(crash.serial, ["sha256sum", apks[0]], opts);
  const hex = /^([0-9a-f]{64})\s/.exec(sum.text().trim() + " ");
  if (sum.exitCode !== 0 && sum.exitCode !== null || !hex) {
    return { kind: "cannot", reason: `the device could not hash ${apks[0]}` };
  }
  return { kind: "hash", sha256: hex[1], path: apks[0] };
}

/** Deobfuscates `crash`; see the module comment. Never throws for a refusal. */
export async function retraceCrash(
  dataDir: string,
  adb: DeviceShell,
  retracer: Retracer,
  crash: CrashToRetrace,
  signal?: AbortSignal,
): Promise<RetraceResult> {
  return (await retraceCrashes(dataDir, adb, retracer, [crash], signal))[0];
}

/**
 * Deobfuscates each of `crashes` (see the module comment), asking the worker once per mapping
 * for all the crashes it matched. Answers in the order of `crashes`; never throws for a refusal.
 */
export async function retraceCrashes(
  dataDir: string,
  adb: DeviceShell,
  retracer: Retracer,
  crashes: readonly CrashToRetrace[],
  signal?: AbortSignal,
): Promise<RetraceResult[]> {
  const records = await listBuildRecords(dataDir, { limit: MAX_BUILD_RECORDS });
  const out: (RetraceResult | Matched)[] = [];
  for (const c of crashes) out.push(await matchCrash(dataDir, adb, records, c, signal));
  const bySha = new Map<string, number[]>();
  out.forEach((x, i) => {
    if (!("kind" in x)) return;
    const sha = x.found.mapping.sha256;
    const list = bySha.get(sha);
    if (list) list.push(i);
    else bySha.set(sha, [i]);
  });
  for (const [sha256, at] of bySha) {
    const batch = at.map((i) => out[i] as Matched);
    try {
      const r = await retracer.run({
        mapping: { kind: "kept", sha256 },
        traces: batch.map((x) => x.crash.trace),
      }, signal);
      batch.forEach((x, k) => {
        out[at[k]] = {
          ...notDone("refused", x.crash, ""),
          ...x.base,
          status: "retraced",
          trace: r.outputs[k].text,
          mapping_line: x.line,
          reason: null,
          stats: r.outputs[k].stats,
        };
      });
    } catch (e) {
      if (e instanceof ToolError && e.code === "cancelled") throw e;
      batch.forEach((x, k) => out[at[k]] = notRetraced(x, e));
    }
  }
  return out as RetraceResult[];
}

/** Finds the mapping of one crash, or says why not: by its map id, else by the device's APK. */
async function matchCrash(
  dataDir: string,
  adb: DeviceShell,
  records: readonly BuildRecord[],
  crash: CrashToRetrace,
  signal: AbortSignal | undefined,
): Promise<RetraceResult | Matched> {
  const ids = mapIdsInTrace(crash.trace);
  if (ids.length > 1) {
    return notDone(
      "refused",
      crash,
      `its frames name ${ids.length} R8 map ids (${ids.join(", ")}), so no one mapping fits`,
    );
  }
  if (ids.length === 1) return matchByMapId(records, crash, ids[0]);
  const pkg = crash.package;
  if (!pkg) {
    return notDone(
      "refused",
      crash,
      "the crash names no map id and no package, so the APK that crashed is unknown",
    );
  }
  let hashed;
  try {
    hashed = await deviceApkHash(adb, crash, pkg, signal);
  } catch (e) {
    return notDone(
      "refused",
      crash,
      `the device ${crash.serial} could not be asked which APK it has (${(e as Error).message})`,
    );
  }
  if (hashed.kind === "refused") return notDone("refused", crash, hashed.reason);
  if (hashed.kind === "hash") return await matchByApkHash(dataDir, records, crash, hashed.sha256);
  // The device cannot hash its APK: keynobi's install record, if the device still has that install.
  return await matchByInstall(dataDir, adb, records, crash, pkg, hashed.reason, signal);
}

/** The one kept mapping with the R8 map id the crash's frames name. */
function matchByMapId(
  records: readonly BuildRecord[],
  crash: CrashToRetrace,
  id: string,
): RetraceResult | Matched {
  const hits = mappingsWithMapId(records, id);
  if (hits.length === 0) {
    return notDone(
      "refused",
      crash,
      `no kept build has the R8 map id ${id} its frames name (built elsewhere, or its ` +
        "build is no longer in the history)",
      { map_id: id },
    );
  }
  if (hits.length > 1) {
    return notDone(
      "refused",
      crash,
      `${hits.length} kept mappings have the map id ${id} (${hits.map(describe).join(", ")})`,
      { map_id: id },
    );
  }
  return matched(crash, hits[0], "map_id", "the map id its frames name", null);
}

/** The build whose APK has the hash the device reports (built here, or installed by keynobi). */
async function matchByApkHash(
  dataDir: string,
  records: readonly BuildRecord[],
  crash: CrashToRetrace,
  sha256: string,
): Promise<RetraceResult | Matched> {
  const device = { serial: crash.serial, apk_sha256: sha256, version_code: null };
  const installs = await listInstalledBuilds(dataDir);
  const install = installs.findLast((r) => r.apk_sha256 === sha256);
  const built = buildOfApk(records, sha256);
  const found = built ??
    (install && install.build_id !== null
      ? buildOfApk(records.filter((r) => r.id === install.build_id), sha256)
      : null);
  if (!found) {
    return notDone(
      "refused",
      crash,
      `the APK on ${crash.serial} (sha256 ${sha256.slice(0, 12)}…) matches no build ` +
        "keynobi kept or installed, so its mapping is unknown",
      { device },
    );
  }
  return matched(
    crash,
    found,
    "device_hash",
    `the APK hash ${crash.serial} reports (${sha256.slice(0, 12)}…)`,
    device,
  );
}

/**
 * Keynobi's install record of `pkg` on the crash's device, when the device confirms it still has
 * that install (its versionCode and lastUpdateTime), and the kept build it came from.
 */
async function matchByInstall(
  dataDir: string,
  adb: DeviceShell,
  records: readonly BuildRecord[],
  crash: CrashToRetrace,
  pkg: string,
  noHash: string,
  signal: AbortSignal | undefined,
): Promise<RetraceResult | Matched> {
  const install = (await listInstalledBuilds(dataDir, { serial: crash.serial, package: pkg }))[0];
  if (!install) {
    return notDone(
      "refused",
      crash,
      `${noHash}, and keynobi has no install of ${pkg} on ${crash.serial} on record`,
    );
  }
  let info;
  try {
    const dump = await adb.shell(crash.serial, ["dumpsys", "package", pkg], {
      timeoutMs: RETRACE_DEVICE_TIMEOUT_MS,
      maxOutputBytes: MAX_DEVICE_QUERY_BYTES,
      signal,
    });
    info = parseDumpsysPackage(dump.text(), pkg);
  } catch (e) {
    return notDone(
      "refused",
      crash,
      `${noHash}, and dumpsys package failed: ${(e as Error).message}`,
    );
  }
  const device = { serial: crash.serial, apk_sha256: null, version_code: info.version_code };
  if (
    info.version_code !== install.version_code || install.device_last_update_time === null ||
    info.last_update_time !== install.device_last_update_time
  ) {
    return notDone(
      "refused",
      crash,
      `${noHash}, and ${pkg} on ${crash.serial} is not keynobi's install any more ` +
        `(versionCode ${info.version_code ?? "?"} updated ${info.last_update_time ?? "?"}; ` +
        `recorded ${install.version_code ?? "?"} updated ${
          install.device_last_update_time ?? "?"
        })`,
      { device },
    );
  }
  const found = install.build_id === null ? null : buildOfApk(
    records.filter((r) => r.id === install.build_id),
    install.apk_sha256,
  );
  if (!found) {
    return notDone(
      "refused",
      crash,
      `keynobi's install of ${pkg} on ${crash.serial} matches no kept build`,
      { device },
    );
  }
  return matched(
    crash,
    found,
    "install_record",
    `keynobi's install record (versionCode and lastUpdateTime confirmed by ${crash.serial})`,
    device,
  );
}
