/**
 * The UI acting tools: taps, long presses, typing, keys, swipes and scrolling. Each validates its
 * arguments, then makes the whole action ONE request to the UI worker (`ctx.ui.act`,
 * lib/ui/act_service.ts): the worker checks the screen (handle, screen hash, enabled or
 * editable, points on the screen), waits the minimum gap since the device's last action, sends
 * the input (the emulator's gRPC touch and keys, else `input` over ADB), waits until the screen
 * has responded and settled (touched = the tapped element) and remembers the settled list. These
 * adapters only say which action and render the answer (unless `observe_after: false`).
 */
import { z } from "zod";
import { defineTool, type ToolOutput } from "../../mcp/tool_def.ts";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { validateCoordinates, validateKeyName } from "../../core/validation.ts";
import type { Bounds } from "../../ui/hierarchy.ts";
import type { ActParams, ActResult, ActStep, ActTarget, NamedPoint } from "../../ui/act_types.ts";
import {
  ADB_KEYBOARD_IME,
  DEFAULT_LONG_PRESS_MS,
  DEFAULT_SWIPE_MS,
  hasAdbKeyboard,
  inputTextChunks,
  MAX_LONG_PRESS_MS,
  MAX_SWIPE_MS,
  MIN_LONG_PRESS_MS,
  MIN_SWIPE_MS,
  parseSelectedIme,
  type Point,
  unicodeTextArgv,
} from "../../ui/actions.ts";
import { listData, matchData, matchLine as matchLineOf, selectorOf } from "./hierarchy.ts";
import { pathFields, pathNote } from "./paths.ts";
import { dumpTellsKeyboard, keyboardState } from "../../ui/keyboard_signal.ts";
import { MAX_ROWS } from "../../ui/limits.ts";
import type { ToolContext } from "../context.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import {
  expectHashParam,
  maxRowsParam,
  selectorParam,
  serialParam,
  targetParam,
} from "../params.ts";

/** `ui_scroll_until_element`: swipes by default and at most (spec). */
export const DEFAULT_SCROLL_SWIPES = 10;
export const MAX_SCROLL_SWIPES = 25;
/** Share of the scroll area one scroll step drags across. */
export const SCROLL_STEP_FRACTION = 0.45;
/** Bound on the small device reads the acting tools make (ime list, dumpsys input_method). */
export const UI_QUERY_TIMEOUT_MS = 10_000;

const observeAfterParam = z.boolean().optional().describe(
  "Wait for the screen to settle and return it (default true)",
);

export interface ActRequest {
  serial: string;
  target: ActTarget;
  points?: NamedPoint[];
  steps: ActStep[];
  touched?: ActParams["touched"];
  observeAfter?: boolean;
  maxRows?: number;
  /** What was done, for the text, from the worker's answer. */
  did: (r: ActResult) => string;
  /** Fields added to the result, from the worker's answer. */
  extra?: (r: ActResult) => Record<string, unknown>;
}

/** The path of the action's input: its gesture's, else its key's (null: plain ADB input). */
function inputPath(r: ActResult) {
  return r.gestures.at(-1) ?? r.keys.at(-1) ?? null;
}

/** One `ui.act` request, rendered: the action, the settle and the settled list. */
export async function act(ctx: ToolContext, o: ActRequest): Promise<ToolOutput> {
  const r = await ctx.ui.act({
    serial: o.serial,
    target: o.target,
    points: o.points,
    steps: o.steps,
    minIntervalMs: await ctx.uiActions.interval(),
    observeAfter: o.observeAfter,
    maxRows: o.maxRows,
    touched: o.touched ?? null,
  }, { signal: ctx.signal });
  const did = o.did(r);
  const base = {
    serial: o.serial,
    action: did,
    paced_ms: r.pacedMs,
    ...pathFields(inputPath(r)),
    ...o.extra?.(r),
  };
  const s = r.settle;
  if (!s) return { structured: base, text: `${did}.` };
  const state = s.settled
    ? `settled in ${s.settleMs} ms`
    : s.reason === "loading_timeout"
    ? `still loading after ${s.settleMs} ms`
    : `still changing after ${s.settleMs} ms`;
  return {
    structured: {
      ...base,
      settle_ms: s.settleMs,
      settled: s.settled,
      settle_reason: s.reason,
      settled_by: s.settledBy ?? null,
      responded: s.responded,
      ...listData(s.list),
    },
    text: `${did}; ${state}${s.responded ? "" : " (no change outside the touched element)"}\n` +
      s.text,
  };
}

/** The worker target for an optional `expect_screen_hash` on a point action. */
function screenTarget(expect: string | undefined): ActTarget {
  return { kind: "screen", expectScreenHash: expect ?? null };
}

