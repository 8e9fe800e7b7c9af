/**
 * `keynobi app` and attached sessions through the real entry points: the app as a user runs it,
 * `keynobi --mcp` as a client spawns it (driven by the SDK's Client), raw socket clients for
 * hostile handshakes, and the simulator's fake Gradle and logcat behind the app's workers.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import {
  attachLine,
  BUILD_TIMEOUT_MS,
  call,
  connect,
  E2E_WAIT,
  errorOf,
  initializeRequest,
  json,
  keynobiArgv,
  rawExchange,
  runKeynobi,
  simLogcat,
  startApp,
  startWorld,
  trusted as trustedAt,
  type World,
} from "./harness.ts";
import { pollUntil, waitUntil } from "../wait.ts";

const PROJECT = "sample-kts";
const OTHER = "sample-groovy";
const SERIAL = "emulator-5554";

/** A trusted simulated project, by its real path (as the app and `status` print it). */
function trusted(world: World, name = PROJECT): Promise<string> {
  return trustedAt(world, name, { realPath: true });
}

/** The fields of get_project_info, get_build_status and the logcat tools these tests read. */
interface Answer {
  mode: string;
  standalone_reason: string | null;
  follows_app: boolean;
  pinned_project: string | null;
  project: { selected_by: string; root: string };
  open: boolean;
  app_project: string;
  hint: string;
  status: string;
  cancelled_by: unknown;
  latest: { origin: { client_name: string } };
  already: boolean;
  total_crashes: number;
  stopped: string[];
  kept_for_others: unknown[];
}

const s = json<Answer>;

/** `keynobi status --json` */
interface StatusJson {
  app: { pid: number; project: string };
  attached: { pid: number; client_name: string }[];
  standalone: unknown[];
  version_mismatches: string[];
}

/** A request's JSON-RPC error, as the SDK client throws it. */
interface RpcFailure {
  code: number;
  message: string;
}

