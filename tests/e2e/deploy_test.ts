/**
 * install_apk, the run-configuration tools and the AVD tools through the real entry point against
 * the simulator. The tests that need the simulator's apps world (installs, `am start`, the fake
 * emulator) are skipped, with a note, while tests/sim/services.ts does not attach it.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  errorOf,
  runKeynobi,
  startWorld,
  trusted,
  type World,
} from "./harness.ts";
import { apkBytes } from "../sim/gradle/artifacts.ts";

const PROJECT = "sample-kts";
const HOSTILE = "x'; reboot; $(id) `id` * \" \n ü";

async function installCommands(world: World) {
  return (await world.sim.readJournal()).filter((e) =>
    e.raw.includes("install") || e.raw.includes("am start")
  );
}

Deno.test("install_apk refuses paths outside build outputs, symlinks out, non-APKs, hostile strings", async () => {
  await using world = await startWorld();
  const project = world.sim.projects[PROJECT];
  const outputs = join(project, "app", "build", "outputs", "apk", "debug");
  await Deno.mkdir(outputs, { recursive: true });
  const outside = join(world.home, "evil.apk");
  await Deno.writeTextFile(outside, "EVIL");
  await Deno.symlink(outside, join(outputs, "link.apk"));
  await Deno.writeTextFile(join(outputs, "readme.txt"), "x");
  await Deno.writeTextFile(join(project, "app", "stray.apk"), "x");
  await using s = await connect(world, ["--project", project]);
  for (
    const apk_path of [
      "app/build/outputs/apk/debug/link.apk",
      outside,
      "app/build/outputs/apk/debug/readme.txt",
      "app/stray.apk",
      HOSTILE,
    ]
  ) {
    const r = await call(s, "install_apk", { device_serial: "emulator-5554", apk_path });
    assertEquals(r.isError, true, apk_path);
    assertEquals(errorOf(r).code, "invalid_params", `${apk_path}: ${r.content[0].text}`);
  }
  const bad = await call(s, "install_apk", {
    device_serial: HOSTILE,
    apk_path: "app/build/outputs/apk/debug/link.apk",
  });
  assertEquals(errorOf(bad).code, "invalid_params");
  assertEquals((await installCommands(world)).length, 0, "nothing reached the device");
  await assertNoInjection(world.sim);
});

Deno.test("run configurations: listed on first read; untrusted and unknown names refused", async () => {
  await using world = await startWorld();
  const project = world.sim.projects[PROJECT];
  await using s = await connect(world, ["--project", project]);
  const list = await call(s, "list_run_configurations");
  assert(!list.isError, list.content[0].text);
  const configs = list.structuredContent!.configurations as Record<string, unknown>[];
  assert(configs.length > 0, "created on first read");
  assert(configs.every((c) => typeof c.cannot_run === "string"), "untrusted: none can run");
  const name = configs[0].name as string;
  const run = await call(s, "run_run_configuration", { name, device_serial: "emulator-5554" });
  assertEquals(errorOf(run).code, "invalid_params");
  assertStringIncludes(run.content[0].text!, "keynobi trust");
  const build = await call(s, "build_run_configuration", { name });
  assertEquals(errorOf(build).code, "invalid_params");
  await trusted(world);
  const unknown = await call(s, "run_run_configuration", { name: HOSTILE });
  assertEquals(errorOf(unknown).code, "invalid_params");
  const hostileSerial = await call(s, "run_run_configuration", { name, device_serial: HOSTILE });
  assertEquals(errorOf(hostileSerial).code, "invalid_params");
  assertEquals((await world.sim.gradle(PROJECT).readJournal()).length, 0, "gradlew never ran");
  assertEquals((await installCommands(world)).length, 0);
  await assertNoInjection(world.sim);
});

Deno.test("approve-configurations pins the shared file's hash", async () => {
  await using world = await startWorld();
  const project = world.sim.projects[PROJECT];
  await Deno.mkdir(join(project, ".keynobi"));
  const file = join(project, ".keynobi", "run-configurations.json");
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      configurations: [{ name: "Shared demo", module: ":app", variant: "demoDebug" }],
    }),
  );
  await trusted(world);
  await using s = await connect(world, ["--project", project]);
  const before = await call(s, "build_run_configuration", { name: "Shared demo" });
  assertEquals(errorOf(before).code, "invalid_request");
  assertStringIncludes(before.content[0].text!, "approve-configurations");
  const ok = await runKeynobi(world, ["approve-configurations", project]);
  assertEquals(ok.code, 0, ok.stderr);
  assertStringIncludes(ok.stdout, "Shared demo");
  const listed = await call(s, "list_run_configurations");
  assertEquals(listed.structuredContent!.shared_approved, true);
  await Deno.writeTextFile(file, (await Deno.readTextFile(file)) + "\n");
  const after = await call(s, "list_run_configurations");
  assertEquals(after.structuredContent!.shared_approved, false);
  assertEquals((await world.sim.gradle(PROJECT).readJournal()).length, 0);
});

Deno.test({
  name: "run_run_configuration builds sample-kts, installs on emulator-5554, launches with timing",
  async fn() {
    await using world = await startWorld();
    const project = await trusted(world);
    await world.sim.gradle(PROJECT).setTaskDelay(0);
    await using s = await connect(world, ["--project", project]);
    const list = await call(s, "list_run_configurations");
    const configs = list.structuredContent!.configurations as Record<string, unknown>[];
    const demo = configs.find((c) => c.variant === "demoDebug") ?? configs[0];
    const progress: string[] = [];
    const r = await s.client.callTool(
      {
        name: "run_run_configuration",
        arguments: { name: demo.name, device_serial: "emulator-5554" },
      },
      undefined,
      {
        onprogress: (p: { message?: string }) => void progress.push(p.message ?? ""),
        timeout: 120_000,
      },
    ) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent: Record<string, unknown>;
    };
    assert(!r.isError, r.content[0].text);
    const sc = r.structuredContent;
    assertEquals(sc.outcome, "done");
    assertEquals((sc.device as Record<string, unknown>).serial, "emulator-5554");
    assertEquals(sc.apk_written_by_this_build, true);
    const timing = sc.launch_timing as Record<string, unknown>;
    assert(typeof timing.total_ms === "number", JSON.stringify(timing));
    // A cold or warm start logs `Displayed` for exactly this package (the simulator's launch
    // times: cold 812 ms, warm 364 ms); a hot one logs none.
    const displayed: Record<string, number | null> = { COLD: 812, WARM: 364, HOT: null };
    assertEquals(
      timing.displayed_ms,
      displayed[timing.launch_state as string],
      JSON.stringify(timing),
    );
    assertEquals(timing.total_ms, displayed[timing.launch_state as string] ?? 158);
    // The sample app reports itself fully drawn 410 ms after its first frame.
    const full = displayed[timing.launch_state as string];
    assertEquals(timing.fully_drawn_ms, full === null ? null : full + 410, JSON.stringify(timing));
    assert(progress.some((m) => m.startsWith("installing")), progress.join("|"));
    assert(progress.includes("done"), progress.join("|"));
    const diag = JSON.stringify(sc).slice(0, 2000);
    const installed = JSON.parse(
      await Deno.readTextFile(join(world.dataDir, "installed-builds.json")),
    );
    assertEquals(installed.installs[0].apk_sha256, sc.apk_sha256, diag);
    assertEquals(installed.installs[0].build_id, sc.build_id, diag);
    assertStringIncludes(r.content[0].text, "Recorded ");
    // The install opened a debug session with the build and the launch it timed.
    const sessions = await call(s, "list_debug_sessions", { package: sc.package as string });
    const opened = (sessions.structuredContent!.sessions as Record<string, unknown>[])[0];
    assertEquals(opened.build_id, sc.build_id);
    const detail = await call(s, "get_debug_session", { session_id: opened.id as string });
    const timeline = detail.structuredContent!.timeline as {
      kind: string;
      data: Record<string, unknown>;
    }[];
    const launch = timeline.find((e) => e.kind === "launch")!;
    assertEquals(launch.data.total_ms, timing.total_ms);
    assert(
      timeline.some((e) => e.kind === "agentAction" && e.data.tool === "run_run_configuration"),
      JSON.stringify(timeline.map((e) => e.kind)),
    );
    // install_apk of the same file records it against that build too.
    const again = await call(s, "install_apk", {
      device_serial: "emulator-5554",
      apk_path: sc.apk_path as string,
    });
    assert(!again.isError, again.content[0].text);
    assertEquals(again.structuredContent!.build_id, sc.build_id);
    const foreign = await call(s, "install_apk", {
      device_serial: "emulator-5999",
      apk_path: sc.apk_path as string,
    });
    assertEquals(foreign.isError, true);
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "launch_avd brings up Small_Phone_API_34 and stop_avd powers it off",
  async fn() {
    await using world = await startWorld();
    await using s = await connect(world, []);
    const list = await call(s, "list_avds");
    assert(!list.isError, list.content[0].text);
    const names = (list.structuredContent!.avds as { name: string }[]).map((a) => a.name);
    assert(names.includes("Small_Phone_API_34"), names.join(","));
    const bad = await call(s, "launch_avd", { name: HOSTILE });
    assertEquals(errorOf(bad).code, "invalid_params");
    const r = await call(s, "launch_avd", { name: "Small_Phone_API_34" });
    assert(!r.isError, r.content[0].text);
    const serial = r.structuredContent!.serial as string;
    assertEquals(r.structuredContent!.already_running, false);
    const again = await call(s, "launch_avd", { name: "Small_Phone_API_34" });
    assertEquals(again.structuredContent!.already_running, true);
    assertEquals(again.structuredContent!.serial, serial);
    const notEmu = await call(s, "stop_avd", { serial: HOSTILE });
    assertEquals(errorOf(notEmu).code, "invalid_params");
    const stop = await call(s, "stop_avd", { serial });
    assert(!stop.isError, stop.content[0].text);
    assert(!world.sim.devices.some((d) => d.serial === serial));
    await assertNoInjection(world.sim);
  },
});

Deno.test("install_apk applies the package scope to the APK's own package", async () => {
  await using world = await startWorld();
  // An untrusted project with a committed APK of another package under its build outputs.
  const project = world.sim.projects[PROJECT];
  const out = `${project}/app/build/outputs/apk/demo/debug`;
  await Deno.mkdir(out, { recursive: true });
  await Deno.writeFile(
    `${out}/settings.apk`,
    apkBytes({
      variant: {
        name: "demoDebug",
        cap: "DemoDebug",
        flavor: "demo",
        buildType: { name: "debug" },
        applicationId: "com.android.settings",
        versionName: "1.0",
      },
      versionCode: 1000,
      minSdk: 24,
      launcherActivity: "com.android.settings.Settings",
      build: 1,
    }),
  );
  await using s = await connect(world, ["--project", project]);
  const before = (await installCommands(world)).length;
  const r = await call(s, "install_apk", {
    device_serial: "emulator-5554",
    apk_path: "app/build/outputs/apk/demo/debug/settings.apk",
  });
  assertEquals(errorOf(r).code, "invalid_params", r.content[0].text);
  assertStringIncludes(r.content[0].text!, "com.android.settings");
  assertStringIncludes(r.content[0].text!, "allow_foreign_package");
  assertEquals((await installCommands(world)).length, before, "nothing was installed");
  await assertNoInjection(world.sim);
});
