/** The MCP surface over real stdio: initialize, tools/list, toolsets, refusals, stdout purity. */
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../assert.ts";
import { shell } from "../sim/apps/_shell.ts";
import { TOOLS } from "../../lib/tools/registry.ts";
import { annotationsFor } from "../../lib/mcp/tool_def.ts";
import { VERSION } from "../../lib/version.ts";
import {
  assertNoInjection,
  call,
  connect,
  INITIALIZED,
  initializeRequest,
  runKeynobi,
  startWorld,
} from "./harness.ts";

Deno.test("initialize reports identity, capabilities and generated instructions", async () => {
  await using world = await startWorld();
  await using s = await connect(world, ["--project", world.sim.projects["sample-kts"]]);
  const info = s.client.getServerVersion();
  assertEquals(info?.name, "keynobi");
  assertEquals(info?.version, VERSION);
  assertEquals((info as { title?: string }).title, "Keynobi (standalone)");
  const caps = s.client.getServerCapabilities() ?? {};
  assertEquals(Object.keys(caps).sort(), ["prompts", "resources", "tools"]);
  assertEquals(caps.tools, {});
  assertEquals(caps.resources, {});
  const text = s.client.getInstructions() ?? "";
  assertMatch(text, /^Keynobi MCP server, standalone \(no Keynobi app is running\)/);
  assertStringIncludes(text, "Toolsets served: core, ui, device-admin; hidden: none.");
  // tools/list gives the tools; the instructions name none of them (issue 12).
  for (const t of TOOLS) assert(!new RegExp(`\\b${t.name}\\b`).test(text), t.name);
  assertStringIncludes(text, "device_serial");
  await assertNoInjection(world.sim);
});

Deno.test("tools/list serves every registry tool with annotations from its kind", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const { tools } = await s.client.listTools();
  assertEquals(tools.map((t: { name: string }) => t.name), TOOLS.map((t) => t.name));
  for (const t of tools) {
    const def = TOOLS.find((d) => d.name === t.name)!;
    const { title: _title, ...hints } = t.annotations ?? {};
    assertEquals(hints, annotationsFor(def.kind), t.name);
    assertEquals(t.inputSchema.type, "object");
    assertEquals(t.title, undefined, t.name);
    assert(!JSON.stringify(t.inputSchema).includes("additionalProperties"), t.name);
    assert(t.description && t.description.length < 400, `${t.name} description is short`);
  }
});

Deno.test("--toolsets hides other toolsets and a hidden tool is refused with -32602", async () => {
  await using world = await startWorld();
  await using s = await connect(world, ["--toolsets=ui"]);
  const { tools } = await s.client.listTools();
  const ui = TOOLS.filter((t) => t.toolset === "ui").map((t) => t.name);
  assertEquals(tools.map((t: { name: string }) => t.name), ui);
  assertStringIncludes(s.client.getInstructions() ?? "", "hidden: core, device-admin");
  let err: unknown = null;
  try {
    await s.client.callTool({ name: "list_devices", arguments: {} });
  } catch (e) {
    err = e;
  }
  assert(err instanceof Error, "calling a hidden tool fails");
  assertEquals((err as { code?: number }).code, -32602);
  assertStringIncludes(err.message, `list_devices is in the "core" toolset`);
  assertStringIncludes(err.message, "--toolsets ui,core");
  // Nothing ran on a device.
  assertEquals((await world.sim.readJournal()).length, 0);
});

