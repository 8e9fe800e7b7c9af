/**
 * Reading the screen: `get_ui_hierarchy` (the element list by default, the tree, the XML),
 * `list_clickable_elements`, `compare_ui_state`. Thin adapters over the UI worker (`ctx.ui`);
 * every argument is validated before any device command.
 */
import { z } from "zod";
import { defineTool } from "../define_tool.ts";
import { invalidParams } from "../../core/errors.ts";
import {
  DEFAULT_COMPARE_RESULTS,
  DEFAULT_LOOK_DIMENSION,
  MAX_COMPARE_RESULTS,
  MAX_MAX_DIMENSION,
  MAX_ROWS,
} from "../../ui/shared/limits.ts";
import { SMALL_FRAME_DIMENSION } from "../../emulator/shared/limits.ts";
import { encodeBase64 } from "./screenshot.ts";
import { pathFields } from "./paths.ts";
import { deviceFor } from "../device_args.ts";
import { maxRowsParam, serialParam } from "../params.ts";
import { listData, matchData, matchLine, rowData } from "./render.ts";

/** `get_ui_hierarchy format: "tree"`: nodes shown by default and at most. */
const DEFAULT_TREE_NODES = 500;
const MAX_TREE_NODES_SHOWN = 5_000;
/** `compare_ui_state`: changes listed by default (spec) and at most. */

const getUiHierarchy = defineTool({
  name: "get_ui_hierarchy",
  toolset: "ui",
  kind: "R",
  description:
    "Read the screen: a header (package, activity, keyboard, loading, screen hash), then " +
    'per element [handle] Class "label" #id @(tap x,y) WxH flags. Act by handle (e7).',
  params: {
    device_serial: serialParam,
    format: z.enum(["elements", "tree", "xml"]).optional().describe(
      "Default elements",
    ),
    max_rows: maxRowsParam,
    max_nodes: z.number().int().min(1).max(MAX_TREE_NODES_SHOWN).optional().describe(
      `Tree nodes shown (default ${DEFAULT_TREE_NODES})`,
    ),
    screenshot: z.boolean().optional().describe("Also a JPEG of this moment"),
    max_dimension: z.number().int().min(SMALL_FRAME_DIMENSION).max(MAX_MAX_DIMENSION).optional()
      .describe(`Default ${DEFAULT_LOOK_DIMENSION}`),
  },
  async run(args, ctx) {
    const format = args.format ?? "elements";
    if (args.screenshot && format !== "elements") {
      throw invalidParams('screenshot applies to format: "elements" only; leave format out');
    }
    if (args.max_dimension !== undefined && !args.screenshot) {
      throw invalidParams("max_dimension sizes the screenshot: pass screenshot: true with it");
    }
    if (format !== "tree" && args.max_nodes !== undefined) {
      throw invalidParams('max_nodes applies to format: "tree" only; leave it out or ask for tree');
    }
    if (format !== "elements" && args.max_rows !== undefined) {
      throw invalidParams('max_rows applies to format: "elements" only; use max_nodes for tree');
    }
    const serial = await deviceFor(ctx, args.device_serial);
    const opts = { signal: ctx.signal };
    if (format === "elements" && args.screenshot) {
      const r = await ctx.ui.look(
        { serial, maxRows: args.max_rows, maxDimension: args.max_dimension },
        opts,
      );
      const img = r.image;
      const picture = {
        screen_hash: r.list.screenHash,
        still: r.still,
        format: img.mimeType === "image/jpeg" ? "jpeg" : "png",
        bytes: img.image.length,
        imageWidth: img.imageWidth,
        imageHeight: img.imageHeight,
        scale: img.scale,
        ...pathFields(img),
      };
      const moved = r.still === false
        ? "\n(the screen moved during this look: the picture may not match every row)"
        : "";
      return {
        content: [{ type: "image", data: encodeBase64(img.image), mimeType: img.mimeType }],
        structured: { serial, ...listData(r.list), screenshot: picture },
        text: `${r.text}\npicture: ${img.imageWidth}x${img.imageHeight} ${picture.format}, ` +
          `screen ${r.list.screenHash}, image px × ${img.scale} = device px${moved}`,
      };
    }
    if (format === "elements") {
      const r = await ctx.ui.observe({ serial, maxRows: args.max_rows }, opts);
      return { structured: { serial, ...listData(r.list) }, text: r.text };
    }
    if (format === "xml") {
      const t = await ctx.ui.tree({ serial, maxNodes: 1, xml: true }, opts);
      const xml = t.xml ?? "";
      return {
        structured: { serial, screen_hash: t.screenHash, xml_chars: xml.length, nodes: t.total },
        text: xml,
      };
    }
    const t = await ctx.ui.tree(
      { serial, maxNodes: args.max_nodes ?? DEFAULT_TREE_NODES },
      opts,
    );
    const lines = [
      `screen: ${t.screenHash}  ${t.width}x${t.height}  rotation: ${t.rotation}  nodes: ${t.total}` +
      (t.nodes.length < t.total ? ` (showing ${t.nodes.length}: raise max_nodes)` : ""),
      ...t.nodes.map((n) =>
        "  ".repeat(n.path.split(".").length - 1) + matchLine({ ...n, handle: null })
      ),
    ];
    return {
      structured: {
        serial,
        screen_hash: t.screenHash,
        width: t.width,
        height: t.height,
        rotation: t.rotation,
        total: t.total,
        nodes: t.nodes.map((n) => matchData({ ...n, handle: null })),
      },
      text: lines.join("\n"),
    };
  },
});

