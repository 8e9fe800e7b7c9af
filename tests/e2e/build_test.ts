/**
 * Builds through the real entry point against the simulator's fake Gradle: trust, the task policy,
 * progress, history, errors, cancellation, the cross-process lock, APKs and variants.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import {
  call,
  connect,
  E2E_WAIT,
  errorOf,
  INITIALIZED,
  initializeRequest,
  runKeynobi,
  type Session,
  startWorld,
  trusted,
  type World,
} from "./harness.ts";
import { pollUntil, waitUntil } from "../wait.ts";

const PROJECT = "sample-kts";

async function settings(world: World, mcp: Record<string, unknown>) {
  const path = `${world.dataDir}/settings.json`;
  const s = JSON.parse(await Deno.readTextFile(path));
  s.mcp = { ...s.mcp, ...mcp };
  await Deno.writeTextFile(path, JSON.stringify(s));
}

Deno.test("an untrusted project's build is refused before any process starts", async () => {
  await using world = await startWorld();
  await using s = await connect(world, ["--project", world.sim.projects[PROJECT]]);
  const r = await call(s, "run_gradle_task", { task: "assembleDemoDebug" });
  assertEquals(r.isError, true);
  assertEquals(errorOf(r).code, "invalid_params");
  assertStringIncludes(r.content[0].text!, "keynobi trust");
  const tests = await call(s, "run_tests", { test_type: "unit" });
  assertEquals(errorOf(tests).code, "invalid_params");
  assertEquals((await world.sim.gradle(PROJECT).readJournal()).length, 0, "gradlew never ran");
});

Deno.test("after keynobi trust, run_gradle_task builds, reports progress and records history", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const g = world.sim.gradle(PROJECT);
  await g.setTaskDelay(100);
  await using s = await connect(world, ["--project", project]);
  const progress: { progress: number; message?: string }[] = [];
  const r = await s.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    {
      onprogress: (p: { progress: number; message?: string }) => void progress.push(p),
      timeout: 60_000,
    },
  ) as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent: Record<string, unknown>;
  };
  assert(!r.isError, r.content[0].text);
  assertMatch(r.content[0].text, /^BUILD SUCCESSFUL/);
  assertStringIncludes(r.content[0].text, "[mode: standalone (no Keynobi app is running)]");
  assert(progress.length >= 1, "at least one progress notification");
  assertMatch(progress[0].message ?? "", /s elapsed/);
  const apks = r.structuredContent.apks as Record<string, unknown>[];
  assertEquals(apks.length, 1);
  assertEquals(apks[0].variant, "demoDebug");
  assertEquals(apks[0].application_id, "com.example.keynobi.sample.demo.debug");
  const bytes = await Deno.readFile(`${project}/${apks[0].path}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  assertEquals(apks[0].sha256, [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""));

  const runs = await g.readJournal();
  assertEquals(runs.length, 1);
  assertEquals(runs[0].argv.includes("assembleDemoDebug"), true);
  assertEquals(runs[0].env.ANDROID_HOME, world.sim.sdkRoot);

  const status = await call(s, "get_build_status");
  assertEquals(status.structuredContent!.status, "success");
  const origin = status.structuredContent!.origin as Record<string, unknown>;
  assertEquals(origin.kind, "agent");
  assertEquals(origin.client_name, "keynobi-e2e");
  assertEquals(origin.standalone, true);
  assertEquals(status.structuredContent!.mode, "standalone");

  const apk = await call(s, "find_apk_path", { variant: "demoDebug" });
  assertEquals(apk.structuredContent!.found, true);
  assertEquals(apk.structuredContent!.path, apks[0].path);
  const other = await call(s, "find_apk_path", { variant: "fullDebug" });
  assertEquals(other.structuredContent!.found, false);
  assert(typeof other.structuredContent!.reason === "string");

  const log = await call(s, "get_build_log", { lines: 5 });
  assertStringIncludes(log.content[0].text!, "BUILD SUCCESSFUL");
});

Deno.test("a failing build's errors come back with file, line and message", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).setScenario("assembleDemoDebug", "kotlin_error");
  await using s = await connect(world, ["--project", project]);
  const r = await call(s, "run_gradle_task", { task: "assembleDemoDebug" });
  assertEquals(r.isError, true);
  assertEquals(errorOf(r).code, "build_failed");
  assertMatch(r.content[0].text!, /^BUILD FAILED/);
  const errors = await call(s, "get_build_errors");
  const diags = errors.structuredContent!.diagnostics as Record<string, unknown>[];
  const kotlin = diags.filter((d) => d.source === "kotlin" && d.severity === "error");
  assert(kotlin.length >= 1, JSON.stringify(diags));
  for (const d of kotlin) {
    assertMatch(d.file as string, /^app\/src\/main\/java\/.+\.kt$/);
    assert(typeof d.line === "number" && typeof d.column === "number");
    const source = (await Deno.readTextFile(`${project}/${d.file}`)).split("\n");
    assert((d.line as number) <= source.length, "the line exists in the file");
    assertMatch(d.message as string, /Unresolved reference/);
  }
  const status = await call(s, "get_build_status");
  assertEquals(status.structuredContent!.status, "failed");
});

Deno.test("a missing dependency is named in the answer's text, not only in its data", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).setScenario("assembleDemoDebug", "dependency_resolution");
  await using s = await connect(world, ["--project", project]);
  const r = await call(s, "run_gradle_task", { task: "assembleDemoDebug" });
  assertEquals(r.isError, true);
  const errors = await call(s, "get_build_errors");
  const diags = errors.structuredContent!.diagnostics as Record<string, unknown>[];
  const dep = diags.find((d) => d.source === "dependency_resolution");
  assert(dep, JSON.stringify(diags));
  assertMatch(dep.dependency as string, /^[\w.-]+:[\w.-]+:[\w.-]+$/);
  assertStringIncludes(r.content[0].text!, dep.dependency as string);
  assertStringIncludes(errors.content[0].text!, dep.dependency as string);
  assertEquals(errors.structuredContent!.total, errors.structuredContent!.error_count);
  assertEquals(errors.structuredContent!.truncated, false);
});

Deno.test("blocked tasks and their abbreviations are refused; nothing runs", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await using s = await connect(world, ["--project", project]);
  for (
    const task of [
      "publishRelease",
      "pRB",
      ":app:pubRel",
      "uninstAll",
      "uploadCrashlyticsMappingFileRelease",
      "closeAndReleaseRepository",
      "publishToMavenCentral",
      "bundleToPlayStore",
      "--init-script=/tmp/x.gradle",
      "-x",
      "assemble;rm -rf /",
      "clean $(id)",
    ]
  ) {
    const r = await call(s, "run_gradle_task", { task });
    assertEquals(r.isError, true, task);
    assertEquals(errorOf(r).code, "invalid_params", task);
  }
  const badVariant = await call(s, "run_gradle_task", { task: "assemble", variant: "demoBeta" });
  assertEquals(errorOf(badVariant).code, "invalid_params");
  assertStringIncludes(badVariant.content[0].text!, "demoDebug");
  assertEquals((await world.sim.gradle(PROJECT).readJournal()).length, 0);
});

Deno.test("variant completes a verb task; run_tests runs the unit tests of the active variant", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).setTaskDelay(0);
  await using s = await connect(world, ["--project", project]);
  const r = await call(s, "run_gradle_task", { task: "assemble", variant: "fullRelease" });
  assert(!r.isError, r.content[0].text);
  assertEquals(r.structuredContent!.tasks, [":app:assembleFullRelease"]);
  const set = await call(s, "set_active_variant", { variant: "fullDebug" });
  assert(!set.isError, set.content[0].text);
  const variants = await call(s, "list_build_variants");
  assertEquals(variants.structuredContent!.active, "fullDebug");
  const t = await call(s, "run_tests", { test_type: "unit" });
  assert(!t.isError, t.content[0].text);
  assertEquals(t.structuredContent!.tasks, [":app:testFullDebugUnitTest"]);
  const runs = await world.sim.gradle(PROJECT).readJournal();
  assertEquals(runs.map((x) => x.tasks.at(-1)), [
    ":app:assembleFullRelease",
    ":app:testFullDebugUnitTest",
  ]);
  const config = await call(s, "get_build_config");
  assertEquals(config.structuredContent!.namespace, "com.example.keynobi.sample");
  assertEquals(config.structuredContent!.min_sdk, 24);
});

function startHungBuild(s: Session, signal: AbortSignal) {
  return s.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    { signal, timeout: 60_000 },
  ).catch((e: unknown) => e);
}

/** True once a build runs and Gradle has printed its first task (its signal handlers are set). */
async function building(s: Session): Promise<boolean> {
  const st = (await call(s, "get_build_status")).structuredContent!;
  // Right after the history records the build and before the worker has spawned Gradle, status
  // reads `running` with `running: null`: not started yet.
  return st.status === "running" &&
    (st.running as { current_task: string | null } | null)?.current_task != null;
}

