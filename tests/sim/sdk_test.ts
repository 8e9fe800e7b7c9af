import { assert, assertEquals } from "../assert.ts";
import { startSimulator } from "./mod.ts";

async function run(cmd: string, args: string[], cwd?: string) {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("fake SDK: adb version prints the real format, other commands refuse", async () => {
  await using sim = await startSimulator();
  const adb = `${sim.sdkRoot}/platform-tools/adb`;
  const v = await run(adb, ["version"]);
  assertEquals(v.code, 0);
  const lines = v.stdout.split("\n");
  assertEquals(lines[0], "Android Debug Bridge version 1.0.41");
  assertEquals(lines[1], "Version 35.0.2-12147458");
  assertEquals(lines[2], `Installed as ${adb}`);
  assert(/^Running on Linux .+ \(.+\)$/.test(lines[3]), lines[3]);
  const d = await run(adb, ["devices"]);
  assertEquals(d.code, 1);
  assertEquals(d.stderr, "adb: devices not supported by the keynobi simulator\n");
  for (const dir of ["platforms/android-35", "build-tools/35.0.0"]) {
    assert((await Deno.stat(`${sim.sdkRoot}/${dir}`)).isDirectory, dir);
  }
  const retrace = `${sim.sdkRoot}/cmdline-tools/latest/bin/retrace`;
  const map = `${sim.root}/mapping.txt`;
  const trace = `${sim.root}/trace.txt`;
  await Deno.writeTextFile(map, "com.example.Main -> a.a:\n");
  await Deno.writeTextFile(trace, "java.lang.RuntimeException\n\tat a.a.b(SourceFile:1)\n");
  const r = await run(retrace, [map, trace]);
  assertEquals(r.code, 0);
  assertEquals(r.stdout, "java.lang.RuntimeException\n\tat a.a.b(SourceFile:1)\n");
  assertEquals((await run(retrace, [`${sim.root}/missing.txt`])).code, 1);
});

Deno.test("sample projects are copied into the sim root with an executable gradlew", async () => {
  await using sim = await startSimulator();
  assertEquals(Object.keys(sim.projects).sort(), ["sample-groovy", "sample-kts"]);
  const kts = sim.projects["sample-kts"];
  assert(kts.startsWith(sim.root));
  const settings = await Deno.readTextFile(`${kts}/settings.gradle.kts`);
  assert(settings.includes('include(":app")') && settings.includes("rootProject.name"));
  const app = await Deno.readTextFile(`${kts}/app/build.gradle.kts`);
  for (
    const s of [
      'namespace = "com.example.keynobi.sample"',
      'applicationId = "com.example.keynobi.sample"',
      'applicationIdSuffix = ".debug"',
      'create("demo")',
      'create("full")',
    ]
  ) assert(app.includes(s), s);
  const groovy = sim.projects["sample-groovy"];
  assert((await Deno.readTextFile(`${groovy}/app/build.gradle`)).includes("buildTypes"));
  assert((await Deno.stat(`${groovy}/app/src/main/AndroidManifest.xml`)).isFile);
  const wrapper = await Deno.readTextFile(`${kts}/gradle/wrapper/gradle-wrapper.properties`);
  assert(
    wrapper.includes("distributionUrl=https\\://services.gradle.org/distributions/gradle-8.9"),
  );
  const g = await run(`${kts}/gradlew`, ["--version"], kts);
  assertEquals(g.code, 0);
  assert(g.stdout.includes("\nGradle 8.9\n"), g.stdout);
  // The fake Gradle (tests/sim/gradle) builds; tests/sim/gradle_test.ts covers what it does.
  assertEquals((await run(`${kts}/gradlew`, ["nosuchtask"], kts)).code, 1);
});

Deno.test("startSimulator({dir}) keeps the folder; the default temp dir is removed on close", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-sim-test-" });
  try {
    const kept = await startSimulator({ dir });
    assertEquals(kept.root, dir);
    await kept.close();
    assert((await Deno.stat(`${dir}/journal.jsonl`)).isFile);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const temp = await startSimulator();
  const root = temp.root;
  await temp.close();
  let exists = true;
  try {
    await Deno.stat(root);
  } catch {
    exists = false;
  }
  assertEquals(exists, false);
});

Deno.test("scripts/sim.ts prints one JSON line and stops cleanly on SIGTERM", async () => {
  const script = new URL("../../scripts/sim.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      "--allow-env",
      "--allow-run",
      "--allow-sys",
      script,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const info = JSON.parse(text.split("\n")[0]);
  assert(/^tcp:127\.0\.0\.1:\d+$/.test(info.adb_server_socket));
  assertEquals(info.devices.map((d: { kind: string }) => d.kind), ["emulator", "usb", "wireless"]);
  assertEquals(info.devices[2], {
    serial: "192.168.1.23:5555",
    state: "device",
    kind: "wireless",
    model: "Pixel 7",
    api: 33,
  });
  assert(info.projects["sample-kts"] && info.sdk_root && info.journal);
  child.kill("SIGTERM");
  while (!(await reader.read()).done) { /* drain */ }
  const status = await child.status;
  await child.stderr.cancel();
  assertEquals(status.code, 0);
  let exists = true;
  try {
    await Deno.stat(info.journal);
  } catch {
    exists = false;
  }
  assertEquals(exists, false, "temp dir removed");
});
