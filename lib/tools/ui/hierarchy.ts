/**
 * The UI reading tools: the element list (default), the tree and the XML, searches, a node's
 * parent, what changed since the last list, waits, assertions and `screenshot`. Thin adapters
 * over the UI worker (`ctx.ui`); every argument is validated before any device command.
 * The shared helpers here (selector checks, list rendering) serve ui_act.ts too.
 */
import { z } from "zod";
import { defineTool } from "../../mcp/tool_def.ts";
import { invalidParams, ToolError } from "../../core/errors.ts";
import type { ElementList, ElementRow } from "../../ui/element_list.ts";
import type { Match } from "../../ui/protocol.ts";
import {
  DEFAULT_FIND_RESULTS,
  MAX_FIND_RESULTS,
  type UiSelector,
  validateSelector,
} from "../../ui/selector_rules.ts";
import { shortClass, shortResourceId } from "../../ui/names.ts";
import {
  DEFAULT_COMPARE_RESULTS,
  DEFAULT_MAX_DIMENSION,
  DEFAULT_WAIT_TIMEOUT_MS,
  MAX_COMPARE_RESULTS,
  MAX_MAX_DIMENSION,
  MAX_ROWS,
  MAX_WAIT_TIMEOUT_MS,
} from "../../ui/limits.ts";
import { SMALL_FRAME_DIMENSION } from "../../emulator/frames.ts";
import {
  DEFAULT_JPEG_QUALITY,
  MAX_JPEG_QUALITY,
  MIN_JPEG_QUALITY,
} from "../../ui/fast_path_limits.ts";
import { pathFields } from "./paths.ts";
import type { ToolContext } from "../context.ts";
import { deviceFor } from "../device_args.ts";
import {
  expectHashParam,
  maxRowsParam,
  selectorParam,
  serialParam,
  targetParam,
  timeoutParam,
} from "../params.ts";

/** `get_ui_hierarchy format: "tree"`: nodes shown by default and at most. */
export const DEFAULT_TREE_NODES = 500;
export const MAX_TREE_NODES_SHOWN = 5_000;
/** `compare_ui_state`: changes listed by default (spec) and at most. */
export { DEFAULT_COMPARE_RESULTS, MAX_COMPARE_RESULTS };
/** `ui_wait_for_idle` and `ui_assert_element` default wait (spec). */
export const DEFAULT_IDLE_TIMEOUT_MS = 5_000;
export const DEFAULT_ASSERT_TIMEOUT_MS = 5_000;

/** The selector from a call, checked (invalid_params) before anything runs. */
export function selectorOf(value: unknown): UiSelector {
  return validateSelector(value);
}

export function rowData(r: ElementRow) {
  return {
    handle: r.handle,
    class: r.className,
    label: r.label,
    hint: r.hint,
    editable: r.editable,
    resource_id: r.resourceId,
    x: r.x,
    y: r.y,
    width: r.width,
    height: r.height,
    flags: r.flags,
    tree_path: r.path,
  };
}

export function screenData(list: ElementList) {
  return {
    package: list.package,
    activity: list.activity,
    screen_hash: list.screenHash,
    total: list.total,
    keyboard: list.keyboard,
    windows: list.windows,
    loading: list.loading,
    rotation: list.rotation,
  };
}

/** Structured form of a list: the header fields and the rows. */
export function listData(list: ElementList, rows: readonly ElementRow[] = list.rows) {
  return { screen: screenData(list), elements: rows.map(rowData) };
}

export function matchData(m: Match) {
  return {
    handle: m.handle,
    tree_path: m.path,
    parent_path: m.parentPath,
    class: m.className,
    text: m.text,
    content_desc: m.contentDesc,
    hint: m.hint,
    resource_id: m.resourceId,
    package: m.packageName,
    bounds: m.bounds,
    x: m.x,
    y: m.y,
    clickable: m.clickable,
    long_clickable: m.longClickable,
    enabled: m.enabled,
    checkable: m.checkable,
    checked: m.checked,
    focused: m.focused,
    scrollable: m.scrollable,
    selected: m.selected,
    editable: m.editable,
    child_count: m.childCount,
  };
}

