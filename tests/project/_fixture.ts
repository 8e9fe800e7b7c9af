/** Temp folders and small Gradle projects for tests (never the real home). */
import { dirname, join } from "node:path";

/** Write `files` (relative path → text) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
}

/** A canonical temp folder removed by `await using`. */
export async function tempDir(prefix = "keynobi-test-"): Promise<
  { path: string; [Symbol.asyncDispose](): Promise<void> }
> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * A canonical temp folder with `data` (a keynobi data folder, not created) and `root` (an empty
 * project folder) inside; removed by `await using`.
 */
export async function tempWorld(prefix = "keynobi-world-"): Promise<
  { base: string; data: string; root: string; [Symbol.asyncDispose](): Promise<void> }
> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  const data = join(base, "data");
  const root = join(base, "project");
  await Deno.mkdir(root);
  return {
    base,
    data,
    root,
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** Whether anything exists at `path`. */
export const exists = (path: string): Promise<boolean> =>
  Deno.stat(path).then(() => true, () => false);

/** A two-module Kotlin DSL Android project with a wrapper. */
export const SAMPLE_PROJECT: Record<string, string> = {
  "settings.gradle.kts": 'rootProject.name = "Sample"\ninclude(":app", ":lib")\n',
  "build.gradle.kts": 'plugins {\n  id("com.android.application") version "8.5.0" apply false\n}\n',
  "app/build.gradle.kts": 'plugins {\n  id("com.android.application")\n}\n',
  "app/src/main/AndroidManifest.xml": "<manifest/>\n",
  "lib/build.gradle.kts": 'plugins {\n  id("com.android.library")\n}\n',
  "gradle/wrapper/gradle-wrapper.properties":
    "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.7-bin.zip\n",
  "gradlew": "#!/bin/sh\necho fake\n",
};

/** An executable shell script at `path`. */
export async function writeScript(path: string, body: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
}

/** A fake Android SDK: two platforms, two build-tools, and an `adb` that answers `version`. */
export async function fakeSdk(sdk: string): Promise<void> {
  await Deno.mkdir(join(sdk, "platforms", "android-34"), { recursive: true });
  await Deno.mkdir(join(sdk, "platforms", "android-35"), { recursive: true });
  await Deno.mkdir(join(sdk, "build-tools", "34.0.0"), { recursive: true });
  await Deno.mkdir(join(sdk, "build-tools", "35.0.1"), { recursive: true });
  await writeScript(
    join(sdk, "platform-tools", "adb"),
    'echo "Android Debug Bridge version 1.0.41"\necho "Version 35.0.2-12147458"',
  );
}
