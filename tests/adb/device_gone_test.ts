import { deviceGoneError } from "../../lib/adb/device_gone.ts";
import type { AdbDevice } from "../../lib/adb/devices.ts";
import { assertEquals, assertStringIncludes } from "../assert.ts";

function listing(devices: AdbDevice[] | Error) {
  return {
    listDevices: () =>
      devices instanceof Error ? Promise.reject(devices) : Promise.resolve(devices),
  };
}

Deno.test("deviceGoneError: absent, offline, unauthorized, still there, server unreachable", async () => {
  const other: AdbDevice = { serial: "emulator-5556", state: "device", kind: "emulator" };
  const gone = await deviceGoneError(listing([other]), "emulator-5554", "the screenshot");
  assertEquals(gone?.code, "device_not_found");
  assertStringIncludes(gone!.message, "Device 'emulator-5554' disconnected during the screenshot");
  assertEquals(gone?.data?.connected, ["emulator-5556"]);
  const offline = await deviceGoneError(
    listing([{ serial: "emulator-5554", state: "offline", kind: "emulator" }]),
    "emulator-5554",
    "the install",
  );
  assertEquals(offline?.code, "device_offline");
  const denied = await deviceGoneError(
    listing([{ serial: "emulator-5554", state: "unauthorized", kind: "emulator" }]),
    "emulator-5554",
    "the install",
  );
  assertEquals(denied?.code, "device_unauthorized");
  const here = await deviceGoneError(
    listing([{ serial: "emulator-5554", state: "device", kind: "emulator" }]),
    "emulator-5554",
    "x",
  );
  assertEquals(here, null, "a device still online: the command's own error stands");
  assertEquals(await deviceGoneError(listing(new Error("refused")), "emulator-5554", "x"), null);
});