/** One line per match, like a list row, with its tree path. */
export function matchLine(m: Match): string {
  // A field's text is its value; its hint is shown apart (newer Androids repeat it in text).
  const showsHint = m.editable && m.hint !== "" && (m.text === "" || m.text === m.hint);
  const value = showsHint ? "" : m.text;
  const label = m.editable ? value : m.text || m.contentDesc;
  const hint = showsHint ? ` hint ${JSON.stringify(m.hint)}` : "";
  const flags = [
    m.clickable ? "click" : null,
    m.longClickable ? "long" : null,
    m.editable ? "edit" : null,
    m.scrollable ? "scroll" : null,
    m.checkable ? (m.checked ? "checked" : "unchecked") : null,
    m.focused ? "focused" : null,
    m.enabled ? null : "disabled",
  ].filter((f) => f !== null);
  const id = m.resourceId ? ` #${shortResourceId(m.resourceId)}` : "";
  const w = m.bounds.right - m.bounds.left, h = m.bounds.bottom - m.bounds.top;
  return `${m.handle ? `[${m.handle}] ` : ""}${shortClass(m.className)}` +
    `${label || m.editable ? ` ${JSON.stringify(label)}` : ""}${hint}${id} @(${m.x},${m.y}) ` +
    `${w}x${h}` +
    `${flags.length ? ` ${flags.join(",")}` : ""} path=${m.path}`;
}

/** Base64 of `bytes` (chunked so large images do not overflow the argument list). */
export function encodeBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function progressOf(ctx: ToolContext) {
  return (p: number, total: number | undefined, msg: string | undefined) =>
    ctx.request.progress(p, total, msg);
}

