/**
 * Reading debug sessions for the tools: listing with filters (newest first), one session with its
 * timeline page and crashes, and comparing two sessions (a good install and a crashing one). Pure
 * over the summaries and sessions lib/sessions/session_store.ts reads.
 */
import type { Provenance } from "../build/shared/provenance.ts";
import {
  buildLabel,
  type DebugSession,
  type DebugSessionEvent,
  type DebugSessionState,
  effectiveState,
} from "./session_model.ts";
import type { DebugSessionSummary } from "./session_store.ts";

/** list_debug_sessions: default and maximum `limit`. */
export const DEFAULT_SESSION_LIST_LIMIT = 10;
export const MAX_SESSION_LIST_LIMIT = 50;
/** get_debug_session: default and maximum `max_events`. */
export const DEFAULT_EVENTS_RETURNED = 100;
export const MAX_EVENTS_RETURNED = 500;
/** get_debug_session: default and maximum `log_lines` of a capture. */
export const DEFAULT_CAPTURE_LOG_LINES = 100;
export const MAX_CAPTURE_LOG_LINES = 1_000;
/** Crashes and ANRs get_debug_session returns (newest). */
export const MAX_AGENT_CRASHES = 20;
/** Attachment events get_debug_session returns (newest). */
export const MAX_AGENT_ATTACHMENTS = 10;
/** Crash signatures compare_debug_sessions lists per session. */
const MAX_COMPARED_SIGNATURES = 20;
/** UI flows compare_debug_sessions lists (by name, the newest run of each in either session). */
const MAX_COMPARED_FLOWS = 20;

interface ListFilter {
  limit: number;
  package?: string;
  /** A serial or an AVD name. */
  device?: string;
  state?: DebugSessionState;
  onlyCrashing?: boolean;
}

function isCrashing(s: { counts: DebugSessionSummary["counts"] }): boolean {
  return s.counts.crashes + s.counts.anrs > 0;
}

/** The matching summaries, newest first, and how many matched. Pure. */
export function filterDebugSessions(
  all: readonly DebugSessionSummary[],
  f: ListFilter,
  now: Date,
): { sessions: (DebugSessionSummary & { effective_state: DebugSessionState })[]; matched: number } {
  const matched = [...all].reverse().filter((s) =>
    (f.package === undefined || s.package === f.package) &&
    (f.device === undefined || s.serial === f.device || s.avd === f.device) &&
    (f.onlyCrashing !== true || isCrashing(s))
  ).map((s) => ({ ...s, effective_state: stateOf(s, now) }))
    .filter((s) => f.state === undefined || s.effective_state === f.state);
  return { sessions: matched.slice(0, f.limit), matched: matched.length };
}

function stateOf(s: DebugSessionSummary, now: Date): DebugSessionState {
  return effectiveState({ state: s.state, last_event_at: s.last_event_at } as DebugSession, now);
}

/** One line of list_debug_sessions. Pure. */
export function sessionLine(
  s: DebugSessionSummary & { effective_state: DebugSessionState },
): string {
  const build = s.build_id === null
    ? "no build record"
    : `build #${s.build_id}${s.module ? ` ${s.module}` : ""}${s.variant ? ` ${s.variant}` : ""}`;
  const until = s.closed_at ? `closed ${s.closed_at}` : `last event ${s.last_event_at}`;
  const c = s.counts;
  return `${s.id} ${s.effective_state} ${s.package} on ${s.serial}${
    s.avd ? ` (${s.avd})` : ""
  }: ${build}, apk ${s.apk_sha256.slice(0, 12)}…, opened ${s.opened_at}, ${until}; ${c.crashes} ` +
    `crash, ${c.anrs} ANR, ${c.exits} exit, ${c.launches} launch${
      s.recorded_by === "standalone" ? "; recorded by a standalone server" : ""
    }`;
}

/** The newest `max` events before `beforeSeq`, oldest first, and the cursor for older ones. Pure. */
export function timelinePage(
  events: readonly DebugSessionEvent[],
  max: number,
  beforeSeq?: number,
): { timeline: DebugSessionEvent[]; next_before_seq: number | null } {
  const older = beforeSeq === undefined ? [...events] : events.filter((e) => e.seq < beforeSeq);
  const page = max === 0 ? [] : older.slice(-max);
  const first = page[0] ?? null;
  const hasOlder = first !== null ? older.some((e) => e.seq < first.seq) : older.length > 0;
  return {
    timeline: page,
    next_before_seq: hasOlder ? (first?.seq ?? (older.at(-1)!.seq + 1)) : null,
  };
}