/** run_gradle_task of a debug build on `c`, not awaited (its rejection handled). */
function startBuild(c: Parameters<typeof call>[0]) {
  const building = call(c, "run_gradle_task", { task: "assembleDemoDebug" }, {
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  building.catch(() => {});
  return building;
}

async function activity(world: World): Promise<string[]> {
  const text = await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`);
  return text.trim().split("\n").map((l) => JSON.parse(l).summary as string);
}

Deno.test("keynobi app: ready line, 0700 dir and 0600 socket, a live socket is never taken over, removed at exit", async () => {
  await using world = await startWorld();
  const app = await startApp(world);
  assertMatch(app.stderr(), /listening on .*mcp\.sock, project none/);
  const dir = await Deno.stat(world.dataDir);
  assertEquals(dir.mode! & 0o777, 0o700);
  const sock = await Deno.lstat(`${world.dataDir}/mcp.sock`);
  assert(sock.isSocket);
  assertEquals(sock.mode! & 0o777, 0o600);

  const second = await runKeynobi(world, ["app"]);
  assertEquals(second.code, 2, second.stderr);
  assertStringIncludes(second.stderr, `another keynobi app (pid ${app.pid}) is already listening`);
  assertEquals(second.stdout, "");
  // The first app still serves.
  await using c = await connect(world, ["--attach-only"]);
  assertEquals(c.client.getServerVersion()?.title, "Keynobi (attached to the app)");
  await c.client.close();

  const st = await app.stop("SIGTERM");
  assertEquals(st.code, 0, app.stderr());
  let gone = false;
  try {
    await Deno.lstat(`${world.dataDir}/mcp.sock`);
  } catch {
    gone = true;
  }
  assert(gone, "the socket is removed at exit");
  await app[Symbol.asyncDispose]();
});

Deno.test("keynobi app: a stale socket is replaced; a socket path over sun_path is a clear error", async () => {
  await using world = await startWorld();
  // A socket nobody listens on: an app killed without cleaning up.
  const killed = await startApp(world);
  await killed.stop("SIGKILL");
  assert((await Deno.lstat(`${world.dataDir}/mcp.sock`)).isSocket, "SIGKILL leaves the socket");
  await using app = await startApp(world);
  assertMatch(app.stderr(), /ready: pid \d+/);
  const r = await rawExchange(world.dataDir, '{"status":1}\n');
  assertEquals(r.answer!.app && (r.answer!.app as { pid: number }).pid, app.pid);

  const long = `${world.home}/${"d".repeat(120)}`;
  const tooLong = await runKeynobi(
    { env: { ...world.env, KEYNOBI_HOME: long }, home: world.home },
    [
      "app",
    ],
  );
  assertEquals(tooLong.code, 2, tooLong.stderr);
  assertMatch(tooLong.stderr, /bytes, over the \d+-byte limit of a Unix socket path/);
});

Deno.test("attached session: mode in initialize, get_project_info and get_build_status; status lists it; activity lines", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await using app = await startApp(world, ["--project", project]);
  await using a = await connect(world, ["--project", project]);
  const info = a.client.getServerVersion()!;
  assertEquals(info.title, "Keynobi (attached to the app)");
  assertMatch(a.client.getInstructions() ?? "", /^Keynobi MCP server, attached to the Keynobi app/);
  const p = s(await call(a, "get_project_info"));
  assertEquals(
    [p.mode, p.standalone_reason, p.follows_app, p.pinned_project],
    ["attached", null, false, project],
  );
  await using f = await connect(world, []);
  const pf = s(await call(f, "get_project_info"));
  assertEquals([pf.mode, pf.follows_app, pf.project.selected_by], ["attached", true, "app"]);
  assertEquals(pf.project.root, project);
  const b = s(await call(a, "get_build_status"));
  assertEquals([b.mode, b.standalone_reason], ["attached", null]);

  const st = await runKeynobi(world, ["status", "--json"]);
  assertEquals(st.code, 0, st.stderr);
  const j: StatusJson = JSON.parse(st.stdout);
  assertEquals(j.app.pid, app.pid);
  assertEquals(j.app.project, project);
  assertEquals(j.attached.length, 2);
  const pids = j.attached.map((x) => x.pid).sort();
  assertEquals(pids, [a.pid(), f.pid()].sort());
  assertEquals(j.attached.map((x) => x.client_name), ["keynobi-e2e", "keynobi-e2e"]);
  assertEquals(j.standalone, [], "attached sessions are not standalone servers");
  assertEquals(j.version_mismatches, []);
  const text = await runKeynobi(world, ["status"]);
  assertStringIncludes(text.stdout, `app: pid ${app.pid}, version `);
  assertStringIncludes(text.stdout, "attached sessions: 2");
  assertStringIncludes(text.stdout, "follows the app");

  const aPid = a.pid();
  await a.client.close();
  await pollUntil(
    () => activity(world),
    (l) => l.includes("Client detached"),
    "the detach line",
    E2E_WAIT,
  );
  const lines = await activity(world);
  assert(
    lines.includes(`Client attached (pid ${aPid}) — project: ${project}`),
    lines.join("\n"),
  );
});

Deno.test("two attached clients share one build slot (the second is told who started it) and one logcat buffer", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).setTaskDelay(1500);
  await using app = await startApp(world, ["--project", project]);
  await using a = await connect(world, ["--project", project]);
  await using b = await connect(world, []);
  const building = startBuild(a);
  await pollUntil(
    () => call(b, "get_build_status"),
    (r) => s(r).status === "running",
    "a running build",
    E2E_WAIT,
  );
  const busy = await call(b, "run_gradle_task", { task: "assembleDemoDebug" });
  assertEquals(busy.isError, true);
  assertEquals(errorOf(busy).code, "build_busy");
  // The build runs in the app, not in this session's own process.
  assertStringIncludes(
    busy.content[0].text!,
    `A Gradle build is already running in the Keynobi app (pid ${app.pid}; build #`,
  );
  assertStringIncludes(busy.content[0].text!, "started by an agent (keynobi-e2e)");
  const cancelled = await call(b, "cancel_build");
  assert(!cancelled.isError, cancelled.content[0].text);
  const done = await building;
  assertStringIncludes(done.content[0].text!, "[mode: attached]");

  const logcat = simLogcat(world, SERIAL);
  logcat.setRate(0);
  assert(!(await call(a, "start_logcat", { device_serial: SERIAL })).isError);
  const again = await call(b, "start_logcat", { device_serial: SERIAL });
  assertEquals(s(again).already, true, "one stream per device, shared");
  logcat.crash("com.example.crashy", "java");
  await pollUntil(
    () => call(b, "get_crash_logs"),
    (r) => s(r).total_crashes >= 1,
    "B sees A's stream",
    E2E_WAIT,
  );
  const stop = await call(a, "stop_logcat", { device_serial: SERIAL });
  assertEquals(s(stop).stopped, []);
  assertEquals(s(stop).kept_for_others, [{ serial: SERIAL, sessions: 1 }]);
  logcat.crash("com.example.crashy", "java");
  await pollUntil(
    () => call(b, "get_crash_logs"),
    (r) => s(r).total_crashes >= 2,
    "B still reads after A stopped",
    E2E_WAIT,
  );
  const last = await call(b, "stop_logcat", { device_serial: SERIAL });
  assertEquals(s(last).stopped, [SERIAL]);
});

Deno.test("a session pinned to another project is refused naming the app's project; --attach-only exits 2", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const other = await Deno.realPath(world.sim.projects[OTHER]);
  await using _app = await startApp(world, ["--project", project]);
  const r = await runKeynobi(world, ["--mcp", "--attach-only", "--project", other], {
    stdin: "",
  });
  assertEquals(r.code, 2);
  assertStringIncludes(r.stderr, `the Keynobi app has ${project} open, not ${other}`);
  assertEquals(r.stdout, "");
  // Without --attach-only it serves standalone and says why.
  await using c = await connect(world, ["--project", other]);
  const p = s(await call(c, "get_project_info"));
  assertEquals(p.mode, "standalone");
  assertStringIncludes(p.standalone_reason!, `has ${project} open`);
});

