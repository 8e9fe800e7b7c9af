/**
 * One session (createSession: the SDK's Server fed by a registry of test tools) over our line
 * transport on an in-memory stream pair: dispatch, refusals, errors, cancellation, progress.
 */
import { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import type { ActivitySink, RequestExtras } from "../../lib/mcp/server.ts";
import { linePair } from "./_line_pair.ts";
import { defineTool } from "../../lib/mcp/tool_def.ts";
import type { PromptDef } from "../../lib/mcp/prompts.ts";
import { waitUntil } from "../wait.ts";

interface Ctx {
  signal: AbortSignal;
  runs: string[];
  request: RequestExtras;
}

const runs: string[] = [];
const echo = defineTool<Ctx, { text: z.ZodString; times: z.ZodOptional<z.ZodNumber> }>({
  name: "echo_text",
  toolset: "core",
  kind: "R",
  description: "Echo text",
  params: {
    text: z.string().max(10).describe("Text"),
    times: z.number().int().min(1).max(3).optional().describe("Repeat count"),
  },
  run(args, ctx) {
    ctx.runs.push("echo");
    return Promise.resolve({
      structured: { text: args.text.repeat(args.times ?? 1) },
      text: args.text.repeat(args.times ?? 1),
    });
  },
});
const failing = defineTool<Ctx, Record<string, never>>({
  name: "fail_device",
  toolset: "core",
  kind: "W",
  description: "Always offline",
  params: {},
  needsProject: true,
  run(_args, ctx) {
    ctx.runs.push("fail");
    throw new ToolError("device_offline", "Device emulator-5554 is offline: reconnect it", {
      serial: "emulator-5554",
    });
  },
});
const slow = defineTool<Ctx, Record<string, never>>({
  name: "slow_wait",
  toolset: "ui",
  kind: "R",
  description: "Waits until cancelled",
  params: {},
  run(_args, ctx) {
    return new Promise((_resolve, reject) => {
      ctx.signal.addEventListener("abort", () => reject(new Error("aborted")));
    });
  },
});
const buggy = defineTool<Ctx, Record<string, never>>({
  name: "buggy_tool",
  toolset: "core",
  kind: "R",
  description: "Throws a plain error",
  params: {},
  run() {
    throw new Error("oops");
  },
});

/** The folder `walk_folder` lists; a test renames it away first, as a user does mid-read. */
let walked = "";
const walker = defineTool<Ctx, Record<string, never>>({
  name: "walk_folder",
  toolset: "core",
  kind: "R",
  description: "Lists a folder",
  params: {},
  async run() {
    const names = [];
    for await (const e of Deno.readDir(walked)) names.push(e.name);
    return { structured: { names }, text: names.join(",") };
  },
});

const stepper = defineTool<Ctx, Record<string, never>>({
  name: "step_progress",
  toolset: "core",
  kind: "R",
  description: "Reports progress 1, 1 (again), 2",
  params: {},
  run(_args, ctx) {
    ctx.request.progress(1, 2, "first");
    ctx.request.progress(1, 2, "not increasing: dropped");
    ctx.request.progress(2, 2, "x".repeat(900));
    return Promise.resolve({ structured: { client: ctx.request.clientName }, text: "done" });
  },
});

const prompt: PromptDef = {
  name: "say",
  title: "Say",
  description: "Uses echo_text",
  arguments: [{ name: "what", description: "what", required: true }],
  tools: ["echo_text"],
  render: (a) => `echo_text (text: ${a.what})`,
};
const hiddenPrompt: PromptDef = { ...prompt, name: "wait", tools: ["slow_wait"] };

async function makeServer(opts: { toolsets?: ("core" | "ui")[]; hasProject?: boolean } = {}) {
  const entries: Parameters<ActivitySink["append"]>[0][] = [];
  const pair = await linePair<Ctx>({
    version: "9.9.9",
    title: "Keynobi (standalone)",
    instructions: "hello",
    tools: [echo, failing, slow, buggy, stepper, walker],
    enabledToolsets: opts.toolsets ?? ["core", "ui"],
    hasProject: opts.hasProject ?? true,
    makeContext: (signal, request) => ({ signal, runs, request }),
    resources: {
      list: () => Promise.resolve([]),
      read: async (uri) => {
        if (uri !== "test://walk") throw new Error("none");
        for await (const _ of Deno.readDir(walked)) { /* the listing */ }
        return { uri, mimeType: "text/plain", text: "" };
      },
    },
    prompts: [prompt, hiddenPrompt],
    activity: { append: (e) => Promise.resolve(void entries.push(e)) },
  });
  return { ...pair, server: pair.session.handlers, entries };
}

Deno.test("initialize answers the requested known version, else the latest", async () => {
  await using pair = await makeServer();
  const { request, server } = pair;
  const a = await request("initialize", {
    protocolVersion: "2025-06-18",
    clientInfo: { name: "c" },
  });
  assertEquals(a.result.protocolVersion, "2025-06-18");
  assertEquals(a.result.serverInfo, {
    name: "keynobi",
    title: "Keynobi (standalone)",
    version: "9.9.9",
  });
  assertEquals(a.result.capabilities, { tools: {}, prompts: {}, resources: {} });
  assertEquals(server.clientName, "c");
  const b = await request("initialize", { protocolVersion: "1999-01-01" });
  assertEquals(b.result.protocolVersion, "2025-11-25");
});

Deno.test("A session lists only served tools, with their schemas and kind hints", async () => {
  await using pair = await makeServer({ toolsets: ["core"] });
  const { request } = pair;
  const r = await request("tools/list");
  assertEquals(r.result.tools.map((t: { name: string }) => t.name), [
    "echo_text",
    "fail_device",
    "buggy_tool",
    "step_progress",
    "walk_folder",
  ]);
  const e = r.result.tools[0];
  // Name, description, schema and all three hints; no title (the name says it) and no
  // additionalProperties (unknown keys are refused by the server, see the refusal test below).
  assertEquals(Object.keys(e), ["name", "description", "inputSchema", "annotations"]);
  assertEquals(e.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  assertEquals(e.inputSchema.additionalProperties, undefined);
  assertEquals(e.inputSchema.properties.text.description, "Text");
  assertEquals(e.inputSchema.required, ["text"]);
  assertEquals(r.result.tools[1].annotations, {
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: false,
  });
});

Deno.test("A session runs a tool and returns structured content plus text", async () => {
  runs.length = 0;
  await using pair = await makeServer();
  const { request, entries } = pair;
  const r = await request("tools/call", { name: "echo_text", arguments: { text: "ab", times: 2 } });
  assertEquals(r.result, {
    content: [{ type: "text", text: "abab" }],
    structuredContent: { text: "abab" },
  });
  assertEquals(runs, ["echo"]);
  await waitUntil(() => entries.length > 0, "the activity log entry");
  assertEquals(entries[0].kind, "tool");
  assertEquals(entries[0].name, "echo_text");
  assertEquals(entries[0].status, "ok");
});

Deno.test("A session refuses bad arguments as invalid_params results and runs nothing", async () => {
  runs.length = 0;
  await using pair = await makeServer();
  const { request, entries } = pair;
  const cases: [unknown, string][] = [
    [{ txt: "a" }, `Unknown parameter "txt" for echo_text: did you mean "text"?`],
    [{ text: "a", bogus_zzzzzzzzzzz: 1 }, "valid parameters are text, times"],
    [{ text: 5 }, "text:"],
    [{ text: "a", times: 9 }, "times:"],
    [{ text: "01234567890" }, "text:"],
    [{}, "text:"],
    ["str", "takes its arguments as a JSON object"],
  ];
  for (const [args, text] of cases) {
    const r = await request("tools/call", { name: "echo_text", arguments: args });
    assertEquals(r.result.isError, true, JSON.stringify(args));
    assertEquals(r.result.structuredContent.error.code, "invalid_params");
    assertStringIncludes(r.result.content[0].text, text);
  }
  assertEquals(runs, []);
  await new Promise((r) => setTimeout(r, 0));
  assert(entries.every((e) => e.status === "refused"));
});

Deno.test("A session maps ToolErrors to isError results with their code and data", async () => {
  await using pair = await makeServer();
  const { request } = pair;
  const r = await request("tools/call", { name: "fail_device", arguments: {} });
  assertEquals(r.result.isError, true);
  assertEquals(r.result.structuredContent.error, {
    serial: "emulator-5554",
    code: "device_offline",
    message: "Device emulator-5554 is offline: reconnect it",
  });
});

Deno.test("A session refuses project tools without a project, before running them", async () => {
  runs.length = 0;
  await using pair = await makeServer({ hasProject: false });
  const { request } = pair;
  const r = await request("tools/call", { name: "fail_device", arguments: {} });
  assertEquals(r.result.structuredContent.error.code, "invalid_params");
  assertStringIncludes(r.result.content[0].text, "--project");
  assertEquals(runs, []);
});

Deno.test("A session answers hidden and unknown tools with -32602", async () => {
  await using pair = await makeServer({ toolsets: ["core"] });
  const { request } = pair;
  const hidden = await request("tools/call", { name: "slow_wait", arguments: {} });
  assertEquals(hidden.error.code, -32602);
  assertStringIncludes(hidden.error.message, `"ui" toolset`);
  const unknown = await request("tools/call", { name: "echo_txt", arguments: {} });
  assertEquals(unknown.error.code, -32602);
  assertStringIncludes(unknown.error.message, "did you mean echo_text");
  const method = await request("tools/nope");
  assertEquals(method.error.code, -32601);
});

Deno.test("A session turns its own bugs into JSON-RPC internal errors", async () => {
  await using pair = await makeServer();
  const { request } = pair;
  const r = await request("tools/call", { name: "buggy_tool", arguments: {} });
  assertEquals(r.error.code, -32603);
  assertStringIncludes(r.error.message, "oops");
});

Deno.test("notifications/cancelled aborts the request it names, which is then not answered", async () => {
  await using pair = await makeServer();
  const { notify, sent, session } = pair;
  const aborted = Promise.withResolvers<void>();
  runs.length = 0;
  await pair.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 77,
      method: "tools/call",
      params: { name: "slow_wait", arguments: {} },
    }) + "\n",
  );
  await waitUntil(() => session.gate.size > 0, "the call to enter the gate");
  session.server.onerror = () => {};
  void aborted;
  await notify("notifications/cancelled", { requestId: 77, reason: "user" });
  await session.drain();
  assertEquals(session.gate.size, 0, "the slot is free");
  const pong = await pair.request("ping");
  assertEquals(pong.result, {});
  assertEquals(sent.filter((m) => m.id === 77).length, 0, "no answer to a cancelled request");
});