Deno.test("cancelling the request kills its build, recorded as cancelled by the agent", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const g = world.sim.gradle(PROJECT);
  await g.hangAt("compileDemoDebugKotlin");
  await using s = await connect(world, ["--project", project]);
  const abort = new AbortController();
  const pending = startHungBuild(s, abort.signal);
  await waitUntil(
    () => building(s),
    "the build to run",
    E2E_WAIT,
  );
  abort.abort();
  await pending;
  await waitUntil(
    async () => (await call(s, "get_build_status")).structuredContent!.status === "cancelled",
    "the cancel to be recorded",
    E2E_WAIT,
  );
  const status = await call(s, "get_build_status");
  const by = status.structuredContent!.cancelled_by as Record<string, unknown>;
  assertEquals(by.kind, "agent");
  await waitUntil(
    async () => (await g.readJournal()).length === 1,
    "gradle to journal its exit",
    E2E_WAIT,
  );
  const runs = await g.readJournal();
  assertEquals(runs[0].outcome, "sigterm", "the fake Gradle was stopped with SIGTERM");
});

Deno.test("a second server on the same project is refused while the first builds", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).hangAt("compileDemoDebugKotlin");
  await using first = await connect(world, ["--project", project]);
  await using second = await connect(world, ["--project", project]);
  const abort = new AbortController();
  const pending = startHungBuild(first, abort.signal);
  await waitUntil(
    () => building(first),
    "the build to run",
    E2E_WAIT,
  );
  const r = await call(second, "run_gradle_task", { task: "assembleFullDebug" });
  assertEquals(r.isError, true);
  assertEquals(errorOf(r).code, "build_busy");
  assertMatch(r.content[0].text!, /another keynobi process \(pid \d+/);
  // The second server sees the first's build for what it is, not as an empty line.
  const seen = await call(second, "get_build_status");
  const st = seen.structuredContent!;
  assertEquals(st.status, "running");
  const elsewhere = st.running_elsewhere as { pid: number; tasks: string[] };
  assertEquals(elsewhere.pid, first.pid());
  assertEquals(elsewhere.tasks, ["assembleDemoDebug"]);
  assertMatch(
    seen.content[0].text!,
    new RegExp(
      `^Build #\\d+ running in keynobi process ${first.pid()} since \\S+ \\(\\d+ s\\), task assembleDemoDebug`,
    ),
  );
  const cancel = await call(second, "cancel_build");
  assertEquals(cancel.structuredContent!.cancelled, false, "cancel_build acts on its own process");
  const c1 = await call(first, "cancel_build");
  assertEquals(c1.structuredContent!.cancelled, true);
  await pending;
  abort.abort();
  await waitUntil(
    async () => (await call(first, "get_build_status")).structuredContent!.status === "cancelled",
    "the cancel",
    E2E_WAIT,
  );
});

