/**
 * The dashboard's sections, each read from where it already lives: the app's own status, the
 * standalone session records, the ADB server, the build worker and `build-history.json`, the
 * logcat worker, the debug-session files, `settings.json`. Nothing here is stored; a section
 * that cannot be read says why instead of failing the others.
 */
import { listBuildRecords } from "../build/shared/build_history.ts";
import { type BuildRecord, describeOrigin } from "../build/shared/build_record.ts";
import { listSessionRecords } from "../mcp/session_records.ts";
import { listProjects } from "../project/trust.ts";
import {
  type DebugSessionSummary,
  listSessionSummaries,
  readSession,
} from "../sessions/session_store.ts";
import { type DebugSession, effectiveState } from "../sessions/session_model.ts";
import type { DashboardHost } from "./host.ts";
import { skillStatus } from "./skill_install.ts";

/** Build records the page gets (newest first). */
const DASHBOARD_BUILDS = 50;
/** Diagnostics per build the page lists (file:line). */
const DASHBOARD_DIAGNOSTICS = 10;
/** Debug sessions the page lists (newest first). */
const DASHBOARD_SESSIONS = 30;
/** Crash groups the page lists. */
const DASHBOARD_CRASHES = 50;
/** How long the device listing may take. */
const DEVICE_LIST_TIMEOUT_MS = 2_000;

function versionMismatches(status: ReturnType<DashboardHost["status"]>, standalone: {
  pid: number;
  version: string | null;
}[]) {
  const app = status.app.version;
  const out: { kind: "attached" | "standalone"; pid: number; version: string | null }[] = [];
  for (const a of status.attached) {
    if (a.version !== app) out.push({ kind: "attached", pid: a.pid, version: a.version });
  }
  for (const s of standalone) {
    if (s.version !== app) out.push({ kind: "standalone", pid: s.pid, version: s.version });
  }
  return out;
}

export async function appSection(host: DashboardHost) {
  const status = host.status();
  const standalone = await listSessionRecords(host.dataDir).catch(() => []);
  const mismatches = versionMismatches(status, standalone);
  // uptime_s changes every second: the page shows the start time instead.
  const { uptime_s: _uptime, ...app } = status.app;
  return {
    ...app,
    attached: status.attached,
    standalone: standalone.map((s) => ({
      pid: s.pid,
      version: s.version,
      project: s.project,
      reason: s.reason,
      since: s.started_at,
    })),
    mismatches,
    mismatch_hint: mismatches.length === 0
      ? null
      : `${mismatches.length} MCP server${
        mismatches.length === 1 ? " runs" : "s run"
      } another keynobi version than the app (${status.app.version}): restart that AI client ` +
        "(or its MCP server) so it runs the current binary",
  };
}

export async function devicesSection(host: DashboardHost) {
  const devices = await host.adb.listDevices({ timeoutMs: DEVICE_LIST_TIMEOUT_MS });
  const serials = new Set(devices.map((d) => d.serial));
  const row = (serial: string) => {
    const v = host.ui.get(serial);
    return {
      screenshot: v?.screenshot
        ? {
          at: v.screenshot.at,
          width: v.screenshot.width,
          height: v.screenshot.height,
          bytes: v.screenshot.bytes,
          kept: v.screenshot.image !== null,
        }
        : null,
      list: v?.list ?? null,
    };
  };
  return [
    ...devices.map((d) => ({
      serial: d.serial,
      state: d.state,
      kind: d.kind,
      model: d.model ?? null,
      product: d.product ?? null,
      connected: true,
      ...row(d.serial),
    })),
    // A device an agent looked at that has gone away still shows what it last looked like.
    ...host.ui.serials().filter((s) => !serials.has(s)).map((serial) => ({
      serial,
      state: "gone",
      kind: null,
      model: null,
      product: null,
      connected: false,
      ...row(serial),
    })),
  ];
}

