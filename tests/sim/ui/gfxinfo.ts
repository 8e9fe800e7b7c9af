/**
 * The sample app's frames as HWUI's JankTracker keeps them, and `dumpsys gfxinfo <package>
 * [reset]` as a device prints them: the layout of the real captures in
 * tests/fixtures/corpus/dumpsys/ for the device's Android version (Marshmallow: no 50th
 * percentile nor histogram; Nougat to 9: with them; 10 and 11: frame deadline and GPU
 * percentiles; 12 and later: the legacy janky count beside the deadline one). Every action that
 * changes the screen renders frames; `reset` prints, then zeroes the counters, as HWUI does.
 */

/** HWUI's frame-time buckets: 5–32 ms by 1, 34–48 by 2, 53–133 by 4, 150–4950 by 50. */
export const BUCKETS_MS: readonly number[] = (() => {
  const out: number[] = [];
  for (let v = 5; v <= 32; v++) out.push(v);
  for (let v = 34; v <= 48; v += 2) out.push(v);
  for (let v = 53; v <= 133; v += 4) out.push(v);
  for (let v = 150; v <= 4950; v += 50) out.push(v);
  return out;
})();
const GPU_BUCKETS_MS: readonly number[] = [...Array.from({ length: 25 }, (_, i) => i + 1), 4950];
/** A frame over this misses a 60 Hz deadline. */
const DEADLINE_MS = 16.67;

function bucketOf(buckets: readonly number[], ms: number): number {
  const i = buckets.findIndex((b) => ms <= b);
  return i < 0 ? buckets.length - 1 : i;
}

function percentile(hist: readonly number[], buckets: readonly number[], p: number): number {
  const total = hist.reduce((a, b) => a + b, 0);
  if (total === 0) return buckets[buckets.length - 1];
  const want = Math.ceil((total * p) / 100);
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i];
    if (seen >= want) return buckets[i];
  }
  return buckets[buckets.length - 1];
}

export interface FrameCounters {
  sinceNs: number;
  total: number;
  janky: number;
  slowUi: number;
  slowDraw: number;
  missedVsync: number;
  hist: number[];
  gpuHist: number[];
}

function fresh(sinceNs: number): FrameCounters {
  return {
    sinceNs,
    total: 0,
    janky: 0,
    slowUi: 0,
    slowDraw: 0,
    missedVsync: 0,
    hist: BUCKETS_MS.map(() => 0),
    gpuHist: GPU_BUCKETS_MS.map(() => 0),
  };
}

/** The frames one process has rendered since it started or since the last reset. */
export class FrameLog {
  private c: FrameCounters;
  private n = 0;

  constructor(private readonly uptimeNs: () => number) {
    this.c = fresh(uptimeNs());
  }

  /**
   * An action renders `frames` frames; the first lays the screen out and costs more. `costMs` is
   * the app's usual frame time (a slower build renders slower).
   */
  render(frames: number, costMs: number) {
    for (let i = 0; i < frames; i++) {
      this.n++;
      const jitter = (this.n * 7919) % 5;
      const ms = (i === 0 ? costMs * 2.5 : costMs) + jitter;
      const gpu = Math.max(1, Math.round(ms / 3));
      this.c.total++;
      this.c.hist[bucketOf(BUCKETS_MS, ms)]++;
      this.c.gpuHist[bucketOf(GPU_BUCKETS_MS, gpu)]++;
      if (ms > DEADLINE_MS) {
        this.c.janky++;
        this.c.slowUi++;
        if (i === 0) this.c.missedVsync++;
      }
      if (gpu > 8) this.c.slowDraw++;
    }
  }

  /** A new process: counters start again. */
  restart() {
    this.c = fresh(this.uptimeNs());
  }

  /** `dumpsys gfxinfo` prints the counters, then `reset` zeroes them. */
  reset() {
    this.c = fresh(this.uptimeNs());
  }

  get counters(): Readonly<FrameCounters> {
    return this.c;
  }
}

const pct = (n: number, total: number) => (total === 0 ? 0 : (n * 100) / total).toFixed(2);

/** The process section of a `dumpsys gfxinfo` text for `api`, from the counters. */
export function gfxinfoSection(
  c: Readonly<FrameCounters>,
  api: number,
  pid: number,
  pkg: string,
  component: string,
): string {
  const p = (x: number) => `${percentile(c.hist, BUCKETS_MS, x)}ms`;
  const g = (x: number) => `${percentile(c.gpuHist, GPU_BUCKETS_MS, x)}ms`;
  const lines = [
    `** Graphics info for pid ${pid} [${pkg}] **`,
    "",
    `Stats since: ${c.sinceNs}ns`,
    `Total frames rendered: ${c.total}`,
    `Janky frames: ${c.janky} (${pct(c.janky, c.total)}%)`,
  ];
  if (api >= 31) lines.push(`Janky frames (legacy): ${c.janky} (${pct(c.janky, c.total)}%)`);
  if (api >= 24) lines.push(`50th percentile: ${p(50)}`);
  lines.push(
    `90th percentile: ${p(90)}`,
    `95th percentile: ${p(95)}`,
    `99th percentile: ${p(99)}`,
    `Number Missed Vsync: ${c.missedVsync}`,
    `Number High input latency: 0`,
    `Number Slow UI thread: ${c.slowUi}`,
    `Number Slow bitmap uploads: 0`,
    `Number Slow issue draw commands: ${c.slowDraw}`,
  );
  if (api >= 29) lines.push(`Number Frame deadline missed: ${c.janky}`);
  if (api >= 31) lines.push(`Number Frame deadline missed (legacy): ${c.janky}`);
  if (api >= 24) {
    lines.push("HISTOGRAM: " + BUCKETS_MS.map((b, i) => `${b}ms=${c.hist[i]}`).join(" "));
  }
  if (api >= 29) {
    lines.push(
      `50th gpu percentile: ${g(50)}`,
      `90th gpu percentile: ${g(90)}`,
      `95th gpu percentile: ${g(95)}`,
      `99th gpu percentile: ${g(99)}`,
      "GPU HISTOGRAM: " + GPU_BUCKETS_MS.map((b, i) => `${b}ms=${c.gpuHist[i]}`).join(" "),
    );
  }
  lines.push(
    "",
    api >= 29 ? "Pipeline=Skia (OpenGL)" : "Caches:",
    "",
    "Profile data in ms:",
    "",
    `\t${component}/android.view.ViewRootImpl@e336ea3 (visibility=0)`,
    "View hierarchy:",
    "",
    `  ${component}/android.view.ViewRootImpl@e336ea3`,
    "  72 views, 156.13 kB of render nodes",
    "",
    "",
    "Total ViewRootImpl   : 1",
    "Total attached Views : 72",
    "Total RenderNode     : 156.13 kB (used) / 502.86 kB (capacity)",
    "",
  );
  return lines.join("\n") + "\n";
}

/** The header every `dumpsys gfxinfo` prints, matching process or not. */
export function gfxinfoHeader(uptimeMs: number): string {
  return `Applications Graphics Acceleration Info:\nUptime: ${uptimeMs} Realtime: ${uptimeMs}\n\n`;
}
