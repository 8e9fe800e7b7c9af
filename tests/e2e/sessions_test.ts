/**
 * Debug sessions end to end: install → launch → two agent taps → crash → reinstall shows those
 * events in order, the first session superseded; compare_debug_sessions with no arguments picks
 * that pair; bad arguments are refused.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  E2E_WAIT,
  runKeynobi,
  startWorld,
  type World,
} from "./harness.ts";
import { pollUntil } from "../wait.ts";

// deno-lint-ignore no-explicit-any
type J = any;

const SERIAL = "emulator-5554";
const PROJECT = "sample-kts";
const PKG = "com.example.keynobi.sample.demo.debug";
const APK = "app/build/outputs/apk/demo/debug/app-demo-debug.apk";

interface SimLogcat {
  crash(pkg: string, kind: "java" | "anr" | "native", variant?: string): { pid: number };
  setRate(n: number): void;
}

function simLogcat(world: World): SimLogcat {
  return world.sim.device(SERIAL).service("logcat" as never) as unknown as SimLogcat;
}

const sc = (r: { structuredContent?: Record<string, unknown> }) => r.structuredContent as J;

Deno.test("sessions e2e: install, launch, taps, crash, reinstall; the default comparison pair", async () => {
  await using world = await startWorld();
  const project = world.sim.projects[PROJECT];
  assertEquals((await runKeynobi(world, ["trust", project])).code, 0);
  await world.sim.gradle(PROJECT).setTaskDelay(0);
  await using s = await connect(world, ["--project", project]);
  simLogcat(world).setRate(0);
  assert(!(await call(s, "start_logcat", { device_serial: SERIAL })).isError);
  const built = await s.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    { timeout: 120_000 },
  ) as J;
  assert(!built.isError, built.content[0].text);

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
    (r) => sc(r).sessions[0] !== undefined,
    "a crashing session",
    E2E_WAIT,
  );
  const crashing: J = sc(listed).sessions[0] ?? null;
  assert(crashing, "a crashing session");
  // The device's exit history (exit-info) adds the crash's exit, once, however often it is read;
  // the exits of the earlier installs (stamped before this install on the device clock) are not.
  for (let i = 0; i < 2; i++) {
    const ex = await call(s, "get_exit_reasons", { device_serial: SERIAL, package: PKG });
    assert(!ex.isError, ex.content[0].text);
  }
  const third = await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK });
  assert(!third.isError, third.content[0].text);

  const list = sc(await call(s, "list_debug_sessions", { package: PKG }));
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
  const g = sc(got);
  const kinds = g.timeline.map((e: J) => e.kind);
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
  const exit = g.timeline.find((e: J) => e.kind === "exit");
  assertStringIncludes(exit.data.reason, "CRASH");
  const actions = g.timeline.filter((e: J) => e.kind === "agentAction");
  assertEquals(actions.map((e: J) => e.data.tool), [
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
    assertEquals(Object.keys(t.data).sort(), ["duration_ms", "kind", "ok", "serial", "tool"]);
  }
  assertEquals(g.session.state, "superseded");
  assertEquals(g.session.build.build_id, sc(first).build_id);
  assertEquals(g.session.install.by.kind, "agent");
  assertEquals(g.crashes.length, 1);
  assertEquals(g.crashes[0].attribution.method, "install_record");
  assertEquals(g.crashes[0].attribution.verified, true, JSON.stringify(g.crashes[0].attribution));
  assert(g.session.device_installed_at === undefined, "internal field not exposed");
  assert(g.crashes[0].log_lines_kept > 0);
  const seqs = g.timeline.map((e: J) => e.seq);
  assertEquals(seqs, [...seqs].sort((a: number, b: number) => a - b), "in order");

  const cap = sc(
    await call(s, "get_debug_session", {
      session_id: middle.id,
      capture_seq: g.crashes[0].seq,
      log_lines: 5,
    }),
  );
  assertEquals(cap.capture.lines.length, 5);
  const paged = sc(await call(s, "get_debug_session", { session_id: middle.id, max_events: 2 }));
  assertEquals(paged.timeline.map((e: J) => e.kind), ["exit", "state"]);
  const older = sc(
    await call(s, "get_debug_session", {
      session_id: middle.id,
      max_events: 10,
      before_seq: paged.next_before_seq,
    }),
  );
  assertEquals(older.timeline.map((e: J) => e.kind), kinds.slice(0, -2));
  assertEquals(older.next_before_seq, null);

  const cmp = await call(s, "compare_debug_sessions", {});
  assert(!cmp.isError, cmp.content[0].text);
  const c = sc(cmp);
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
    assertEquals(sc(r).error.code, "invalid_params", `${tool} ${JSON.stringify(args)}`);
  }
  const unknown = await call(s, "get_debug_session", { session_id: "s-000000001-deadbeef" });
  assertEquals(sc(unknown).error.code, "not_found");
  await assertNoInjection(world.sim);
});
