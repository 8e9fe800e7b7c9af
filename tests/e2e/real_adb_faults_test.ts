/**
 * Faults a user meets through Google's ADB server (Debian's `adb` in front of the simulated
 * devices): a device that drops in the middle of a capture and of an install, the server killed
 * (`adb kill-server`) under a logcat stream and started again, and the user's own `adb shell` on
 * the device keynobi is streaming. Each answer is the documented error or recovery, and nothing
 * already read is lost. Skipped, with a note, when adb is not installed.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  call,
  type CallResult,
  connect,
  E2E_WAIT,
  errorOf,
  haveAdb,
  json,
  listedAs,
  ok,
  simLogcat,
  startWorld,
} from "./harness.ts";
import { pollUntil } from "../wait.ts";
import { SAMPLE_PACKAGE, sampleApkBytes } from "../sim/apps/sample.ts";
import type { AppsService } from "../sim/apps/service.ts";
if (!haveAdb) {
  console.error("real_adb_faults_test: no adb installed (apt-get install adb): skipping");
}
const opts = { ignore: !haveAdb, sanitizeResources: false, sanitizeOps: false };

/**
 * What a call answers when its device vanished under it (never "the screen may be secure"): the
 * real server lists a dropped transport `offline` for a moment before it forgets it, so either.
 */
function assertGone(r: CallResult, serial: string, what: string) {
  const text = r.content[0].text!;
  assertEquals(r.isError, true, text);
  assert(["device_not_found", "device_offline"].includes(errorOf(r).code), text);
  assert(
    text.includes(`Device '${serial}' disconnected during ${what}`) ||
      text.includes(`Device '${serial}' became offline during ${what}`),
    text,
  );
}

/** get_crash_logs and get_logcat_stats, as these tests read them. */
interface LogcatAnswer {
  total_crashes: number;
  devices: { state: string }[];
}

const sc = json<LogcatAnswer>;

/** A named pipe: a device command that prints it blocks until the test writes to it. */
async function fifo(dir: string, name: string): Promise<{ path: string; release(): void }> {
  const path = join(dir, name);
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assertEquals(made.code, 0, "mkfifo");
  return {
    path,
    release: () => {
      // Opening for writing (non-blocking would fail without a reader: open in the background).
      Deno.open(path, { write: true }).then((f) => f.close()).catch(() => {});
    },
  };
}

Deno.test({
  name: "real server: a device that drops mid-capture and mid-install, then comes back",
  ...opts,
  fn: async () => {
    await using world = await startWorld({ realAdb: true });
    const project = world.sim.projects["sample-kts"];
    const outputs = join(project, "app", "build", "outputs", "apk", "demo", "debug");
    await Deno.mkdir(outputs, { recursive: true });
    await Deno.writeFile(join(outputs, "app-demo-debug.apk"), sampleApkBytes());
    await using s = await connect(world, ["--project", project]);
    const emu = world.sim.serialOf("emulator-5554");

    // The capture: screencap blocks on the device until the device drops.
    const shotPipe = await fifo(world.sim.root, "screencap.fifo");
    world.sim.respond(emu, ["screencap"], shotPipe.path);
    const shot = call(s, "screenshot", { device_serial: emu });
    await pollUntil(
      () => world.sim.readJournal(),
      (j) => j.some((e) => e.raw.startsWith("screencap")),
      "screencap running",
      E2E_WAIT,
    );
    world.sim.disconnect(emu, 2);
    assertGone(await shot, emu, "the screenshot");
    shotPipe.release();

    await listedAs(s, emu, "device");
    world.sim.device(emu).responders = [];
    const again = await call(s, "screenshot", { device_serial: emu });
    ok(again, "screenshot after the device came back");
    assertEquals(again.content[0].type, "image");

    // The install: the package manager never answers until the device drops.
    const pmPipe = await fifo(world.sim.root, "install.fifo");
    world.sim.respond(emu, ["cmd", "package", "install"], pmPipe.path);
    const install = call(s, "install_apk", {
      device_serial: emu,
      apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
    });
    await pollUntil(
      () => world.sim.readJournal(),
      (j) => j.some((e) => e.raw.startsWith("cmd package install")),
      "install running",
      E2E_WAIT,
    );
    world.sim.disconnect(emu, 2);
    assertGone(await install, emu, "the install");
    pmPipe.release();
    const apps = world.sim.device(emu).service<AppsService>("apps")!;
    const before = apps.packages.get(SAMPLE_PACKAGE)?.lastUpdateTime;

    await listedAs(s, emu, "device");
    world.sim.device(emu).responders = [];
    ok(
      await call(s, "install_apk", {
        device_serial: emu,
        apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
      }),
      "install after the device came back",
    );
    assert(apps.packages.get(SAMPLE_PACKAGE)!.lastUpdateTime !== before, "installed again");
  },
});

