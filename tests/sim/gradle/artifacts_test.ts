import { assertEquals } from "../../assert.ts";
import { apkBytes, apkFileName, crc32, zip } from "./artifacts.ts";
import { parseManifest, variantsOf } from "./manifest.ts";
import { readAxmlManifest, readStoredZip } from "./_zip_reader.ts";
import { parseGradleArgs } from "./cli.ts";

const enc = new TextEncoder();

Deno.test("crc32() gives the standard check value", () => {
  assertEquals(crc32(enc.encode("123456789")), 0xcbf43926);
});

Deno.test("zip() round-trips through an independent reader", () => {
  const bytes = zip([
    { name: "a.txt", data: enc.encode("alpha") },
    { name: "dir/", data: new Uint8Array() },
    { name: "dir/b.bin", data: new Uint8Array([0, 1, 2, 255]) },
  ]);
  const got = readStoredZip(bytes);
  assertEquals([...got.keys()], ["a.txt", "dir/", "dir/b.bin"]);
  assertEquals(new TextDecoder().decode(got.get("a.txt")), "alpha");
  assertEquals(got.get("dir/b.bin"), new Uint8Array([0, 1, 2, 255]));
});

Deno.test("apkBytes() carries the variant's package in binary XML and differs per build", async () => {
  const model = parseManifest(
    await Deno.readTextFile(new URL("../projects/sample-groovy/.sim-gradle.json", import.meta.url)),
  );
  const m = model.modules[0];
  const [debug] = variantsOf(m);
  const id = { variant: debug, versionCode: 7, minSdk: 23, launcherActivity: "a.B", build: 4 };
  const apk = readStoredZip(apkBytes(id));
  assertEquals(readAxmlManifest(apk.get("AndroidManifest.xml")!), {
    versionCode: 7,
    versionName: "0.7",
    package: "com.example.keynobi.groovy.debug",
  });
  const again = apkBytes({ ...id, build: 5 });
  assertEquals(apkBytes(id), apkBytes({ ...id }), "same inputs, same bytes");
  assertEquals(again.length, apkBytes(id).length);
  assertEquals(again.some((b, i) => b !== apkBytes(id)[i]), true);
  assertEquals(apkFileName("app", debug), "app-debug.apk");
});

Deno.test("parseGradleArgs() reads tasks, options with values, properties and task options", () => {
  const r = parseGradleArgs([
    "--console=plain",
    "-Pandroid.injected.testOnly=false",
    "-x",
    "lint",
    "testDebugUnitTest",
    "--tests",
    "*Greeting*",
    "-q",
    "--offline",
  ]);
  if (!r.ok) throw new Error(r.message);
  assertEquals(r.args.tasks, ["testDebugUnitTest"]);
  assertEquals(r.args.excluded, ["lint"]);
  assertEquals(r.args.properties.get("android.injected.testOnly"), "false");
  assertEquals([r.args.quiet, r.args.stacktrace], [true, false]);
  const bad = parseGradleArgs(["--console=fancy"]);
  assertEquals(bad.ok, false);
  const unknown = parseGradleArgs(["--tests", "x"]);
  assertEquals(unknown.ok ? "" : unknown.message, "Unknown command-line option '--tests'.");
});
