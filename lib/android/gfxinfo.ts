/**
 * Frame health from `dumpsys gfxinfo <package>` (HWUI's JankTracker): frames rendered, janky
 * frames, frame-time percentiles and the counts of the usual causes, for the app's own process.
 * Read from the text every Android version prints: Marshmallow's (no 50th percentile), Nougat to
 * Android 9's (with the 50th), Android 10 and 11's (`Number Frame deadline missed`) and Android 12
 * and later's (`Janky frames (legacy)`, GPU percentiles, per-window `Window:` blocks). A dump names
 * every process whose name starts with the package (`** Graphics info for pid N [name] **`); only
 * the section whose name is exactly the package is read, and in it only the process's own
 * figures (the first block, before the per-window ones). Pure.
 */

interface FramePercentiles {
  p50_ms: number | null;
  p90_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

interface FrameStats {
  pid: number;
  /** Nanoseconds of uptime the counters run from (the process's start, or the last reset). */
  stats_since_ns: number | null;
  total_frames: number;
  janky_frames: number;
  janky_percent: number;
  /** Android 12+: the older "over 16 ms" measure beside the deadline-based one. */
  janky_legacy_frames: number | null;
  janky_legacy_percent: number | null;
  /** `null` when no frame was rendered (HWUI then prints its last bucket, 4950 ms). */
  percentiles: FramePercentiles;
  gpu_percentiles: FramePercentiles | null;
  missed_vsync: number | null;
  high_input_latency: number | null;
  slow_ui_thread: number | null;
  slow_bitmap_uploads: number | null;
  slow_draw_commands: number | null;
  frame_deadline_missed: number | null;
}

type GfxinfoReading =
  /** No process of the package drew (not running, or never rendered with HWUI). */
  | { found: false; processes: string[] }
  /** The process is there but printed no frame statistics (it has not rendered a frame). */
  | { found: true; pid: number; stats: null }
  | { found: true; pid: number; stats: FrameStats };

const HEADER = /^\*\* Graphics info for pid (\d+) \[([^\]\s]+)\] \*\*\s*$/;
/** Most process sections looked at in one dump (`dumpsys gfxinfo` with a short prefix). */
const MAX_GFX_SECTIONS = 200;

function count(lines: readonly string[], label: string): number | null {
  const prefix = label + ":";
  for (const l of lines) {
    const t = l.trim();
    if (!t.startsWith(prefix)) continue;
    const m = /^(\d+)/.exec(t.slice(prefix.length).trim());
    return m ? Number(m[1]) : null;
  }
  return null;
}

function ratio(lines: readonly string[], label: string): [number, number] | null {
  const prefix = label + ":";
  for (const l of lines) {
    const t = l.trim();
    if (!t.startsWith(prefix)) continue;
    const m = /^(\d+) \(([\d.]+)%\)/.exec(t.slice(prefix.length).trim());
    return m ? [Number(m[1]), Number(m[2])] : null;
  }
  return null;
}

function percentiles(lines: readonly string[], gpu: boolean): FramePercentiles {
  const at = (p: number): number | null => {
    const label = gpu ? `${p}th gpu percentile:` : `${p}th percentile:`;
    for (const l of lines) {
      const t = l.trim();
      if (!t.startsWith(label)) continue;
      const m = /^(\d+)ms/.exec(t.slice(label.length).trim());
      return m ? Number(m[1]) : null;
    }
    return null;
  };
  return { p50_ms: at(50), p90_ms: at(90), p95_ms: at(95), p99_ms: at(99) };
}

/** The process-level lines of a section: up to its first per-window or memory block. */
function processBlock(section: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of section) {
    const t = l.trim();
    if (
      t === "Profile data in ms:" || t.startsWith("Window: ") || t === "Caches:" ||
      t === "CPU Caches:" || t.startsWith("Pipeline=") || t.startsWith("Font Cache")
    ) break;
    out.push(l);
  }
  return out;
}

