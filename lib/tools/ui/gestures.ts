/**
 * Swipes, scrolling and multi-touch: `ui_swipe`, `ui_scroll_until_element`, `ui_pinch` (two
 * fingers around a center) and `ui_drag` (down, hold, path, dwell, up — what a
 * long-press-to-reorder needs). On an emulator pinch and drag go through its gRPC `sendTouch`;
 * elsewhere ui_drag uses `input motionevent` (or `input draganddrop`) and ui_pinch refuses saying
 * why, since ADB's input has one pointer. Adapters over `ctx.ui.act` (lib/ui/act_service.ts, gestures by lib/ui/fast_paths.ts)
 * and the shared act-and-settle step (act.ts).
 */
import { z } from "zod";
import { defineTool } from "../define_tool.ts";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { validateCoordinates } from "../../core/validation.ts";
import type {
  ActAt,
  ActPoint,
  ActResult,
  ActTarget,
  NamedPoint,
} from "../../ui/shared/act_types.ts";
import {
  DEFAULT_DRAG_DWELL_MS,
  DEFAULT_DRAG_HOLD_MS,
  DEFAULT_DRAG_MOVE_MS,
  DEFAULT_PINCH_MS,
  MAX_DRAG_DWELL_MS,
  MAX_DRAG_HOLD_MS,
  MAX_DRAG_MOVE_MS,
  MAX_DRAG_WAYPOINTS,
  MAX_PINCH_MS,
  MAX_PINCH_SCALE,
  MIN_DRAG_MOVE_MS,
  MIN_PINCH_MS,
  MIN_PINCH_SCALE,
} from "../../emulator/shared/limits.ts";
import { deviceFor } from "../device_args.ts";
import {
  expectHashParam,
  maxRowsParam,
  observeAfterParam,
  selectorParam,
  serialParam,
  targetParam,
} from "../params.ts";
import { act, inputPath, named, screenTarget } from "./act.ts";
import { pathNote } from "./paths.ts";
import { listData, matchData, matchLine } from "./render.ts";
import { DEFAULT_SWIPE_MS, MAX_SWIPE_MS, MIN_SWIPE_MS } from "../../ui/shared/gesture_limits.ts";
import type { Bounds } from "../../ui/shared/bounds.ts";

/** `ui_scroll_until_element`: swipes by default and at most (spec). */
const DEFAULT_SCROLL_SWIPES = 10;
const MAX_SCROLL_SWIPES = 25;
/** Share of the scroll area one scroll step drags across. */
const SCROLL_STEP_FRACTION = 0.45;

