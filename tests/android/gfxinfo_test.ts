/**
 * Frame health from `dumpsys gfxinfo`: invariants over every real capture in
 * tests/fixtures/corpus/dumpsys/ (each process section read against an independent line count),
 * the figures of each capture as written in it, and the simulator's text read back.
 */
import { assert, assertEquals } from "../assert.ts";
import { parseGfxinfo } from "../../lib/android/gfxinfo.ts";
import { FrameLog, gfxinfoHeader, gfxinfoSection } from "../sim/ui/gfxinfo.ts";

const DIR = new URL("../fixtures/corpus/dumpsys/", import.meta.url);

async function captures(): Promise<{ name: string; text: string }[]> {
  const out = [];
  for await (const e of Deno.readDir(DIR)) {
    if (e.isFile && e.name.startsWith("gfxinfo_")) {
      out.push({ name: e.name, text: await Deno.readTextFile(new URL(e.name, DIR)) });
    }
  }
  return out.sort((a, b) => a.name < b.name ? -1 : 1);
}

/** An independent reading: each section's first "Total frames rendered" and "Janky frames". */
function sections(text: string) {
  const out: { name: string; total: number | null; janky: number | null }[] = [];
  for (const chunk of text.split("** Graphics info for pid ").slice(1)) {
    const name = chunk.slice(chunk.indexOf("[") + 1, chunk.indexOf("]"));
    const head = chunk.split(/Profile data in ms:|\nWindow: /)[0];
    const t = head.match(/Total frames rendered: (\d+)/);
    const j = head.match(/Janky frames: (\d+) \(/);
    out.push({ name, total: t ? Number(t[1]) : null, janky: j ? Number(j[1]) : null });
  }
  return out;
}

Deno.test("gfxinfo corpus: every process section is read exactly as its own lines say", async () => {
  const files = await captures();
  assert(files.length >= 4, `captures: ${files.map((f) => f.name)}`);
  let checked = 0;
  for (const { name, text } of files) {
    for (const sec of sections(text)) {
      const r = parseGfxinfo(text, sec.name);
      assert(r.found, `${name}: ${sec.name} found`);
      if (sec.total === null) {
        assertEquals(r.stats, null, `${name}: ${sec.name} has no statistics`);
        continue;
      }
      const s = r.stats!;
      assertEquals([s.total_frames, s.janky_frames], [sec.total, sec.janky], `${name} ${sec.name}`);
      assert(s.janky_frames <= s.total_frames);
      if (s.total_frames > 0) {
        assert(Math.abs(s.janky_percent - (100 * s.janky_frames) / s.total_frames) < 0.01);
        const p = s.percentiles;
        const seq = [p.p50_ms, p.p90_ms, p.p95_ms, p.p99_ms].filter((v) => v !== null);
        for (let i = 1; i < seq.length; i++) assert(seq[i - 1]! <= seq[i]!, `${name}: monotonic`);
      }
      checked++;
    }
    // A package no section names is not found, even when a section's name starts with it.
    assertEquals(parseGfxinfo(text, "com.nothing.here").found, false);
  }
  assert(checked >= 6, `sections with statistics: ${checked}`);
});

Deno.test("gfxinfo corpus: the figures of each Android version's layout", async () => {
  const byName = new Map((await captures()).map((c) => [c.name, c.text]));
  const ig = parseGfxinfo(
    byName.get("gfxinfo_android12_instagram_toster.txt")!,
    "com.instagram.android",
  );
  assert(ig.found && ig.stats);
  assertEquals(ig.stats.percentiles, { p50_ms: 7, p90_ms: 48, p95_ms: 109, p99_ms: 300 });
  assertEquals([ig.stats.janky_legacy_frames, ig.stats.janky_legacy_percent], [13, 25.49]);
  assertEquals([ig.stats.slow_ui_thread, ig.stats.slow_draw_commands], [9, 2]);
  assertEquals(ig.stats.gpu_percentiles, { p50_ms: 5, p90_ms: 7, p95_ms: 8, p99_ms: 8 });

  const tv = parseGfxinfo(byName.get("gfxinfo_android11_tv_nuvio.txt")!, "com.nuvio.tv");
  assert(tv.found && tv.stats);
  assertEquals([tv.stats.total_frames, tv.stats.janky_percent], [2903, 26.59]);
  assertEquals(tv.stats.janky_legacy_frames, null);
  assertEquals(tv.stats.frame_deadline_missed, 422);

  // A dump of every process: the app's main process only, never a process whose name merely
  // starts with it; a process that drew nothing has no statistics.
  const all = byName.get("gfxinfo_android13_all_processes_framestats_anavmode.txt")!;
  const nav = parseGfxinfo(all, "de.codevoid.aNavMode");
  assertEquals(nav, { found: true, pid: 28907, stats: null });
  const bar = parseGfxinfo(all, "de.codevoid.andronavibar");
  assert(bar.found && bar.stats);
  assertEquals([bar.stats.pid, bar.stats.total_frames, bar.stats.janky_frames], [17477, 3370, 363]);
  assertEquals(bar.stats.stats_since_ns, 15947409802641);

  const emu = parseGfxinfo(
    byName.get("gfxinfo_android14_emulator_frontend.txt")!,
    "com.tungdzai123.Frontend",
  );
  assert(emu.found && emu.stats);
  assertEquals(emu.stats.percentiles.p99_ms, 65);
  assertEquals(emu.stats.gpu_percentiles?.p99_ms, 4950);
});

Deno.test("gfxinfo: Marshmallow's layout (no 50th percentile) and no frames at all", () => {
  // Written here after the layout AOSP's HWUI printed in Android 6 (JankTracker::dumpData).
  const m = "Applications Graphics Acceleration Info:\nUptime: 6127679 Realtime: 6127679\n\n" +
    "** Graphics info for pid 844 [com.example.tv] **\n\nStats since: 12167093145ns\n" +
    "Total frames rendered: 1690\nJanky frames: 125 (7.40%)\n90th percentile: 13ms\n" +
    "95th percentile: 19ms\n99th percentile: 48ms\nNumber Missed Vsync: 17\n" +
    "Number High input latency: 0\nNumber Slow UI thread: 32\nNumber Slow bitmap uploads: 20\n" +
    "Number Slow issue draw commands: 67\n\nCaches:\n";
  const r = parseGfxinfo(m, "com.example.tv");
  assert(r.found && r.stats);
  assertEquals(r.stats.percentiles, { p50_ms: null, p90_ms: 13, p95_ms: 19, p99_ms: 48 });
  assertEquals([r.stats.frame_deadline_missed, r.stats.gpu_percentiles], [null, null]);
  // HWUI prints its last bucket for every percentile of an empty histogram: no percentile then.
  const empty = m.replace("Total frames rendered: 1690", "Total frames rendered: 0")
    .replace("125 (7.40%)", "0 (0.00%)");
  const e = parseGfxinfo(empty, "com.example.tv");
  assert(e.found && e.stats);
  assertEquals(e.stats.percentiles.p90_ms, null);
});

Deno.test("gfxinfo: the simulator's text for each Android version reads back as it counted", () => {
  let now = 5_000_000_000;
  const log = new FrameLog(() => now);
  log.render(12, 6);
  log.render(12, 30);
  for (const api of [23, 28, 30, 35]) {
    const text = gfxinfoHeader(1000) +
      gfxinfoSection(log.counters, api, 4242, "com.example.app", "com.example.app/.Main");
    const r = parseGfxinfo(text, "com.example.app");
    assert(r.found && r.stats, `api ${api}`);
    assertEquals([r.stats.total_frames, r.stats.janky_frames], [24, log.counters.janky]);
    assertEquals(r.stats.percentiles.p50_ms === null, api < 24, `api ${api}`);
    assertEquals(r.stats.janky_legacy_frames === null, api < 31, `api ${api}`);
  }
  now = 9_000_000_000;
  log.reset();
  assertEquals([log.counters.total, log.counters.sinceNs], [0, 9_000_000_000]);
});