const NO_PERCENTILES: FramePercentiles = { p50_ms: null, p90_ms: null, p95_ms: null, p99_ms: null };

/** Reads the frame statistics of exactly `pkg`'s main process from a `dumpsys gfxinfo` text. */
export function parseGfxinfo(text: string, pkg: string): GfxinfoReading {
  const lines = text.split(/\r?\n/);
  const sections: { pid: number; name: string; start: number }[] = [];
  for (let i = 0; i < lines.length && sections.length < MAX_GFX_SECTIONS; i++) {
    const m = HEADER.exec(lines[i]);
    if (m) sections.push({ pid: Number(m[1]), name: m[2], start: i + 1 });
  }
  const k = sections.findIndex((s) => s.name === pkg);
  if (k < 0) return { found: false, processes: sections.map((s) => s.name) };
  const { pid, start } = sections[k];
  const end = k + 1 < sections.length ? sections[k + 1].start - 1 : lines.length;
  const block = processBlock(lines.slice(start, end));
  const total = count(block, "Total frames rendered");
  const janky = ratio(block, "Janky frames");
  if (total === null || janky === null) return { found: true, pid, stats: null };
  const legacy = ratio(block, "Janky frames (legacy)");
  const since = /^Stats since: (\d+)ns/m.exec(block.map((l) => l.trim()).join("\n"));
  const gpu = percentiles(block, true);
  const hasGpu = Object.values(gpu).some((v) => v !== null);
  return {
    found: true,
    pid,
    stats: {
      pid,
      stats_since_ns: since ? Number(since[1]) : null,
      total_frames: total,
      janky_frames: janky[0],
      janky_percent: janky[1],
      janky_legacy_frames: legacy ? legacy[0] : null,
      janky_legacy_percent: legacy ? legacy[1] : null,
      percentiles: total > 0 ? percentiles(block, false) : NO_PERCENTILES,
      gpu_percentiles: hasGpu && total > 0 ? gpu : null,
      missed_vsync: count(block, "Number Missed Vsync"),
      high_input_latency: count(block, "Number High input latency"),
      slow_ui_thread: count(block, "Number Slow UI thread"),
      slow_bitmap_uploads: count(block, "Number Slow bitmap uploads"),
      slow_draw_commands: count(block, "Number Slow issue draw commands"),
      frame_deadline_missed: count(block, "Number Frame deadline missed"),
    },
  };
}

/** One line an agent reads: frames, jank and the percentiles, or why there are none. */
export function renderFrameStats(pkg: string, s: FrameStats): string {
  const p = s.percentiles;
  const pct = [
    p.p50_ms !== null ? `p50 ${p.p50_ms} ms` : null,
    p.p90_ms !== null ? `p90 ${p.p90_ms} ms` : null,
    p.p95_ms !== null ? `p95 ${p.p95_ms} ms` : null,
    p.p99_ms !== null ? `p99 ${p.p99_ms} ms` : null,
  ].filter((x) => x !== null).join(", ");
  const causes = [
    s.slow_ui_thread !== null ? `slow UI thread ${s.slow_ui_thread}` : null,
    s.slow_bitmap_uploads !== null ? `slow bitmap uploads ${s.slow_bitmap_uploads}` : null,
    s.slow_draw_commands !== null ? `slow draw commands ${s.slow_draw_commands}` : null,
    s.missed_vsync !== null ? `missed vsync ${s.missed_vsync}` : null,
  ].filter((x) => x !== null).join(", ");
  return [
    `${pkg} (pid ${s.pid}): ${s.total_frames} frames, ${s.janky_frames} janky (${s.janky_percent}%)` +
    (s.janky_legacy_percent !== null ? `, ${s.janky_legacy_percent}% over 16 ms (legacy)` : ""),
    ...(pct ? [`Frame time: ${pct}`] : []),
    ...(causes ? [`Causes: ${causes}`] : []),
  ].join("\n");
}
