/** McpServer in process, with a registry of test tools: dispatch, refusals, errors, cancellation. */
import { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import type { Classified, JsonRpcMessage } from "../../lib/mcp/jsonrpc.ts";
import { classifyLine } from "../../lib/mcp/jsonrpc.ts";
import { type ActivitySink, McpServer, type RequestExtras } from "../../lib/mcp/server.ts";
import { defineTool } from "../../lib/mcp/tool_def.ts";
import type { PromptDef } from "../../lib/mcp/prompts.ts";

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
  title: "Echo",
  description: "Echo text",
  params: {
    text: z.string().max(10).describe("Text"),
    times: z.number().int().min(1).max(3).optional().describe("Repeat count"),
  },
  projectIndependent: true,
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
  title: "Fail",
  description: "Always offline",
  params: {},
  projectIndependent: false,
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
  title: "Slow",
  description: "Waits until cancelled",
  params: {},
  projectIndependent: true,
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
  title: "Bug",
  description: "Throws a plain error",
  params: {},
  projectIndependent: true,
  run() {
    throw new Error("oops");
  },
});

const stepper = defineTool<Ctx, Record<string, never>>({
  name: "step_progress",
  toolset: "core",
  kind: "R",
  title: "Steps",
  description: "Reports progress 1, 1 (again), 2",
  params: {},
  projectIndependent: true,
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

function makeServer(opts: { toolsets?: ("core" | "ui")[]; hasProject?: boolean } = {}) {
  const entries: Parameters<ActivitySink["append"]>[0][] = [];
  const server = new McpServer<Ctx>({
    version: "9.9.9",
    title: "Keynobi (standalone)",
    instructions: "hello",
    tools: [echo, failing, slow, buggy, stepper],
    enabledToolsets: opts.toolsets ?? ["core", "ui"],
    hasProject: opts.hasProject ?? true,
    makeContext: (signal, request) => ({ signal, runs, request }),
    resources: {
      list: () => Promise.resolve([]),
      read: () => Promise.reject(new Error("none")),
    },
    prompts: [prompt, hiddenPrompt],
    activity: { append: (e) => Promise.resolve(void entries.push(e)) },
  });
  const sent: JsonRpcMessage[] = [];
  const waiters = new Map<unknown, (m: JsonRpcMessage) => void>();
  const send = (m: JsonRpcMessage) => {
    sent.push(m);
    waiters.get((m as { id?: unknown }).id)?.(m);
  };
  let next = 1;
  async function request(method: string, params?: Record<string, unknown>) {
    const id = next++;
    const answered = new Promise<JsonRpcMessage>((r) => waiters.set(id, r));
    server.handle(classifyLine(JSON.stringify({ jsonrpc: "2.0", id, method, params })), send);
    // deno-lint-ignore no-explicit-any
    return await answered as any;
  }
  function notify(method: string, params?: Record<string, unknown>) {
    server.handle(
      { kind: "notification", message: { jsonrpc: "2.0", method, params } } as Classified,
      send,
    );
  }
  return { server, request, notify, entries, sent };
}

Deno.test("McpServer answers initialize with the requested known version, else the latest", async () => {
  const { request, server } = makeServer();
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

Deno.test("McpServer lists only served tools, with strict schemas and kind hints", async () => {
  const { request } = makeServer({ toolsets: ["core"] });
  const r = await request("tools/list");
  assertEquals(r.result.tools.map((t: { name: string }) => t.name), [
    "echo_text",
    "fail_device",
    "buggy_tool",
    "step_progress",
  ]);
  const e = r.result.tools[0];
  assertEquals(e.annotations, {
    title: "Echo",
    readOnlyHint: true,
    destructiveHint: false,
    openWorldHint: false,
  });
  assertEquals(e.inputSchema.additionalProperties, false);
  assertEquals(e.inputSchema.properties.text.description, "Text");
  assertEquals(e.inputSchema.required, ["text"]);
  assertEquals(r.result.tools[1].annotations.readOnlyHint, false);
});

Deno.test("McpServer runs a tool and returns structured content plus text", async () => {
  runs.length = 0;
  const { request, entries } = makeServer();
  const r = await request("tools/call", { name: "echo_text", arguments: { text: "ab", times: 2 } });
  assertEquals(r.result, {
    content: [{ type: "text", text: "abab" }],
    structuredContent: { text: "abab" },
  });
  assertEquals(runs, ["echo"]);
  await new Promise((r) => setTimeout(r, 0));
  assertEquals(entries[0].kind, "tool");
  assertEquals(entries[0].name, "echo_text");
  assertEquals(entries[0].status, "ok");
});

Deno.test("McpServer refuses bad arguments as invalid_params results and runs nothing", async () => {
  runs.length = 0;
  const { request, entries } = makeServer();
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

Deno.test("McpServer maps ToolErrors to isError results with their code and data", async () => {
  const { request } = makeServer();
  const r = await request("tools/call", { name: "fail_device", arguments: {} });
  assertEquals(r.result.isError, true);
  assertEquals(r.result.structuredContent.error, {
    serial: "emulator-5554",
    code: "device_offline",
    message: "Device emulator-5554 is offline: reconnect it",
  });
});

Deno.test("McpServer refuses project tools without a project, before running them", async () => {
  runs.length = 0;
  const { request } = makeServer({ hasProject: false });
  const r = await request("tools/call", { name: "fail_device", arguments: {} });
  assertEquals(r.result.structuredContent.error.code, "invalid_params");
  assertStringIncludes(r.result.content[0].text, "--project");
  assertEquals(runs, []);
});

Deno.test("McpServer answers hidden and unknown tools with -32602", async () => {
  const { request } = makeServer({ toolsets: ["core"] });
  const hidden = await request("tools/call", { name: "slow_wait", arguments: {} });
  assertEquals(hidden.error.code, -32602);
  assertStringIncludes(hidden.error.message, `"ui" toolset`);
  const unknown = await request("tools/call", { name: "echo_txt", arguments: {} });
  assertEquals(unknown.error.code, -32602);
  assertStringIncludes(unknown.error.message, "did you mean echo_text");
  const method = await request("tools/nope");
  assertEquals(method.error.code, -32601);
});

Deno.test("McpServer turns its own bugs into JSON-RPC internal errors", async () => {
  const { request } = makeServer();
  const r = await request("tools/call", { name: "buggy_tool", arguments: {} });
  assertEquals(r.error.code, -32603);
  assertStringIncludes(r.error.message, "oops");
});

Deno.test("notifications/cancelled aborts the request it names", async () => {
  const { request, notify } = makeServer();
  const pending = request("tools/call", { name: "slow_wait", arguments: {} });
  notify("notifications/cancelled", { requestId: 1 });
  const r = await pending;
  assertEquals(r.result.structuredContent.error.code, "cancelled");
});

Deno.test("prompts are served only when every tool they name is served", async () => {
  const { request } = makeServer({ toolsets: ["core"] });
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
  const { request, sent } = makeServer();
  await request("initialize", { clientInfo: { name: "claude-code" } });
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
