/**
 * Tapping: `ui_tap` (device pixels), `ui_tap_element` (a handle or tree path where nothing covers
 * it) and `ui_long_press`. Adapters over the shared act-and-settle step (act.ts).
 */
import { z } from "zod";
import { invalidParams } from "../../core/errors.ts";
import { validateCoordinates } from "../../core/validation.ts";
import { defineTool } from "../define_tool.ts";
import { deviceFor } from "../device_args.ts";
import {
  expectHashParam,
  maxRowsParam,
  observeAfterParam,
  serialParam,
  targetParam,
} from "../params.ts";
import { act, elementTarget, inputPath, named, screenTarget } from "./act.ts";
import { pathNote } from "./paths.ts";
import { matchData } from "./render.ts";
import {
  DEFAULT_LONG_PRESS_MS,
  MAX_LONG_PRESS_MS,
  MIN_LONG_PRESS_MS,
} from "../../ui/shared/gesture_limits.ts";

const uiTap = defineTool({
  name: "ui_tap",
  toolset: "ui",
  kind: "W",
  description:
    "Tap device pixels (x, y); returns the settled screen. Prefer ui_tap_element with a " +
    "handle: it cannot miss.",
  params: {
    device_serial: serialParam,
    x: z.number().int().describe("Device px"),
    y: z.number().int().describe("Device px"),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const p = validateCoordinates(args.x, args.y);
    const serial = await deviceFor(ctx, args.device_serial);
    return await act(ctx, {
      serial,
      target: screenTarget(args.expect_screen_hash),
      points: [named(p.x, p.y)],
      steps: [{ kind: "gesture", gesture: { kind: "tap", at: p } }],
      touched: "points",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => `Tapped (${p.x},${p.y})${pathNote(inputPath(r))}`,
    });
  },
});

const uiTapElement = defineTool({
  name: "ui_tap_element",
  toolset: "ui",
  kind: "W",
  description:
    "Tap an element (handle or tree path) where nothing covers it, hiding a keyboard over " +
    "it; returns the settled screen. Refuses a covered element or a stale handle.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam,
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    return await act(ctx, {
      serial,
      target: elementTarget(args.tree_path, args.expect_screen_hash),
      steps: [{ kind: "gesture", gesture: { kind: "tap", at: "target" } }],
      touched: "target",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) =>
        `${r.hidKeyboard ? "Hid the keyboard, then tapped" : "Tapped"} ${args.tree_path} ` +
        `at (${r.at!.x},${r.at!.y})${pathNote(inputPath(r))}`,
      extra: (r) => ({
        tapped: matchData(r.node!),
        x: r.at!.x,
        y: r.at!.y,
        hid_keyboard: r.hidKeyboard,
      }),
    });
  },
});

const uiLongPress = defineTool({
  name: "ui_long_press",
  toolset: "ui",
  kind: "W",
  description: "Press and hold an element (handle or tree path) or a point (x, y); returns the " +
    "settled screen.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam.optional(),
    x: z.number().int().optional().describe("Device px, instead of tree_path"),
    y: z.number().int().optional().describe("Device px"),
    duration_ms: z.number().int().min(MIN_LONG_PRESS_MS).max(MAX_LONG_PRESS_MS).optional()
      .describe(`Hold ms (default ${DEFAULT_LONG_PRESS_MS})`),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const byPoint = args.x !== undefined || args.y !== undefined;
    if (byPoint === (args.tree_path !== undefined)) {
      throw invalidParams("Pass either tree_path (a handle or tree path) or x and y, not both");
    }
    const p = byPoint ? validateCoordinates(args.x, args.y) : null;
    const ms = args.duration_ms ?? DEFAULT_LONG_PRESS_MS;
    const serial = await deviceFor(ctx, args.device_serial);
    return await act(ctx, {
      serial,
      target: p ? screenTarget(args.expect_screen_hash) : elementTarget(
        args.tree_path!,
        args.expect_screen_hash,
      ),
      points: p ? [named(p.x, p.y)] : undefined,
      steps: [{ kind: "gesture", gesture: { kind: "long_press", at: p ?? "target", ms } }],
      touched: p ? "points" : "target",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => {
        const at = p ?? r.at!;
        return `Long-pressed (${at.x},${at.y}) for ${ms} ms${pathNote(inputPath(r))}`;
      },
      extra: (r) => p ? {} : { pressed: matchData(r.node!) },
    });
  },
});

export const tapTools = [uiTap, uiTapElement, uiLongPress];
