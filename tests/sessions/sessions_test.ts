import { assert, assertEquals } from "../assert.ts";
import {
  appendEvent,
  beforeInstall,
  createDebugSession,
  effectiveState,
  IDLE_AFTER_MS,
  isDebugSessionId,
  MAX_AGENT_EVENTS_PER_SESSION,
  MAX_EVENTS_PER_SESSION,
  type NewDebugSession,
  parseDebugSession,
} from "../../lib/sessions/session_model.ts";
import {
  applySessionOps,
  type DebugSessionSummary,
  listSessionSummaries,
  pruneIndex,
  readSession,
} from "../../lib/sessions/session_store.ts";
import { DebugSessionRecorder } from "../../lib/sessions/session_recorder.ts";
import {
  defaultPair,
  diffDebugSessions,
  filterDebugSessions,
  timelinePage,
} from "../../lib/sessions/session_query.ts";
import { exitOps, launchOp } from "../../lib/sessions/session_events.ts";

const SHA = "c".repeat(64);

function newSession(over: Partial<NewDebugSession> = {}): NewDebugSession {
  return {
    package: "com.example.app",
    serial: "emulator-5554",
    project: "/p",
    build: {
      build_id: 3,
      task: ":app:assembleDebug",
      module: ":app",
      variant: "debug",
      version_code: 1,
      version_name: "1.0",
      apk_sha256: SHA,
      map_ids: [],
      mapping_sha256: null,
      source: null,
    },
    installedBy: { kind: "agent", session_id: "m1", client_name: "test", standalone: true },
    recordedBy: "standalone",
    deviceInstalledAt: "2026-03-14 05:30:00",
    at: new Date("2026-03-14T05:30:00Z"),
    ...over,
  };
}

const agent = { kind: "agent" as const, session_id: "m1", client_name: "test", standalone: true };

Deno.test("createDebugSession() opens with an install event; ids are valid and sortable", () => {
  const s = createDebugSession(newSession());
  assert(isDebugSessionId(s.id), s.id);
  assertEquals(s.state, "open");
  assertEquals(s.events.map((e) => [e.seq, e.kind]), [[1, "install"]]);
  assert(!isDebugSessionId("../x") && !isDebugSessionId("s-1-2"));
  const later = createDebugSession(newSession({ at: new Date("2027-01-01T00:00:00Z") }));
  assert(later.id > s.id, "later ids sort after");
});

Deno.test("appendEvent() bounds the timeline, keeps the install, and bounds agent actions", () => {
  const s = createDebugSession(newSession());
  for (let i = 0; i < MAX_EVENTS_PER_SESSION + 5; i++) {
    appendEvent(s, { at: new Date(), kind: "launch", by: agent, summary: `l${i}` });
  }
  assertEquals(s.events.length, MAX_EVENTS_PER_SESSION);
  assertEquals(s.events[0].kind, "install", "the install event stays");
  assertEquals(s.dropped_events, 6);
  const t = createDebugSession(newSession());
  for (let i = 0; i < MAX_AGENT_EVENTS_PER_SESSION + 3; i++) {
    appendEvent(t, { at: new Date(), kind: "agentAction", by: agent, summary: "tap" });
  }
  assertEquals(t.counts.agent_actions, MAX_AGENT_EVENTS_PER_SESSION);
  assertEquals(t.dropped_agent_actions, 3);
});

Deno.test("effectiveState() is idle after IDLE_AFTER_MS without events; beforeInstall() compares device clocks", () => {
  const s = createDebugSession(newSession());
  const opened = Date.parse(s.last_event_at);
  assertEquals(effectiveState(s, new Date(opened + 1000)), "open");
  assertEquals(effectiveState(s, new Date(opened + IDLE_AFTER_MS + 1)), "idle");
  assertEquals(beforeInstall(s, "2026-03-14 05:29:59.999"), true);
  assertEquals(beforeInstall(s, "2026-03-14 05:30:01.000"), false);
  assertEquals(beforeInstall(s, "03-14 05:31:00.000"), false, "logcat's stamp");
  assertEquals(beforeInstall(s, "03-14 05:00:00.000"), true);
  assertEquals(beforeInstall(s, null), null);
});

Deno.test("parseDebugSession() reads back what it wrote, and refuses what is not a session", () => {
  const s = createDebugSession(newSession());
  appendEvent(s, {
    at: new Date(),
    kind: "launch",
    by: agent,
    summary: "launched",
    data: { total_ms: 5 },
  });
  assertEquals(parseDebugSession(JSON.stringify(s)), s);
  assertEquals(parseDebugSession("{}"), null);
  assertEquals(parseDebugSession("not json"), null);
  assertEquals(parseDebugSession(JSON.stringify({ ...s, id: "../../x" })), null);
});

