/**
 * The dashboard in a real browser: headless Chromium (Debian's `chromium`) drives the page of a
 * running `keynobi app` over the DevTools protocol, with the simulator behind the app. Skipped,
 * with a note, where Chromium is not installed (.ci/run installs it).
 *
 * The page screenshot is saved to $KEYNOBI_DASHBOARD_SCREENSHOT when set (the README's picture
 * is made that way), else into a temporary folder whose path the test prints.
 */
import { assert, assertEquals } from "../assert.ts";
import { runKeynobi, startApp, startWorld, type World } from "../e2e/harness.ts";
import { findChromium, launchChromium } from "./_chromium.ts";
import { agent, dashboardUrl } from "./_app.ts";

const PROJECT = "sample-kts";
const SERIAL = "emulator-5554";
const PKG = "com.example.keynobi.sample.demo.debug";
const APK = "app/build/outputs/apk/demo/debug/app-demo-debug.apk";
const chromium = await findChromium();
if (chromium === null) {
  console.log(
    "note: tests/dashboard/browser_test.ts skipped: no chromium on PATH (Debian: apt-get " +
      "install chromium; or set KEYNOBI_CHROMIUM)",
  );
}

async function trusted(world: World, name = PROJECT): Promise<string> {
  const project = world.sim.projects[name];
  const r = await runKeynobi(world, ["trust", project]);
  assertEquals(r.code, 0, r.stderr);
  return await Deno.realPath(project);
}

async function screenshotPath(name: string): Promise<string> {
  const explicit = Deno.env.get("KEYNOBI_DASHBOARD_SCREENSHOT");
  if (explicit) return explicit;
  const dir = await Deno.makeTempDir({ prefix: "keynobi-dashboard-shot-" });
  return `${dir}/${name}.png`;
}

