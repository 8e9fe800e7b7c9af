import { assert, assertEquals } from "../assert.ts";
import { hostQuery, RawClient } from "./_raw_client.ts";
import { deviceListText, sanitizeModel, splitHostSerial } from "./adb_server.ts";
import { startSimulator } from "./mod.ts";
import { protocolString } from "./wire.ts";

const dec = new TextDecoder();

Deno.test("host:version answers OKAY00040029 byte-exact", async () => {
  await using sim = await startSimulator();
  assertEquals(await hostQuery(sim.port, "host:version"), "OKAY00040029");
});

Deno.test("host:devices-l uses the %-22s %s long format, usb first, model sanitized", async () => {
  await using sim = await startSimulator();
  const reply = await hostQuery(sim.port, "host:devices-l");
  const ids = Object.fromEntries(
    ["emulator-5554", "R5CT1234ABC", "192.168.1.23:5555"].map((
      s,
    ) => [s, sim.device(s).transportId]),
  );
  const body = "R5CT1234ABC            device usb:1-4 product:r0sxxx model:SM_S901B device:r0s " +
    `transport_id:${ids["R5CT1234ABC"]}\n` +
    "192.168.1.23:5555      device product:panther model:Pixel_7 device:panther " +
    `transport_id:${ids["192.168.1.23:5555"]}\n` +
    "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 " +
    `device:emu64xa transport_id:${ids["emulator-5554"]}\n`;
  assertEquals(reply, "OKAY" + body.length.toString(16).padStart(4, "0") + body);
});

Deno.test("host:devices uses serial TAB state lines", async () => {
  await using sim = await startSimulator();
  const reply = await hostQuery(sim.port, "host:devices");
  const body = "R5CT1234ABC\tdevice\n192.168.1.23:5555\tdevice\nemulator-5554\tdevice\n";
  assertEquals(reply, `OKAY${body.length.toString(16).padStart(4, "0")}${body}`);
});

Deno.test("deviceListText() drops product/model/device for an unauthorized device", async () => {
  await using sim = await startSimulator();
  const d = sim.device("R5CT1234ABC");
  d.setState("unauthorized");
  const line = deviceListText([d], true);
  assertEquals(line, `R5CT1234ABC            unauthorized usb:1-4 transport_id:${d.transportId}\n`);
  assertEquals(sanitizeModel("Pixel 7 Pro"), "Pixel_7_Pro");
});

Deno.test("transport selection FAIL messages match adb's", async () => {
  await using sim = await startSimulator();
  const failOf = (msg: string) => `FAIL${msg.length.toString(16).padStart(4, "0")}${msg}`;
  assertEquals(
    await hostQuery(sim.port, "host:transport:nope-1"),
    failOf("device 'nope-1' not found"),
  );
  assertEquals(
    await hostQuery(sim.port, "host:transport-any"),
    failOf("more than one device/emulator"),
  );
  assertEquals(await hostQuery(sim.port, "host:transport-local"), failOf("more than one emulator"));
  assertEquals(
    await hostQuery(sim.port, "host:transport-id:999"),
    failOf("no device with transport id '999'"),
  );
  assertEquals(await hostQuery(sim.port, "host:transport-id:x"), failOf("invalid transport id"));
  assertEquals(
    await hostQuery(sim.port, "host:frobnicate"),
    failOf("unknown host service 'frobnicate'"),
  );
  sim.setState("emulator-5554", "offline");
  assertEquals(
    await hostQuery(sim.port, "host:tport:serial:emulator-5554"),
    failOf("device offline"),
  );
  // get-state accepts any state.
  assertEquals(await hostQuery(sim.port, "host-serial:emulator-5554:get-state"), "OKAY0007offline");
  sim.setState("R5CT1234ABC", "unauthorized");
  const unauth = await hostQuery(sim.port, "host-serial:R5CT1234ABC:features");
  assert(unauth.startsWith("FAIL"));
  assertEquals(
    unauth.slice(8),
    "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n" +
      "Try 'adb kill-server' if that seems wrong.\n" +
      "Otherwise check for a confirmation dialog on your device.",
  );
  // The only USB device is unauthorized: transport-usb finds it, then refuses it.
  assert((await hostQuery(sim.port, "host:transport-usb")).startsWith("FAIL"));
});

