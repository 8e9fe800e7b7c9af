/**
 * `deno task demo`: the main job against the built-in simulator. Starts the simulator (with the
 * emulator's gRPC endpoint), starts `keynobi --mcp` as an MCP client would (the SDK's Client over
 * stdio), and prints a short transcript: build and fix, crash diagnosis, install and launch, a UI
 * step on the gRPC fast path, two installs compared, a retrace from the command line, the same
 * server over streamable HTTP, and `keynobi app` with its dashboard URL.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { startSimulator } from "../tests/sim/mod.ts";
import { childEnv } from "../tests/child_env.ts";

const sim = await startSimulator({ grpc: true });
const started = performance.now();
const home = await Deno.makeTempDir({ prefix: "keynobi-demo-" });
const project = sim.projects["sample-kts"];
const main = new URL("../main.ts", import.meta.url).pathname;

const env = await childEnv({
  HOME: home,
  KEYNOBI_HOME: `${home}/keynobi`,
  ADB_SERVER_SOCKET: sim.adbServerSocket,
  ANDROID_HOME: sim.sdkRoot,
  // Where the simulated emulator advertises its gRPC endpoint (the fast path for UI actions).
  XDG_RUNTIME_DIR: sim.discoveryRoot,
});
const PKG = "com.example.keynobi.sample.demo.debug";
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: ["run", ...RUN_FLAGS, main, "--mcp", "--project", project],
  env,
  stderr: "inherit",
});
const client = new Client({ name: "keynobi-demo", version: "1.0.0" });

function section(title: string) {
  console.log(`\n── ${title} ${"─".repeat(Math.max(0, 60 - title.length))}`);
}

async function show(tool: string, args: Record<string, unknown> = {}) {
  const argText = Object.keys(args).length ? ` ${JSON.stringify(args)}` : "";
  console.log(`> ${tool}${argText}`);
  const r = await client.callTool({ name: tool, arguments: args }) as {
    isError?: boolean;
    content: { type: string; text?: string }[];
  };
  for (const c of r.content) if (c.type === "text") console.log(indent(c.text ?? ""));
  if (r.isError) console.log("  (tool error)");
}

function indent(text: string): string {
  return text.split("\n").map((l) => `  ${l}`).join("\n");
}

let failed = false;
try {
  const t0 = performance.now();
  await client.connect(transport);
  const info = client.getServerVersion();
  section("initialize");
  console.log(
    `connected to ${info?.name} ${info?.version} in ${Math.round(performance.now() - t0)} ms`,
  );
  const { tools } = await client.listTools();
  console.log(`${tools.length} tools: ${tools.map((t: { name: string }) => t.name).join(", ")}`);

  section("devices");
  await show("list_devices");
  section("one device");
  await show("get_device_info", { device_serial: "emulator-5554" });
  section("the sample project");
  await show("get_project_info");
  section("health check");
  await show("run_health_check");
  section("build and fix");
  const trust = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, main, "trust", project],
    env: { KEYNOBI_HOME: `${home}/keynobi`, HOME: home, PATH: Deno.env.get("PATH") ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  console.log(`$ keynobi trust ${project}`);
  console.log(indent(new TextDecoder().decode(trust.stdout).trim()));
  const gradle = sim.gradle("sample-kts");
  await gradle.setTaskDelay(5);
  // The simulator's Gradle fails this build with real Kotlin compiler errors...
  await gradle.setScenario("assembleDemoDebug", "kotlin_error");
  await show("run_gradle_task", { task: "assembleDemoDebug" });
  await show("get_build_errors", { include_warnings: false });
  // ...and the "fix" here is telling it the code compiles now.
  console.log("  (the simulator's Gradle is told the error is fixed)");
  await gradle.setScenario("assembleDemoDebug", "success");
  await show("run_gradle_task", { task: "assembleDemoDebug" });
  await show("find_apk_path", { variant: "demoDebug" });

  await crashDiagnosis();

  section("install and launch");
  const apk = await client.callTool({
    name: "find_apk_path",
    arguments: { variant: "demoDebug" },
  }) as { structuredContent?: { path?: string } };
  await show("install_apk", {
    device_serial: "emulator-5554",
    apk_path: apk.structuredContent?.path,
  });
  await show("launch_app", {
    device_serial: "emulator-5554",
    package: PKG,
  });

  await uiStep();
  await compareStep();
  await retraceStep();
  await httpStep();

  section("keynobi app: an attached session next to this standalone one");
  await attachedStep();

  section("a refusal (hostile argument)");
  await show("get_device_info", { device_serial: "emulator-5554; rm -rf /sdcard" });

  const injected = (await sim.readJournal()).filter((e) => e.injection);
  section("simulator journal");
  console.log(
    `${
      (await sim.readJournal()).length
    } device commands, ${injected.length} with an unquoted metacharacter`,
  );
  failed = injected.length > 0;
  console.log(`\ndemo ran in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(`demo failed: ${(e as Error).stack ?? e}`);
  failed = true;
} finally {
  await client.close().catch(() => {});
  await sim.close();
  await Deno.remove(home, { recursive: true }).catch(() => {});
}
Deno.exit(failed ? 1 : 0);

/** Logcat: stream a device, the app crashes twice, the agent reads the grouped crash. */
async function crashDiagnosis() {
  section("crash diagnosis");
  const serial = "emulator-5554";
  const logcat = sim.device(serial).service("logcat") as unknown as
    | { crash(pkg: string, kind: string, variant?: string): unknown; setRate(n: number): void }
    | undefined;
  if (!logcat) {
    console.log("  (this simulator has no logcat service yet)");
    return;
  }
  await show("start_logcat", { device_serial: serial });
  console.log("  (the app crashes twice the same way, then once differently)");
  logcat.crash("com.example.keynobi.sample.demo.debug", "java");
  logcat.crash("com.example.keynobi.sample.demo.debug", "java");
  logcat.crash("com.example.keynobi.sample.demo.debug", "java", "click");
  await new Promise((r) => setTimeout(r, 500));
  await show("get_crash_logs", { count: 5 });
  await show("get_crash_stack_trace", { package: "com.example.keynobi.sample.demo.debug" });
  await show("get_logcat_entries", {
    package: "com.example.keynobi.sample.demo.debug",
    min_level: "W",
    count: 8,
  });
  await show("get_logcat_stats");
  await show("stop_logcat");
}

