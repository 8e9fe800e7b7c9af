import { assertEquals } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import {
  buildDeviceInfo,
  parseBattery,
  parseGetprop,
  parseWmDensity,
  parseWmSize,
  readDeviceInfo,
} from "../../lib/android/device_info.ts";
import { FakeAdb } from "../fake_adb.ts";

const dumpsys = realFixtures("dumpsys");

const EMU_GETPROP = "[ro.boot.qemu]: [1]\n[ro.boot.qemu.avd_name]: [Pixel_8_API_35]\n" +
  "[ro.build.fingerprint]: [google/sdk_gphone64_x86_64/emu64xa:15/AE3A/1:userdebug/dev-keys]\n" +
  "[ro.build.version.release]: [15]\n[ro.build.version.sdk]: [35]\n" +
  "[ro.product.brand]: [google]\n[ro.product.cpu.abi]: [x86_64]\n" +
  "[ro.product.cpu.abilist]: [x86_64,arm64-v8a]\n[ro.product.device]: [emu64xa]\n" +
  "[ro.product.manufacturer]: [Google]\n[ro.product.model]: [sdk_gphone64_x86_64]\n" +
  "[multi.line]: [one\ntwo]\n\n[empty]: []\n";

const BATTERY = `Current Battery Service state:
  AC powered: false
  USB powered: true
  Wireless powered: false
  Dock powered: false
  Max charging current: 500000
  status: 2
  health: 2
  present: true
  level: 85
  scale: 100
  voltage: 4187
  temperature: 253
  technology: Li-ion
`;

Deno.test("parseGetprop() reads values, multi-line values and empty ones", () => {
  const p = parseGetprop(EMU_GETPROP);
  assertEquals(p.get("ro.product.model"), "sdk_gphone64_x86_64");
  assertEquals(p.get("multi.line"), "one\ntwo");
  assertEquals(p.get("empty"), "");
  assertEquals(p.size, 13);
});

Deno.test({
  name: "parseGetprop() reads the real motorola edge 20 (Android 13) capture",
  ignore: !dumpsys.present,
  fn() {
    const p = parseGetprop(dumpsys.text("getprop_motorola_edge20_android13.txt"));
    assertEquals(p.size, 863); // 866 lines, one value spans 4 lines
    assertEquals(p.get("ro.product.model"), "motorola edge 20");
    assertEquals(p.get("ro.build.version.sdk"), "33");
    assertEquals(
      p.get("persist.sys.boot.reason.history"),
      "reboot,hardware_reset,1728776411\nreboot,1727208771\nreboot,1726002861\nreboot,1724940786",
    );
    const info = buildDeviceInfo({
      serial: "ZY22FAKE",
      listed: undefined,
      props: p,
      size: null,
      density: null,
      battery: null,
    });
    assertEquals(info.manufacturer, "motorola");
    assertEquals(info.brand, "motorola");
    assertEquals(info.device, "berlin");
    assertEquals(info.android_version, "13");
    assertEquals(info.api_level, 33);
    assertEquals(info.abi, "arm64-v8a");
    assertEquals(info.abis, ["arm64-v8a", "armeabi-v7a", "armeabi"]);
    assertEquals(info.emulator, false);
    assertEquals(info.avd_name, null);
    assertEquals(info.screen.density, 400); // ro.sf.lcd_density when wm density is unknown
    assertEquals(
      info.build_fingerprint,
      "motorola/berlin_global/berlin:13/T1RGS33.135-109-9-1/cd9ba-7b59ee:user/release-keys",
    );
  },
});

Deno.test("parseWmSize() and parseWmDensity() read physical and override", () => {
  assertEquals(parseWmSize("Physical size: 1080x2400\nOverride size: 720x1600\n"), {
    physical: { width: 1080, height: 2400 },
    override: { width: 720, height: 1600 },
  });
  assertEquals(parseWmSize("Physical size: 1440x3120\r\n"), {
    physical: { width: 1440, height: 3120 },
    override: null,
  });
  assertEquals(parseWmDensity("Physical density: 420\nOverride density: 320\n"), {
    physical: 420,
    override: 320,
  });
  assertEquals(parseWmDensity("garbage"), { physical: null, override: null });
});

Deno.test("parseBattery() reads level, status, plug and temperature", () => {
  assertEquals(parseBattery(BATTERY), {
    level: 85,
    scale: 100,
    percent: 85,
    status: "charging",
    plugged: "usb",
    temperature_c: 25.3,
  });
  assertEquals(parseBattery("Can't find service: battery"), null);
  assertEquals(parseBattery("  level: 3\n  scale: 4\n  status: 5\n")?.percent, 75);
});

Deno.test("readDeviceInfo() reads getprop once, then wm and battery concurrently", async () => {
  let inFlight = 0, maxInFlight = 0;
  const adb = new FakeAdb(async (argv) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 1));
    inFlight--;
    switch (argv.join(" ")) {
      case "getprop":
        return EMU_GETPROP;
      case "wm size":
        return "Physical size: 1080x2400\n";
      case "wm density":
        return "Physical density: 420\nOverride density: 360\n";
      case "dumpsys battery":
        return { code: 1 };
    }
    throw new Error("unexpected command");
  });
  const info = await readDeviceInfo(adb, "emulator-5554");
  const calls = adb.calls.map((c) => `${c.serial} ${c.argv.join(" ")}`);
  assertEquals(calls[0], "emulator-5554 getprop");
  assertEquals(calls.length, 4);
  assertEquals(maxInFlight, 3);
  assertEquals(info.emulator, true);
  assertEquals(info.avd_name, "Pixel_8_API_35");
  assertEquals(info.kind, "emulator");
  assertEquals(info.screen, {
    width: 1080,
    height: 2400,
    density: 420,
    override: { density: 360 },
  });
  assertEquals(info.battery, null);
  assertEquals(info.api_level, 35);
  assertEquals(info.abis, ["x86_64", "arm64-v8a"]);
});
