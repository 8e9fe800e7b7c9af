/**
 * One device, one truth: the apps service's activity stack decides what the UI draws and what
 * `dumpsys window` focuses; the preinstalled sample app; crashes written once by the logcat
 * service and recorded by the apps service.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { defaultFleet } from "./catalog.ts";
import { VirtualDevice } from "./device.ts";
import { startSimulator } from "./mod.ts";
import { ShellRun } from "./sh_exec.ts";
import { exec as execIn, q, shell } from "./apps/_shell.ts";
import { readApk } from "./apps/apk.ts";
import { AppsService } from "./apps/service.ts";
import {
  SAMPLE_ACTIVITY,
  SAMPLE_MIN_SDK,
  SAMPLE_PACKAGE,
  SAMPLE_VERSION_CODE,
  SAMPLE_VERSION_NAME,
  sampleApkBytes,
  sampleApkInfo,
} from "./apps/sample.ts";
import { parseManifest, variantsOf } from "./gradle/manifest.ts";
import { LogcatService } from "./logcat/service.ts";
import { LAUNCHER_PACKAGE, RESPONSE_DELAY_MS, TRANSITION_MS } from "./ui/app.ts";
import { UiService } from "./ui/service.ts";

const dec = new TextDecoder();
const P = SAMPLE_PACKAGE;
const CMP = `${P}/${SAMPLE_ACTIVITY}`;
const NEXUS = "com.google.android.apps.nexuslauncher";
const HOME_CMP = `${NEXUS}/${NEXUS}.NexusLauncherActivity`;
const CHROME_CMP = "com.android.chrome/com.google.android.apps.chrome.Main";

/** A device with the ui, apps and logcat services in SERVICES order and a fake UI clock. */
function rig() {
  const clock = {
    t: 50_000,
    now() {
      return this.t;
    },
    sleep(ms: number) {
      this.t += ms;
      return Promise.resolve();
    },
  };
  const device = new VirtualDevice(defaultFleet()[0]);
  const ui = new UiService(device, clock);
  const apps = new AppsService(device, null);
  const logcat = new LogcatService(device, undefined, { rate: 0 });
  for (const s of [ui, apps, logcat]) device.addService(s);
  const run = async (script: string) => {
    let out = "";
    let err = "";
    const io = {
      stdin: () => Promise.resolve(new Uint8Array()),
      out: (b: Uint8Array) => void (out += dec.decode(b)),
      err: (b: Uint8Array) => void (err += dec.decode(b)),
    };
    const sh = new ShellRun({ env: device.env, fs: device.fs(), commands: device.commands() });
    const code = await sh.runScript(script, io);
    // Let the UI's look at the activity manager (a microtask after its log lines) run.
    await Promise.resolve();
    return { out, err, code };
  };
  const focus = async () => {
    const m = /mCurrentFocus=Window\{\w+ u0 ([^}]+)\}/.exec((await run("dumpsys window")).out);
    return m?.[1] ?? null;
  };
  const dumpPackages = async () => {
    const xml = (await run("uiautomator dump /dev/tty")).out;
    return new Set([...xml.matchAll(/package="([^"]+)"/g)].map((m) => m[1]));
  };
  const advance = (ms: number) => void (clock.t += ms);
  const close = () => {
    for (const s of [ui, apps, logcat]) s.close();
  };
  return { clock, device, ui, apps, logcat, run, focus, dumpPackages, advance, close };
}

/** The centre of the launcher icon with this label, from a dump. */
function iconCenter(xml: string, label: string): string {
  const m = new RegExp(`text="${label}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`)
    .exec(xml);
  assert(m, `no ${label} icon in the dump`);
  return `${(+m[1] + +m[3]) >> 1} ${(+m[2] + +m[4]) >> 1}`;
}

