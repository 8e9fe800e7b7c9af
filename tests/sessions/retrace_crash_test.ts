/**
 * retraceCrash(): how a crash finds its mapping (map id, device APK hash, install record) and every
 * refusal, against a real data directory (build history, kept mappings, install records) and a
 * scripted device shell that answers as a device prints.
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { finishBuildRecord, startBuildRecord } from "../../lib/build/shared/build_history.ts";
import { keepMapping } from "../../lib/retrace/shared/mapping_store.ts";
import { RetraceClient } from "../../lib/retrace/shared/retrace_client.ts";
import { type CrashToRetrace, retraceCrash } from "../../lib/sessions/retrace_crash.ts";
import { FakeAdb } from "../fake_adb.ts";
import { type InstalledBuild, recordInstall } from "../../lib/sessions/installed_builds.ts";

const MAPPING = `# compiler: R8
# pg_map_id: abc1234
# pg_map_hash: SHA-256 ${"ab".repeat(32)}
com.example.app.Repo -> a.a:
# {"id":"sourceFile","fileName":"Repo.kt"}
    1:4:void load():20:23 -> a
`;
const APK_SHA = "1".repeat(64);
const PKG = "com.example.app";
const SERIAL = "emulator-5554";
const AGENT = { kind: "agent" as const, session_id: "t", client_name: "test", standalone: true };

const withId =
  "FATAL EXCEPTION: main\njava.lang.IllegalStateException: x\n\tat a.a.a(r8-map-id-abc1234:3)";
const withoutId =
  "FATAL EXCEPTION: main\njava.lang.IllegalStateException: x\n\tat a.a.a(SourceFile:3)";

async function world() {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-retrace-" });
  const project = `${dir}/proj`;
  await Deno.mkdir(`${project}/app/build/outputs/mapping/release`, { recursive: true });
  await Deno.writeTextFile(`${project}/app/build/outputs/mapping/release/mapping.txt`, MAPPING);
  const kept = await keepMapping(dir, {
    module: ":app",
    variant: "release",
    root: project,
    path: `${project}/app/build/outputs/mapping/release/mapping.txt`,
  });
  const rec = await startBuildRecord(dir, { project, task: ":app:assembleRelease", origin: AGENT });
  await finishBuildRecord(dir, rec.id, {
    status: "success",
    apks: [{
      module: ":app",
      variant: "release",
      path: "a.apk",
      sha256: APK_SHA,
      bytes: 1,
      application_id: PKG,
    }],
    mappings: [kept!],
  });
  return {
    dir,
    project,
    buildId: rec.id,
    kept: kept!,
    retracer: new RetraceClient({ dataDir: dir }),
  };
}

/** retraceCrash() with the world's data directory and its retrace worker. */
function retraceIn(w: World, d: FakeAdb, crash: CrashToRetrace) {
  return retraceCrash(w.dir, d, w.retracer, crash);
}

type World = Awaited<ReturnType<typeof world>>;

/** A device shell answering `pm path`, `sha256sum` and `dumpsys package` from `facts`. */
function device(facts: {
  paths?: string[];
  sha?: string | null;
  versionCode?: number;
  lastUpdate?: string;
}): FakeAdb {
  return new FakeAdb((argv) => {
    if (argv[0] === "pm") {
      const p = facts.paths ?? [];
      return { out: p.map((x) => `package:${x}\n`).join(""), code: p.length ? 0 : 1 };
    }
    if (argv[0] === "sha256sum") {
      return facts.sha
        ? `${facts.sha}  ${argv[1]}\n`
        : { out: `sha256sum: ${argv[1]}: Permission denied\n`, code: 1 };
    }
    if (argv[0] === "dumpsys") {
      return `Packages:\n  Package [${PKG}] (1a2b3c):\n    versionCode=${
        facts.versionCode ?? 3
      } minSdk=24 targetSdk=35\n` +
        `    lastUpdateTime=${facts.lastUpdate ?? "2026-03-14 05:30:00"}\n`;
    }
    return { code: 127 };
  });
}

function install(over: Partial<InstalledBuild>): InstalledBuild {
  return {
    serial: SERIAL,
    package: PKG,
    version_code: 3,
    version_name: "1.0",
    apk_sha256: APK_SHA,
    apk_bytes: 1,
    apk_path: "/p/a.apk",
    project: null,
    build_id: null,
    module: ":app",
    variant: "release",
    task: null,
    installed_at: new Date().toISOString(),
    installed_by: AGENT,
    recorded_by: "standalone",
    map_ids: ["abc1234"],
    mapping_sha256: null,
    device_last_update_time: "2026-03-14 05:30:00",
    ...over,
  };
}

