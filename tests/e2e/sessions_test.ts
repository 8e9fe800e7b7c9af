/**
 * Debug sessions end to end: install → launch → two agent taps → crash → reinstall shows those
 * events in order, the first session superseded; compare_debug_sessions with no arguments picks
 * that pair; bad arguments are refused.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  built,
  call,
  connect,
  E2E_WAIT,
  errorOf,
  json,
  simLogcat,
  startWorld,
  trusted,
  uiOf,
  type World,
} from "./harness.ts";
import { pollUntil } from "../wait.ts";

const SERIAL = "emulator-5554";
const PROJECT = "sample-kts";
const PKG = "com.example.keynobi.sample.demo.debug";
const APK = "app/build/outputs/apk/demo/debug/app-demo-debug.apk";

interface SessionRow {
  id: string;
  effective_state: string;
  counts: { crashes: number };
}

/** list_debug_sessions */
interface SessionList {
  matched: number;
  sessions: SessionRow[];
}

interface TimelineEvent {
  kind: string;
  seq: number;
  by: { kind: string };
  data: {
    reason: string;
    tool: string;
    kind: string;
    ok: boolean;
    serial: string;
    flow_step: unknown;
  };
}

/** get_debug_session */
interface DebugSession {
  session: {
    state: string;
    build: { build_id: number };
    install: { by: { kind: string } };
    device_installed_at?: unknown;
  };
  timeline: TimelineEvent[];
  crashes: {
    seq: number;
    pid: number;
    log_lines_kept: number;
    attribution: { method: string; verified: boolean };
  }[];
  capture: { lines: string[] };
  next_before_seq: number | null;
}

/** compare_debug_sessions */
interface Comparison {
  from: { id: string };
  to: { id: string };
  crashes: { new_in_to: unknown[] };
  launch: { comparable?: boolean; note?: string };
  provenance: {
    from: { commit: string | null };
    to: { commit: string | null };
    same_commit: boolean | null;
    notes: string[];
  };
  frames: { comparable: boolean; delta_janky_percent: number };
}

/** get_frame_stats */
interface FrameStats {
  since_reset: boolean;
  running: boolean;
  stats: { total_frames: number; janky_frames: number; janky_percent: number };
}

/** The sample project trusted, instant builds, a server on it. */
async function projectSession(world: World) {
  const project = await trusted(world, PROJECT);
  await world.sim.gradle(PROJECT).setTaskDelay(0);
  return await connect(world, ["--project", project]);
}

