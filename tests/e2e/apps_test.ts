/**
 * The app tools through the real entry point against the simulator's apps world: reads, launch
 * timing, stop and restart, permissions, network, orientation, deep links, exit reasons; every
 * refusal changes nothing on the device, and hostile strings never run on it.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  errorOf,
  ok,
  type Session,
  startWorld,
  type World,
} from "./harness.ts";
import type { AppsService } from "../sim/apps/service.ts";
import {
  activitiesFromApk,
  dataAppDir,
  defaultRequested,
  isRuntimePermission,
} from "../sim/apps/packages.ts";

const EMU = "emulator-5554";
const WIRELESS = "192.168.1.23:5555";
/** The sample-kts project's demo debug build. */
const APP = "com.example.keynobi.sample.demo.debug";
const CAMERA = "android.permission.CAMERA";

function apps(world: World, serial = EMU): AppsService {
  const s = world.sim.device(serial).service<AppsService>("apps");
  if (!s) throw new Error("the simulator has no apps service");
  return s;
}

/** Puts the project's app on the device as an install would (no build needed). */
function installSample(world: World, pkg = APP, serial = EMU) {
  const svc = apps(world, serial);
  const api = world.sim.device(serial).api;
  const dir = dataAppDir(pkg);
  const now = Date.now();
  const requested = defaultRequested(api);
  svc.addPackage({
    name: pkg,
    uid: 10_400 + svc.packages.size,
    versionCode: 1,
    versionName: "1.0-demo-debug",
    minSdk: 24,
    targetSdk: 35,
    system: false,
    codePath: dir,
    apkPath: `${dir}/base.apk`,
    firstInstallTime: now,
    lastUpdateTime: now,
    activities: activitiesFromApk({
      packageName: pkg,
      versionCode: 1,
      versionName: "1.0-demo-debug",
      minSdk: 24,
      targetSdk: 35,
      activities: [{
        name: "com.example.keynobi.sample.MainActivity",
        exported: true,
        filters: [],
      }],
      permissions: requested,
    }),
    permissions: new Map(
      requested.map((p) => [p, {
        runtime: isRuntimePermission(p, api),
        granted: !isRuntimePermission(p, api),
      }]),
    ),
    installer: "com.android.shell",
    processName: pkg,
    debuggable: true,
  });
}

async function journalLength(world: World): Promise<number> {
  return (await world.sim.readJournal()).length;
}

async function open(world: World): Promise<Session> {
  return await connect(world, ["--project", world.sim.projects["sample-kts"]]);
}

