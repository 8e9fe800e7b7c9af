/**
 * Debug sessions on disk: `<data dir>/debug-sessions/<id>.json` (one session each) and
 * `index.json` (one summary line per session, what listing and picking need). Shared by every
 * keynobi process: each batch of changes runs under `debug-sessions.lock` (`withFileLock`), reads
 * the index and the sessions it touches, applies the changes in order, and writes every changed file
 * through a temporary file renamed into place; so two processes recording into one session at once
 * lose no event and never tear a file. Readers do not lock (the renames keep files whole).
 *
 * Bounded: at most `MAX_KEPT_SESSIONS` sessions (the oldest that are not open dropped first), and
 * each session bounded by lib/sessions/session_model.ts.
 */
import { join } from "../core/path.ts";
import { debugSessionsDir, ensureDataDir } from "../core/data_dir.ts";
import { withFileLock, writeFileAtomic } from "../core/file_lock.ts";
import { isRecord, parseJsonRecord } from "../core/json.ts";
import { log } from "../core/log.ts";
import {
  appendEvent,
  beforeInstall,
  createDebugSession,
  type DebugSession,
  type DebugSessionEvent,
  endDebugSession,
  isDebugSessionId,
  MAX_EVENT_KEYS,
  type NewDebugSession,
  type NewEvent,
  parseDebugSession,
  type StoredState,
} from "./session_model.ts";
import { appendAll } from "../core/arrays.ts";

/** Sessions kept; the oldest closed ones are dropped first. */
const MAX_KEPT_SESSIONS = 200;
/** A session file larger than this is not read (a session is bounded well below it). */
const MAX_SESSION_FILE_BYTES = 32 * 1024 * 1024;
/** An index larger than this is rebuilt from the session files. */
const MAX_INDEX_FILE_BYTES = 8 * 1024 * 1024;

const sessionsLockPath = (dataDir: string) => join(dataDir, "debug-sessions.lock");
const sessionIndexPath = (dataDir: string) => join(debugSessionsDir(dataDir), "index.json");
const sessionFilePath = (dataDir: string, id: string) =>
  join(debugSessionsDir(dataDir), `${id}.json`);

/** What the index keeps of a session. */
export interface DebugSessionSummary {
  id: string;
  state: StoredState;
  package: string;
  serial: string;
  avd: string | null;
  model: string | null;
  project: string | null;
  build_id: number | null;
  module: string | null;
  variant: string | null;
  apk_sha256: string;
  opened_at: string;
  closed_at: string | null;
  last_event_at: string;
  recorded_by: "standalone" | "attached";
  counts: DebugSession["counts"];
}

function summarize(s: DebugSession): DebugSessionSummary {
  return {
    id: s.id,
    state: s.state,
    package: s.package,
    serial: s.serial,
    avd: s.avd,
    model: s.model,
    project: s.project,
    build_id: s.build.build_id,
    module: s.build.module,
    variant: s.build.variant,
    apk_sha256: s.build.apk_sha256,
    opened_at: s.opened_at,
    closed_at: s.closed_at,
    last_event_at: s.last_event_at,
    recorded_by: s.recorded_by,
    counts: { ...s.counts },
  };
}

/** One change to the sessions, applied under the lock in queue order. */
export type DebugSessionOp =
  | { type: "open"; session: NewDebugSession }
  | {
    type: "event";
    serial: string;
    /** Only sessions of this package; `null`: every open session of the device. */
    package: string | null;
    event: NewEvent;
    /** Skip a session that already has an event with this key (crashes, exits). */
    key?: string;
  }
  | {
    type: "end";
    serial: string;
    package: string;
    state: "closed" | "ended";
    reason: string;
    at: Date;
  }
  | {
    /** The APK the device has now: open sessions of another APK are closed. */
    type: "device_apk";
    serial: string;
    package: string;
    apk_sha256: string;
    at: Date;
  };

function parseIndex(text: string): DebugSessionSummary[] | null {
  const v = parseJsonRecord(text);
  if (v === null || !Array.isArray(v.sessions)) return null;
  return v.sessions.filter((x: unknown): x is DebugSessionSummary =>
    isRecord(x) && typeof x.id === "string" && isDebugSessionId(x.id)
  );
}