/** UI: read the screen as an element list, tap a row by handle, read the settled screen. */
async function uiStep() {
  section("UI: read, act, read the settled screen");
  const serial = "emulator-5554";
  // The app was just launched: wait until its window has settled, then read it.
  const read = await client.callTool({
    name: "ui_wait_for_idle",
    arguments: { device_serial: serial },
  }) as { content: { type: string; text?: string }[] };
  const listText = read.content.find((c) => c.type === "text")?.text ?? "";
  console.log(`> ui_wait_for_idle {"device_serial":"${serial}"}\n${indent(listText)}`);
  const handle = /^\[(e\d+)\] \S+ "Sign in/m.exec(listText)?.[1];
  if (!handle) {
    console.log("  (no Sign in row on this screen)");
    return;
  }
  console.log(`> ui_tap_element {"device_serial":"${serial}","tree_path":"${handle}"}`);
  const tapped = await client.callTool({
    name: "ui_tap_element",
    arguments: { device_serial: serial, tree_path: handle },
  }) as { content: { type: string; text?: string }[] };
  const settled = tapped.content.find((c) => c.type === "text")?.text ?? "";
  console.log(indent(settled));
  const email = /^\[(e\d+)\] [^\n]*#email/m.exec(settled)?.[1];
  if (email) {
    await show("ui_fill_input", {
      device_serial: serial,
      tree_path: email,
      text: "demo@example.com",
    });
  }
  // On an emulator the picture comes over its gRPC endpoint ("path":"grpc"), not screencap.
  await show("screenshot", { device_serial: serial, max_dimension: 512 });
}

/** Debug sessions: a good install, then a reinstall that crashes; what changed between them. */
async function compareStep() {
  section("debug sessions: why does the new install crash?");
  const serial = "emulator-5554";
  const logcat = sim.device(serial).service("logcat") as unknown as {
    crash(pkg: string, kind: string, variant?: string): unknown;
  };
  const apk = await client.callTool({
    name: "find_apk_path",
    arguments: { variant: "demoDebug" },
  }) as { structuredContent?: { path?: string } };
  await client.callTool({ name: "start_logcat", arguments: { device_serial: serial } });
  console.log("  (the same build installed again, launched, and it crashes)");
  await client.callTool({
    name: "install_apk",
    arguments: { device_serial: serial, apk_path: apk.structuredContent?.path },
  });
  await client.callTool({ name: "launch_app", arguments: { device_serial: serial, package: PKG } });
  logcat.crash(PKG, "java", "click");
  await new Promise((r) => setTimeout(r, 500));
  await show("list_debug_sessions", { package: PKG, limit: 3 });
  await show("compare_debug_sessions");
  await client.callTool({ name: "stop_logcat", arguments: {} });
}