const uiPinch = defineTool({
  name: "ui_pinch",
  toolset: "ui",
  kind: "W",
  description:
    "Zoom: two fingers apart (scale > 1) or together around an element or point (default: " +
    "screen center); returns the settled screen. Emulators only.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam.optional(),
    x: z.number().int().optional().describe("Center x, device px"),
    y: z.number().int().optional().describe("Center y, device px"),
    scale: z.number().min(MIN_PINCH_SCALE).max(MAX_PINCH_SCALE).describe(
      "End span / start span: 2 zooms in, 0.5 out",
    ),
    duration_ms: z.number().int().min(MIN_PINCH_MS).max(MAX_PINCH_MS).optional().describe(
      `Travel ms (default ${DEFAULT_PINCH_MS})`,
    ),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const byPoint = args.x !== undefined || args.y !== undefined;
    if (byPoint && args.tree_path !== undefined) {
      throw invalidParams("Pass tree_path or x and y for the center, not both");
    }
    if (byPoint) validateCoordinates(args.x, args.y);
    if (args.scale === 1) {
      throw invalidParams("scale 1 moves nothing: pass above 1 to zoom in, below 1 to zoom out");
    }
    const serial = await deviceFor(ctx, args.device_serial);
    const ms = args.duration_ms ?? DEFAULT_PINCH_MS;
    const point = byPoint ? validateCoordinates(args.x, args.y) : null;
    const target: ActTarget = args.tree_path !== undefined
      ? {
        kind: "element",
        target: args.tree_path,
        expectScreenHash: args.expect_screen_hash ?? null,
        requireEnabled: true,
      }
      : { kind: "screen", expectScreenHash: args.expect_screen_hash ?? null };
    const center: ActAt | "screen_center" = point ??
      (args.tree_path !== undefined ? "target" : "screen_center");
    const g = (r: ActResult) => r.gestures[0];
    return await act(ctx, {
      serial,
      target,
      points: point ? [{ ...point, names: ["x", "y"] }] : undefined,
      steps: [{ kind: "gesture", gesture: { kind: "pinch", center, scale: args.scale, ms } }],
      touched: null,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => {
        const c = g(r)?.pinch
          ? {
            x: Math.round((g(r).pinch!.start[0].x + g(r).pinch!.start[1].x) / 2),
            y: g(r).pinch!.start[0].y,
          }
          : point ?? r.at;
        return `Pinched x${g(r)?.pinch?.scale ?? args.scale} around (${c?.x},${c?.y})` +
          pathNote(g(r) ?? null);
      },
      extra: (r) => ({
        ...(r.node && args.tree_path !== undefined ? { element: matchData(r.node) } : {}),
        ...(g(r)?.pinch
          ? {
            center: {
              x: Math.round((g(r).pinch!.start[0].x + g(r).pinch!.start[1].x) / 2),
              y: g(r).pinch!.start[0].y,
            },
            scale: g(r).pinch!.scale,
            start_span_px: g(r).pinch!.startSpan,
            end_span_px: g(r).pinch!.endSpan,
            fingers: { start: g(r).pinch!.start, end: g(r).pinch!.end },
          }
          : {}),
      }),
    });
  },
});

const pointSchema = z.object({ x: z.number().int(), y: z.number().int() }).strict();

const uiDrag = defineTool({
  name: "ui_drag",
  toolset: "ui",
  kind: "W",
  description:
    "Press at the start (element or start_x/start_y), hold, move through waypoints to the " +
    "end, dwell, lift: reorder a list, drag and drop. Returns the settled screen.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam.optional(),
    start_x: z.number().int().optional().describe("Device px"),
    start_y: z.number().int().optional().describe("Device px"),
    end_x: z.number().int().describe("Device px"),
    end_y: z.number().int().describe("Device px"),
    waypoints: z.array(pointSchema).max(MAX_DRAG_WAYPOINTS).optional().describe(
      "Points passed on the way, in order",
    ),
    hold_ms: z.number().int().min(0).max(MAX_DRAG_HOLD_MS).optional().describe(
      `Hold ms before moving (default ${DEFAULT_DRAG_HOLD_MS}; 0: plain drag)`,
    ),
    move_ms: z.number().int().min(MIN_DRAG_MOVE_MS).max(MAX_DRAG_MOVE_MS).optional().describe(
      `Travel ms (default ${DEFAULT_DRAG_MOVE_MS})`,
    ),
    dwell_ms: z.number().int().min(0).max(MAX_DRAG_DWELL_MS).optional().describe(
      `Pause ms before lifting (default ${DEFAULT_DRAG_DWELL_MS})`,
    ),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const byPoint = args.start_x !== undefined || args.start_y !== undefined;
    if (byPoint === (args.tree_path !== undefined)) {
      throw invalidParams(
        "Pass either tree_path (a handle or tree path) or start_x and start_y, not both",
      );
    }
    if (byPoint) {
      validateCoordinates(args.start_x, args.start_y, { names: ["start_x", "start_y"] });
    }
    validateCoordinates(args.end_x, args.end_y, { names: ["end_x", "end_y"] });
    (args.waypoints ?? []).forEach((w, i) =>
      validateCoordinates(w.x, w.y, { names: [`waypoints[${i}].x`, `waypoints[${i}].y`] })
    );
    const serial = await deviceFor(ctx, args.device_serial);
    const start = byPoint
      ? validateCoordinates(args.start_x, args.start_y, { names: ["start_x", "start_y"] })
      : null;
    const end = validateCoordinates(args.end_x, args.end_y, { names: ["end_x", "end_y"] });
    const waypoints = args.waypoints ?? [];
    const points: NamedPoint[] = [
      ...(start ? [{ ...start, names: ["start_x", "start_y"] as [string, string] }] : []),
      ...waypoints.map((w, i) => ({
        x: w.x,
        y: w.y,
        names: [`waypoints[${i}].x`, `waypoints[${i}].y`] as [string, string],
      })),
      { ...end, names: ["end_x", "end_y"] },
    ];
    const path: ActAt[] = [start ?? "target", ...waypoints, end];
    const holdMs = args.hold_ms ?? DEFAULT_DRAG_HOLD_MS;
    const moveMs = args.move_ms ?? DEFAULT_DRAG_MOVE_MS;
    const dwellMs = args.dwell_ms ?? DEFAULT_DRAG_DWELL_MS;
    const target: ActTarget = args.tree_path !== undefined
      ? {
        kind: "element",
        target: args.tree_path,
        expectScreenHash: args.expect_screen_hash ?? null,
        requireEnabled: true,
        tappable: true,
      }
      : { kind: "screen", expectScreenHash: args.expect_screen_hash ?? null };
    return await act(ctx, {
      serial,
      target,
      points,
      steps: [{ kind: "gesture", gesture: { kind: "drag", path, holdMs, moveMs, dwellMs } }],
      touched: args.tree_path !== undefined ? "target" : null,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => {
        const s0 = start ?? r.at!;
        return `Dragged (${s0.x},${s0.y}) to (${end.x},${end.y}) after a ${holdMs} ms hold` +
          pathNote(r.gestures[0] ?? null);
      },
      extra: (r) => ({
        ...(r.node && args.tree_path !== undefined ? { dragged: matchData(r.node) } : {}),
        path_points: path.map((q) => q === "target" ? r.at : q),
        hold_ms: holdMs,
        move_ms: moveMs,
        dwell_ms: dwellMs,
        method: r.gestures[0]?.method ?? null,
      }),
    });
  },
});

