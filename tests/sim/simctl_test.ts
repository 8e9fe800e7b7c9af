import { assert, assertEquals } from "../assert.ts";
import { hostQuery, RawClient } from "./_raw_client.ts";
import { startSimulator } from "./mod.ts";

const dec = new TextDecoder();

async function exec(port: number, serial: string, cmd: string): Promise<string> {
  using c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(`exec:${cmd}`);
  const all = dec.decode(await c.readAll());
  assert(all.startsWith("OKAY"), `service refused: ${all}`);
  return all.slice(4);
}

/** A command no device service answers (apps, logcat and ui all pass on it). */
const CANNED = "keynobi-canned";
const notFound = (cmd: string) => `/system/bin/sh: ${cmd}: inaccessible or not found\n`;

Deno.test("simctl respond answers a matching argv prefix with the host file's bytes", async () => {
  await using sim = await startSimulator();
  const file = `${sim.root}/canned.txt`;
  await Deno.writeTextFile(file, "package:com.example.one\npackage:com.example.two\n");
  const canned = "package:com.example.one\npackage:com.example.two\n";
  // Before the rule: the device has no such command.
  assertEquals(await exec(sim.port, "emulator-5554", `${CANNED} list packages`), notFound(CANNED));
  assertEquals(
    await exec(sim.port, "emulator-5554", `simctl respond ${CANNED} list packages ${file}`),
    "",
  );
  assertEquals(await exec(sim.port, "emulator-5554", `${CANNED} list packages -3`), canned);
  assertEquals(await exec(sim.port, "emulator-5554", `${CANNED} list packages`), canned);
  // Not a match: a shorter or other argv, or another device.
  assertEquals(await exec(sim.port, "emulator-5554", `${CANNED} list`), notFound(CANNED));
  assertEquals(await exec(sim.port, "emulator-5554", `${CANNED} list apps`), notFound(CANNED));
  assertEquals(await exec(sim.port, "R5CT1234ABC", `${CANNED} list packages`), notFound(CANNED));
  // A rule wins over a service that knows the command; the Simulator method installs one too.
  sim.respond("R5CT1234ABC", ["getprop", "ro.product.model"], file);
  assertEquals(await exec(sim.port, "R5CT1234ABC", "getprop ro.product.model"), canned);
  assertEquals(
    await exec(sim.port, "emulator-5554", "getprop ro.product.model"),
    sim.device("emulator-5554").model + "\n",
  );
  const journal = await sim.readJournal();
  const ctl = journal.find((e) => e.raw.startsWith("simctl respond"));
  assert(ctl && ctl.injection === false);
});

Deno.test("simctl disconnect: a track-devices client sees the device leave and return", async () => {
  await using sim = await startSimulator();
  using tracker = await RawClient.connect(sim.port);
  await tracker.request("host:track-devices");
  assertEquals(await tracker.readText(4), "OKAY");
  const first = await tracker.readProtocolString();
  assert(first.includes("192.168.1.23:5555\tdevice\n"));
  assertEquals(first.split("\n").filter(Boolean).length, 3);

  // A long-running stream on the device is closed by the disconnect.
  using stream = await RawClient.connect(sim.port);
  await stream.request("host:transport:192.168.1.23:5555");
  assertEquals(await stream.readText(4), "OKAY");
  await stream.request("shell,v2,raw:sleep 30");
  assertEquals(await stream.readText(4), "OKAY");

  assertEquals(await exec(sim.port, "192.168.1.23:5555", "simctl disconnect 0.3"), "");
  const gone = await tracker.readProtocolString();
  assert(!gone.includes("192.168.1.23:5555"), gone);
  assertEquals(gone.split("\n").filter(Boolean).length, 2);
  assertEquals((await stream.readAll()).length, 0, "the sleeping stream closes without exit");
  assertEquals(
    await hostQuery(sim.port, "host:transport:192.168.1.23:5555"),
    "FAIL0024device '192.168.1.23:5555' not found",
  );
  assertEquals(sim.devices.length, 2);

  const back = await tracker.readProtocolString();
  assert(back.includes("192.168.1.23:5555\tdevice\n"), back);
  assertEquals(sim.devices.length, 3);
});

Deno.test("track-devices-l sends the long format and a new list on a state change", async () => {
  await using sim = await startSimulator();
  using tracker = await RawClient.connect(sim.port);
  await tracker.request("host:track-devices-l");
  assertEquals(await tracker.readText(4), "OKAY");
  const first = await tracker.readProtocolString();
  assert(first.includes("model:Pixel_7"));
  assertEquals(await exec(sim.port, "emulator-5554", "simctl state offline"), "");
  const next = await tracker.readProtocolString();
  assert(/^emulator-5554 {10}offline transport_id:\d+$/m.test(next), next);
  sim.setState("emulator-5554", "device");
  assert((await tracker.readProtocolString()).includes("emulator-5554          device product:"));
});

Deno.test("simctl features changes the feature set host:features reports", async () => {
  await using sim = await startSimulator();
  assertEquals(await exec(sim.port, "R5CT1234ABC", "simctl features cmd,stat_v2"), "");
  assertEquals(
    await hostQuery(sim.port, "host-serial:R5CT1234ABC:features"),
    "OKAY000bcmd,stat_v2",
  );
  assert((await exec(sim.port, "R5CT1234ABC", "simctl bogus")).startsWith("simctl: usage"));
});

Deno.test("journal records service, raw, argv, injection and unquoted", async () => {
  await using sim = await startSimulator();
  await exec(sim.port, "emulator-5554", "echo 'a;b' 2>/dev/null");
  await exec(sim.port, "emulator-5554", "echo a;id");
  const [quoted, injected] = await sim.readJournal();
  assertEquals(quoted.serial, "emulator-5554");
  assertEquals(quoted.service, "exec");
  assertEquals(quoted.raw, "echo 'a;b' 2>/dev/null");
  assertEquals(quoted.argv, [["echo", "a;b"]]);
  assertEquals(quoted.injection, false);
  assertEquals(quoted.unquoted, [">"]);
  assert(!Number.isNaN(Date.parse(quoted.t)));
  assertEquals(injected.argv, [["echo", "a"], ["id"]]);
  assertEquals(injected.injection, true);
  assertEquals(injected.unquoted, [";"]);
  const lines = (await Deno.readTextFile(sim.journalPath)).trim().split("\n");
  assertEquals(lines.length, 2);
});