Deno.test("sample app identity matches sample-kts's demoDebug variant and the APK's manifest", async () => {
  const text = await Deno.readTextFile(
    new URL("./projects/sample-kts/.sim-gradle.json", import.meta.url),
  );
  const module = parseManifest(text).modules[0];
  const v = variantsOf(module).find((x) => x.name === "demoDebug")!;
  assertEquals(
    [v.applicationId, v.versionName, module.version_code, module.min_sdk, module.launcher_activity],
    [P, SAMPLE_VERSION_NAME, SAMPLE_VERSION_CODE, SAMPLE_MIN_SDK, SAMPLE_ACTIVITY],
  );
  assertEquals(await readApk(sampleApkBytes()), sampleApkInfo());
});

Deno.test("every device starts with the sample app installed, running and on top", async () => {
  await using sim = await startSimulator();
  for (const { serial } of sim.devices) {
    assertEquals((await shell(sim.port, serial, "pm list packages -3")).out, `package:${P}\n`);
    const path = (await shell(sim.port, serial, `pm path ${P}`)).out;
    assertMatch(
      path,
      new RegExp(`^package:/data/app/~~[\\w-]{22}==/${P}-[\\w-]{22}==/base\\.apk\\n$`),
    );
    const apk = path.trim().slice(8);
    const bytes = sim.device(serial).files.get(apk)!;
    assertEquals((await readApk(bytes)).packageName, P, "a real APK");
    const sum = (await shell(sim.port, serial, `sha256sum ${q(apk)}`)).out;
    const hex = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()))]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    assertEquals(sum, `${hex}  ${apk}\n`);
    assertMatch((await shell(sim.port, serial, `pidof ${P}`)).out, /^\d+\n$/);
    const acts = (await shell(sim.port, serial, "dumpsys activity activities")).out;
    assertMatch(acts, new RegExp(`topResumedActivity=ActivityRecord\\{\\w+ u0 ${CMP} t\\d+\\}`));
    assertStringIncludes(
      (await shell(sim.port, serial, "dumpsys window")).out,
      ` u0 ${CMP}}\n`,
    );
    const xml = (await shell(sim.port, serial, "uiautomator dump /dev/tty")).out;
    assertStringIncludes(xml, `package="${P}"`);
  }
});

Deno.test("installing a fresh build over the preinstalled app replaces its bytes and restarts cold", async () => {
  await using sim = await startSimulator();
  const serial = "emulator-5554";
  const before = (await shell(sim.port, serial, `pm path ${P}`)).out.trim().slice(8);
  const dir = sim.projects["sample-kts"];
  await sim.gradle("sample-kts").setTaskDelay(0);
  const built = await new Deno.Command(`${dir}/gradlew`, {
    args: ["assembleDemoDebug"],
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  }).output();
  assertEquals(built.code, 0, dec.decode(built.stderr));
  const apk = await Deno.readFile(`${dir}/app/build/outputs/apk/demo/debug/app-demo-debug.apk`);
  const same = sim.device(serial).files.get(before)!;
  assert(apk.length !== same.length || apk.some((b, k) => b !== same[k]), "a build differs");
  assertStringIncludes(
    await execIn(sim.port, serial, `cmd package install -S ${apk.length}`, apk),
    "Success",
  );
  const after = (await shell(sim.port, serial, `pm path ${P}`)).out.trim().slice(8);
  assert(after !== before && !sim.device(serial).files.has(before));
  assertEquals((await shell(sim.port, serial, `pidof ${P}`)).code, 1, "the update stopped it");
  const cold = (await shell(sim.port, serial, `am start -W -n ${q(CMP)}`)).out;
  assertStringIncludes(cold, "LaunchState: COLD\n");
  assert((await sim.readJournal()).every((j) => !j.injection));
});