Deno.test("a build that passes the timeout is stopped and recorded as failed", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await settings(world, { build_timeout_sec: 1 });
  await world.sim.gradle(PROJECT).hangAt("compileDemoDebugKotlin");
  await using s = await connect(world, ["--project", project]);
  const r = await call(s, "run_gradle_task", { task: "assembleDemoDebug" });
  assertEquals(r.isError, true);
  assertEquals(errorOf(r).code, "build_failed");
  assertStringIncludes(r.content[0].text!, "timed out after 1 s");
  const status = await call(s, "get_build_status");
  assertEquals(status.structuredContent!.status, "failed");
});

Deno.test("a client that goes away does not cancel its build: it finishes and is recorded", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).setTaskDelay(40);
  const lines = [
    initializeRequest("gone", "0"),
    INITIALIZED,
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    },
  ].map((m) => JSON.stringify(m)).join("\n") + "\n";
  // stdin closes right after the request: the server must still finish the build before exiting.
  const r = await runKeynobi(world, ["--mcp", "--project", project], { stdin: lines });
  assertEquals(r.code, 0, r.stderr);
  const history = JSON.parse(await Deno.readTextFile(`${world.dataDir}/build-history.json`));
  const record = history.records.at(-1);
  assertEquals(record.status, "success");
  assertEquals(record.origin.client_name, "gone");
  const runs = await world.sim.gradle(PROJECT).readJournal();
  assertEquals(runs.length, 1);
  assertEquals(runs[0].outcome, "success");
});

