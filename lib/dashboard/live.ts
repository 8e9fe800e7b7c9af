/**
 * The live feed: one server-sent-events stream per open page. While a page is open the hub reads
 * each section (lib/dashboard/snapshot.ts) every REFRESH_MS and sends the ones that changed, tails
 * the activity log, and tails the log of every running build every LINES_TICK_MS. The page never
 * polls: it renders what arrives. Nothing runs while no page is open.
 *
 * Bounded everywhere: at most MAX_SSE_CLIENTS pages; a page that does not read its stream (more
 * than MAX_CLIENT_BACKLOG_BYTES waiting) is dropped (its EventSource reconnects and starts from a
 * fresh snapshot); one lines event carries at most MAX_LINES_PER_EVENT lines (the newest; the
 * number skipped is said, and the page fetches older lines on scroll).
 */
import { activityLogPath } from "../core/data_dir.ts";
import {
  buildLogPath,
  MAX_BUILD_LOG_BYTES,
  MAX_LOG_LINE_BYTES,
} from "../build/shared/build_log.ts";
import { type ActivityEntry, parseEntry } from "../mcp/activity_log.ts";
import { log } from "../core/log.ts";
import { readLinesAfter, readLinesBefore } from "./file_window.ts";
import type { DashboardHost } from "./host.ts";
import {
  appSection,
  buildsSection,
  crashesSection,
  devicesSection,
  LaunchTimes,
  projectsSection,
  sessionsSection,
  setupSection,
} from "./snapshot.ts";

/** How often the sections are read while a page is open. */
const REFRESH_MS = 1_000;
/** How often running builds' logs and the activity log are read while a page is open. */
export const LINES_TICK_MS = 200;
/** Pages served at once; one more is refused (503). */
const MAX_SSE_CLIENTS = 8;
/** Bytes waiting for one page before it is dropped. */
const MAX_CLIENT_BACKLOG_BYTES = 8 * 1024 * 1024;
/** Activity entries a page gets when it connects (the newest). */
const INITIAL_ACTIVITY_ENTRIES = 2_000;
/** Lines of a running build a page gets when it connects. */
const INITIAL_BUILD_LINES = 500;
/** A running build's log this large has filled its on-disk head (half of MAX_BUILD_LOG_BYTES). */
const HEAD_FULL_BYTES = Math.floor(MAX_BUILD_LOG_BYTES / 2) - MAX_LOG_LINE_BYTES;
/** Lines in one `lines` event (the newest of what was read). */
export const MAX_LINES_PER_EVENT = 1_000;
/** Activity entries in one `activity` event. */
const MAX_ACTIVITY_PER_EVENT = 2_000;
/**
 * Sections read less often: the setup commands look at the bundle's sources (hundreds of stats),
 * and change only when the user rebuilds or installs (an action re-reads them at once).
 */
const SLOW_SECTION_MS = 30_000;
const SLOW_SECTIONS: ReadonlySet<string> = new Set(["setup"]);
/** A comment line keeps idle connections open through proxies and sleep. */
const HEARTBEAT_MS = 15_000;

const SECTION_NAMES = [
  "app",
  "devices",
  "builds",
  "crashes",
  "sessions",
  "projects",
  "setup",
] as const;
type SectionName = typeof SECTION_NAMES[number];

const encoder = new TextEncoder();

interface Client {
  controller: ReadableStreamDefaultController<Uint8Array>;
  closed: boolean;
}

