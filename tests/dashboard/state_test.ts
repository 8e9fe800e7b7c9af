/**
 * What the dashboard reads and what its actions do, over its HTTP API against a running
 * `keynobi app` with the simulator (the page calls the same routes; browser_test.ts drives it).
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  attachLine,
  BUILD_TIMEOUT_MS,
  call as callTool,
  ok,
  rawExchange,
  runKeynobi,
  simLogcat,
  startApp,
  startWorld,
  trusted,
  type World,
} from "../e2e/harness.ts";
import { agent, dashboardUrl, login } from "./_app.ts";
import { pollUntil } from "../wait.ts";
import { PAGE_MODULES } from "../../lib/dashboard/page/page_script.ts";
import { finishBuildRecord, startBuildRecord } from "../../lib/build/shared/build_history.ts";
import { buildLogPath, MAX_BUILD_LOG_BYTES } from "../../lib/build/shared/build_log.ts";

const SERIAL = "emulator-5554";

/** What GET /api/state answers, the fields these tests read. */
interface DashboardState {
  app: {
    attached: unknown[];
    standalone: { version: string }[];
    mismatches: unknown[];
    mismatch_hint: string;
  };
  projects: { open: string | null; trusted: { root: string }[] };
  setup: { skill: { state: string }; commands: string[] };
  crashes: { groups?: { count: number; package: string }[] };
  devices: { serial: string; screenshot?: { kept: boolean; bytes: number } }[];
  sessions: {
    id: string;
    package: string;
    serial: string;
    build_id: number;
    launch_ms: number | null;
    counts?: { crashes: number };
  }[];
  builds: {
    history: {
      status: string;
      origin_label: string;
      errors: { at: string }[];
      error_count: number;
    }[];
  };
}

/** The other API answers (an action's, a refusal's, a session's view), the fields read. */
interface ApiBody {
  ok?: boolean;
  message?: string;
  token?: string;
  needs_replace?: boolean;
  error?: string;
  timeline?: { kind: string }[];
  crashes?: unknown[];
}

/** A line of the activity log (mcp-activity.jsonl). */
interface ActivityEntry {
  kind: string;
  name: string;
  status: string;
  summary: string;
}

/** The data of a live-feed event (`lines`, `log_held`, `activity_reset`). */
interface FeedData {
  build_id: number;
  lines: string[];
  reset?: boolean;
  skipped_lines: number;
  entries: ActivityEntry[];
}

class Api {
  constructor(readonly url: URL, readonly cookie: string) {}

  async get<T = ApiBody>(path: string): Promise<{ status: number; body: T }> {
    const r = await fetch(new URL(path, this.url), { headers: { cookie: this.cookie } });
    return { status: r.status, body: await r.json() };
  }