const uiSwipe = defineTool({
  name: "ui_swipe",
  toolset: "ui",
  kind: "W",
  description:
    "Drag from start to end and pause before lifting, so a list moves exactly that far; " +
    "returns the settled screen.",
  params: {
    device_serial: serialParam,
    start_x: z.number().int().describe("Device px"),
    start_y: z.number().int().describe("Device px"),
    end_x: z.number().int().describe("Device px"),
    end_y: z.number().int().describe("Device px"),
    duration_ms: z.number().int().min(MIN_SWIPE_MS).max(MAX_SWIPE_MS).optional().describe(
      `Travel ms (default ${DEFAULT_SWIPE_MS})`,
    ),
    fling: z.boolean().optional().describe("Lift without pausing"),
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const from = validateCoordinates(args.start_x, args.start_y, { names: ["start_x", "start_y"] });
    const to = validateCoordinates(args.end_x, args.end_y, { names: ["end_x", "end_y"] });
    const serial = await deviceFor(ctx, args.device_serial);
    const ms = args.duration_ms ?? DEFAULT_SWIPE_MS;
    return await act(ctx, {
      serial,
      target: screenTarget(undefined),
      points: [
        named(from.x, from.y, ["start_x", "start_y"]),
        named(to.x, to.y, ["end_x", "end_y"]),
      ],
      steps: [{
        kind: "gesture",
        gesture: { kind: "swipe", from, to, ms, fling: args.fling ?? false },
      }],
      touched: null,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => `Swiped (${from.x},${from.y}) to (${to.x},${to.y})${pathNote(inputPath(r))}`,
      extra: (r) => ({ method: r.gestures[0]?.method ?? "swipe" }),
    });
  },
});