Deno.test("prompts are served only when every tool they name is served", async () => {
  await using pair = await makeServer({ toolsets: ["core"] });
  const { request } = pair;
  const list = await request("prompts/list");
  assertEquals(list.result.prompts.map((p: { name: string }) => p.name), ["say"]);
  const got = await request("prompts/get", { name: "say", arguments: { what: "hi" } });
  assertEquals(got.result.messages[0].content.text, "echo_text (text: hi)");
  const missing = await request("prompts/get", { name: "say", arguments: {} });
  assertEquals(missing.error.code, -32602);
  const hidden = await request("prompts/get", { name: "wait", arguments: { what: "x" } });
  assertEquals(hidden.error.code, -32602);
});

Deno.test("progress is sent as notifications/progress only when the client asked for it", async () => {
  await using pair = await makeServer();
  const { request, sent } = pair;
  await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "claude-code", version: "1" },
  });
  const withToken = await request("tools/call", {
    name: "step_progress",
    arguments: {},
    _meta: { progressToken: "tok-1" },
  });
  assertEquals(withToken.result.structuredContent, { client: "claude-code" });
  const notes = sent.filter((m) => (m as { method?: string }).method === "notifications/progress")
    // deno-lint-ignore no-explicit-any
    .map((m) => (m as any).params);
  assertEquals(notes.length, 2);
  assertEquals(notes[0], { progressToken: "tok-1", progress: 1, total: 2, message: "first" });
  assertEquals(notes[1].progress, 2);
  assertEquals(notes[1].message.length, 500);
  const before = sent.length;
  await request("tools/call", { name: "step_progress", arguments: {} });
  assertEquals(
    sent.slice(before).filter((m) => (m as { method?: string }).method).length,
    0,
    "no token, no notifications",
  );
});

Deno.test("A folder renamed away during a read is a clean tool error quoting no path, not -32603", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-walk-" });
  try {
    walked = `${dir}/src`;
    await Deno.mkdir(walked);
    await using pair = await makeServer();
    const { request } = pair;
    const ok = await request("tools/call", { name: "walk_folder", arguments: {} });
    assertEquals(ok.result.isError, undefined);
    await Deno.rename(walked, `${dir}/src-renamed`);
    const r = await request("tools/call", { name: "walk_folder", arguments: {} });
    assertEquals(r.error, undefined, "a tool result, not a JSON-RPC error");
    assertEquals(r.result.isError, true);
    assertEquals(r.result.structuredContent.error.code, "io_error");
    assertStringIncludes(r.result.content[0].text, "moved or removed meanwhile");
    assert(!r.result.content[0].text.includes(dir), "no path is quoted");
    const res = await request("resources/read", { uri: "test://walk" });
    assertEquals(res.error.code, -32002);
    assert(!res.error.message.includes(dir), res.error.message);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
