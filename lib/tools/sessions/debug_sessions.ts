/**
 * The Debug Sessions tools: `list_debug_sessions`, `get_debug_session`, `compare_debug_sessions`.
 * Thin adapters over lib/sessions (the files every keynobi process records into). Each first pulls
 * the crashes this process's logcat worker read and waits for this process's queued changes, so a
 * read sees everything recorded before it.
 */
import { z } from "zod";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { defineTool } from "../define_tool.ts";
import {
  type DebugSessionState,
  isDebugSessionId,
  SESSION_STATES,
} from "../../sessions/session_model.ts";
import {
  DEFAULT_CAPTURE_LOG_LINES,
  DEFAULT_EVENTS_RETURNED,
  DEFAULT_SESSION_LIST_LIMIT,
  defaultPair,
  diffDebugSessions,
  filterDebugSessions,
  MAX_AGENT_ATTACHMENTS,
  MAX_AGENT_CRASHES,
  MAX_CAPTURE_LOG_LINES,
  MAX_EVENTS_RETURNED,
  MAX_SESSION_LIST_LIMIT,
  sessionLine,
  sessionView,
  timelinePage,
} from "../../sessions/session_query.ts";
import { listSessionSummaries, readSession } from "../../sessions/session_store.ts";
import type { ToolContext } from "../context.ts";
import { optionalPackageParam, serialFilterParam } from "../params.ts";

async function caughtUp(ctx: ToolContext): Promise<void> {
  await ctx.sessions.syncCrashes().catch(() => {});
  await ctx.sessions.flush();
}

function sessionIdOf(value: string, param: string): string {
  if (!isDebugSessionId(value)) {
    throw invalidParams(
      `Invalid ${param} ${JSON.stringify(value.slice(0, 60))}: a session id looks like ` +
        "s-mi4x2k9a1-3f9c01ab; copy one from list_debug_sessions",
    );
  }
  return value;
}

async function sessionOrError(ctx: ToolContext, id: string) {
  const s = await readSession(ctx.dataDir, id);
  if (!s) {
    throw new ToolError(
      "not_found",
      `No debug session ${id}: it is unknown or was pruned (keynobi keeps the newest sessions); ` +
        "call list_debug_sessions",
      { session_id: id },
    );
  }
  return s;
}

const listDebugSessions = defineTool({
  name: "list_debug_sessions",
  toolset: "core",
  kind: "R",
  description: "Installs of an app on a device, newest first (by install_apk or " +
    "run_run_configuration): build, state, crash, ANR, exit and launch counts.",
  params: {
    limit: z.number().int().min(1).max(MAX_SESSION_LIST_LIMIT).optional().describe(
      `Most listed (default ${DEFAULT_SESSION_LIST_LIMIT})`,
    ),
    package: optionalPackageParam("Only this app's sessions"),
    device_serial: serialFilterParam("Only this device: serial or AVD name"),
    state: z.string().optional().describe(`One of ${SESSION_STATES.join(", ")}`),
    only_crashing: z.boolean().optional().describe("Only sessions with a crash or an ANR"),
  },
  async run(args, ctx) {
    const pkg = args.package;
    const device = args.device_serial;
    if (args.state !== undefined && !(SESSION_STATES as readonly string[]).includes(args.state)) {
      throw invalidParams(
        `Invalid state ${JSON.stringify(args.state.slice(0, 40))}: use one of ${
          SESSION_STATES.join(", ")
        }`,
      );
    }
    await caughtUp(ctx);
    const all = await listSessionSummaries(ctx.dataDir);
    const { sessions, matched } = filterDebugSessions(all, {
      limit: args.limit ?? DEFAULT_SESSION_LIST_LIMIT,
      package: pkg,
      device,
      state: args.state as DebugSessionState | undefined,
      onlyCrashing: args.only_crashing,
    }, new Date());
    const lines = sessions.map(sessionLine);
    const dropped = ctx.sessions.dropped;
    return {
      structured: {
        sessions,
        count: sessions.length,
        matched,
        // Changes this process could not queue (the queue was full): they are in no session.
        changes_dropped_by_this_process: dropped,
      },
      text: [
        ...lines,
        matched === 0
          ? "No debug sessions match: a session opens when install_apk or run_run_configuration installs an app."
          : `${sessions.length} of ${matched} matching session(s).`,
      ].join("\n"),
    };
  },
});

