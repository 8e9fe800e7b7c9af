/**
 * The app tools over a scripted device: what they send (argv, in order), what they refuse before
 * sending anything, and how they read what comes back. End-to-end runs against the simulator are
 * in tests/e2e/apps_test.ts.
 */
import { assert, assertEquals, assertStringIncludes } from "../../assert.ts";
import { appInfoTools } from "../../../lib/tools/apps/app_info.ts";
import { appControlTools } from "../../../lib/tools/apps/app_control.ts";
import { permissionTools } from "../../../lib/tools/apps/permissions.ts";
import { deviceSettingsTools } from "../../../lib/tools/devices/device_settings.ts";
import type { AdbClient, AdbDevice } from "../../../lib/adb/client.ts";
import { ToolError } from "../../../lib/core/errors.ts";
import type { ToolContext } from "../../../lib/tools/context.ts";
import type { ToolOutput } from "../../../lib/mcp/tool_def.ts";
import { testToolContext } from "../../tool_context.ts";
import { FakeAdb } from "../../fake_adb.ts";

/** The app and device-settings tools these tests drive. */
const appsTools = [
  ...appInfoTools,
  ...appControlTools,
  ...permissionTools,
  ...deviceSettingsTools,
];

interface LooseTool {
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

function tool(name: string): LooseTool {
  const t = appsTools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t as unknown as LooseTool;
}

/** The app tools use only `adb`, `project` and `signal`. */
function ctxWith(adb: FakeAdb, project: string | null = null): ToolContext {
  return testToolContext({
    adb: adb as unknown as AdbClient,
    project: project === null
      ? null
      : { root: project, requested: project, selectedBy: "argument" },
  });
}

async function rejects(p: Promise<unknown>, code: string): Promise<ToolError> {
  try {
    await p;
  } catch (e) {
    assert(e instanceof ToolError, String(e));
    assertEquals(e.code, code, e.message);
    return e;
  }
  throw new Error(`expected ${code}`);
}

/** A one-module project with applicationId com.example.app and a `.debug` suffix. */
async function tempProject(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "keynobi-apps-" });
  await Deno.writeTextFile(`${root}/settings.gradle.kts`, 'include(":app")\n');
  await Deno.mkdir(`${root}/app`);
  await Deno.writeTextFile(
    `${root}/app/build.gradle.kts`,
    'plugins { id("com.android.application") }\nandroid {\n  namespace = "com.example.app"\n' +
      '  defaultConfig { applicationId = "com.example.app" }\n' +
      '  buildTypes { debug { applicationIdSuffix = ".debug" } }\n}\n',
  );
  return root;
}

const AM_OK = "Starting: Intent { cmp=com.example.app/.MainActivity }\nStatus: ok\n" +
  "LaunchState: COLD\nActivity: com.example.app/.MainActivity\nTotalTime: 812\nWaitTime: 815\n" +
  "Complete\n";

Deno.test("appsTools declare the spec's toolsets and kinds", () => {
  const want: Record<string, [string, string]> = {
    dump_app_info: ["core", "R"],
    get_memory_info: ["core", "R"],
    get_app_runtime_state: ["core", "R"],
    get_exit_reasons: ["core", "R"],
    launch_app: ["device-admin", "W"],
    stop_app: ["device-admin", "D"],
    restart_app: ["device-admin", "D"],
    grant_runtime_permission: ["device-admin", "W"],
    revoke_runtime_permission: ["device-admin", "D"],
    set_network_state: ["device-admin", "D"],
    set_device_orientation: ["device-admin", "W"],
    open_deep_link: ["device-admin", "W"],
    open_app_settings: ["device-admin", "W"],
  };
  assertEquals(appsTools.map((t) => t.name).sort(), Object.keys(want).sort());
  for (const t of appsTools) assertEquals([t.toolset, t.kind], want[t.name], t.name);
});

Deno.test("launch_app times a launch with am start -W and names the launcher activity", async () => {
  const adb = new FakeAdb((argv) => {
    if (argv[0] === "dumpsys") {
      return {
        out: "Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n" +
          "        1 com.example.app/.MainActivity filter 2\n" +
          '          Action: "android.intent.action.MAIN"\n' +
          '          Category: "android.intent.category.LAUNCHER"\n\nPackages:\n' +
          "  Package [com.example.app] (1):\n    versionCode=1 minSdk=24 targetSdk=35\n",
      };
    }
    if (argv[0] === "am") return { out: AM_OK };
  });
  const r = await tool("launch_app").run(
    { device_serial: "emulator-5554", package: "com.example.app" },
    ctxWith(adb),
  );
  assertEquals(adb.argvs[1], ["am", "start", "-W", "-n", "com.example.app/.MainActivity"]);
  assertStringIncludes(r.text, "Launch time: 812 ms (cold), wait 815 ms");
  assertEquals(r.structured.launch_timing, { total_ms: 812, wait_ms: 815, launch_state: "COLD" });
});

