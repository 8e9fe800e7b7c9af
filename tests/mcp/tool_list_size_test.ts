/**
 * The tool list stays affordable: in every toolset mode `tools/list` is within the budget of its
 * toolsets (lib/mcp/tool_list_size.ts), and what a session sends is what this measures.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { TOOLS } from "../../lib/tools/registry.ts";
import {
  toolListBudget,
  toolListFloor,
  toolListSize,
  toolsetModes,
  withoutText,
} from "../../lib/mcp/tool_list_size.ts";
import { McpSessionHandlers } from "../../lib/mcp/server.ts";
import { TOOLSETS } from "../../lib/mcp/tool_def.ts";

Deno.test("tools/list: every toolset mode is within its byte budget", () => {
  const modes = toolsetModes();
  assertEquals(modes.length, 2 ** TOOLSETS.length - 1);
  const over: string[] = [];
  for (const sets of modes) {
    const s = toolListSize(TOOLS, sets);
    assert(s.tools > 0, `${sets.join(",")} serves tools`);
    const budget = toolListBudget(sets);
    if (s.bytes > budget) {
      over.push(`${sets.join(",")}: ${s.bytes} bytes > ${budget} (${s.tools} tools)`);
    }
  }
  assertEquals(over, [], "tools/list grew past its budget (lib/mcp/tool_list_size.ts)");
});

function session(sets: readonly (typeof TOOLSETS)[number][]) {
  return new McpSessionHandlers({
    version: "0",
    title: "t",
    instructions: "",
    tools: TOOLS,
    enabledToolsets: sets,
    hasProject: false,
    makeContext: () => ({}),
    resources: { list: () => Promise.resolve([]), read: () => Promise.reject(new Error("none")) },
    prompts: [],
  });
}

/** The `tools/list` result of a session serving `sets`, as JSON text. */
function listed(sets: readonly (typeof TOOLSETS)[number][]): string {
  return JSON.stringify(session(sets).listTools({}));
}

Deno.test("tools/list: the measure is the list a session sends", () => {
  for (const sets of toolsetModes()) {
    const bytes = new TextEncoder().encode(listed(sets)).length;
    assertEquals(bytes, toolListSize(TOOLS, sets).bytes, sets.join(","));
  }
});

Deno.test("tools/list: no ±(2^53 − 1) integer bounds and no $ref for a client to resolve", () => {
  const json = listed(TOOLSETS);
  assert(!json.includes(String(Number.MAX_SAFE_INTEGER)), "no 2^53 − 1 bound is listed");
  assert(!json.includes("$ref") && !json.includes("$defs"), "no references to resolve");
  // Bounds a tool sets are still listed (max_rows: 1..MAX_ROWS).
  assert(/"max_rows":\{[^}]*"maximum":\d+/.test(json), "a tool's own bound is kept");
});

Deno.test("tools/list: no titles and no additionalProperties; unknown keys are still refused", async () => {
  const json = listed(TOOLSETS);
  assert(!json.includes("additionalProperties"), "no additionalProperties is listed");
  for (const t of JSON.parse(json).tools) assertEquals(t.title, undefined, t.name);
  // The refusal the schema no longer advertises: at the top level (the server, naming the closest
  // parameter) and inside the strict objects (the selector, a drag's waypoints), before any run.
  const h = session(TOOLSETS);
  const meta = { signal: new AbortController().signal, notify: () => {} };
  const cases: [string, Record<string, unknown>, string][] = [
    ["get_device_info", { device_serail: "emulator-5554" }, `did you mean "device_serial"?`],
    [
      "find_ui_elements",
      { selector: { text: "OK", txt: "a" } },
      `selector: Unrecognized key: "txt"`,
    ],
    ["ui_drag", {
      start_x: 1,
      start_y: 1,
      end_x: 2,
      end_y: 2,
      waypoints: [{ x: 1, y: 2, z: 3 }],
    }, `waypoints.0: Unrecognized key: "z"`],
  ];
  for (const [name, args, says] of cases) {
    const r = await h.callTool({ name, arguments: args }, meta);
    assertEquals(r.isError, true, name);
    assertEquals((r.structuredContent?.error as { code: string }).code, "invalid_params", name);
    const text = r.content[0].type === "text" ? r.content[0].text : "";
    assertStringIncludes(text, says);
  }
});

Deno.test("tools/list: the structure floor is the same list without any description", () => {
  for (const sets of toolsetModes()) {
    const floor = toolListFloor(TOOLS, sets);
    assertEquals(floor.tools, toolListSize(TOOLS, sets).tools);
    assert(floor.bytes < toolListSize(TOOLS, sets).bytes, sets.join(","));
  }
  const tools = withoutText(JSON.parse(listed(TOOLSETS)).tools) as {
    name: string;
    inputSchema: { properties: Record<string, unknown> };
  }[];
  assert(!JSON.stringify(tools).includes('"description"'), "no text left");
  assertEquals(
    tools.map((t) => [t.name, Object.keys(t.inputSchema.properties)]),
    TOOLS.map((t) => [t.name, Object.keys(t.params)]),
    "every tool and parameter is still there",
  );
  assertEquals(
    new TextEncoder().encode(JSON.stringify({ tools })).length,
    toolListFloor(TOOLS, TOOLSETS).bytes,
  );
  // Blanked, every tool and parameter keeps a description, and every one is empty.
  const blank = JSON.stringify(withoutText(JSON.parse(listed(TOOLSETS)).tools, true));
  const params = TOOLS.reduce((n, t) => n + Object.keys(t.params).length, 0);
  assertEquals(blank.split('"description":""').length - 1, TOOLS.length + params);
  assertEquals(blank.split('"description":').length - 1, TOOLS.length + params);
});

Deno.test("tools/list: every number a tool bounds says its bound, in the schema or in words", () => {
  // Ids, sequence numbers and coordinates have no upper bound a model could exceed usefully.
  const unbounded = /(^|_)(id|seq)$|^(x|y|start_x|start_y|end_x|end_y)$/;
  const missing: string[] = [];
  for (const t of JSON.parse(listed(TOOLSETS)).tools) {
    const props = t.inputSchema.properties as Record<
      string,
      { type?: string; maximum?: number; description?: string }
    >;
    for (const [key, p] of Object.entries(props)) {
      if (p.type !== "integer" && p.type !== "number") continue;
      if (p.maximum !== undefined || unbounded.test(key)) continue;
      if (!/max \d|\d–\d/.test(p.description ?? "")) missing.push(`${t.name}.${key}`);
    }
  }
  assertEquals(missing, []);
});
