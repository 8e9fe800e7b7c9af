import { assertEquals } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { deviceKind, parseDeviceLine, parseDeviceList } from "../../lib/adb/devices.ts";
import { chooseDevice } from "../../lib/adb/select_device.ts";

const dumpsys = realFixtures("dumpsys");

Deno.test("parseDeviceList() keeps devpath, keyed fields and transport id", () => {
  const text = "List of devices attached\n" +
    "0123456789ABCDEF       device usb:1-4 product:panther model:Pixel_7 device:panther " +
    "transport_id:2\n" +
    "emulator-5554          offline transport_id:1\n\n";
  assertEquals(parseDeviceList(text), [
    {
      serial: "0123456789ABCDEF",
      state: "device",
      kind: "usb",
      product: "panther",
      model: "Pixel_7",
      device: "panther",
      devpath: "usb:1-4",
      transportId: 2,
    },
    { serial: "emulator-5554", state: "offline", kind: "emulator", transportId: 1 },
  ]);
});

Deno.test("parseDeviceLine() keeps a state with spaces and a following devpath", () => {
  const line = "0123456789ABCDEF       no permissions (missing udev rules? user is in the " +
    "plugdev group); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:4";
  const d = parseDeviceLine(line);
  assertEquals(
    d?.state,
    "no permissions (missing udev rules? user is in the plugdev group); " +
      "see [http://developer.android.com/tools/device.html]",
  );
  assertEquals(d?.devpath, "usb:1-1");
  assertEquals(d?.transportId, 4);
});

Deno.test("parseDeviceLine() handles serials longer than 22 columns and no serial", () => {
  const mdns = "adb-33311HFDD8N2PQ-a4QqY3._adb-tls-connect._tcp device product:p model:m " +
    "device:d transport_id:9";
  assertEquals(parseDeviceLine(mdns)?.serial, "adb-33311HFDD8N2PQ-a4QqY3._adb-tls-connect._tcp");
  assertEquals(parseDeviceLine(mdns)?.kind, "wireless");
  const none = parseDeviceLine("(no serial number)     unauthorized transport_id:3");
  assertEquals([none?.serial, none?.state], ["(no serial number)", "unauthorized"]);
});

Deno.test("deviceKind() classifies emulator, wireless and usb serials", () => {
  assertEquals(deviceKind("emulator-5554"), "emulator");
  assertEquals(deviceKind("192.168.1.23:5555"), "wireless");
  assertEquals(deviceKind("[fe80::1]:5555"), "wireless");
  assertEquals(deviceKind("phone.local:5555"), "wireless");
  assertEquals(deviceKind("adb-X-y._adb._tcp"), "wireless");
  assertEquals(deviceKind("6563c026"), "usb");
  assertEquals(deviceKind("emulator-5554x"), "usb");
});

Deno.test({
  name: "parseDeviceList() reads the real adb devices -l capture (Xiaomi USB)",
  ignore: !dumpsys.present,
  fn() {
    const text = dumpsys.text("adb_devices_-l_usb_xiaomi.txt");
    assertEquals(parseDeviceList(text), [{
      serial: "6563c026",
      state: "device",
      kind: "usb",
      product: "courbet_tr",
      model: "M2101K9AG",
      device: "courbet",
      transportId: 5,
    }]);
  },
});

Deno.test({
  name: "parseDeviceList() reads the real CRLF short listing with an mDNS serial",
  ignore: !dumpsys.present,
  fn() {
    const text = dumpsys.text("adb_devices_mdns_tls_and_emulator.txt");
    assertEquals(parseDeviceList(text), [
      {
        serial: "adb-33311HFDD8N2PQ-a4QqY3._adb-tls-connect._tcp",
        state: "device",
        kind: "wireless",
      },
      { serial: "emulator-5554", state: "device", kind: "emulator" },
    ]);
  },
});

Deno.test("chooseDevice() picks the only online device, refuses several, lists none", () => {
  const list = parseDeviceList(
    "emulator-5554 device transport_id:1\n192.168.1.23:5555 offline transport_id:2\n",
  );
  assertEquals(chooseDevice(list, undefined), "emulator-5554");
  assertEquals(chooseDevice(list, "192.168.1.23:5555"), "192.168.1.23:5555");
  const two = parseDeviceList("a1 device\nb2 device\n");
  try {
    chooseDevice(two, undefined);
    throw new Error("expected a refusal");
  } catch (e) {
    assertEquals((e as { code: string }).code, "invalid_params");
    assertEquals((e as Error).message.includes("a1, b2"), true);
  }
  try {
    chooseDevice(parseDeviceList("x1 unauthorized\n"), undefined);
    throw new Error("expected an error");
  } catch (e) {
    assertEquals((e as { code: string }).code, "device_not_found");
    assertEquals((e as Error).message.includes("x1 (unauthorized)"), true);
  }
});
