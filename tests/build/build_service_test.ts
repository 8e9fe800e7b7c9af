/**
 * The build slot itself (lib/build/build_service.ts) with a shell `gradlew`: a build that leaves
 * a background process holding its output, and shutdown during a build (issue 10 items 9, 10).
 */
import { join } from "node:path";
import { BuildService } from "../../lib/build/build_service.ts";
import type { BuildRunParams, BuildRunResult } from "../../lib/build/shared/build_protocol.ts";
import { trustProject } from "../../lib/project/trust.ts";
import { getBuildRecord } from "../../lib/build/shared/build_history.ts";
import { tryAcquireBuildLock } from "../../lib/build/build_lock.ts";
import { probeProcess } from "../../lib/core/process_probe.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { waitUntil } from "../wait.ts";
import { findTool } from "../../lib/tools/registry.ts";
import { testToolContext } from "../tool_context.ts";

/** Whether the project's build lock can be taken now (it is given back at once). */
async function lockIsFree(data: string, project: string): Promise<boolean> {
  const r = await tryAcquireBuildLock(data, project, { task: "lockIsFree" });
  if (r.ok) await r.lock.release();
  return r.ok;
}

/** A liveness guard: a build that has not answered by then is reported as blocked. */
const GUARD_MS = Number(Deno.env.get("KEYNOBI_TEST_GUARD_MS") ?? 60_000);

async function world(gradlew: string) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "keynobi-bs-" }));
  const project = join(base, "proj");
  const data = join(base, "data");
  await Deno.mkdir(project);
  await Deno.mkdir(data);
  await Deno.writeTextFile(join(project, "settings.gradle.kts"), 'rootProject.name = "x"\n');
  await Deno.writeTextFile(join(project, "gradlew"), gradlew, { mode: 0o755 });
  await trustProject(data, project);
  const service = new BuildService({ dataDir: data, binary: Deno.execPath(), version: "test" });
  return {
    base,
    project,
    data,
    service,
    orphanPidFile: join(base, "orphan.pid"),
    async [Symbol.asyncDispose]() {
      const pid = Number(await Deno.readTextFile(join(base, "orphan.pid")).catch(() => "0"));
      if (pid > 1) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await Deno.remove(base, { recursive: true });
    },
  };
}

function params(project: string, timeoutMs: number): BuildRunParams {
  return {
    project,
    tasks: ["assembleDebug"],
    kind: "gradle_task",
    variant: null,
    module: null,
    origin: { kind: "agent", session_id: "s", client_name: "t", standalone: true },
    timeoutMs,
    javaHome: null,
    androidHome: null,
    appModuleDirs: [],
    gradleVersion: null,
    jdkVersion: null,
  };
}

/** Runs the build; a build still unanswered after GUARD_MS kills the orphan and says "blocked". */
async function runGuarded(
  w: Awaited<ReturnType<typeof world>>,
  p: BuildRunParams,
  signal = new AbortController().signal,
): Promise<BuildRunResult | "blocked"> {
  let guard: ReturnType<typeof setTimeout> | undefined;
  const blocked = new Promise<"blocked">((resolve) => {
    guard = setTimeout(async () => {
      const pid = Number(await Deno.readTextFile(w.orphanPidFile).catch(() => "0"));
      if (pid > 1) Deno.kill(pid, "SIGKILL");
      resolve("blocked");
    }, GUARD_MS);
  });
  const run = w.service.run(p, { signal, progress: () => {} });
  try {
    return await Promise.race([run, blocked]);
  } finally {
    clearTimeout(guard);
    await run.catch(() => {});
  }
}

async function orphanState(file: string) {
  const pid = Number(await Deno.readTextFile(file));
  return (await probeProcess(pid)).state;
}

const HANGS_WITH_ORPHAN = `#!/bin/sh
echo "> Task :app:compileDebugKotlin"
( sleep 3600 & echo $! > "$(dirname "$0")/../orphan.pid" )
sleep 3600
`;