Deno.test("bad --toolsets values exit 2 with the valid names and start nothing", async () => {
  await using world = await startWorld();
  for (
    const args of [
      ["--mcp", "--toolsets", "core,bogus"],
      ["--mcp", "--toolsets="],
      ["--mcp", "--toolsets"],
      ["--mcp", "--toolsets", "core,,ui"],
    ]
  ) {
    const r = await runKeynobi(world, args);
    assertEquals(r.code, 2, args.join(" "));
    assertEquals(r.stdout, "", "nothing on stdout");
    assertStringIncludes(r.stderr, "core, ui, device-admin");
  }
  // The server never started: no session record, no activity entry.
  const sessions = await Array.fromAsync(Deno.readDir(`${world.dataDir}/mcp-sessions`)).catch(
    () => [],
  );
  assertEquals(sessions.length, 0);
  const log = await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`).catch(() => "");
  assertEquals(log, "");
});

Deno.test("unknown parameters are refused as invalid_params naming the closest one", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const r = await call(s, "get_device_info", { device_serail: "emulator-5554" });
  assertEquals(r.isError, true);
  const error = r.structuredContent?.error as Record<string, unknown>;
  assertEquals(error.code, "invalid_params");
  assertEquals(error.did_you_mean, "device_serial");
  assertStringIncludes(r.content[0].text ?? "", `Unknown parameter "device_serail"`);
  const wrongType = await call(s, "get_device_info", { device_serial: 5554 });
  assertEquals(
    (wrongType.structuredContent?.error as Record<string, unknown>).code,
    "invalid_params",
  );
  assertStringIncludes(wrongType.content[0].text ?? "", "device_serial");
  // Refusals send nothing to a device.
  assertEquals((await world.sim.readJournal()).length, 0);
});

Deno.test("unknown tools are JSON-RPC -32602 with a suggestion", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  let err: unknown = null;
  try {
    await s.client.callTool({ name: "list_device", arguments: {} });
  } catch (e) {
    err = e;
  }
  assertEquals((err as { code?: number }).code, -32602);
  assertStringIncludes((err as Error).message, "did you mean list_devices");
  // The harness adds the server's stderr to a failed request, so a failing test shows it.
  const [, quoted] = (err as Error).message.split("\n--- keynobi stderr ---\n");
  assert(quoted !== undefined && s.stderr().startsWith(quoted), (err as Error).message);
});

Deno.test("stdout carries nothing but JSON-RPC, even on errors and bad input", async () => {
  await using world = await startWorld();
  const lines = [
    initializeRequest("raw", "0"),
    INITIALIZED,
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "list_devices", arguments: {} },
    },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "get_device_info", arguments: { device_serial: "nope;id" } },
    },
    { jsonrpc: "2.0", id: 5, method: "no/such/method" },
    { jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: "android://nope" } },
    { jsonrpc: "2.0", id: 7, method: "ping" },
  ].map((m) => JSON.stringify(m)).join("\n") + "\nthis is not json\n";
  const r = await runKeynobi(world, ["--mcp"], { stdin: lines });
  assertEquals(r.code, 0, r.stderr);
  const out = r.stdout.split("\n").filter((l) => l !== "");
  const ids = new Set<unknown>();
  for (const line of out) {
    const msg = JSON.parse(line);
    assertEquals(msg.jsonrpc, "2.0", line);
    ids.add(msg.id);
  }
  for (const id of [1, 2, 3, 4, 5, 6, 7, null]) assert(ids.has(id), `answer for id ${id}`);
  const byId = new Map(out.map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  assertEquals(byId.get(5).error.code, -32601);
  assertEquals(byId.get(6).error.code, -32002);
  assertEquals(byId.get(null).error.code, -32700);
  assertEquals(byId.get(4).result.isError, true);
  assertEquals(byId.get(4).result.structuredContent.error.code, "invalid_params");
  await assertNoInjection(world.sim);
});

Deno.test("--attach-only exits 2 when no app runs; --version and --help answer", async () => {
  await using world = await startWorld();
  const a = await runKeynobi(world, ["--mcp", "--attach-only"]);
  assertEquals(a.code, 2);
  assertStringIncludes(a.stderr, "no Keynobi app is running");
  assertEquals(a.stdout, "");
  const v = await runKeynobi(world, ["--version"]);
  assertEquals(v.stdout.trim(), `keynobi ${VERSION}`);
  const h = await runKeynobi(world, ["--help"]);
  assertStringIncludes(h.stdout, "keynobi --mcp");
  const app = await runKeynobi(world, ["app", "--frobnicate"]);
  assertEquals(app.code, 2);
  assertStringIncludes(app.stderr, 'Unknown option "--frobnicate" for keynobi app');
  const bad = await runKeynobi(world, ["--frobnicate"]);
  assertEquals(bad.code, 2);
});

Deno.test("the harness fails a test whose device commands reached the shell unquoted", async () => {
  const world = await startWorld();
  // A command sent the way keynobi never sends one: `;` unquoted.
  await shell(world.sim.port, "emulator-5554", "echo a; echo b");
  const e = await assertRejects(() => world[Symbol.asyncDispose](), Error);
  assertStringIncludes(e.message, "device commands with unquoted metacharacters");
  assertStringIncludes(e.message, "echo a; echo b");
});