interface PairChoice {
  from: string;
  to: string;
  chosen_by: string;
}

/**
 * The default pair: the newest session with a launch and no crash or ANR, against the first later
 * crashing session of the same project, package, module and variant. `null` when there is none.
 * Pure (`all` oldest first).
 */
export function defaultPair(all: readonly DebugSessionSummary[]): PairChoice | null {
  for (let i = all.length - 1; i >= 0; i--) {
    const good = all[i];
    if (good.counts.launches === 0 || isCrashing(good)) continue;
    const bad = all.slice(i + 1).find((s) =>
      isCrashing(s) && s.project === good.project && s.package === good.package &&
      s.module === good.module && s.variant === good.variant
    );
    if (bad) {
      return {
        from: good.id,
        to: bad.id,
        chosen_by:
          `the newest session with a launch and no crash (${good.id}) and the first later ` +
          `crashing session of ${good.package} (${good.module ?? "?"} ${
            good.variant ?? "?"
          }) (${bad.id})`,
      };
    }
  }
  return null;
}

interface Launch {
  seq: number;
  total_ms: number | null;
  launch_state: string | null;
  serial: string;
}

function latestLaunch(s: DebugSession): Launch | null {
  for (let i = s.events.length - 1; i >= 0; i--) {
    const e = s.events[i];
    if (e.kind !== "launch") continue;
    const t = typeof e.data.total_ms === "number" ? e.data.total_ms : null;
    if (t === null) continue;
    return {
      seq: e.seq,
      total_ms: t,
      launch_state: typeof e.data.launch_state === "string" ? e.data.launch_state : null,
      serial: s.serial,
    };
  }
  return null;
}

interface Frames {
  seq: number;
  total_frames: number;
  janky_percent: number;
  p90_ms: number | null;
  p95_ms: number | null;
  since_reset: boolean;
  serial: string;
}

/** The last frame-health reading of a session that saw any frame. */
function latestFrames(s: DebugSession): Frames | null {
  for (let i = s.events.length - 1; i >= 0; i--) {
    const e = s.events[i];
    if (e.kind !== "frames") continue;
    const d = e.data;
    if (typeof d.total_frames !== "number" || d.total_frames <= 0) continue;
    if (typeof d.janky_percent !== "number") continue;
    return {
      seq: e.seq,
      total_frames: d.total_frames,
      janky_percent: d.janky_percent,
      p90_ms: typeof d.p90_ms === "number" ? d.p90_ms : null,
      p95_ms: typeof d.p95_ms === "number" ? d.p95_ms : null,
      since_reset: d.since_reset === true,
      serial: s.serial,
    };
  }
  return null;
}

/** Frame health of the two sessions side by side, like the launch time. Pure. */
function compareFrames(a: DebugSession, b: DebugSession) {
  const fa = latestFrames(a);
  const fb = latestFrames(b);
  const comparable = fa !== null && fb !== null && fa.serial === fb.serial;
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    from: fa,
    to: fb,
    comparable,
    delta_janky_percent: comparable ? round(fb!.janky_percent - fa!.janky_percent) : null,
    delta_p90_ms: comparable && fa!.p90_ms !== null && fb!.p90_ms !== null
      ? fb!.p90_ms - fa!.p90_ms
      : null,
    note: comparable
      ? fa!.since_reset !== fb!.since_reset
        ? "one reading ran from a reset and the other from the app's start"
        : null
      : fa === null || fb === null
      ? "a session has no frame reading (get_frame_stats)"
      : "measured on different devices",
  };
}

function signatures(s: DebugSession): Map<string, number> {
  const m = new Map<string, number>();
  for (const c of s.crashes) m.set(c.signature, (m.get(c.signature) ?? 0) + 1);
  return m;
}

interface FlowRun {
  at: string;
  passed: boolean;
  /** `passed`, or `failed at step 8 assertVisible: …`. */
  outcome: string;
  failed_step: Record<string, unknown> | null;
}

