/**
 * The UI acting tools: taps, long presses, typing, keys, swipes and scrolling. Each validates its
 * arguments before any device command, waits the minimum gap since the device's last action,
 * runs its `input` commands (lib/ui/actions.ts), then waits until the screen has responded and
 * settled (`ctx.ui.settle`, touched = the tapped element) and returns the settled element list
 * with `settle_ms` — unless the call passes `observe_after: false`.
 */
import { z } from "zod";
import { defineTool, type ToolOutput } from "../mcp/tool_def.ts";
import { invalidParams, ToolError } from "../core/errors.ts";
import { validateCoordinates, validateKeyName } from "../core/validation.ts";
import type { Bounds } from "../ui/hierarchy.ts";
import type { ResolveResult } from "../ui/protocol.ts";
import {
  ADB_KEYBOARD_IME,
  clearKeys,
  DEFAULT_LONG_PRESS_MS,
  DEFAULT_SWIPE_MS,
  drag,
  hasAdbKeyboard,
  INPUT_TIMEOUT_MS,
  inputTextChunks,
  keyeventArgv,
  MAX_LONG_PRESS_MS,
  MAX_SWIPE_MS,
  MIN_LONG_PRESS_MS,
  MIN_SWIPE_MS,
  parseSelectedIme,
  type Point,
  runInput,
  tapArgv,
  unicodeTextArgv,
} from "../ui/actions.ts";
import { listData, matchData, matchLine, rememberList, selectorOf } from "./ui_read.ts";
import type { GestureResult } from "../ui/fast_paths.ts";
import { pathFields, type PathInfo, pathNote } from "./ui_paths.ts";
import { dumpTellsKeyboard, keyboardState } from "../ui/keyboard_signal.ts";
import { MAX_ROWS } from "../ui/element_list.ts";
import type { ToolContext } from "./context.ts";
import { callOpts, deviceFor } from "./device_args.ts";
import {
  expectHashParam,
  maxRowsParam,
  selectorParam,
  serialParam,
  targetParam,
} from "./params.ts";

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

export interface ActOptions {
  serial: string;
  /** What was done, for the text (a function is called after the action ran). */
  did: string | (() => string);
  touched?: Bounds | null;
  observeAfter?: boolean;
  maxRows?: number;
  /** Fields added to the result; a function is called after the action ran. */
  extra?: Record<string, unknown> | (() => Record<string, unknown>);
}

