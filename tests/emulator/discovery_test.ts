import { assert, assertEquals, assertThrows } from "../assert.ts";
import {
  discoveryDirs,
  endpointForSerial,
  endpointFromIni,
  explicitEndpoint,
  isEmulatorSerial,
  MAX_DISCOVERY_FILES,
  parseDiscoveryIni,
  readDiscovery,
  readDiscoveryDir,
} from "../../lib/emulator/shared/discovery.ts";
import { raceRounds, withSwapper } from "../core/_swap_race.ts";

// A token-mode file as the emulator writes it (key order unspecified, base64 ends in '=').
const TOKEN_INI = [
  "port.serial=5554",
  "port.adb=5555",
  "avd.name=Pixel 8 API 35",
  "avd.id=Pixel_8_API_35",
  "avd.dir=/home/u/.android/avd/Pixel_8_API_35.avd",
  'cmdline="/sdk/emulator/qemu/linux-x86_64/qemu-system-x86_64" "-avd" "Pixel_8_API_35" "-grpc-use-token"',
  "grpc.port=8554",
  "grpc.token=YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXowMTIzNDU2Nzg5YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eQ==",
  "",
].join("\n");

Deno.test("discovery: an ini splits on the first '=' only, so base64 tokens survive", () => {
  const ini = parseDiscoveryIni(TOKEN_INI);
  assert(ini.get("grpc.token")!.endsWith("=="));
  assertEquals(ini.get("avd.name"), "Pixel 8 API 35");
  const e = endpointFromIni(ini, "/run/user/1000/avd/running/pid_4242.ini", 5)!;
  assertEquals(e.address, "127.0.0.1:8554");
  assertEquals(e.serial, "emulator-5554");
  assertEquals(e.pid, 4242);
  assertEquals(e.auth.kind, "token");
  assertEquals(e.auth.kind === "token" ? e.auth.token : "", ini.get("grpc.token"));
});

Deno.test("discovery: JWT mode, no auth, and no gRPC at all", () => {
  const jwt = endpointFromIni(
    parseDiscoveryIni(
      "port.serial=5556\ngrpc.port=8556\ngrpc.jwks=/d/4/jwks/u\ngrpc.jwk_active=/d/4/jwks/u/active.jwk\n",
    ),
    "pid_4.ini",
  )!;
  assertEquals(jwt.auth, {
    kind: "jwt",
    jwksDir: "/d/4/jwks/u",
    activeJwk: "/d/4/jwks/u/active.jwk",
  });
  const open = endpointFromIni(parseDiscoveryIni("port.serial=5558\ngrpc.port=8558\n"), "x")!;
  assertEquals(open.auth, { kind: "none" });
  // `-ports` without `-grpc`: no grpc.port, no endpoint.
  assertEquals(endpointFromIni(parseDiscoveryIni("port.serial=5560\nport.adb=5561\n"), "y"), null);
  assertEquals(
    endpointFromIni(parseDiscoveryIni("port.serial=5560\ngrpc.port=99999\n"), "z"),
    null,
  );
});

Deno.test("discovery: the newest file for a serial wins; other serials are not matched", () => {
  const a = endpointFromIni(
    parseDiscoveryIni("port.serial=5554\ngrpc.port=8554\n"),
    "pid_1.ini",
    10,
  )!;
  const b = endpointFromIni(
    parseDiscoveryIni("port.serial=5554\ngrpc.port=8600\n"),
    "pid_2.ini",
    20,
  )!;
  const c = endpointFromIni(
    parseDiscoveryIni("port.serial=5556\ngrpc.port=8556\n"),
    "pid_3.ini",
    30,
  )!;
  assertEquals(endpointForSerial([a, b, c], "emulator-5554")?.port, 8600);
  assertEquals(endpointForSerial([a, b, c], "emulator-5558"), null);
  assert(isEmulatorSerial("emulator-5554"));
  assert(!isEmulatorSerial("R5CT1234ABC"));
  assert(!isEmulatorSerial("192.168.1.23:5555"));
});

Deno.test("discovery: --grpc takes loopback only, with an optional token", () => {
  const e = explicitEndpoint("localhost:8554", "tok", "--grpc");
  assertEquals(e.address, "127.0.0.1:8554");
  assertEquals(e.auth, { kind: "token", token: "tok" });
  assertEquals(explicitEndpoint("[::1]:8554", undefined, "--grpc").auth, { kind: "none" });
  for (
    const bad of [
      "10.0.0.2:8554",
      "example.com:8554",
      "127.0.0.1",
      "127.0.0.1:0",
      "127.0.0.1:70000",
    ]
  ) {
    assertThrows(() => explicitEndpoint(bad, undefined, "--grpc"), /loopback HOST:PORT/);
  }
});