Deno.test("the wrapper is made executable only once the project is trusted", async () => {
  await using world = await startWorld();
  const project = world.sim.projects[PROJECT];
  await Deno.chmod(`${project}/gradlew`, 0o644);
  await using s = await connect(world, ["--project", project]);
  const refused = await call(s, "run_gradle_task", { task: "assembleDemoDebug" });
  assertEquals(errorOf(refused).code, "invalid_params");
  assertEquals((await Deno.stat(`${project}/gradlew`)).mode! & 0o111, 0, "still not executable");
  await trusted(world);
  await world.sim.gradle(PROJECT).setTaskDelay(0);
  const r = await call(s, "run_gradle_task", { task: "assembleDemoDebug" });
  assert(!r.isError, r.content[0].text);
  assert(((await Deno.stat(`${project}/gradlew`)).mode! & 0o100) !== 0, "made executable");
});

Deno.test("the build-and-fix prompt is served once the build tools are", async () => {
  await using world = await startWorld();
  await using s = await connect(world, ["--project", world.sim.projects[PROJECT]]);
  const { prompts } = await s.client.listPrompts();
  assert(prompts.some((p: { name: string }) => p.name === "build-and-fix"));
  const got = await s.client.getPrompt({
    name: "build-and-fix",
    arguments: { task: "assembleDemoDebug" },
  });
  const text = (got.messages[0].content as { text: string }).text;
  assertStringIncludes(text, "run_gradle_task (task: assembleDemoDebug)");
  assertStringIncludes(text, "get_build_errors");
});

Deno.test("SIGTERM during a build: recorded cancelled by shutdown, lock released, next server agrees", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).hangAt("compileDemoDebugKotlin");
  const first = await connect(world, ["--project", project]);
  const abort = new AbortController();
  const pending = startHungBuild(first, abort.signal);
  await waitUntil(() => building(first), "the build to run", E2E_WAIT);
  const pid = first.pid()!;
  Deno.kill(pid, "SIGTERM");
  await pending;
  await first[Symbol.asyncDispose]().catch(() => {});
  // The process is gone once its pid no longer answers; the record must be settled by then.
  await waitUntil(
    async () => {
      const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] })
        .output();
      const stat = new TextDecoder().decode(out.stdout).trim();
      return stat === "" || stat.startsWith("Z");
    },
    "the server to exit",
    E2E_WAIT,
  );
  const history = JSON.parse(await Deno.readTextFile(`${world.dataDir}/build-history.json`));
  const record = history.records.at(-1);
  assertEquals(record.status, "cancelled");
  assertEquals(record.cancelled_by, { kind: "shutdown" });
  assertEquals(
    record.summary,
    "BUILD CANCELLED — task 'assembleDemoDebug' was cancelled because keynobi was stopped by a " +
      "signal",
  );
  const locks = await Array.fromAsync(Deno.readDir(`${world.dataDir}/build-locks`)).catch(() => []);
  assertEquals(locks.filter((e) => e.name.endsWith(".lock")), [], "the build lock is released");
  await using next = await connect(world, ["--project", project]);
  const st = await call(next, "get_build_status");
  assertEquals(st.structuredContent!.status, "cancelled");
});

Deno.test("a build record left running by a process that is gone is reported as interrupted", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  // A keynobi process that recorded a running build and died without finishing it.
  const dead = new Deno.Command("true").spawn();
  const deadPid = dead.pid;
  await dead.status;
  const path = `${world.dataDir}/build-history.json`;
  const prior = await Deno.readTextFile(path).then(JSON.parse).catch(() => null);
  const realProject = await Deno.realPath(project);
  const history = prior ?? { version: 1, next_id: 1, records: [] };
  history.records.push({
    id: history.next_id,
    project: realProject,
    task: "assembleDemoDebug",
    tasks: ["assembleDemoDebug"],
    status: "running",
    started_at: new Date().toISOString(),
    origin: { kind: "app" },
    pid: deadPid,
    binary: Deno.execPath(),
  });
  history.next_id++;
  await Deno.writeTextFile(path, JSON.stringify(history));
  await using s = await connect(world, ["--project", project]);
  const st = await call(s, "get_build_status");
  assertEquals(st.structuredContent!.status, "interrupted", JSON.stringify(st.structuredContent));
  assertStringIncludes(st.content[0].text!, "keynobi stopped before the build finished");
});

