/** The Logcat and Crashes tools through the real entry point against the simulator's logcat. */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  E2E_WAIT,
  errorOf,
  json,
  type Session,
  simLogcat,
  startWorld,
  type World,
} from "./harness.ts";
import { pollUntil } from "../wait.ts";

const SERIAL = "emulator-5554";
const PKG = "com.example.crashy";

interface CrashGroup {
  crash_group_id: string;
  kind: string;
  count: number;
  package: string;
  pids: number[];
  anr_reasons: { reasons: { count: number; reason: string }[] };
}

interface LogEntry {
  level: string;
  tag: string;
  package: string;
}

interface DeviceStats {
  serial: string;
  state: string;
  evicted: number;
  levels: Record<string, number>;
  top_tags: unknown[];
  rate_per_sec: unknown;
}

/** The fields of the Logcat and Crashes tools' answers these tests read. */
interface LogcatAnswer {
  state: string;
  already: boolean;
  total_crashes: number;
  groups: CrashGroup[];
  group: CrashGroup;
  frames: { method: string }[];
  first_app_frame: unknown;
  crash: { package: string };
  entries: LogEntry[];
  count: number;
  devices: DeviceStats[];
  stopped: string[];
  cleared: string[];
}

const s = json<LogcatAnswer>;

async function started(world: World, sess: Session) {
  simLogcat(world).setRate(0);
  const r = await call(sess, "start_logcat", { device_serial: SERIAL });
  assert(!r.isError, r.content[0].text);
  return r;
}

Deno.test({
  name: "logcat e2e: start, filters, crash groups, stack trace, stats, stop and clear",
  async fn() {
    await using world = await startWorld();
    await using sess = await connect(world, []);
    const r = await started(world, sess);
    assertEquals(s(r).state, "streaming");
    const again = await call(sess, "start_logcat", { device_serial: SERIAL });
    assertEquals(s(again).already, true);

    const lc = simLogcat(world);
    const first = lc.crash(PKG, "java");
    lc.crash(PKG, "java");
    lc.crash(PKG, "java", "click");
    const crashes = await pollUntil(
      () => call(sess, "get_crash_logs", {}),
      (x) => s(x).total_crashes >= 3,
      "three crashes",
      E2E_WAIT,
    );
    const groups = s(crashes).groups;
    assertEquals(groups.length, 2, crashes.content[0].text);
    const twice = groups.find((g) => g.count === 2)!;
    const once = groups.find((g) => g.count === 1)!;
    assert(twice && once, crashes.content[0].text);
    assertEquals(twice.package, PKG);
    assert(twice.pids.includes(first.pid));
    assert(twice.crash_group_id !== once.crash_group_id);

    const trace = await call(sess, "get_crash_stack_trace", {
      crash_group_id: twice.crash_group_id,
    });
    assert(!trace.isError, trace.content[0].text);
    const t = s(trace);
    assertEquals(t.group.crash_group_id, twice.crash_group_id);
    assert(t.frames.length > 0);
    assert(t.first_app_frame !== null, trace.content[0].text);
    assert(typeof t.frames[0].method === "string");
    assertEquals(t.crash.package, PKG);
    const byPkg = await call(sess, "get_crash_stack_trace", { package: PKG });
    assertEquals(s(byPkg).group.crash_group_id, once.crash_group_id, "newest of the package");

    // Filters: the crash lines are E/AndroidRuntime of the package.
    const errs = await call(sess, "get_logcat_entries", { min_level: "E", tag: "AndroidRuntime" });
    const es = s(errs).entries;
    assert(es.length > 0);
    for (const e of es) {
      assertEquals([e.level === "E" || e.level === "F", e.tag], [true, "AndroidRuntime"]);
    }
    const byText = await call(sess, "get_logcat_entries", { text: "fatal exception" });
    const bt = s(byText).entries;
    assertEquals(bt.length, 3);
    const byPackage = await call(sess, "get_logcat_entries", { package: PKG, count: 10_000 });
    const bp = s(byPackage).entries;
    assert(bp.length > 0);
    for (const e of bp) assertEquals(e.package, PKG);
    const onlyCrashes = await call(sess, "get_logcat_entries", { only_crashes: true, count: 5 });
    assertEquals(s(onlyCrashes).entries.length, 5);

    const stats = await call(sess, "get_logcat_stats");
    const d = s(stats).devices[0];
    assertEquals([d.serial, d.state, d.evicted], [SERIAL, "streaming", 0]);
    assert(d.levels.E > 0 && d.top_tags.length > 0 && typeof d.rate_per_sec === "number");

    const stop = await call(sess, "stop_logcat", {});
    assertEquals(s(stop).stopped, [SERIAL]);
    const after = await call(sess, "get_logcat_stats");
    assertEquals(s(after).devices[0].state, "stopped");
    const kept = await call(sess, "get_crash_logs", {});
    assertEquals(s(kept).total_crashes, 3, "stopping keeps the buffer");
    const clear = await call(sess, "clear_logcat", {});
    assertEquals(s(clear).cleared, [SERIAL]);
    const empty = await call(sess, "get_logcat_entries", {});
    assertEquals(s(empty).count, 0);
    assertStringIncludes((await call(sess, "get_crash_logs", {})).content[0].text!, "No crashes");
    await assertNoInjection(world.sim);
  },
});

