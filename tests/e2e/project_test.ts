/** Project selection, trust through the CLI (seen without a restart), the activity log, records. */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  call,
  connect,
  E2E_WAIT,
  handshakeLines,
  keynobiArgv,
  runKeynobi,
  startWorld,
} from "./harness.ts";
import { pollUntil } from "../wait.ts";

Deno.test("the project comes from the working directory's Gradle build", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-groovy"];
  await using s = await connect(world, [], { cwd: `${project}/app/src` });
  const r = await call(s, "get_project_info");
  const p = r.structuredContent!.project as Record<string, unknown>;
  assertEquals(p.root, await Deno.realPath(project));
  assertEquals(p.selected_by, "working_directory");
  assertEquals(r.structuredContent!.mode, "standalone");
  assertEquals(r.structuredContent!.standalone_reason, "no Keynobi app is running");
});

Deno.test("a server's project becomes the last active one a later server without one falls back to", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-groovy"];
  {
    await using s = await connect(world, ["--project", project]);
    await call(s, "get_project_info");
  }
  // The first server has exited (its housekeeping ran before it did); the home folder is no build.
  await pollUntil(
    async () =>
      JSON.parse(await Deno.readTextFile(`${world.dataDir}/settings.json`).catch(() => "{}")),
    (settings: Record<string, unknown>) => settings.last_active_project !== undefined,
    "the first server to record its last active project",
    E2E_WAIT,
  );
  await using later = await connect(world, []);
  const r = await call(later, "get_project_info");
  const p = r.structuredContent!.project as Record<string, unknown> | null;
  assertEquals(p?.selected_by, "last_active_project", JSON.stringify(r.structuredContent));
  assertEquals(p?.root, await Deno.realPath(project));
});

Deno.test("--project that does not exist exits 2 with a clear message", async () => {
  await using world = await startWorld();
  const r = await runKeynobi(world, ["--mcp", "--project", `${world.home}/nope`]);
  assertEquals(r.code, 2);
  assertEquals(r.stdout, "");
  assertStringIncludes(r.stderr, "nope");
});

Deno.test("keynobi trust applies to a running server without a restart; no tool grants it", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  await using s = await connect(world, ["--project", project]);
  const before = await call(s, "get_project_info");
  assertEquals(before.structuredContent!.trusted, false);
  assertStringIncludes(before.structuredContent!.trust_hint as string, "keynobi trust");

  const t = await runKeynobi(world, ["trust", project]);
  assertEquals(t.code, 0, t.stderr);
  const after = await call(s, "get_project_info");
  assertEquals(after.structuredContent!.trusted, true);
  assertEquals(after.structuredContent!.trust_hint, null);

  const list = await runKeynobi(world, ["projects"]);
  assertStringIncludes(list.stdout, await Deno.realPath(project));
  const u = await runKeynobi(world, ["untrust", project]);
  assertEquals(u.code, 0, u.stderr);
  assertEquals((await call(s, "get_project_info")).structuredContent!.trusted, false);

  const { tools } = await s.client.listTools();
  assert(!tools.some((x: { name: string }) => /trust/.test(x.name)), "no tool can grant trust");
});

