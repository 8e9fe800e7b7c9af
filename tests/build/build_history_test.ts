import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { waitUntil } from "../wait.ts";
import { join } from "node:path";
import { childEnv } from "../child_env.ts";
import { exists, tempWorld } from "../project/_fixture.ts";
import { buildHistoryPath } from "../../lib/core/data_dir.ts";
import type { ProcessProbe } from "../../lib/core/process_probe.ts";
import {
  dropOldest,
  finishBuildRecord,
  getBuildRecord,
  latestBuildRecord,
  listBuildRecords,
  markOrphanedBuilds,
  MAX_BUILD_RECORDS,
  ORPHANED_REASON,
  parseHistory,
  startBuildRecord,
} from "../../lib/build/shared/build_history.ts";
import {
  boundDiagnostics,
  type BuildRecord,
  MAX_DIAGNOSTICS_PER_RECORD,
  MAX_SUMMARY_CHARS,
  normalizeRecord,
  type Origin,
  parseOrigin,
} from "../../lib/build/shared/build_record.ts";
import { buildLogPath, BuildLogWriter } from "../../lib/build/shared/build_log.ts";

const AGENT: Origin = { kind: "agent", session_id: "s-1", client_name: "codex", standalone: true };

Deno.test("startBuildRecord() adds running builds with increasing ids", async () => {
  await using w = await tempWorld();
  const link = join(w.base, "link");
  await Deno.symlink(w.root, link);
  const a = await startBuildRecord(w.data, {
    project: link,
    task: ":app:assembleDebug",
    variant: "debug",
    module: ":app",
    origin: AGENT,
  });
  assertEquals(a.id, 1);
  assertEquals(a.project, w.root, "the canonical root is recorded");
  assertEquals(a.status, "running");
  assertEquals(a.tasks, [":app:assembleDebug"]);
  assertEquals(a.kind, "gradle_task");
  assertEquals(a.origin, AGENT);
  assertEquals(a.cancelled_by, null);
  assertEquals(a.pid, Deno.pid);
  assertEquals(a.binary, Deno.execPath());
  assertEquals(a.log, { path: buildLogPath(w.data, 1), bytes: 0, lines: 0, truncated: false });
  const b = await startBuildRecord(w.data, {
    project: w.root,
    task: "test",
    kind: "tests",
    origin: { kind: "app" },
  });
  assertEquals(b.id, 2);
  assertEquals(await getBuildRecord(w.data, 1), a);
  assertEquals(await getBuildRecord(w.data, 3), null);
});

Deno.test("finishBuildRecord() records the outcome, duration and bounded fields", async () => {
  await using w = await tempWorld();
  const start = new Date(Date.now() - 5_000);
  const r = await startBuildRecord(w.data, {
    project: w.root,
    task: "assemble",
    origin: AGENT,
    started_at: start,
    gradle_pid: 777,
  });
  const diagnostics = Array.from({ length: 150 }, (_, i) => ({ message: `e${i}` }));
  const finished = new Date(start.getTime() + 4_321);
  const done = await finishBuildRecord(w.data, r.id, {
    status: "cancelled",
    finished_at: finished,
    cancelled_by: { kind: "appQuit" },
    reason: "Keynobi quit",
    summary: "BUILD CANCELLED\n  task 'assemble'\n",
    error_count: 2,
    diagnostics,
    exit_code: 143,
    duration_ms: undefined,
  });
  assert(done !== null);
  assertEquals(done.status, "cancelled");
  assertEquals(done.finished_at, finished.toISOString());
  assertEquals(done.duration_ms, 4_321);
  assertEquals(done.cancelled_by, { kind: "appQuit" });
  assertEquals(done.summary, "BUILD CANCELLED task 'assemble'");
  assertEquals(done.diagnostics.length, MAX_DIAGNOSTICS_PER_RECORD);
  assertEquals(done.gradle_pid, 777, "fields not in the patch are kept");
  assertEquals(await getBuildRecord(w.data, r.id), done);
  await assertRejects(
    () => finishBuildRecord(w.data, r.id, { status: "running" as "failed" }),
    RangeError,
  );
  assertEquals(await finishBuildRecord(w.data, 99, { status: "failed" }), null);
});

