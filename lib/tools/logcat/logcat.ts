/**
 * The logcat stream and buffer tools: `start_logcat`, `stop_logcat`, `clear_logcat`,
 * `get_logcat_entries`, `get_logcat_stats`. Thin adapters over the logcat worker
 * (lib/logcat/shared/logcat_client.ts). Arguments are checked here, before anything reaches the worker or
 * a device.
 */
import { z } from "zod";
import { invalidParams } from "../../core/errors.ts";
import { readSettings } from "../../core/settings.ts";
import { LEVEL_LETTERS, parseLevelName } from "../../logcat/shared/levels.ts";
import type { DeviceStats, LogEntryOut } from "../../logcat/shared/logcat_protocol.ts";
import { clampRingEntries, DEFAULT_RING_ENTRIES } from "../../logcat/shared/ring_limits.ts";
import type { ToolOutput } from "../../mcp/tool_def.ts";
import { defineTool } from "../define_tool.ts";
import type { ToolContext } from "../context.ts";
import { deviceFor } from "../device_args.ts";
import { optionalPackageParam, serialFilterParam, serialParam } from "../params.ts";

/** get_logcat_entries: default (`mcp.logcat_default_count`) and maximum count. */
const DEFAULT_LOGCAT_COUNT = 200;
const MAX_LOGCAT_COUNT = 10_000;
/** get_crash_logs: default and maximum count. */
export const DEFAULT_CRASH_COUNT = 20;
export const MAX_CRASH_COUNT = 200;
/** Longest `tag` and `text` filters. */
const MAX_TAG_FILTER_CHARS = 256;
const MAX_TEXT_FILTER_CHARS = 1_000;
/** Bound on the device listing start_logcat makes to pick a device. */
const LOGCAT_DEVICE_TIMEOUT_MS = 5_000;

export const CRASH_GROUP_ID = /^[0-9a-f]{12}$/;

async function settingsNumbers(ctx: ToolContext): Promise<{ count: number; ring: number }> {
  const s = await readSettings(ctx.dataDir).catch(() => null);
  const mcp = s?.mcp ?? {};
  const c = mcp.logcat_default_count;
  const count = typeof c === "number" && Number.isInteger(c) && c >= 1 && c <= MAX_LOGCAT_COUNT
    ? c
    : DEFAULT_LOGCAT_COUNT;
  const ring = mcp.logcat_buffer_entries === undefined
    ? DEFAULT_RING_ENTRIES
    : clampRingEntries(mcp.logcat_buffer_entries);
  return { count, ring };
}

const startLogcat = defineTool({
  name: "start_logcat",
  toolset: "core",
  kind: "W",
  description: "Stream a device's logcat (its existing buffer first) into Keynobi's buffer, one " +
    "stream per device; read it with get_logcat_entries or get_crash_logs.",
  params: { device_serial: serialParam },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial, LOGCAT_DEVICE_TIMEOUT_MS);
    const { ring } = await settingsNumbers(ctx);
    const r = await ctx.logcat.start({ serial, capacity: ring }, ctx.signal);
    // Crashes and ANRs this stream reads go to the debug sessions of their device and package.
    ctx.sessions.watchCrashes((after) => ctx.logcat.sessionCrashes(after));
    const what = r.already ? "Already streaming" : r.resumed ? "Resumed streaming" : "Streaming";
    return {
      structured: { ...r },
      text: `${what} logcat from ${serial} (${r.stored} entries stored, buffer ${r.capacity}). ` +
        "Read with get_logcat_entries; crashes with get_crash_logs.",
    };
  },
});

const stopLogcat = defineTool({
  name: "stop_logcat",
  toolset: "core",
  kind: "W",
  description:
    "Stop logcat streaming (every device, or device_serial); what was read stays buffered, " +
    "start_logcat resumes.",
  params: {
    device_serial: serialFilterParam("Stop only this device; default all"),
  },
  async run(args, ctx) {
    const serial = args.device_serial;
    const r: { stopped: string[]; kept_for_others?: { serial: string; sessions: number }[] } =
      await ctx.logcat.stop(serial, ctx.signal);
    const kept = r.kept_for_others ?? [];
    const keptText = kept.map((k) =>
      `${k.serial} keeps streaming for ${k.sessions} other attached session(s)`
    ).join("; ");
    return {
      structured: { stopped: r.stopped, ...(kept.length ? { kept_for_others: kept } : {}) },
      text: (r.stopped.length
        ? `Stopped logcat on ${r.stopped.join(", ")}; the buffer is kept.`
        : kept.length
        ? "This session no longer holds the stream."
        : "No logcat stream was running.") + (keptText ? ` ${keptText}.` : ""),
    };
  },
});

const clearLogcat = defineTool({
  name: "clear_logcat",
  toolset: "core",
  kind: "D",
  description:
    "Clear Keynobi's logcat buffer and crash records (every device, or device_serial), not " +
    "the device's buffer; streams keep running.",
  params: {
    device_serial: serialFilterParam("Clear only this device; default all"),
  },
  async run(args, ctx) {
    const serial = args.device_serial;
    const r = await ctx.logcat.clear(serial, ctx.signal);
    return {
      structured: { cleared: r.cleared },
      text: r.cleared.length
        ? `Cleared Keynobi's logcat buffer of ${r.cleared.join(", ")} (the device's buffer is ` +
          "untouched)."
        : "Nothing to clear: no logcat stream has run.",
    };
  },
});

