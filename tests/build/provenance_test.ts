import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { join } from "node:path";
import {
  buildFileCandidates,
  type GitRun,
  MAX_CHANGED_FILES,
  NoCommitReason,
  noCommitReason,
  PorcelainCounter,
  readProvenance,
} from "../../lib/build/shared/provenance.ts";

async function tempDir() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "keynobi-prov-" }));
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** git for the test's own setup, isolated from the user's config. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args],
    cwd,
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

async function sha256(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const SETTINGS = `rootProject.name = "demo"\ninclude(":app", ":lib:core")\n`;
const APP_BUILD = `plugins { id("com.android.application") }\n`;

async function writeProject(dir: string) {
  await Deno.mkdir(join(dir, "app"));
  await Deno.mkdir(join(dir, "lib", "core"), { recursive: true });
  await Deno.mkdir(join(dir, "gradle", "wrapper"), { recursive: true });
  await Deno.writeTextFile(join(dir, "settings.gradle.kts"), SETTINGS);
  await Deno.writeTextFile(join(dir, "build.gradle.kts"), "// root\n");
  await Deno.writeTextFile(join(dir, "app", "build.gradle.kts"), APP_BUILD);
  await Deno.writeTextFile(join(dir, "lib", "core", "build.gradle"), "apply plugin: 'java'\n");
  await Deno.writeTextFile(join(dir, "gradle.properties"), "org.gradle.jvmargs=-Xmx2g\n");
  await Deno.writeTextFile(
    join(dir, "gradle", "wrapper", "gradle-wrapper.properties"),
    "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.9-bin.zip\n",
  );
}

const hasGit = await new Deno.Command("git", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().then((o) => o.success, () => false);
if (!hasGit) console.error("provenance_test: git is not installed; skipping the real-git tests");

/** A whole `status --porcelain=v1 -z` output through the counter, as readProvenance feeds it. */
function parsePorcelainZ(output: string): { files: string[]; count: number } {
  const counter = new PorcelainCounter();
  counter.push(new TextEncoder().encode(output));
  counter.finish();
  return { files: counter.files, count: counter.count };
}

Deno.test("PorcelainCounter counts entries, takes the new path of a rename", () => {
  const out = " M app/build.gradle.kts\0R  new.txt\0old.txt\0?? notes.md\0A  src/a.kt\0";
  assertEquals(parsePorcelainZ(out), {
    files: ["app/build.gradle.kts", "new.txt", "notes.md", "src/a.kt"],
    count: 4,
  });
});

Deno.test("PorcelainCounter bounds the list but counts everything", () => {
  const n = MAX_CHANGED_FILES + 25;
  const out = Array.from({ length: n }, (_, i) => `?? f${i}.txt\0`).join("");
  const parsed = parsePorcelainZ(out);
  assertEquals(parsed.count, n);
  assertEquals(parsed.files.length, MAX_CHANGED_FILES);
  assertEquals(parsed.files[0], "f0.txt");
  assertEquals(parsePorcelainZ(""), { files: [], count: 0 });
});

function run(fields: Partial<GitRun>): GitRun {
  return { code: 128, stdout: "", stderr: "", timedOut: false, notFound: false, ...fields };
}

Deno.test("noCommitReason() names each reason", () => {
  assertEquals(noCommitReason(run({ code: null, notFound: true })), NoCommitReason.notInstalled);
  assertEquals(noCommitReason(run({ code: null, timedOut: true })), NoCommitReason.timedOut);
  assertEquals(
    noCommitReason(
      run({ stderr: "fatal: not a git repository (or any of the parent directories)" }),
    ),
    NoCommitReason.notRepository,
  );
  assertEquals(
    noCommitReason(run({
      stdout: "HEAD",
      stderr: "fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree.",
    })),
    NoCommitReason.noCommits,
  );
  assertStringIncludes(
    noCommitReason(run({ stderr: "fatal: detected dubious ownership in repository at '/x'" })),
    "owned by another user",
  );
  assertEquals(
    noCommitReason(run({ stderr: "fatal: something odd\nmore" })),
    "git failed: something odd",
  );
  assertEquals(noCommitReason(run({ code: 3 })), "git failed with exit code 3");
});

Deno.test("buildFileCandidates() adds each module's build files", () => {
  const files = buildFileCandidates(
    `include(":app")\ninclude(":x")\nproject(":x").projectDir = file("libs/x")\n` +
      `include(":evil")\nproject(":evil").projectDir = file("../outside")\n`,
  );
  for (const f of ["settings.gradle.kts", "gradle/libs.versions.toml", "app/build.gradle.kts"]) {
    assert(files.includes(f), f);
  }
  assert(files.includes("libs/x/build.gradle"));
  assert(!files.some((f) => f.includes("..")));
  assertEquals(buildFileCandidates(null).length, 7);
});

Deno.test({
  name: "readProvenance() outside git says not a git repository, still hashes build files",
  ignore: !hasGit,
  async fn() {
    await using t = await tempDir();
    await writeProject(t.dir);
    const p = await readProvenance(t.dir, { gradleVersion: "8.9", jdkVersion: "17.0.2" });
    assertEquals(p.commit, null);
    assertEquals(p.no_commit_because, NoCommitReason.notRepository);
    assertEquals(p.dirty, null);
    assertEquals(p.gradle_version, "8.9");
    assertEquals(p.jdk_version, "17.0.2");
    assertEquals(p.build_files["settings.gradle.kts"], await sha256(SETTINGS));
    assertEquals(p.build_files["app/build.gradle.kts"], await sha256(APP_BUILD));
    assert("lib/core/build.gradle" in p.build_files);
    assert("gradle/wrapper/gradle-wrapper.properties" in p.build_files);
    assert(!("settings.gradle" in p.build_files));
  },
});

Deno.test({
  name: "readProvenance() of a repository without commits says so and lists changes",
  ignore: !hasGit,
  async fn() {
    await using t = await tempDir();
    await writeProject(t.dir);
    await git(t.dir, "init", "-q");
    const p = await readProvenance(t.dir);
    assertEquals(p.commit, null);
    assertEquals(p.no_commit_because, NoCommitReason.noCommits);
    assertEquals(p.dirty, true);
    assert(p.changed_file_count >= 3);
  },
});

Deno.test({
  name: "readProvenance() records commit, branch and uncommitted changes",
  ignore: !hasGit,
  async fn() {
    await using t = await tempDir();
    await writeProject(t.dir);
    await git(t.dir, "init", "-q", "-b", "trunk");
    await git(t.dir, "add", "-A");
    await git(t.dir, "commit", "-q", "-m", "first");
    const head = await git(t.dir, "rev-parse", "HEAD");

    const clean = await readProvenance(t.dir);
    assertEquals(clean.commit, head);
    assertEquals(clean.branch, "trunk");
    assertEquals(clean.dirty, false);
    assertEquals(clean.changed_files, []);
    assertEquals(clean.no_commit_because, null);

    await Deno.writeTextFile(join(t.dir, "app", "build.gradle.kts"), APP_BUILD + "// edit\n");
    await Deno.writeTextFile(join(t.dir, "new file.txt"), "x");
    const dirty = await readProvenance(t.dir);
    assertEquals(dirty.dirty, true);
    assertEquals(dirty.changed_file_count, 2);
    assertEquals(dirty.changed_files.sort(), ["app/build.gradle.kts", "new file.txt"]);
    assertEquals(dirty.build_files["app/build.gradle.kts"], await sha256(APP_BUILD + "// edit\n"));

    await git(t.dir, "checkout", "-q", "--detach");
    assertEquals((await readProvenance(t.dir)).branch, null);
  },
});

Deno.test("readProvenance() without git says git is not installed", async () => {
  await using t = await tempDir();
  const p = await readProvenance(t.dir, { git: join(t.dir, "no-such-git") });
  assertEquals(p.no_commit_because, NoCommitReason.notInstalled);
  assertEquals(p.commit, null);
  assertEquals(p.build_files, {});
});

Deno.test("readProvenance() stops a git that hangs", async () => {
  await using t = await tempDir();
  const fake = join(t.dir, "git");
  // The child sleep keeps the pipe open after sh is killed; the read must not wait for it.
  await Deno.writeTextFile(fake, "#!/bin/sh\nsleep 5\n", { mode: 0o755 });
  const p = await readProvenance(t.dir, { git: fake, timeoutMs: 200 });
  assertEquals(p.no_commit_because, NoCommitReason.timedOut);
});

Deno.test({
  name: "readProvenance() skips a build file that is a symlink out of the project",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using t = await tempDir();
    await using outside = await tempDir();
    await Deno.writeTextFile(join(outside.dir, "secret.properties"), "token=1\n");
    await Deno.writeTextFile(join(t.dir, "settings.gradle"), "include ':app'\n");
    await Deno.symlink(join(outside.dir, "secret.properties"), join(t.dir, "gradle.properties"));
    const p = await readProvenance(t.dir, { git: join(t.dir, "no-such-git") });
    assertEquals(Object.keys(p.build_files), ["settings.gradle"]);
  },
});

Deno.test("readProvenance() refuses an out-of-range timeout", async () => {
  await assertRejects(() => readProvenance("/", { timeoutMs: 0 }), RangeError);
  await assertRejects(() => readProvenance("/", { timeoutMs: 10_000_000 }), RangeError);
});
