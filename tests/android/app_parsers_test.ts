/**
 * The app parsers on the real captures in ../shared/fixtures/real/dumpsys/ (skipped with a note
 * when that folder is absent) and on strings written here for what must always run.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  amStartFailure,
  findDisplayed,
  formatLaunchTime,
  lastLogTime,
  launchTiming,
  parseAmStart,
  parseDisplayedLine,
  parseFormattedDuration,
} from "../../lib/android/am_start.ts";
import { isCrashOrAnr, parseExitInfo, renderExitLine } from "../../lib/android/exit_info.ts";
import { parseMeminfo, renderMeminfo } from "../../lib/android/meminfo.ts";
import {
  findLauncherActivity,
  parseDumpsysPackage,
  renderPackageInfo,
} from "../../lib/android/dumpsys_package.ts";
import {
  parseCurrentFocus,
  parsePidof,
  parsePsForPackage,
  parseResumedActivity,
} from "../../lib/android/runtime_state.ts";
import {
  checkNetworkRequest,
  isWirelessSerial,
  outputShowsFailure,
  parseSettingBool,
} from "../../lib/android/network.ts";
import { orientationCommands, orientationFromSettings } from "../../lib/android/orientation.ts";
import { activityComponent } from "../../lib/android/launch.ts";
import { ToolError } from "../../lib/core/errors.ts";

const REAL = new URL("../../../shared/fixtures/real/dumpsys/", import.meta.url);
const realPresent = (() => {
  try {
    return Deno.statSync(REAL).isDirectory;
  } catch {
    return false;
  }
})();
if (!realPresent) {
  console.error("note: ../shared/fixtures/real/dumpsys is absent; real-capture tests are skipped");
}
const real = (name: string) => Deno.readTextFileSync(new URL(name, REAL));

function refusal(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (e) {
    assert(e instanceof ToolError, String(e));
    assertEquals(e.code, "invalid_params");
    return e;
  }
  throw new Error("expected a refusal");
}

// ── am start ─────────────────────────────────────────────────────────────────────────────────

Deno.test({
  name: "parseAmStart() reads the real cold-launch capture",
  ignore: !realPresent,
  fn() {
    const r = parseAmStart(real("am_start_W_cold_launch.txt"));
    assertEquals(r.status, "ok");
    assertEquals(r.launch_state, "COLD");
    assertEquals(r.total_ms, 1479);
    assertEquals(r.wait_ms, 1482);
    assertEquals(
      r.activity,
      "com.facebook.alohaapps.launcher/com.facebook.aloha.app.home.touch.HomeActivity",
    );
    assertEquals(r.complete, true);
    assertEquals(r.error, null);
    assertEquals(
      formatLaunchTime(launchTiming(r)),
      "Launch time: 1479 ms (cold), wait 1482 ms",
    );
  },
});

Deno.test("parseAmStart() reads the pre-10 layout and warnings", () => {
  const r = parseAmStart(
    "Starting: Intent { cmp=com.ex/.Main }\nWarning: Activity not started, its current task " +
      "has been brought to the front\nStatus: ok\nActivity: com.ex/.Main\nThisTime: 300\n" +
      "TotalTime: 812\nWaitTime: 815\nComplete\n",
  );
  assertEquals([r.total_ms, r.wait_ms, r.this_ms, r.launch_state], [812, 815, 300, null]);
  assertEquals(r.warnings.length, 1);
  assertEquals(r.error, null);
  assertEquals(formatLaunchTime(launchTiming(r)), "Launch time: 812 ms, wait 815 ms");
});

Deno.test("formatLaunchTime() says why there is no time when the app was already in front", () => {
  const r = parseAmStart(
    "Starting: Intent { cmp=com.ex/.Main }\nWarning: Activity not started, intent has been " +
      "delivered to currently running top-most instance.\nStatus: ok\nLaunchState: UNKNOWN (0)\n" +
      "Activity: com.ex/.Main\nWaitTime: 3\nComplete\n",
  );
  const line = formatLaunchTime(launchTiming(r), r.warnings)!;
  assert(!line.includes("unknown (unknown"), line);
  assertEquals(
    line,
    "Launch time: none — the app was already in front: the intent went to its running activity, " +
      "wait 3 ms",
  );
  // No reason given and no time at all: null (callers say "not reported").
  assertEquals(
    formatLaunchTime({ total_ms: null, wait_ms: null, launch_state: "UNKNOWN (0)" }),
    null,
  );
});

Deno.test("amStartFailure() finds errors printed with exit code 0", () => {
  const unresolved = "Starting: Intent { act=android.intent.action.VIEW dat=myapp://x/... " +
    "flg=0x10000000 }\nError: Activity not started, unable to resolve Intent { " +
    "act=android.intent.action.VIEW dat=myapp://x/... flg=0x10000000 }\n";
  assert(amStartFailure(unresolved, 0)!.startsWith("Error: Activity not started, unable"));
  const missing = "Starting: Intent { cmp=com.ex/.Nope }\nError type 3\nError: Activity " +
    "class {com.ex/com.ex.Nope} does not exist.\n";
  assertEquals(
    amStartFailure(missing, 1),
    "Error: Activity class {com.ex/com.ex.Nope} does not exist.",
  );
  assertEquals(
    amStartFailure("java.lang.SecurityException: Permission Denial: starting Intent\n", 0),
    "java.lang.SecurityException: Permission Denial: starting Intent",
  );
  assertEquals(amStartFailure("Starting: Intent { }\nStatus: ok\nComplete\n", 0), null);
  assertEquals(amStartFailure("Starting: Intent { }\nsomething odd\n", 255), "something odd");
});

Deno.test("parseFormattedDuration() reads TimeUtils.formatDuration text", () => {
  assertEquals(parseFormattedDuration("+850ms"), 850);
  assertEquals(parseFormattedDuration("+1s234ms"), 1234);
  assertEquals(parseFormattedDuration("+1m2s3ms"), 62_003);
  assertEquals(parseFormattedDuration("+2s"), 2000);
  assertEquals(parseFormattedDuration("0"), 0);
  assertEquals(parseFormattedDuration("+"), null);
  assertEquals(parseFormattedDuration("12"), null);
});

Deno.test("parseDisplayedLine() reads all three wordings and findDisplayed() matches exactly", () => {
  const new15 = "01-02 03:04:05.678  1500  1540 I ActivityTaskManager: Displayed " +
    "com.example/.MainActivity for user 0: +1s234ms";
  assertEquals(parseDisplayedLine(new15), {
    kind: "displayed",
    component: "com.example/.MainActivity",
    package: "com.example",
    displayed_ms: 1234,
    time: "01-02 03:04:05.678",
  });
  const atm = "I/ActivityTaskManager(  500): Displayed com.example/.Main: +812ms";
  assertEquals(parseDisplayedLine(atm)?.displayed_ms, 812);
  const old = "05-06 07:08:09.000   600   620 I ActivityManager: Displayed com.ex/.Main: " +
    "+1s5ms (total +2s3ms)";
  assertEquals(parseDisplayedLine(old)?.displayed_ms, 1005);
  assertEquals(parseDisplayedLine("I ActivityTaskManager: START u0 {cmp=com.ex/.Main}"), null);
  const log = [
    "01-02 03:04:05.000  1500  1540 I ActivityTaskManager: Displayed com.example.debug/.M " +
    "for user 0: +100ms",
    "01-02 03:04:06.000  1500  1540 I ActivityTaskManager: Displayed com.example/.M for " +
    "user 0: +700ms",
    "01-02 03:04:07.000  1500  1540 I ActivityTaskManager: Displayed com.examplex/.M for " +
    "user 0: +900ms",
  ].join("\n");
  assertEquals(findDisplayed(log, "com.example")?.displayed_ms, 700);
  assertEquals(findDisplayed(log, "com.example.debug")?.displayed_ms, 100);
  assertEquals(findDisplayed(log, "com.other"), null);
  assertEquals(lastLogTime(log), "01-02 03:04:07.000");
  assertEquals(lastLogTime("--------- beginning of main\n"), null);
});

Deno.test("parseDisplayedLine() reads Fully drawn lines; findDisplayed() keeps the kinds apart", () => {
  const full = "01-02 03:04:08.000  1500  1540 I ActivityTaskManager: Fully drawn " +
    "com.example/.MainActivity: +1s222ms";
  assertEquals(parseDisplayedLine(full), {
    kind: "fully_drawn",
    component: "com.example/.MainActivity",
    package: "com.example",
    displayed_ms: 1222,
    time: "01-02 03:04:08.000",
  });
  const oldFull = "I/ActivityManager(  600): Fully drawn com.ex/.Main: +2s (total +2s500ms)";
  assertEquals(parseDisplayedLine(oldFull)?.displayed_ms, 2000);
  const log = [
    "01-02 03:04:06.000  1500  1540 I ActivityTaskManager: Displayed com.example/.M for " +
    "user 0: +700ms",
    full,
  ].join("\n");
  assertEquals(findDisplayed(log, "com.example")?.displayed_ms, 700);
  assertEquals(findDisplayed(log, "com.example", "fully_drawn")?.displayed_ms, 1222);
  assertEquals(findDisplayed(log, "com.other", "fully_drawn"), null);
});

Deno.test("activityComponent() accepts class forms of the package and refuses others", () => {
  assertEquals(activityComponent("com.ex", ".Main"), "com.ex/.Main");
  assertEquals(activityComponent("com.ex", "com.ex.ui.Main"), "com.ex/com.ex.ui.Main");
  assertEquals(activityComponent("com.ex", "com.ex/.Main$Inner"), "com.ex/.Main$Inner");
  for (const bad of ["com.other/.Main", ".Main; reboot", "$(id)", "a b", "", "../x", ".Main\n"]) {
    refusal(() => activityComponent("com.ex", bad));
  }
});

// ── exit-info ────────────────────────────────────────────────────────────────────────────────

Deno.test({
  name: "parseExitInfo() reads the real crash-loop capture (with its BOM)",
  ignore: !realPresent,
  fn() {
    const text = real("dumpsys_activity_exit-info_app_crash_loop.txt");
    assert(text.charCodeAt(0) === 0xfeff, "the capture starts with a BOM");
    const { records, truncated } = parseExitInfo(text);
    assertEquals(records.length, 7);
    assertEquals(truncated, false);
    const first = records[0];
    assertEquals(first.package, "com.citylord.game.pro");
    assertEquals(first.uid, 10223);
    assertEquals(first.timestamp, "2026-03-14 05:32:41.125");
    assertEquals(first.pid, 31904);
    assertEquals(first.reason_code, 4);
    assertEquals(first.reason, "APP CRASH(EXCEPTION)");
    assertEquals(first.subreason, "UNKNOWN");
    assertEquals(first.importance, 300);
    assertEquals(first.description, "crash");
    assertEquals(first.state, "empty");
    assertEquals(first.trace, null);
    assert(isCrashOrAnr(first));
    const webview = records[1];
    assertEquals(webview.reason, "EXIT_SELF");
    assertEquals(webview.subreason_code, 17);
    assertEquals(webview.subreason, "ISOLATED NOT NEEDED");
    assertEquals(webview.real_uid, 99024);
    assertEquals(webview.defining_uid, 10167);
    assert(webview.process!.startsWith("com.google.android.webview:sandboxed_process0:"));
    assertEquals(records[6].rss, "251MB");
    assertEquals(records[5].reason, "OTHER KILLS BY SYSTEM");
    for (let i = 1; i < records.length; i++) {
      assert(records[i - 1].timestamp! >= records[i].timestamp!, "newest first");
    }
    const line = renderExitLine(records[6]);
    assert(line.includes("APP CRASH(EXCEPTION)") && line.includes("rss 251MB"), line);
  },
});

Deno.test("parseExitInfo() reads the Android 11 one-field-per-line layout", () => {
  const text = [
    "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)",
    "Last Timestamp of Persistence Into Persistent Storage: 2021-01-01 10:00:00.000",
    "  package: com.ex.app",
    "    Historical Process Exit for uid=10100",
    "        ApplicationExitInfo #0:",
    "          timestamp=2021-01-01 10:05:00.000",
    "          pid=4242",
    "          realUid=10100",
    "          packageUid=10100",
    "          definingUid=10100",
    "          user=0",
    "          process=com.ex.app",
    "          reason=6 (ANR)",
    "          status=0",
    "          importance=100",
    "          pss=120MB",
    "          rss=200MB",
    "          description=user request after error: Input dispatching timed out state=x",
    "          state=empty",
    "          trace=/data/anr/anr_1",
    "        ApplicationExitInfo #1:",
    "          timestamp=2021-01-01 09:00:00.000",
    "          pid=4000",
    "          process=com.ex.app",
    "          reason=2 (SIGNALED)",
    "          status=9",
    "",
  ].join("\r\n");
  const { records } = parseExitInfo(text);
  assertEquals(records.length, 2);
  assertEquals(records[0].reason, "ANR");
  assertEquals(records[0].subreason, null);
  assertEquals(
    records[0].description,
    "user request after error: Input dispatching timed out state=x",
  );
  assertEquals(records[0].state, "empty");
  assertEquals(records[0].trace, "/data/anr/anr_1");
  assert(isCrashOrAnr(records[0]));
  assertEquals(records[1].status, 9);
  assert(renderExitLine(records[1]).includes("signal 9"));
  assert(!isCrashOrAnr(records[1]));
});

Deno.test("parseExitInfo() sorts several packages newest first and tolerates empty input", () => {
  const rec = (ts: string, pid: number, reason: string) => [
    "        ApplicationExitInfo #0:",
    `          timestamp=${ts} pid=${pid} realUid=1 packageUid=1 definingUid=1 user=0`,
    `          process=p reason=${reason} subreason=0 (UNKNOWN) status=0`,
    "          importance=400 pss=0.00 rss=0.00 description=null state=empty trace=null",
  ];
  const text = [
    "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)",
    "  package: a.b",
    "    Historical Process Exit for uid=1",
    ...rec("2024-01-01 00:00:01.000", 1, "10 (USER REQUESTED)"),
    "  package: c.d",
    "    Historical Process Exit for uid=2",
    ...rec("2024-01-01 00:00:05.000", 2, "16 (PACKAGE UPDATED)"),
  ].join("\n");
  const { records } = parseExitInfo(text);
  assertEquals(records.map((r) => [r.package, r.pid]), [["c.d", 2], ["a.b", 1]]);
  assertEquals(records[0].description, null);
  assertEquals(parseExitInfo("").records, []);
});

// ── meminfo ──────────────────────────────────────────────────────────────────────────────────

Deno.test({
  name: "parseMeminfo() reads the real modern capture with Rss",
  ignore: !realPresent,
  fn() {
    const d = parseMeminfo(real("dumpsys_meminfo_app_modern_with_rss.txt"));
    assertEquals(d.not_running, false);
    assertEquals(d.processes.length, 1);
    const p = d.processes[0];
    assertEquals([p.pid, p.process], [20602, "com.androidperformance.memorylab"]);
    assertEquals([p.total_pss_kb, p.total_rss_kb, p.total_swap_pss_kb], [337790, 421296, 162]);
    assertEquals(p.summary.java_heap, { pss_kb: 69716, rss_kb: 84804 });
    assertEquals(p.summary.private_other, { pss_kb: 72624, rss_kb: null });
    assertEquals(p.summary.unknown, { pss_kb: null, rss_kb: 75752 });
    assertEquals(p.heaps.native, { size_kb: 139028, alloc_kb: 129931, free_kb: 4490 });
    assertEquals(p.table.total.rss_total, 421296);
    assertEquals(p.table.so_mmap.pss_total, 3554);
    assertEquals(p.objects.views, 779);
    assertEquals(p.objects.webviews, 4);
    assertEquals(p.objects.activities, 1);
    assert(renderMeminfo("com.androidperformance.memorylab", d).includes("PSS 329.9 MB"));
  },
});

Deno.test({
  name: "parseMeminfo() reads the real older capture without Rss",
  ignore: !realPresent,
  fn() {
    const p = parseMeminfo(real("dumpsys_meminfo_oppo_launcher_older_format.txt")).processes[0];
    assertEquals([p.pid, p.process], [10396, "com.oppo.launcher"]);
    assertEquals([p.total_pss_kb, p.total_rss_kb, p.total_swap_pss_kb], [148046, null, 0]);
    assertEquals(p.table.native_heap.swap_dirty, 0);
    assertEquals(p.heaps.dalvik, { size_kb: 13374, alloc_kb: 6687, free_kb: 6687 });
    assertEquals(p.summary.graphics, { pss_kb: 43532, rss_kb: null });
    assertEquals(p.objects.openssl_sockets, 0);
  },
});

Deno.test("parseMeminfo() says not running, and reads several processes", () => {
  const none = parseMeminfo("No process found for: com.ex.app\n");
  assertEquals(none, { not_running: true, processes: [] });
  assert(renderMeminfo("com.ex.app", none).includes("not running"));
  const block = (pid: number, name: string, pss: number) =>
    `** MEMINFO in pid ${pid} [${name}] **\n` +
    "                   Pss  Private\n                 Total    Dirty\n" +
    `        TOTAL   ${pss}   ${pss}\n TOTAL PSS:   ${pss}            TOTAL RSS:   ${pss * 2}\n`;
  const d = parseMeminfo(block(1, "com.ex", 100) + block(2, "com.ex:remote", 50));
  assertEquals(d.processes.map((p) => [p.process, p.total_pss_kb, p.total_rss_kb]), [
    ["com.ex", 100, 200],
    ["com.ex:remote", 50, 100],
  ]);
});

// ── dumpsys package ──────────────────────────────────────────────────────────────────────────

Deno.test({
  name: "parseDumpsysPackage() reads the real capture",
  ignore: !realPresent,
  fn() {
    const text = real("dumpsys_package_com.example.pkmproject.txt");
    const p = parseDumpsysPackage(text, "com.example.pkmproject");
    assertEquals(p.found, true);
    assertEquals(p.uid, 10441);
    assertEquals([p.version_code, p.version_name, p.min_sdk, p.target_sdk], [1, "1.0.0", 24, 36]);
    assertEquals(p.first_install_time, "2026-01-06 19:50:14");
    assertEquals(p.installer, "com.whatsapp");
    assertEquals(p.data_dir, "/data/user/0/com.example.pkmproject");
    assertEquals(p.primary_cpu_abi, "arm64-v8a");
    assertEquals(p.flags, ["HAS_CODE", "ALLOW_CLEAR_USER_DATA", "ALLOW_BACKUP"]);
    assertEquals(p.debuggable, false);
    assertEquals(p.splits, ["base"]);
    assertEquals(p.requested_permissions.length, 18);
    assertEquals(p.install_permissions.length, 11);
    assert(p.install_permissions.every((x) => x.granted === true));
    assertEquals(p.users.map((u) => [u.user, u.installed, u.stopped]), [
      [0, true, false],
      [999, false, true],
    ]);
    assertEquals(p.users[0].runtime_permissions.map((x) => x.name), [
      "android.permission.ACCESS_FINE_LOCATION",
      "android.permission.ACCESS_COARSE_LOCATION",
    ]);
    assert(p.users[0].runtime_permissions[0].flags.includes("USER_SET"));
    assertEquals(p.launcher_activity, "com.example.pkmproject/.MainActivity");
    assert(renderPackageInfo(p).includes("Launcher activity: com.example.pkmproject/.Main"));
    assertEquals(parseDumpsysPackage(text, "com.example.other").found, false);
  },
});

Deno.test("parseDumpsysPackage() reads a small dump and a missing package", () => {
  const text = [
    "Activity Resolver Table:",
    "  Non-Data Actions:",
    "      android.intent.action.MAIN:",
    "        1a2b3c com.other/.Launcher filter 4d",
    '          Action: "android.intent.action.MAIN"',
    '          Category: "android.intent.category.LAUNCHER"',
    "        5e6f70 com.ex.app/.ui.Start filter 81",
    '          Action: "android.intent.action.MAIN"',
    '          Category: "android.intent.category.LAUNCHER"',
    "",
    "Packages:",
    "  Package [com.ex.app] (abc):",
    "    userId=10200",
    "    versionCode=42 minSdk=26 targetSdk=35",
    "    versionName=2.1-debug",
    "    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ]",
    "    firstInstallTime=2025-01-01 10:00:00",
    "    lastUpdateTime=2025-01-02 11:00:00",
    "    installerPackageName=null",
    "    requested permissions:",
    "      android.permission.CAMERA",
    "      android.permission.POST_NOTIFICATIONS",
    "    User 0: ceDataInode=1 installed=true hidden=false suspended=false stopped=true " +
    "notLaunched=false enabled=0",
    "      runtime permissions:",
    "        android.permission.CAMERA: granted=false, flags=[ USER_SET ]",
    "        android.permission.POST_NOTIFICATIONS: granted=true",
    "",
    "Queries:",
  ].join("\n");
  const p = parseDumpsysPackage(text, "com.ex.app");
  assertEquals([p.version_code, p.version_name, p.debuggable, p.installer], [
    42,
    "2.1-debug",
    true,
    null,
  ]);
  assertEquals(p.users[0].stopped, true);
  assertEquals(p.users[0].runtime_permissions.map((x) => [x.name, x.granted]), [
    ["android.permission.CAMERA", false],
    ["android.permission.POST_NOTIFICATIONS", true],
  ]);
  assertEquals(findLauncherActivity(text, "com.ex.app"), "com.ex.app/.ui.Start");
  assert(renderPackageInfo(p).includes("not granted: android.permission.CAMERA"));
  const missing = parseDumpsysPackage("Unable to find package: com.nope.x\n", "com.nope.x");
  assertEquals(missing.found, false);
  assert(renderPackageInfo(missing).includes("not installed"));
});

// ── runtime state ────────────────────────────────────────────────────────────────────────────

Deno.test("parsePsForPackage() keeps the app's own processes only", () => {
  const ps = "PID USER           NAME\n  1 root           init\n4242 u0_a200        com.ex.app\n" +
    "4250 u0_a200        com.ex.app:remote\n4300 u0_a201        com.ex.apple\n" +
    "4400 u0_a202        com.ex.app.debug\n";
  assertEquals(parsePsForPackage(ps, "com.ex.app"), [
    { pid: 4242, user: "u0_a200", name: "com.ex.app" },
    { pid: 4250, user: "u0_a200", name: "com.ex.app:remote" },
  ]);
  const full = "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n" +
    "u0_a200       4242   600 1000000 90000 do_epoll_wait       0 S com.ex.app\n";
  assertEquals(parsePsForPackage(full, "com.ex.app")[0].pid, 4242);
  assertEquals(parsePsForPackage("", "com.ex.app"), []);
  assertEquals(parsePidof("4242 4250\n"), [4242, 4250]);
  assertEquals(parsePidof(""), []);
});

Deno.test("parseResumedActivity() and parseCurrentFocus() read dumpsys lines", () => {
  const modern = "  Display #0 (activities from top to bottom):\n" +
    "    topResumedActivity=ActivityRecord{8c1d2e u0 com.ex.app/.MainActivity t42}\n";
  assertEquals(parseResumedActivity(modern), "com.ex.app/.MainActivity");
  const old = "    mResumedActivity: ActivityRecord{3f2 u0 com.ex.app/com.ex.app.Main t7}\n";
  assertEquals(parseResumedActivity(old), "com.ex.app/com.ex.app.Main");
  assertEquals(parseResumedActivity("nothing"), null);
  assertEquals(
    parseCurrentFocus("  mCurrentFocus=Window{1d2 u0 com.ex.app/com.ex.app.MainActivity}\n"),
    "com.ex.app/com.ex.app.MainActivity",
  );
  assertEquals(parseCurrentFocus("  mCurrentFocus=null\n"), null);
});

// ── network and orientation ──────────────────────────────────────────────────────────────────

Deno.test("isWirelessSerial() knows host:port, IPv6 and mDNS serials", () => {
  for (
    const s of [
      "192.168.1.23:5555",
      "[fe80::1%wlan0]:5555",
      "adb-33311HFDD8N2PQ-a4QqY3._adb-tls-connect._tcp",
      "adb-X._adb._tcp",
      "pixel.local:37000",
    ]
  ) assert(isWirelessSerial(s), s);
  for (const s of ["emulator-5554", "R5CT1234ABC", "6563c026"]) assert(!isWirelessSerial(s), s);
});

Deno.test("checkNetworkRequest() refuses cutting a wireless serial off and empty requests", () => {
  const e = refusal(() => checkNetworkRequest("192.168.1.23:5555", { wifi: false }));
  assert(e.message.includes("Wi-Fi off") && e.message.includes("192.168.1.23:5555"));
  refusal(() => checkNetworkRequest("adb-X._adb-tls-connect._tcp", { airplane_mode: true }));
  refusal(() => checkNetworkRequest("emulator-5554", {}));
  checkNetworkRequest("192.168.1.23:5555", { wifi: true, mobile_data: false });
  checkNetworkRequest("192.168.1.23:5555", { airplane_mode: false });
  checkNetworkRequest("emulator-5554", { wifi: false, airplane_mode: true });
});

Deno.test("parseSettingBool() and outputShowsFailure() read settings and refusals", () => {
  assertEquals([parseSettingBool("1\n"), parseSettingBool("0"), parseSettingBool("null")], [
    true,
    false,
    null,
  ]);
  assert(outputShowsFailure("", 1));
  assert(
    outputShowsFailure(
      "Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE }\nSecurity exception: " +
        "Permission Denial: not allowed to send broadcast android.intent.action.AIRPLANE_MODE",
      0,
    ),
  );
  assert(outputShowsFailure("Unknown command: airplane-mode\n", 0));
  assert(!outputShowsFailure("", 0));
  assert(!outputShowsFailure("Broadcast completed: result=0\n", 0));
});

Deno.test("orientationCommands() and orientationFromSettings() agree", () => {
  assertEquals(orientationCommands("landscape"), [
    ["settings", "put", "system", "accelerometer_rotation", "0"],
    ["settings", "put", "system", "user_rotation", "1"],
  ]);
  assertEquals(orientationCommands("auto"), [
    ["settings", "put", "system", "accelerometer_rotation", "1"],
  ]);
  for (const o of ["portrait", "landscape", "reverse_portrait", "reverse_landscape"] as const) {
    const rot = orientationCommands(o)[1][4];
    assertEquals(orientationFromSettings("0\n", `${rot}\n`), o);
  }
  assertEquals(orientationFromSettings("1", "3"), "auto");
  assertEquals(orientationFromSettings("0", "null"), "portrait");
  assertEquals(orientationFromSettings("", "x"), null);
});

Deno.test("parsePsForPackage() counts processes running as the app's uid", () => {
  const ps = "PID USER           NAME\n3120 u0_a120        com.google.android.gms.persistent\n" +
    "3130 u0_a121        com.google.android.gms.debug\n3140 u10_a120       other.name\n" +
    "3150 system         com.google.android.gms.ui\n";
  assertEquals(
    parsePsForPackage(ps, "com.google.android.gms", 10120).map((p) => p.pid),
    [3120, 3140],
  );
  assertEquals(parsePsForPackage(ps, "com.google.android.gms"), []);
  assertEquals(parsePsForPackage(ps, "com.google.android.gms", 1000), []);
});