const CLICKABLE_FLAGS = new Set(["click", "long", "edit", "checked", "unchecked", "ime-action"]);

const listClickableElements = defineTool({
  name: "list_clickable_elements",
  toolset: "ui",
  kind: "R",
  description:
    "Only the element rows that can be tapped, long-pressed, checked or typed into, with " +
    "their handles.",
  params: { device_serial: serialParam, max_rows: maxRowsParam },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await ctx.ui.observe({ serial, maxRows: args.max_rows }, { signal: ctx.signal });
    const rows = r.list.rows.filter((row) => row.flags.some((f) => CLICKABLE_FLAGS.has(f)));
    const header = r.text.split("\n")[0];
    const text = [
      header,
      ...r.text.split("\n").slice(1).filter((line) => {
        const h = /^\[(e\d+)\]/.exec(line)?.[1];
        return h !== undefined && rows.some((row) => row.handle === h);
      }),
    ];
    if (rows.length === 0) text.push("No clickable elements on this screen.");
    return {
      structured: { serial, ...listData(r.list, rows), count: rows.length },
      text: text.join("\n"),
    };
  },
});

const compareUiState = defineTool({
  name: "compare_ui_state",
  toolset: "ui",
  kind: "R",
  description: "What was added, removed or changed on screen since the last element list a tool " +
    "returned for this device.",
  params: {
    device_serial: serialParam,
    limit: z.number().int().min(1).max(MAX_COMPARE_RESULTS).optional().describe(
      `Changes per kind (default ${DEFAULT_COMPARE_RESULTS})`,
    ),
  },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    const now = await ctx.ui.compare(
      { serial, maxRows: MAX_ROWS, limit: args.limit ?? DEFAULT_COMPARE_RESULTS },
      { signal: ctx.signal },
    );
    const d = now.diff;
    if (!d || now.beforeScreenHash === null) {
      return {
        structured: { serial, baseline: true, ...listData(now.list) },
        text: "No earlier element list of this device to compare with; this one is the " +
          `baseline:\n${now.text}`,
      };
    }
    const before = { screenHash: now.beforeScreenHash };
    const lines = [
      `screen ${before.screenHash} -> ${now.list.screenHash}${d.sameScreen ? " (unchanged)" : ""}` +
      `  added: ${d.totals.added}  removed: ${d.totals.removed}  changed: ${d.totals.changed}`,
      ...d.added.map((r) => `+ [${r.handle}] ${r.className} ${JSON.stringify(r.label)}`),
      ...d.removed.map((r) => `- ${r.className} ${JSON.stringify(r.label)}`),
      ...d.changed.map((c) =>
        `~ [${c.row.handle}] ${c.row.className} ${JSON.stringify(c.row.label)}: ${
          c.what.join("; ")
        }`
      ),
    ];
    return {
      structured: {
        serial,
        baseline: false,
        before_screen_hash: before.screenHash,
        screen_hash: now.list.screenHash,
        same_screen: d.sameScreen,
        totals: d.totals,
        added: d.added.map(rowData),
        removed: d.removed.map((r) => ({
          class: r.className,
          label: r.label,
          resource_id: r.resourceId,
        })),
        changed: d.changed.map((c) => ({ ...rowData(c.row), what: c.what })),
      },
      text: lines.join("\n"),
    };
  },
});

export const hierarchyTools = [getUiHierarchy, listClickableElements, compareUiState];