Deno.test("the UI draws what the apps service has on top; dumpsys window agrees", async () => {
  const r = rig();
  try {
    assertEquals(await r.focus(), CMP);
    assert((await r.dumpPackages()).has(P));
    // Another app on top: the launcher is drawn, the focus is that app.
    await r.run(`am start -n ${CHROME_CMP}`);
    assertEquals(await r.focus(), CHROME_CMP);
    assertEquals(r.ui.state().front, "launcher");
    const pkgs = await r.dumpPackages();
    assert(pkgs.has(LAUNCHER_PACKAGE) && !pkgs.has(P), [...pkgs].join());
    // Back to the sample (its activity kept): a hot start, its screen kept.
    const start = await r.run(`am start -W -n ${CMP}`);
    assertStringIncludes(start.out, "LaunchState: HOT\n");
    assertEquals(r.ui.state().front, "app");
    assertEquals(r.ui.app.events.filter((e) => e === "cold-start").length, 0);
    r.advance(TRANSITION_MS);
    assertEquals(await r.focus(), CMP);
    // The apps service's HOME (no log line at all) shows on the next look.
    r.apps.goHome();
    assertEquals(r.ui.state().front, "launcher");
    assertEquals(await r.focus(), HOME_CMP);
    // force-stop, then a start: a new process, a fresh app.
    await r.run(`am start -n ${CMP}`);
    r.advance(TRANSITION_MS);
    await r.run(`input tap ${iconCenter(r.ui.currentXml(), "Sign in")}`);
    r.advance(RESPONSE_DELAY_MS + TRANSITION_MS);
    assertEquals(r.ui.state().screen, "form");
    await r.run(`am force-stop ${P}`);
    assertEquals(r.ui.state().front, "launcher");
    assertEquals(await r.focus(), HOME_CMP);
    assertStringIncludes((await r.run(`am start -W -n ${CMP}`)).out, "LaunchState: COLD\n");
    assertEquals([r.ui.state().front, r.ui.state().screen], ["app", "home"]);
    assertEquals(r.ui.app.events.at(-1), "cold-start");
  } finally {
    r.close();
  }
});

Deno.test("HOME, BACK at the root and the launcher icon change the apps service's stack", async () => {
  const r = rig();
  try {
    const pid = r.apps.pidOf(P);
    await r.run("input keyevent KEYCODE_HOME");
    assertEquals(r.apps.topActivity()?.pkg, NEXUS);
    assertEquals(r.apps.pidOf(P), pid, "HOME keeps the process");
    // The icon starts the app through the activity manager, as the launcher does.
    const before = r.device.log.entries().length;
    await r.run(`input tap ${iconCenter(r.ui.currentXml(), "Keynobi Sample")}`);
    assertEquals(r.apps.topActivity()?.pkg, P);
    const lines = r.device.log.entries().slice(before).map((e) => `${e.tag}: ${e.message}`);
    assert(
      lines.some((l) =>
        l.startsWith("ActivityTaskManager: START u0 {act=android.intent.action.MAIN ") &&
        l.includes(`cmp=${P}/`) && l.includes("from uid 10158")
      ),
      lines.join("\n"),
    );
    r.advance(RESPONSE_DELAY_MS + TRANSITION_MS);
    assertEquals(await r.focus(), CMP);
    // BACK at the app's root: the task goes behind the launcher, the process stays.
    await r.run("input keyevent 4");
    assertEquals(r.apps.topActivity()?.pkg, NEXUS);
    assertEquals(r.ui.state().front, "launcher");
    assertEquals(r.apps.pidOf(P), pid);
    // The icon of a stopped app: a cold start with a new process.
    await r.run(`am force-stop ${P}`);
    const mark = r.device.log.entries().length;
    await r.run(`input tap ${iconCenter(r.ui.currentXml(), "Keynobi Sample")}`);
    const cold = r.device.log.entries().slice(mark).map((e) => e.message);
    assert(cold.some((l) => l.startsWith(`Start proc `) && l.includes(`:${P}/u0a190 `)));
    assert(cold.some((l) => l.startsWith(`Displayed ${CMP} for user 0: +812ms`)), cold.join("\n"));
    const again = r.apps.pidOf(P);
    assert(again !== null && again !== pid);
    assertEquals(r.ui.app.events.at(-1), "cold-start");
    // simctl ui-front goes through the apps service too.
    await r.run("simctl ui-front stopped");
    assertEquals(r.apps.pidOf(P), null);
    await r.run("simctl ui-front app");
    assertEquals(r.apps.topActivity()?.pkg, P);
    await r.run("simctl ui-front launcher");
    assertEquals(r.apps.topActivity()?.pkg, NEXUS);
    assertEquals((await r.run("simctl ui-front nope")).code, 1);
  } finally {
    r.close();
  }
});