/** `keynobi retrace`: a stack trace from a bug report, deobfuscated with the release's mapping. */
async function retraceStep() {
  section("retrace a trace you already have");
  const mapping = `${home}/mapping.txt`;
  const trace = `${home}/trace.txt`;
  await Deno.writeTextFile(
    mapping,
    [
      "# compiler: R8",
      "# pg_map_id: 3f1c2a9",
      "com.example.keynobi.sample.CartRepository -> a.b:",
      "    1:1:void addItem(java.lang.String):42:42 -> a",
      "    2:2:void checkout():57:57 -> b",
      "com.example.keynobi.sample.CheckoutActivity -> a.c:",
      "    1:1:void onPay(android.view.View):31:31 -> d",
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(
    trace,
    [
      "java.lang.IllegalStateException: cart is empty",
      "\tat a.b.b(SourceFile:2)",
      "\tat a.c.d(SourceFile:1)",
      "\tat android.view.View.performClick(View.java:7659)",
      "",
    ].join("\n"),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, main, "retrace", "--mapping", mapping, trace],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  console.log(`$ keynobi retrace --mapping mapping.txt trace.txt`);
  console.log(indent(new TextDecoder().decode(out.success ? out.stdout : out.stderr).trim()));
  if (!out.success) throw new Error("keynobi retrace failed");
}

/** The same server over streamable HTTP, as a remote agent or a device lab reaches it. */
async function httpStep() {
  section("streamable HTTP (a bearer token, loopback)");
  const token = "demo-token-" + crypto.randomUUID();
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, main, "--mcp", "--http", "127.0.0.1:0", "--project", project],
    env: { ...env, KEYNOBI_HTTP_TOKEN: token },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  let url: string | null = null;
  for await (const chunk of server.stderr.pipeThrough(new TextDecoderStream())) {
    err += chunk;
    url = /serving MCP over streamable HTTP at (\S+)/.exec(err)?.[1] ?? null;
    if (url) break;
  }
  const remote = new Client({ name: "remote-agent", version: "1.0.0" });
  try {
    if (!url) throw new Error(`keynobi --http did not start:\n${err}`);
    console.log(`  keynobi --mcp --http 127.0.0.1:0 serves ${url}`);
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await remote.connect(transport);
    const r = await remote.callTool({ name: "list_devices", arguments: {} }) as {
      content: { type: string; text?: string }[];
    };
    console.log("> list_devices (over HTTP)");
    console.log(indent(r.content.find((c) => c.type === "text")?.text ?? ""));
    const anon = await fetch(url, { method: "POST", body: "{}" });
    await anon.body?.cancel();
    console.log(`  a request without the token: HTTP ${anon.status}`);
    await transport.terminateSession().catch(() => {});
  } finally {
    await remote.close().catch(() => {});
    server.kill("SIGTERM");
    await server.status;
    await server.stderr.cancel().catch(() => {});
  }
}

/** Start `keynobi app`, attach a second client, show both sessions' modes and `keynobi status`. */
async function attachedStep() {
  const app = new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, main, "app", "--project", project],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  for await (const chunk of app.stderr.pipeThrough(new TextDecoderStream())) {
    err += chunk;
    // The ready line, then the dashboard's URL (a loopback page with a per-launch secret).
    if (err.includes(" ready: ") && /dashboard: open \S+[^\n]*\n/.test(err)) break;
  }
  console.log(indent(err.trim()));
  const attached = new Client({ name: "second-agent", version: "1.0.0" });
  try {
    await attached.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", ...RUN_FLAGS, main, "--mcp", "--project", project],
        env,
        stderr: "inherit",
      }),
    );
    const mode = async (c: Client) => {
      const r = await c.callTool({ name: "get_project_info", arguments: {} }) as {
        structuredContent?: { mode?: string; standalone_reason?: string | null };
      };
      const m = r.structuredContent ?? {};
      return `${m.mode}${m.standalone_reason ? ` (${m.standalone_reason})` : ""}`;
    };
    console.log(`  this session:  ${client.getServerVersion()?.title}, mode ${await mode(client)}`);
    console.log(
      `  second agent:  ${attached.getServerVersion()?.title}, mode ${await mode(attached)}`,
    );
    const status = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...RUN_FLAGS, main, "status"],
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "inherit",
    }).output();
    console.log("> keynobi status");
    console.log(indent(new TextDecoder().decode(status.stdout).trim()));
  } finally {
    await attached.close().catch(() => {});
    app.kill("SIGTERM");
    await app.status;
    await app.stderr.cancel().catch(() => {});
  }
}