Deno.test("hostile handshakes are refused or closed; the app keeps serving and writes nothing outside the data dir", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const before = [...Deno.readDirSync(world.home)].map((e) => e.name).sort();
  await using _app = await startApp(world, ["--project", project]);
  const refused = async (send: string | Uint8Array, re: RegExp) => {
    const { answer } = await rawExchange(world.dataDir, send);
    assert(answer !== null, "an answer");
    assertEquals(answer.accepted, false);
    assertMatch(String(answer.reason), re);
  };
  await refused("x".repeat(5000), /longer than 4096 bytes/);
  await refused("{not json\n", /not valid JSON/);
  await refused(attachLine({ attach: 2 }), /unknown attach version 2.*version 1/);
  await refused(attachLine({ project: `${project}/../${PROJECT}` }), /must not contain "\.\."/);
  const link = `${world.home}/link-to-project`;
  await Deno.symlink(project, link);
  await refused(attachLine({ project: link }), /not canonical.*symlink/);
  await refused(attachLine({ project: "relative/path" }), /absolute/);
  await refused(new Uint8Array([0xff, 0xfe, 10]), /not UTF-8/);
  // Silence past REQUEST_TIMEOUT: answered, then closed.
  const silent = await rawExchange(world.dataDir, null);
  assertMatch(String(silent.answer!.reason), /did not arrive within 5000 ms/);
  // 100 connections opened and dropped.
  const conns = await Promise.all(
    Array.from(
      { length: 100 },
      () => Deno.connect({ transport: "unix", path: `${world.dataDir}/mcp.sock` }),
    ),
  );
  for (const c of conns) c.close();
  await using ok = await connect(world, ["--attach-only"]);
  assertEquals(s(await call(ok, "get_project_info")).mode, "attached");
  await Deno.remove(link);
  const after = [...Deno.readDirSync(world.home)].map((e) => e.name).sort();
  assertEquals(after, before, "nothing written outside the data dir");
});

Deno.test("MAX_ATTACHED_SESSIONS sessions are served; one more is refused", async () => {
  await using world = await startWorld();
  await using _app = await startApp(world);
  const held: Deno.UnixConn[] = [];
  try {
    for (let i = 0; i < 16; i++) {
      const { answer, conn } = await rawExchange(world.dataDir, attachLine(), { keepOpen: true });
      assertEquals(answer!.accepted, true, JSON.stringify(answer));
      held.push(conn);
    }
    const { answer } = await rawExchange(world.dataDir, attachLine());
    assertEquals(answer!.accepted, false);
    assertStringIncludes(String(answer!.reason), "MAX_ATTACHED_SESSIONS 16");
    held.pop()!.close();
    const again = await pollUntil(
      () => rawExchange(world.dataDir, attachLine(), { keepOpen: true }),
      (r) => r.answer!.accepted === true || (r.conn.close(), false),
      "a free slot after one detached",
      E2E_WAIT,
    );
    held.push(again.conn);
  } finally {
    for (const c of held) c.close();
  }
});