function renderEntry(e: LogEntryOut, devices: number): string {
  const who = e.package ?? e.process;
  return `${devices > 1 ? `[${e.device}] ` : ""}${e.time} ${e.pid} ${
    e.tid ?? "-"
  } ${e.level} ${e.tag}: ${e.message}${who ? `  [${who}]` : ""}`;
}

const getLogcatEntries = defineTool({
  name: "get_logcat_entries",
  toolset: "core",
  kind: "R",
  description:
    "Search buffered logcat: the newest matching entries, oldest first (pid, level, tag, " +
    "message, package, crash flag, JSON payload); a partial answer gives next_before_seq.",
  params: {
    count: z.number().int().min(1).max(MAX_LOGCAT_COUNT).optional().describe(
      `Most returned (default ${DEFAULT_LOGCAT_COUNT})`,
    ),
    min_level: z.string().optional().describe("Lowest level: V, D, I, W, E or F"),
    tag: z.string().max(MAX_TAG_FILTER_CHARS).optional().describe("Exact tag"),
    text: z.string().max(MAX_TEXT_FILTER_CHARS).optional().describe(
      "Message contains this, any case",
    ),
    package: optionalPackageParam("Only this app's processes"),
    only_crashes: z.boolean().optional().describe("Only crash and ANR lines"),
    device_serial: serialFilterParam("Only this device"),
    before_seq: z.number().int().min(1).optional().describe(
      "Older than this seq (next_before_seq)",
    ),
  },
  async run(args, ctx): Promise<ToolOutput> {
    let minLevel: number | undefined;
    if (args.min_level !== undefined) {
      minLevel = parseLevelName(args.min_level);
      if (!minLevel || minLevel > 6) {
        throw invalidParams(
          `Invalid min_level ${JSON.stringify(args.min_level.slice(0, 40))}: use one of V, D, I, ` +
            "W, E, F",
        );
      }
    }
    const pkg = args.package;
    const serial = args.device_serial;
    const count = args.count ?? (await settingsNumbers(ctx)).count;
    const r = await ctx.logcat.entries({
      count,
      min_level: minLevel,
      tag: args.tag,
      text: args.text === "" ? undefined : args.text,
      package: pkg,
      only_crashes: args.only_crashes,
      serial,
      before_seq: args.before_seq,
    }, ctx.signal);
    const lines = r.entries.map((e) => renderEntry(e, r.devices.length));
    const head = r.devices.length === 0
      ? "No logcat stream has run: call start_logcat first."
      : `${r.entries.length} of ${r.stored} stored entries (newest last) from ${
        r.devices.join(", ")
      }.`;
    const more = r.partial
      ? [
        `Partial: the text search stopped at seq ${r.next_before_seq} (the buffer's text index ` +
        "is still being built after a burst of lines). Older matches: call again with " +
        `before_seq ${r.next_before_seq}; or repeat the query in a moment, once it is indexed.`,
      ]
      : [];
    return {
      structured: {
        count: r.entries.length,
        stored: r.stored,
        devices: r.devices,
        entries: r.entries,
        partial: r.partial,
        next_before_seq: r.next_before_seq,
      },
      text: [head, ...more, ...lines].join("\n"),
    };
  },
});

function renderStats(d: DeviceStats): string {
  const levels = LEVEL_LETTERS.filter((l) => d.levels[l]).map((l) => `${l} ${d.levels[l]}`)
    .join(", ");
  const tags = d.top_tags.slice(0, 5).map((t) => `${t.tag || "(empty)"} ${t.count}`).join(", ");
  return [
    `${d.serial}: ${d.state}${d.reason ? ` (${d.reason})` : ""}`,
    `  ${d.stored}/${d.capacity} entries stored, ${d.evicted} evicted, ${d.lines_read} lines ` +
    `read, ${d.rate_per_sec} lines/s, ${d.crashes} crashes`,
    `  levels: ${levels || "none"}`,
    `  top tags: ${tags || "none"}`,
  ].join("\n");
}

const getLogcatStats = defineTool({
  name: "get_logcat_stats",
  toolset: "core",
  kind: "R",
  description:
    "Per device: stream state (and why it ended), entries stored and evicted, lines per " +
    "second, counts by level, top tags, crash count.",
  params: {},
  async run(_args, ctx) {
    const s = await ctx.logcat.stats(ctx.signal);
    if (!s || s.devices.length === 0) {
      return {
        structured: { devices: [] },
        text: "No logcat stream has run: call start_logcat first.",
      };
    }
    return {
      structured: { devices: s.devices },
      text: s.devices.map(renderStats).join("\n"),
    };
  },
});

export const logcatTools = [startLogcat, stopLogcat, clearLogcat, getLogcatEntries, getLogcatStats];