Deno.test("retraceCrash() matches the map id the frames name, without asking the device", async () => {
  const w = await world();
  try {
    const d = device({});
    const r = await retraceIn(w, d, { serial: SERIAL, package: PKG, trace: withId });
    assertEquals(r.status, "retraced", r.reason ?? "");
    assertEquals([r.matched_by, r.build_id, r.map_id, r.mapping_sha256], [
      "map_id",
      w.buildId,
      "abc1234",
      w.kept.sha256,
    ]);
    assertStringIncludes(r.trace, "at com.example.app.Repo.load(Repo.kt:22)");
    assertEquals(d.argvs, [], "no device call");
    const unknown = await retraceIn(w, d, {
      serial: SERIAL,
      package: PKG,
      trace: withId.replace("abc1234", "fff9999"),
    });
    assertEquals(unknown.status, "refused");
    assertStringIncludes(unknown.reason!, "fff9999");
    const several = await retraceIn(w, d, {
      serial: SERIAL,
      package: PKG,
      trace: withId + "\n\tat b.b.b(r8-map-id-fff9999:1)",
    });
    assertEquals(several.status, "refused");
    assertStringIncludes(several.reason!, "2 R8 map ids");
    assertEquals(
      several.trace,
      withId + "\n\tat b.b.b(r8-map-id-fff9999:1)",
      "the trace as printed",
    );
  } finally {
    w.retracer.close();
    await Deno.remove(w.dir, { recursive: true });
  }
});

Deno.test("retraceCrash() matches the APK hash the device reports; refuses split APKs and unknown hashes", async () => {
  const w = await world();
  try {
    const path = "/data/app/~~x==/com.example.app-y==/base.apk";
    const d = device({ paths: [path], sha: APK_SHA });
    const r = await retraceIn(w, d, { serial: SERIAL, package: PKG, trace: withoutId });
    assertEquals(r.status, "retraced", r.reason ?? "");
    assertEquals(r.matched_by, "device_hash");
    assertEquals(r.device, { serial: SERIAL, apk_sha256: APK_SHA, version_code: null });
    assertEquals(d.argvs, [["pm", "path", PKG], ["sha256sum", path]]);
    const split = await retraceIn(
      w,
      device({ paths: [path, path.replace("base", "split_config.arm64_v8a")], sha: APK_SHA }),
      {
        serial: SERIAL,
        package: PKG,
        trace: withoutId,
      },
    );
    assertEquals(split.status, "refused");
    assertStringIncludes(split.reason!, "split APKs");
    const other = await retraceIn(w, device({ paths: [path], sha: "2".repeat(64) }), {
      serial: SERIAL,
      package: PKG,
      trace: withoutId,
    });
    assertEquals(other.status, "refused");
    assertStringIncludes(other.reason!, "matches no build keynobi kept or installed");
    const gone = await retraceIn(w, device({ paths: [] }), {
      serial: SERIAL,
      package: PKG,
      trace: withoutId,
    });
    assertEquals(gone.status, "refused");
    assertStringIncludes(gone.reason!, "no longer installed");
  } finally {
    w.retracer.close();
    await Deno.remove(w.dir, { recursive: true });
  }
});

Deno.test("retraceCrash() falls back to the install record only when the device cannot hash, checking versionCode and lastUpdateTime", async () => {
  const w = await world();
  try {
    await recordInstall(w.dir, install({ build_id: w.buildId, mapping_sha256: w.kept.sha256 }));
    const path = "/data/app/base.apk";
    const same = await retraceIn(w, device({ paths: [path], sha: null }), {
      serial: SERIAL,
      package: PKG,
      trace: withoutId,
    });
    assertEquals(same.status, "retraced", same.reason ?? "");
    assertEquals(same.matched_by, "install_record");
    assertEquals(same.device?.version_code, 3);
    const reinstalled = await retraceIn(
      w,
      device({ paths: [path], sha: null, lastUpdate: "2026-03-14 06:00:00" }),
      {
        serial: SERIAL,
        package: PKG,
        trace: withoutId,
      },
    );
    assertEquals(reinstalled.status, "refused");
    assertStringIncludes(reinstalled.reason!, "not keynobi's install any more");
    const bumped = await retraceIn(w, device({ paths: [path], sha: null, versionCode: 4 }), {
      serial: SERIAL,
      package: PKG,
      trace: withoutId,
    });
    assertEquals(bumped.status, "refused");
    const elsewhere = await retraceIn(w, device({ paths: [path], sha: null }), {
      serial: "emulator-5556",
      package: PKG,
      trace: withoutId,
    });
    assertEquals(elsewhere.status, "refused");
    assertStringIncludes(elsewhere.reason!, "no install of");
  } finally {
    w.retracer.close();
    await Deno.remove(w.dir, { recursive: true });
  }
});

Deno.test("retraceCrash(): a build without a mapping is unavailable, and so is a pruned mapping", async () => {
  const w = await world();
  try {
    const rec = await startBuildRecord(w.dir, {
      project: w.project,
      task: ":app:assembleDebug",
      origin: AGENT,
    });
    const debugSha = "3".repeat(64);
    await finishBuildRecord(w.dir, rec.id, {
      status: "success",
      apks: [{
        module: ":app",
        variant: "debug",
        path: "d.apk",
        sha256: debugSha,
        bytes: 1,
        application_id: PKG,
      }],
    });
    const r = await retraceIn(w, device({ paths: ["/x/base.apk"], sha: debugSha }), {
      serial: SERIAL,
      package: PKG,
      trace: withoutId,
    });
    assertEquals(r.status, "unavailable");
    assertStringIncludes(r.reason!, "wrote no R8 mapping");
    await Deno.remove(`${w.dir}/mappings/${w.kept.sha256}.txt`);
    const pruned = await retraceIn(w, device({}), {
      serial: SERIAL,
      package: PKG,
      trace: withId,
    });
    assertEquals(pruned.status, "unavailable");
    assertStringIncludes(pruned.reason!, "no longer kept");
  } finally {
    w.retracer.close();
    await Deno.remove(w.dir, { recursive: true });
  }
});