  async post(path: string, body: unknown): Promise<{ status: number; body: ApiBody }> {
    const r = await fetch(new URL(path, this.url), {
      method: "POST",
      headers: {
        cookie: this.cookie,
        origin: this.url.origin,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  }

  /** Prepare and confirm, as the page does after the user says yes. */
  async act(action: Record<string, unknown>): Promise<ApiBody> {
    const p = await this.post("/api/actions/prepare", action);
    assertEquals(p.status, 200, JSON.stringify(p.body));
    const r = await this.post("/api/actions/run", { token: p.body.token });
    assertEquals(r.status, 200, JSON.stringify(r.body));
    return r.body;
  }

  async state(): Promise<DashboardState> {
    return (await this.get<DashboardState>("/api/state")).body;
  }
}

async function userEntries(world: World): Promise<ActivityEntry[]> {
  return (await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`)).trim().split("\n")
    .map((l): ActivityEntry => JSON.parse(l)).filter((e) => e.kind === "user");
}

Deno.test("dashboard state: a version mismatch says what to do; standalone servers are listed", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const api = new Api(url, await login(url));
  assertEquals((await api.state()).app.mismatches, []);
  const old = await rawExchange(world.dataDir, attachLine({ version: "0.0.9" }), {
    keepOpen: true,
  });
  assertEquals(old.answer?.accepted, true);
  const st = await pollUntil(
    () => api.state(),
    (s) => s.app.attached.length === 1,
    "the old session",
  );
  assertEquals(st.app.mismatches, [{ kind: "attached", pid: Deno.pid, version: "0.0.9" }]);
  assertStringIncludes(st.app.mismatch_hint, "restart that AI client");
  old.conn.close();
  // A standalone server's record (this process stands in for one: it is alive, and is `deno`).
  await Deno.mkdir(`${world.dataDir}/mcp-sessions`, { recursive: true });
  await Deno.writeTextFile(
    `${world.dataDir}/mcp-sessions/${Deno.pid}.json`,
    JSON.stringify({
      pid: Deno.pid,
      started_at: new Date().toISOString(),
      project: null,
      reason: "the Keynobi app is not running",
      binary: Deno.execPath(),
      version: "0.0.8",
    }),
  );
  const later = await pollUntil(
    () => api.state(),
    (s) => s.app.standalone.length === 1 && s.app.attached.length === 0,
    "the standalone server",
  );
  assertEquals(later.app.standalone[0].version, "0.0.8");
  assertEquals(later.app.mismatches, [{ kind: "standalone", pid: Deno.pid, version: "0.0.8" }]);
});

Deno.test("dashboard actions: open, trust, untrust, skill install (replace only when asked), copy; each logged as the user's", async () => {
  await using world = await startWorld();
  const first = await Deno.realPath(world.sim.projects["sample-kts"]);
  const other = await Deno.realPath(world.sim.projects["sample-groovy"]);
  await using app = await startApp(world, ["--project", first]);
  const url = await dashboardUrl(app);
  const api = new Api(url, await login(url));

  const opened = await api.act({ action: "open_project", path: other });
  assertEquals(opened, { ok: true, message: `Opened ${other} (was ${first})` });
  assertEquals((await api.state()).projects.open, other);
  const status = await runKeynobi(world, ["status"]);
  assertStringIncludes(status.stdout, `project ${other}`);
  assertStringIncludes(status.stdout, `dashboard: ${url.href}`);
  const missing = await api.act({ action: "open_project", path: `${other}/no-such-folder` });
  assertEquals(missing.ok, false);
  assertEquals((await api.state()).projects.open, other, "a refused open changes nothing");

  assertEquals((await api.act({ action: "trust_project", path: other })).ok, true);
  assertEquals((await api.state()).projects.trusted.map((p) => p.root), [other]);
  assertEquals(await api.act({ action: "untrust_project", path: other }), {
    ok: true,
    message: `Untrusted: ${other}`,
  });
  assertEquals((await api.state()).projects.trusted, []);

  // The skill: installed as shipped; a different file is replaced only with replace.
  const shipped = await Deno.readTextFile(
    new URL("../../skills/keynobi/SKILL.md", import.meta.url),
  );
  const skill = `${world.home}/.claude/skills/keynobi/SKILL.md`;
  assertEquals((await api.state()).setup.skill.state, "missing");
  assertEquals((await api.act({ action: "install_skill" })).ok, true);
  assertEquals(await Deno.readTextFile(skill), shipped);
  await Deno.writeTextFile(skill, "my own notes\n");
  const refused = await api.post("/api/actions/prepare", { action: "install_skill" });
  assertEquals(refused.status, 400);
  assertEquals(refused.body.needs_replace, true);
  assertEquals(await Deno.readTextFile(skill), "my own notes\n");
  assertEquals((await api.act({ action: "install_skill", replace: true })).ok, true);
  assertEquals(await Deno.readTextFile(skill), shipped);

  const served = await fetch(new URL("/api/skill", url), { headers: { cookie: api.cookie } });
  assertEquals(await served.text(), shipped, "the skill other clients copy");
  const copied = await api.post("/api/actions/copied", { what: "setup_commands" });
  assertEquals(copied.body, { ok: true, message: "Copied the MCP setup commands" });
  assertEquals((await api.post("/api/actions/copied", { what: "x" })).status, 400);
  const commands: string[] = (await api.state()).setup.commands;
  assertStringIncludes(commands[0], "claude mcp add --scope user");
  // The HTTP registration carries the install's token (the app made it in the data directory).
  const token = (await Deno.readTextFile(`${world.dataDir}/http-token`)).trim();
  assert(
    commands.some((c) => c.endsWith(`--header "Authorization: Bearer ${token}"`)),
    commands.join("\n"),
  );

  const mine = await userEntries(world);
  assertEquals(mine.map((e) => [e.name, e.status]), [
    ["open_project", "ok"],
    ["open_project", "error"],
    ["trust_project", "ok"],
    ["untrust_project", "ok"],
    ["install_skill", "ok"],
    ["install_skill", "ok"],
    ["copy_setup_commands", "ok"],
  ]);
  assert(mine.every((e) => e.summary.startsWith("From the dashboard: ")));
  // No build runs, so there is nothing to cancel: a clear refusal.
  const cancel = await api.post("/api/actions/prepare", { action: "cancel_build", build_id: 1 });
  assertEquals(cancel.status, 400);
  assertStringIncludes(cancel.body.error!, "Build #1 is not running in the app");
});

Deno.test("dashboard state: crashes grouped with counts, devices with the agent's last screenshot; bad reads are clear", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const api = new Api(url, await login(url));
  await using a = await agent(world, "crash-watcher");
  const logcat = simLogcat(world, SERIAL);
  logcat.setRate(0);
  await a.client.callTool({ name: "start_logcat", arguments: { device_serial: SERIAL } });
  logcat.crash("com.example.crashy", "java");
  logcat.crash("com.example.crashy", "java");
  const st = await pollUntil(
    () => api.state(),
    (s) => s.crashes.groups?.[0]?.count === 2,
    "one crash group counted twice",
  );
  assertEquals(st.crashes.groups![0].package, "com.example.crashy");
  await a.client.callTool({ name: "screenshot", arguments: { device_serial: SERIAL } });
  const dev = await pollUntil(
    () => api.state(),
    (s) => s.devices.some((d) => d.serial === SERIAL && d.screenshot?.kept),
    "the screenshot",
  );
  const shot = dev.devices.find((d) => d.serial === SERIAL)!.screenshot!;
  const img = await fetch(new URL(`/api/devices/${SERIAL}/screenshot`, url), {
    headers: { cookie: api.cookie },
  });
  assertEquals(img.headers.get("content-type"), "image/png");
  assertEquals((await img.bytes()).length, shot.bytes);
  assertEquals((await api.get("/api/builds/999/log")).status, 404);
  const badLines = await api.get("/api/builds/1/log?lines=0");
  assertEquals(badLines.status, 400);
  assertStringIncludes(badLines.body.error!, "lines must be an integer from 1 to 2000");
  assertEquals((await api.get("/api/sessions/s-nope")).status, 404);
});

Deno.test("dashboard state: debug sessions with launch time and crash count; a session's timeline", async () => {
  await using world = await startWorld();
  const project = await trusted(world, "sample-kts", { realPath: true });
  await world.sim.gradle("sample-kts").setTaskDelay(0);
  await using app = await startApp(world, ["--project", project]);
  const url = await dashboardUrl(app);
  const api = new Api(url, await login(url));
  await using a = await agent(world, "installer");
  const logcat = simLogcat(world, SERIAL);
  logcat.setRate(0);
  const PKG = "com.example.keynobi.sample.demo.debug";
  const call = async (name: string, args: Record<string, unknown>) =>
    ok(await callTool(a, name, args, { timeoutMs: BUILD_TIMEOUT_MS }), name);
  await call("start_logcat", { device_serial: SERIAL });
  await call("run_gradle_task", { task: "assembleDemoDebug" });
  await call("install_apk", {
    device_serial: SERIAL,
    apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
  });
  await call("launch_app", { device_serial: SERIAL, package: PKG });
  logcat.crash(PKG, "java");
  const st = await pollUntil(
    () => api.state(),
    (s) => s.sessions[0]?.counts?.crashes === 1 && s.sessions[0]?.launch_ms !== null,
    "the session with its launch and crash",
  );
  const s = st.sessions[0];
  assertEquals([s.package, s.serial, s.build_id], [PKG, SERIAL, 1]);
  assertEquals(typeof s.launch_ms, "number");
  const view = await api.get(`/api/sessions/${s.id}`);
  assertEquals(view.status, 200);
  const kinds = view.body.timeline!.map((e) => e.kind);
  for (const k of ["install", "launch", "crash"]) assert(kinds.includes(k), kinds.join(","));
  assertEquals(view.body.crashes!.length, 1);
  assertEquals(st.builds.history[0].origin_label, "Started by an agent (installer)");

  // A failed build: its errors at file:line in the history.
  await world.sim.gradle("sample-kts").setScenario("assembleDemoDebug", "kotlin_error");
  const failed = await callTool(a, "run_gradle_task", { task: "assembleDemoDebug" }, {
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  assertEquals(failed.isError, true);
  const after = await pollUntil(
    () => api.state(),
    (x) => x.builds.history[0]?.status === "failed",
    "the failed build",
  );
  const errors = after.builds.history[0].errors;
  assert(
    errors.length > 0 && errors.every((e) => /\.kt:\d+$/.test(e.at)),
    JSON.stringify(errors),
  );
  assertEquals(after.builds.history[0].error_count >= errors.length, true);
});

Deno.test("dashboard live feed: a running build's lines stream; past the log's on-disk half the page is told", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const api = new Api(url, await login(url));
  const stop = new AbortController();
  const events = await fetch(new URL("/api/events", url), {
    headers: { cookie: api.cookie },
    signal: stop.signal,
  });
  const seen: { event: string; data: FeedData }[] = [];
  const reading = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of events.body!) {
      buf += dec.decode(chunk, { stream: true });
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const frame = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const m = /^event: (\S+)\ndata: (.*)$/s.exec(frame);
        if (m) seen.push({ event: m[1], data: JSON.parse(m[2]) });
      }
    }
  })().catch(() => {});
  const record = await startBuildRecord(world.dataDir, {
    project: world.sim.projects["sample-kts"],
    task: "assembleDemoDebug",
    origin: { kind: "agent", session_id: "s", client_name: "elsewhere", standalone: true },
  });
  const log = buildLogPath(world.dataDir, record.id);
  await Deno.mkdir(`${world.dataDir}/build-logs`, { recursive: true });
  await Deno.writeTextFile(log, "> Task :app:preBuild\n");
  await pollUntil(
    () => seen.filter((e) => e.event === "lines" && e.data.build_id === record.id),
    (l) => l.some((e) => e.data.lines.includes("> Task :app:preBuild")),
    "the first line on the feed",
    { intervalMs: 50 },
  );
  await Deno.writeTextFile(log, "> Task :app:compileDemoDebugKotlin\n", { append: true });
  const next = await pollUntil(
    () => seen.filter((e) => e.event === "lines" && !e.data.reset),
    (l) => l.length > 0,
    "the next line",
    { intervalMs: 50 },
  );
  assertEquals(next[0].data.lines, ["> Task :app:compileDemoDebugKotlin"]);
  // The log reaches its on-disk half (as BuildLogWriter writes it): the feed says the rest waits.
  const filler = "x".repeat(1023) + "\n";
  await Deno.writeTextFile(log, filler.repeat(Math.ceil(MAX_BUILD_LOG_BYTES / 2 / 1024)), {
    append: true,
  });
  await pollUntil(
    () => seen.filter((e) => e.event === "log_held"),
    (l) => l.length === 1 && l[0].data.build_id === record.id,
    "the log_held notice",
    { intervalMs: 50 },
  );
  const lines = seen.filter((e) => e.event === "lines" && !e.data.reset);
  assert(
    lines.every((e) => e.data.lines.length <= 1_000),
    "at most MAX_LINES_PER_EVENT per event",
  );
  assert(lines.some((e) => e.data.skipped_lines > 0), "a burst says how many lines it skipped");
  stop.abort();
  await reading;
  await finishBuildRecord(world.dataDir, record.id, { status: "success" });
});

Deno.test("dashboard page: the favicon is served (no 404 per page); each script module as it is; relative times and PIDs are marked", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const cookie = await login(url);
  const get = (path: string) => fetch(new URL(path, url), { headers: { cookie } });
  const page = await (await get("/")).text();
  assertStringIncludes(page, '<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  assertStringIncludes(page, '<script type="module" src="/app.js"></script>');
  for (const path of ["/favicon.svg", "/favicon.ico"]) {
    const r = await get(path);
    const body = await r.text();
    assertEquals([r.status, r.headers.get("content-type")], [200, "image/svg+xml"], path);
    assertStringIncludes(body, "<svg");
  }
  // Every module of lib/dashboard/page/browser/ is served at its own name exactly as its file
  // reads (the checked file, embedded as text), and page_script.ts's table holds no other.
  const dir = new URL("../../lib/dashboard/page/browser/", import.meta.url);
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".js")) names.push(e.name);
  }
  names.sort();
  assert(names.includes("app.js") && names.length > 1, names.join(" "));
  assertEquals([...PAGE_MODULES.keys()].sort(), names.map((n) => `/${n}`));
  let script = "";
  for (const name of names) {
    const r = await get(`/${name}`);
    assertEquals(
      [r.status, r.headers.get("content-type")],
      [200, "text/javascript; charset=utf-8"],
      name,
    );
    assertStringIncludes(r.headers.get("content-security-policy") ?? "", "script-src 'self';");
    const served = new Uint8Array(await r.arrayBuffer());
    assertEquals(
      served,
      await Deno.readFile(new URL(name, dir)),
      `/${name} is ${name} byte for byte`,
    );
    script += new TextDecoder().decode(served);
  }
  // Only the table: not the folder's other files, nor a path under it, nor an unknown module.
  for (const path of ["/deno.json", "/browser/app.js", "/page/browser/dom.js", "/nothing.js"]) {
    const r = await get(path);
    await r.body?.cancel();
    assertEquals(r.status, 404, path);
  }
  // The script keeps every relative time advancing (data-at, re-rendered each second) and the
  // styles keep PID cells on one line; the browser test (Chromium) watches them on a live page.
  assertStringIncludes(script, 'querySelectorAll("[data-at]")');
  const css = await (await get("/app.css")).text();
  assertStringIncludes(css, "td.num { white-space: nowrap;");
});

Deno.test("dashboard live feed: the app's own activity shows devices and packages; the file keeps ‹arg›", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const cookie = await login(url);
  await using tapper = await agent(world, "agent-reader");
  const serial = "emulator-5554";
  const pkg = "com.example.keynobi.sample.demo.debug";
  const r = await tapper.client.callTool({
    name: "get_app_runtime_state",
    arguments: { device_serial: serial, package: pkg },
  }) as { content: { text: string }[] };
  const said = r.content[0].text;
  assert(said.includes(serial) || said.includes(pkg), said);
  const logged = await pollUntil(
    async () =>
      (await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`)).split("\n").filter((l) =>
        l.includes('"get_app_runtime_state"')
      ),
    (lines) => lines.length === 1,
    "the call in the activity log",
  );
  // The file: no argument value, as before.
  assert(!logged[0].includes(serial) && !logged[0].includes(pkg), logged[0]);
  assertStringIncludes(logged[0], "‹arg›");
  // The page (the live feed's first frame): the device and the package are shown.
  const stop = new AbortController();
  const events = await fetch(new URL("/api/events", url), {
    headers: { cookie },
    signal: stop.signal,
  });
  const dec = new TextDecoder();
  let buf = "";
  let reset: FeedData | null = null;
  for await (const chunk of events.body!) {
    buf += dec.decode(chunk, { stream: true });
    const m = /event: activity_reset\ndata: (.*?)\n\n/s.exec(buf);
    if (m) {
      reset = JSON.parse(m[1]);
      break;
    }
  }
  stop.abort();
  const entries = (reset as FeedData | null)!.entries;
  const entry = entries.find((e) => e.name === "get_app_runtime_state");
  assert(entry, JSON.stringify(entries.map((e) => e.name)));
  const shown = JSON.parse(logged[0]).summary.replaceAll("‹arg›", "");
  assert(entry.summary !== JSON.parse(logged[0]).summary, entry.summary);
  assert(entry.summary.includes(serial) || entry.summary.includes(pkg), entry.summary);
  assert(shown.length < entry.summary.length);
});