/** The drag that scrolls `area` one step in `direction` (content moves the other way). */
function scrollStep(
  area: Bounds,
  direction: "up" | "down" | "left" | "right",
): { from: ActPoint; to: ActPoint } {
  const cx = Math.round((area.left + area.right) / 2);
  const cy = Math.round((area.top + area.bottom) / 2);
  const h = area.bottom - area.top, w = area.right - area.left;
  const dy = Math.round(h * SCROLL_STEP_FRACTION / 2),
    dx = Math.round(w * SCROLL_STEP_FRACTION / 2);
  switch (direction) {
    case "down":
      return { from: { x: cx, y: cy + dy }, to: { x: cx, y: cy - dy } };
    case "up":
      return { from: { x: cx, y: cy - dy }, to: { x: cx, y: cy + dy } };
    case "right":
      return { from: { x: cx + dx, y: cy }, to: { x: cx - dx, y: cy } };
    case "left":
      return { from: { x: cx - dx, y: cy }, to: { x: cx + dx, y: cy } };
  }
}

const uiScrollUntilElement = defineTool({
  name: "ui_scroll_until_element",
  toolset: "ui",
  kind: "W",
  description: "Scroll the scrollable area (down shows what is below) until a selector matches; " +
    "returns the matches and the settled screen.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    direction: z.enum(["down", "up", "left", "right"]).optional().describe("Default down"),
    max_swipes: z.number().int().min(1).max(MAX_SCROLL_SWIPES).optional().describe(
      `Most swipes (default ${DEFAULT_SCROLL_SWIPES})`,
    ),
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const selector = args.selector;
    const direction = args.direction ?? "down";
    const maxSwipes = args.max_swipes ?? DEFAULT_SCROLL_SWIPES;
    const serial = await deviceFor(ctx, args.device_serial);
    const opts = { signal: ctx.signal };
    const first = await ctx.ui.observe({ serial, maxRows: 500, internal: true }, opts);
    const scrollRow = first.list.rows.find((r) => r.flags.includes("scroll"));
    const size = await ctx.ui.tree({ serial, maxNodes: 1 }, opts);
    const area: Bounds = scrollRow?.bounds ??
      { left: 0, top: Math.round(size.height * 0.2), right: size.width, bottom: size.height * 0.8 };
    const step = scrollStep(area, direction);
    let swipes = 0;
    let lastHash = "";
    while (true) {
      const found = await ctx.ui.find({ serial, selector, limit: 5 }, opts);
      if (found.total > 0) {
        const s = await ctx.ui.observe({ serial, maxRows: args.max_rows }, opts);
        const again = await ctx.ui.find({ serial, selector, limit: 5 }, opts);
        const matches = again.total > 0 ? again.matches : found.matches;
        return {
          structured: {
            serial,
            found: true,
            swipes,
            matches: matches.map(matchData),
            ...listData(s.list),
          },
          text: `Found after ${swipes} swipe(s):\n${matches.map(matchLine).join("\n")}\n${s.text}`,
        };
      }
      if (swipes >= maxSwipes || found.screenHash === lastHash) {
        const still = found.screenHash === lastHash;
        // Without a scrollable element the swipes moved nothing: there is no list to end.
        const end = still && scrollRow !== undefined;
        throw new ToolError(
          "not_found",
          `No element matches ${JSON.stringify(args.selector)} after ${swipes} swipe(s)` +
            (end
              ? " (the list stopped moving: its end)"
              : scrollRow === undefined
              ? " (no element on this screen scrolls)"
              : "") +
            `: check the selector with get_ui_hierarchy${end ? ", or scroll the other way" : ""}`,
          {
            swipes,
            screen_hash: found.screenHash,
            reached_end: end,
            scrollable: scrollRow !== undefined,
          },
        );
      }
      lastHash = found.screenHash;
      ctx.request.progress(swipes + 1, maxSwipes, `swipe ${swipes + 1} of at most ${maxSwipes}`);
      await ctx.ui.act({
        serial,
        target: { kind: "none" },
        steps: [{
          kind: "gesture",
          gesture: {
            kind: "swipe",
            from: step.from,
            to: step.to,
            ms: DEFAULT_SWIPE_MS,
            fling: false,
          },
        }],
        minIntervalMs: await ctx.uiActionIntervalMs(),
        maxRows: 1,
        activity: false,
        internal: true,
      }, opts);
      swipes++;
    }
  },
});

export const gestureTools = [uiSwipe, uiPinch, uiDrag, uiScrollUntilElement];