Deno.test("a timed-out build whose gradlew left a background child holding stdout answers and frees the slot", async () => {
  await using w = await world(HANGS_WITH_ORPHAN);
  const r = await runGuarded(w, params(w.project, 1_000));
  assert(r !== "blocked", "the build did not answer: the background child kept the slot");
  assertEquals(r.record.status, "failed");
  assertStringIncludes(r.record.reason ?? "", "timed out after 1 s");
  assertEquals(await orphanState(w.orphanPidFile), "gone", "the process group was stopped");
  assertEquals(w.service.status(), null, "the slot is free");
  assert(await lockIsFree(w.data, w.project), "the lock is released");
});

Deno.test("a gradlew that exits leaving a child on stdout is answered after the drain bound", async () => {
  await using w = await world(`#!/bin/sh
echo "> Task :app:assembleDebug"
( sleep 3600 & echo $! > "$(dirname "$0")/../orphan.pid" )
echo "BUILD SUCCESSFUL in 1s"
exit 0
`);
  const r = await runGuarded(w, params(w.project, 600_000));
  assert(r !== "blocked", "the build did not answer after gradlew exited");
  assertEquals(r.record.status, "success");
  assertStringIncludes(r.tail.at(-1) ?? "", "ms after gradlew exited");
});

Deno.test("shutdown() during a build records it cancelled by shutdown and releases the lock", async () => {
  await using w = await world(HANGS_WITH_ORPHAN);
  const run = w.service.run(params(w.project, 600_000), {
    signal: new AbortController().signal,
    progress: () => {},
  }).catch((e) => e);
  await waitUntil(() => w.service.status()?.current_task != null, "the build's first task");
  const id = w.service.status()!.id;
  assertEquals(await w.service.shutdown("keynobi was stopped by a signal"), true);
  // shutdown() returned: the record and the lock are settled now, not later.
  const rec = await getBuildRecord(w.data, id);
  assertEquals(rec?.status, "cancelled");
  assertEquals(rec?.cancelled_by, { kind: "shutdown" });
  assert(await lockIsFree(w.data, w.project), "the lock is released");
  await run;
});

/** A gradlew that leaves a mark when it runs at all, then takes its time. */
const MARKS_THAT_IT_RAN = `#!/bin/sh
touch "$(dirname "$0")/../gradlew.ran"
echo "> Task :app:assembleDebug"
sleep 30
`;

Deno.test("a cancel sent while the build is still starting is not missed: it never spawns", async () => {
  await using w = await world(MARKS_THAT_IT_RAN);
  const run = w.service.run(params(w.project, 600_000), {
    signal: new AbortController().signal,
    progress: () => {},
  });
  // Sent in the same turn as the run: the build is checking trust and taking its lock.
  assertEquals(w.service.status(), null, "nothing is visible before its record");
  const cancelled = await w.service.cancel(
    { kind: "appQuit" },
    "cancelled by the Keynobi app quit",
  );
  assert(cancelled !== null, "the cancel waited for the start and names the build");
  const r = await run;
  assertEquals(r.record.id, cancelled.id);
  assertEquals(r.record.status, "cancelled");
  assertEquals(r.record.cancelled_by, { kind: "appQuit" });
  assertEquals([r.record.exit_code, r.record.gradle_pid], [null, null]);
  assertStringIncludes(r.record.summary ?? "", "BUILD CANCELLED");
  assertEquals(await exists(join(w.base, "gradlew.ran")), false, "gradlew never ran");
  assertEquals(w.service.status(), null, "the slot is free");
  assert(await lockIsFree(w.data, w.project), "the lock is released");
});

Deno.test("a caller who gave up before the build spawned gets it cancelled, not run", async () => {
  await using w = await world(MARKS_THAT_IT_RAN);
  const gaveUp = new AbortController();
  const run = w.service.run(params(w.project, 600_000), {
    signal: gaveUp.signal,
    progress: () => {},
  });
  gaveUp.abort();
  const r = await run;
  assertEquals(r.record.status, "cancelled");
  assertEquals(r.record.cancelled_by?.kind, "agent");
  assertEquals(await exists(join(w.base, "gradlew.ran")), false, "gradlew never ran");
});