Deno.test("sessions e2e: install, launch, taps, crash, reinstall; the default comparison pair", async () => {
  await using world = await startWorld();
  await using s = await projectSession(world);
  simLogcat(world).setRate(0);
  assert(!(await call(s, "start_logcat", { device_serial: SERIAL })).isError);
  await built(s);

  // A good session: install, launch, no crash.
  const first = await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK });
  assert(!first.isError, first.content[0].text);
  assert(!(await call(s, "launch_app", { device_serial: SERIAL, package: PKG })).isError);
  // The same APK again: a new install, a new session whose story we follow.
  const second = await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK });
  assert(!second.isError, second.content[0].text);
  const launched = await call(s, "launch_app", { device_serial: SERIAL, package: PKG });
  assert(!launched.isError, launched.content[0].text);
  for (const x of [100, 200]) {
    const tap = await call(s, "ui_tap", { device_serial: SERIAL, x, y: 300 });
    assert(!tap.isError, tap.content[0].text);
  }
  simLogcat(world).crash(PKG, "java");
  // The crash reaches the session through the logcat worker; the read waits for it.
  const listed = await pollUntil(
    () => call(s, "list_debug_sessions", { only_crashing: true }),
    (r) => json<SessionList>(r).sessions[0] !== undefined,
    "a crashing session",
    E2E_WAIT,
  );
  const crashing = json<SessionList>(listed).sessions[0] ?? null;
  assert(crashing, "a crashing session");
  // The device's exit history (exit-info) adds the crash's exit, once, however often it is read;
  // the exits of the earlier installs (stamped before this install on the device clock) are not.
  for (let i = 0; i < 2; i++) {
    const ex = await call(s, "get_exit_reasons", { device_serial: SERIAL, package: PKG });
    assert(!ex.isError, ex.content[0].text);
  }
  const third = await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK });
  assert(!third.isError, third.content[0].text);

  const list = json<SessionList>(await call(s, "list_debug_sessions", { package: PKG }));
  assertEquals(list.matched, 3);
  const [newest, middle, oldest] = list.sessions;
  assertEquals([newest.effective_state, middle.effective_state, oldest.effective_state], [
    "open",
    "superseded",
    "superseded",
  ]);
  assertEquals(middle.id, crashing.id);
  const got = await call(s, "get_debug_session", { session_id: middle.id });
  assert(!got.isError, got.content[0].text);
  const g = json<DebugSession>(got);
  const kinds = g.timeline.map((e) => e.kind);
  // install_apk and launch_app are agent actions too (recorded after their own events).
  assertEquals(kinds, [
    "install",
    "agentAction",
    "launch",
    "agentAction",
    "agentAction",
    "agentAction",
    "crash",
    "exit",
    "state",
  ]);
  const exit = g.timeline.find((e) => e.kind === "exit");
  assertStringIncludes(exit!.data.reason, "CRASH");
  const actions = g.timeline.filter((e) => e.kind === "agentAction");
  assertEquals(actions.map((e) => e.data.tool), [
    "install_apk",
    "launch_app",
    "ui_tap",
    "ui_tap",
  ]);
  assertEquals(actions[0].data.kind, "destructive");
  const taps = actions.slice(2);
  for (const t of taps) {
    assertEquals([t.data.tool, t.data.kind, t.data.ok, t.data.serial], [
      "ui_tap",
      "write",
      true,
      SERIAL,
    ]);
    assertEquals(t.by.kind, "agent");
    // No other argument, but what the tap was as a flow step (export_ui_flow): its point.
    assertEquals(Object.keys(t.data).sort(), [
      "duration_ms",
      "flow_step",
      "kind",
      "ok",
      "serial",
      "tool",
    ]);
  }
  assertEquals(
    taps.map((t) => t.data.flow_step),
    [100, 200].map((x) => ({
      do: "tap",
      target: { selector: null, x, y: 300 },
    })),
  );
  assertEquals(g.session.state, "superseded");
  assertEquals(g.session.build.build_id, json<{ build_id: number }>(first).build_id);
  assertEquals(g.session.install.by.kind, "agent");
  assertEquals(g.crashes.length, 1);
  assertEquals(g.crashes[0].attribution.method, "install_record");
  assertEquals(g.crashes[0].attribution.verified, true, JSON.stringify(g.crashes[0].attribution));
  assert(g.session.device_installed_at === undefined, "internal field not exposed");
  assert(g.crashes[0].log_lines_kept > 0);
  const seqs = g.timeline.map((e) => e.seq);
  assertEquals(seqs, [...seqs].sort((a: number, b: number) => a - b), "in order");

  const cap = json<DebugSession>(
    await call(s, "get_debug_session", {
      session_id: middle.id,
      capture_seq: g.crashes[0].seq,
      log_lines: 5,
    }),
  );
  assertEquals(cap.capture.lines.length, 5);
  const paged = json<DebugSession>(
    await call(s, "get_debug_session", { session_id: middle.id, max_events: 2 }),
  );
  assertEquals(paged.timeline.map((e) => e.kind), ["exit", "state"]);
  const older = json<DebugSession>(
    await call(s, "get_debug_session", {
      session_id: middle.id,
      max_events: 10,
      before_seq: paged.next_before_seq,
    }),
  );
  assertEquals(older.timeline.map((e) => e.kind), kinds.slice(0, -2));
  assertEquals(older.next_before_seq, null);

  const cmp = await call(s, "compare_debug_sessions", {});
  assert(!cmp.isError, cmp.content[0].text);
  const c = json<Comparison>(cmp);
  assertEquals([c.from.id, c.to.id], [oldest.id, middle.id]);
  assertEquals(c.crashes.new_in_to.length, 1);
  assertEquals(c.launch.comparable === true || typeof c.launch.note === "string", true);
  assertStringIncludes(cmp.content[0].text!, oldest.id);
  // The sample project is not a git repository: no commit on either side, nothing to compare.
  assertEquals([c.provenance.from.commit, c.provenance.to.commit], [null, null]);
  assertEquals(c.provenance.same_commit, null);
  assertStringIncludes(c.provenance.notes.join("; "), "no commit to compare");
  assertStringIncludes(cmp.content[0].text!, "Source: no commit to compare");

  for (
    const [tool, args] of [
      ["list_debug_sessions", { state: "sleeping" }],
      ["list_debug_sessions", { device_serial: "x;reboot" }],
      ["get_debug_session", { session_id: "../../etc/passwd" }],
      ["compare_debug_sessions", { from: middle.id }],
    ] as const
  ) {
    const r = await call(s, tool, args);
    assertEquals(errorOf(r).code, "invalid_params", `${tool} ${JSON.stringify(args)}`);
  }
  const unknown = await call(s, "get_debug_session", { session_id: "s-000000001-deadbeef" });
  assertEquals(errorOf(unknown).code, "not_found");
  await assertNoInjection(world.sim);
});

