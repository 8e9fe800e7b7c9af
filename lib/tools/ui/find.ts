/**
 * Finding nodes on the current screen: `find_ui_elements` (by selector) and `find_ui_parent` (the
 * node around a handle or tree path). Thin adapters over the UI worker (`ctx.ui`).
 */
import { z } from "zod";
import { ToolError } from "../../core/errors.ts";
import { defineTool } from "../define_tool.ts";
import { deviceFor } from "../device_args.ts";
import { expectHashParam, selectorParam, serialParam, targetParam } from "../params.ts";
import { matchData, matchLine } from "./render.ts";
import { DEFAULT_FIND_RESULTS, MAX_FIND_RESULTS } from "../../ui/shared/selector_rules.ts";

const findUiElements = defineTool({
  name: "find_ui_elements",
  toolset: "ui",
  kind: "R",
  description:
    "Find nodes on the current screen by selector; returns each match with its tree path " +
    "and handle.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    limit: z.number().int().min(1).max(MAX_FIND_RESULTS).optional().describe(
      `Matches (default ${DEFAULT_FIND_RESULTS})`,
    ),
  },
  async run(args, ctx) {
    const selector = args.selector;
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await ctx.ui.find({ serial, selector, limit: args.limit }, { signal: ctx.signal });
    const lines = [
      `screen: ${r.screenHash}  matches: ${r.total}` +
      (r.matches.length < r.total ? ` (showing ${r.matches.length})` : ""),
      ...r.matches.map(matchLine),
    ];
    if (r.total === 0) lines.push("Nothing on this screen matches; check get_ui_hierarchy.");
    return {
      structured: {
        serial,
        screen_hash: r.screenHash,
        total: r.total,
        matches: r.matches.map(matchData),
      },
      text: lines.join("\n"),
    };
  },
});

const findUiParent = defineTool({
  name: "find_ui_parent",
  toolset: "ui",
  kind: "R",
  description:
    "The parent of a handle or tree path on the current screen, such as the clickable row " +
    "around a label.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam,
    expect_screen_hash: expectHashParam,
  },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    const opts = { signal: ctx.signal };
    const child = await ctx.ui.resolve(
      { serial, target: args.tree_path, expectScreenHash: args.expect_screen_hash },
      opts,
    );
    if (child.node.parentPath === null) {
      throw new ToolError(
        "not_found",
        `${args.tree_path} is the root of the screen and has no parent: pick a node inside it`,
        { tree_path: child.node.path },
      );
    }
    const parent = await ctx.ui.resolve(
      { serial, target: child.node.parentPath, expectScreenHash: child.screenHash },
      opts,
    );
    return {
      structured: {
        serial,
        screen_hash: parent.screenHash,
        child: matchData(child.node),
        parent: matchData(parent.node),
      },
      text: `parent of ${args.tree_path} (path ${child.node.path}):\n${matchLine(parent.node)}`,
    };
  },
});

export const findTools = [findUiElements, findUiParent];
