import { parseProperties } from "../../lib/core/properties.ts";
import { gradleVersionFromUrl, inspectWrapper } from "../../lib/project/wrapper.ts";
import { join } from "node:path";
import { assertEquals, assertMatch } from "../assert.ts";
import { realFixtures } from "../real_fixtures.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "../project/_fixture.ts";

const gradleFiles = realFixtures("gradle-files");

Deno.test("parseProperties() handles escapes, separators, comments and continuations", () => {
  const p = parseProperties(
    [
      "# comment",
      "! also a comment",
      "sdk.dir=C\\:\\\\Users\\\\me\\\\Android\\\\Sdk",
      "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.7-all.zip",
      "key : value with spaces  ",
      "spaced value",
      "multi=one, \\",
      "    two",
      "uni=\\u00e9",
      "org.gradle.java.home=/opt/jdk",
    ].join("\r\n"),
  );
  assertEquals(p.get("sdk.dir"), "C:\\Users\\me\\Android\\Sdk");
  assertEquals(
    p.get("distributionUrl"),
    "https://services.gradle.org/distributions/gradle-8.7-all.zip",
  );
  assertEquals(p.get("key"), "value with spaces  ");
  assertEquals(p.get("spaced"), "value");
  assertEquals(p.get("multi"), "one, two");
  assertEquals(p.get("uni"), "é");
  assertEquals(p.get("org.gradle.java.home"), "/opt/jdk");
  assertEquals(p.has("# comment"), false);
});

Deno.test({
  name: "parseProperties() reads a real gradle.properties",
  ignore: !gradleFiles.present,
  fn() {
    const p = parseProperties(
      gradleFiles.text("fossify-calculator_gradle.properties"),
    );
    assertEquals(p.get("org.gradle.parallel"), "true");
    assertEquals(p.get("APP_ID"), "org.fossify.math");
    assertMatch(p.get("org.gradle.jvmargs") ?? "", /^-Xmx4g /);
  },
});

Deno.test("gradleVersionFromUrl() reads bin, all, rc and milestone URLs", () => {
  const base = "https://services.gradle.org/distributions/";
  assertEquals(gradleVersionFromUrl(`${base}gradle-8.7-bin.zip`), "8.7");
  assertEquals(gradleVersionFromUrl(`${base}gradle-8.11.1-all.zip`), "8.11.1");
  assertEquals(gradleVersionFromUrl(`${base}gradle-9.0-rc-1-bin.zip`), "9.0-rc-1");
  assertEquals(gradleVersionFromUrl("https://example.com/dist.zip"), null);
});

Deno.test("inspectWrapper() reports gradlew, executability and the version", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, SAMPLE_PROJECT);
  let w = await inspectWrapper(tmp.path);
  assertEquals([w.ok, w.present, w.executable, w.gradle_version], [true, true, false, "8.7"]);
  assertMatch(w.hint ?? "", /chmod \+x gradlew/);
  await Deno.chmod(join(tmp.path, "gradlew"), 0o755);
  w = await inspectWrapper(tmp.path);
  assertEquals([w.ok, w.executable, w.hint], [true, true, null]);
  await Deno.remove(join(tmp.path, "gradlew"));
  w = await inspectWrapper(tmp.path);
  assertEquals([w.ok, w.path], [false, null]);
  assertMatch(w.hint ?? "", /gradle wrapper/);
});
