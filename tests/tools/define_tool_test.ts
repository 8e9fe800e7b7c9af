/**
 * lib/tools/define_tool.ts: a handler's arguments are checked by its params whoever calls it, and
 * parsed once per call — the server's parse (parseToolArgs) marks them, so the tool's own check
 * does not run the validators a second time.
 */
import { z } from "zod";
import { assertEquals, assertRejects } from "../assert.ts";
import { invalidParams, ToolError } from "../../lib/core/errors.ts";
import { parseToolArgs, validated, wereParsed } from "../../lib/mcp/tool_def.ts";
import { defineTool } from "../../lib/tools/define_tool.ts";
import type { ToolContext } from "../../lib/tools/context.ts";

function counted() {
  const seen = { validations: 0, runs: [] as unknown[] };
  const tool = defineTool({
    name: "count_me",
    toolset: "core",
    kind: "R",
    description: "Counts its validations",
    params: {
      word: validated(z.string(), (v) => {
        seen.validations++;
        if (v === "bad") throw invalidParams("word: bad is refused");
        return v.toUpperCase();
      }).describe("A word"),
    },
    run: (args) => {
      seen.runs.push(args);
      return Promise.resolve({ structured: { word: args.word }, text: args.word });
    },
  });
  return { tool, seen };
}

const ctx = {} as ToolContext; // the tool reads nothing of it (not scoped to a package)

Deno.test("arguments the server parsed are not parsed again by the tool", async () => {
  const { tool, seen } = counted();
  const parsed = parseToolArgs(tool.params, { word: "hi" });
  assertEquals(parsed.success, true);
  if (!parsed.success) return;
  assertEquals(wereParsed(parsed.data), true);
  const out = await tool.run(parsed.data as { word: string }, ctx);
  assertEquals(out.text, "HI");
  assertEquals(seen.validations, 1, "one parse per call");
});

Deno.test("a direct call (not through the server) is still checked, once", async () => {
  const { tool, seen } = counted();
  assertEquals(wereParsed({ word: "hi" }), false);
  assertEquals((await tool.run({ word: "hi" }, ctx)).text, "HI");
  assertEquals(seen.validations, 1);
  const e = await assertRejects(() => tool.run({ word: "bad" }, ctx), ToolError);
  assertEquals(e.code, "invalid_params");
  assertEquals(e.message, "word: bad is refused");
  assertEquals(seen.runs.length, 1, "a refused call runs nothing");
});