/** The newest run of each UI flow (run_ui_flow's `uiFlow` events), by flow name. */
function flowRuns(s: DebugSession): Map<string, FlowRun> {
  const m = new Map<string, FlowRun>();
  for (const e of s.events) {
    if (e.kind !== "uiFlow" || typeof e.data.flow !== "string") continue;
    const f = e.data.failed_step as Record<string, unknown> | null | undefined;
    const passed = e.data.passed === true;
    m.delete(e.data.flow);
    m.set(e.data.flow, {
      at: e.at,
      passed,
      outcome: passed
        ? "passed"
        : `failed at step ${f?.index ?? "?"} ${f?.command ?? ""}: ${String(f?.detail ?? "")}`
          .slice(0, 300),
      failed_step: f ?? null,
    });
  }
  return m;
}

/** Each flow run in either session: its newest outcome in `a` and in `b`. Pure. */
function compareFlows(a: DebugSession, b: DebugSession) {
  const fa = flowRuns(a);
  const fb = flowRuns(b);
  const names = [...new Set([...fb.keys(), ...fa.keys()])].slice(0, MAX_COMPARED_FLOWS);
  return names.map((flow) => {
    const x = fa.get(flow) ?? null;
    const y = fb.get(flow) ?? null;
    return {
      flow,
      from: x,
      to: y,
      /** Passed on the earlier install and fails on the later one. */
      broke: x?.passed === true && y?.passed === false,
      fixed: x?.passed === false && y?.passed === true,
    };
  });
}

function exitReasons(s: DebugSession): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of s.events) {
    if (e.kind !== "exit") continue;
    const r = typeof e.data.reason === "string" ? e.data.reason : "unknown";
    out[r] = (out[r] ?? 0) + 1;
  }
  return out;
}

function provenanceOf(p: Provenance | null) {
  if (!p) return null;
  return {
    commit: p.commit,
    branch: p.branch,
    dirty: p.dirty,
    changed_file_count: p.changed_file_count,
    no_commit_because: p.no_commit_because,
    gradle_version: p.gradle_version,
    jdk_version: p.jdk_version,
  };
}

function originLabel(o: DebugSession["install"]["by"]): string {
  return o.kind === "agent" ? `agent:${o.client_name ?? "unknown"}` : o.kind;
}

/** What changed between `a` (from) and `b` (to). Pure. */
export function diffDebugSessions(a: DebugSession, b: DebugSession) {
  const differences: { field: string; from: unknown; to: unknown }[] = [];
  const diff = (field: string, x: unknown, y: unknown) => {
    if (JSON.stringify(x) !== JSON.stringify(y)) differences.push({ field, from: x, to: y });
  };
  diff("build_id", a.build.build_id, b.build.build_id);
  diff("task", a.build.task, b.build.task);
  diff("module", a.build.module, b.build.module);
  diff("variant", a.build.variant, b.build.variant);
  diff("version_code", a.build.version_code, b.build.version_code);
  diff("apk_sha256", a.build.apk_sha256, b.build.apk_sha256);
  diff("mapping_sha256", a.build.mapping_sha256, b.build.mapping_sha256);
  diff("map_ids", a.build.map_ids, b.build.map_ids);
  diff("device", a.serial, b.serial);
  diff("model", a.model, b.model);
  diff("installed_by", originLabel(a.install.by), originLabel(b.install.by));
  diff("recorded_by", a.recorded_by, b.recorded_by);
  const flows = compareFlows(a, b);
  for (const f of flows) {
    if (f.from && f.to && f.from.passed !== f.to.passed) {
      differences.push({ field: `flow ${f.flow}`, from: f.from.outcome, to: f.to.outcome });
    }
  }

  const launch = compareLaunches(a, b);
  const crashes = compareCrashes(a, b);
  const provenance = compareProvenance(a.build.source, b.build.source);
  return {
    differences,
    launch,
    frames: compareFrames(a, b),
    crashes,
    exits: { from: exitReasons(a), to: exitReasons(b) },
    flows,
    provenance,
    not_recorded: [
      "resolved dependency versions",
      "the AGP version",
      "the content of uncommitted changes",
      ...(provenance === null ? ["provenance (neither build recorded it)"] : []),
    ],
  };
}

