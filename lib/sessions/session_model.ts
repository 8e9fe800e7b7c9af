/**
 * A debug session: one install of an app on a device and what happened to it until the next
 * install. This file is the model and the pure operations on it (open, append an event, supersede,
 * bound, read back); lib/sessions/session_store.ts does the files, session_recorder.ts the queue.
 *
 * States: `open` (the newest install of the package on the device), `idle` (open, but nothing
 * happened for `IDLE_AFTER_MS`; derived when read), `superseded` (a later install of the package on
 * the device opened a new session), `closed` (the device was found running another install than
 * this one: its `lastUpdateTime` changed behind keynobi's back), `ended` (the device's exit history
 * says the app was uninstalled).
 */
import { type Origin, parseOrigin } from "../build/shared/build_record.ts";
import { clip } from "../core/text.ts";
import type { Provenance } from "../build/shared/provenance.ts";
import { hexOf } from "../core/hash.ts";
import { isRecord, parseJsonRecord } from "../core/json.ts";

/** Events kept per session (the oldest dropped first, counted in `dropped_events`). */
export const MAX_EVENTS_PER_SESSION = 2_000;
/** `agentAction` events kept per session at most; more are dropped and counted. */
export const MAX_AGENT_EVENTS_PER_SESSION = 500;
/** Crashes and ANRs kept per session with their log lines. */
const MAX_CRASHES_PER_SESSION = 100;
/** Log lines kept with one crash (the lines before it, the crash, the lines after it). */
const MAX_CRASH_LOG_LINES = 1_000;
/** Characters kept of one kept log line. */
const MAX_LOG_LINE_CHARS = 4_000;
/** Characters of an event's one-line summary. */
const MAX_SUMMARY_CHARS = 300;
/** An open session with no event for this long reads as `idle`. */
export const IDLE_AFTER_MS = 12 * 60 * 60 * 1000;
/** Keys of crashes and exits remembered per session, so one seen twice is recorded once. */
export const MAX_EVENT_KEYS = 500;

export const SESSION_STATES = ["open", "closed", "superseded", "ended", "idle"] as const;
export type DebugSessionState = typeof SESSION_STATES[number];
export type StoredState = Exclude<DebugSessionState, "idle">;

const EVENT_KINDS = [
  "install",
  "launch",
  "crash",
  "anr",
  "exit",
  "agentAction",
  "uiFlow",
  "state",
  "frames",
  "recording",
] as const;
type EventKind = typeof EVENT_KINDS[number];

/** Who caused an event: an agent, the device (crashes, exits), or keynobi itself. */
type Actor = Origin | { kind: "device" } | { kind: "keynobi" };

export interface DebugSessionEvent {
  seq: number;
  /** ISO 8601. */
  at: string;
  kind: EventKind;
  by: Actor;
  /** One line. */
  summary: string;
  data: Record<string, unknown>;
}

export interface Attribution {
  method: "install_record" | "unattributed";
  verified: boolean;
  reason: string;
}

interface SessionCrash {
  seq: number;
  kind: "crash" | "anr";
  at: string;
  /** When the device logged it (logcat time). */
  logged_at: string;
  pid: number;
  summary: string;
  signature: string;
  crash_group_id: string | null;
  attribution: Attribution;
  /** The kept log lines ending with the crash's context after it. */
  lines: string[];
}

interface SessionBuild {
  build_id: number | null;
  task: string | null;
  module: string | null;
  variant: string | null;
  version_code: number | null;
  version_name: string | null;
  apk_sha256: string;
  map_ids: string[];
  mapping_sha256: string | null;
  source: Provenance | null;
}