Deno.test({
  name: "dashboard in Chromium: two agents attach, one builds, one taps; lines stream; " +
    "cancel from the page is recorded as cancelled_by app",
  ignore: chromium === null,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const gradle = world.sim.gradle(PROJECT);
  await gradle.setTaskDelay(0);
  await using app = await startApp(world, ["--project", project]);
  const url = await dashboardUrl(app);
  await using browser = await launchChromium(chromium!);
  const page = await browser.open(url.href);
  await page.waitFor("window.keynobiDashboard && keynobiDashboard().connected", "the live feed");

  await using builder = await agent(world, "agent-builder");
  await using tapper = await agent(world, "agent-tapper");
  const sessionNames = "[...document.querySelectorAll('#sessions-table tbody tr')]" +
    ".map((r) => r.cells[0].textContent).sort().join(',')";
  await page.waitFor(`${sessionNames} === 'agent-builder,agent-tapper'`, "both sessions");

  // A first build that succeeds (the history and its chart), then one that streams its lines
  // and waits in its last task until it is cancelled.
  const first = await builder.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    { timeout: 120_000 },
  ) as { isError?: boolean; content: { text?: string }[] };
  assert(!first.isError, first.content[0]?.text);
  await page.waitFor("document.querySelector('#chart-durations svg rect') !== null", "the chart");
  // The tapper installs and launches that build, and the app crashes once (debug session, crash
  // groups and their charts).
  const logcat = world.sim.device(SERIAL).service("logcat" as never) as unknown as {
    crash(pkg: string, kind: "java"): { pid: number };
    setRate(n: number): void;
  };
  logcat.setRate(0);
  for (
    const [name, args] of [
      ["start_logcat", { device_serial: SERIAL }],
      ["install_apk", { device_serial: SERIAL, apk_path: APK }],
      ["launch_app", { device_serial: SERIAL, package: PKG }],
    ] as const
  ) {
    const r = await tapper.client.callTool({ name, arguments: args }) as {
      isError?: boolean;
      content: { text?: string }[];
    };
    assert(!r.isError, `${name}: ${r.content[0]?.text}`);
  }
  logcat.crash(PKG, "java");
  await page.waitFor("document.querySelector('#chart-launch svg rect') !== null", "launch chart");
  await page.waitFor("document.querySelector('#chart-crashes svg rect') !== null", "crash chart");
  await page.waitFor(
    "document.querySelector('#crash-table tbody tr td')?.textContent === '1'",
    "the crash group with its count",
  );
  await gradle.setTaskDelay(120);
  await gradle.hangAt(":app:assembleDemoDebug");
  const building = builder.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    { timeout: 120_000 },
  );
  building.catch(() => {});
  const tap = await tapper.client.callTool({
    name: "ui_tap",
    arguments: { device_serial: SERIAL, x: 200, y: 300 },
  }) as { isError?: boolean; content: { text?: string }[] };
  assert(!tap.isError, tap.content[0]?.text);
  await tapper.client.callTool({ name: "screenshot", arguments: { device_serial: SERIAL } });

  // The build's lines arrive while it runs: a first task line, then later ones.
  const logText = "document.getElementById('build-log').textContent";
  await page.waitFor(`${logText}.includes('> Task :app:preBuild')`, "the first task line");
  await page.waitFor(`${logText}.includes('> Task :app:assembleDemoDebug')`, "later lines");
  const origin = await page.eval<string>("document.getElementById('build-origin').textContent");
  assertEquals(origin, "Started by an agent (agent-builder)");
  assertEquals(await page.eval("document.getElementById('cancel-build').hidden"), false);
  await page.waitFor(
    "[...document.querySelectorAll('#activity .vrow')].some((r) => " +
      "r.textContent.includes('ui_tap') && r.textContent.includes('agent-tapper'))",
    "the tap in the activity log, as the tapper's",
  );
  await page.waitFor("document.querySelector('#devices img') !== null", "the agent's screenshot");
  // Relative times advance on an open page though the section is not sent again.
  const shotAgo = "document.querySelector('#devices [data-at]').textContent";
  const before = await page.eval<string>(shotAgo);
  await page.waitFor(`${shotAgo} !== ${JSON.stringify(before)}`, "the screenshot's age to advance");
  // A PID stays on one line.
  assertEquals(
    await page.eval(
      "getComputedStyle(document.querySelector('#sessions-table td.num')).whiteSpace",
    ),
    "nowrap",
  );
  await page.waitFor(
    "document.getElementById('setup-commands').textContent.includes('claude mcp add')",
    "the setup commands",
  );
  await page.eval("document.querySelector('#debug-table tbody tr').click()");
  await page.waitFor(
    "[...document.querySelectorAll('#timeline-list li')].some((l) => l.textContent.includes('crash'))",
    "the debug session's timeline",
  );
  const shot = await screenshotPath("dashboard");
  await page.screenshot(shot);
  console.log(`dashboard screenshot: ${shot}`);
  assert((await Deno.stat(shot)).size > 10_000, "a real picture of the page");

  // Cancel from the page: confirmed in the page's dialog, then the build ends as cancelled.
  await page.eval("document.getElementById('cancel-build').click()");
  await page.waitFor("document.getElementById('confirm').open", "the confirmation");
  const title = await page.eval<string>("document.getElementById('confirm-title').textContent");
  assert(/^Cancel build #\d+\?$/.test(title), title);
  await page.eval("document.getElementById('confirm-yes').click()");
  const done = await building as { isError?: boolean; content: { text?: string }[] };
  assert(done.content[0]?.text?.includes("ancel"), JSON.stringify(done).slice(0, 500));
  const history = JSON.parse(await Deno.readTextFile(`${world.dataDir}/build-history.json`));
  const record = history.records.at(-1);
  assertEquals(record.status, "cancelled");
  assertEquals(record.cancelled_by, { kind: "app" });
  assertEquals(record.origin.client_name, "agent-builder");
  await page.waitFor(
    "document.querySelector('#history-table tbody tr td.status-cancelled') !== null",
    "the cancelled build in the history",
  );
  const log = (await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l));
  const mine = log.filter((e) => e.kind === "user");
  assertEquals(mine.length, 1, JSON.stringify(mine));
  assertEquals(mine[0].name, "cancel_build");
  assert(mine[0].summary.startsWith("From the dashboard: Cancelled build #"), mine[0].summary);

  // Untrust from the page asks first; keeping it as is changes nothing and logs nothing.
  await page.eval("document.querySelector('#trusted-table tbody button').click()");
  await page.waitFor("document.getElementById('confirm').open", "the untrust confirmation");
  assertEquals(
    await page.eval("document.getElementById('confirm-title').textContent"),
    `Untrust ${project}?`,
  );
  await page.eval("document.getElementById('confirm-no').click()");
  await page.waitFor(
    "document.getElementById('toast').textContent === 'Nothing changed.'",
    "the page saying nothing changed",
  );
  const listed = await runKeynobi(world, ["projects"]);
  assert(listed.stdout.includes(project), "still trusted");
  const after = (await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`)).trim()
    .split("\n").map((l) => JSON.parse(l)).filter((e) => e.kind === "user");
  assertEquals(after.length, 1, "a declined action is not recorded");
  assertEquals(await page.eval("document.getElementById('mismatch').hidden"), true);
  assertEquals(page.errors, []);
});