Deno.test("the activity log records calls without their arguments; the session record comes and goes", async () => {
  await using world = await startWorld();
  {
    await using s = await connect(world, []);
    await call(s, "list_devices");
    await call(s, "get_device_info", { device_serial: "emulator-5554", token: "marker-7f3a" });
    await s.client.readResource({ uri: "keynobi://skill" });
    // Values a refusal, a resource URI and a prompt would echo (issue 10 item 4).
    await call(s, "stop_app", { device_serial: "emulator-5554", package: "com.x.marker91;x" });
    await s.client.readResource({ uri: "android://manifest?token=marker-uri-5c" }).catch(() => {});
    await s.client.getPrompt({
      name: "diagnose-crash",
      arguments: { package: "com.marker.prompt42" },
    }).catch(() => {});
    const records = await Array.fromAsync(Deno.readDir(`${world.dataDir}/mcp-sessions`));
    assertEquals(records.length, 1);
    const rec = JSON.parse(
      await Deno.readTextFile(`${world.dataDir}/mcp-sessions/${records[0].name}`),
    );
    assertEquals(rec.reason, "no Keynobi app is running");
    assertEquals(typeof rec.pid, "number");
  }
  // After the client closes, the server stops: its record is removed and "Server stopped" logged.
  const raw = await pollUntil(
    () => Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`),
    (text) => text.includes("Server stopped"),
    "the activity log's Server stopped line",
    E2E_WAIT,
  );
  for (const marker of ["marker-7f3a", "marker91", "marker-uri-5c", "marker.prompt42"]) {
    assert(!raw.includes(marker), `argument value ${marker} was logged:\n${raw}`);
  }
  assert(!raw.includes('"arguments"'), "no arguments field");
  const entries = raw.trim().split("\n").map((l) => JSON.parse(l));
  const kinds = entries.map((e) => `${e.kind}:${e.name}:${e.status}`);
  assert(kinds.includes("tool:list_devices:ok"), kinds.join(" "));
  assert(kinds.includes("tool:get_device_info:refused"), kinds.join(" "));
  assert(kinds.includes("resource:keynobi://skill:ok"), kinds.join(" "));
  assertStringIncludes(
    entries[0].summary,
    "Server started (standalone: no Keynobi app is running)",
  );
  assert(
    entries.every((e) => new TextEncoder().encode(e.summary).length <= 120),
    "summaries ≤ 120 bytes",
  );
  assert(entries.every((e) => typeof e.duration_ms === "number"));
  const left = await Array.fromAsync(Deno.readDir(`${world.dataDir}/mcp-sessions`));
  assertEquals(left.length, 0);
  const status = await runKeynobi(world, ["status"]);
  assertStringIncludes(status.stdout, "standalone MCP servers: none");
});

Deno.test("keynobi setup registers this checkout's bundle, which answers initialize", async () => {
  await using world = await startWorld();
  const r = await runKeynobi(world, ["setup", "--toolsets", "core"]);
  assertEquals(r.code, 0, r.stderr);
  const [claude, codex] = r.stdout.trim().split("\n");
  assertStringIncludes(claude, "claude mcp add --scope user --transport stdio keynobi -- ");
  assertStringIncludes(codex, "codex mcp add keynobi -- ");
  assertStringIncludes(claude, "dist/bundle/main.js --mcp --toolsets core", r.stderr);
  assert(!claude.includes(" -A "), "never -A");
  // The registered command itself (its flags and the bundle setup built) serves MCP, and answers
  // initialize and tools/list with main.ts's bytes (the bundle's tools come from the listing built
  // with it, main.ts converts each schema).
  const argv = claude.split(" -- ")[1].split(" ");
  const runAt = argv.indexOf("run");
  assert(runAt >= 0, claude);
  const serve = (args: string[]) => handshakeLines(args, world.env, world.home);

  const { lines, stderr } = await serve(argv.slice(runAt));
  const answer = JSON.parse(lines[0]);
  assertEquals(answer.result.serverInfo.name, "keynobi");
  assertEquals(JSON.parse(lines[1]).result.tools.length > 0, true);
  const fromSource = await serve(keynobiArgv(["--mcp", "--toolsets", "core"]));
  assertEquals(lines, fromSource.lines);
  assert(!stderr.includes("starting from source"), "bundle current");
});

Deno.test("run_health_check lists only what keynobi uses: no SDK retrace (it retraces in process)", async () => {
  await using world = await startWorld();
  await using s = await connect(world, ["--project", world.sim.projects["sample-kts"]]);
  const r = await call(s, "run_health_check");
  const checks = r.structuredContent!.checks as Record<string, unknown>;
  assert(checks.java && checks.adb && checks.project, Object.keys(checks).join(", "));
  assertEquals("retrace" in checks, false, Object.keys(checks).join(", "));
  assert(!/retrace/i.test(r.content[0].text!), r.content[0].text!);
});