export interface DebugSession {
  version: 1;
  id: string;
  state: StoredState;
  /** Why it is closed, superseded or ended. */
  state_reason: string | null;
  package: string;
  serial: string;
  /** The device model and AVD name when known. */
  model: string | null;
  avd: string | null;
  project: string | null;
  opened_at: string;
  /**
   * The install's time on the device's clock (`lastUpdateTime` as `dumpsys package` printed it
   * right after the install): exits and crashes the device stamped earlier belong to an older
   * install. `null` when it could not be read.
   */
  device_installed_at: string | null;
  closed_at: string | null;
  last_event_at: string;
  build: SessionBuild;
  install: { by: Origin; at: string };
  recorded_by: "standalone" | "attached";
  next_seq: number;
  dropped_events: number;
  dropped_agent_actions: number;
  counts: {
    launches: number;
    crashes: number;
    anrs: number;
    exits: number;
    agent_actions: number;
    attachments: number;
  };
  events: DebugSessionEvent[];
  crashes: SessionCrash[];
  /** Keys of the crashes and exits already recorded (several processes may see one). */
  event_keys: string[];
}

const SESSION_ID = /^s-[0-9a-z]{8,12}-[0-9a-f]{8}$/;

/** Whether `s` is a session id (`s-<time base36>-<8 hex>`). Pure. */
export function isDebugSessionId(s: string): boolean {
  return SESSION_ID.test(s);
}

/** A fresh session id; sorts by creation time. */
function newSessionId(now: Date): string {
  const rand = crypto.getRandomValues(new Uint8Array(4));
  return `s-${now.getTime().toString(36).padStart(9, "0")}-${hexOf(rand)}`;
}

/** The state as read at `now`: an open session with no recent event is `idle`. Pure. */
export function effectiveState(s: DebugSession, now: Date): DebugSessionState {
  if (s.state !== "open") return s.state;
  const last = Date.parse(s.last_event_at);
  return Number.isFinite(last) && now.getTime() - last > IDLE_AFTER_MS ? "idle" : "open";
}

const oneLine = (s: string, max = MAX_SUMMARY_CHARS) =>
  clip(s.replace(/\s*[\r\n]+\s*/g, " ").trim(), max);

export interface NewDebugSession {
  package: string;
  serial: string;
  model?: string | null;
  avd?: string | null;
  project: string | null;
  build: SessionBuild;
  installedBy: Origin;
  recordedBy: "standalone" | "attached";
  /** `lastUpdateTime` as the device printed it right after the install. */
  deviceInstalledAt?: string | null;
  at: Date;
  id?: string;
}

/** A new open session with its `install` event. Pure. */
export function createDebugSession(n: NewDebugSession): DebugSession {
  const at = n.at.toISOString();
  const s: DebugSession = {
    version: 1,
    id: n.id ?? newSessionId(n.at),
    state: "open",
    state_reason: null,
    package: n.package,
    serial: n.serial,
    model: n.model ?? null,
    avd: n.avd ?? null,
    project: n.project,
    opened_at: at,
    device_installed_at: n.deviceInstalledAt ?? null,
    closed_at: null,
    last_event_at: at,
    build: n.build,
    install: { by: n.installedBy, at },
    recorded_by: n.recordedBy,
    next_seq: 1,
    dropped_events: 0,
    dropped_agent_actions: 0,
    counts: { launches: 0, crashes: 0, anrs: 0, exits: 0, agent_actions: 0, attachments: 0 },
    events: [],
    crashes: [],
    event_keys: [],
  };
  const b = n.build;
  appendEvent(s, {
    at: n.at,
    kind: "install",
    by: n.installedBy,
    summary: `installed ${n.package}${b.version_name ? ` ${b.version_name}` : ""}${
      b.version_code !== null ? ` (${b.version_code})` : ""
    } on ${n.serial}: ${buildLabel(b)}, sha256 ${b.apk_sha256.slice(0, 12)}…`,
    data: { build_id: b.build_id, apk_sha256: b.apk_sha256 },
  });
  return s;
}

/** `build #12 :app debug`, or `no build record`. Pure. */
export function buildLabel(b: SessionBuild): string {
  if (b.build_id === null) return "no build record";
  return `build #${b.build_id}${b.module ? ` ${b.module}` : ""}${b.variant ? ` ${b.variant}` : ""}`;
}

export interface NewEvent {
  at: Date;
  kind: EventKind;
  by: Actor;
  summary: string;
  data?: Record<string, unknown>;
  crash?: Omit<SessionCrash, "seq" | "at">;
}

