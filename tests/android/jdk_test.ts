import { join } from "node:path";
import { mapEnv } from "../../lib/core/env.ts";
import { defaultSettings } from "../../lib/core/settings.ts";
import {
  describeJava,
  javaMajor,
  parseJavaVersion,
  rankJdkNames,
  releaseVersion,
  resolveJavaHome,
  runProbe,
} from "../../lib/android/jdk.ts";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { tempDir, writeScript, writeTree } from "../project/_fixture.ts";

const NO_LOCATIONS = { androidStudio: [], jdkParents: [] };

async function fakeJdk(home: string, version: string): Promise<void> {
  await writeScript(
    join(home, "bin", "java"),
    `echo 'Picked up JAVA_TOOL_OPTIONS: -Dx=1' >&2\necho 'openjdk version "${version}" 2025-04-15' >&2`,
  );
}

Deno.test("parseJavaVersion() reads modern and 1.x versions", () => {
  assertEquals(parseJavaVersion('openjdk version "17.0.15" 2025-04-15'), {
    version: "17.0.15",
    major: 17,
  });
  assertEquals(parseJavaVersion('java version "1.8.0_392"'), { version: "1.8.0_392", major: 8 });
  assertEquals(parseJavaVersion('openjdk version "21" 2023-09-19'), { version: "21", major: 21 });
  assertEquals(parseJavaVersion("no version here"), null);
});

Deno.test("javaMajor() and rankJdkNames() prefer JDK 17–21 folders", () => {
  assertEquals(javaMajor("java-1.17.0-openjdk-amd64"), 17);
  assertEquals(javaMajor("jdk1.8.0_392.jdk"), 8);
  assertEquals(javaMajor("temurin-25-jdk-amd64"), 25);
  assertEquals(
    rankJdkNames(["temurin-25-jdk", "java-8-openjdk", "java-17-openjdk", "jdk-21.0.2"]),
    ["jdk-21.0.2", "java-17-openjdk", "temurin-25-jdk", "java-8-openjdk"],
  );
});

Deno.test("resolveJavaHome() follows the spec's order", async () => {
  await using tmp = await tempDir();
  const home = join(tmp.path, "home");
  const proj = join(tmp.path, "proj");
  await writeTree(proj, { "gradle.properties": "org.gradle.java.home=/project/jdk\n" });
  const studio = join(tmp.path, "studio", "jbr");
  const jvm = join(tmp.path, "jvm");
  await fakeJdk(studio, "21.0.3");
  await fakeJdk(join(jvm, "java-17-openjdk"), "17.0.1");
  await fakeJdk(join(jvm, "java-11-openjdk"), "11.0.1");
  const env = mapEnv({ HOME: home });
  const settings = { ...defaultSettings(), java_home: "/settings/jdk" };
  const locations = { androidStudio: [studio], jdkParents: [jvm] };
  const base = { env, settings, projectRoot: proj, locations };

  assertEquals(await resolveJavaHome({ ...base, trusted: true }), {
    home: "/project/jdk",
    source: "projectGradleProperties",
  });
  assertEquals(
    await resolveJavaHome({ ...base, trusted: false }),
    { home: "/settings/jdk", source: "settings" },
    "an untrusted project's gradle.properties is ignored",
  );
  await writeTree(home, { ".gradle/gradle.properties": "org.gradle.java.home=/user/jdk\n" });
  assertEquals((await resolveJavaHome({ ...base, trusted: true }))?.source, "userGradleProperties");
  const gh = join(tmp.path, "gh");
  await writeTree(gh, { "gradle.properties": "org.gradle.java.home=/gh/jdk\n" });
  assertEquals(
    (await resolveJavaHome({
      ...base,
      env: mapEnv({ HOME: home, GRADLE_USER_HOME: gh }),
      trusted: true,
    }))
      ?.home,
    "/gh/jdk",
  );
  const bare = { env: mapEnv({ HOME: join(tmp.path, "nohome") }), settings: defaultSettings() };
  assertEquals(
    await resolveJavaHome({ ...bare, projectRoot: null, trusted: false, locations }),
    { home: studio, source: "androidStudio" },
  );
  assertEquals(
    await resolveJavaHome({
      ...bare,
      projectRoot: null,
      trusted: false,
      locations: { androidStudio: [], jdkParents: [jvm] },
    }),
    { home: join(jvm, "java-17-openjdk"), source: "installedJdk" },
  );
  assertEquals(
    await resolveJavaHome({
      env: mapEnv({ HOME: join(tmp.path, "nohome"), JAVA_HOME: join(jvm, "java-11-openjdk") }),
      settings: defaultSettings(),
      projectRoot: null,
      trusted: false,
      locations: { androidStudio: [], jdkParents: [jvm] },
    }),
    { home: join(jvm, "java-11-openjdk"), source: "installedJdk" },
    "JAVA_HOME comes before known folders",
  );
  assertEquals(
    await resolveJavaHome({ ...bare, projectRoot: null, trusted: false, locations: NO_LOCATIONS }),
    null,
  );
});

