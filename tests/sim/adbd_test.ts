/**
 * The simulated devices behind Google's ADB server (Debian's `adb`): the real server speaks the
 * transport to tests/sim/adbd.ts and the real CLI talks to the real server, so nothing of ours
 * is on the host side. Skipped, with a note, when adb is not installed.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { startSimulator } from "./mod.ts";
import { pollUntil } from "../wait.ts";
import { findRealAdb } from "./real_adb_server.ts";
import { SAMPLE_PACKAGE, sampleApkBytes } from "./apps/sample.ts";

const haveAdb = findRealAdb() !== null;
if (!haveAdb) console.error("adbd_test: no adb installed (apt-get install adb): skipping");

const opts = { ignore: !haveAdb, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name:
    "real server: devices -l names the emulator by its console port, network devices by address",
  ...opts,
  fn: async () => {
    await using sim = await startSimulator({ realAdb: true });
    const emu = sim.serialOf("emulator-5554");
    const phone = sim.serialOf("R5CT1234ABC");
    const pixel = sim.serialOf("192.168.1.23:5555");
    const adbPort = sim.realAdb!.port;
    assertEquals(sim.adbServerSocket, `tcp:127.0.0.1:${adbPort}`);
    assert(/^emulator-\d+$/.test(emu), emu);
    assert(/^127\.0\.0\.1:\d+$/.test(phone) && /^127\.0\.0\.1:\d+$/.test(pixel), phone + pixel);
    const r = await sim.realAdb!.cli(["devices", "-l"]);
    assertEquals(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n").filter(Boolean);
    assertEquals(lines[0], "List of devices attached");
    const byserial = new Map(lines.slice(1).map((l) => [l.split(/\s+/)[0], l]));
    assertEquals([...byserial.keys()].sort(), [emu, phone, pixel].sort());
    assertStringIncludes(
      byserial.get(emu)!,
      " device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64xa",
    );
    assertStringIncludes(byserial.get(phone)!, " device product:r0sxxx model:SM_S901B device:r0s");
    // The emulator's console answers on the port below its adb port.
    const consolePort = Number(emu.slice("emulator-".length));
    const c = await Deno.connect({ hostname: "127.0.0.1", port: consolePort });
    const buf = new Uint8Array(256);
    const n = await c.read(buf);
    c.close();
    assertStringIncludes(new TextDecoder().decode(buf.subarray(0, n ?? 0)), "Android Console");
    // The simulator's own server lists the same serials.
    assertEquals(sim.devices.map((d) => d.serial).sort(), [emu, phone, pixel].sort());
  },
});

Deno.test({
  name: "real server: shell exit status, stderr apart, and a 10 MB screencap intact",
  ...opts,
  fn: async () => {
    await using sim = await startSimulator({ realAdb: true });
    const adb = sim.realAdb!;
    const emu = sim.serialOf("emulator-5554");
    const r = await adb.cli(["-s", emu, "shell", "echo out; echo err >&2; exit 5"]);
    assertEquals([r.code, r.stdout, r.stderr], [5, "out\n", "err\n"]);
    const journal = await sim.readJournal();
    assertEquals(journal.at(-1)?.service, "shell,v2");
    assertEquals(journal.at(-1)?.serial, emu);
    // The real server's screencap is byte for byte the simulator's own server's.
    const viaReal = await screencap(adb.adb, adb.port, emu);
    const viaSim = await screencap(adb.adb, sim.port, emu);
    assert(viaReal.length > 1_000_000, `${viaReal.length} bytes`);
    assertEquals(viaReal.length, viaSim.length);
    assert(viaReal.every((b, k) => b === viaSim[k]), "same bytes through both servers");
  },
});

async function screencap(adb: string, port: number, serial: string): Promise<Uint8Array> {
  const out = await new Deno.Command(adb, {
    args: ["-P", String(port), "-s", serial, "exec-out", "screencap"],
    env: { HOME: Deno.env.get("HOME") ?? "/", PATH: "/usr/bin:/bin" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

Deno.test({
  name: "real server: adb install streams the APK to the simulated package manager",
  ...opts,
  fn: async () => {
    await using sim = await startSimulator({ realAdb: true });
    const phone = sim.serialOf("R5CT1234ABC");
    const apk = join(sim.root, "app.apk");
    await Deno.writeFile(apk, sampleApkBytes());
    const r = await sim.realAdb!.cli(["-s", phone, "install", "-r", apk], 30_000);
    assertEquals(r.code, 0, r.stdout + r.stderr);
    assertStringIncludes(r.stdout, "Success");
    const list = await sim.realAdb!.cli(["-s", phone, "shell", "pm", "list", "packages"]);
    assertStringIncludes(list.stdout, `package:${SAMPLE_PACKAGE}`);
    const installs = (await sim.readJournal()).filter((e) => e.raw.includes("install"));
    assert(installs.some((e) => e.service === "exec" && / -S \d+$/.test(e.raw)), "streamed");
  },
});

Deno.test({
  name: "real server: unauthorized and offline devices, and one that drops and comes back",
  ...opts,
  fn: async () => {
    await using sim = await startSimulator({ realAdb: true });
    const adb = sim.realAdb!;
    const emu = sim.serialOf("emulator-5554");
    const pixel = sim.serialOf("192.168.1.23:5555");

    sim.setState(pixel, "unauthorized");
    await adb.waitFor(pixel, "unauthorized");
    const denied = await adb.cli(["-s", pixel, "shell", "true"]);
    assertEquals(denied.code, 1);
    assertStringIncludes(denied.stderr, "unauthorized");
    sim.setState(pixel, "device");
    await adb.waitFor(pixel, "device");
    assertEquals((await adb.cli(["-s", pixel, "shell", "echo", "back"])).stdout, "back\n");

    sim.setState(emu, "offline");
    await adb.waitFor(emu, "offline");
    sim.setState(emu, "device");
    await adb.waitFor(emu, "device");

    // A drop mid-stream ends the stream; the device is then gone, and it comes back.
    const stream = adb.cli(["-s", emu, "shell", "logcat"], 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const dropped = Date.now();
    sim.disconnect(emu, 1);
    await stream;
    assert(Date.now() - dropped < 10_000, "the stream ended with the device, not the timeout");
    await adb.waitFor(emu, null);
    await adb.waitFor(emu, "device");
    assertEquals((await adb.cli(["-s", emu, "shell", "echo", "again"])).stdout, "again\n");

    // A network device that drops is listed offline while Google's server reconnects it by
    // itself (adb 29.0.6: about 10 s after the drop), then it is a device again.
    sim.disconnect(pixel, 1);
    await pollUntil(
      () => adb.devices(),
      (m) => m.get(pixel) !== "device",
      `${pixel} dropped`,
      { intervalMs: 25, timeoutMs: 10_000 },
    );
    await adb.waitFor(pixel, "device");
    assertEquals((await adb.cli(["-s", pixel, "shell", "echo", "back"])).stdout, "back\n");
  },
});

Deno.test({
  name: "real server: a second client on the same device while a stream is open",
  ...opts,
  fn: async () => {
    await using sim = await startSimulator({ realAdb: true });
    const adb = sim.realAdb!;
    const emu = sim.serialOf("emulator-5554");
    const long = adb.cli(["-s", emu, "shell", "sleep 1; echo slow"]);
    const quick = await adb.cli(["-s", emu, "shell", "echo", "quick"]);
    assertEquals(quick.stdout, "quick\n");
    assertEquals((await long).stdout, "slow\n");
  },
});

Deno.test({
  name: "real server: --real-adb without adb installed refuses clearly",
  ignore: false,
  fn: async () => {
    const old = Deno.env.get("KEYNOBI_SIM_ADB");
    Deno.env.set("KEYNOBI_SIM_ADB", "/nonexistent/adb");
    try {
      let message = "";
      try {
        await startSimulator({ realAdb: true });
      } catch (e) {
        message = (e as Error).message;
      }
      assertStringIncludes(message, "no `adb` found");
      assertStringIncludes(message, "apt-get install adb");
    } finally {
      if (old === undefined) Deno.env.delete("KEYNOBI_SIM_ADB");
      else Deno.env.set("KEYNOBI_SIM_ADB", old);
    }
  },
});