Deno.test({
  name: "dump_app_info, get_app_runtime_state and get_memory_info read the device's apps",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    const info = await call(s, "dump_app_info", { package: APP, device_serial: EMU });
    ok(info);
    assertEquals(info.structuredContent!.installed, true);
    assertEquals(info.structuredContent!.version_name, "1.0-demo-debug");
    assertEquals(info.structuredContent!.version_code, 1);
    const missing = await call(s, "dump_app_info", { package: "com.nope.app", device_serial: EMU });
    ok(missing);
    assertEquals(missing.structuredContent!.installed, false);

    const gms = "com.google.android.gms";
    const state = await call(s, "get_app_runtime_state", { package: gms, device_serial: EMU });
    ok(state);
    assertEquals(state.structuredContent!.running, true);
    const procs = state.structuredContent!.processes as { pid: number }[];
    assertEquals(procs[0].pid, apps(world).pidOf(gms));
    const idle = await call(s, "get_app_runtime_state", { package: APP, device_serial: EMU });
    assertEquals([idle.structuredContent!.running, idle.structuredContent!.foreground], [
      false,
      false,
    ]);

    const mem = await call(s, "get_memory_info", { package: gms, device_serial: EMU });
    ok(mem);
    assertEquals(mem.structuredContent!.running, true);
    const p = (mem.structuredContent!.processes as Record<string, unknown>[])[0];
    assert((p.total_pss_kb as number) > 0, JSON.stringify(p));
    const none = await call(s, "get_memory_info", { package: APP, device_serial: EMU });
    ok(none);
    assertEquals(none.structuredContent!.running, false);
    assertStringIncludes(none.content[0].text!, "not running");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "launch_app, restart_app and stop_app act on the project's app with launch timing",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    const launch = await call(s, "launch_app", { device_serial: EMU, package: APP });
    ok(launch);
    assertStringIncludes(launch.content[0].text!, "Launch time: 812 ms (cold), wait");
    const pid = apps(world).pidOf(APP);
    assert(pid !== null, "the app runs");
    const front = await call(s, "get_app_runtime_state", { package: APP, device_serial: EMU });
    assertEquals(front.structuredContent!.foreground, true);
    // Launching it again while it is in front starts nothing; the answer says so.
    const again = await call(s, "launch_app", { device_serial: EMU, package: APP });
    ok(again);
    const againText = again.content[0].text!;
    assert(!againText.includes("unknown (unknown"), againText);
    assertStringIncludes(againText, "Launch time: none — the app was already running");

    const restart = await call(s, "restart_app", { package: APP, device_serial: EMU });
    ok(restart);
    const r = restart.structuredContent!;
    assertEquals([r.total_time_ms, r.launch_state], [812, "COLD"]);
    assert(typeof r.wait_time_ms === "number");
    const newPid = apps(world).pidOf(APP);
    assert(newPid !== null && newPid !== pid, "a new process");
    const hasLogcat = world.sim.device(EMU).service("logcat") !== undefined;
    if (hasLogcat) assertEquals(r.display_time_ms, 812);
    else console.error("note: the simulator has no logcat service yet; display_time_ms unchecked");

    const stop = await call(s, "stop_app", { device_serial: EMU, package: APP });
    ok(stop);
    assertEquals(stop.structuredContent!.stopped, true);
    assertEquals(apps(world).pidOf(APP), null);

    // The removed `cold` parameter is an error, and nothing runs.
    const before = await journalLength(world);
    const cold = await call(s, "restart_app", { package: APP, device_serial: EMU, cold: true });
    assertEquals(errorOf(cold).code, "invalid_params");
    const noSerial = await call(s, "restart_app", { package: APP, clear_data: true });
    assertEquals(errorOf(noSerial).code, "invalid_params");
    assertStringIncludes(noSerial.content[0].text!, "device_serial");
    assertEquals(await journalLength(world), before);
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "package-scoped tools refuse foreign packages and change nothing on the device",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    const gms = "com.google.android.gms";
    const pid = apps(world).pidOf(gms);
    const before = await journalLength(world);
    for (
      const [tool, args] of [
        ["stop_app", { device_serial: EMU, package: gms }],
        ["restart_app", { device_serial: EMU, package: gms, clear_data: true }],
        ["grant_runtime_permission", { device_serial: EMU, package: gms, permission: CAMERA }],
        ["revoke_runtime_permission", { device_serial: EMU, package: gms, permission: CAMERA }],
        ["stop_app", { device_serial: EMU, package: "com.example.keynobi.samplex" }],
      ] as const
    ) {
      const r = await call(s, tool, args);
      assertEquals(errorOf(r).code, "invalid_params", tool);
      assertStringIncludes(r.content[0].text!, "allow_foreign_package");
      assertStringIncludes(r.content[0].text!, "com.example.keynobi.sample");
    }
    assertEquals(await journalLength(world), before, "no device command ran");
    assertEquals(apps(world).pidOf(gms), pid);
    // With the flag, the user's explicit choice goes through.
    const forced = await call(s, "stop_app", {
      device_serial: EMU,
      package: gms,
      allow_foreign_package: true,
    });
    ok(forced);
    assertEquals(apps(world).pidOf(gms), null);
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "an untrusted project's committed build output does not widen the package scope",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    const project = world.sim.projects["sample-kts"];
    const dir = `${project}/app/build/outputs/apk/evil/debug`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/output-metadata.json`,
      JSON.stringify({
        version: 3,
        applicationId: "com.android.settings",
        variantName: "evilDebug",
        elements: [],
      }),
    );
    await using s = await open(world);
    const before = await journalLength(world);
    const r = await call(s, "restart_app", {
      device_serial: EMU,
      package: "com.android.settings",
      clear_data: true,
    });
    assertEquals(errorOf(r).code, "invalid_params");
    assertStringIncludes(r.content[0].text!, "allow_foreign_package");
    // The refusal names where each of the project's ids came from.
    assertStringIncludes(r.content[0].text!, `${APP} (variant :app demoDebug)`);
    assertEquals(await journalLength(world), before, "no pm clear ran");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "grant and revoke change the app's permission; revoke kills its process",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    const grant = await call(s, "grant_runtime_permission", {
      device_serial: EMU,
      package: APP,
      permission: CAMERA,
    });
    ok(grant);
    assertEquals(apps(world).packages.get(APP)!.permissions.get(CAMERA)!.granted, true);
    ok(await call(s, "launch_app", { device_serial: EMU, package: APP }));
    const revoke = await call(s, "revoke_runtime_permission", {
      device_serial: EMU,
      package: APP,
      permission: CAMERA,
    });
    ok(revoke);
    assertEquals(apps(world).packages.get(APP)!.permissions.get(CAMERA)!.granted, false);
    assertEquals(revoke.structuredContent!.process_killed, true);
    assertEquals(apps(world).pidOf(APP), null);
    const bad = await call(s, "grant_runtime_permission", {
      device_serial: EMU,
      package: APP,
      permission: "android.permission.INTERNET",
    });
    assertEquals(errorOf(bad).code, "command_failed");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "set_network_state returns previous, never cuts a wireless device off, and falls back",
  async fn() {
    await using world = await startWorld();
    await using s = await open(world);
    const emu = apps(world);
    // Refusals for the wireless device: nothing runs, its settings stay.
    const wireless = apps(world, WIRELESS);
    const before = await journalLength(world);
    for (
      const args of [{ wifi: false }, { airplane_mode: true }, { wifi: false, mobile_data: true }]
    ) {
      const r = await call(s, "set_network_state", { device_serial: WIRELESS, ...args });
      assertEquals(errorOf(r).code, "invalid_params");
      assertStringIncludes(r.content[0].text!, "wireless");
    }
    assertEquals(await journalLength(world), before);
    assertEquals(wireless.setting("global", "wifi_on"), "1");
    assertEquals(wireless.setting("global", "airplane_mode_on"), "0");

    const on = await call(s, "set_network_state", { device_serial: EMU, airplane_mode: true });
    ok(on);
    assertEquals(on.structuredContent!.previous, {
      wifi: true,
      mobile_data: true,
      airplane_mode: false,
    });
    assertEquals(on.structuredContent!.airplane_method, "cmd");
    assertEquals(emu.setting("global", "airplane_mode_on"), "1");
    const off = await call(s, "set_network_state", {
      device_serial: EMU,
      airplane_mode: false,
      wifi: false,
    });
    ok(off);
    assertEquals((off.structuredContent!.previous as Record<string, unknown>).airplane_mode, true);
    assertEquals(emu.setting("global", "wifi_on"), "0");
    assertEquals(emu.setting("global", "airplane_mode_on"), "0");

    // `cmd connectivity airplane-mode` fails: the setting + broadcast fallback; the broadcast is
    // refused on API 24+, so the setting is restored.
    emu.airplaneCmdFails = true;
    const fallback = await call(s, "set_network_state", {
      device_serial: EMU,
      airplane_mode: true,
    });
    assertEquals(fallback.isError, true);
    assertStringIncludes(fallback.content[0].text!, "restored");
    assertEquals(emu.setting("global", "airplane_mode_on"), "0");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "set_device_orientation writes the rotation settings and returns previous",
  async fn() {
    await using world = await startWorld();
    await using s = await open(world);
    const r = await call(s, "set_device_orientation", {
      device_serial: EMU,
      orientation: "landscape",
    });
    ok(r);
    assertEquals([r.structuredContent!.previous, r.structuredContent!.current], [
      "portrait",
      "landscape",
    ]);
    assertEquals(apps(world).setting("system", "user_rotation"), "1");
    assertEquals(apps(world).setting("system", "accelerometer_rotation"), "0");
    const bad = await call(s, "set_device_orientation", {
      device_serial: EMU,
      orientation: "sideways",
    });
    assertEquals(errorOf(bad).code, "invalid_params");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "open_deep_link and open_app_settings check am start output; bad schemes are refused",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    const link = await call(s, "open_deep_link", {
      device_serial: EMU,
      uri: "https://keynobi.example/item/42",
      package: APP,
    });
    ok(link);
    assertEquals(apps(world).pidOf(APP) !== null, true);
    const custom = await call(s, "open_deep_link", {
      device_serial: EMU,
      uri: "keynobisample://item/7",
    });
    ok(custom);
    const nothing = await call(s, "open_deep_link", {
      device_serial: EMU,
      uri: "https://keynobi.example/item/1",
      package: "com.android.settings",
    });
    assertEquals(errorOf(nothing).code, "launch_failed");
    assertStringIncludes(nothing.content[0].text!, "unable to resolve Intent");
    // Shell metacharacters are legal in a URI: they reach the device as one quoted argument.
    const hostile = await call(s, "open_deep_link", {
      device_serial: EMU,
      uri: "keynobisample://x/a;reboot$(id)`id`'\"*?&b=1|c",
    });
    assert(hostile.content[0].text !== undefined);
    const before = await journalLength(world);
    for (
      const uri of [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,x",
        "file:///sdcard/x",
        "content://x/y",
        "intent://x#Intent;end",
        "about:blank",
        "blob:https://x/y",
        "vbscript:x",
        "no scheme",
        // Issue 10 item 7: schemes a blocklist missed, and anything the project does not declare.
        "android-app://com.android.settings/https/x",
        "view-source:https://keynobi.example/",
        "jar:https://keynobi.example/a.jar!/x",
        "market://details?id=com.evil",
        "intent://x#Intent;scheme=javascript;S.browser_fallback_url=javascript:alert(1);end",
        "nohandler://item/1",
      ]
    ) {
      const r = await call(s, "open_deep_link", { device_serial: EMU, uri });
      assertEquals(errorOf(r).code, "invalid_params", uri);
      if (/^[a-z-]+:/.test(uri)) {
        assertStringIncludes(r.content[0].text!, "deep links may use http, https, keynobisample");
      }
    }
    assertEquals(await journalLength(world), before);
    const settings = await call(s, "open_app_settings", { device_serial: EMU, package: APP });
    ok(settings);
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "get_exit_reasons lists a crash newest first and points to the crash tools",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    ok(await call(s, "launch_app", { device_serial: EMU, package: APP }));
    assert(apps(world).crash(APP), "the simulator crashed the app");
    // No package: the project's only installed build is the default.
    const r = await call(s, "get_exit_reasons", { device_serial: EMU });
    ok(r);
    assertEquals(r.structuredContent!.package, APP);
    assertEquals(r.structuredContent!.has_crash_or_anr, true);
    const records = r.structuredContent!.records as Record<string, unknown>[];
    assertEquals(records[0].reason_code, 4);
    assertStringIncludes(r.content[0].text!, "get_crash_logs");
    const limited = await call(s, "get_exit_reasons", {
      device_serial: EMU,
      package: APP,
      limit: 1,
    });
    assertEquals(limited.structuredContent!.count, 1);
    const tooMany = await call(s, "get_exit_reasons", { device_serial: EMU, limit: 101 });
    assertEquals(errorOf(tooMany).code, "invalid_params");
    // Two builds of the project installed: the caller must choose.
    installSample(world, "com.example.keynobi.sample.full.debug");
    const both = await call(s, "get_exit_reasons", { device_serial: EMU });
    assertEquals(errorOf(both).code, "invalid_params");
    assertStringIncludes(both.content[0].text!, "pass package");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "hostile strings in every string parameter are refused and never run on a device",
  async fn() {
    await using world = await startWorld();
    await using s = await open(world);
    const hostile = ["x;reboot", "$(reboot)", "`reboot`", "a'b\"c", "*", "a\nreboot", "ä.b", "a b"];
    const calls: [string, Record<string, unknown>, string][] = [
      ["dump_app_info", { package: APP, device_serial: EMU }, "package"],
      ["get_memory_info", { package: APP, device_serial: EMU }, "package"],
      ["get_app_runtime_state", { package: APP, device_serial: EMU }, "device_serial"],
      ["get_exit_reasons", { package: APP, device_serial: EMU }, "package"],
      ["launch_app", { package: APP, device_serial: EMU, activity: ".Main" }, "activity"],
      ["launch_app", { package: APP, device_serial: EMU }, "package"],
      ["stop_app", { package: APP, device_serial: EMU }, "device_serial"],
      ["restart_app", { package: APP, device_serial: EMU }, "package"],
      ["grant_runtime_permission", { package: APP, permission: CAMERA }, "permission"],
      ["revoke_runtime_permission", { package: APP, permission: CAMERA }, "package"],
      ["set_network_state", { device_serial: EMU, wifi: true }, "device_serial"],
      ["set_device_orientation", { device_serial: EMU, orientation: "auto" }, "device_serial"],
      ["open_deep_link", { uri: "https://keynobi.example/", device_serial: EMU }, "package"],
      ["open_app_settings", { package: APP, device_serial: EMU }, "package"],
    ];
    const before = await journalLength(world);
    for (const [tool, args, key] of calls) {
      for (const h of hostile) {
        const r = await call(s, tool, { ...args, [key]: h });
        assertEquals(errorOf(r)?.code, "invalid_params", `${tool}.${key}=${JSON.stringify(h)}`);
      }
    }
    assertEquals(await journalLength(world), before, "no device command ran");
    await assertNoInjection(world.sim);
  },
});

Deno.test("without a project, package-scoped tools act only with allow_foreign_package: true", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const pkg = "com.example.keynobi.sample.demo.debug";
  const refused = await call(s, "stop_app", { device_serial: "emulator-5554", package: pkg });
  assertEquals(refused.isError, true);
  assertEquals(
    (refused.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  assertStringIncludes(refused.content[0].text!, "allow_foreign_package");
  const before = (await world.sim.readJournal()).length;
  assertEquals(before, 0, "the refusal ran nothing on the device");
  const stopped = await call(s, "stop_app", {
    device_serial: "emulator-5554",
    package: pkg,
    allow_foreign_package: true,
  });
  assertEquals(stopped.isError, undefined, stopped.content[0].text);
  const exits = await call(s, "get_exit_reasons", { device_serial: "emulator-5554", package: pkg });
  assertEquals(exits.isError, undefined, exits.content[0].text);
  const noDefault = await call(s, "get_exit_reasons", { device_serial: "emulator-5554" });
  assertEquals(
    (noDefault.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  await assertNoInjection(world.sim);
});

Deno.test({
  name:
    "list_apps lists launchable user apps with scope, system apps on request, and the front app",
  async fn() {
    await using world = await startWorld();
    installSample(world);
    await using s = await open(world);
    const svc = apps(world);
    const list = await call(s, "list_apps", { device_serial: EMU });
    ok(list);
    const listed = list.structuredContent!.apps as Record<string, unknown>[];
    const user = [...svc.packages.values()].filter((p) => !p.system);
    // Every launchable user app the device has, and nothing else.
    const launchable = user.filter((p) =>
      svc.resolveAll({
        action: "android.intent.action.MAIN",
        data: null,
        type: null,
        categories: ["android.intent.category.LAUNCHER"],
        pkg: p.name,
        component: null,
        extras: false,
        flags: 0,
      }).length > 0
    ).map((p) => p.name).sort();
    assertEquals(listed.map((a) => a.package), launchable);
    const mine = listed.find((a) => a.package === APP)!;
    assertEquals([mine.version_code, mine.system, mine.launchable, mine.in_project_scope], [
      1,
      false,
      true,
      true,
    ]);
    assertEquals(mine.launcher_activity, "com.example.keynobi.sample.MainActivity");
    assert(listed.every((a) => a.system === false), "no system app by default");

    const all = await call(s, "list_apps", { device_serial: EMU, system: true, limit: 2 });
    ok(all);
    const a = all.structuredContent!;
    assertEquals((a.apps as unknown[]).length, 2);
    assertEquals(a.truncated, true);
    assert((a.total as number) > launchable.length, "system apps are counted too");
    assertStringIncludes(all.content[0].text!, "the first 2 listed (raise limit for more)");

    // Whatever is in front is named without naming a package.
    const home = list.structuredContent!.foreground as Record<string, unknown>;
    assertEquals(home.package, svc.topActivity()?.pkg);
    await call(s, "launch_app", { device_serial: EMU, package: APP });
    const after = await call(s, "list_apps", { device_serial: EMU });
    assertEquals((after.structuredContent!.foreground as Record<string, unknown>).package, APP);
    assertStringIncludes(after.content[0].text!, `In the foreground: ${APP}`);

    const bad = await call(s, "list_apps", { device_serial: EMU, limit: 0 });
    assert(bad.isError);
    assertEquals(errorOf(bad).code, "invalid_params");
    await assertNoInjection(world.sim);
  },
});