Deno.test("crashes: the logcat service writes them once, the apps service records the reason", async () => {
  const r = rig();
  try {
    const exitReasons = async () =>
      [...(await r.run(`dumpsys activity exit-info ${P}`)).out.matchAll(
        / pid=(\d+) .*\n.* reason=(\d+) .*status=(\d+)/g,
      )].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
    // Java: FATAL EXCEPTION once, reason 4, restarted under the pid logcat's Start proc names.
    const first = r.apps.pidOf(P)!;
    const before = r.device.log.entries().length;
    assertEquals((await r.run(`simctl app-crash ${P}`)).code, 0);
    const lines = r.device.log.entries().slice(before);
    assertEquals(
      lines.filter((e) => e.tag === "AndroidRuntime" && e.message.startsWith("FATAL")).length,
      1,
    );
    const restarted = r.apps.pidOf(P)!;
    assert(restarted !== null && restarted !== first);
    const start = lines.find((e) => e.message.startsWith("Start proc "))!;
    assertStringIncludes(start.message, `Start proc ${restarted}:${P}/u0a190 for `);
    assertEquals((await r.run(`pidof ${P}`)).out, `${restarted}\n`);
    assertEquals((await exitReasons())[0], [first, 4, 0]);
    assertEquals(r.ui.state().front, "launcher");
    assertEquals(await r.focus(), HOME_CMP);
    // ANR of the running process: reason 6, no restart.
    r.logcat.crash(P, "anr");
    assertEquals(r.apps.pidOf(P), null);
    assertEquals((await exitReasons())[0], [restarted, 6, 0]);
    // Native, on top: reason 5 with the signal as status; the app is gone from the screen.
    await r.run(`am start -n ${CMP}`);
    const third = r.apps.pidOf(P)!;
    r.logcat.crash(P, "native", "abort");
    assertEquals((await exitReasons())[0], [third, 5, 6]);
    assertEquals([r.apps.pidOf(P), r.ui.state().front], [null, "launcher"]);
    assertEquals(await r.focus(), HOME_CMP);
    // A package the device does not have: logcat's own process, nothing recorded here.
    const records = r.apps.exits.length;
    const other = r.logcat.crash("com.example.elsewhere", "java");
    assert(other.restartedPid !== null);
    assertEquals(r.apps.exits.length, records);
    assertEquals(r.apps.pidOf("com.example.elsewhere"), null);
  } finally {
    r.close();
  }
});

Deno.test("without a logcat service app-crash writes the same formatter's lines", () => {
  const device = new VirtualDevice(defaultFleet()[0]);
  const apps = new AppsService(device, null);
  device.addService(apps);
  const pid = apps.pidOf(P)!;
  assert(apps.crash(P));
  const fatal = device.log.entries().filter((e) => e.message.startsWith("FATAL EXCEPTION: main\n"));
  assertEquals(fatal.length, 1);
  assertStringIncludes(fatal[0].message, `Process: ${P}, PID: ${pid}\n`);
  assertEquals(apps.exits.at(-1)?.reason, 4);
  assert(apps.pidOf(P) !== null && apps.pidOf(P) !== pid, "restarted");
  assertEquals(apps.crash("com.example.none"), false);
  apps.close();
});
