/**
 * `deno task sim --real-adb --grpc` from the command line: the JSON line names Google's server
 * and the simulator's own, the real `adb` lists the emulator by its port, the gRPC endpoint is
 * advertised under the printed discovery root, and SIGTERM ends the real server too. Without an
 * installed adb, --real-adb refuses with the fix in the message.
 */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { findRealAdb, hostRequest, parseDevices } from "./real_adb_server.ts";

const SCRIPT = new URL("../../scripts/sim.ts", import.meta.url).pathname;
const FLAGS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
];
const haveAdb = findRealAdb() !== null;
if (!haveAdb) console.error("sim_real_adb_test: no adb installed (apt-get install adb): skipping");

Deno.test({
  name: "deno task sim --real-adb --grpc prints both servers and the discovery root",
  ignore: !haveAdb,
  fn: async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...FLAGS, SCRIPT, "--real-adb", "--grpc"],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const info = JSON.parse(text.split("\n")[0]);
    assert(/^tcp:127\.0\.0\.1:\d+$/.test(info.adb_server_socket), info.adb_server_socket);
    assert(/^tcp:127\.0\.0\.1:\d+$/.test(info.sim_adb_server_socket));
    assert(info.adb_server_socket !== info.sim_adb_server_socket);
    const port = Number(info.adb_server_socket.split(":").at(-1));
    const version = await hostRequest(port, "host:version", true);
    assertEquals(version.ok, true);
    const listed = parseDevices((await hostRequest(port, "host:devices", true)).text);
    const emu = info.devices.find((d: { kind: string }) => d.kind === "emulator").serial;
    assert(/^emulator-\d+$/.test(emu), emu);
    assertEquals(listed.get(emu), "device");
    assertEquals(listed.size, 3);
    const running = join(info.xdg_runtime_dir, "avd", "running");
    const ini = [...Deno.readDirSync(running)].map((e) => e.name).filter((n) => n.endsWith(".ini"));
    assertEquals(ini.length, 1, "the emulator advertises its gRPC endpoint");
    assertStringIncludes(
      Deno.readTextFileSync(join(running, ini[0])),
      `port.serial=${emu.slice("emulator-".length)}`,
    );
    child.kill("SIGTERM");
    while (!(await reader.read()).done) { /* drain */ }
    assertEquals((await child.status).code, 0);
    let refused = false;
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    } catch {
      refused = true;
    }
    assertEquals(refused, true, "the real server ended with the simulator");
  },
});

Deno.test("deno task sim --real-adb without adb refuses clearly and starts nothing", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...FLAGS, SCRIPT, "--real-adb"],
    env: { KEYNOBI_SIM_ADB: "/nonexistent/adb" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 1);
  assertEquals(new TextDecoder().decode(out.stdout), "");
  const err = new TextDecoder().decode(out.stderr);
  assertStringIncludes(err, "no `adb` found");
  assertStringIncludes(err, "apt-get install adb");
});