Deno.test("a cancel with no build running or starting answers null at once", async () => {
  await using w = await world(MARKS_THAT_IT_RAN);
  assertEquals(await w.service.cancel({ kind: "appQuit" }, "x"), null);
});

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("a run asked for while another is still starting is refused as build_busy, not by the lock", async () => {
  await using w = await world(`#!/bin/sh\necho "> Task :app:assembleDebug"\nsleep 1\n`);
  const run = () =>
    w.service.run(params(w.project, 600_000), {
      signal: new AbortController().signal,
      progress: () => {},
    });
  // Both requests reach the worker before either has spawned gradlew: one builds, one is busy.
  const [a, b] = await Promise.allSettled([run(), run()]);
  const built = [a, b].filter((r) => r.status === "fulfilled");
  const refused = [a, b].flatMap((r) => r.status === "rejected" ? [r.reason] : []);
  assertEquals(built.length, 1);
  assertEquals((built[0] as PromiseFulfilledResult<BuildRunResult>).value.record.status, "success");
  assertEquals(refused.length, 1);
  assert(refused[0] instanceof ToolError, String(refused[0]));
  assertEquals(refused[0].code, "build_busy");
  assertStringIncludes(
    refused[0].message,
    "A Gradle build is already running in this keynobi server",
  );
});

/** A real Windows console (UTF-16LE with BOM, PowerShell-wrapped, 291 Kotlin errors). */
const UTF16_CONSOLE = new URL(
  "../fixtures/corpus/gradle/hooiv-build_output-d1afdce.txt",
  import.meta.url,
).pathname;

Deno.test("a build printing UTF-16 with more errors than any cap is decoded and counted exactly", async () => {
  await using w = await world(`#!/bin/sh
cat '${UTF16_CONSOLE}'
exit 1
`);
  const r = await runGuarded(w, params(w.project, 600_000));
  assert(r !== "blocked");
  assertEquals(r.record.status, "failed");
  assertEquals(r.record.error_count, 291, "every distinct Kotlin error, none lost to a cap");
  assertEquals(r.record.diagnostics.length, 100, "the record keeps the first 100");
  assertStringIncludes(r.record.summary, ": 291 errors");
  const first = r.record.diagnostics[0] as Record<string, unknown>;
  assertEquals(first.line, 27, "the hard-wrapped first error keeps its place");
  assert(!r.tail.join("\n").includes("\u0000"), "decoded, not read as UTF-8");
  const log = await Deno.readTextFile(r.record.log.path!);
  assertStringIncludes(log, "Unresolved reference 'neural'.");
});

Deno.test("get_build_errors pages a build with more errors than it keeps, and says so", async () => {
  await using w = await world(`#!/bin/sh
cat '${UTF16_CONSOLE}'
exit 1
`);
  const r = await runGuarded(w, params(w.project, 600_000));
  assert(r !== "blocked");
  const tool = findTool("get_build_errors")!;
  const ctx = testToolContext({
    dataDir: w.data,
    project: { root: w.project, requested: w.project, selectedBy: "argument" },
  });
  const page = async (args: Record<string, unknown>) => {
    const out = await tool.run(args, ctx);
    return { s: out.structured as Record<string, unknown>, text: out.text };
  };
  const first = await page({});
  assertEquals(first.s.error_count, 291);
  assertEquals([first.s.total, first.s.listed, first.s.more], [291, 50, 241]);
  assertEquals([first.s.truncated, first.s.next_offset, first.s.not_kept], [true, 50, 191]);
  assertStringIncludes(first.text, "Listed 1–50 of 291; 241 more.");
  assertStringIncludes(first.text, "get_build_errors offset=50");
  assertStringIncludes(first.text, "the other 191 are only in its output (get_build_log)");
  const last = await page({ offset: 50, limit: 200 });
  assertEquals([last.s.listed, last.s.more, last.s.next_offset], [50, 191, null]);
  assertEquals((last.s.diagnostics as unknown[]).length, 50, "the rest of the 100 kept");
  const past = await page({ offset: 100 });
  assertEquals(past.s.listed, 0);
  assertStringIncludes(past.text, "Nothing listed from offset 100: 100 of 291 are kept.");
});
