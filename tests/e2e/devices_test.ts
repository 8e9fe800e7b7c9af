/** list_devices and get_device_info through the real entry point against the simulator. */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { assertNoInjection, call, connect, E2E_WAIT, startWorld } from "./harness.ts";
import { waitUntil } from "../wait.ts";

Deno.test("list_devices reports every simulated device with its state and kind", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const r = await call(s, "list_devices");
  assert(!r.isError, r.content[0].text);
  const devices = r.structuredContent!.devices as Record<string, unknown>[];
  const bySerial = new Map(devices.map((d) => [d.serial, d]));
  for (const d of world.sim.devices) {
    const got = bySerial.get(d.serial)!;
    assertEquals(got.state, d.state, d.serial);
    assertEquals(got.kind, d.kind, d.serial);
    assertStringIncludes(r.content[0].text!, d.serial);
  }
  assertEquals(r.structuredContent!.count, world.sim.devices.length);

  world.sim.setState("R5CT1234ABC", "unauthorized");
  const again = await call(s, "list_devices");
  const usb = (again.structuredContent!.devices as Record<string, unknown>[])
    .find((d) => d.serial === "R5CT1234ABC")!;
  assertEquals(usb.state, "unauthorized");
  assertEquals(again.structuredContent!.online, world.sim.devices.length - 1);
  await assertNoInjection(world.sim);
});

Deno.test("get_device_info matches the simulated device's properties", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  for (const d of world.sim.devices) {
    const dev = world.sim.device(d.serial);
    const r = await call(s, "get_device_info", { device_serial: d.serial });
    assert(!r.isError, r.content[0].text);
    const info = r.structuredContent!;
    assertEquals(info.model, dev.props.get("ro.product.model"));
    assertEquals(info.manufacturer, dev.props.get("ro.product.manufacturer"));
    assertEquals(info.api_level, Number(dev.props.get("ro.build.version.sdk")));
    assertEquals(info.android_version, dev.props.get("ro.build.version.release"));
    assertEquals(info.abi, dev.props.get("ro.product.cpu.abi"));
    const screen = info.screen as Record<string, unknown>;
    assertEquals([screen.width, screen.height, screen.density], [
      dev.screen.width,
      dev.screen.height,
      dev.screen.density,
    ]);
    assertEquals(info.emulator, d.kind === "emulator");
    assertEquals(
      info.avd_name,
      d.kind === "emulator" ? dev.props.get("ro.boot.qemu.avd_name") : null,
    );
    const battery = info.battery as Record<string, unknown>;
    assertEquals(battery.level, dev.battery.level);
  }
  await assertNoInjection(world.sim);
});

Deno.test("get_device_info refuses hostile and unknown serials before any device command", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const before = (await world.sim.readJournal()).length;
  for (
    const serial of [
      "emulator-5554; reboot",
      "$(reboot)",
      "`id`",
      "emulator-5554\nreboot",
      "a b",
      "'",
      "*",
      "x".repeat(300),
    ]
  ) {
    const r = await call(s, "get_device_info", { device_serial: serial });
    assertEquals(r.isError, true, serial);
    assertEquals((r.structuredContent!.error as Record<string, unknown>).code, "invalid_params");
  }
  assertEquals((await world.sim.readJournal()).length, before, "no device command ran");
  const missing = await call(s, "get_device_info", { device_serial: "emulator-5556" });
  assertEquals(missing.isError, true);
  assertEquals(
    (missing.structuredContent!.error as Record<string, unknown>).code,
    "device_not_found",
  );
  assertStringIncludes(missing.content[0].text!, "emulator-5554");
  await assertNoInjection(world.sim);
});

Deno.test("get_device_info without a serial needs exactly one online device", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const many = await call(s, "get_device_info");
  assertEquals(many.isError, true);
  assertStringIncludes(many.content[0].text!, "device_serial");
  world.sim.setState("R5CT1234ABC", "offline");
  world.sim.setState("192.168.1.23:5555", "offline");
  const one = await call(s, "get_device_info");
  assert(!one.isError, one.content[0].text);
  assertEquals(one.structuredContent!.serial, "emulator-5554");
});

Deno.test("a device that drops off mid-session gives an actionable error, then recovers", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  // Gone for 5 s: long enough that the call below, on a loaded machine, still finds it gone
  // (1 s was not: under the full suite at load 16 the call came after the device was back).
  world.sim.disconnect("emulator-5554", 5);
  const gone = await call(s, "get_device_info", { device_serial: "emulator-5554" });
  assertEquals(gone.isError, true);
  assertEquals((gone.structuredContent!.error as Record<string, unknown>).code, "device_not_found");
  await waitUntil(
    () => world.sim.devices.some((d) => d.serial === "emulator-5554"),
    "emulator-5554 back on the simulator's list",
    E2E_WAIT,
  );
  const back = await call(s, "get_device_info", { device_serial: "emulator-5554" });
  assert(!back.isError, back.content[0].text);
});

Deno.test("a malformed ADB_SERVER_SOCKET is an actionable tool error, not a dead server", async () => {
  await using world = await startWorld();
  world.env.ADB_SERVER_SOCKET = "tcp:not a host:port";
  await using s = await connect(world, ["--project", world.sim.projects["sample-kts"]]);
  const r = await call(s, "list_devices");
  assertEquals(r.isError, true);
  assertEquals((r.structuredContent!.error as Record<string, unknown>).code, "adb_unavailable");
  assertStringIncludes(r.content[0].text!, "ADB_SERVER_SOCKET");
  const info = await call(s, "get_project_info");
  assert(!info.isError, "project tools keep working");
});

Deno.test("an ADB server that is not running on a remote address says so", async () => {
  await using world = await startWorld();
  // A closed port on loopback, given as a non-default address: keynobi must not start a server.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  world.env.ADB_SERVER_SOCKET = `tcp:127.0.0.1:${port}`;
  world.env.ANDROID_HOME = `${world.home}/no-sdk`;
  world.env.PATH = "/nonexistent";
  await using s = await connect(world, []);
  const r = await call(s, "list_devices");
  assertEquals(r.isError, true);
  assertEquals((r.structuredContent!.error as Record<string, unknown>).code, "adb_unavailable");
  assertStringIncludes(r.content[0].text!, "adb");
});