/**
 * Appends `e` with the next sequence number; bounds the timeline, the agent actions and the kept
 * crashes. Returns the event, or `null` when it was dropped (agent actions past their bound).
 * Mutates `s`. Pure otherwise.
 */
export function appendEvent(s: DebugSession, e: NewEvent): DebugSessionEvent | null {
  if (e.kind === "agentAction" && s.counts.agent_actions >= MAX_AGENT_EVENTS_PER_SESSION) {
    s.dropped_agent_actions++;
    return null;
  }
  const at = e.at.toISOString();
  const ev: DebugSessionEvent = {
    seq: s.next_seq++,
    at,
    kind: e.kind,
    by: e.by,
    summary: oneLine(e.summary),
    data: e.data ?? {},
  };
  s.events.push(ev);
  if (at > s.last_event_at) s.last_event_at = at;
  if (e.kind === "launch") s.counts.launches++;
  else if (e.kind === "crash") s.counts.crashes++;
  else if (e.kind === "anr") s.counts.anrs++;
  else if (e.kind === "exit") s.counts.exits++;
  else if (e.kind === "agentAction") s.counts.agent_actions++;
  if (e.crash) {
    s.crashes.push({
      ...e.crash,
      seq: ev.seq,
      at,
      lines: e.crash.lines.slice(-MAX_CRASH_LOG_LINES).map((l) => clip(l, MAX_LOG_LINE_CHARS)),
    });
    if (s.crashes.length > MAX_CRASHES_PER_SESSION) s.crashes.shift();
  }
  if (s.events.length > MAX_EVENTS_PER_SESSION) {
    // Keep the install event (seq 1): it says what the session is.
    const drop = s.events.findIndex((x) => x.kind !== "install");
    s.events.splice(drop < 0 ? 0 : drop, 1);
    s.dropped_events++;
  }
  return ev;
}

/**
 * Whether a device time stamp (`2026-03-14 05:32:41.125` from exit-info, or logcat's
 * `03-14 05:32:41.125`) is before the install's device time (`2026-03-14 05:30:00`); `null` when
 * either is unknown. Both are the device's local clock, so they compare as text. Pure.
 */
export function beforeInstall(s: DebugSession, stamp: string | null): boolean | null {
  const installed = s.device_installed_at;
  if (!installed || !stamp) return null;
  if (/^\d{4}-\d{2}-\d{2} /.test(stamp)) return stamp < installed;
  if (/^\d{2}-\d{2} /.test(stamp)) return stamp < installed.slice(5);
  return null;
}

/** Marks `s` as no longer the current install. Mutates `s`. */
export function endDebugSession(
  s: DebugSession,
  state: "superseded" | "closed" | "ended",
  reason: string,
  at: Date,
): void {
  if (s.state !== "open") return;
  s.state = state;
  s.state_reason = oneLine(reason);
  s.closed_at = at.toISOString();
  appendEvent(s, { at, kind: "state", by: { kind: "keynobi" }, summary: `${state}: ${reason}` });
}

// ---- reading files back (bounded, typed) ----

const str = (v: unknown, max = 4_096) => typeof v === "string" ? clip(v, max) : null;
const int = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) ? v : null;
const count = (v: unknown) => Math.max(0, int(v) ?? 0);

function parseActor(v: unknown): Actor {
  if (isRecord(v) && (v.kind === "device" || v.kind === "keynobi")) return { kind: v.kind };
  return parseOrigin(v) ?? { kind: "keynobi" };
}

function parseBuild(v: unknown): SessionBuild | null {
  if (!isRecord(v) || typeof v.apk_sha256 !== "string") return null;
  return {
    build_id: int(v.build_id),
    task: str(v.task),
    module: str(v.module),
    variant: str(v.variant),
    version_code: int(v.version_code),
    version_name: str(v.version_name),
    apk_sha256: clip(v.apk_sha256, 64),
    map_ids: Array.isArray(v.map_ids)
      ? v.map_ids.filter((x): x is string => typeof x === "string").slice(0, 16)
      : [],
    mapping_sha256: str(v.mapping_sha256, 64),
    source: isRecord(v.source) ? v.source as unknown as Provenance : null,
  };
}