/**
 * A handle or tree path the action lands on: enabled, and (`tappable`, the default) its tap
 * point inside it and uncovered — only the keyboard covering it gets the keyboard hidden first.
 */
function elementTarget(
  target: string,
  expect: string | undefined,
  require: { enabled?: boolean; editable?: boolean; tappable?: boolean } = {},
): ActTarget {
  return {
    kind: "element",
    target,
    expectScreenHash: expect ?? null,
    requireEnabled: require.enabled ?? true,
    requireEditable: require.editable,
    tappable: require.tappable ?? true,
  };
}

function named(x: number, y: number, names: [string, string] = ["x", "y"]): NamedPoint {
  return { x, y, names };
}

const uiTap = defineTool({
  name: "ui_tap",
  toolset: "ui",
  kind: "W",
  title: "Tap a point",
  description: "Taps device pixels (x, y), then returns the settled screen. Prefer " +
    "ui_tap_element with a handle: it cannot miss.",
  params: {
    device_serial: serialParam,
    x: z.number().int().describe("Device pixels from the left"),
    y: z.number().int().describe("Device pixels from the top"),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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
  title: "Tap an element",
  description: "Taps an element by handle (e7) or tree path where nothing covers it, then " +
    "returns the settled screen. Hides the keyboard first if only it covers the element; refuses " +
    "a covered element or a handle from an older screen.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam,
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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
  title: "Long-press",
  description: "Presses and holds an element (handle or tree path) or a point (x, y) for " +
    "duration_ms, then returns the settled screen.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam.optional(),
    x: z.number().int().optional().describe("Device pixels, with y, instead of tree_path"),
    y: z.number().int().optional().describe("Device pixels from the top, with x"),
    duration_ms: z.number().int().min(MIN_LONG_PRESS_MS).max(MAX_LONG_PRESS_MS).optional()
      .describe(
        `How long to hold (default ${DEFAULT_LONG_PRESS_MS}, ${MIN_LONG_PRESS_MS}–${MAX_LONG_PRESS_MS})`,
      ),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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

function typeSteps(chunks: readonly string[]): ActStep[] {
  return chunks.map((c) => ({ kind: "input", argv: ["input", "text", c] }));
}

const uiTypeText = defineTool({
  name: "ui_type_text",
  toolset: "ui",
  kind: "W",
  title: "Type text",
  description: "Types text into the focused field with input text (printable ASCII; newline " +
    "presses Enter). Max 1,000 bytes. For other characters use ui_type_text_unicode.",
  params: {
    device_serial: serialParam,
    text: z.string().describe("The text; spaces and any ASCII punctuation are fine"),
    clear_before: z.boolean().optional().describe("Clear the focused field first (default false)"),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const chunks = inputTextChunks(args.text);
    const serial = await deviceFor(ctx, args.device_serial);
    const target: ActTarget = args.clear_before
      ? { kind: "focused", expectScreenHash: args.expect_screen_hash ?? null }
      : args.expect_screen_hash
      ? screenTarget(args.expect_screen_hash)
      : { kind: "none" };
    return await act(ctx, {
      serial,
      target,
      steps: [...(args.clear_before ? [{ kind: "clear" } as const] : []), ...typeSteps(chunks)],
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: () => `Typed ${[...args.text].length} characters`,
    });
  },
});

const uiFillInput = defineTool({
  name: "ui_fill_input",
  toolset: "ui",
  kind: "W",
  title: "Fill a text field",
  description: "Taps a text field (handle or tree path), clears it (clear_before, default true) " +
    "and types text (printable ASCII, max 1,000 bytes). Refuses a disabled or non-editable node.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam,
    text: z.string().describe("The text to put in the field"),
    clear_before: z.boolean().optional().describe("Clear the field first (default true)"),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const chunks = inputTextChunks(args.text);
    const serial = await deviceFor(ctx, args.device_serial);
    const clear = args.clear_before ?? true;
    return await act(ctx, {
      serial,
      target: elementTarget(args.tree_path, args.expect_screen_hash, {
        enabled: true,
        editable: true,
      }),
      steps: [
        { kind: "gesture", gesture: { kind: "tap", at: "target" } },
        ...(clear ? [{ kind: "clear" } as const] : []),
        ...typeSteps(chunks),
      ],
      touched: "target",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: () => `Filled ${args.tree_path} with ${[...args.text].length} characters`,
      extra: (r) => ({ field: matchData(r.node!) }),
    });
  },
});

const uiTypeTextUnicode = defineTool({
  name: "ui_type_text_unicode",
  toolset: "ui",
  kind: "W",
  title: "Type any text (ADB keyboard)",
  description: "Types any Unicode text into the focused field through the ADB keyboard IME " +
    "(com.android.adbkeyboard/.AdbIME, which must be installed and selected). Max 1,000 bytes.",
  params: {
    device_serial: serialParam,
    text: z.string().describe("The text, any characters"),
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const argv = unicodeTextArgv(args.text);
    const serial = await deviceFor(ctx, args.device_serial);
    const imes = await ctx.adb.shell(
      serial,
      ["ime", "list", "-s"],
      callOpts(ctx, UI_QUERY_TIMEOUT_MS),
    );
    if (!hasAdbKeyboard(imes.text())) {
      throw new ToolError(
        "command_failed",
        "The ADB keyboard IME (com.android.adbkeyboard/.AdbIME) is not installed or enabled on " +
          `${serial}, so nothing was typed: install ADBKeyBoard and select it (ime enable / ime ` +
          "set), or type ASCII with ui_type_text",
        { serial },
      );
    }
    // Enabled is not enough: the broadcast reaches the keyboard only when it is the selected one.
    const dump = await ctx.adb.shell(
      serial,
      ["dumpsys", "input_method"],
      callOpts(ctx, UI_QUERY_TIMEOUT_MS),
    );
    const selected = parseSelectedIme(dump.text());
    if (selected !== null && selected !== ADB_KEYBOARD_IME) {
      throw new ToolError(
        "command_failed",
        `The ADB keyboard is installed on ${serial} but the selected input method is ${selected}, ` +
          "so nothing was typed: ask the user to select it (adb shell ime set " +
          `${ADB_KEYBOARD_IME}), or type ASCII with ui_type_text`,
        { serial, selected_ime: selected },
      );
    }
    return await act(ctx, {
      serial,
      target: { kind: "none" },
      steps: [{
        kind: "shell",
        argv,
        what: "am broadcast",
        hint: "check that the ADB keyboard is the selected input method, then retry",
      }],
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: () => `Sent ${[...args.text].length} characters to the ADB keyboard`,
    });
  },
});

const clearFocusedInput = defineTool({
  name: "clear_focused_input",
  toolset: "ui",
  kind: "W",
  title: "Clear the focused field",
  description: "Deletes the text of the focused text field.",
  params: {
    device_serial: serialParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const serial = await deviceFor(ctx, args.device_serial);
    return await act(ctx, {
      serial,
      target: { kind: "focused" },
      steps: [{ kind: "clear" }],
      touched: "target",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => `Cleared ${r.node!.path}`,
    });
  },
});

const hideSoftKeyboard = defineTool({
  name: "hide_soft_keyboard",
  toolset: "ui",
  kind: "W",
  title: "Hide the keyboard",
  description: "Hides the soft keyboard when it is shown (Back), deciding as the element list " +
    "does; does nothing otherwise, so it never navigates back by mistake.",
  params: {
    device_serial: serialParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const serial = await deviceFor(ctx, args.device_serial);
    // The same signal as the element list's `keyboard:` (lib/ui/keyboard_signal.ts).
    // All rows, so the handles of the list the agent holds stay what they were.
    const now = await ctx.ui.observe(
      { serial, maxRows: MAX_ROWS, activity: false, internal: true },
      { signal: ctx.signal },
    );
    const dumpsys = dumpTellsKeyboard(now.list) ? null : (await ctx.adb.shell(
      serial,
      ["dumpsys", "input_method"],
      callOpts(ctx, UI_QUERY_TIMEOUT_MS),
    )).text();
    const state = keyboardState(now.list, dumpsys);
    if (state === null) {
      throw new ToolError(
        "command_failed",
        `Cannot tell whether the keyboard is shown on ${serial} (the dump holds only the app's ` +
          "window and dumpsys input_method has no mInputShown): use send_ui_key BACK if the " +
          "keyboard is up",
      );
    }
    if (!state.shown) {
      return {
        structured: { serial, hidden: false, was_shown: false, decided_by: state.source },
        text: "No keyboard shown.",
      };
    }
    return await act(ctx, {
      serial,
      target: { kind: "none" },
      steps: [{ kind: "input", argv: ["input", "keyevent", "KEYCODE_BACK"] }],
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: () => "Hid the keyboard",
      extra: () => ({ hidden: true, was_shown: true, decided_by: state.source }),
    });
  },
});

const ENTER_KEYS = new Set(["KEYCODE_ENTER", "66", "KEYCODE_NUMPAD_ENTER", "160"]);

const sendUiKey = defineTool({
  name: "send_ui_key",
  toolset: "ui",
  kind: "W",
  title: "Press a key",
  description: "Presses a key (BACK, HOME, ENTER, DEL, TAB, …, or a key code). enter taps the " +
    "keyboard's action key (Search, Go, Next) when a keyboard is shown, since search fields " +
    "ignore KEYCODE_ENTER.",
  params: {
    device_serial: serialParam,
    key: z.string().describe("Key name (BACK, KEYCODE_HOME, enter) or code (4)"),
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const key = validateKeyName(args.key);
    if (key === "KEYCODE_SEARCH" || key === "84") {
      throw invalidParams(
        "KEYCODE_SEARCH opens the assistant or the Google app, not the app's search: use enter, " +
          "which taps the keyboard's action key",
      );
    }
    const serial = await deviceFor(ctx, args.device_serial);
    if (ENTER_KEYS.has(key)) {
      const now = await ctx.ui.observe(
        { serial, maxRows: 500, internal: true },
        { signal: ctx.signal },
      );
      const action = now.list.keyboard
        ? now.list.rows.find((r) => r.flags.includes("ime-action"))
        : undefined;
      if (action) {
        const at = { x: action.x, y: action.y };
        return await act(ctx, {
          serial,
          target: screenTarget(now.list.screenHash),
          steps: [{ kind: "gesture", gesture: { kind: "tap", at } }],
          touched: action.bounds,
          observeAfter: args.observe_after,
          maxRows: args.max_rows,
          did: (r) =>
            `Tapped the keyboard's ${JSON.stringify(action.label || "action")} key` +
            pathNote(inputPath(r)),
          extra: () => ({ key, via: "ime_action_key" }),
        });
      }
    }
    return await act(ctx, {
      serial,
      target: { kind: "none" },
      steps: [{ kind: "key", key }],
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => `Pressed ${key}${pathNote(inputPath(r))}`,
      extra: (r) => ({ key, via: r.keys[0]?.sent ? "sendKey" : "keyevent" }),
    });
  },
});

const uiSwipe = defineTool({
  name: "ui_swipe",
  toolset: "ui",
  kind: "W",
  title: "Swipe",
  description: "Drags from (start_x, start_y) to (end_x, end_y) and pauses before lifting, so " +
    "lists move by exactly that distance; fling: true lifts at speed instead.",
  params: {
    device_serial: serialParam,
    start_x: z.number().int().describe("Start, device pixels from the left"),
    start_y: z.number().int().describe("Start, device pixels from the top"),
    end_x: z.number().int().describe("End, device pixels from the left"),
    end_y: z.number().int().describe("End, device pixels from the top"),
    duration_ms: z.number().int().min(MIN_SWIPE_MS).max(MAX_SWIPE_MS).optional().describe(
      `Finger travel time (default ${DEFAULT_SWIPE_MS})`,
    ),
    fling: z.boolean().optional().describe("Lift without pausing (a fling)"),
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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
export function scrollStep(
  area: Bounds,
  direction: "up" | "down" | "left" | "right",
): { from: Point; to: Point } {
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
  title: "Scroll until an element shows",
  description: "Scrolls the screen's scrollable area (direction down = show what is below) " +
    "until a selector matches, at most max_swipes times; reports progress, stops on " +
    "cancellation or at the end of the list. Returns the matches and the settled screen.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    direction: z.enum(["down", "up", "left", "right"]).optional().describe("Default down"),
    max_swipes: z.number().int().min(1).max(MAX_SCROLL_SWIPES).optional().describe(
      `Default ${DEFAULT_SCROLL_SWIPES}, max ${MAX_SCROLL_SWIPES}`,
    ),
    max_rows: maxRowsParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const selector = selectorOf(args.selector);
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
          text: `Found after ${swipes} swipe(s):\n${
            matches.map(matchLineOf).join("\n")
          }\n${s.text}`,
        };
      }
      if (swipes >= maxSwipes || found.screenHash === lastHash) {
        const end = found.screenHash === lastHash;
        throw new ToolError(
          "not_found",
          `No element matches ${JSON.stringify(args.selector)} after ${swipes} swipe(s)` +
            (end ? " (the list stopped moving: its end)" : "") +
            `: check the selector with get_ui_hierarchy${end ? ", or scroll the other way" : ""}`,
          { swipes, screen_hash: found.screenHash, reached_end: end },
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
        minIntervalMs: await ctx.uiActions.interval(),
        maxRows: 1,
        activity: false,
        internal: true,
      }, opts);
      swipes++;
    }
  },
});

export const uiActTools = {
  uiTap,
  uiTapElement,
  uiLongPress,
  uiTypeText,
  uiFillInput,
  uiTypeTextUnicode,
  clearFocusedInput,
  hideSoftKeyboard,
  sendUiKey,
  uiSwipe,
  uiScrollUntilElement,
};