Deno.test("the app quitting mid-build leaves both clients working standalone, sessions intact", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  // Long enough that the build cannot end by itself before the quit reaches it on a slow runner;
  // the quit cancels it, so the test does not wait for it.
  await world.sim.gradle(PROJECT).setTaskDelay(30_000);
  const app = await startApp(world, ["--project", project]);
  await using a = await connect(world, ["--project", project]);
  await using b = await connect(world, []);
  const errors: string[] = [];
  a.client.onerror = (e: Error) => errors.push(e.message);
  b.client.onerror = (e: Error) => errors.push(e.message);
  // Another project becomes the last active one: b, which follows the app, must keep the app's.
  const settingsPath = `${world.dataDir}/settings.json`;
  const settings = JSON.parse(await Deno.readTextFile(settingsPath));
  settings.last_active_project = await Deno.realPath(world.sim.projects[OTHER]);
  await Deno.writeTextFile(settingsPath, JSON.stringify(settings));
  const building = startBuild(a);
  await pollUntil(
    () => call(b, "get_build_status"),
    (r) => s(r).status === "running",
    "a running build",
    E2E_WAIT,
  );
  const st = await app.stop("SIGTERM");
  assertEquals(st.code, 0, app.stderr());
  let failure: RpcFailure | null = null;
  try {
    await building;
  } catch (e) {
    failure = e as RpcFailure;
  }
  assert(failure !== null, "the call in flight is answered with an error");
  assertEquals(failure.code, -32603);
  const appSaid = `keynobi app stderr:\n${app.stderr()}`;
  assertStringIncludes(
    failure.message,
    "The Keynobi app quit before answering this request",
    appSaid,
  );
  assertStringIncludes(failure.message, "cancelled the running Gradle build", appSaid);
  // A request sent before a client's relay has seen the app go may still reach the app's socket
  // and be answered "send it again" (the spec's fallback); wait until each relay has switched.
  await waitUntil(
    () => [a, b].every((c) => c.stderr().includes("continuing standalone")),
    "both relays continuing standalone",
    E2E_WAIT,
  );
  for (const c of [a, b]) {
    const p = s(await call(c, "get_project_info"));
    assertEquals([p.mode, p.standalone_reason], ["standalone", "the Keynobi app quit"]);
    assertEquals(p.project.root, project);
  }
  const status = s(await call(a, "get_build_status"));
  assertEquals(status.cancelled_by, { kind: "appQuit" });
  assertEquals(errors, [], "no stray answers (a second initialize) reached the clients");
  await app[Symbol.asyncDispose]();
});

Deno.test("the app killed with SIGKILL mid-request: the relay answers it and falls back; --attach-only exits 1", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle(PROJECT).setTaskDelay(2000);
  const app = await startApp(world, ["--project", project]);
  await using a = await connect(world, ["--project", project]);
  const errors: string[] = [];
  a.client.onerror = (e: Error) => errors.push(e.message);
  const building = startBuild(a);
  await pollUntil(
    () => call(a, "get_build_status"),
    (r) => s(r).status === "running",
    "a running build",
    E2E_WAIT,
  );
  // An --attach-only relay next to it: it exits 1 when the app goes.
  const only = new Deno.Command(Deno.execPath(), {
    args: keynobiArgv(["--mcp", "--attach-only"]),
    env: world.env,
    clearEnv: true,
    cwd: world.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = only.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify(initializeRequest("raw")) + "\n"));
  const outReader = only.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const firstOut = await outReader.read();
  assertStringIncludes(firstOut.value ?? "", "Keynobi (attached to the app)");
  await app.stop("SIGKILL");
  const onlyStatus = await only.status;
  assertEquals(onlyStatus.code, 1, "--attach-only exits 1 when the app goes");
  await w.close().catch(() => {});
  outReader.releaseLock();
  await only.stdout.cancel().catch(() => {});
  await only.stderr.cancel().catch(() => {});
  let failure: RpcFailure | null = null;
  try {
    await building;
  } catch (e) {
    failure = e as RpcFailure;
  }
  assert(failure !== null);
  assertEquals(failure.code, -32603);
  assertStringIncludes(failure.message, "closed the MCP session before answering");
  const p = s(await call(a, "get_project_info"));
  assertEquals([p.mode, p.standalone_reason], ["standalone", "the Keynobi app quit"]);
  assertEquals(errors, []);
  await app[Symbol.asyncDispose]().catch(() => {});
});

