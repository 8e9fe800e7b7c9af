/** The client against the simulator's ADB server over real TCP (tests/sim). */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { AdbClient } from "../../lib/adb/client.ts";
import { parseServerSocketSpec } from "../../lib/adb/server_address.ts";
import { readDeviceInfo } from "../../lib/android/device_info.ts";
import { startSimulator } from "../sim/mod.ts";
import { assertRejectsCode } from "./_fake.ts";

function clientFor(socket: string): AdbClient {
  return new AdbClient({ address: parseServerSocketSpec(socket), startServer: false });
}

Deno.test("AdbClient against the simulator: version, list, shell exit codes", async () => {
  await using sim = await startSimulator();
  const adb = clientFor(sim.adbServerSocket);
  assertEquals(await adb.serverVersion(), 41);
  const devices = await adb.listDevices();
  assertEquals(
    devices.map((d) => d.serial).sort(),
    sim.devices.map((d) => d.serial).sort(),
  );
  const emu = devices.find((d) => d.serial === "emulator-5554");
  assertEquals(emu?.kind, "emulator");
  assertEquals(devices.find((d) => d.serial === "192.168.1.23:5555")?.kind, "wireless");

  const ok = await adb.shell("emulator-5554", ["echo", "hello world"]);
  assertEquals(ok.text(), "hello world\n");
  assertEquals(ok.exitCode, 0);
  const fail = await adb.shell("emulator-5554", ["sh", "-c", "echo oops >&2; exit 3"]);
  assertEquals(fail.exitCode, 3);
  assertEquals(new TextDecoder().decode(fail.stderr), "oops\n");
});

Deno.test("AdbClient against the simulator: hostile arguments never inject", async () => {
  await using sim = await startSimulator();
  const adb = clientFor(sim.adbServerSocket);
  const hostile = [
    "a; reboot",
    "$(id)",
    "`id`",
    "x | cat /etc/passwd",
    "a && b",
    "*",
    "it's",
    'say "hi"',
    "line1\nline2",
    "~",
    "",
  ];
  for (const h of hostile) {
    const r = await adb.shell("emulator-5554", ["echo", h]);
    assertEquals(r.text(), `${h}\n`, `echo ${JSON.stringify(h)}`);
  }
  const journal = await sim.readJournal();
  assert(journal.length >= hostile.length, "commands were journalled");
  const injected = journal.filter((e) => e.injection);
  assertEquals(injected, [], "no journal entry with injection: true");
});

Deno.test("AdbClient against the simulator: v1 fallback after simctl features", async () => {
  await using sim = await startSimulator();
  const adb = clientFor(sim.adbServerSocket);
  const r = await adb.shell("emulator-5554", ["simctl", "features", "cmd"]);
  assertEquals(r.exitCode, 0);
  // Features change only when a device reconnects on real hardware; a new client reads them anew.
  const fresh = clientFor(sim.adbServerSocket);
  const v1 = await fresh.shell("emulator-5554", ["echo", "a b"]);
  assertEquals(v1.exitCode, null);
  assertEquals(v1.text(), "a b\n");
  const last = (await sim.readJournal()).at(-1);
  assertEquals(last?.service, "shell");
});

Deno.test("AdbClient against the simulator: getprop → device info, and error codes", async () => {
  await using sim = await startSimulator();
  const adb = clientFor(sim.adbServerSocket);
  const info = await readDeviceInfo(adb, "emulator-5554");
  const summary = sim.devices.find((d) => d.serial === "emulator-5554")!;
  assertEquals(info.api_level, summary.api);
  assertEquals(info.emulator, true);
  assertEquals(info.kind, "emulator");
  assert(info.model !== null, "model read from getprop");
  assert(info.screen.width !== null && info.screen.width > 0, "wm size parsed");

  const missing = await assertRejectsCode(adb.shell("nope-123", ["true"]), "device_not_found");
  assertStringIncludes(missing.message, "emulator-5554");
  sim.setState("192.168.1.23:5555", "offline");
  await assertRejectsCode(adb.shell("192.168.1.23:5555", ["true"]), "device_offline");
  sim.setState("192.168.1.23:5555", "unauthorized");
  await assertRejectsCode(adb.shell("192.168.1.23:5555", ["true"]), "device_unauthorized");
});

Deno.test("AdbClient against the simulator: a stream can be closed mid-command", async () => {
  await using sim = await startSimulator();
  const adb = clientFor(sim.adbServerSocket);
  const s = await adb.openShellStream("emulator-5554", ["echo", "streamed"]);
  assertEquals(await new Response(s.stdout).text(), "streamed\n");
  assertEquals(await s.exitCode, 0);
  await s.close();
});