function frame(event: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

interface Tail {
  offset: number;
  /** The log reached its on-disk head (the page was told). */
  headFull: boolean;
  /** Once the build finished: read to the end, then forget it. */
  finished: boolean;
}

export class LiveHub {
  readonly #host: DashboardHost;
  readonly #clients = new Set<Client>();
  readonly #sections = new Map<SectionName, { json: string; value: unknown }>();
  readonly #launches = new LaunchTimes();
  readonly #tails = new Map<number, Tail>();
  #activity = { offset: -1, ino: null as number | null, lastLine: "" };
  #timers: ReturnType<typeof setInterval>[] = [];
  /** When each slow section was last read. */
  #slowReadAt = new Map<SectionName, number>();
  #refreshing: Promise<void> | null = null;
  #ticking = false;
  #closed = false;

  constructor(host: DashboardHost) {
    this.#host = host;
  }

  get clients(): number {
    return this.#clients.size;
  }

  /** Every section as last read (reading them now when no page is open). */
  async snapshot(): Promise<Record<string, unknown>> {
    if (this.#clients.size === 0 || this.#sections.size === 0) await this.refresh();
    return Object.fromEntries([...this.#sections].map(([k, v]) => [k, v.value]));
  }

  /** Reads every section; sends the ones that changed. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => this.#refreshing = null);
    return this.#refreshing;
  }

  async #refresh(): Promise<void> {
    const h = this.#host;
    const readers: Record<SectionName, () => Promise<unknown>> = {
      app: () => appSection(h),
      devices: () => devicesSection(h),
      builds: () => buildsSection(h),
      crashes: () => crashesSection(h),
      sessions: () => sessionsSection(h, this.#launches),
      projects: () => projectsSection(h),
      setup: () => setupSection(h),
    };
    const now = performance.now();
    await Promise.all(SECTION_NAMES.map(async (name) => {
      if (SLOW_SECTIONS.has(name) && this.#sections.has(name)) {
        const at = this.#slowReadAt.get(name);
        if (at !== undefined && now - at < SLOW_SECTION_MS) return;
      }
      if (SLOW_SECTIONS.has(name)) this.#slowReadAt.set(name, now);
      let value: unknown;
      try {
        value = await readers[name]();
      } catch (e) {
        value = { error: `Cannot read ${name}: ${(e as Error).message}` };
      }
      const json = JSON.stringify(value);
      if (this.#sections.get(name)?.json === json) return;
      this.#sections.set(name, { json, value });
      this.#broadcast(frame("section", { name, value }));
    }));
  }

  /** Something the user did may have changed every section: read them all now. */
  async changed(): Promise<void> {
    await this.#refreshing?.catch(() => {});
    this.#slowReadAt.clear();
    await this.refresh();
  }

  /** A new page: its stream, starting with every section, recent activity and running logs. */
  async connect(): Promise<Response> {
    if (this.#clients.size >= MAX_SSE_CLIENTS) {
      return new Response(
        `The dashboard is open in ${MAX_SSE_CLIENTS} pages already: close one and reload`,
        { status: 503 },
      );
    }
    if (this.#sections.size === 0 || this.#clients.size === 0) await this.refresh();
    if (this.#activity.offset < 0) await this.#startActivity();
    const client: Client = { controller: null!, closed: false };
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        client.controller = c;
      },
      cancel: () => this.#drop(client),
    }, { highWaterMark: MAX_CLIENT_BACKLOG_BYTES, size: (chunk) => chunk.length });
    this.#clients.add(client);
    this.#send(client, encoder.encode(`retry: 2000\n\n`));
    for (const [name, s] of this.#sections) {
      this.#send(client, frame("section", { name, value: s.value }));
    }
    this.#send(client, frame("activity_reset", { entries: await this.#initialActivity() }));
    for (const [id, tail] of this.#tails) {
      const lines = await readLinesBefore(
        buildLogPath(this.#host.dataDir, id),
        tail.offset,
        INITIAL_BUILD_LINES,
      ).catch(() => null);
      if (lines) {
        this.#send(
          client,
          frame("lines", {
            build_id: id,
            reset: true,
            from: lines.from,
            next: tail.offset,
            lines: lines.lines,
            skipped_lines: 0,
          }),
        );
      }
    }
    this.#start();
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }

  close(): void {
    this.#closed = true;
    this.#stop();
    for (const c of [...this.#clients]) this.#drop(c);
  }

  #start(): void {
    if (this.#timers.length > 0 || this.#closed) return;
    this.#timers.push(
      setInterval(() => void this.refresh().catch(() => {}), REFRESH_MS),
      setInterval(() => void this.#tick(), LINES_TICK_MS),
      setInterval(() => this.#broadcast(encoder.encode(": keep-alive\n\n")), HEARTBEAT_MS),
    );
  }

  #stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    this.#tails.clear();
    this.#activity = { offset: -1, ino: null, lastLine: "" };
  }

  #send(c: Client, bytes: Uint8Array): void {
    if (c.closed) return;
    if ((c.controller.desiredSize ?? 0) <= 0) {
      log.warn("dashboard: a page stopped reading its live feed; dropped it (it reconnects)");
      this.#drop(c);
      return;
    }
    try {
      c.controller.enqueue(bytes);
    } catch {
      this.#drop(c);
    }
  }

  #broadcast(bytes: Uint8Array): void {
    for (const c of this.#clients) this.#send(c, bytes);
  }

  #drop(c: Client): void {
    if (!c.closed) {
      c.closed = true;
      try {
        c.controller.close();
      } catch { /* closed */ }
    }
    this.#clients.delete(c);
    if (this.#clients.size === 0) this.#stop();
  }

  async #tick(): Promise<void> {
    if (this.#ticking || this.#clients.size === 0) return;
    this.#ticking = true;
    try {
      await this.#tickActivity();
      await this.#tickBuilds();
    } catch (e) {
      log.warn(`dashboard: live read failed: ${(e as Error).message}`);
    } finally {
      this.#ticking = false;
    }
  }

  // ---- the activity log ----

  async #stat(): Promise<Deno.FileInfo | null> {
    try {
      return await Deno.stat(activityLogPath(this.#host.dataDir));
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
  }

  async #startActivity(): Promise<void> {
    const st = await this.#stat();
    this.#activity = { offset: st?.size ?? 0, ino: st?.ino ?? null, lastLine: "" };
    if (st && st.size > 0) {
      const last = await readLinesBefore(activityLogPath(this.#host.dataDir), st.size, 1);
      this.#activity.lastLine = last.lines[0] ?? "";
    }
  }

  async #initialActivity(): Promise<ActivityEntry[]> {
    if (this.#activity.offset <= 0) return [];
    const r = await readLinesBefore(
      activityLogPath(this.#host.dataDir),
      this.#activity.offset,
      INITIAL_ACTIVITY_ENTRIES,
    ).catch(() => ({ lines: [] as string[] }));
    return this.#forPage(r.lines);
  }

  /**
   * Parsed entries as the page shows them: the file has `‹arg›` for every argument; an entry this
   * process wrote shows its device and package again (the app keeps those summaries in memory).
   */
  #forPage(lines: string[]): ActivityEntry[] {
    const out: ActivityEntry[] = [];
    for (const line of lines) {
      const e = parseEntry(line);
      if (e === null) continue;
      const page = this.#host.activity.pageSummary(e);
      out.push(page === null ? e : { ...e, summary: page });
    }
    return out;
  }

  async #tickActivity(): Promise<void> {
    const path = activityLogPath(this.#host.dataDir);
    const st = await this.#stat();
    if (st === null) return;
    const a = this.#activity;
    let from = a.offset;
    let skipKnown = false;
    if (st.ino !== a.ino || st.size < a.offset) {
      // Rotated (a new file renamed over the log): its kept lines end with ones already sent.
      a.ino = st.ino;
      from = 0;
      skipKnown = true;
    }
    const r = await readLinesAfter(path, from);
    let lines = r.lines;
    if (skipKnown && a.lastLine !== "") {
      const i = lines.lastIndexOf(a.lastLine);
      if (i >= 0) lines = lines.slice(i + 1);
    }
    a.offset = r.next;
    if (r.lines.length > 0) a.lastLine = r.lines[r.lines.length - 1];
    const entries = this.#forPage(lines);
    for (let i = 0; i < entries.length; i += MAX_ACTIVITY_PER_EVENT) {
      this.#broadcast(frame("activity", { entries: entries.slice(i, i + MAX_ACTIVITY_PER_EVENT) }));
    }
  }

  // ---- running builds' logs ----

  async #tickBuilds(): Promise<void> {
    const builds = this.#sections.get("builds")?.value as
      | { history?: { id: number; status: string }[] }
      | undefined;
    const running = new Set(
      (builds?.history ?? []).filter((b) => b.status === "running").map((b) => b.id),
    );
    for (const id of running) {
      if (!this.#tails.has(id)) {
        this.#tails.set(id, { offset: -1, finished: false, headFull: false });
      }
    }
    for (const [id, tail] of this.#tails) {
      if (tail.offset < 0) {
        // A build seen for the first time: the page gets its newest lines, then what follows.
        const start = await readLinesBefore(
          buildLogPath(this.#host.dataDir, id),
          null,
          INITIAL_BUILD_LINES,
        ).catch(() => ({ from: 0, lines: [] as string[] }));
        const next = start.from + start.lines.reduce((n, l) => n + encoder.encode(l).length + 1, 0);
        tail.offset = next;
        this.#broadcast(frame("lines", {
          build_id: id,
          reset: true,
          from: start.from,
          next,
          lines: start.lines,
          skipped_lines: 0,
        }));
        continue;
      }
      if (!running.has(id)) tail.finished = true;
      let r;
      try {
        r = await readLinesAfter(buildLogPath(this.#host.dataDir, id), tail.offset);
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
        if (tail.finished) this.#tails.delete(id);
        continue;
      }
      if (r.lines.length === 0) {
        if (tail.finished) this.#tails.delete(id);
        else if (!tail.headFull && r.size >= HEAD_FULL_BYTES) {
          // Past its on-disk half the log keeps lines in memory until the build ends
          // (lib/build/shared/build_log.ts): say so rather than look stalled.
          tail.headFull = true;
          this.#broadcast(frame("log_held", { build_id: id, bytes: r.size }));
        }
        continue;
      }
      let lines = r.lines;
      let from = r.from;
      let skipped = 0;
      if (lines.length > MAX_LINES_PER_EVENT) {
        skipped = lines.length - MAX_LINES_PER_EVENT;
        for (let i = 0; i < skipped; i++) from += encoder.encode(lines[i]).length + 1;
        lines = lines.slice(skipped);
      }
      tail.offset = r.next;
      this.#broadcast(frame("lines", {
        build_id: id,
        reset: false,
        from,
        next: r.next,
        lines,
        skipped_lines: skipped,
      }));
    }
  }
}