Deno.test("applySessionOps(): a new install supersedes the open session; events go to open ones only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = await applySessionOps(dir, [{ type: "open", session: newSession() }]);
    await applySessionOps(dir, [
      launchOp("emulator-5554", "com.example.app", {
        total_ms: 800,
        wait_ms: 810,
        launch_state: "COLD",
      }, agent),
    ]);
    const b = await applySessionOps(dir, [{
      type: "open",
      session: newSession({ at: new Date("2026-03-14T06:00:00Z") }),
    }]);
    await applySessionOps(dir, [
      launchOp("emulator-5554", "com.example.app", {
        total_ms: 300,
        wait_ms: 310,
        launch_state: "WARM",
      }, agent),
      launchOp(
        "emulator-5554",
        "com.other",
        { total_ms: 1, wait_ms: 1, launch_state: "COLD" },
        agent,
      ),
      {
        type: "event",
        serial: "emulator-5554",
        package: "com.example.app",
        key: "exit|2026-03-14 05:00:00.000|7",
        event: {
          at: new Date(),
          kind: "exit",
          by: { kind: "device" },
          summary: "old exit",
          data: { timestamp: "2026-03-14 05:00:00.000" },
        },
      },
      {
        type: "event",
        serial: "emulator-5554",
        package: "com.example.app",
        key: "exit|2026-03-14 06:10:00.000|8",
        event: {
          at: new Date(),
          kind: "exit",
          by: { kind: "device" },
          summary: "new exit",
          data: { timestamp: "2026-03-14 06:10:00.000", reason: "APP CRASH(EXCEPTION)" },
        },
      },
      {
        type: "event",
        serial: "emulator-5554",
        package: "com.example.app",
        key: "exit|2026-03-14 06:10:00.000|8",
        event: {
          at: new Date(),
          kind: "exit",
          by: { kind: "device" },
          summary: "same exit again",
          data: { timestamp: "2026-03-14 06:10:00.000" },
        },
      },
    ]);
    const first = (await readSession(dir, a.opened[0]))!;
    const second = (await readSession(dir, b.opened[0]))!;
    assertEquals(first.state, "superseded");
    assertEquals(first.events.map((e) => e.kind), ["install", "launch", "state"]);
    assertEquals(second.state, "open");
    assertEquals(second.events.map((e) => e.summary.split(":")[0]), [
      "installed com.example.app 1.0 (1) on emulator-5554",
      "launched com.example.app",
      "new exit",
    ]);
    assertEquals(second.counts.exits, 1, "the exit before the install and the repeat are skipped");
    const index = await listSessionSummaries(dir);
    assertEquals(index.map((x) => x.state), ["superseded", "open"]);
    // A lost index is rebuilt from the session files.
    await Deno.remove(`${dir}/debug-sessions/index.json`);
    assertEquals((await listSessionSummaries(dir)).map((x) => x.id), index.map((x) => x.id));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("DebugSessionRecorder queues without waiting and drops past MAX_PENDING_SESSION_EVENTS", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = new DebugSessionRecorder(dir);
    assert(r.record({ type: "open", session: newSession() }));
    for (let i = 0; i < 5; i++) {
      r.record(
        launchOp("emulator-5554", "com.example.app", {
          total_ms: i,
          wait_ms: i,
          launch_state: "HOT",
        }, agent),
      );
    }
    await r.flush();
    const [only] = await listSessionSummaries(dir);
    assertEquals(only.counts.launches, 5);
    await r.close();
    assertEquals(
      r.record(
        launchOp("emulator-5554", "com.example.app", {
          total_ms: 1,
          wait_ms: 1,
          launch_state: "HOT",
        }, agent),
      ),
      false,
      "closed",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two processes recording into one session at once lose no event", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { opened } = await applySessionOps(dir, [{ type: "open", session: newSession() }]);
    const N = 150;
    const child = (label: string) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          new URL("./_record_events.ts", import.meta.url).pathname,
          dir,
          "emulator-5554",
          "com.example.app",
          label,
          String(N),
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
    const [a, b] = await Promise.all([child("a"), child("b")]);
    assertEquals(a.code, 0, new TextDecoder().decode(a.stderr));
    assertEquals(b.code, 0, new TextDecoder().decode(b.stderr));
    const s = (await readSession(dir, opened[0]))!;
    assertEquals(s.events.length, 1 + 2 * N);
    assertEquals(s.counts.launches, 2 * N);
    assertEquals(s.events.map((e) => e.seq), Array.from({ length: 1 + 2 * N }, (_, k) => k + 1));
    for (const label of ["a", "b"]) {
      const mine = s.events.filter((e) => e.data.label === label).map((e) => e.data.i);
      assertEquals(mine, Array.from({ length: N }, (_, k) => k), `${label} in order, none lost`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function summary(id: string, over: Partial<DebugSessionSummary>): DebugSessionSummary {
  return {
    id,
    state: "superseded",
    package: "com.example.app",
    serial: "emulator-5554",
    avd: "Pixel_8",
    model: "sdk_gphone64",
    project: "/p",
    build_id: 1,
    module: ":app",
    variant: "debug",
    apk_sha256: SHA,
    opened_at: id,
    closed_at: null,
    last_event_at: id,
    recorded_by: "standalone",
    counts: { launches: 1, crashes: 0, anrs: 0, exits: 0, agent_actions: 0, attachments: 0 },
    ...over,
  };
}

Deno.test("defaultPair() takes the newest good session and the first later crashing one of its variant", () => {
  const crash = { launches: 1, crashes: 1, anrs: 0, exits: 0, agent_actions: 0, attachments: 0 };
  const all = [
    summary("s-000000001-00000001", {}),
    summary("s-000000002-00000002", {}),
    summary("s-000000003-00000003", { variant: "release", counts: crash }),
    summary("s-000000004-00000004", { counts: crash }),
    summary("s-000000005-00000005", { counts: crash }),
  ];
  const p = defaultPair(all)!;
  assertEquals([p.from, p.to], ["s-000000002-00000002", "s-000000004-00000004"]);
  assertEquals(defaultPair(all.slice(0, 3)), null, "no later crash of the same variant");
  const f = filterDebugSessions(
    all,
    { limit: 2, onlyCrashing: true, device: "Pixel_8" },
    new Date(),
  );
  assertEquals(f.matched, 3);
  assertEquals(f.sessions.map((x) => x.id), ["s-000000005-00000005", "s-000000004-00000004"]);
});

Deno.test("pruneIndex() drops the oldest sessions that are not open first", () => {
  const idx = [
    summary("s-000000001-00000001", { state: "open" }),
    summary("s-000000002-00000002", {}),
    summary("s-000000003-00000003", {}),
  ];
  assertEquals(pruneIndex(idx, 2), ["s-000000002-00000002"]);
  assertEquals(idx.map((x) => x.id), ["s-000000001-00000001", "s-000000003-00000003"]);
});

Deno.test("timelinePage() pages newest first with a cursor, oldest first within a page", () => {
  const s = createDebugSession(newSession());
  for (let i = 0; i < 6; i++) {
    appendEvent(s, { at: new Date(), kind: "launch", by: agent, summary: `${i}` });
  }
  const p1 = timelinePage(s.events, 3);
  assertEquals(p1.timeline.map((e) => e.seq), [5, 6, 7]);
  const p2 = timelinePage(s.events, 3, p1.next_before_seq!);
  assertEquals(p2.timeline.map((e) => e.seq), [2, 3, 4]);
  const p3 = timelinePage(s.events, 3, p2.next_before_seq!);
  assertEquals([p3.timeline.map((e) => e.seq), p3.next_before_seq], [[1], null]);
  assertEquals(timelinePage(s.events, 0).timeline, []);
});

Deno.test("diffDebugSessions(): launch delta only when comparable; new and gone signatures; build files", () => {
  const prov = (commit: string, files: Record<string, string>) => ({
    commit,
    branch: "main",
    dirty: false,
    changed_files: [],
    changed_file_count: 0,
    no_commit_because: null,
    gradle_version: "8.9",
    jdk_version: "17",
    build_files: files,
  });
  const a = createDebugSession(newSession());
  a.build.source = prov("aaa", { "app/build.gradle.kts": "1", "settings.gradle.kts": "2" });
  const b = createDebugSession(
    newSession({ build: { ...newSession().build, build_id: 4, apk_sha256: "d".repeat(64) } }),
  );
  b.build.source = prov("bbb", { "app/build.gradle.kts": "9", "gradle.properties": "3" });
  appendEvent(a, {
    at: new Date(),
    kind: "launch",
    by: agent,
    summary: "",
    data: { total_ms: 800, launch_state: "COLD" },
  });
  appendEvent(b, {
    at: new Date(),
    kind: "launch",
    by: agent,
    summary: "",
    data: { total_ms: 950, launch_state: "COLD" },
  });
  const crash = (sig: string) => ({
    kind: "crash" as const,
    logged_at: "",
    pid: 1,
    summary: "",
    signature: sig,
    crash_group_id: null,
    attribution: { method: "install_record" as const, verified: true, reason: "" },
    lines: [],
  });
  appendEvent(a, {
    at: new Date(),
    kind: "crash",
    by: { kind: "device" },
    summary: "",
    crash: crash("old"),
  });
  appendEvent(b, {
    at: new Date(),
    kind: "crash",
    by: { kind: "device" },
    summary: "",
    crash: crash("new"),
  });
  const c = diffDebugSessions(a, b);
  assertEquals(c.launch.delta_ms, 150);
  assertEquals(c.crashes.new_in_to, ["new"]);
  assertEquals(c.crashes.gone_in_to, ["old"]);
  assert(c.differences.some((d) => d.field === "build_id"));
  const files = (c.provenance!.changed_build_files as { path: string; change: string }[])
    .sort((x, y) => x.path < y.path ? -1 : 1);
  assertEquals(files, [
    { path: "app/build.gradle.kts", change: "changed" },
    { path: "gradle.properties", change: "added" },
    { path: "settings.gradle.kts", change: "removed" },
  ]);
  appendEvent(b, {
    at: new Date(),
    kind: "launch",
    by: agent,
    summary: "",
    data: { total_ms: 200, launch_state: "HOT" },
  });
  const d = diffDebugSessions(a, b);
  assertEquals([d.launch.comparable, d.launch.delta_ms], [false, null]);
  assert(d.launch.note!.includes("launch states"));
});

Deno.test("applySessionOps(): a device APK other than the session's closes it; an uninstall exit ends it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = await applySessionOps(dir, [{ type: "open", session: newSession() }]);
    await applySessionOps(dir, [{
      type: "device_apk",
      serial: "emulator-5554",
      package: "com.example.app",
      apk_sha256: SHA,
      at: new Date(),
    }]);
    assertEquals(
      (await readSession(dir, a.opened[0]))!.state,
      "open",
      "the same APK keeps it open",
    );
    await applySessionOps(dir, [{
      type: "device_apk",
      serial: "emulator-5554",
      package: "com.example.app",
      apk_sha256: "e".repeat(64),
      at: new Date(),
    }]);
    const closed = (await readSession(dir, a.opened[0]))!;
    assertEquals(closed.state, "closed");
    assert(closed.state_reason!.includes("installed outside keynobi"), closed.state_reason!);
    const b = await applySessionOps(dir, [{ type: "open", session: newSession() }]);
    await applySessionOps(
      dir,
      exitOps("emulator-5554", "com.example.app", [{
        timestamp: "2026-03-14 07:00:00.000",
        pid: 9,
        reason: "USER REQUESTED",
        description: "stop com.example.app due to uninstall pkg",
      }]),
    );
    const ended = (await readSession(dir, b.opened[0]))!;
    assertEquals(ended.state, "ended");
    assertEquals(ended.events.map((e) => e.kind), ["install", "exit", "state"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("applySessionOps(): changes no open session matches touch no file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const op = launchOp("emulator-5554", "com.example.app", {
      total_ms: 1,
      wait_ms: 1,
      launch_state: "HOT",
    }, agent);
    assertEquals(await applySessionOps(dir, [op]), { opened: [], appended: 0 });
    assertEquals(await Deno.stat(`${dir}/debug-sessions`).then(() => true, () => false), false);
    await applySessionOps(dir, [{
      type: "open",
      session: newSession({ serial: "emulator-5556" }),
    }]);
    // Dated a minute back, so a rewrite would show in the mtime whatever its resolution.
    const index = `${dir}/debug-sessions/index.json`;
    const past = new Date(Date.now() - 60_000);
    await Deno.utime(index, past, past);
    const before = await Deno.stat(index);
    await applySessionOps(dir, [op]);
    const after = await Deno.stat(`${dir}/debug-sessions/index.json`);
    assertEquals(after.mtime?.getTime(), before.mtime?.getTime(), "the index was not rewritten");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("exitOps() leaves out the exits an update caused: they belong to the install before", () => {
  const ops = exitOps("emulator-5554", "com.example.app", [
    {
      timestamp: "2026-03-14 07:00:02.000",
      pid: 12,
      reason: "APP CRASH(EXCEPTION)",
      description: "crash",
    },
    {
      timestamp: "2026-03-14 07:00:00.000",
      pid: 11,
      reason: "PACKAGE UPDATED",
      description: "stop com.example.app due to installPackageLI",
    },
  ]);
  assertEquals(ops.map((o) => o.type === "event" ? o.key : o.type), [
    "exit|2026-03-14 07:00:02.000|12",
  ]);
});
