/**
 * The page stays bounded under load, in headless Chromium: 10,000 activity entries and a build
 * printing 5,000 lines a second. The build is one a standalone server would run (its record and
 * log in the data directory, written by this process), which the dashboard reads like any other.
 * What is asserted is the page's own bounds (entries held, rows in the document, lines held) and
 * that older lines come back on scroll; the frame lateness measured in the page is printed, not
 * asserted (timing belongs to the bench).
 */
import { assert, assertEquals } from "../assert.ts";
import { startApp, startWorld } from "../e2e/harness.ts";
import { findChromium, launchChromium } from "./_chromium.ts";
import { dashboardUrl } from "./_app.ts";
import { finishBuildRecord, startBuildRecord } from "../../lib/build/shared/build_history.ts";
import { buildLogPath } from "../../lib/build/shared/build_log.ts";
import { PAGE_MAX_ACTIVITY, PAGE_MAX_LINES } from "../../lib/dashboard/page/page_script.ts";
import { MAX_LINES_PER_EVENT } from "../../lib/dashboard/live.ts";

const chromium = await findChromium();
if (chromium === null) {
  console.log("note: tests/dashboard/bounded_page_test.ts skipped: no chromium on PATH");
}

const ENTRIES = 10_000;
const LINES_PER_SECOND = 5_000;
const FLOOD_SECONDS = 3;

Deno.test({
  name: "dashboard in Chromium: 10,000 activity entries and 5,000 build lines/s stay bounded; " +
    "older lines are fetched on scroll",
  ignore: chromium === null,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  await using browser = await launchChromium(chromium!);
  const page = await browser.open(url.href, { width: 1440, height: 1400 });
  await page.waitFor("window.keynobiDashboard && keynobiDashboard().connected", "the live feed");
  // Frame lateness in the page while it takes the load (reported, not asserted).
  await page.eval(`(() => {
    window.__late = 0; let last = performance.now();
    setInterval(() => { const now = performance.now();
      window.__late = Math.max(window.__late, now - last - 50); last = now; }, 50);
  })()`);

  // 10,000 entries, appended as other keynobi processes append them: whole lines, in batches.
  const activity = `${world.dataDir}/mcp-activity.jsonl`;
  for (let batch = 0; batch < 10; batch++) {
    const lines: string[] = [];
    for (let i = batch * 1000; i < (batch + 1) * 1000; i++) {
      lines.push(JSON.stringify({
        at: new Date().toISOString(),
        kind: "tool",
        name: `tool_${i % 25}`,
        duration_ms: i % 97,
        status: i % 50 === 0 ? "error" : "ok",
        summary: `entry ${i}`,
        pid: 4242,
        session: `session-${i % 3}`,
      }));
    }
    await Deno.writeTextFile(activity, lines.join("\n") + "\n", { append: true });
    await new Promise((r) => setTimeout(r, 50));
  }

  // A build printing 5,000 lines a second for a few seconds.
  const project = world.sim.projects["sample-kts"];
  const record = await startBuildRecord(world.dataDir, {
    project,
    task: "assembleDemoDebug",
    origin: { kind: "agent", session_id: "s1", client_name: "flooder", standalone: true },
  });
  const logPath = buildLogPath(world.dataDir, record.id);
  await Deno.mkdir(`${world.dataDir}/build-logs`, { recursive: true });
  let written = 0;
  const perTick = LINES_PER_SECOND / 10;
  for (let tick = 0; tick < FLOOD_SECONDS * 10; tick++) {
    const lines: string[] = [];
    for (let i = 0; i < perTick; i++) lines.push(`line ${written++} of the flood`);
    await Deno.writeTextFile(logPath, lines.join("\n") + "\n", { append: true });
    await new Promise((r) => setTimeout(r, 100));
  }
  const lastLine = `line ${written - 1} of the flood`;
  await page.waitFor(
    `document.getElementById('build-log').textContent.includes(${JSON.stringify(lastLine)})`,
    "the newest build line",
  );
  await page.waitFor(
    `keynobiDashboard().activity_held >= ${Math.min(ENTRIES, PAGE_MAX_ACTIVITY)}`,
    "every activity entry",
  );
  const held = await page.eval<{
    activity_held: number;
    activity_rows: number;
    log_lines_held: number;
    log_build: number;
  }>("keynobiDashboard()");
  console.log(
    `page after the load: ${JSON.stringify(held)}; worst frame lateness ${
      Math.round(await page.eval<number>("window.__late"))
    } ms`,
  );
  assert(held.activity_held <= PAGE_MAX_ACTIVITY, `held ${held.activity_held}`);
  assert(held.activity_rows > 0 && held.activity_rows <= 60, `rows ${held.activity_rows}`);
  assertEquals(held.log_build, record.id);
  assert(held.log_lines_held <= PAGE_MAX_LINES + MAX_LINES_PER_EVENT, `${held.log_lines_held}`);
  const domLines = await page.eval<number>(
    "document.getElementById('build-log').textContent.split('\\n').length",
  );
  assert(domLines < written, `the page holds ${domLines} of ${written} lines`);
  const newestRow = await page.eval<string>(
    "document.querySelector('#activity .vrow .s').textContent",
  );
  assertEquals(newestRow, `entry ${ENTRIES - 1}`, "newest first");

  // Filter by tool, then by session: the count follows, rows stay bounded.
  await page.eval(
    "(() => { const s = document.getElementById('filter-tool'); s.value = 'tool_3'; " +
      "s.dispatchEvent(new Event('change')); })()",
  );
  await page.waitFor(
    "document.getElementById('activity-count').textContent.startsWith('400 of')",
    "the tool filter",
  );

  // Scrolling the log to its top fetches older lines than the page held.
  const firstBefore = await page.eval<string>(
    "document.querySelector('#build-log pre').textContent.split('\\n')[0]",
  );
  await page.eval("document.getElementById('build-log').scrollTop = 0");
  await page.waitFor(
    `document.querySelector('#build-log pre').textContent.split('\\n')[0] !== ${
      JSON.stringify(firstBefore)
    }`,
    "older lines on scroll",
  );
  const firstAfter = await page.eval<string>(
    "document.querySelector('#build-log pre').textContent.split('\\n')[0]",
  );
  const n = (s: string) => Number(/^line (\d+)/.exec(s)?.[1]);
  assert(n(firstAfter) < n(firstBefore), `${firstAfter} is older than ${firstBefore}`);
  assertEquals(page.errors, []);
  await finishBuildRecord(world.dataDir, record.id, { status: "success" });
});