Deno.test({
  name: "real server: adb kill-server under a logcat stream, the server back, nothing lost",
  ...opts,
  fn: async () => {
    await using world = await startWorld({ realAdb: true });
    await using s = await connect(world, []);
    const emu = world.sim.serialOf("emulator-5554");
    const logcat = simLogcat(world, emu);
    logcat.setRate(0);
    ok(await call(s, "start_logcat", { device_serial: emu }), "start_logcat");
    logcat.crash("com.example.crashy", "java");
    await pollUntil(
      () => call(s, "get_crash_logs", {}),
      (x) => sc(x)?.total_crashes === 1,
      "the first crash",
      E2E_WAIT,
    );

    await world.sim.realAdb!.kill();
    const down = await call(s, "list_devices");
    assertEquals(down.isError, true, down.content[0].text);
    assertEquals(errorOf(down).code, "adb_unavailable", down.content[0].text);
    assertStringIncludes(down.content[0].text!, "adb");
    const ended = await pollUntil(
      () => call(s, "get_logcat_stats"),
      (x) => sc(x).devices[0].state !== "streaming",
      "the stream ended with the server",
      E2E_WAIT,
    );
    assertStringIncludes(ended.content[0].text!, "start_logcat");
    ok(await call(s, "get_crash_logs", {}), "what was read stays readable");

    await world.sim.restartRealAdb();
    await listedAs(s, emu, "device");
    ok(await call(s, "start_logcat", { device_serial: emu }), "start_logcat after the restart");
    logcat.crash("com.example.crashy", "java");
    const both = await pollUntil(
      () => call(s, "get_crash_logs", {}),
      (x) => sc(x)?.total_crashes >= 2,
      "the crash after the restart",
      E2E_WAIT,
    );
    assertEquals(sc(both).total_crashes, 2, "the replayed buffer stored nothing twice");
  },
});

Deno.test({
  name: "real server: the user's own adb shell and logcat on the device keynobi streams",
  ...opts,
  fn: async () => {
    await using world = await startWorld({ realAdb: true });
    await using s = await connect(world, []);
    const emu = world.sim.serialOf("emulator-5554");
    const adb = world.sim.realAdb!;
    const logcat = simLogcat(world, emu);
    logcat.setRate(0);
    ok(await call(s, "start_logcat", { device_serial: emu }), "start_logcat");
    // The user, in a terminal, at the same time.
    const [mine, theirs, dump] = await Promise.all([
      call(s, "get_device_info", { device_serial: emu }),
      adb.cli(["-s", emu, "shell", "getprop", "ro.product.model"]),
      // (`adb logcat` itself sends `export ANDROID_LOG_TAGS=''; exec logcat`, which the journal
      // would flag: its metacharacters are the CLI's, not keynobi's.)
      adb.cli(["-s", emu, "shell", "logcat", "-d"]),
    ]);
    ok(mine, "get_device_info beside the user's shell");
    assertEquals(theirs.stdout, `${world.sim.device(emu).model}\n`);
    assertEquals(dump.code, 0, dump.stderr);
    logcat.crash("com.example.crashy", "java");
    await pollUntil(
      () => call(s, "get_crash_logs", {}),
      (x) => sc(x)?.total_crashes === 1,
      "keynobi's stream still reads",
      E2E_WAIT,
    );
    const stats = ok<LogcatAnswer>(await call(s, "get_logcat_stats"), "stats");
    assertEquals(stats.devices[0].state, "streaming");
  },
});