Deno.test("listBuildRecords() is newest first, by project, bounded", async () => {
  await using w = await tempWorld();
  const other = join(w.base, "other");
  await Deno.mkdir(other);
  for (let i = 0; i < 5; i++) {
    await startBuildRecord(w.data, {
      project: i % 2 ? other : w.root,
      task: `t${i}`,
      origin: AGENT,
    });
  }
  assertEquals((await listBuildRecords(w.data)).map((r) => r.id), [5, 4, 3, 2, 1]);
  assertEquals((await listBuildRecords(w.data, { project: w.root })).map((r) => r.id), [5, 3, 1]);
  assertEquals((await listBuildRecords(w.data, { limit: 2 })).map((r) => r.id), [5, 4]);
  assertEquals((await latestBuildRecord(w.data, other))?.id, 4);
  assertEquals(await latestBuildRecord(w.data, join(w.base, "none")), null);
  await assertRejects(() => listBuildRecords(w.data, { limit: 0 }), RangeError);
  await assertRejects(() => listBuildRecords(w.data, { limit: MAX_BUILD_RECORDS + 1 }), RangeError);
  await using empty = await tempWorld();
  assertEquals(await listBuildRecords(empty.data), []);
});

Deno.test("the history keeps MAX_BUILD_RECORDS, dropping the oldest with their logs", async () => {
  await using w = await tempWorld();
  const extra = 3;
  for (let i = 0; i < MAX_BUILD_RECORDS + extra; i++) {
    const r = await startBuildRecord(w.data, { project: w.root, task: `t${i}`, origin: AGENT });
    if (r.id <= extra + 1) {
      const log = await BuildLogWriter.open(r.log.path);
      log.write(`build ${r.id}`);
      await log.close();
    }
    await finishBuildRecord(w.data, r.id, { status: "success" });
  }
  const all = await listBuildRecords(w.data, { limit: MAX_BUILD_RECORDS });
  assertEquals(all.length, MAX_BUILD_RECORDS);
  assertEquals(all.at(-1)!.id, extra + 1);
  assertEquals(all[0].id, MAX_BUILD_RECORDS + extra);
  for (let id = 1; id <= extra; id++) assertEquals(await exists(buildLogPath(w.data, id)), false);
  assertEquals(await exists(buildLogPath(w.data, extra + 1)), true);
  const next = await startBuildRecord(w.data, { project: w.root, task: "n", origin: AGENT });
  assertEquals(next.id, MAX_BUILD_RECORDS + extra + 1, "ids are never reused");
});

Deno.test("a corrupt history is moved aside and a fresh one continues the ids", async () => {
  await using w = await tempWorld();
  await Deno.mkdir(w.data, { recursive: true });
  await Deno.writeTextFile(buildHistoryPath(w.data), '{"version":1,"next_id":41,"records":[{"id"');
  const log = await BuildLogWriter.open(buildLogPath(w.data, 57));
  log.write("old build");
  await log.close();
  assertEquals(await listBuildRecords(w.data), []);
  const names: string[] = [];
  for await (const e of Deno.readDir(w.data)) names.push(e.name);
  assert(names.some((n) => n.startsWith("build-history.json.corrupt-")), names.join(","));
  const r = await startBuildRecord(w.data, { project: w.root, task: "t", origin: AGENT });
  assertEquals(r.id, 58, "past the highest id still visible in the logs");
  await Deno.writeTextFile(buildHistoryPath(w.data), "[1,2,3]");
  const again = await startBuildRecord(w.data, { project: w.root, task: "t", origin: AGENT });
  // Nothing of the lost history is visible any more (its logs went with it): ids restart.
  assertEquals(again.id, 1);
  assertEquals(await exists(buildLogPath(w.data, 57)), false);
  assertEquals((await listBuildRecords(w.data)).length, 1);
});