Deno.test("keynobi open switches the app's project: a pinned session refuses project tools and files, a following one moves", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const other = await trusted(world, OTHER);
  await using _app = await startApp(world, ["--project", project]);
  await using pinned = await connect(world, ["--project", project]);
  await using follows = await connect(world, []);
  // An older binary's session, attached over the raw socket, for the version check.
  const { answer, conn } = await rawExchange(world.dataDir, attachLine({ version: "0.0.1" }), {
    keepOpen: true,
  });
  assertEquals(answer!.accepted, true);
  try {
    const st: StatusJson = JSON.parse((await runKeynobi(world, ["status", "--json"])).stdout);
    const mismatch = st.version_mismatches;
    assertEquals(mismatch.length, 1, mismatch.join("\n"));
    assertStringIncludes(mismatch[0], "runs 0.0.1");
    assertStringIncludes(mismatch[0], "restart your MCP client to use the new binary");
    const text = await runKeynobi(world, ["status"]);
    assertStringIncludes(text.stdout, "version mismatch:");
  } finally {
    conn.close();
  }

  const opened = await runKeynobi(world, ["open", other]);
  assertEquals(opened.code, 0, opened.stderr);
  assertStringIncludes(opened.stdout, `now has ${other} open (was ${project})`);

  const refused = await call(pinned, "get_build_status");
  assertEquals(refused.isError, true);
  assertEquals(errorOf(refused).code, "invalid_params");
  assertStringIncludes(
    refused.content[0].text!,
    `Keynobi now has ${other} open; this session is for ${project}`,
  );
  const info = s(await call(pinned, "get_project_info"));
  assertEquals([info.open, info.app_project], [false, other]);
  assertStringIncludes(info.hint, `keynobi open ${project}`);
  assert(!(await call(pinned, "list_devices")).isError, "device tools keep working");
  const listed = await pinned.client.listResources();
  assert(!listed.resources.some((r: { uri: string }) => r.uri === "android://gradle-settings"));
  let readError: Error | null = null;
  try {
    await pinned.client.readResource({ uri: "android://gradle-settings" });
  } catch (e) {
    readError = e as Error;
  }
  assertStringIncludes(String(readError?.message), `Keynobi now has ${other} open`);
  const skill = await pinned.client.readResource({ uri: "keynobi://skill" });
  assert(skill.contents.length === 1, "the skill is still served");

  const moved = s(await call(follows, "get_project_info"));
  assertEquals([moved.project.root, moved.open], [other, true]);
  assert(!(await call(follows, "get_build_status")).isError);

  const bad = await runKeynobi(world, ["open", `${world.home}/no-such-folder`]);
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, "not an existing folder");
});

Deno.test("attached: a client that closes normally mid-build leaves the build to the app, which finishes it", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  // Long enough (~40 tasks) that the build still runs when the SIGTERM comes, 2 s after close.
  await world.sim.gradle(PROJECT).setTaskDelay(150);
  await using _app = await startApp(world, ["--project", project]);
  const a = await connect(world, ["--project", project]);
  await using b = await connect(world, []);
  startBuild(a);
  await pollUntil(
    () => call(b, "get_build_status"),
    (r) => s(r).status === "running",
    "a running build",
    E2E_WAIT,
  );
  // The SDK's close: stdin ends, SIGTERM 2 s later. The relay goes; the build is the app's.
  await a.client.close();
  assertEquals(s(await call(b, "get_build_status")).status, "running", "it outlived the SIGTERM");
  const done = await pollUntil(
    () => call(b, "get_build_status"),
    (r) => s(r).status !== "running",
    "the build to end",
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  assertEquals(s(done).status, "success", done.content[0].text);
  assertEquals(s(done).latest.origin.client_name, "keynobi-e2e");
});

Deno.test("the app quitting: the session's logcat streams start again standalone, history from the device", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const app = await startApp(world, ["--project", project]);
  await using a = await connect(world, ["--project", project]);
  const logcat = simLogcat(world, SERIAL);
  logcat.setRate(0);
  assert(!(await call(a, "start_logcat", { device_serial: SERIAL })).isError);
  logcat.crash("com.example.crashy", "java");
  await pollUntil(
    () => call(a, "get_crash_logs"),
    (r) => s(r).total_crashes >= 1,
    "the crash, attached",
    E2E_WAIT,
  );
  const st = await app.stop("SIGTERM");
  assertEquals(st.code, 0, app.stderr());
  await waitUntil(
    () => a.stderr().includes("continuing standalone"),
    "the relay continuing standalone",
    E2E_WAIT,
  );
  // Standalone now: the stream the session held runs again, and the device's buffer brought the
  // crash back (not "No logcat stream has run").
  const stats = await pollUntil(
    () => call(a, "get_logcat_stats"),
    (r) => !r.isError && !r.content[0].text!.startsWith("No logcat stream has run"),
    "the logcat stream to run again",
    E2E_WAIT,
  );
  assertEquals(s(await call(a, "get_project_info")).mode, "standalone");
  assert(stats.content[0].text!.includes(SERIAL), stats.content[0].text!);
  await pollUntil(
    () => call(a, "get_crash_logs"),
    (r) => s(r).total_crashes >= 1,
    "the crash from the device's buffer, standalone",
    E2E_WAIT,
  );
  await app[Symbol.asyncDispose]();
});