/** A session file's content, checked and bounded, or `null` when it is not one. Pure. */
// deno-lint-ignore house/long-function -- each field of a session file checked once, in turn
export function parseDebugSession(text: string): DebugSession | null {
  const v = parseJsonRecord(text);
  if (v === null || typeof v.id !== "string" || !isDebugSessionId(v.id)) return null;
  const build = parseBuild(v.build);
  const by = isRecord(v.install) ? parseOrigin(v.install.by) : null;
  if (!build || !by || typeof v.package !== "string" || typeof v.serial !== "string") return null;
  const state = (["open", "closed", "superseded", "ended"] as const).find((x) => x === v.state) ??
    "closed";
  const counts = isRecord(v.counts) ? v.counts : {};
  const events: DebugSessionEvent[] = Array.isArray(v.events)
    ? v.events.filter(isRecord).slice(-MAX_EVENTS_PER_SESSION).flatMap((e) => {
      const seq = int(e.seq);
      const kind = EVENT_KINDS.find((k) => k === e.kind);
      if (seq === null || !kind || typeof e.at !== "string") return [];
      return [{
        seq,
        at: clip(e.at, 64),
        kind,
        by: parseActor(e.by),
        summary: oneLine(String(e.summary ?? "")),
        data: isRecord(e.data) ? e.data : {},
      }];
    })
    : [];
  const crashes: SessionCrash[] = Array.isArray(v.crashes)
    ? v.crashes.filter(isRecord).slice(-MAX_CRASHES_PER_SESSION).flatMap((c) => {
      const seq = int(c.seq);
      if (seq === null) return [];
      const a = isRecord(c.attribution) ? c.attribution : {};
      return [{
        seq,
        kind: c.kind === "anr" ? "anr" as const : "crash" as const,
        at: str(c.at, 64) ?? "",
        logged_at: str(c.logged_at, 64) ?? "",
        pid: int(c.pid) ?? 0,
        summary: oneLine(String(c.summary ?? "")),
        signature: str(c.signature, 2_000) ?? "",
        crash_group_id: str(c.crash_group_id, 64),
        attribution: {
          method: a.method === "install_record"
            ? "install_record" as const
            : "unattributed" as const,
          verified: a.verified === true,
          reason: oneLine(String(a.reason ?? "")),
        },
        lines: Array.isArray(c.lines)
          ? c.lines.filter((l): l is string => typeof l === "string").slice(-MAX_CRASH_LOG_LINES)
          : [],
      }];
    })
    : [];
  const maxSeq = events.reduce((m, e) => Math.max(m, e.seq), 0);
  return {
    version: 1,
    id: v.id,
    state,
    state_reason: str(v.state_reason, MAX_SUMMARY_CHARS),
    package: clip(v.package, 256),
    serial: clip(v.serial, 256),
    model: str(v.model, 256),
    avd: str(v.avd, 256),
    project: str(v.project),
    opened_at: str(v.opened_at, 64) ?? "",
    device_installed_at: str(v.device_installed_at, 64),
    closed_at: str(v.closed_at, 64),
    last_event_at: str(v.last_event_at, 64) ?? str(v.opened_at, 64) ?? "",
    build,
    install: { by, at: (isRecord(v.install) ? str(v.install.at, 64) : null) ?? "" },
    recorded_by: v.recorded_by === "attached" ? "attached" : "standalone",
    next_seq: Math.max(int(v.next_seq) ?? 1, maxSeq + 1),
    dropped_events: count(v.dropped_events),
    dropped_agent_actions: count(v.dropped_agent_actions),
    counts: {
      launches: count(counts.launches),
      crashes: count(counts.crashes),
      anrs: count(counts.anrs),
      exits: count(counts.exits),
      agent_actions: count(counts.agent_actions),
      attachments: count(counts.attachments),
    },
    events,
    crashes,
    event_keys: Array.isArray(v.event_keys)
      ? v.event_keys.filter((k): k is string => typeof k === "string").slice(-MAX_EVENT_KEYS)
      : [],
  };
}