/** One history record as the page shows it. Pure. */
function buildRow(r: BuildRecord) {
  const diagnostics = (r.diagnostics as Record<string, unknown>[]).filter((d) =>
    d && typeof d === "object" && d.severity === "error"
  ).slice(0, DASHBOARD_DIAGNOSTICS).map((d) => ({
    at: typeof d.file === "string"
      ? `${d.file}${typeof d.line === "number" ? `:${d.line}` : ""}`
      : null,
    message: String(d.message ?? "").slice(0, 300),
  }));
  return {
    id: r.id,
    project: r.project,
    task: r.task,
    tasks: r.tasks,
    status: r.status,
    started_at: r.started_at,
    finished_at: r.finished_at,
    duration_ms: r.duration_ms,
    summary: r.summary,
    error_count: r.error_count,
    warning_count: r.warning_count,
    errors: diagnostics,
    origin: r.origin,
    origin_label: r.origin.kind === "agent"
      ? `Started by an agent (${r.origin.client_name ?? "unknown client"}${
        r.origin.standalone ? ", standalone" : ""
      })`
      : `Started by ${describeOrigin(r.origin)}`,
    cancelled_by: r.cancelled_by,
    cancelled_label: r.cancelled_by ? `Cancelled by ${describeOrigin(r.cancelled_by)}` : null,
    reason: r.reason,
    log_lines: r.log.lines,
  };
}

export async function buildsSection(host: DashboardHost) {
  const [running, records] = await Promise.all([
    host.builds.status().catch(() => null),
    listBuildRecords(host.dataDir, { limit: DASHBOARD_BUILDS }),
  ]);
  return {
    running: running
      ? {
        ...running,
        origin_label: running.origin.kind === "agent"
          ? `Started by an agent (${running.origin.client_name ?? "unknown client"})`
          : `Started by ${describeOrigin(running.origin)}`,
        // Cancel is offered for the app's own slot only.
        cancellable: true,
      }
      : null,
    history: records.map(buildRow),
  };
}

export async function crashesSection(host: DashboardHost) {
  const r = await host.logcat.crashes(DASHBOARD_CRASHES);
  return {
    total_crashes: r.total_crashes,
    total_groups: r.total_groups,
    groups: r.groups.slice(0, DASHBOARD_CRASHES),
  };
}

/** The newest measured launch time of a session, or null. Pure. */
function latestLaunchMs(s: DebugSession): number | null {
  for (let i = s.events.length - 1; i >= 0; i--) {
    const e = s.events[i];
    if (e.kind === "launch" && typeof e.data.total_ms === "number") return e.data.total_ms;
  }
  return null;
}

/** Launch times per session id, re-read only when a session changed. */
export class LaunchTimes {
  #cache = new Map<string, { last: string; ms: number | null }>();

  async of(
    dataDir: string,
    sessions: readonly DebugSessionSummary[],
  ): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>();
    for (const s of sessions) {
      let c = this.#cache.get(s.id);
      if (!c || c.last !== s.last_event_at) {
        const full = s.counts.launches > 0 ? await readSession(dataDir, s.id) : null;
        c = { last: s.last_event_at, ms: full ? latestLaunchMs(full) : null };
        this.#cache.set(s.id, c);
      }
      out.set(s.id, c.ms);
    }
    for (const id of this.#cache.keys()) if (!out.has(id)) this.#cache.delete(id);
    return out;
  }
}

export async function sessionsSection(host: DashboardHost, launches: LaunchTimes) {
  const all = await listSessionSummaries(host.dataDir);
  const newest = all.slice(-DASHBOARD_SESSIONS).reverse();
  const times = await launches.of(host.dataDir, newest);
  const now = new Date();
  return newest.map((s) => ({
    id: s.id,
    state: effectiveStateOf(s, now),
    package: s.package,
    serial: s.serial,
    model: s.model,
    build_id: s.build_id,
    variant: s.variant,
    opened_at: s.opened_at,
    last_event_at: s.last_event_at,
    counts: s.counts,
    launch_ms: times.get(s.id) ?? null,
  }));
}

function effectiveStateOf(s: DebugSessionSummary, now: Date) {
  return effectiveState({ state: s.state, last_event_at: s.last_event_at } as DebugSession, now);
}

export async function projectsSection(host: DashboardHost) {
  const list = await listProjects(host.dataDir);
  return {
    open: host.status().app.project,
    trusted: list.projects,
    last_active_project: list.last_active_project,
  };
}

export async function setupSection(host: DashboardHost) {
  const home = host.env.get("HOME");
  return {
    commands: host.setupCommands(),
    skill: home ? await skillStatus(home, await host.skill()) : null,
  };
}