async function readIfSmall(path: string, max: number): Promise<string | null> {
  try {
    const st = await Deno.stat(path);
    if (!st.isFile || st.size > max) return null;
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

/** The index, rebuilt from the session files when it is missing or unreadable. */
async function loadIndex(dataDir: string): Promise<DebugSessionSummary[]> {
  const text = await readIfSmall(sessionIndexPath(dataDir), MAX_INDEX_FILE_BYTES);
  const parsed = text === null ? null : parseIndex(text);
  if (parsed) return parsed;
  const out: DebugSessionSummary[] = [];
  try {
    for await (const e of Deno.readDir(debugSessionsDir(dataDir))) {
      const m = /^(.+)\.json$/.exec(e.name);
      if (!e.isFile || !m || !isDebugSessionId(m[1])) continue;
      const s = await readSession(dataDir, m[1]);
      if (s) out.push(summarize(s));
    }
  } catch {
    return [];
  }
  if (text !== null) {
    log.warn("debug-sessions/index.json was unreadable; rebuilt it from the sessions");
  }
  return out.sort((a, b) => a.opened_at < b.opened_at ? -1 : a.opened_at > b.opened_at ? 1 : 0);
}

/** Every session's summary, oldest first (no lock). */
export async function listSessionSummaries(dataDir: string): Promise<DebugSessionSummary[]> {
  const text = await readIfSmall(sessionIndexPath(dataDir), MAX_INDEX_FILE_BYTES);
  if (text === null) return await loadIndex(dataDir);
  return parseIndex(text) ?? await loadIndex(dataDir);
}

/** One session, or `null` when it is unknown or pruned (no lock). */
export async function readSession(dataDir: string, id: string): Promise<DebugSession | null> {
  if (!isDebugSessionId(id)) return null;
  const text = await readIfSmall(sessionFilePath(dataDir, id), MAX_SESSION_FILE_BYTES);
  return text === null ? null : parseDebugSession(text);
}

function eventKeyOf(e: DebugSessionEvent): string | null {
  const k = e.data.key;
  return typeof k === "string" ? k : null;
}

/**
 * Applies `ops` in order under the lock and writes what changed. Returns the events appended and
 * the sessions opened (for tests and callers that want the ids).
 */
export async function applySessionOps(
  dataDir: string,
  ops: readonly DebugSessionOp[],
): Promise<{ opened: string[]; appended: number }> {
  if (ops.length === 0) return { opened: [], appended: 0 };
  // Without any session yet, only an install has something to change (agent actions of a device
  // nobody installed on, for example, touch no file).
  if (!ops.some((o) => o.type === "open")) {
    const exists = await Deno.stat(debugSessionsDir(dataDir)).then(
      (s) => s.isDirectory,
      () => false,
    );
    if (!exists) return { opened: [], appended: 0 };
  }
  await ensureDataDir(dataDir);
  await Deno.mkdir(debugSessionsDir(dataDir), { recursive: true, mode: 0o700 });
  return await withFileLock(sessionsLockPath(dataDir), async () => {
    const batch = new SessionBatch(dataDir, await loadIndex(dataDir));
    for (const op of ops) await batch.apply(op);
    await batch.write();
    return { opened: batch.opened, appended: batch.appended };
  });
}

/** One `applySessionOps` under the lock: the index, the sessions it loaded, and what changed. */
class SessionBatch {
  readonly opened: string[] = [];
  appended = 0;
  readonly #dataDir: string;
  readonly #index: DebugSessionSummary[];
  readonly #loaded = new Map<string, DebugSession>();
  readonly #changed = new Set<string>();

  constructor(dataDir: string, index: DebugSessionSummary[]) {
    this.#dataDir = dataDir;
    this.#index = index;
  }

  async apply(op: DebugSessionOp): Promise<void> {
    if (op.type === "open") await this.#open(op);
    else if (op.type === "event") await this.#event(op);
    else if (op.type === "device_apk") await this.#deviceApk(op);
    else {
      for (const s of await this.#openSessions(op.serial, op.package)) {
        this.#end(s, op.state, op.reason, op.at);
      }
    }
    // Keep the index in step with the loaded sessions for the next op.
    for (const id of this.#changed) {
      const at = this.#index.findIndex((x) => x.id === id);
      if (at >= 0) this.#index[at] = summarize(this.#loaded.get(id)!);
    }
  }

  /** Writes the changed sessions and the index; nothing when no open session matched. */
  async write(): Promise<void> {
    if (this.#changed.size === 0) return;
    const dropped = pruneIndex(this.#index);
    for (const id of this.#changed) {
      if (dropped.includes(id)) continue;
      const text = JSON.stringify(this.#loaded.get(id)!) + "\n";
      await writeFileAtomic(sessionFilePath(this.#dataDir, id), text);
    }
    await writeFileAtomic(
      sessionIndexPath(this.#dataDir),
      JSON.stringify({ version: 1, sessions: this.#index }) + "\n",
    );
    for (const id of dropped) {
      await Deno.remove(sessionFilePath(this.#dataDir, id)).catch(() => {});
    }
  }

  async #get(id: string): Promise<DebugSession | null> {
    const hit = this.#loaded.get(id);
    if (hit) return hit;
    const s = await readSession(this.#dataDir, id);
    if (s) this.#loaded.set(id, s);
    return s;
  }

  /** The open sessions of `serial` (and `pkg`, unless null), as the index lists them. */
  async #openSessions(serial: string, pkg: string | null): Promise<DebugSession[]> {
    const out: DebugSession[] = [];
    for (const x of this.#openOf(serial, pkg)) {
      const s = await this.#get(x.id);
      if (s) out.push(s);
    }
    return out;
  }

  #openOf(serial: string, pkg: string | null): DebugSessionSummary[] {
    return this.#index.filter((x) =>
      x.state === "open" && x.serial === serial && (pkg === null || x.package === pkg)
    );
  }

  #end(s: DebugSession, state: Parameters<typeof endDebugSession>[1], reason: string, at: Date) {
    endDebugSession(s, state, reason, at);
    this.#changed.add(s.id);
  }

  async #open(op: Extract<DebugSessionOp, { type: "open" }>): Promise<void> {
    const { serial, package: pkg, at } = op.session;
    for (const old of await this.#openSessions(serial, pkg)) {
      this.#end(old, "superseded", "a newer install of the package on this device", at);
    }
    const s = createDebugSession(op.session);
    this.#loaded.set(s.id, s);
    this.#changed.add(s.id);
    this.#index.push(summarize(s));
    this.opened.push(s.id);
    this.appended++;
  }

  async #event(op: Extract<DebugSessionOp, { type: "event" }>): Promise<void> {
    for (const s of await this.#openSessions(op.serial, op.package)) {
      if (s.state !== "open") continue;
      if (op.key !== undefined) {
        if (s.event_keys.includes(op.key) || s.events.some((e) => eventKeyOf(e) === op.key)) {
          continue;
        }
        s.event_keys.push(op.key);
        if (s.event_keys.length > MAX_EVENT_KEYS) s.event_keys.shift();
      }
      const event = sessionEvent(s, op);
      if (event === null) continue;
      if (appendEvent(s, event)) this.appended++;
      this.#changed.add(s.id);
    }
  }

  async #deviceApk(op: Extract<DebugSessionOp, { type: "device_apk" }>): Promise<void> {
    for (const target of this.#openOf(op.serial, op.package)) {
      if (target.apk_sha256 === op.apk_sha256) continue;
      const s = await this.#get(target.id);
      if (!s) continue;
      const sha = op.apk_sha256.slice(0, 12);
      this.#end(
        s,
        "closed",
        `${op.serial} now has another APK of ${op.package} (sha256 ${sha}…), installed outside ` +
          "keynobi",
        op.at,
      );
    }
  }
}

/**
 * The event an op appends to session `s`, or `null` when it belongs to an older install: an exit
 * or crash the device stamped before this install (a crash replayed from the device's buffer by
 * start_logcat, say) is not this session's. A crash whose time cannot be checked says so.
 */
function sessionEvent(
  s: DebugSession,
  op: Extract<DebugSessionOp, { type: "event" }>,
): NewEvent | null {
  const stamp = typeof op.event.data?.timestamp === "string"
    ? op.event.data.timestamp
    : typeof op.event.data?.logged_at === "string"
    ? op.event.data.logged_at
    : null;
  const early = op.event.kind === "exit" || op.event.crash ? beforeInstall(s, stamp) : null;
  if (early === true) return null;
  const data = op.key === undefined ? op.event.data : { ...op.event.data, key: op.key };
  const event = { ...op.event, data };
  if (!op.event.crash) return event;
  const attribution = early === null
    ? {
      ...op.event.crash.attribution,
      verified: false,
      reason: op.event.crash.attribution.reason +
        "; the device's install time is unknown, so the time was not checked",
    }
    : op.event.crash.attribution;
  return { ...event, crash: { ...op.event.crash, attribution } };
}

/** Drops sessions beyond `max` from `index` (oldest not-open first); returns their ids. Mutates. */
export function pruneIndex(index: DebugSessionSummary[], max = MAX_KEPT_SESSIONS): string[] {
  const excess = index.length - max;
  if (excess <= 0) return [];
  const victims = new Set(
    index.filter((x) => x.state !== "open").slice(0, excess).map((x) => x.id),
  );
  for (const x of index) {
    if (victims.size >= excess) break;
    victims.add(x.id);
  }
  const kept = index.filter((x) => !victims.has(x.id));
  index.length = 0;
  appendAll(index, kept);
  return [...victims];
}