const getUiHierarchy = defineTool({
  name: "get_ui_hierarchy",
  toolset: "ui",
  kind: "R",
  title: "Read the screen",
  description: "The screen as a compact element list: a header (package, activity, keyboard, " +
    'loading, screen hash), then [handle] Class "label" #id @(x,y) WxH flags per element (@: ' +
    'where a tap lands; fields: "value" hint "…"). Act by handle (e7). format: tree or xml.',
  params: {
    device_serial: serialParam,
    format: z.enum(["elements", "tree", "xml"]).optional().describe(
      "elements (default), tree, or xml",
    ),
    max_rows: maxRowsParam,
    max_nodes: z.number().int().min(1).max(MAX_TREE_NODES_SHOWN).optional().describe(
      `format tree: nodes to show (default ${DEFAULT_TREE_NODES}, max ${MAX_TREE_NODES_SHOWN})`,
    ),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const format = args.format ?? "elements";
    if (format !== "tree" && args.max_nodes !== undefined) {
      throw invalidParams('max_nodes applies to format: "tree" only; leave it out or ask for tree');
    }
    if (format !== "elements" && args.max_rows !== undefined) {
      throw invalidParams('max_rows applies to format: "elements" only; use max_nodes for tree');
    }
    const serial = await deviceFor(ctx, args.device_serial);
    const opts = { signal: ctx.signal };
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
  title: "List clickable elements",
  description: "Only the rows of the element list that can be tapped, long-pressed, checked or " +
    "typed into, with their handles.",
  params: { device_serial: serialParam, max_rows: maxRowsParam },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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

const findUiElements = defineTool({
  name: "find_ui_elements",
  toolset: "ui",
  kind: "R",
  title: "Find elements",
  description: "Nodes of the current screen matching a selector (text, text_contains, " +
    "content_desc, resource_id, class, … and state keys), with tree paths and handles.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    limit: z.number().int().min(1).max(MAX_FIND_RESULTS).optional().describe(
      `Results (default ${DEFAULT_FIND_RESULTS}, max ${MAX_FIND_RESULTS})`,
    ),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const selector = selectorOf(args.selector);
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
  title: "Find an element's parent",
  description: "The parent node of a handle or tree path on the current screen (for example the " +
    "clickable row around a label).",
  params: {
    device_serial: serialParam,
    tree_path: targetParam,
    expect_screen_hash: expectHashParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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

const compareUiState = defineTool({
  name: "compare_ui_state",
  toolset: "ui",
  kind: "R",
  title: "What changed on screen",
  description: "Reads the screen and lists what was added, removed or changed since the last " +
    "element list a tool returned for this device.",
  params: {
    device_serial: serialParam,
    limit: z.number().int().min(1).max(MAX_COMPARE_RESULTS).optional().describe(
      `Changes listed per kind (default ${DEFAULT_COMPARE_RESULTS}, max ${MAX_COMPARE_RESULTS})`,
    ),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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

async function waitFor(
  ctx: ToolContext,
  args: { device_serial?: string; selector: unknown; timeout_ms?: number; gone?: boolean },
  def: number,
) {
  const selector = selectorOf(args.selector);
  const serial = await deviceFor(ctx, args.device_serial);
  const r = await ctx.ui.wait(
    { serial, selector, timeoutMs: args.timeout_ms ?? def, gone: args.gone ?? false },
    { signal: ctx.signal, onProgress: progressOf(ctx) },
  );
  return { serial, r };
}

const waitForElement = defineTool({
  name: "wait_for_element",
  toolset: "ui",
  kind: "R",
  title: "Wait for an element",
  description: "Reads the screen repeatedly until a selector matches (or with gone: true, until " +
    "nothing matches). Reports progress; stops when the request is cancelled.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    timeout_ms: timeoutParam(DEFAULT_WAIT_TIMEOUT_MS),
    gone: z.boolean().optional().describe("Wait until nothing matches instead"),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const { serial, r } = await waitFor(ctx, args, DEFAULT_WAIT_TIMEOUT_MS);
    if (!r.met) {
      throw new ToolError(
        "timeout",
        `${args.gone ? "Still on screen" : "Not on screen"} after ${r.elapsedMs} ms ` +
          `(${r.captures} captures): read the screen with get_ui_hierarchy, or wait longer ` +
          `(timeout_ms up to ${MAX_WAIT_TIMEOUT_MS})`,
        {
          elapsed_ms: r.elapsedMs,
          captures: r.captures,
          screen_hash: r.screenHash,
          total: r.total,
        },
      );
    }
    return {
      structured: {
        serial,
        met: true,
        elapsed_ms: r.elapsedMs,
        captures: r.captures,
        screen_hash: r.screenHash,
        total: r.total,
        matches: r.matches.map(matchData),
      },
      text: [
        `${args.gone ? "Gone" : "Found"} after ${r.elapsedMs} ms (screen ${r.screenHash})`,
        ...r.matches.map(matchLine),
      ].join("\n"),
    };
  },
});

const uiWaitForIdle = defineTool({
  name: "ui_wait_for_idle",
  toolset: "ui",
  kind: "R",
  title: "Wait for the screen to settle",
  description: "Waits until the screen stops changing and no spinner or progress bar is shown, " +
    "then returns the element list.",
  params: {
    device_serial: serialParam,
    timeout_ms: timeoutParam(DEFAULT_IDLE_TIMEOUT_MS),
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const serial = await deviceFor(ctx, args.device_serial);
    const maxMs = args.timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS;
    const r = await ctx.ui.settle(
      {
        serial,
        baseline: "none",
        maxRows: args.max_rows,
        options: { maxMs, loadingWaitMs: maxMs },
      },
      { signal: ctx.signal },
    );
    const idle = r.settled && !r.list.loading;
    return {
      structured: {
        serial,
        idle,
        settle_ms: r.settleMs,
        reason: r.reason,
        ...listData(r.list),
      },
      text: `${
        idle ? "Idle" : r.list.loading ? "Still loading" : "Still changing"
      } after ${r.settleMs} ms\n${r.text}`,
    };
  },
});

const uiAssertElement = defineTool({
  name: "ui_assert_element",
  toolset: "ui",
  kind: "R",
  title: "Assert an element",
  description: "Passes when a selector matches on screen (exists: false — when nothing matches) " +
    "within timeout_ms; otherwise a tool error saying what is there instead.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    exists: z.boolean().optional().describe("Expect a match (default true) or none (false)"),
    timeout_ms: timeoutParam(DEFAULT_ASSERT_TIMEOUT_MS),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const exists = args.exists ?? true;
    const { serial, r } = await waitFor(
      ctx,
      { ...args, gone: !exists },
      DEFAULT_ASSERT_TIMEOUT_MS,
    );
    if (!r.met) {
      throw new ToolError(
        "not_found",
        `Assertion failed: ${exists ? "no element matches" : `${r.total} element(s) still match`} ${
          JSON.stringify(args.selector)
        } after ${r.elapsedMs} ms on screen ${r.screenHash}; ` +
          "read the screen with get_ui_hierarchy to see what is there",
        {
          screen_hash: r.screenHash,
          total: r.total,
          matches: r.matches.slice(0, 5).map(matchData),
        },
      );
    }
    return {
      structured: { serial, passed: true, screen_hash: r.screenHash, total: r.total },
      text: `Assertion passed: ${exists ? `${r.total} match(es)` : "nothing matches"} on screen ` +
        r.screenHash,
    };
  },
});

const screenshot = defineTool({
  name: "screenshot",
  toolset: "ui",
  kind: "R",
  title: "Screenshot",
  description: "A PNG (or JPEG) of the screen, long edge at most max_dimension (default " +
    `${DEFAULT_MAX_DIMENSION}; ${SMALL_FRAME_DIMENSION} for a cheap look): an emulator's gRPC ` +
    "frame, else screencap (path says which). Multiply image coordinates by scale for device " +
    "pixels, or tap by handle with ui_tap_element.",
  params: {
    device_serial: serialParam,
    max_dimension: z.number().int().optional().describe(
      `Long edge in pixels (default ${DEFAULT_MAX_DIMENSION}, ${SMALL_FRAME_DIMENSION}–` +
        `${MAX_MAX_DIMENSION}); not with full_size`,
    ),
    full_size: z.boolean().optional().describe("The capture as the device sent it"),
    format: z.enum(["png", "jpeg"]).optional().describe(
      "png (default: exact pixels, text stays sharp) or jpeg (smaller bytes, same pixel count)",
    ),
    quality: z.number().int().min(MIN_JPEG_QUALITY).max(MAX_JPEG_QUALITY).optional().describe(
      `JPEG quality (default ${DEFAULT_JPEG_QUALITY}, ${MIN_JPEG_QUALITY}–${MAX_JPEG_QUALITY}); ` +
        "only with format jpeg",
    ),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    if (args.max_dimension !== undefined && args.full_size !== undefined) {
      throw invalidParams("Pass max_dimension or full_size, not both");
    }
    if (args.quality !== undefined && args.format !== "jpeg") {
      throw invalidParams('quality is for format: "jpeg"; PNG is lossless');
    }
    const md = args.max_dimension;
    if (md !== undefined && (md < SMALL_FRAME_DIMENSION || md > MAX_MAX_DIMENSION)) {
      throw invalidParams(
        `Invalid max_dimension ${md}: it must be from ${SMALL_FRAME_DIMENSION} to ` +
          `${MAX_MAX_DIMENSION}`,
      );
    }
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await ctx.ui.screenshot(
      {
        serial,
        maxDimension: md,
        fullSize: args.full_size ?? false,
        format: args.format ?? "png",
        quality: args.quality,
      },
      { signal: ctx.signal },
    );
    const info = {
      deviceWidth: r.deviceWidth,
      deviceHeight: r.deviceHeight,
      imageWidth: r.imageWidth,
      imageHeight: r.imageHeight,
      scale: r.scale,
      rotation: r.rotation,
      path: r.path,
      hint: r.scale === 1
        ? "Image pixels are device pixels; prefer ui_tap_element with a handle or tree path"
        : `Multiply image coordinates by scale (${r.scale}) for device pixels, or use ` +
          "ui_tap_element with a handle or tree path",
    };
    return {
      content: [{ type: "image", data: encodeBase64(r.image), mimeType: r.mimeType }],
      structured: {
        serial,
        ...info,
        ...pathFields(r),
        format: r.mimeType === "image/jpeg" ? "jpeg" : "png",
        bytes: r.image.length,
        original: r.original,
      },
      text: JSON.stringify({ ...info, ...(r.fallback ? { fallback: r.fallback.reason } : {}) }),
    };
  },
});

export const uiReadTools = {
  getUiHierarchy,
  listClickableElements,
  findUiElements,
  findUiParent,
  compareUiState,
  waitForElement,
  uiWaitForIdle,
  uiAssertElement,
  screenshot,
};
