/**
 * The device tools twice: once with the simulator's own ADB server, once through Google's
 * (Debian's `adb`, tests/sim/real_adb_front.ts) in front of the same simulated devices — devices,
 * deploy, logcat across a device drop, UI, screenshots, exit reasons. What differs between the
 * two servers (serials, the order and timing of state changes) is read from the simulator, never
 * assumed. The real-server half skips, with a note, when adb is not installed.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  type DeviceList,
  E2E_WAIT,
  errorOf,
  haveAdb,
  json,
  listedAs as listed,
  ok,
  rows,
  simLogcat,
  startWorld,
  uiOf,
} from "./harness.ts";
import type { World } from "./harness.ts";
import { pollUntil } from "../wait.ts";
import { SAMPLE_PACKAGE, sampleApkBytes } from "../sim/apps/sample.ts";
import type { AppsService } from "../sim/apps/service.ts";
if (!haveAdb) {
  console.error("real_adb_test: no adb installed (apt-get install adb): real half skipped");
}

const MODES = [
  { name: "simulator's server", realAdb: false, ignore: false },
  { name: "Google's server", realAdb: true, ignore: !haveAdb },
];

interface DeviceInfo {
  model: string;
  api_level: number;
  emulator: boolean;
  screen: { width: number };
}

/** get_crash_logs and get_logcat_stats, as these tests read them. */
interface LogcatAnswer {
  total_crashes: number;
  devices: { state: string; reason?: string }[];
}

interface Serials {
  emu: string;
  phone: string;
  pixel: string;
}

function serials(world: World): Serials {
  return {
    emu: world.sim.serialOf("emulator-5554"),
    phone: world.sim.serialOf("R5CT1234ABC"),
    pixel: world.sim.serialOf("192.168.1.23:5555"),
  };
}

