/**
 * Typing and keys: `ui_type_text`, `ui_fill_input`, `ui_type_text_unicode`,
 * `clear_focused_input`, `hide_soft_keyboard`, `send_ui_key`. Adapters over the shared
 * act-and-settle step (act.ts).
 */
import { z } from "zod";
import { invalidParams, ToolError } from "../../core/errors.ts";
import { validateKeyName } from "../../core/validation.ts";
import { defineTool } from "../define_tool.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import {
  expectHashParam,
  maxRowsParam,
  observeAfterParam,
  serialParam,
  targetParam,
} from "../params.ts";
import { act, elementTarget, inputPath, screenTarget, UI_QUERY_TIMEOUT_MS } from "./act.ts";
import { pathNote } from "./paths.ts";
import { matchData } from "./render.ts";
import type { ActResult, ActTarget } from "../../ui/shared/act_types.ts";
import {
  checkTextLength,
  inputTextCanType,
  MAX_TYPE_TEXT_BYTES,
} from "../../ui/shared/text_rules.ts";
import { readInputMethodDump, requireAdbKeyboard } from "../../android/input_method.ts";
import { dumpTellsKeyboard, keyboardState } from "../../ui/shared/keyboard_signal.ts";
import { MAX_ROWS } from "../../ui/shared/limits.ts";

function asciiOnly(text: string): boolean {
  return [...text].every(inputTextCanType);
}

/** Which way the text went, for the answer's text. */
function typedNote(r: ActResult): string {
  switch (r.typed?.via) {
    case "clipboard":
      return ` through the emulator's clipboard (a paste; the user's clipboard ${
        r.typed.clipboardRestored ? "was put back" : "could NOT be put back"
      })`;
    case "adb_keyboard":
      return " through the ADB keyboard";
    default:
      return "";
  }
}

/** Which way the text went, for the structured answer. */
function typedData(r: ActResult): Record<string, unknown> {
  if (!r.typed) return {};
  return {
    typed_via: r.typed.via,
    ...(r.typed.via === "clipboard" ? { clipboard_restored: r.typed.clipboardRestored } : {}),
    ...(r.typed.fallback ? { typed_fallback: r.typed.fallback } : {}),
  };
}

/** The typing tools' text cap as their parameter states it. */
const TEXT_MAX = MAX_TYPE_TEXT_BYTES.toLocaleString("en");

const uiTypeText = defineTool({
  name: "ui_type_text",
  toolset: "ui",
  kind: "W",
  description: "Type any text into the focused field (newline = Enter; non-ASCII: emulator " +
    "clipboard or ADB keyboard); returns the settled screen.",
  params: {
    device_serial: serialParam,
    text: z.string().describe(`Max ${TEXT_MAX} UTF-8 bytes`),
    clear_before: z.boolean().optional().describe("Clear the field first"),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    checkTextLength(args.text);
    const serial = await deviceFor(ctx, args.device_serial);
    // A paste is checked against the focused field, so beyond ASCII the field is found first.
    const target: ActTarget = args.clear_before || !asciiOnly(args.text)
      ? { kind: "focused", expectScreenHash: args.expect_screen_hash ?? null }
      : args.expect_screen_hash
      ? screenTarget(args.expect_screen_hash)
      : { kind: "none" };
    return await act(ctx, {
      serial,
      target,
      steps: [
        ...(args.clear_before ? [{ kind: "clear" } as const] : []),
        { kind: "any_text", text: args.text, exact: args.clear_before === true } as const,
      ],
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) => `Typed ${[...args.text].length} characters${typedNote(r)}`,
      extra: typedData,
    });
  },
});

const uiFillInput = defineTool({
  name: "ui_fill_input",
  toolset: "ui",
  kind: "W",
  description:
    "Tap a text field (handle or tree path), clear it and type any text; returns the settled " +
    "screen. Refuses a disabled or non-editable node.",
  params: {
    device_serial: serialParam,
    tree_path: targetParam,
    text: z.string().describe(`Max ${TEXT_MAX} UTF-8 bytes`),
    clear_before: z.boolean().optional().describe("Clear first (default true)"),
    expect_screen_hash: expectHashParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    checkTextLength(args.text);
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
        { kind: "any_text", text: args.text, exact: clear } as const,
      ],
      touched: "target",
      observeAfter: args.observe_after,
      maxRows: args.max_rows,
      did: (r) =>
        `Filled ${args.tree_path} with ${[...args.text].length} characters${typedNote(r)}`,
      extra: (r) => ({ field: matchData(r.node!), ...typedData(r) }),
    });
  },
});

const uiTypeTextUnicode = defineTool({
  name: "ui_type_text_unicode",
  toolset: "ui",
  kind: "W",
  description: "Type any text through the ADB keyboard IME (com.android.adbkeyboard/.AdbIME, " +
    "installed and selected); returns the settled screen.",
  params: {
    device_serial: serialParam,
    text: z.string().describe(`Max ${TEXT_MAX} UTF-8 bytes`),
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    checkTextLength(args.text);
    const serial = await deviceFor(ctx, args.device_serial);
    await requireAdbKeyboard(ctx.adb, serial, callOpts(ctx, UI_QUERY_TIMEOUT_MS));
    return await act(ctx, {
      serial,
      target: { kind: "none" },
      steps: [{ kind: "unicode_text", text: args.text }],
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
  description: "Delete the text of the focused text field; returns the settled screen.",
  params: {
    device_serial: serialParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
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
  description:
    "Hide the soft keyboard if shown (Back), else do nothing, so it never navigates back; " +
    "returns the settled screen.",
  params: {
    device_serial: serialParam,
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    // The same signal as the element list's `keyboard:` (lib/ui/shared/keyboard_signal.ts).
    // All rows, so the handles of the list the agent holds stay what they were.
    const now = await ctx.ui.observe(
      { serial, maxRows: MAX_ROWS, activity: false, internal: true },
      { signal: ctx.signal },
    );
    const dumpsys = dumpTellsKeyboard(now.list)
      ? null
      : await readInputMethodDump(ctx.adb, serial, callOpts(ctx, UI_QUERY_TIMEOUT_MS));
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
      steps: [{ kind: "input_key", key: "KEYCODE_BACK" }],
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
  description:
    "Press a key; enter taps the keyboard's action key (Search, Go) when a keyboard shows. " +
    "Returns the settled screen.",
  params: {
    device_serial: serialParam,
    key: z.string().describe("BACK, KEYCODE_HOME, enter… or a code (4)"),
    observe_after: observeAfterParam,
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
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

export const textTools = [
  uiTypeText,
  uiFillInput,
  uiTypeTextUnicode,
  clearFocusedInput,
  hideSoftKeyboard,
  sendUiKey,
];
