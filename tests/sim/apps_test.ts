/**
 * The simulated apps world over the real wire: packages, installs (real `adb install` of an APK
 * the fake Gradle wrote), `am start -W`, permissions, exit-info, settings, dumpsys formats.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { startSimulator } from "./mod.ts";
import { exec, q, shell } from "./apps/_shell.ts";
import type { AppsService } from "./apps/service.ts";

const EMU = "emulator-5554";
const ADB = "/usr/bin/adb";
const haveAdb = (() => {
  try {
    return Deno.statSync(ADB).isFile;
  } catch {
    return false;
  }
})();
if (!haveAdb) console.error(`apps_test: ${ADB} not installed: skipping the real adb install test`);

async function buildApk(sim: Awaited<ReturnType<typeof startSimulator>>): Promise<string> {
  const dir = sim.projects["sample-kts"];
  await sim.gradle("sample-kts").setTaskDelay(0);
  const r = await new Deno.Command(`${dir}/gradlew`, {
    args: ["assembleDemoDebug"],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(r.code, 0, new TextDecoder().decode(r.stderr));
  return `${dir}/app/build/outputs/apk/demo/debug/app-demo-debug.apk`;
}

const PKG = "com.example.keynobi.sample.demo.debug";
const ACT = "com.example.keynobi.sample.MainActivity";

Deno.test("pm list packages, pm path and sha256sum agree with the device's files", async () => {
  await using sim = await startSimulator();
  const all = await shell(sim.port, EMU, "pm list packages");
  assertEquals(all.code, 0);
  for (const p of ["com.android.settings", "com.android.chrome", "com.google.android.gms"]) {
    assert(all.out.split("\n").includes(`package:${p}`), all.out);
  }
  // The sample app is preinstalled as the only user app.
  assertEquals((await shell(sim.port, EMU, "pm list packages -3")).out, `package:${PKG}\n`);
  const path = await shell(sim.port, EMU, "pm path com.android.chrome");
  assertMatch(
    path.out,
    /^package:\/data\/app\/~~[\w-]{22}==\/com\.android\.chrome-[\w-]{22}==\/base\.apk\n$/,
  );
  const apk = path.out.trim().slice(8);
  const sum = await shell(sim.port, EMU, `sha256sum ${q(apk)}`);
  const bytes = sim.device(EMU).files.get(apk)!;
  const hex = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  assertEquals(sum.out, `${hex}  ${apk}\n`);
  const missing = await shell(sim.port, EMU, "pm path com.example.nope");
  assertEquals([missing.code, missing.out, missing.err], [1, "", ""]);
});

Deno.test({
  name: "real adb install streams the fake Gradle's APK; package read from its binary manifest",
  ignore: !haveAdb,
  fn: async () => {
    await using sim = await startSimulator();
    const apk = await buildApk(sim);
    const r = await new Deno.Command(ADB, {
      args: ["-H", "127.0.0.1", "-P", String(sim.port), "-s", EMU, "install", "-r", apk],
      env: { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(r.stdout);
    assertEquals(r.code, 0, out + new TextDecoder().decode(r.stderr));
    assertStringIncludes(out, "Success");
    const journal = await sim.readJournal();
    assert(
      journal.some((j) =>
        j.service === "exec" && j.raw.startsWith("exec:") === false &&
        j.argv[0]?.join(" ").startsWith("cmd package install")
      ),
      JSON.stringify(journal),
    );
    const list = await shell(sim.port, EMU, "pm list packages -3 --show-versioncode");
    assertEquals(list.out, `package:${PKG} versionCode:3\n`);
    const path = (await shell(sim.port, EMU, `pm path ${PKG}`)).out.trim().slice(8);
    const sum = (await shell(sim.port, EMU, `sha256sum ${q(path)}`)).out.split(" ")[0];
    const local = [
      ...new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(apk))),
    ]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    assertEquals(sum, local);
    const dump = await shell(sim.port, EMU, `dumpsys package ${PKG}`);
    assertStringIncludes(dump.out, "    versionCode=3 minSdk=24 targetSdk=35\n");
    assertStringIncludes(dump.out, "    versionName=1.2.0-demo\n");
    assertMatch(dump.out, /\n {4}firstInstallTime=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n/);
    assertStringIncludes(dump.out, "        android.permission.CAMERA: granted=false, flags=[");
  },
});

Deno.test("cmd package install -S over exec: reads exactly <size> bytes; failures as pm prints", async () => {
  await using sim = await startSimulator();
  const apk = await Deno.readFile(await buildApk(sim));
  const ok = await exec(sim.port, EMU, `cmd package 'install' -S ${apk.length}`, apk);
  assertEquals(ok, "Success\n");
  const svc = sim.device(EMU).service<AppsService>("apps")!;
  svc.packages.get(PKG)!.versionCode = 9;
  const down = await exec(sim.port, EMU, `cmd package 'install' -S ${apk.length}`, apk);
  assertEquals(
    down,
    "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 3 is older than current 9]\n",
  );
  const junk = new TextEncoder().encode("not a zip at all");
  const bad = await exec(sim.port, EMU, `cmd package 'install' -S ${junk.length}`, junk);
  assertMatch(
    bad,
    /^Failure \[INSTALL_PARSE_FAILED_NOT_APK: Failed to parse \/data\/app\/vmdl\d+\.tmp\/base\.apk: /,
  );
});

Deno.test("am start -W: COLD then HOT, the unresolved deep link and the missing class", async () => {
  await using sim = await startSimulator();
  const apk = await Deno.readFile(await buildApk(sim));
  await exec(sim.port, EMU, `cmd package 'install' -S ${apk.length}`, apk);
  const cmp = `${PKG}/${ACT}`;
  const cold = await shell(sim.port, EMU, `am start -W -n ${q(cmp)}`);
  assertEquals(cold.code, 0);
  assertEquals(
    cold.out,
    `Starting: Intent { cmp=${cmp} }\nStatus: ok\nLaunchState: COLD\nActivity: ${cmp}\n` +
      "TotalTime: 812\nWaitTime: 815\nComplete\n",
  );
  const pid = (await shell(sim.port, EMU, `pidof ${PKG}`)).out.trim();
  assertMatch(pid, /^\d+$/);
  const log = sim.device(EMU).log.entries().map((e) => `${e.tag}: ${e.message}`);
  assert(
    log.includes(
      `ActivityManager: Start proc ${pid}:${PKG}/u0a190 for next-top-activity {${PKG}/${ACT}}`,
    ),
    log.join("\n"),
  );
  assert(log.includes(`ActivityTaskManager: Displayed ${cmp} for user 0: +812ms`), log.join("\n"));
  await shell(sim.port, EMU, "simctl app-home");
  const hot = await shell(sim.port, EMU, `am start -W -n ${q(cmp)}`);
  assertStringIncludes(hot.out, "LaunchState: HOT\n");
  const link = await shell(
    sim.port,
    EMU,
    "am start -W -a android.intent.action.VIEW -d 'keynobisample://item/42'",
  );
  assertStringIncludes(
    link.out,
    "Starting: Intent { act=android.intent.action.VIEW dat=keynobisample://item/42 }\n",
  );
  const https = await shell(
    sim.port,
    EMU,
    `am start -W -a android.intent.action.VIEW -d 'https://keynobi.example/a?b=1' -p ${PKG}`,
  );
  assertStringIncludes(https.out, "dat=https://keynobi.example/... pkg=");
  assertStringIncludes(https.out, "Status: ok\n");
  const none = await shell(
    sim.port,
    EMU,
    "am start -W -a android.intent.action.VIEW -d 'nolink://x'",
  );
  assertEquals(none.code, 1);
  assertStringIncludes(
    none.out,
    "Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=nolink://x flg=0x10000000 }\n",
  );
  const missing = await shell(sim.port, EMU, `am start -n ${q(PKG + "/.Missing")}`);
  assertEquals(
    missing.err,
    `Error type 3\nError: Activity class {${PKG}/${PKG}.Missing} does not exist.\n`,
  );
});

Deno.test("am start with the intent as its last argument: a component, a package, a URI", async () => {
  await using sim = await startSimulator();
  const cmp = `${PKG}/${ACT}`;
  // As the real capture in ../shared/fixtures/real/dumpsys/am_start_W_cold_launch.txt prints it:
  // a component after the options is a MAIN/LAUNCHER intent; -e is --es.
  await shell(sim.port, EMU, `am force-stop ${PKG}`);
  const byComponent = await shell(sim.port, EMU, `am start -W -e k v ${q(cmp)}`);
  assertEquals(byComponent.code, 0, byComponent.err);
  assertStringIncludes(
    byComponent.out,
    "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] " +
      `cmp=${cmp} (has extras) }\nStatus: ok\nLaunchState: COLD\n`,
  );
  await shell(sim.port, EMU, `am force-stop ${PKG}`);
  // A bare package starts its launcher activity.
  const byPackage = await shell(sim.port, EMU, `am start -W ${PKG}`);
  assertEquals(byPackage.code, 0, byPackage.err);
  assertStringIncludes(
    byPackage.out,
    "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] " +
      `pkg=${PKG} }\nStatus: ok\nLaunchState: COLD\nActivity: ${cmp}\n`,
  );
  // An action from the options drops the LAUNCHER category the package form brings.
  const viewPkg = await shell(sim.port, EMU, `am start -W -a android.intent.action.VIEW ${PKG}`);
  assertStringIncludes(
    viewPkg.out,
    `Starting: Intent { act=android.intent.action.VIEW pkg=${PKG} }\n`,
  );
  // A URI is a VIEW of that data.
  const link = await shell(sim.port, EMU, "am start -W 'keynobisample://item/42'");
  assertStringIncludes(
    link.out,
    "Starting: Intent { act=android.intent.action.VIEW dat=keynobisample://item/42 }\n",
  );
  assertEquals(link.code, 0);
  // Options end at the first argument that is not one.
  const unknown = await shell(sim.port, EMU, "am start -W --nope x");
  assertStringIncludes(unknown.err, "java.lang.IllegalArgumentException: Unknown option: --nope\n");
});

Deno.test("revoke kills the process and records exit-info reason 8; app-crash records reason 4", async () => {
  await using sim = await startSimulator();
  const apk = await Deno.readFile(await buildApk(sim));
  await exec(sim.port, EMU, `cmd package 'install' -S ${apk.length}`, apk);
  assertEquals((await shell(sim.port, EMU, `pm grant ${PKG} android.permission.CAMERA`)).code, 0);
  await shell(sim.port, EMU, `am start -W -n ${q(PKG + "/" + ACT)}`);
  const pid = (await shell(sim.port, EMU, `pidof ${PKG}`)).out.trim();
  assertEquals((await shell(sim.port, EMU, `pm revoke ${PKG} android.permission.CAMERA`)).code, 0);
  assertEquals((await shell(sim.port, EMU, `pidof ${PKG}`)).code, 1);
  await shell(sim.port, EMU, `am start -W -n ${q(PKG + "/" + ACT)}`);
  const crashedPid = (await shell(sim.port, EMU, `pidof ${PKG}`)).out.trim();
  assertEquals((await shell(sim.port, EMU, `simctl app-crash ${PKG}`)).code, 0);
  // A Java crash: the activity is gone (the launcher is on top), the process restarts.
  const restarted = (await shell(sim.port, EMU, `pidof ${PKG}`)).out.trim();
  assertMatch(restarted, /^\d+$/);
  assert(restarted !== crashedPid, "a new pid after the crash");
  const focus = /mCurrentFocus=Window\{\w+ u0 ([^}]+)\}/.exec(
    (await shell(sim.port, EMU, "dumpsys window")).out,
  );
  assertEquals(
    focus?.[1],
    "com.google.android.apps.nexuslauncher/" +
      "com.google.android.apps.nexuslauncher.NexusLauncherActivity",
  );
  const info = (await shell(sim.port, EMU, `dumpsys activity exit-info ${PKG}`)).out;
  const lines = info.split("\n");
  assertEquals(lines[0], "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)");
  assertEquals(lines[2], `  package: ${PKG}`);
  assertEquals(lines[3], "    Historical Process Exit for uid=10190");
  assertEquals(lines[4], "        ApplicationExitInfo #0:");
  assertMatch(
    lines[6],
    /^ {10}process=\S+ reason=4 \(APP CRASH\(EXCEPTION\)\) subreason=0 \(UNKNOWN\) status=0$/,
  );
  assertMatch(lines[9], new RegExp(`^ {10}timestamp=\\S+ \\S+ pid=${pid} realUid=10190 `));
  assertMatch(lines[10], /reason=8 \(PERMISSION CHANGE\)/);
  const log = sim.device(EMU).log.entries();
  // One crash writer (the logcat service's): one FATAL EXCEPTION block for the crashed pid.
  const fatal = log.filter((e) =>
    e.tag === "AndroidRuntime" && e.message.startsWith("FATAL EXCEPTION: main\n")
  );
  assertEquals(fatal.length, 1);
  assertEquals(fatal[0].pid, Number(crashedPid));
  assertStringIncludes(fatal[0].message, `Process: ${PKG}, PID: ${crashedPid}\n`);
  assert(
    log.some((e) =>
      e.message.startsWith(`Killing ${pid}:${PKG}/u0a190 (adj 0): permissions revoked`)
    ),
  );
  const err = await shell(sim.port, EMU, `pm grant ${PKG} android.permission.INTERNET`);
  assertEquals(err.code, 255);
  assertStringIncludes(
    err.err,
    `java.lang.SecurityException: Permission android.permission.INTERNET requested by ${PKG} is not a changeable permission type\n`,
  );
  const unknown = await shell(sim.port, EMU, `pm grant ${PKG} android.permission.NOPE`);
  assertStringIncludes(
    unknown.err,
    "java.lang.IllegalArgumentException: Unknown permission: android.permission.NOPE\n",
  );
});

Deno.test("dumpsys meminfo: modern layout while running, No process found when stopped", async () => {
  await using sim = await startSimulator();
  const stopped = await shell(sim.port, EMU, "dumpsys meminfo com.android.chrome");
  assertEquals(stopped.out, "No process found for: com.android.chrome\n");
  await shell(sim.port, EMU, "monkey -p com.android.chrome -c android.intent.category.LAUNCHER 1");
  const pid = (await shell(sim.port, EMU, "pidof com.android.chrome")).out.trim();
  const m = (await shell(sim.port, EMU, "dumpsys meminfo com.android.chrome")).out.split("\n");
  assertEquals(m[0], "Applications Memory Usage (in Kilobytes):");
  assertEquals(m[3], `** MEMINFO in pid ${pid} [com.android.chrome] **`);
  assertEquals(
    m[4],
    "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap",
  );
  assertMatch(
    m.find((l) => l.includes("TOTAL PSS:"))!,
    /^ {11}TOTAL PSS: +\d+ {12}TOTAL RSS: +\d+ {7}TOTAL SWAP PSS: +\d+$/,
  );
  const stop = await shell(sim.port, EMU, "am force-stop com.android.chrome");
  assertEquals(stop.code, 0);
  assertEquals((await shell(sim.port, EMU, "pidof com.android.chrome")).code, 1);
});

Deno.test("settings, svc and airplane mode; the broadcast fallback is refused; rotation", async () => {
  await using sim = await startSimulator();
  const get = async (ns: string, k: string) =>
    (await shell(sim.port, EMU, `settings get ${ns} ${k}`)).out;
  assertEquals(await get("global", "wifi_on"), "1\n");
  await shell(sim.port, EMU, "svc wifi disable");
  await shell(sim.port, EMU, "svc data disable");
  assertEquals([await get("global", "wifi_on"), await get("global", "mobile_data")], [
    "0\n",
    "0\n",
  ]);
  assertEquals((await shell(sim.port, EMU, "cmd connectivity airplane-mode enable")).code, 0);
  assertEquals((await shell(sim.port, EMU, "cmd connectivity airplane-mode")).out, "enabled\n");
  await shell(sim.port, EMU, "simctl airplane-cmd fail");
  const failed = await shell(sim.port, EMU, "cmd connectivity airplane-mode disable");
  assertEquals(failed.code, 255);
  assertEquals(await get("global", "airplane_mode_on"), "1\n");
  const b = await shell(
    sim.port,
    EMU,
    "am broadcast -a android.intent.action.AIRPLANE_MODE --ez state false",
  );
  assertEquals(b.code, 255);
  assertStringIncludes(
    b.err,
    "java.lang.SecurityException: Permission Denial: not allowed to send broadcast android.intent.action.AIRPLANE_MODE from pid=",
  );
  assertEquals(await get("global", "nothing_here"), "null\n");
  await shell(sim.port, EMU, "wm user-rotation lock 1");
  assertEquals([
    await get("system", "user_rotation"),
    await get("system", "accelerometer_rotation"),
  ], ["1\n", "0\n"]);
});

Deno.test("svc wifi disable on the wireless-ADB device cuts it off the list", async () => {
  await using sim = await startSimulator();
  const w = "192.168.1.23:5555";
  await shell(sim.port, w, "svc wifi disable");
  assert(!sim.devices.some((d) => d.serial === w));
});
