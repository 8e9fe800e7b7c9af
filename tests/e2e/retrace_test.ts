/**
 * Deobfuscation end to end: a release build the fake Gradle minifies (writing R8's mapping), installed
 * with install_apk, crashing with frames that name its map id → get_crash_stack_trace with
 * retrace: true gives the source frames; the preinstalled sample app (an APK keynobi never built)
 * is refused with the reason; without retrace the output is unchanged.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  built,
  call,
  connect,
  E2E_WAIT,
  json,
  runKeynobi,
  simLogcat,
  startWorld,
  trusted,
} from "./harness.ts";
import { pollUntil } from "../wait.ts";

const SERIAL = "emulator-5554";
const PROJECT = "sample-kts";
const RELEASE_PKG = "com.example.keynobi.sample.demo";
/** The sample app every simulated device has preinstalled (not built by this keynobi). */
const SAMPLE_PKG = "com.example.keynobi.sample.demo.debug";

interface Frame {
  raw: string;
  app: boolean;
  class: string;
  method: string;
}

interface Retrace {
  status: string;
  reason: string;
  matched_by: string;
  device: { serial: string; apk_sha256: string } | null;
  trace: string;
  build_id: number;
  module: string;
  variant: string;
  map_id: string;
  mapping_sha256: string;
  mapping_line: string;
}

/** What get_crash_stack_trace answers (for a crash, or for a trace one already has). */
interface StackTrace {
  trace: string;
  retrace?: Retrace;
  frames: Frame[];
  causes: { frames: Frame[] }[];
  first_app_frame: Frame;
  crash: { first_app_frame: string };
  group: { first_app_frame: string };
  map_id: string;
  classes: number;
  stats: { retraced: number; frames: number };
}

interface CrashLogs {
  total_crashes: number;
  retraced: (Retrace & { first_app_frame: string | null })[];
}

interface BuildHistory {
  records: {
    id: number;
    mappings: { module: string; variant: string; map_id: string; sha256: string }[];
  }[];
}

