import {
  getInstalledBuild,
  type InstalledBuild,
  listInstalledBuilds,
  matchBuildRecord,
  MAX_INSTALLED_BUILDS,
  normalizeInstalled,
  recordedLine,
  recordInstall,
  withInstall,
} from "../../lib/sessions/installed_builds.ts";
import { installedBuildsPath } from "../../lib/core/data_dir.ts";
import type { BuildRecord } from "../../lib/build/shared/build_record.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";

const SHA_A = "a".repeat(64);
const SHA_B = "b".repeat(64);

function entry(over: Partial<InstalledBuild> = {}): InstalledBuild {
  return {
    serial: "emulator-5554",
    package: "com.example.app",
    version_code: 3,
    version_name: "1.2",
    apk_sha256: SHA_A,
    apk_bytes: 1234,
    apk_path: "/p/app/build/outputs/apk/debug/app-debug.apk",
    project: "/p",
    build_id: 7,
    module: ":app",
    variant: "debug",
    task: ":app:assembleDebug",
    installed_at: "2025-01-01T00:00:00.000Z",
    installed_by: { kind: "agent", session_id: "s1", client_name: "claude-code", standalone: true },
    recorded_by: "standalone",
    map_ids: [],
    mapping_sha256: null,
    device_last_update_time: null,
    ...over,
  };
}

function record(id: number, project: string, sha: string | null): BuildRecord {
  return {
    id,
    project,
    apks: sha === null ? [] : [{
      module: ":app",
      variant: "debug",
      path: "app/build/outputs/apk/debug/app-debug.apk",
      sha256: sha,
      bytes: 10,
      application_id: "com.example.app",
    }],
  } as unknown as BuildRecord;
}

Deno.test("withInstall() replaces the device's record of that package and keeps others", () => {
  const a = entry();
  const other = entry({ serial: "R58M123", apk_sha256: SHA_B });
  const next = withInstall([a, other], entry({ apk_sha256: SHA_B, build_id: 8 }));
  assertEquals(next.length, 2);
  assertEquals(next.map((r) => [r.serial, r.build_id]), [["R58M123", 7], ["emulator-5554", 8]]);
  const many = Array.from({ length: 5 }, (_, i) => entry({ package: `com.p.a${i}` }));
  assertEquals(withInstall(many, entry({ package: "com.p.new" }), 3).map((r) => r.package), [
    "com.p.a3",
    "com.p.a4",
    "com.p.new",
  ]);
});

Deno.test("matchBuildRecord() picks the newest record of the project listing the hash", () => {
  const records = [record(9, "/other", SHA_A), record(5, "/p", SHA_A), record(8, "/p", SHA_A)];
  assertEquals(matchBuildRecord(records, SHA_A, "/p")?.record.id, 8);
  assertEquals(matchBuildRecord(records, SHA_A)?.record.id, 9);
  assertEquals(matchBuildRecord(records, SHA_B, "/p"), null);
});

Deno.test("normalizeInstalled() drops incomplete records and bad hashes", () => {
  assertEquals(normalizeInstalled({ ...entry(), apk_sha256: "xyz" }), null);
  assertEquals(normalizeInstalled({ ...entry(), installed_by: { kind: "nobody" } }), null);
  assertEquals(normalizeInstalled(entry())?.package, "com.example.app");
});

Deno.test("recordInstall() is shared by concurrent writers under the lock", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-installed-" });
  try {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => recordInstall(dir, entry({ package: `com.p.app${i}` }))),
    );
    const all = await listInstalledBuilds(dir);
    assertEquals(all.length, 12);
    await recordInstall(dir, entry({ package: "com.p.app3", apk_sha256: SHA_B }));
    assertEquals((await listInstalledBuilds(dir)).length, 12);
    assertEquals((await getInstalledBuild(dir, "emulator-5554", "com.p.app3"))?.apk_sha256, SHA_B);
    assertEquals(await getInstalledBuild(dir, "emulator-5556", "com.p.app3"), null);
    assert(MAX_INSTALLED_BUILDS >= 12);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("recordInstall() sets a corrupt file aside and starts afresh", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-installed-" });
  try {
    await Deno.writeTextFile(installedBuildsPath(dir), "{not json");
    await recordInstall(dir, entry());
    assertEquals((await listInstalledBuilds(dir)).length, 1);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert(names.some((n) => n.startsWith("installed-builds.json.corrupt-")), names.join(","));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("recordedLine() names package, version, hash, build and who installed", () => {
  const line = recordedLine(entry());
  assert(line.startsWith("Recorded com.example.app 1.2 (3) on emulator-5554"), line);
  assertStringIncludes(line, "build #7 debug");
  assertStringIncludes(line, "claude-code");
  assertStringIncludes(recordedLine(entry({ build_id: null })), "no build record lists this APK");
});