Deno.test("features, host-features, get-serialno, get-devpath replies", async () => {
  await using sim = await startSimulator();
  const ok = (s: string) => `OKAY${s.length.toString(16).padStart(4, "0")}${s}`;
  assertEquals(
    await hostQuery(sim.port, "host-serial:192.168.1.23:5555:features"),
    ok("shell_v2,cmd,fixed_push_mkdir"),
  );
  const id = sim.device("R5CT1234ABC").transportId;
  assertEquals(
    await hostQuery(sim.port, `host-transport-id:${id}:get-serialno`),
    ok("R5CT1234ABC"),
  );
  assertEquals(await hostQuery(sim.port, "host-usb:get-devpath"), ok("usb:1-4"));
  assertEquals(
    await hostQuery(sim.port, "host:features"),
    `FAIL${"more than one device/emulator".length.toString(16).padStart(4, "0")}` +
      "more than one device/emulator",
  );
  const hf = await hostQuery(sim.port, "host:host-features");
  assert(hf.startsWith("OKAY") && hf.includes("shell_v2"));
});

Deno.test("host:tport:serial answers OKAY + 8-byte LE id, then serves a device service", async () => {
  await using sim = await startSimulator();
  using c = await RawClient.connect(sim.port);
  await c.request("host:tport:serial:emulator-5554");
  assertEquals(await c.readText(4), "OKAY");
  const idBytes = await c.read(8);
  const id = new DataView(idBytes.buffer).getBigUint64(0, true);
  assertEquals(Number(id), sim.device("emulator-5554").transportId);
  await c.request("exec:getprop ro.hardware");
  assertEquals(await c.readText(4), "OKAY");
  assertEquals(dec.decode(await c.readAll()), "ranchu\n");
});

Deno.test("a service sent with the tport switch is lost, as on Google's server", async () => {
  await using sim = await startSimulator();
  using c = await RawClient.connect(sim.port);
  // Both requests in one write: the real server clears its buffer on a transport switch
  // (sockets.cpp `smart_socket_data.clear()`), so only a request sent after the answer counts.
  const a = protocolString("host:tport:serial:R5CT1234ABC");
  const b = protocolString("shell:getprop ro.product.model");
  const both = new Uint8Array(a.length + b.length);
  both.set(a);
  both.set(b, a.length);
  await c.write(both);
  assertEquals(await c.readText(4), "OKAY");
  await c.read(8);
  await c.request("shell:getprop ro.product.name");
  assertEquals(await c.readText(4), "OKAY");
  assertEquals(dec.decode(await c.readAll()), "r0sxxx\n");
});

Deno.test("host:transport-id switch has no id bytes; legacy host:transport too", async () => {
  await using sim = await startSimulator();
  const id = sim.device("192.168.1.23:5555").transportId;
  for (const svc of [`host:transport-id:${id}`, "host:transport:192.168.1.23:5555"]) {
    using c = await RawClient.connect(sim.port);
    await c.request(svc);
    assertEquals(await c.readText(4), "OKAY");
    await c.request("exec:echo hi");
    assertEquals(dec.decode(await c.readAll()), "OKAYhi\n");
  }
});

Deno.test("bad length and zero length just close; device service without transport FAILs", async () => {
  await using sim = await startSimulator();
  for (const bad of ["zzzzhost:version", "0000"]) {
    using c = await RawClient.connect(sim.port);
    await c.write(bad);
    assertEquals((await c.readAll()).length, 0);
  }
  const msg = "device offline (no transport)";
  assertEquals(
    await hostQuery(sim.port, "shell:ls"),
    `FAIL${msg.length.toString(16).padStart(4, "0")}${msg}`,
  );
});

Deno.test("one host request per connection: the server closes after replying", async () => {
  await using sim = await startSimulator();
  using c = await RawClient.connect(sim.port);
  await c.request("host:version");
  assertEquals(await c.readText(12), "OKAY00040029");
  assertEquals((await c.readAll()).length, 0);
});

Deno.test("splitHostSerial() keeps ports and ipv6 like parse_host_service", () => {
  assertEquals(splitHostSerial("192.168.1.5:5555:features"), {
    serial: "192.168.1.5:5555",
    request: "features",
  });
  assertEquals(splitHostSerial("emulator-5554:forward:tcp:1;tcp:2"), {
    serial: "emulator-5554",
    request: "forward:tcp:1;tcp:2",
  });
  assertEquals(splitHostSerial("tcp:10.0.0.2:5555:get-state"), {
    serial: "tcp:10.0.0.2:5555",
    request: "get-state",
  });
  assertEquals(splitHostSerial("[::1]:5555:get-state"), {
    serial: "[::1]:5555",
    request: "get-state",
  });
  assertEquals(splitHostSerial("noservice"), null);
});