Deno.test("find_apk_path with a task path as module finds that task's variant, not the active one", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await using s = await connect(world, ["--project", project]);
  const built = await call(s, "run_gradle_task", { task: "assembleDemoDebug assembleFullDebug" }, {
    timeoutMs: 60_000,
  });
  assert(!built.isError, built.content[0].text);
  const r = await call(s, "find_apk_path", { module: ":app:assembleFullDebug" });
  assertEquals(r.structuredContent!.found, true, r.content[0].text);
  assertEquals(r.structuredContent!.variant, "fullDebug");
  const both = await call(s, "find_apk_path", {
    module: ":app:assembleFullDebug",
    variant: "demoDebug",
  });
  assertEquals(errorOf(both).code, "invalid_params");
});

Deno.test("the full-deploy prompt without a variant works on a flavored project (no plain debug)", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await using s = await connect(world, ["--project", project]);
  const prompt = await s.client.getPrompt({
    name: "full-deploy",
    arguments: { device_serial: "emulator-5554" },
  });
  const text = (prompt.messages as { content: { text: string } }[]).map((m) => m.content.text)
    .join("\n");
  assert(!/variant: debug\b/.test(text), text);
  assert(!/assembleDebug\b/.test(text), text);
  // Follow its fallback: the active variant from list_build_variants, then find_apk_path.
  const variants = await call(s, "list_build_variants");
  const active = variants.structuredContent!.active as string;
  assert(typeof active === "string" && active !== "debug", String(active));
  assertStringIncludes(text, "list_build_variants");
  const built = await call(s, "run_gradle_task", { task: "assemble", variant: active }, {
    timeoutMs: 60_000,
  });
  assert(!built.isError, built.content[0].text);
  const apk = await call(s, "find_apk_path");
  assertEquals(apk.structuredContent!.found, true, apk.content[0].text);
});

/** Whether any process is in group `pgid` (`kill -0 -- -pgid`). */
async function groupAlive(pgid: number): Promise<boolean> {
  const out = await new Deno.Command("kill", { args: ["-0", "--", `-${pgid}`], stderr: "null" })
    .output();
  return out.success;
}

/** A build lock file: the server holding it and, once it runs, the Gradle group it started. */
interface LockHolder {
  pid: number;
  gradle?: { pgid: number; start: string };
}

/** The build lock files' holders in the data directory. */
async function lockHolders(dataDir: string): Promise<LockHolder[]> {
  const out: LockHolder[] = [];
  for await (const e of Deno.readDir(`${dataDir}/build-locks`)) {
    if (e.name.endsWith(".lock")) {
      out.push(JSON.parse(await Deno.readTextFile(`${dataDir}/build-locks/${e.name}`)));
    }
  }
  return out;
}

