import { join } from "node:path";
import { MAX_APK_BYTES, readApkManifestFrom, sha256OfAccess } from "../../lib/android/apk.ts";
import { openCheckedApk, outputsModuleOf } from "../../lib/deploy/apk_file.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { apkBytes } from "../sim/gradle/artifacts.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";

const enc = new TextEncoder();

// ── The checked APK file ───────────────────────────────────────────────────────────────────

async function project() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "keynobi-apk-" }));
  const out = join(root, "app", "build", "outputs", "apk", "debug");
  await Deno.mkdir(out, { recursive: true });
  await Deno.mkdir(join(root, "lib", "build", "outputs"), { recursive: true });
  await Deno.writeFile(join(out, "app-debug.apk"), enc.encode("PK\x03\x04APK-BYTES"));
  return { root, out, modules: [{ path: ":app", dir: "app" }] };
}

Deno.test("outputsModuleOf() names the module whose build/outputs holds the file", () => {
  const mods = [{ path: ":app", dir: "app" }, { path: ":", dir: "" }];
  assertEquals(outputsModuleOf("/p", "/p/app/build/outputs/apk/x.apk", mods)?.path, ":app");
  assertEquals(outputsModuleOf("/p", "/p/build/outputs/x.apk", mods)?.path, ":");
  assertEquals(outputsModuleOf("/p", "/p/app/src/x.apk", mods), null);
  assertEquals(outputsModuleOf("/p", "/p/app/build/outputs", mods), null);
});

Deno.test("openCheckedApk() reads the checked file by relative or absolute path", async () => {
  const p = await project();
  try {
    const a = await openCheckedApk(p.root, "app/build/outputs/apk/debug/app-debug.apk", p.modules);
    const head = new Uint8Array(a.size);
    assertEquals(await a.file.read(head, 0), a.size);
    await a.file.close();
    assertEquals(new TextDecoder().decode(head), "PK\x03\x04APK-BYTES");
    assertEquals(a.module, ":app");
    assertEquals(a.relative, "app/build/outputs/apk/debug/app-debug.apk");
    const b = await openCheckedApk(p.root, join(p.out, "app-debug.apk"), p.modules);
    await b.file.close();
    assertEquals(b.path, a.path);
  } finally {
    await Deno.remove(p.root, { recursive: true });
  }
});

