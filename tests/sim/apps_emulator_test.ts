/** The fake `emulator`: AVD listing, a boot that adds a device by AVD name, power-off; exit-info by API. */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { startSimulator } from "./mod.ts";
import { shell } from "./apps/_shell.ts";
import { emulatorSpec } from "./catalog.ts";
import { VirtualDevice } from "./device.ts";
import { AppsService } from "./apps/service.ts";
import { pollUntil } from "../wait.ts";

const dec = new TextDecoder();

Deno.test("emulator -list-avds prints the AVD home's names; an unknown AVD fails as the emulator does", async () => {
  await using sim = await startSimulator();
  const bin = `${sim.sdkRoot}/emulator/emulator`;
  const list = await new Deno.Command(bin, {
    args: ["-list-avds"],
    env: { ANDROID_AVD_HOME: sim.avdHome },
  }).output();
  assertEquals(dec.decode(list.stdout), "Pixel_8_API_35\nSmall_Phone_API_34\n");
  const bad = await new Deno.Command(bin, { args: ["-avd", "Nope"] }).output();
  assertEquals(bad.code, 1);
  assertStringIncludes(
    dec.decode(bad.stderr),
    "ERROR   | Unknown AVD name [Nope], use -list-avds to see valid list.\n",
  );
});

Deno.test("emulator -avd boots a new emulator under its AVD name and exits after reboot -p", async () => {
  await using sim = await startSimulator();
  const home = await Deno.makeTempDir();
  const child = new Deno.Command(`${sim.sdkRoot}/emulator/emulator`, {
    args: [
      "-avd",
      "Small_Phone_API_34",
      "-no-window",
      "-no-audio",
      "-no-snapshot",
      "-sim-boot-ms",
      "50",
    ],
    env: { ANDROID_AVD_HOME: sim.avdHome, HOME: home },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    // The console port (and so the serial) is the first free one from 5556: another simulator on
    // this machine may hold 5556, so find the new emulator by its AVD name.
    const isNew = (serial: string) =>
      sim.device(serial).props.get("ro.boot.qemu.avd_name") === "Small_Phone_API_34";
    const booted = (d: { serial: string; state: string } | undefined) =>
      d?.state === "device" && sim.device(d.serial).props.get("sys.boot_completed") === "1";
    const found = await pollUntil(
      () =>
        sim.devices.find((x) =>
          x.serial !== "emulator-5554" && x.kind === "emulator" && isNew(x.serial)
        ),
      booted,
      "the new emulator to finish booting",
      { intervalMs: 50, timeoutMs: 10_000 },
    ).catch(() => undefined);
    const serial = booted(found) ? found!.serial : null;
    assert(serial !== null, "the new emulator never finished booting");
    assertMatch(serial, /^emulator-55(5[6-9]|[6-9]\d)$|^emulator-5[6-9]\d\d$/);
    const name = await shell(sim.port, serial, "getprop ro.boot.qemu.avd_name");
    assertEquals(name.out, "Small_Phone_API_34\n");
    assertEquals(sim.device(serial).api, 34);
    await shell(sim.port, serial, "reboot -p");
    const out = await child.output();
    assertEquals(out.code, 0, dec.decode(out.stderr));
    assert(!sim.devices.some((d) => d.serial === serial));
  } finally {
    try {
      child.kill();
    } catch { /* exited */ }
    await Deno.remove(home, { recursive: true });
  }
});

function deviceAt(api: number): { device: VirtualDevice; apps: AppsService } {
  const spec = emulatorSpec();
  spec.api = api;
  spec.serial = `emulator-${5600 + api}`;
  const device = new VirtualDevice(spec);
  const apps = new AppsService(device, null);
  return { device, apps };
}

async function run(apps: AppsService, argv: string[]) {
  const out: Uint8Array[] = [];
  const io = {
    stdin: () => Promise.resolve(new Uint8Array()),
    out: (b: Uint8Array) => out.push(b),
    err: (b: Uint8Array) => out.push(b),
  };
  // deno-lint-ignore no-explicit-any
  const code = await apps.command(argv, io, null as any);
  return { code, text: out.map((b) => dec.decode(b)).join("") };
}

Deno.test("dumpsys activity exit-info: Android 11 one field per line at API 30; unavailable below", async () => {
  const { apps } = deviceAt(30);
  await run(apps, ["am", "start", "-n", "com.android.chrome/com.google.android.apps.chrome.Main"]);
  apps.crash("com.android.chrome");
  const r = await run(apps, ["dumpsys", "activity", "exit-info", "com.android.chrome"]);
  const lines = r.text.split("\n");
  assertEquals(lines[4], "        ApplicationExitInfo #0:");
  assert(lines[5].startsWith("          timestamp="));
  assert(/^ {10}pid=\d+$/.test(lines[6]), lines[6]);
  assertEquals(lines[12], "          reason=4 (APP CRASH(EXCEPTION))");
  assertEquals(lines[13], "          status=0");
  assert(!r.text.includes("subreason"));
  const old = deviceAt(29).apps;
  const r29 = await run(old, ["dumpsys", "activity", "exit-info"]);
  assertEquals(
    r29.text,
    "Bad activity command, or no activities match: exit-info\nUse -h for help.\n",
  );
  const start = await run(old, ["am", "start", "-W", "-n", "com.android.settings/.Settings"]);
  assertStringIncludes(start.text, "LaunchState: COLD\n");
  const logged = old.device.log.entries().map((e) => `${e.tag}: ${e.message}`);
  assert(
    logged.includes("ActivityTaskManager: Displayed com.android.settings/.Settings: +812ms"),
    logged.join("\n"),
  );
});