Deno.test("describeJava() probes the resolved JDK and warns below 17", async () => {
  await using tmp = await tempDir();
  const jdk = join(tmp.path, "jdk11");
  await fakeJdk(jdk, "11.0.22");
  const java = await describeJava({
    env: mapEnv({ HOME: join(tmp.path, "h") }),
    settings: { ...defaultSettings(), java_home: jdk },
    projectRoot: null,
    trusted: false,
    locations: NO_LOCATIONS,
  });
  assertEquals(
    [java.ok, java.source, java.major_version, java.version, java.java_home, java.bin],
    [true, "settings", 11, "11.0.22", jdk, join(jdk, "bin", "java")],
  );
  assertMatch(java.warning ?? "", /JDK 11 is older than 17/);
});

Deno.test("describeJava() reports a broken configured JDK with a hint", async () => {
  await using tmp = await tempDir();
  const java = await describeJava({
    env: mapEnv({ HOME: join(tmp.path, "h") }),
    settings: { ...defaultSettings(), java_home: join(tmp.path, "missing") },
    projectRoot: null,
    trusted: false,
    locations: NO_LOCATIONS,
  });
  assertEquals([java.ok, java.source], [false, "settings"]);
  assertMatch(
    java.hint ?? "",
    /^Cannot run .*java -version \(from java_home in keynobi's settings.json\)/,
  );
});

Deno.test("describeJava() falls back to java on PATH with a null source", async () => {
  await using tmp = await tempDir();
  const jdk = join(tmp.path, "pathjdk");
  await fakeJdk(jdk, "17.0.15");
  const env = mapEnv({ HOME: join(tmp.path, "h"), PATH: join(jdk, "bin") });
  const java = await describeJava({
    env,
    settings: defaultSettings(),
    projectRoot: null,
    trusted: false,
    locations: NO_LOCATIONS,
  });
  assertEquals([java.ok, java.source, java.major_version, java.java_home], [true, null, 17, jdk]);
  const none = await describeJava({
    env: mapEnv({ HOME: join(tmp.path, "h"), PATH: join(tmp.path, "empty") }),
    settings: defaultSettings(),
    projectRoot: null,
    trusted: false,
    locations: NO_LOCATIONS,
  });
  assertEquals([none.ok, none.bin], [false, null]);
  assertMatch(none.hint ?? "", /^No JDK found: install JDK 17/);
});

Deno.test("runProbe() kills a probe that exceeds its timeout", async () => {
  await using tmp = await tempDir();
  const slow = join(tmp.path, "slow");
  await writeScript(slow, "echo started\nsleep 3");
  const r = await runProbe(slow, [], 300);
  assertEquals([r.ok, r.timedOut], [false, true]);
  assertMatch(r.error ?? "", /did not finish within 300 ms/);
  const missing = await runProbe(join(tmp.path, "nope"), []);
  assert(!missing.ok && missing.error !== null);
});

Deno.test("releaseVersion() reads JAVA_VERSION from a JDK's release file", async () => {
  const home = await Deno.makeTempDir();
  try {
    assertEquals(await releaseVersion(home), null);
    await Deno.writeTextFile(
      `${home}/release`,
      'IMPLEMENTOR="Debian"\nJAVA_RUNTIME_VERSION="17.0.15+6-Debian-1deb12u1"\nJAVA_VERSION="17.0.15"\n',
    );
    assertEquals(await releaseVersion(home), { version: "17.0.15", major: 17 });
    await Deno.writeTextFile(`${home}/release`, 'JAVA_VERSION="1.8.0_392"\n');
    assertEquals((await releaseVersion(home))?.major, 8);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