Deno.test("parseHistory() drops invalid records and repairs next_id", () => {
  const state = parseHistory(
    JSON.stringify({
      next_id: 2,
      records: [
        { id: 5, project: "/p", status: "success" },
        { id: "x", project: "/p", status: "success" },
        { id: 3, project: "/p", status: "exploded" },
        { id: 1, project: "/p", status: "running" },
      ],
    }),
    "/data",
  )!;
  assertEquals(state.records.map((r) => r.id), [1, 5]);
  assertEquals(state.next_id, 6);
  assertEquals(state.records[1].log.path, buildLogPath("/data", 5));
  assertEquals(parseHistory("nope", "/data"), null);
  assertEquals(parseHistory("{}", "/data"), null);
});

Deno.test("normalizeRecord() bounds strings and fills missing fields", () => {
  const r = normalizeRecord({
    id: 1,
    project: "/p",
    status: "failed",
    summary: "x".repeat(5_000),
    origin: { kind: "agent", session_id: "s", client_name: 42, standalone: "yes" },
    failed_tasks: [":a", 5, ":b"],
  }, "/d")!;
  assertEquals(r.summary.length, MAX_SUMMARY_CHARS);
  assertEquals(r.origin, { kind: "agent", session_id: "s", client_name: null, standalone: false });
  assertEquals(r.failed_tasks, [":a", ":b"]);
  assertEquals(r.apks, []);
  assertEquals(r.provenance, null);
  assertEquals(parseOrigin({ kind: "robot" }), null);
  assertEquals(boundDiagnostics([{ m: "x".repeat(70 * 1024) }]), []);
});

Deno.test("dropOldest() prefers finished builds", () => {
  const rec = (id: number, status: string) => normalizeRecord({ id, project: "/p", status }, "/d")!;
  const state = {
    records: [rec(1, "running"), rec(2, "success"), rec(3, "failed"), rec(4, "running")],
  };
  assertEquals(dropOldest(state, 2), [2, 3]);
  assertEquals(state.records.map((r) => r.id), [1, 4]);
  assertEquals(dropOldest(state, 1), [1]);
});

function historyWith(records: Partial<BuildRecord>[]): string {
  return JSON.stringify({
    version: 1,
    next_id: records.length + 1,
    records: records.map((r, i) => ({ id: i + 1, project: "/p", task: "t", ...r })),
  });
}

Deno.test("markOrphanedBuilds() marks running builds whose keynobi process is gone interrupted", async () => {
  await using w = await tempWorld();
  await Deno.mkdir(w.data, { recursive: true });
  await Deno.writeTextFile(
    buildHistoryPath(w.data),
    historyWith([
      { status: "running", pid: 1001, binary: Deno.execPath() }, // gone
      { status: "running", pid: 1002, binary: Deno.execPath() }, // alive, same binary
      { status: "running", pid: 1003, binary: Deno.execPath() }, // PID reused by another program
      { status: "running", pid: Deno.pid, binary: Deno.execPath() }, // ours
      { status: "success", pid: 1001, binary: Deno.execPath() },
    ]),
  );
  const probe = (pid: number): Promise<ProcessProbe> =>
    Promise.resolve(
      pid === 1001
        ? { state: "gone" }
        : { state: "running", binary: pid === 1002 ? Deno.execPath() : "/usr/bin/vim" },
    );
  const now = new Date("2025-06-01T00:00:00.000Z");
  assertEquals(await markOrphanedBuilds(w.data, { probe, now }), [1, 3]);
  const one = (await getBuildRecord(w.data, 1))!;
  assertEquals(one.status, "interrupted");
  assertEquals(one.reason, ORPHANED_REASON);
  assertEquals(one.finished_at, now.toISOString());
  assertStringIncludes(one.summary, ORPHANED_REASON);
  assertEquals((await getBuildRecord(w.data, 2))!.status, "running");
  assertEquals((await getBuildRecord(w.data, 4))!.status, "running");
  assertEquals((await getBuildRecord(w.data, 5))!.status, "success");
  assertEquals(await markOrphanedBuilds(w.data, { probe }), []);
});