Deno.test("discovery: the directory list per platform, runtime dir first", () => {
  const env = (m: Record<string, string>) => (n: string) => m[n];
  const linux = discoveryDirs({
    os: "linux",
    uid: 1000,
    env: env({ XDG_RUNTIME_DIR: "/run/user/1000", HOME: "/home/u", USER: "u" }),
  });
  assertEquals(linux[0], "/run/user/1000/avd/running");
  assert(linux.includes("/home/u/.android/avd/running"));
  assert(linux.includes("/tmp/android-u/avd/running"));
  const noXdg = discoveryDirs({ os: "linux", uid: 1000, env: env({ HOME: "/home/u" }) });
  assertEquals(noXdg[0], "/run/user/1000/avd/running");
  const mac = discoveryDirs({ os: "darwin", uid: 501, env: env({ HOME: "/Users/u" }) });
  assertEquals(mac[0], "/Users/u/Library/Caches/TemporaryItems/avd/running");
  const withHome = discoveryDirs({
    os: "linux",
    uid: null,
    env: env({ HOME: "/h", ANDROID_EMULATOR_HOME: "/emu", ANDROID_SDK_HOME: "/sdkhome" }),
  });
  assert(withHome.includes("/emu/avd/running"));
  assert(withHome.includes("/sdkhome/.android/avd/running"));
});

Deno.test("discovery: reading a directory skips other files, oversized files and keeps a bound", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/pid_10.ini`, TOKEN_INI);
    await Deno.writeTextFile(`${dir}/notes.txt`, "grpc.port=1\n");
    await Deno.writeTextFile(`${dir}/pid_11.ini`, "port.serial=5556\n"); // no gRPC
    await Deno.writeTextFile(`${dir}/pid_12.ini`, "x".repeat(70 * 1024));
    const found = await readDiscoveryDir(dir);
    assertEquals(found.map((e) => e.serial), ["emulator-5554"]);
    assertEquals(await readDiscoveryDir(`${dir}/missing`), []);
    for (let i = 0; i < MAX_DISCOVERY_FILES + 5; i++) {
      await Deno.writeTextFile(
        `${dir}/pid_${1000 + i}.ini`,
        `port.serial=${6000 + 2 * i}\ngrpc.port=${9000 + i}\n`,
      );
    }
    const many = await readDiscovery([dir]);
    assert(many.length <= MAX_DISCOVERY_FILES, `${many.length} endpoints read`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("discovery: a FIFO or symlink swapped in is skipped without waiting; an unusable token rejects its file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/pid_10.ini`, TOKEN_INI);
    // A FIFO nobody writes: a blocking read would wait forever.
    const mk = await new Deno.Command("mkfifo", { args: [`${dir}/pid_20.ini`] }).output();
    assert(mk.success, "mkfifo");
    const outside = `${dir}/../outside-${crypto.randomUUID()}.ini`;
    await Deno.writeTextFile(outside, "port.serial=5558\ngrpc.port=8558\n");
    await Deno.symlink(outside, `${dir}/pid_21.ini`);
    // Tokens no header can carry: the files are not the emulator's.
    await Deno.writeTextFile(
      `${dir}/pid_22.ini`,
      "port.serial=5560\ngrpc.port=8560\ngrpc.token=abc\rdef-secret\n",
    );
    await Deno.writeTextFile(
      `${dir}/pid_23.ini`,
      "port.serial=5562\ngrpc.port=8562\ngrpc.token=tökén-secret\n",
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), 5_000)));
    const found = await Promise.race([readDiscoveryDir(dir), hung]);
    clearTimeout(timer);
    await Deno.remove(outside);
    assert(found !== "hung", "reading the directory waited on the FIFO");
    assertEquals(found.map((e) => e.serial), ["emulator-5554"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("discovery: a KEYNOBI_GRPC_TOKEN no header can carry is refused without quoting it", () => {
  const e = assertThrows(() => explicitEndpoint("127.0.0.1:8554", "abc\r\nsecret", "--grpc"));
  assert(!(e as Error).message.includes("secret"), (e as Error).message);
  assertEquals(explicitEndpoint("127.0.0.1:8554", "ok-token", "--grpc").auth, {
    kind: "token",
    token: "ok-token",
  });
});

Deno.test("discovery: a FIFO swapped in between the listing and the read never holds it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ini = `${dir}/pid_30.ini`;
    await Deno.writeTextFile(ini, TOKEN_INI);
    const mk = await new Deno.Command("mkfifo", { args: [`${dir}/fifo`] }).output();
    assert(mk.success, "mkfifo");
    // The listing sees a regular file; the read may meet the FIFO nobody writes.
    const cycle: [string, string][] = [
      [ini, `${dir}/parked`],
      [`${dir}/fifo`, ini],
      [ini, `${dir}/fifo`],
      [`${dir}/parked`, ini],
    ];
    let found = 0;
    await withSwapper(cycle, async () => {
      for (let i = 0; i < raceRounds(); i++) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const hung = new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), 5_000)));
        const r = await Promise.race([readDiscoveryDir(dir), hung]);
        clearTimeout(timer);
        assert(r !== "hung", `read ${i} waited on the FIFO`);
        for (const e of r) assertEquals(e.serial, "emulator-5554");
        found += r.length;
      }
    });
    assert(found > 0, "some reads met the real file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