const getDebugSession = defineTool({
  name: "get_debug_session",
  toolset: "core",
  kind: "R",
  description:
    "One debug session: build and commit, installer, counts, timeline (install, launches, " +
    "crashes, ANRs, exits, agent actions), crashes with attribution, a crash's log lines.",
  params: {
    session_id: z.string().max(64).describe("From list_debug_sessions"),
    max_events: z.number().int().min(0).max(MAX_EVENTS_RETURNED).optional().describe(
      `Newest events (default ${DEFAULT_EVENTS_RETURNED}; 0: none)`,
    ),
    before_seq: z.number().int().min(1).optional().describe(
      "Older than this seq (next_before_seq)",
    ),
    capture_seq: z.number().int().min(1).optional().describe(
      "A crash's seq: add its kept log lines",
    ),
    log_lines: z.number().int().min(1).max(MAX_CAPTURE_LOG_LINES).optional().describe(
      `Capture lines (default ${DEFAULT_CAPTURE_LOG_LINES})`,
    ),
  },
  async run(args, ctx) {
    const id = sessionIdOf(args.session_id, "session_id");
    await caughtUp(ctx);
    const s = await sessionOrError(ctx, id);
    const now = new Date();
    const page = timelinePage(
      s.events,
      args.max_events ?? DEFAULT_EVENTS_RETURNED,
      args.before_seq,
    );
    const crashes = s.crashes.slice(-MAX_AGENT_CRASHES).map((c) => ({
      seq: c.seq,
      kind: c.kind,
      at: c.at,
      logged_at: c.logged_at,
      pid: c.pid,
      summary: c.summary,
      signature: c.signature,
      crash_group_id: c.crash_group_id,
      attribution: c.attribution,
      log_lines_kept: c.lines.length,
    }));
    let capture: { seq: number; lines: string[]; truncated: boolean } | null = null;
    if (args.capture_seq !== undefined) {
      const c = s.crashes.find((x) => x.seq === args.capture_seq);
      if (!c) {
        throw new ToolError(
          "not_found",
          `Session ${id} keeps no crash or ANR with seq ${args.capture_seq}: use a seq from its ` +
            "crashes list",
          { session_id: id, capture_seq: args.capture_seq },
        );
      }
      const n = args.log_lines ?? DEFAULT_CAPTURE_LOG_LINES;
      capture = { seq: c.seq, lines: c.lines.slice(-n), truncated: c.lines.length > n };
    }
    const view = sessionView(s, now);
    const text = [
      `${s.id} ${view.state}${
        s.state_reason ? ` (${s.state_reason})` : ""
      }: ${s.package} on ${s.serial}, ` +
      `${view.build.label}, opened ${s.opened_at}`,
      ...page.timeline.map((e) => `#${e.seq} ${e.at} ${e.kind}: ${e.summary}`),
      ...(page.next_before_seq !== null
        ? [`Older events: before_seq: ${page.next_before_seq}`]
        : []),
      ...(capture ? [`Capture of #${capture.seq}:`, ...capture.lines] : []),
    ].join("\n");
    return {
      structured: {
        session: view,
        timeline: page.timeline,
        next_before_seq: page.next_before_seq,
        crashes,
        crashes_truncated: s.crashes.length > MAX_AGENT_CRASHES,
        attachments: [],
        attachments_truncated: false,
        max_attachments: MAX_AGENT_ATTACHMENTS,
        ...(capture ? { capture } : {}),
      },
      text,
    };
  },
});

const compareDebugSessions = defineTool({
  name: "compare_debug_sessions",
  toolset: "core",
  kind: "R",
  description: "Why a newer install crashes: build, commit and changed build files, launch time, " +
    "frame health, crash signatures new and gone, exit reasons. Default: newest good vs the next " +
    "crashing.",
  params: {
    from: z.string().max(64).optional().describe("Earlier (good) session id"),
    to: z.string().max(64).optional().describe("Later (crashing) session id"),
  },
  async run(args, ctx) {
    if ((args.from === undefined) !== (args.to === undefined)) {
      throw invalidParams("Pass both from and to, or neither (then keynobi picks the pair)");
    }
    const given = args.from !== undefined
      ? {
        from: sessionIdOf(args.from, "from"),
        to: sessionIdOf(args.to!, "to"),
        chosen_by: "given",
      }
      : null;
    await caughtUp(ctx);
    const pair = given ?? defaultPair(await listSessionSummaries(ctx.dataDir));
    if (!pair) {
      throw new ToolError(
        "not_found",
        "No pair to compare: there is no session with a launch and no crash followed by a crashing " +
          "session of the same package, module and variant; pass from and to",
      );
    }
    const a = await sessionOrError(ctx, pair.from);
    const b = await sessionOrError(ctx, pair.to);
    const c = diffDebugSessions(a, b);
    const now = new Date();
    const text = [
      `${a.id} → ${b.id} (${pair.chosen_by})`,
      c.differences.length
        ? `Differences: ${
          c.differences.map((d) => `${d.field} ${JSON.stringify(d.from)} → ${JSON.stringify(d.to)}`)
            .join("; ")
        }`
        : "Same build and device.",
      c.launch.comparable
        ? `Launch: ${c.launch.from!.total_ms} ms → ${c.launch.to!.total_ms} ms (${
          c.launch.delta_ms! >= 0 ? "+" : ""
        }${c.launch.delta_ms} ms)`
        : `Launch: not comparable (${c.launch.note})`,
      c.frames.comparable
        ? `Frames: ${c.frames.from!.janky_percent}% → ${c.frames.to!.janky_percent}% janky (${
          c.frames.delta_janky_percent! >= 0 ? "+" : ""
        }${c.frames.delta_janky_percent} points)${
          c.frames.delta_p90_ms !== null
            ? `, p90 ${c.frames.from!.p90_ms} → ${c.frames.to!.p90_ms} ms`
            : ""
        }${c.frames.note ? ` (${c.frames.note})` : ""}`
        : `Frames: not comparable (${c.frames.note})`,
      `Crashes new in ${b.id}: ${
        c.crashes.new_in_to.length ? c.crashes.new_in_to.join(" | ") : "none"
      }`,
      `Crashes gone: ${c.crashes.gone_in_to.length ? c.crashes.gone_in_to.join(" | ") : "none"}`,
      ...c.flows.filter((f) => f.broke || f.fixed).map((f) =>
        `Flow ${f.flow}: ${f.from!.outcome} → ${f.to!.outcome}`
      ),
      c.provenance
        ? `Source: ${
          c.provenance.same_commit === null
            ? "no commit to compare"
            : c.provenance.same_commit
            ? "same commit"
            : "different commits"
        }; ${(c.provenance.changed_build_files as unknown[]).length} build file(s) changed`
        : "Source: neither build recorded provenance",
    ].join("\n");
    return {
      structured: {
        from: sessionView(a, now),
        to: sessionView(b, now),
        chosen_by: pair.chosen_by,
        ...c,
      },
      text,
    };
  },
});

export const sessionTools = [listDebugSessions, getDebugSession, compareDebugSessions];
