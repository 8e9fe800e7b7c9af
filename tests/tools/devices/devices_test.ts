import { assertEquals, assertStringIncludes } from "../../assert.ts";
import { devicesTools } from "../../../lib/tools/devices/devices.ts";
import { AdbClient } from "../../../lib/adb/client.ts";
import { parseServerSocketSpec } from "../../../lib/adb/server_address.ts";
import type { ToolContext } from "../../../lib/tools/context.ts";
import type { ToolOutput } from "../../../lib/mcp/tool_def.ts";
import { startSimulator } from "../../sim/mod.ts";
import { testToolContext } from "../../tool_context.ts";
import { assertRejectsCode, FakeConnection, fakeConnector, lp } from "../../adb/_fake.ts";

interface LooseTool {
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

function tool(name: string): LooseTool {
  const t = devicesTools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t as unknown as LooseTool;
}

Deno.test("devicesTools declare core, R, project-independent, described params", () => {
  assertEquals(devicesTools.map((t) => t.name), ["list_devices", "get_device_info"]);
  for (const t of devicesTools) {
    assertEquals([t.toolset, t.kind, t.needsProject === true], ["core", "R", false]);
    for (const [k, v] of Object.entries(t.params)) {
      assertEquals(typeof (v as { description?: string }).description, "string", k);
    }
  }
});

Deno.test("get_device_info refuses a hostile device_serial before any device command", async () => {
  const connector = fakeConnector([]);
  const adb = new AdbClient({ address: { host: "127.0.0.1", port: 1 }, connector });
  await assertRejectsCode(
    tool("get_device_info").run(
      { device_serial: "emulator-5554;reboot" },
      testToolContext({ adb }),
    ),
    "invalid_params",
  );
  assertEquals(connector.calls.length, 0);
});

Deno.test("get_device_info without a serial refuses when several devices are online", async () => {
  const listing = new FakeConnection([
    "OKAY" + lp("emulator-5554 device transport_id:1\nR5CT1 device transport_id:2\n"),
  ]);
  const adb = new AdbClient({
    address: { host: "127.0.0.1", port: 1 },
    connector: fakeConnector([listing]),
  });
  const e = await assertRejectsCode(
    tool("get_device_info").run({}, testToolContext({ adb })),
    "invalid_params",
  );
  assertStringIncludes(e.message, "emulator-5554, R5CT1");
});

Deno.test("list_devices and get_device_info against the simulator", async () => {
  await using sim = await startSimulator();
  const adb = new AdbClient({ address: parseServerSocketSpec(sim.adbServerSocket) });
  const ctx = testToolContext({ adb });
  const list = await tool("list_devices").run({}, ctx);
  assertEquals(list.structured.count, sim.devices.length);
  assertEquals(list.text.split("\n").length, sim.devices.length);
  assertStringIncludes(list.text, "emulator-5554  device  emulator");
  const info = await tool("get_device_info").run({ device_serial: "emulator-5554" }, ctx);
  assertEquals(info.structured.serial, "emulator-5554");
  assertEquals(info.structured.emulator, true);
  assertStringIncludes(info.text, "emulator-5554 (device, emulator");
});
