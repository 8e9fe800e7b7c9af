/**
 * The tool list stays affordable: in every toolset mode `tools/list` is within the budget of its
 * toolsets (lib/mcp/tool_list_size.ts), and what a session sends is what this measures.
 */
import { assert, assertEquals } from "../assert.ts";
import { TOOLS } from "../../lib/tools/registry.ts";
import { toolListBudget, toolListSize, toolsetModes } from "../../lib/mcp/tool_list_size.ts";
import { SessionHandlers } from "../../lib/mcp/server.ts";
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

/** The `tools/list` result of a session serving `sets`, as JSON text. */
function listed(sets: readonly (typeof TOOLSETS)[number][]): string {
  const h = new SessionHandlers({
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
  return JSON.stringify(h.listTools({}));
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
