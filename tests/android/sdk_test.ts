import { join } from "node:path";
import { mapEnv } from "../../lib/core/env.ts";
import { defaultSettings } from "../../lib/core/settings.ts";
import { compareVersionsDesc, findSdk } from "../../lib/android/sdk.ts";
import { describeAndroidCli, firstLine } from "../../lib/android/android_cli.ts";
import { assertEquals, assertMatch } from "../assert.ts";
import { fakeSdk, tempDir, writeScript, writeTree } from "../project/_fixture.ts";

Deno.test("compareVersionsDesc() sorts numerically, newest first", () => {
  assertEquals(["9.0.0", "35.0.1", "34.0.0", "35.0.0"].sort(compareVersionsDesc), [
    "35.0.1",
    "35.0.0",
    "34.0.0",
    "9.0.0",
  ]);
  assertEquals(["android-9", "android-35"].sort(compareVersionsDesc), ["android-35", "android-9"]);
});

Deno.test("findSdk() uses settings, then ANDROID_HOME, and lists what it holds", async () => {
  await using tmp = await tempDir();
  const sdk = join(tmp.path, "sdk");
  await fakeSdk(sdk);
  const viaEnv = await findSdk({
    env: mapEnv({ ANDROID_HOME: sdk }),
    settings: defaultSettings(),
    defaults: [],
  });
  assertEquals(
    [viaEnv.ok, viaEnv.path, viaEnv.source, viaEnv.platforms, viaEnv.build_tools, viaEnv.hint],
    [true, sdk, "ANDROID_HOME", ["android-35", "android-34"], ["35.0.1", "34.0.0"], null],
  );
  assertEquals(viaEnv.adb_path, join(sdk, "platform-tools", "adb"));
  const viaSettings = await findSdk({
    env: mapEnv({ ANDROID_HOME: join(tmp.path, "other") }),
    settings: { ...defaultSettings(), sdk_path: sdk },
    defaults: [],
  });
  assertEquals(viaSettings.source, "settings");
});

Deno.test("findSdk() reads local.properties sdk.dir only for a trusted project", async () => {
  await using tmp = await tempDir();
  const sdk = join(tmp.path, "sdk");
  const def = join(tmp.path, "home", "Android", "Sdk");
  await fakeSdk(sdk);
  await fakeSdk(def);
  const proj = join(tmp.path, "proj");
  await writeTree(proj, { "local.properties": `sdk.dir=${sdk.replaceAll(":", "\\:")}\n` });
  const base = { env: mapEnv({}), settings: defaultSettings(), projectRoot: proj, defaults: [def] };
  const trusted = await findSdk({ ...base, trusted: true });
  assertEquals([trusted.path, trusted.source], [sdk, "localProperties"]);
  const untrusted = await findSdk({ ...base, trusted: false });
  assertEquals([untrusted.path, untrusted.source], [def, "default"]);
});

Deno.test("findSdk() says what to do when nothing is found or a variable is wrong", async () => {
  await using tmp = await tempDir();
  const none = await findSdk({
    env: mapEnv({ ANDROID_HOME: join(tmp.path, "gone") }),
    settings: defaultSettings(),
    defaults: [join(tmp.path, "nope")],
  });
  assertEquals([none.ok, none.path, none.source], [false, null, null]);
  assertMatch(
    none.hint ?? "",
    /ANDROID_HOME points to .*gone, which is not a folder\. No Android SDK found/,
  );
  await Deno.mkdir(join(tmp.path, "empty"));
  const empty = await findSdk({
    env: mapEnv({ ANDROID_HOME: join(tmp.path, "empty") }),
    settings: defaultSettings(),
    defaults: [],
  });
  assertEquals(empty.ok, false);
  assertMatch(empty.hint ?? "", /does not look like an Android SDK/);
});

Deno.test("describeAndroidCli() finds android, canonical path and first version line", async () => {
  await using tmp = await tempDir();
  const bin = join(tmp.path, "bin");
  assertEquals((await describeAndroidCli(mapEnv({}), { dirs: [bin] })).installed, false);
  await writeScript(join(tmp.path, "real", "android"), 'echo ""\necho "android 0.7.1"\necho more');
  await Deno.mkdir(bin);
  await Deno.symlink(join(tmp.path, "real", "android"), join(bin, "android"));
  const cli = await describeAndroidCli(mapEnv({}), { dirs: [bin] });
  assertEquals([cli.installed, cli.path, cli.version, cli.hint], [
    true,
    join(tmp.path, "real", "android"),
    "android 0.7.1",
    null,
  ]);
  assertEquals(firstLine("\n\n  x  \ny"), "x");
});