Deno.test("retrace e2e: a release crash naming its map id retraces; an APK keynobi never built is refused", async () => {
  await using world = await startWorld();
  const project = await trusted(world, PROJECT);
  await world.sim.gradle(PROJECT).setTaskDelay(0);
  await using s = await connect(world, ["--project", project]);
  simLogcat(world).setRate(0);
  assert(!(await call(s, "start_logcat", { device_serial: SERIAL })).isError);

  // The preinstalled sample app: built by nobody keynobi knows, not minified.
  simLogcat(world).crash(SAMPLE_PKG, "java");
  await pollUntil(
    () => call(s, "get_crash_logs", {}),
    (r) => json<CrashLogs>(r).total_crashes >= 1,
    "crash",
    E2E_WAIT,
  );
  const plain = await call(s, "get_crash_stack_trace", { package: SAMPLE_PKG });
  assertEquals(json<StackTrace>(plain).retrace, undefined, "unchanged without retrace");
  const foreign = await call(s, "get_crash_stack_trace", { package: SAMPLE_PKG, retrace: true });
  assert(!foreign.isError, foreign.content[0].text);
  const fr = json<StackTrace>(foreign).retrace!;
  assertEquals(fr.status, "refused", JSON.stringify(fr));
  assertStringIncludes(fr.reason, "matches no build keynobi kept or installed");
  assertEquals(fr.device!.serial, SERIAL);
  assertEquals(fr.trace, json<StackTrace>(plain).trace, "the trace as logcat printed it");

  // A release build: minified, its mapping kept with the build.
  await built(s, "assembleDemoRelease");
  const history: BuildHistory = JSON.parse(
    await Deno.readTextFile(`${world.dataDir}/build-history.json`),
  );
  const rec = history.records.at(-1)!;
  assertEquals(rec.mappings.length, 1, JSON.stringify(rec.mappings));
  const mapping = rec.mappings[0];
  assertEquals([mapping.module, mapping.variant], [":app", "demoRelease"]);
  const installed = await call(s, "install_apk", {
    device_serial: SERIAL,
    apk_path: "app/build/outputs/apk/demo/release/app-demo-release.apk",
  });
  assert(!installed.isError, installed.content[0].text);
  assert(!(await call(s, "launch_app", { device_serial: SERIAL, package: RELEASE_PKG })).isError);
  simLogcat(world).crash(RELEASE_PKG, "java");
  await pollUntil(
    () => call(s, "get_crash_logs", {}),
    (r) => json<CrashLogs>(r).total_crashes >= 2,
    "second crash",
    E2E_WAIT,
  );
  const obf = await call(s, "get_crash_stack_trace", { package: RELEASE_PKG, retrace: true });
  assert(!obf.isError, obf.content[0].text);
  const t = json<StackTrace>(obf);
  assertStringIncludes(t.trace, `r8-map-id-${mapping.map_id}`);
  const r = t.retrace!;
  assertEquals(r.status, "retraced", JSON.stringify(r));
  assertEquals(r.matched_by, "map_id");
  assertEquals(r.device, null, "a map id needs no device call");
  assertEquals([r.build_id, r.module, r.variant, r.map_id, r.mapping_sha256], [
    rec.id,
    ":app",
    "demoRelease",
    mapping.map_id,
    mapping.sha256,
  ]);
  for (
    const frame of [
      `at ${RELEASE_PKG}.data.SampleParser.parseCount(SampleParser.kt:17)`,
      `at ${RELEASE_PKG}.data.SampleRepository.load(SampleRepository.kt:39)`,
      `at ${RELEASE_PKG}.data.SampleRepository.load(SampleRepository.kt:42)`,
      `at ${RELEASE_PKG}.MainActivity.onCreate(MainActivity.kt:27)`,
    ]
  ) assertStringIncludes(r.trace, frame);
  assert(!r.trace.includes("r8-map-id-"), r.trace);
  assertStringIncludes(r.mapping_line, `build #${rec.id}`);
  // Every field derived from names is read again from the retraced text: frames, app marks, the
  // first app frame of the crash, its summary and its group.
  const all = [...t.frames, ...t.causes.flatMap((c) => c.frames)];
  for (const f of all) assert(!f.raw.includes("r8-map-id-"), `an obfuscated frame kept: ${f.raw}`);
  assert(
    all.some((f) => f.app && f.class === `${RELEASE_PKG}.data.SampleParser`),
    JSON.stringify(all.map((f) => [f.raw, f.app])),
  );
  assertEquals(t.first_app_frame.class.startsWith(`${RELEASE_PKG}.`), true);
  assertStringIncludes(r.trace, `at ${t.first_app_frame.class}.${t.first_app_frame.method}(`);
  assertEquals(t.crash.first_app_frame, t.group.first_app_frame);
  assert(!t.group.first_app_frame.includes("r8-map-id-"), t.group.first_app_frame);
  assertStringIncludes(obf.content[0].text ?? "", "<- app");

  // A debug build keynobi built and installed: the device's APK hash (pm path + sha256sum through
  // the simulator, as a device prints them) finds the build, which wrote no mapping.
  await built(s);
  const debugInstall = await call(s, "install_apk", {
    device_serial: SERIAL,
    apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
  });
  assert(!debugInstall.isError, debugInstall.content[0].text);
  assert(!(await call(s, "launch_app", { device_serial: SERIAL, package: SAMPLE_PKG })).isError);
  simLogcat(world).crash(SAMPLE_PKG, "java");
  await pollUntil(
    () => call(s, "get_crash_logs", {}),
    (r) => json<CrashLogs>(r).total_crashes >= 3,
    "third crash",
    E2E_WAIT,
  );
  const dbg = json<StackTrace>(
    await call(s, "get_crash_stack_trace", { package: SAMPLE_PKG, retrace: true }),
  ).retrace!;
  assertEquals(dbg.status, "unavailable", JSON.stringify(dbg));
  assertEquals(dbg.matched_by, "device_hash");
  assertEquals(dbg.device!.apk_sha256, json<{ apk_sha256: string }>(debugInstall).apk_sha256);
  assertStringIncludes(dbg.reason, "wrote no R8 mapping");
  const journal = await world.sim.readJournal();
  assert(journal.some((j) => j.raw.startsWith(`pm path ${SAMPLE_PKG}`)), "asked pm path");
  // The path holds `~` and `=`: it reaches the device shell quoted.
  assert(
    journal.some((j) => j.raw.startsWith("sha256sum '/data/app/~~")),
    "hashed the APK, quoted",
  );

  const logs = await call(s, "get_crash_logs", { retrace: true });
  const retraced = json<CrashLogs>(logs).retraced;
  // Two groups: the sample app's crash (twice: never built, then the debug build) and the release.
  assertEquals(retraced.length, 2, JSON.stringify(retraced).slice(0, 500));
  assertEquals(retraced.map((x) => x.status).sort(), ["retraced", "unavailable"]);
  // The retraced group's first app frame is read again from its new names (one logcat answer for
  // all the retraced groups): the release build's source name, as get_crash_stack_trace gave it.
  const release = retraced.find((x) => x.status === "retraced")!;
  assertEquals(release.first_app_frame, t.group.first_app_frame);
  assert(!release.first_app_frame!.includes("r8-map-id-"), release.first_app_frame!);
  await assertNoInjection(world.sim);
});