Deno.test({
  name: "logcat e2e: ANR and native crashes are separate groups",
  async fn() {
    await using world = await startWorld();
    await using sess = await connect(world, []);
    await started(world, sess);
    const lc = simLogcat(world);
    lc.crash(PKG, "anr");
    lc.crash(PKG, "native");
    const crashes = await pollUntil(
      () => call(sess, "get_crash_logs", {}),
      (x) => s(x).total_crashes >= 2,
      "ANR and native crash",
      E2E_WAIT,
    );
    const kinds = s(crashes).groups.map((g) => g.kind).sort();
    assertEquals(kinds, ["anr", "native"]);
    await assertNoInjection(world.sim);
  },
});

Deno.test("logcat e2e: out-of-range, wrong-typed and hostile arguments are invalid_params", async () => {
  await using world = await startWorld();
  await using sess = await connect(world, []);
  const before = (await world.sim.readJournal()).length;
  const hostile = ["x; reboot", "$(reboot)", "`id`", "a'b\"c", "*", "line\nbreak", "ünï"];
  const cases: [string, Record<string, unknown>][] = [
    ["get_logcat_entries", { count: 0 }],
    ["get_logcat_entries", { count: 10_001 }],
    ["get_logcat_entries", { count: "5" }],
    ["get_logcat_entries", { min_level: "LOUD" }],
    ["get_logcat_entries", { only_crashes: "yes" }],
    ["get_crash_logs", { count: 201 }],
    ["get_crash_logs", { count: 1.5 }],
    ["get_crash_stack_trace", { crash_group_id: "zz" }],
    ...hostile.flatMap((h): [string, Record<string, unknown>][] => [
      ["start_logcat", { device_serial: h }],
      ["stop_logcat", { device_serial: h }],
      ["get_logcat_entries", { package: h }],
      ["get_crash_stack_trace", { package: h }],
      ["get_crash_stack_trace", { crash_group_id: h }],
    ]),
  ];
  for (const [tool, args] of cases) {
    const r = await call(sess, tool, args);
    assertEquals(r.isError, true, `${tool} ${JSON.stringify(args)}`);
    assertEquals(errorOf(r).code, "invalid_params", `${tool} ${JSON.stringify(args)}`);
  }
  // Hostile filter text never reaches a device: it only filters the buffer.
  for (const h of hostile) {
    const r = await call(sess, "get_logcat_entries", { text: h, tag: h });
    assert(!r.isError, r.content[0].text);
  }
  assertEquals((await world.sim.readJournal()).length, before, "no device command ran");
  await assertNoInjection(world.sim);
});

Deno.test({
  name: "logcat e2e: one app's ANRs with two reasons are one group listing both",
  async fn() {
    await using world = await startWorld();
    await using sess = await connect(world, []);
    await started(world, sess);
    const lc = simLogcat(world);
    lc.crash(PKG, "anr", "input");
    lc.crash(PKG, "anr", "broadcast");
    lc.crash(PKG, "anr", "input");
    const crashes = await pollUntil(
      () => call(sess, "get_crash_logs", {}),
      (x) => s(x).total_crashes >= 3,
      "three ANRs",
      E2E_WAIT,
    );
    const groups = s(crashes).groups;
    assertEquals(groups.length, 1, crashes.content[0].text);
    const g = groups[0];
    assertEquals([g.kind, g.count, g.package], ["anr", 3, PKG]);
    const reasons = g.anr_reasons.reasons;
    assertEquals(reasons.map((x) => x.count), [2, 1], crashes.content[0].text);
    assert(reasons[0].reason.startsWith("Input dispatching timed out ("), reasons[0].reason);
    assertEquals(
      reasons[1].reason,
      `Broadcast of Intent { act=android.intent.action.BOOT_COMPLETED flg=0x9000010 cmp=${PKG}/.BootReceiver }`,
    );
    const text = crashes.content[0].text!;
    assertStringIncludes(text, `reasons: 2× ${reasons[0].reason}; 1× ${reasons[1].reason}`);

    const trace = await call(sess, "get_crash_stack_trace", { crash_group_id: g.crash_group_id });
    assert(!trace.isError, trace.content[0].text);
    assertEquals(s(trace).group.anr_reasons.reasons, reasons);
    assertStringIncludes(trace.content[0].text!, `reasons: 2× ${reasons[0].reason}; 1×`);
    await assertNoInjection(world.sim);
  },
});