Deno.test("a server killed during a build: the next server ends that Gradle, reports it interrupted, then builds", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const g = world.sim.gradle(PROJECT);
  await g.hangAt("compileDemoDebugKotlin");
  const first = await connect(world, ["--project", project]);
  const abort = new AbortController();
  const pending = startHungBuild(first, abort.signal);
  // Hung: it writes nothing more (a write to the dead server's pipe would end it on its own).
  await waitUntil(
    async () => {
      const st = (await call(first, "get_build_status")).structuredContent!;
      const running = st.running as { current_task: string | null } | null;
      return running?.current_task?.endsWith("compileDemoDebugKotlin") ?? false;
    },
    "the build to hang",
    E2E_WAIT,
  );
  const pid = first.pid()!;
  // The lock names the build's process group (gradlew leads it) with the leader's start time.
  const holder = await pollUntil(
    () => lockHolders(world.dataDir),
    (hs) => hs.length === 1 && hs[0].gradle !== undefined,
    "the lock to name the Gradle group",
    E2E_WAIT,
  ).then((hs) => hs[0]);
  const pgid: number = holder.gradle!.pgid;
  assertEquals(holder.pid, pid);
  assertMatch(holder.gradle!.start, /^(proc:\d+|ps:.+)$/);
  try {
    // SIGKILL: nothing of the server runs any more; its record stays running, its lock stays, and
    // the detached Gradle group keeps running.
    Deno.kill(pid, "SIGKILL");
    await pending;
    await first[Symbol.asyncDispose]().catch(() => {});
    await waitUntil(
      async () => {
        const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] })
          .output();
        const stat = new TextDecoder().decode(out.stdout).trim();
        return stat === "" || stat.startsWith("Z");
      },
      "the server to be gone",
      E2E_WAIT,
    );
    assert(await groupAlive(pgid), "the orphaned Gradle outlived its server");
    // The orphan stays hung (the hang is still asked for); the next build does not reach that
    // task, so it can finish only if nothing else holds it up.
    await using next = await connect(world, ["--project", project]);
    const st = await call(next, "get_build_status");
    assertEquals(st.structuredContent!.status, "interrupted", JSON.stringify(st.structuredContent));
    const built = await call(next, "run_gradle_task", { task: "help" });
    assert(!built.isError, built.content[0].text);
    // The orphan was ended (SIGTERM: the fake journals exit 143) before the new build ran, so its
    // journal line comes first; nothing of it is left.
    const runs = await g.readJournal();
    const orphan = runs.findIndex((r) => r.pid === pgid);
    const rebuilt = runs.findIndex((r) => r.pid !== pgid && r.tasks.length > 0);
    assert(orphan >= 0, `the orphaned Gradle was ended: ${JSON.stringify(runs)}`);
    assertEquals(runs[orphan].exit_code, 143, JSON.stringify(runs));
    assert(orphan < rebuilt, `it ended before the next build: ${JSON.stringify(runs)}`);
    assert(!(await groupAlive(pgid)), "nothing of the orphaned group is left");
  } finally {
    try {
      Deno.kill(-pgid, "SIGKILL");
    } catch { /* gone */ }
  }
});

Deno.test("standalone: a client that closes normally (stdin, then SIGTERM) stops its build, as documented", async () => {
  // The decision (README, docs/MCP_SERVER.md Decisions): a standalone build belongs to its server
  // process. Closing stdin alone lets it finish (the test above); the SDK's
  // StdioClientTransport.close() closes stdin and sends SIGTERM 2 s later, and a signal stops the
  // build, recorded as cancelled by shutdown. Only under `keynobi app` does a build outlive it.
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).hangAt("compileDemoDebugKotlin");
  const s = await connect(world, ["--project", project]);
  const pending = startHungBuild(s, new AbortController().signal);
  await waitUntil(() => building(s), "the build to run", E2E_WAIT);
  await s.client.close();
  await pending;
  await waitUntil(
    async () => {
      const h = JSON.parse(await Deno.readTextFile(`${world.dataDir}/build-history.json`));
      return h.records.at(-1).status !== "running";
    },
    "the build to be recorded",
    E2E_WAIT,
  );
  const record = JSON.parse(await Deno.readTextFile(`${world.dataDir}/build-history.json`))
    .records.at(-1);
  assertEquals([record.status, record.cancelled_by], ["cancelled", { kind: "shutdown" }]);
  assertStringIncludes(record.summary, "cancelled because keynobi was stopped by a signal");
});

Deno.test("what a successful build leaves running (a daemon in its group) does not outlive the server", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const g = world.sim.gradle(PROJECT);
  await g.leaveDaemon(true);
  let daemon: number | undefined;
  try {
    const s = await connect(world, ["--project", project]);
    const built = await call(s, "run_gradle_task", { task: "help" });
    assert(!built.isError, built.content[0].text);
    daemon = (await g.readJournal()).at(-1)?.daemon_pid;
    assert(daemon !== undefined, "the fake Gradle left a daemon");
    const alive = async () =>
      (await new Deno.Command("kill", { args: ["-0", String(daemon)], stderr: "null" }).output())
        .success;
    assert(await alive(), "the daemon runs after the build, for the next one");
    const pid = s.pid()!;
    await s[Symbol.asyncDispose](); // end of input: the server exits
    await waitUntil(
      async () =>
        !(await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output())
          .success,
      "the server to exit",
      E2E_WAIT,
    );
    await waitUntil(async () => !(await alive()), "the daemon to be ended", E2E_WAIT);
  } finally {
    if (daemon !== undefined) {
      try {
        Deno.kill(daemon, "SIGKILL");
      } catch { /* gone */ }
    }
  }
});