const GIVEN_MAPPING = `# compiler: R8
# pg_map_id: 9f00d1e
com.example.shop.Cart -> q.a:
# {"id":"sourceFile","fileName":"Cart.kt"}
    1:4:void checkout():40:43 -> a
    5:5:int com.example.shop.Price.total(java.util.List):12:12 -> a
    5:5:void checkout():44 -> a
com.example.shop.Price -> q.b:
# {"id":"sourceFile","fileName":"Price.kt"}
    1:1:int total(java.util.List):12:12 -> a
`;
const GIVEN_TRACE = "java.lang.ArithmeticException: divide by zero\n" +
  "\tat q.a.a(SourceFile:5)\n\tat android.app.Activity.performCreate(Activity.java:8595)\n" +
  "Caused by: q.b: nested\n\tat q.a.a(SourceFile:2)\n";

Deno.test("retrace e2e: a trace one already has, with a project's mapping: the tool and keynobi retrace print the same text", async () => {
  await using world = await startWorld();
  const project = world.sim.projects[PROJECT];
  const rel = "app/given/mapping.txt";
  await Deno.mkdir(`${project}/app/given`, { recursive: true });
  await Deno.writeTextFile(`${project}/${rel}`, GIVEN_MAPPING);
  const tracePath = `${world.home}/play-console-trace.txt`;
  await Deno.writeTextFile(tracePath, GIVEN_TRACE);
  await Deno.writeTextFile(`${world.home}/outside-mapping.txt`, GIVEN_MAPPING);

  await using s = await connect(world, ["--project", project]);
  const r = await call(s, "get_crash_stack_trace", { trace: GIVEN_TRACE, mapping: rel });
  assert(!r.isError, r.content[0].text);
  const text = r.content[0].text ?? "";
  assertEquals(text.split("\n"), [
    "java.lang.ArithmeticException: divide by zero",
    "    at com.example.shop.Price.total(Price.kt:12)",
    "    at com.example.shop.Cart.checkout(Cart.kt:44)",
    "\tat android.app.Activity.performCreate(Activity.java:8595)",
    "Caused by: com.example.shop.Price: nested",
    "    at com.example.shop.Cart.checkout(Cart.kt:41)",
    "",
  ]);
  const st = json<StackTrace>(r);
  assertEquals([st.map_id, st.classes, st.stats.retraced, st.stats.frames], ["9f00d1e", 2, 2, 3]);
  // An absolute path inside the project gives the same; one outside is refused, as are half calls.
  const abs = await call(s, "get_crash_stack_trace", {
    trace: GIVEN_TRACE,
    mapping: `${project}/${rel}`,
  });
  assertEquals(abs.content[0].text, text);
  const outside = await call(s, "get_crash_stack_trace", {
    trace: GIVEN_TRACE,
    mapping: `${world.home}/outside-mapping.txt`,
  });
  assert(outside.isError);
  assertStringIncludes(outside.content[0].text ?? "", "outside the project");
  const half = await call(s, "get_crash_stack_trace", { trace: GIVEN_TRACE });
  assert(half.isError);
  assertStringIncludes(half.content[0].text ?? "", "takes both trace");

  const cli = await runKeynobi(world, ["retrace", "--mapping", `${project}/${rel}`, tracePath]);
  assertEquals(cli.code, 0, cli.stderr);
  assertEquals(cli.stdout, text.endsWith("\n") ? text : `${text}\n`, "the same text");
  assertStringIncludes(cli.stderr, "2 of 3 frames retraced");
  const piped = await runKeynobi(world, ["retrace", "--mapping", `${project}/${rel}`], {
    stdin: GIVEN_TRACE,
  });
  assertEquals([piped.code, piped.stdout], [0, cli.stdout], piped.stderr);
});