Deno.test("openCheckedApk() refuses symlinks out, non-APKs, other folders and library modules", async () => {
  const p = await project();
  const outside = await Deno.makeTempDir({ prefix: "keynobi-apk-out-" });
  try {
    await Deno.writeFile(join(outside, "evil.apk"), enc.encode("EVIL"));
    await Deno.symlink(join(outside, "evil.apk"), join(p.out, "link.apk"));
    await Deno.writeFile(join(p.out, "notes.txt"), enc.encode("x"));
    await Deno.writeFile(join(p.root, "app", "stray.apk"), enc.encode("x"));
    await Deno.writeFile(join(p.root, "lib", "build", "outputs", "lib.apk"), enc.encode("x"));
    const refused = async (path: string, re: RegExp) => {
      const e = await assertRejects(() => openCheckedApk(p.root, path, p.modules), ToolError);
      assertEquals(e.code, "invalid_params");
      assert(re.test(e.message), e.message);
    };
    await refused("app/build/outputs/apk/debug/link.apk", /outside the project/);
    await refused(join(outside, "evil.apk"), /outside the project/);
    await refused("app/build/outputs/apk/debug/../../../../../x.apk", /no such file/);
    await refused("app/build/outputs/apk/debug/notes.txt", /not an \.apk/);
    await refused("app/stray.apk", /not under an application module's build outputs/);
    await refused("lib/build/outputs/lib.apk", /not under an application module's build outputs/);
    await refused("", /empty/);
  } finally {
    await Deno.remove(p.root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("openCheckedApk() refuses a file swapped for a symlink between the check and the open", async () => {
  const p = await project();
  const outside = await Deno.makeTempDir({ prefix: "keynobi-apk-out-" });
  try {
    const file = join(p.out, "app-debug.apk");
    await Deno.writeFile(join(outside, "evil.apk"), enc.encode("PK\x03\x04EVIL"));
    const e = await assertRejects(
      () =>
        openCheckedApk(p.root, file, p.modules, {
          afterCheck: async () => {
            await Deno.symlink(join(outside, "evil.apk"), `${file}.lnk`);
            await Deno.rename(`${file}.lnk`, file);
          },
        }),
      ToolError,
    );
    assert(/changed while it was being opened/.test(e.message), e.message);
  } finally {
    await Deno.remove(p.root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("openCheckedApk() refuses a file that is not a ZIP before reading it", async () => {
  const p = await project();
  try {
    await Deno.writeFile(join(p.out, "fake.apk"), enc.encode("not a zip at all"));
    const e = await assertRejects(
      () => openCheckedApk(p.root, "app/build/outputs/apk/debug/fake.apk", p.modules),
      ToolError,
    );
    assertEquals(e.code, "invalid_params");
    assert(/ZIP signature/.test(e.message), e.message);
  } finally {
    await Deno.remove(p.root, { recursive: true });
  }
});

Deno.test("openCheckedApk() refuses a file over MAX_APK_BYTES from its size alone", async () => {
  const p = await project();
  try {
    // Sparse: 1 GiB + 1 byte that takes no disk space.
    const big = join(p.out, "big.apk");
    const f = await Deno.open(big, { write: true, create: true });
    await f.truncate(MAX_APK_BYTES + 1);
    f.close();
    const e = await assertRejects(
      () => openCheckedApk(p.root, "app/build/outputs/apk/debug/big.apk", p.modules),
      ToolError,
    );
    assert(/over the \d+-byte limit/.test(e.message), e.message);
  } finally {
    await Deno.remove(p.root, { recursive: true });
  }
});

Deno.test("a checked 512 MiB APK is read by position: opening, manifest and hash hold no copy of it", async () => {
  const p = await project();
  try {
    // A real APK at the start, then a sparse 512 MiB tail; the ZIP end record is moved to the
    // end so the file is still a valid ZIP whose central directory sits before the padding.
    const real = apkBytes({
      variant: {
        name: "bigDebug",
        cap: "BigDebug",
        flavor: "big",
        buildType: { name: "debug" },
        applicationId: "com.example.big",
        versionName: "3.0",
      },
      versionCode: 3,
      minSdk: 24,
      launcherActivity: "com.example.big.MainActivity",
      build: 1,
    });
    const eocd = real.length - 22;
    const body = real.subarray(0, eocd);
    const end = real.slice(eocd);
    const size = 512 * 1024 * 1024;
    const path = join(p.out, "big.apk");
    const f = await Deno.open(path, { write: true, create: true });
    await f.write(body);
    await f.truncate(size - end.length);
    await f.seek(size - end.length, Deno.SeekMode.Start);
    await f.write(end);
    f.close();
    const before = Deno.memoryUsage().rss;
    const apk = await openCheckedApk(p.root, "app/build/outputs/apk/debug/big.apk", p.modules);
    try {
      assertEquals(apk.size, size);
      assertEquals((await readApkManifestFrom(apk.file)).package, "com.example.big");
      assert(/^[0-9a-f]{64}$/.test(await sha256OfAccess(apk.file)));
    } finally {
      await apk.file.close();
    }
    const grown = Deno.memoryUsage().rss - before;
    assert(grown < 128 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1048576)} MiB`);
  } finally {
    await Deno.remove(p.root, { recursive: true });
  }
});

Deno.test("openCheckedApk() never blocks on a FIFO swapped in after the check", async () => {
  const p = await project();
  try {
    const file = join(p.out, "app-debug.apk");
    let made = false;
    const read = openCheckedApk(p.root, file, p.modules, {
      afterCheck: async () => {
        await Deno.remove(file);
        made = (await new Deno.Command("mkfifo", { args: [file] }).output()).success;
      },
    }).then(() => "read", (e) => e);
    let guard: ReturnType<typeof setTimeout> | undefined;
    const blocked = new Promise<string>((resolve) => {
      guard = setTimeout(async () => {
        (await Deno.open(file, { write: true })).close();
        resolve("blocked");
      }, 10_000);
    });
    const outcome = await Promise.race([read, blocked]);
    clearTimeout(guard);
    if (!made) return;
    assert(outcome instanceof ToolError, `expected a refusal, got ${outcome}`);
    assert(/not a regular file/.test(outcome.message), outcome.message);
  } finally {
    await Deno.remove(p.root, { recursive: true });
  }
});