// ---- Two real processes appending at once ----

const HISTORY_MODULE = new URL("../../lib/build/shared/build_history.ts", import.meta.url).href;
const REPO_ROOT = new URL("../../", import.meta.url).pathname;
const PER_CHILD = 15;

/** Waits for `go`, then starts and finishes PER_CHILD builds, then leaves one running. */
const CHILD_CODE = `
import { startBuildRecord, finishBuildRecord } from ${JSON.stringify(HISTORY_MODULE)};
const [data, root, go, n] = Deno.args;
await Deno.writeTextFile(go + "." + Deno.pid + ".ready", "");
while (!(await Deno.stat(go).then(() => true, () => false))) {
  await new Promise((r) => setTimeout(r, 5));
}
const origin = { kind: "agent", session_id: String(Deno.pid), client_name: "child", standalone: true };
for (let i = 0; i < Number(n); i++) {
  const r = await startBuildRecord(data, { project: root, task: "t" + i, origin });
  await finishBuildRecord(data, r.id, { status: "success", summary: "child " + Deno.pid });
}
await startBuildRecord(data, { project: root, task: "left running", origin });
`;

Deno.test("two real processes append concurrently: no lost records, unique ids", async () => {
  await using w = await tempWorld();
  const go = join(w.base, "go");
  const env = await childEnv({});
  const spawn = () =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", CHILD_CODE, w.data, w.root, go, String(PER_CHILD)],
      cwd: REPO_ROOT,
      env,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  const outputs = Promise.all([spawn(), spawn()]);
  // Both children wait at the gate before it opens, so their appends overlap.
  await waitUntil(
    async () =>
      (await Array.fromAsync(Deno.readDir(w.base))).filter((e) => e.name.endsWith(".ready"))
        .length === 2,
    "both children at the gate",
    { intervalMs: 10 },
  );
  await Deno.writeTextFile(go, "");
  const results = await outputs;
  for (const o of results) {
    assert(o.success, new TextDecoder().decode(o.stderr));
  }
  const all = await listBuildRecords(w.data, { limit: MAX_BUILD_RECORDS });
  const total = 2 * (PER_CHILD + 1);
  assertEquals(all.length, total);
  assertEquals(
    all.map((r) => r.id).sort((a, b) => a - b),
    Array.from({ length: total }, (_, i) => i + 1),
  );
  const byChild = new Map<number, number>();
  for (const r of all) byChild.set(r.pid, (byChild.get(r.pid) ?? 0) + 1);
  assertEquals([...byChild.values()], [PER_CHILD + 1, PER_CHILD + 1]);
  assertEquals(all.filter((r) => r.status === "success").length, 2 * PER_CHILD);

  // Both children have exited with a build still "running": a real probe finds them gone.
  const marked = await markOrphanedBuilds(w.data);
  assertEquals(marked.length, 2);
  for (const id of marked) {
    assertEquals((await getBuildRecord(w.data, id))!.reason, ORPHANED_REASON);
  }
});

Deno.test("finishBuildRecord() accepts an ISO finish time and refuses a bad one", async () => {
  await using w = await tempWorld();
  const r = await startBuildRecord(w.data, {
    project: w.root,
    task: "t",
    origin: { kind: "app" },
    started_at: new Date("2025-01-01T00:00:00.000Z"),
    pid: 4242,
    binary: "/opt/keynobi",
  });
  assertEquals([r.pid, r.binary], [4242, "/opt/keynobi"]);
  const done = await finishBuildRecord(w.data, r.id, {
    status: "timeout",
    finished_at: "2025-01-01T00:00:02.500Z",
  });
  assertEquals(done?.duration_ms, 2_500);
  await assertRejects(
    () => finishBuildRecord(w.data, r.id, { status: "failed", finished_at: "yesterday" }),
    RangeError,
  );
});