Deno.test("launch_app fails on an am start error printed with exit code 0", async () => {
  const adb = new FakeAdb(() => ({
    out: "Starting: Intent { cmp=com.example.app/.Nope }\nError type 3\nError: Activity class " +
      "{com.example.app/com.example.app.Nope} does not exist.\n",
    code: 0,
  }));
  const e = await rejects(
    tool("launch_app").run(
      { device_serial: "emulator-5554", package: "com.example.app", activity: ".Nope" },
      ctxWith(adb),
    ),
    "launch_failed",
  );
  assertStringIncludes(e.message, "does not exist");
});

Deno.test("launch_app falls back to monkey and says no time was reported", async () => {
  const adb = new FakeAdb((argv) => {
    if (argv[0] === "dumpsys") return { out: "Packages:\n  Package [com.example.app] (1):\n" };
    if (argv[0] === "monkey") return { out: "  bash arg: -p\nEvents injected: 1\n" };
  });
  const r = await tool("launch_app").run(
    { device_serial: "emulator-5554", package: "com.example.app" },
    ctxWith(adb),
  );
  assertEquals(r.structured.method, "monkey");
  assertEquals(r.structured.launch_timing, null);
  assertStringIncludes(r.text, "not reported");
});

Deno.test("package-scoped tools refuse a foreign package before any device command", async () => {
  const root = await tempProject();
  try {
    const cases: [string, Record<string, unknown>][] = [
      ["stop_app", { device_serial: "emulator-5554", package: "com.example.apple" }],
      ["restart_app", { device_serial: "emulator-5554", package: "com.google.android.gms" }],
      ["grant_runtime_permission", {
        package: "com.other.app",
        permission: "android.permission.CAMERA",
      }],
      ["revoke_runtime_permission", {
        package: "com.other.app",
        permission: "android.permission.CAMERA",
      }],
    ];
    for (const [name, args] of cases) {
      const adb = new FakeAdb(() => ({}));
      const e = await rejects(tool(name).run(args, ctxWith(adb, root)), "invalid_params");
      assertStringIncludes(e.message, "com.example.app");
      assertStringIncludes(e.message, "allow_foreign_package");
      assertEquals([adb.argvs.length, adb.listings], [0, 0], name);
    }
    // No project: no package is the project's.
    const adb = new FakeAdb(() => ({}));
    await rejects(
      tool("stop_app").run(
        { device_serial: "emulator-5554", package: "com.example.app" },
        ctxWith(adb),
      ),
      "invalid_params",
    );
    assertEquals(adb.argvs.length, 0);
    // The project's own ids, with suffixes, pass.
    const ok = new FakeAdb(() => ({}));
    await tool("stop_app").run(
      { device_serial: "emulator-5554", package: "com.example.app.debug" },
      ctxWith(ok, root),
    );
    assert(ok.argvs.some((c) => c.join(" ") === "am force-stop com.example.app.debug"));
    const foreign = new FakeAdb(() => ({}));
    await tool("stop_app").run(
      { device_serial: "emulator-5554", package: "com.other.app", allow_foreign_package: true },
      ctxWith(foreign, root),
    );
    assert(foreign.argvs.some((c) => c.join(" ") === "am force-stop com.other.app"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("restart_app clears data first, relaunches, and reads Displayed for that package", async () => {
  const root = await tempProject();
  try {
    const adb = new FakeAdb((argv) => {
      const line = argv.join(" ");
      if (line === "logcat -d -v threadtime -t 1") {
        return { out: "01-02 03:04:05.000  100  100 I Tag: x\n" };
      }
      if (argv[0] === "pm" && argv[1] === "clear") return { out: "Success\n" };
      if (argv[0] === "dumpsys") {
        return {
          out: "Activity Resolver Table:\n      android.intent.action.MAIN:\n" +
            "        1 com.example.app/.MainActivity filter 2\n" +
            '          Action: "android.intent.action.MAIN"\n' +
            '          Category: "android.intent.category.LAUNCHER"\n\nPackages:\n' +
            "  Package [com.example.app] (1):\n",
        };
      }
      if (argv[0] === "am" && argv[1] === "start") return { out: AM_OK };
      if (argv[0] === "logcat") {
        return {
          out: "01-02 03:04:06.000  500  520 I ActivityTaskManager: Displayed " +
            "com.example.app.debug/.MainActivity for user 0: +2s\n" +
            "01-02 03:04:06.100  500  520 I ActivityTaskManager: Displayed " +
            "com.example.app/.MainActivity for user 0: +1s234ms\n",
        };
      }
    });
    const r = await tool("restart_app").run(
      { device_serial: "emulator-5554", package: "com.example.app", clear_data: true },
      ctxWith(adb, root),
    );
    const seq = adb.argvs.map((c) => c.slice(0, 2).join(" "));
    assertEquals(seq.slice(0, 4), ["logcat -d", "pm clear", "am force-stop", "dumpsys package"]);
    const last = adb.argvs[adb.argvs.length - 1];
    assertEquals(last, [
      "logcat",
      "-d",
      "-v",
      "threadtime",
      "-T",
      "01-02 03:04:05.000",
      "-s",
      "ActivityTaskManager:I",
      "ActivityManager:I",
    ]);
    assertEquals(r.structured.total_time_ms, 812);
    assertEquals(r.structured.wait_time_ms, 815);
    assertEquals(r.structured.launch_state, "COLD");
    assertEquals(r.structured.display_time_ms, 1234);
    assertEquals(r.structured.cleared_data, true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("restart_app with clear_data needs device_serial, refused before anything runs", async () => {
  const adb = new FakeAdb(() => ({}));
  const e = await rejects(
    tool("restart_app").run(
      { package: "com.example.app", clear_data: true, allow_foreign_package: true },
      ctxWith(adb),
    ),
    "invalid_params",
  );
  assertStringIncludes(e.message, "device_serial");
  assertEquals([adb.argvs.length, adb.listings], [0, 0]);
});

Deno.test("set_network_state refuses cutting a wireless serial off before any command", async () => {
  for (
    const args of [
      { device_serial: "192.168.1.23:5555", wifi: false },
      { device_serial: "adb-X._adb-tls-connect._tcp", airplane_mode: true },
      { device_serial: "emulator-5554" },
    ]
  ) {
    const adb = new FakeAdb(() => ({}));
    await rejects(tool("set_network_state").run(args, ctxWith(adb)), "invalid_params");
    assertEquals(adb.argvs.length, 0);
  }
  // Picked from the listing: the only online device is wireless.
  const wireless = new FakeAdb(() => ({}), [
    { serial: "192.168.1.23:5555", state: "device", kind: "wireless" } as AdbDevice,
  ]);
  await rejects(
    tool("set_network_state").run({ wifi: false }, ctxWith(wireless)),
    "invalid_params",
  );
  assertEquals(wireless.argvs.length, 0);
});

Deno.test("set_network_state reads previous first and uses cmd connectivity for airplane mode", async () => {
  const settings = new Map([["wifi_on", "1"], ["mobile_data", "1"], ["airplane_mode_on", "0"]]);
  const adb = new FakeAdb((argv) => {
    if (argv[0] === "settings" && argv[1] === "get") return { out: `${settings.get(argv[3])}\n` };
    if (argv[0] === "cmd") {
      settings.set("airplane_mode_on", argv[3] === "enable" ? "1" : "0");
      return {};
    }
    if (argv[0] === "svc") {
      settings.set(
        argv[1] === "wifi" ? "wifi_on" : "mobile_data",
        argv[2] === "enable" ? "1" : "0",
      );
      return {};
    }
  });
  const r = await tool("set_network_state").run(
    { device_serial: "emulator-5554", airplane_mode: true, mobile_data: false },
    ctxWith(adb),
  );
  assertEquals(adb.argvs.slice(0, 3).map((c) => c[3]), [
    "wifi_on",
    "mobile_data",
    "airplane_mode_on",
  ]);
  assert(adb.argvs.some((c) => c.join(" ") === "cmd connectivity airplane-mode enable"));
  assertEquals(r.structured.previous, { wifi: true, mobile_data: true, airplane_mode: false });
  assertEquals(r.structured.current, { wifi: true, mobile_data: false, airplane_mode: true });
  assertEquals(r.structured.airplane_method, "cmd");
});

Deno.test("set_network_state falls back to the setting and restores it when the broadcast is refused", async () => {
  const settings = new Map([["wifi_on", "1"], ["mobile_data", "0"], ["airplane_mode_on", "0"]]);
  const adb = new FakeAdb((argv) => {
    if (argv[0] === "settings" && argv[1] === "get") return { out: `${settings.get(argv[3])}\n` };
    if (argv[0] === "settings" && argv[1] === "put") {
      settings.set(argv[3], argv[4]);
      return {};
    }
    if (argv[0] === "cmd") return { err: "Unknown command: airplane-mode\n", code: 255 };
    if (argv[0] === "am") {
      return {
        out: "Broadcasting: Intent { act=android.intent.action.AIRPLANE_MODE flg=0x400000 " +
          "(has extras) }\n",
        err: "Security exception: Permission Denial: not allowed to send broadcast " +
          "android.intent.action.AIRPLANE_MODE from pid=1, uid=2000\n",
        code: 255,
      };
    }
  });
  const e = await rejects(
    tool("set_network_state").run(
      { device_serial: "emulator-5554", airplane_mode: true },
      ctxWith(adb),
    ),
    "command_failed",
  );
  assertStringIncludes(e.message, "restored");
  assertEquals(settings.get("airplane_mode_on"), "0");
  const puts = adb.argvs.filter((c) => c[0] === "settings" && c[1] === "put").map((c) => c[4]);
  assertEquals(puts, ["1", "0"]);
});

Deno.test("open_deep_link refuses blocked schemes and reports unresolved intents", async () => {
  for (
    const uri of [
      "javascript:alert(1)",
      "file:///sdcard/x",
      "intent://x#Intent;end",
      "nope",
      "android-app://com.x/https/y",
      "market://details?id=x",
      "myapp://x/1",
    ]
  ) {
    const adb = new FakeAdb(() => ({}));
    await rejects(tool("open_deep_link").run({ uri }, ctxWith(adb)), "invalid_params");
    assertEquals([adb.argvs.length, adb.listings], [0, 0], uri);
  }
  const adb = new FakeAdb(() => ({
    out: "Starting: Intent { act=android.intent.action.VIEW dat=https://x.example/... }\nError: " +
      "Activity not started, unable to resolve Intent { act=android.intent.action.VIEW " +
      "dat=https://x.example/... flg=0x10000000 }\n",
    code: 0,
  }));
  const e = await rejects(
    tool("open_deep_link").run(
      { uri: "https://x.example/1", device_serial: "emulator-5554" },
      ctxWith(adb),
    ),
    "launch_failed",
  );
  assertStringIncludes(e.message, "unable to resolve Intent");
  assertEquals(adb.argvs[0], [
    "am",
    "start",
    "-W",
    "-a",
    "android.intent.action.VIEW",
    "-d",
    "https://x.example/1",
  ]);
});

Deno.test("get_exit_reasons says so below API 30 and limits are bounded", async () => {
  const old = new FakeAdb((argv) => argv[0] === "getprop" ? { out: "29\n" } : undefined);
  const r = await tool("get_exit_reasons").run(
    { device_serial: "emulator-5554", package: "com.example.app" },
    ctxWith(old),
  );
  assertEquals(r.structured.supported, false);
  assertStringIncludes(r.text, "API 29");
  assertEquals(old.argvs.length, 1);
  for (const limit of [0, 101]) {
    const adb = new FakeAdb(() => ({}));
    await rejects(
      tool("get_exit_reasons").run({ package: "com.example.app", limit }, ctxWith(adb)),
      "invalid_params",
    );
    assertEquals(adb.argvs.length, 0);
  }
});

Deno.test("get_exit_reasons defaults to the installed build and points to the crash tools", async () => {
  const root = await tempProject();
  try {
    const dump = "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n" +
      "  package: com.example.app.debug\n    Historical Process Exit for uid=10200\n" +
      "        ApplicationExitInfo #0:\n" +
      "          timestamp=2025-01-01 10:00:02.000 pid=42 realUid=10200 packageUid=10200 " +
      "definingUid=10200 user=0\n" +
      "          process=com.example.app.debug reason=4 (APP CRASH(EXCEPTION)) subreason=0 " +
      "(UNKNOWN) status=0\n" +
      "          importance=100 pss=0.00 rss=120MB description=crash state=empty trace=null\n";
    const adb = new FakeAdb((argv) => {
      if (argv[0] === "getprop") return { out: "35\n" };
      if (argv[0] === "pm") {
        return { out: "package:com.android.settings\npackage:com.example.app.debug\n" };
      }
      if (argv[0] === "dumpsys") return { out: dump };
    });
    const r = await tool("get_exit_reasons").run(
      { device_serial: "emulator-5554" },
      ctxWith(adb, root),
    );
    assertEquals(r.structured.package, "com.example.app.debug");
    assertEquals(r.structured.count, 1);
    assertEquals(r.structured.has_crash_or_anr, true);
    assertStringIncludes(r.text, "get_crash_logs");
    assertStringIncludes(r.text, "APP CRASH(EXCEPTION)");
    // Both builds installed: the caller must choose.
    const both = new FakeAdb((argv) =>
      argv[0] === "pm"
        ? { out: "package:com.example.app\npackage:com.example.app.debug\n" }
        : { out: "35\n" }
    );
    const e = await rejects(
      tool("get_exit_reasons").run({ device_serial: "emulator-5554" }, ctxWith(both, root)),
      "invalid_params",
    );
    assertStringIncludes(e.message, "pass package");
    await rejects(
      tool("get_exit_reasons").run(
        { device_serial: "emulator-5554" },
        ctxWith(new FakeAdb(() => ({}))),
      ),
      "invalid_params",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("grant_runtime_permission reports pm's exception as a tool error", async () => {
  const adb = new FakeAdb((argv) =>
    argv[0] === "pm"
      ? {
        err: "Exception occurred while executing 'grant':\njava.lang.SecurityException: " +
          "Package com.other.app has not requested permission android.permission.CAMERA\n",
        code: 255,
      }
      : undefined
  );
  const e = await rejects(
    tool("grant_runtime_permission").run({
      package: "com.other.app",
      permission: "android.permission.CAMERA",
      device_serial: "emulator-5554",
      allow_foreign_package: true,
    }, ctxWith(adb)),
    "command_failed",
  );
  assertStringIncludes(e.message, "has not requested permission");
  assertEquals(adb.argvs[0], ["pm", "grant", "com.other.app", "android.permission.CAMERA"]);
});

Deno.test("every string parameter refuses hostile values before any device command", async () => {
  const hostile = ["a;reboot", "$(reboot)", "`id`", "a'b", "*", "a\nb", "ü.x", "a b"];
  const base: Record<string, Record<string, unknown>> = {
    dump_app_info: { package: "com.ex.app" },
    get_memory_info: { package: "com.ex.app" },
    get_app_runtime_state: { package: "com.ex.app" },
    get_exit_reasons: { package: "com.ex.app" },
    launch_app: { device_serial: "emulator-5554", package: "com.ex.app", activity: ".Main" },
    stop_app: { device_serial: "emulator-5554", package: "com.ex.app" },
    restart_app: { package: "com.ex.app", device_serial: "emulator-5554" },
    grant_runtime_permission: { package: "com.ex.app", permission: "android.permission.CAMERA" },
    revoke_runtime_permission: { package: "com.ex.app", permission: "android.permission.CAMERA" },
    set_network_state: { device_serial: "emulator-5554", wifi: true },
    set_device_orientation: { device_serial: "emulator-5554", orientation: "portrait" },
    open_deep_link: {
      uri: "https://x.example/",
      package: "com.ex.app",
      device_serial: "emulator-5554",
    },
    open_app_settings: { package: "com.ex.app", device_serial: "emulator-5554" },
  };
  for (const [name, args] of Object.entries(base)) {
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== "string" || key === "orientation") continue;
      // `;`, `$(…)` and quotes are legal in a URI: those reach the device quoted (see e2e).
      const values = key === "uri"
        ? ["https://x/a\nb", "https://x/a b", "https://x/ü", "javascript:x", "myapp://x"]
        : hostile;
      const scoped = "allow_foreign_package" in appsTools.find((t) => t.name === name)!.params;
      for (const bad of values) {
        const adb = new FakeAdb(() => ({}));
        const all = { ...args, [key]: bad, ...(scoped ? { allow_foreign_package: true } : {}) };
        await rejects(tool(name).run(all, ctxWith(adb)), "invalid_params");
        assertEquals(adb.argvs.length, 0, `${name}.${key}=${JSON.stringify(bad)}`);
      }
    }
  }
});