for (const mode of MODES) {
  const opts = { ignore: mode.ignore, sanitizeResources: false, sanitizeOps: false };

  Deno.test({
    name: `${mode.name}: list_devices and get_device_info, an unauthorized device`,
    ...opts,
    fn: async () => {
      await using world = await startWorld({ realAdb: mode.realAdb });
      await using s = await connect(world, []);
      const { emu, pixel } = serials(world);
      const r = ok<DeviceList>(await call(s, "list_devices"), "list_devices");
      const bySerial = new Map(r.devices.map((d) => [d.serial, d]));
      assertEquals(r.count, world.sim.devices.length);
      for (const d of world.sim.devices) {
        assertEquals(bySerial.get(d.serial)?.state, "device", d.serial);
        assertEquals(bySerial.get(d.serial)?.kind, d.kind, d.serial);
      }
      const info = ok<DeviceInfo>(await call(s, "get_device_info", { device_serial: emu }), "info");
      const dev = world.sim.device(emu);
      assertEquals(info.model, dev.props.get("ro.product.model"));
      assertEquals(info.api_level, dev.api);
      assertEquals(info.emulator, true);
      assertEquals(info.screen.width, dev.screen.width);

      world.sim.setState(pixel, "unauthorized");
      await listed(s, pixel, "unauthorized", `${pixel} unauthorized`);
      const denied = await call(s, "get_device_info", { device_serial: pixel });
      assertEquals(errorOf(denied)?.code, "device_unauthorized", denied.content[0].text);
      world.sim.setState(pixel, "device");
      await listed(s, pixel, "device", `${pixel} authorized again`);
      ok(await call(s, "get_device_info", { device_serial: pixel }), "info after authorizing");
      await assertNoInjection(world.sim);
    },
  });

  Deno.test({
    name: `${mode.name}: install_apk streams the APK, launch_app, a crash in get_exit_reasons`,
    ...opts,
    fn: async () => {
      await using world = await startWorld({ realAdb: mode.realAdb });
      const project = world.sim.projects["sample-kts"];
      const outputs = join(project, "app", "build", "outputs", "apk", "demo", "debug");
      await Deno.mkdir(outputs, { recursive: true });
      await Deno.writeFile(join(outputs, "app-demo-debug.apk"), sampleApkBytes());
      await using s = await connect(world, ["--project", project]);
      const { phone } = serials(world);
      const r = await call(s, "install_apk", {
        device_serial: phone,
        apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
      });
      ok(r, "install_apk");
      const apps = world.sim.device(phone).service<AppsService>("apps")!;
      assert(apps.packages.has(SAMPLE_PACKAGE), "installed on the device");
      const installs = (await world.sim.readJournal()).filter((e) => e.raw.includes("install"));
      assert(installs.some((e) => e.serial === phone && / -S \d+$/.test(e.raw)), "streamed");
      ok(
        await call(s, "launch_app", {
          device_serial: phone,
          package: SAMPLE_PACKAGE,
        }),
        "launch_app",
      );
      assert(apps.pidOf(SAMPLE_PACKAGE) !== null, "the app runs");
      assert(apps.crash(SAMPLE_PACKAGE), "the simulator crashed the app");
      const exits = ok<{ has_crash_or_anr: boolean; records: { reason_code: number }[] }>(
        await call(s, "get_exit_reasons", { device_serial: phone, package: SAMPLE_PACKAGE }),
        "get_exit_reasons",
      );
      assertEquals(exits.has_crash_or_anr, true);
      assertEquals(exits.records[0].reason_code, 4);
      await assertNoInjection(world.sim);
    },
  });

  Deno.test({
    name: `${mode.name}: logcat ends with a device that drops and resumes without losing lines`,
    ...opts,
    fn: async () => {
      await using world = await startWorld({ realAdb: mode.realAdb });
      await using s = await connect(world, []);
      const { emu } = serials(world);
      const logcat = simLogcat(world, emu);
      logcat.setRate(0);
      ok(await call(s, "start_logcat", { device_serial: emu }), "start_logcat");
      logcat.crash("com.example.crashy", "java");
      await pollUntil(
        () => call(s, "get_crash_logs", {}),
        (x) => json<LogcatAnswer>(x)?.total_crashes === 1,
        "the first crash",
        E2E_WAIT,
      );
      world.sim.disconnect(emu, 1);
      const ended = await pollUntil(
        () => call(s, "get_logcat_stats"),
        (x) => {
          const d = json<LogcatAnswer>(x).devices[0];
          return d.state !== "streaming" && typeof d.reason === "string";
        },
        "the stream ended with the device, and why",
        E2E_WAIT,
      );
      assertStringIncludes(ended.content[0].text!, "start_logcat");
      await listed(s, emu, "device", `${emu} back`);
      ok(await call(s, "start_logcat", { device_serial: emu }), "start_logcat again");
      logcat.crash("com.example.crashy", "java");
      const both = await pollUntil(
        () => call(s, "get_crash_logs", {}),
        (x) => json<LogcatAnswer>(x)?.total_crashes >= 2,
        "the second crash after the device came back",
        E2E_WAIT,
      );
      assertEquals(
        json<LogcatAnswer>(both).total_crashes,
        2,
        "the replay stored nothing twice",
      );
      await assertNoInjection(world.sim);
    },
  });

  Deno.test({
    name: `${mode.name}: read the screen, tap by handle, type, and a screenshot`,
    ...opts,
    fn: async () => {
      await using world = await startWorld({ realAdb: mode.realAdb });
      await using s = await connect(world, []);
      const { emu } = serials(world);
      const ui = uiOf(world, emu);
      const home = ok(await call(s, "get_ui_hierarchy", { device_serial: emu }), "read");
      const signIn = rows(home).find((r) => r.label.startsWith("Sign in"));
      assert(signIn, "a Sign in row");
      const form = ok(
        await call(s, "ui_tap_element", { device_serial: emu, tree_path: signIn.handle }),
        "tap",
      );
      assertEquals(ui.state().screen, "form");
      const email = rows(form).find((r) => r.resource_id === "email")!;
      ok(
        await call(s, "ui_fill_input", {
          device_serial: emu,
          tree_path: email.handle,
          text: "o'brien+1@example.com",
        }),
        "fill",
      );
      assertEquals(ui.state().fields.email, "o'brien+1@example.com");
      const shot = await call(s, "screenshot", { device_serial: emu });
      ok(shot, "screenshot");
      assertEquals(shot.content.map((c) => c.type), ["image", "text"]);
      const meta = JSON.parse(shot.content[1].text!);
      const dev = world.sim.device(emu);
      assertEquals([meta.deviceWidth, meta.deviceHeight], [dev.screen.width, dev.screen.height]);
      await assertNoInjection(world.sim);
    },
  });
}