Deno.test("sessions e2e: get_frame_stats measures an interaction and compares two installs", async () => {
  await using world = await startWorld();
  await using s = await projectSession(world);
  await built(s);
  const ui = uiOf(world, SERIAL);

  /** Install, launch, reset the counters, tap twice, read: the session's frame reading. */
  async function measuredInstall(): Promise<FrameStats> {
    assert(!(await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK })).isError);
    assert(!(await call(s, "launch_app", { device_serial: SERIAL, package: PKG })).isError);
    const reset = await call(s, "get_frame_stats", {
      device_serial: SERIAL,
      package: PKG,
      reset: true,
    });
    assert(!reset.isError, reset.content[0].text);
    assertStringIncludes(reset.content[0].text!, "Counters reset");
    // The reset zeroed the device's counters after printing them.
    assertEquals(ui.frames.counters.total, 0);
    for (const x of [100, 200]) {
      assert(!(await call(s, "ui_tap", { device_serial: SERIAL, x, y: 300 })).isError);
    }
    const read = await call(s, "get_frame_stats", { device_serial: SERIAL, package: PKG });
    assert(!read.isError, read.content[0].text);
    const st = json<FrameStats>(read);
    assertEquals(st.since_reset, true);
    // Exactly what the device counted since the reset, read from its own text.
    const c = ui.frames.counters;
    assert(c.total > 0, "the taps rendered frames");
    assertEquals([st.stats.total_frames, st.stats.janky_frames], [c.total, c.janky]);
    assertStringIncludes(read.content[0].text!, "Counted since the last reset");
    return st;
  }

  const fast = await measuredInstall();
  const first =
    json<SessionList>(await call(s, "list_debug_sessions", { package: PKG })).sessions[0];
  // The next build draws every frame slower (the simulated app's frame time).
  ui.settings.frameCostMs = 30;
  const slow = await measuredInstall();
  assert(slow.stats.janky_percent > fast.stats.janky_percent, JSON.stringify([fast, slow]));
  const second =
    json<SessionList>(await call(s, "list_debug_sessions", { package: PKG })).sessions[0];
  assert(first.id !== second.id, "two installs, two sessions");

  const timeline = json<DebugSession>(
    await call(s, "get_debug_session", { session_id: second.id }),
  ).timeline;
  assert(timeline.some((e) => e.kind === "frames"), JSON.stringify(timeline));
  const cmp = await call(s, "compare_debug_sessions", { from: first.id, to: second.id });
  assert(!cmp.isError, cmp.content[0].text);
  const f = json<Comparison>(cmp).frames;
  assertEquals(f.comparable, true);
  assertEquals(
    f.delta_janky_percent,
    Math.round((slow.stats.janky_percent - fast.stats.janky_percent) * 100) / 100,
  );
  assertStringIncludes(
    cmp.content[0].text!,
    `Frames: ${fast.stats.janky_percent}% → ${slow.stats.janky_percent}% janky`,
  );

  // Not running: said plainly, nothing recorded.
  assert(!(await call(s, "stop_app", { device_serial: SERIAL, package: PKG })).isError);
  const none = await call(s, "get_frame_stats", { device_serial: SERIAL, package: PKG });
  assert(!none.isError, none.content[0].text);
  assertEquals(json<FrameStats>(none).running, false);
  assertStringIncludes(none.content[0].text!, "has no rendering process");
  await assertNoInjection(world.sim);
});

Deno.test("sessions e2e: a crash logged before an install is not that install's, even replayed after it", async () => {
  await using world = await startWorld();
  await using s = await projectSession(world);
  simLogcat(world).setRate(0);
  await built(s);
  // The crash reaches the device's log first; the install comes over a second later (the
  // device's install time has whole seconds); logcat starts after and replays the buffer.
  const early = simLogcat(world).crash(PKG, "java");
  await new Promise((r) => setTimeout(r, 1_100));
  const installed = await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK });
  assert(!installed.isError, installed.content[0].text);
  assert(!(await call(s, "start_logcat", { device_serial: SERIAL })).isError);
  await pollUntil(
    () => call(s, "get_crash_logs"),
    (r) => json<{ total_crashes: number }>(r).total_crashes >= 1,
    "the replayed crash in the crash tools",
    E2E_WAIT,
  );
  // A crash after the install is counted: proof the session does read crashes.
  const later = simLogcat(world).crash(PKG, "java");
  assert(later.pid !== early.pid, "two crashes, two processes");
  const listed = await pollUntil(
    () => call(s, "list_debug_sessions", { package: PKG }),
    (r) => (json<SessionList>(r).sessions[0]?.counts.crashes ?? 0) >= 1,
    "a crash in the session",
    E2E_WAIT,
  );
  const row = json<SessionList>(listed).sessions[0];
  const g = json<DebugSession>(await call(s, "get_debug_session", { session_id: row.id }));
  assertEquals(g.crashes.map((c) => c.pid), [later.pid], JSON.stringify(g.crashes));
  assertEquals(row.counts.crashes, 1);
  assertEquals(g.crashes[0].attribution.verified, true);
});
