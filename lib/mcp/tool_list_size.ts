/**
 * What `tools/list` costs a client, in bytes of its JSON result, for each toolset mode a server
 * can be started in (`--toolsets` with any non-empty set of toolsets): a client pays for it in
 * every conversation.
 */
import type { AnyTool } from "./server.ts";
import { toolListing } from "./server.ts";
import { type ToolsetName, TOOLSETS } from "./tool_def.ts";

/**
 * Issue 12's goal: the whole list at most 25,000 bytes and 400 bytes per tool on average. NOT
 * reached (see docs/MCP_SERVER.md "Tool list size"): with every parameter described, each tool
 * costs about 175 bytes of fixed JSON before its name, title and description, and each of the
 * 201 parameters about 45 bytes before its description. The bench reports the gap.
 */
export const TOOL_LIST_GOAL_BYTES = 25_000;
export const TOOL_LIST_GOAL_AVERAGE_BYTES = 400;

/**
 * What each toolset's part of the list may cost, in bytes: a ceiling a little above today's size,
 * so a test fails when descriptions or parameters grow back. A mode serving several toolsets may
 * cost at most the sum of theirs.
 */
export const TOOLSET_LIST_BUDGET_BYTES: Readonly<Record<ToolsetName, number>> = {
  core: 16_800,
  ui: 21_700,
  "device-admin": 8_200,
};

/** The budget of a mode serving `toolsets`. */
export function toolListBudget(toolsets: readonly ToolsetName[]): number {
  return toolsets.reduce((sum, t) => sum + TOOLSET_LIST_BUDGET_BYTES[t], 0);
}

/** Every non-empty set of toolsets, each in TOOLSETS order, smallest first. */
export function toolsetModes(): ToolsetName[][] {
  const out: ToolsetName[][] = [];
  for (let mask = 1; mask < 1 << TOOLSETS.length; mask++) {
    out.push(TOOLSETS.filter((_, i) => mask & (1 << i)));
  }
  return out.sort((a, b) => a.length - b.length);
}

export interface ToolListSize {
  toolsets: ToolsetName[];
  tools: number;
  bytes: number;
  /** Bytes per tool, rounded. */
  average: number;
}

const enc = new TextEncoder();

/** The size of the `tools/list` result a server serving `toolsets` answers with. */
export function toolListSize<Ctx>(
  tools: readonly AnyTool<Ctx>[],
  toolsets: readonly ToolsetName[],
): ToolListSize {
  const served = tools.filter((t) => toolsets.includes(t.toolset)).map(toolListing);
  const bytes = enc.encode(JSON.stringify({ tools: served })).length;
  return {
    toolsets: [...toolsets],
    tools: served.length,
    bytes,
    average: served.length ? Math.round(bytes / served.length) : 0,
  };
}
