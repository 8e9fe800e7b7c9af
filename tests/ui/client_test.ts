import "../../lib/ui/xml_fallback.ts";
import { assertEquals, assertRejects } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { UiClient } from "../../lib/ui/shared/client.ts";

Deno.test("UiClient starts the UI worker and brings back the worker's errors", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-ui-" });
  // A port nothing listens on: the worker's ADB client answers adb_unavailable.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = new UiClient({ dataDir: dir, adbServer: { host: "127.0.0.1", port } });
  try {
    const e = await assertRejects(() => client.observe({ serial: "emulator-5554" }), ToolError);
    assertEquals(e.code, "adb_unavailable");
    await client.forget("emulator-5554");
    const bad = await assertRejects(
      () => client.resolve({ serial: "emulator-5554", target: "`id`" }),
      ToolError,
    );
    assertEquals(bad.code, "invalid_params");
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("UiClient refuses captures at once while instrumentation runs", async () => {
  const client = new UiClient({
    dataDir: "/nonexistent",
    adbServer: { host: "127.0.0.1", port: 5037 },
    instrumentationRunning: (serial) => serial === "emulator-5554",
  });
  const e = await assertRejects(() => client.observe({ serial: "emulator-5554" }), ToolError);
  assertEquals(e.code, "device_busy");
  assertEquals(e.message.includes("instrumentation running"), true);
  client.close();
});