/** Paces, runs `fn`, then settles and renders the settled screen. */
export async function act(
  ctx: ToolContext,
  o: ActOptions,
  fn: () => Promise<void>,
): Promise<ToolOutput> {
  const waited = await ctx.uiActions.before(o.serial, ctx.signal);
  try {
    await fn();
  } finally {
    ctx.uiActions.done(o.serial);
  }
  const extra = typeof o.extra === "function" ? o.extra() : o.extra;
  const did = typeof o.did === "function" ? o.did() : o.did;
  const base = { serial: o.serial, action: did, paced_ms: waited, ...extra };
  if (o.observeAfter === false) return { structured: base, text: `${did}.` };
  const s = await ctx.ui.settle(
    { serial: o.serial, touched: o.touched ?? null, maxRows: o.maxRows },
    { signal: ctx.signal },
  );
  rememberList(ctx, o.serial, s.list);
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

/** Screen size and hash now (a capture, also the settle baseline); refuses a changed hash. */
export async function screenNow(ctx: ToolContext, serial: string, expect?: string) {
  const t = await ctx.ui.tree({ serial, maxNodes: 1 }, { signal: ctx.signal });
  if (expect && expect !== t.screenHash) {
    throw new ToolError(
      "screen_changed",
      `The screen changed: expected screen ${expect}, the device now shows ${t.screenHash}, so ` +
        "nothing was done; read the screen again with get_ui_hierarchy and act on the new list",
      { expected_screen_hash: expect, screen_hash: t.screenHash },
    );
  }
  return t;
}

export function pointOn(
  x: unknown,
  y: unknown,
  size: { width: number; height: number },
  names: [string, string] = ["x", "y"],
): Point {
  return validateCoordinates(x, y, {
    maxX: Math.max(0, size.width - 1),
    maxY: Math.max(0, size.height - 1),
    names,
  });
}

export async function resolveTarget(
  ctx: ToolContext,
  serial: string,
  target: string,
  expect: string | undefined,
): Promise<ResolveResult> {
  return await ctx.ui.resolve(
    { serial, target, expectScreenHash: expect ?? null },
    { signal: ctx.signal },
  );
}

/**
 * The target resolved to a point a tap lands on it: inside it and not covered. An element only
 * the keyboard covers gets the keyboard hidden first (BACK, paced like any action) and is found
 * again at its tree path; one covered by something else, or off screen, is refused with what to
 * do, and nothing is tapped.
 */
async function tappable(
  ctx: ToolContext,
  serial: string,
  target: string,
  expect: string | undefined,
): Promise<ResolveResult & { hidKeyboard: boolean }> {
  const r = await resolveTarget(ctx, serial, target, expect);
  refuseDisabled(r, target);
  if (r.tap === "visible") return { ...r, hidKeyboard: false };
  if (r.tap === "hidden") throw notTappable(r, target);
  await ctx.uiActions.before(serial, ctx.signal);
  try {
    await runInput(ctx.adb, serial, keyeventArgv(["KEYCODE_BACK"]), ctx.signal);
  } finally {
    ctx.uiActions.done(serial);
  }
  await ctx.ui.settle({ serial, maxRows: MAX_ROWS, activity: false }, { signal: ctx.signal });
  const again = await resolveTarget(ctx, serial, r.node.path, undefined).catch(() => null);
  const same = again !== null && again.node.className === r.node.className &&
    again.node.resourceId === r.node.resourceId && again.node.text === r.node.text;
  if (!same) {
    throw new ToolError(
      "screen_changed",
      `${target} was under the keyboard; hiding it changed the screen and the element is gone ` +
        "from its place, so nothing was tapped: read the screen again with get_ui_hierarchy",
      { tree_path: r.node.path },
    );
  }
  if (again.tap !== "visible") throw notTappable(again, target, true);
  return { ...again, hidKeyboard: true };
}

function notTappable(r: ResolveResult, target: string, afterKeyboard = false): ToolError {
  const where = afterKeyboard ? " even with the keyboard hidden" : "";
  if (r.coveredBy) {
    return new ToolError(
      "invalid_request",
      `${target} (${describeNode(r)}) is covered${where} by ${matchLine(r.coveredBy)}, so a tap ` +
        "would land on that instead: nothing was tapped; scroll it into view " +
        "(ui_scroll_until_element) or close what covers it, then read the screen again",
      { tree_path: r.node.path, covered_by: r.coveredBy.path },
    );
  }
  return new ToolError(
    "invalid_request",
    `${target} (${describeNode(r)}) is not on screen${where} (scrolled out or too thin to ` +
      "tap): nothing was tapped; scroll it into view with ui_scroll_until_element",
    { tree_path: r.node.path },
  );
}

function describeNode(r: ResolveResult): string {
  return matchLine(r.node);
}

export function refuseDisabled(r: ResolveResult, target: string): void {
  if (!r.node.enabled) {
    throw new ToolError(
      "invalid_request",
      `${target} is disabled (${describeNode(r)}): nothing was done; fill what it needs first ` +
        "or pick another element",
      { tree_path: r.node.path },
    );
  }
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
    validateCoordinates(args.x, args.y);
    const serial = await deviceFor(ctx, args.device_serial);
    const size = await screenNow(ctx, serial, args.expect_screen_hash);
    const p = pointOn(args.x, args.y, size);
    let g: GestureResult | null = null;
    return await act(ctx, {
      serial,
      did: () => `Tapped (${p.x},${p.y})${pathNote(g)}`,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      touched: { left: p.x, top: p.y, right: p.x + 1, bottom: p.y + 1 },
      extra: () => pathFields(g),
    }, async () => {
      g = await ctx.ui.gesture({ serial, gesture: { kind: "tap", at: p } }, { signal: ctx.signal });
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
    const r = await tappable(ctx, serial, args.tree_path, args.expect_screen_hash);
    let g: GestureResult | null = null;
    return await act(ctx, {
      serial,
      did: () =>
        `${r.hidKeyboard ? "Hid the keyboard, then tapped" : "Tapped"} ${args.tree_path} ` +
        `at (${r.x},${r.y})${pathNote(g)}`,
      touched: r.node.bounds,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      extra: () => ({
        tapped: matchData(r.node),
        x: r.x,
        y: r.y,
        hid_keyboard: r.hidKeyboard,
        ...pathFields(g),
      }),
    }, async () => {
      g = await ctx.ui.gesture(
        { serial, gesture: { kind: "tap", at: { x: r.x, y: r.y } } },
        { signal: ctx.signal },
      );
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
    if (byPoint) validateCoordinates(args.x, args.y);
    const ms = args.duration_ms ?? DEFAULT_LONG_PRESS_MS;
    const serial = await deviceFor(ctx, args.device_serial);
    let p: Point;
    let touched: Bounds;
    let extra: Record<string, unknown> = {};
    if (byPoint) {
      const size = await screenNow(ctx, serial, args.expect_screen_hash);
      p = pointOn(args.x, args.y, size);
      touched = { left: p.x, top: p.y, right: p.x + 1, bottom: p.y + 1 };
    } else {
      const r = await tappable(ctx, serial, args.tree_path!, args.expect_screen_hash);
      p = { x: r.x, y: r.y };
      touched = r.node.bounds;
      extra = { pressed: matchData(r.node) };
    }
    let g: GestureResult | null = null;
    return await act(ctx, {
      serial,
      did: () => `Long-pressed (${p.x},${p.y}) for ${ms} ms${pathNote(g)}`,
      touched,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      extra: () => ({ ...extra, ...pathFields(g) }),
    }, async () => {
      g = await ctx.ui.gesture(
        { serial, gesture: { kind: "long_press", at: p, ms } },
        { signal: ctx.signal },
      );
    });
  },
});

async function typeChunks(ctx: ToolContext, serial: string, chunks: readonly string[]) {
  for (const c of chunks) await runInput(ctx.adb, serial, ["input", "text", c], ctx.signal);
}

/** The focused text field now (a capture), or null. */
async function focusedField(ctx: ToolContext, serial: string) {
  const t = await ctx.ui.tree({ serial }, { signal: ctx.signal });
  return { tree: t, node: t.nodes.find((n) => n.focused && n.editable) ?? null };
}

function textLength(n: { text: string; hint: string }): number {
  // Old dumpers put the hint in `text` of an empty field; deleting it is harmless either way.
  return [...n.text].length;
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
    let clear: string[] | null = null;
    if (args.clear_before || args.expect_screen_hash) {
      const f = await focusedField(ctx, serial);
      if (args.expect_screen_hash) await screenNow(ctx, serial, args.expect_screen_hash);
      if (args.clear_before) {
        if (!f.node) throw noFocusedField();
        clear = clearKeys(textLength(f.node) + 1);
      }
    }
    return await act(ctx, {
      serial,
      did: `Typed ${[...args.text].length} characters`,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
    }, async () => {
      if (clear) await runInput(ctx.adb, serial, keyeventArgv(clear), ctx.signal);
      await typeChunks(ctx, serial, chunks);
    });
  },
});

function noFocusedField(): ToolError {
  return new ToolError(
    "not_found",
    "No text field has focus: tap one first (ui_tap_element), or use ui_fill_input with its " +
      "handle",
  );
}

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
    const r = await tappable(ctx, serial, args.tree_path, args.expect_screen_hash);
    if (!r.node.editable) {
      throw new ToolError(
        "invalid_request",
        `${args.tree_path} is not a text field (${describeNode(r)}): nothing was typed; pick ` +
          "a row flagged edit in the element list",
        { tree_path: r.node.path },
      );
    }
    const clear = (args.clear_before ?? true) ? clearKeys(textLength(r.node) + 1) : null;
    return await act(ctx, {
      serial,
      did: `Filled ${args.tree_path} with ${[...args.text].length} characters`,
      touched: r.node.bounds,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      extra: { field: matchData(r.node) },
    }, async () => {
      await runInput(ctx.adb, serial, tapArgv({ x: r.x, y: r.y }), ctx.signal);
      if (clear) await runInput(ctx.adb, serial, keyeventArgv(clear), ctx.signal);
      await typeChunks(ctx, serial, chunks);
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
      did: `Sent ${[...args.text].length} characters to the ADB keyboard`,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
    }, async () => {
      const r = await ctx.adb.shell(serial, argv, callOpts(ctx, INPUT_TIMEOUT_MS));
      if (r.exitCode !== null && r.exitCode !== 0) {
        throw new ToolError(
          "command_failed",
          `am broadcast failed on ${serial} (exit ${r.exitCode}): check that the ADB keyboard ` +
            "is the selected input method, then retry",
          { exit_code: r.exitCode },
        );
      }
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
    const f = await focusedField(ctx, serial);
    if (!f.node) throw noFocusedField();
    const keys = clearKeys(textLength(f.node) + 1);
    return await act(ctx, {
      serial,
      did: `Cleared ${f.node.path}`,
      touched: f.node.bounds,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
    }, () => runInput(ctx.adb, serial, keyeventArgv(keys), ctx.signal));
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
      { serial, maxRows: MAX_ROWS, activity: false },
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
      did: "Hid the keyboard",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      extra: { hidden: true, was_shown: true, decided_by: state.source },
    }, () => runInput(ctx.adb, serial, keyeventArgv(["KEYCODE_BACK"]), ctx.signal));
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
      const now = await ctx.ui.observe({ serial, maxRows: 500 }, { signal: ctx.signal });
      const action = now.list.keyboard
        ? now.list.rows.find((r) => r.flags.includes("ime-action"))
        : undefined;
      if (action) {
        return await act(ctx, {
          serial,
          did: `Tapped the keyboard's ${JSON.stringify(action.label || "action")} key`,
          touched: action.bounds,
          observeAfter: args.observe_after,
          maxRows: args.max_rows,
          extra: { key, via: "ime_action_key" },
        }, () => runInput(ctx.adb, serial, tapArgv(action), ctx.signal));
      }
    }
    let k: (PathInfo & { sent: boolean }) | null = null;
    return await act(ctx, {
      serial,
      did: () => `Pressed ${key}${pathNote(k)}`,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      extra: () => ({ key, via: k?.sent ? "sendKey" : "keyevent", ...pathFields(k) }),
    }, async () => {
      k = await ctx.ui.key({ serial, key }, { signal: ctx.signal });
      if (!k.sent) await runInput(ctx.adb, serial, keyeventArgv([key]), ctx.signal);
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
    validateCoordinates(args.start_x, args.start_y, { names: ["start_x", "start_y"] });
    validateCoordinates(args.end_x, args.end_y, { names: ["end_x", "end_y"] });
    const serial = await deviceFor(ctx, args.device_serial);
    const size = await screenNow(ctx, serial);
    const from = pointOn(args.start_x, args.start_y, size, ["start_x", "start_y"]);
    const to = pointOn(args.end_x, args.end_y, size, ["end_x", "end_y"]);
    const ms = args.duration_ms ?? DEFAULT_SWIPE_MS;
    let g: GestureResult | null = null;
    return await act(ctx, {
      serial,
      did: () => `Swiped (${from.x},${from.y}) to (${to.x},${to.y})${pathNote(g)}`,
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      touched: null,
      extra: () => ({ method: g?.method ?? "swipe", ...pathFields(g) }),
    }, async () => {
      g = await ctx.ui.gesture({
        serial,
        gesture: { kind: "swipe", from, to, ms, fling: args.fling ?? false },
      }, { signal: ctx.signal });
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
    const first = await ctx.ui.observe({ serial, maxRows: 500 }, opts);
    const scrollRow = first.list.rows.find((r) => r.flags.includes("scroll"));
    const size = await screenNow(ctx, serial);
    const area: Bounds = scrollRow?.bounds ??
      { left: 0, top: Math.round(size.height * 0.2), right: size.width, bottom: size.height * 0.8 };
    const step = scrollStep(area, direction);
    let swipes = 0;
    let lastHash = "";
    while (true) {
      const found = await ctx.ui.find({ serial, selector, limit: 5 }, opts);
      if (found.total > 0) {
        const s = await ctx.ui.observe({ serial, maxRows: args.max_rows }, opts);
        rememberList(ctx, serial, s.list);
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
      await ctx.uiActions.before(serial, ctx.signal);
      try {
        await drag(ctx.adb, serial, step.from, step.to, DEFAULT_SWIPE_MS, ctx.signal);
      } finally {
        ctx.uiActions.done(serial);
      }
      swipes++;
      await ctx.ui.settle({ serial, maxRows: 1, activity: false }, opts);
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
