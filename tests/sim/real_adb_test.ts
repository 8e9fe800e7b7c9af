/**
 * The real `adb` client (Debian package `adb`) against the simulator: if the simulator answers
 * anything a real server would not, the real client notices. Skipped when adb is not installed.
 */
import { assert, assertEquals } from "../assert.ts";
import { startSimulator } from "./mod.ts";

const ADB = "/usr/bin/adb";
/** Each adb call is killed after this long (a wrong reply can make the client wait forever). */
export const ADB_CALL_TIMEOUT_MS = 15_000;

const haveAdb = (() => {
  try {
    return Deno.statSync(ADB).isFile;
  } catch {
    return false;
  }
})();
if (!haveAdb) console.error(`real_adb_test: ${ADB} not installed (apt-get install adb): skipping`);

async function adb(port: number, args: string[], stdin = "") {
  // No ADB_SERVER_SOCKET/ANDROID_* from the environment: -H/-P alone pick the simulator.
  const env: Record<string, string> = { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" };
  const child = new Deno.Command(ADB, {
    args: ["-H", "127.0.0.1", "-P", String(port), ...args],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
  }, ADB_CALL_TIMEOUT_MS);
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(stdin));
  await w.close();
  const out = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test({
  name: "real adb: devices -l lists the three simulated devices",
  ignore: !haveAdb,
  fn: async () => {
    await using sim = await startSimulator();
    const r = await adb(sim.port, ["devices", "-l"]);
    assertEquals(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assertEquals(lines[0], "List of devices attached");
    const serials = lines.slice(1).filter(Boolean).map((l) => l.split(/\s+/)[0]);
    assertEquals(serials, ["R5CT1234ABC", "192.168.1.23:5555", "emulator-5554"]);
    assert(r.stdout.includes(" usb:1-4 product:r0sxxx model:SM_S901B device:r0s transport_id:"));
  },
});

Deno.test({
  name: "real adb: shell getprop ro.product.model prints the emulator model",
  ignore: !haveAdb,
  fn: async () => {
    await using sim = await startSimulator();
    const r = await adb(sim.port, ["-s", "emulator-5554", "shell", "getprop", "ro.product.model"]);
    assertEquals(r.code, 0, r.stderr);
    assertEquals(r.stdout.replace(/\r/g, ""), "sdk_gphone64_x86_64\n");
    const [entry] = await sim.readJournal();
    assertEquals(entry.service, "shell,v2");
    assertEquals(entry.argv, [["getprop", "ro.product.model"]]);
  },
});

Deno.test({
  name: "real adb: shell echo 'a;b' is joined unquoted and runs two commands (injection)",
  ignore: !haveAdb,
  fn: async () => {
    await using sim = await startSimulator();
    const r = await adb(sim.port, ["-s", "emulator-5554", "shell", "echo", "a;b"]);
    assertEquals(r.stdout, "a\n");
    assertEquals(r.stderr, "/system/bin/sh: b: inaccessible or not found\n");
    assertEquals(r.code, 127);
    const [entry] = await sim.readJournal();
    assertEquals(entry.raw, "echo a;b");
    assertEquals(entry.argv, [["echo", "a"], ["b"]]);
    assertEquals(entry.injection, true);
  },
});

Deno.test({
  name: "real adb: exit status, stdin, and the v1 fallback without shell_v2",
  ignore: !haveAdb,
  fn: async () => {
    await using sim = await startSimulator();
    const s = ["-s", "R5CT1234ABC", "shell"];
    assertEquals((await adb(sim.port, [...s, "exit 3"])).code, 3);
    assertEquals((await adb(sim.port, [...s, "cat"], "piped in\n")).stdout, "piped in\n");
    sim.setFeatures("R5CT1234ABC", ["cmd"]);
    const v1 = await adb(sim.port, [...s, "echo v1; exit 4"]);
    assertEquals(v1.stdout, "v1\n");
    assertEquals(v1.code, 0, "shell: carries no exit status");
    assertEquals((await sim.readJournal()).at(-1)?.service, "shell");
  },
});

Deno.test({
  name: "real adb: transport errors reach the user verbatim",
  ignore: !haveAdb,
  fn: async () => {
    await using sim = await startSimulator();
    const any = await adb(sim.port, ["shell", "true"]);
    assertEquals(any.code, 1);
    assert(any.stderr.includes("more than one device/emulator"), any.stderr);
    const missing = await adb(sim.port, ["-s", "nope", "shell", "true"]);
    assert(missing.stderr.includes("device 'nope' not found"), missing.stderr);
  },
});