/** The two sessions' latest launches, and whether their times compare. Pure. */
function compareLaunches(a: DebugSession, b: DebugSession) {
  const la = latestLaunch(a);
  const lb = latestLaunch(b);
  const comparable = la !== null && lb !== null && la.serial === lb.serial &&
    la.launch_state === lb.launch_state;
  return {
    from: la,
    to: lb,
    comparable,
    delta_ms: comparable ? lb!.total_ms! - la!.total_ms! : null,
    note: comparable
      ? null
      : la === null || lb === null
      ? "a session has no measured launch"
      : la.serial !== lb.serial
      ? "measured on different devices"
      : `different launch states (${la.launch_state ?? "?"} vs ${lb.launch_state ?? "?"})`,
  };
}

/** The crash signatures of each session, the most frequent first, and what came or went. Pure. */
function compareCrashes(a: DebugSession, b: DebugSession) {
  const sa = signatures(a);
  const sb = signatures(b);
  const top = (m: Map<string, number>) =>
    [...m.entries()].sort((x, y) => y[1] - x[1]).slice(0, MAX_COMPARED_SIGNATURES)
      .map(([signature, count]) => ({ signature, count }));
  return {
    from: top(sa),
    to: top(sb),
    new_in_to: [...sb.keys()].filter((k) => !sa.has(k)).slice(0, MAX_COMPARED_SIGNATURES),
    gone_in_to: [...sa.keys()].filter((k) => !sb.has(k)).slice(0, MAX_COMPARED_SIGNATURES),
  };
}

/** What the two builds' sources differ in (commit, tools, build files); null: neither recorded. */
function compareProvenance(
  pa: Provenance | null,
  pb: Provenance | null,
): Record<string, unknown> | null {
  if (!pa && !pb) return null;
  const pdiff: { field: string; from: unknown; to: unknown }[] = [];
  const pd = (field: keyof Provenance) => {
    const x = pa?.[field] ?? null;
    const y = pb?.[field] ?? null;
    if (JSON.stringify(x) !== JSON.stringify(y)) pdiff.push({ field, from: x, to: y });
  };
  for (const f of ["commit", "branch", "dirty", "gradle_version", "jdk_version"] as const) pd(f);
  const fa = pa?.build_files ?? {};
  const fb = pb?.build_files ?? {};
  const changed_build_files: { path: string; change: "changed" | "added" | "removed" }[] = [];
  for (const path of new Set([...Object.keys(fa), ...Object.keys(fb)])) {
    if (!(path in fa)) changed_build_files.push({ path, change: "added" });
    else if (!(path in fb)) changed_build_files.push({ path, change: "removed" });
    else if (fa[path] !== fb[path]) changed_build_files.push({ path, change: "changed" });
  }
  const notes: string[] = [];
  // `null`: there is no commit to compare (a build outside a git repository, or unrecorded).
  const same = pa?.commit == null || pb?.commit == null ? null : pa.commit === pb.commit;
  if (same === null && pa && pb) {
    notes.push(
      pa.commit == null && pb.commit == null
        ? `neither build has a commit (${
          pa.no_commit_because ?? pb.no_commit_because ?? "none was recorded"
        }): no commit to compare`
        : `only the ${pa.commit == null ? "to" : "from"} build has a commit (the other: ${
          (pa.commit == null ? pa : pb).no_commit_because ?? "none was recorded"
        }): no commit to compare`,
    );
  }
  if (same && (pa?.dirty || pb?.dirty)) {
    notes.push(
      "the same commit, built with uncommitted changes: the changes themselves are not recorded",
    );
  }
  if (!pa || !pb) notes.push("one build recorded no provenance");
  return {
    from: provenanceOf(pa),
    to: provenanceOf(pb),
    same_commit: same,
    differences: pdiff,
    changed_build_files,
    notes,
  };
}

/** The `session` object get_debug_session returns. Pure. */
export function sessionView(s: DebugSession, now: Date) {
  return {
    id: s.id,
    state: effectiveState(s, now),
    state_reason: s.state_reason,
    package: s.package,
    device: { serial: s.serial, model: s.model, avd: s.avd },
    project: s.project,
    opened_at: s.opened_at,
    closed_at: s.closed_at,
    last_event_at: s.last_event_at,
    build: { ...s.build, label: buildLabel(s.build) },
    install: s.install,
    recorded_by: s.recorded_by,
    counts: s.counts,
    dropped_events: s.dropped_events,
    dropped_agent_actions: s.dropped_agent_actions,
  };
}
