/**
 * The UI worker's side of `ui.act` (lib/ui/shared/act_types.ts): one request does the whole action —
 * capture and check the screen (handle, hash, enabled/editable, points on screen), wait the
 * minimum gap since the device's last action, run the steps (gestures over gRPC or ADB, `input`,
 * keys, a shell command), settle and remember the settled list. The main thread only says what.
 */
import { invalidParams, ToolError } from "../core/errors.ts";
import type { DeviceShell } from "../adb/client.ts";
import { validateCoordinates } from "../core/validation.ts";
import {
  ActionPacer,
  clearKeys,
  INPUT_TIMEOUT_MS,
  inputTextChunks,
  keyeventArgv,
  runInput,
  unicodeTextArgv,
} from "./actions.ts";
import type {
  ActAt,
  ActGesture,
  ActParams,
  ActPoint,
  ActResult,
  ActStep,
  ActTarget,
  TypedVia,
} from "./shared/act_types.ts";
import { inputTextCanType } from "./shared/text_rules.ts";
import { requireAdbKeyboard } from "../android/input_method.ts";
import { delay } from "../core/abortable.ts";
import type { FastPaths, Gesture } from "./fast_paths.ts";
import type { GestureResult, PathResult } from "./shared/fast_path_types.ts";
import type { Bounds } from "./shared/bounds.ts";
import type { CallContext, UiService } from "./ui_service.ts";
import type { FlowFindResult, Match, ResolveResult } from "./shared/protocol.ts";
import { describeFlowSelector, type FlowSelector } from "./shared/flows/flow_selector.ts";
import { MAX_ROWS } from "./shared/limits.ts";

/**
 * After `setClipboard`, before the paste: the emulator hands the text to the device's clipboard
 * asynchronously (its clipboard pipe) [inference: no published figure].
 */
const CLIPBOARD_HANDOFF_MS = 150;
/** Reads of the field after a paste before it is called a failure, and the pause between. */
const PASTE_CHECKS = 4;
const PASTE_CHECK_GAP_MS = 150;

/** The text has characters `input text` cannot type. */
function needsMoreThanInputText(text: string): boolean {
  return [...text].some((ch) => !inputTextCanType(ch));
}

/** How a field shows `text`: a password field's dots, one per character. */
function fieldShows(shown: string, text: string, exact: boolean, password: boolean): boolean {
  if (password) {
    const n = [...text].length, m = [...shown].length;
    return exact ? m === n : m >= n;
  }
  return exact ? shown === text : shown.includes(text);
}

interface ActServiceOptions {
  service: UiService;
  fast: FastPaths;
  adb: DeviceShell;
  now?: () => number;
}

function describe(m: Match): string {
  const label = m.text || m.contentDesc || m.hint;
  const cls = m.className.split(".").pop() ?? m.className;
  return `${cls}${label ? ` ${JSON.stringify(label.slice(0, 40))}` : ""} path=${m.path}`;
}

function screenChanged(expected: string, now: string): ToolError {
  return new ToolError(
    "screen_changed",
    `The screen changed: expected screen ${expected}, the device now shows ${now}, so nothing ` +
      "was done; read the screen again with get_ui_hierarchy and act on the new list",
    { expected_screen_hash: expected, screen_hash: now },
  );
}

function notTappable(r: ResolveResult, target: string, afterKeyboard = false): ToolError {
  const where = afterKeyboard ? " even with the keyboard hidden" : "";
  if (r.coveredBy) {
    return new ToolError(
      "invalid_request",
      `${target} (${describe(r.node)}) is covered${where} by ${describe(r.coveredBy)}, so a tap ` +
        "would land on that instead: nothing was tapped; scroll it into view " +
        "(ui_scroll_until_element) or close what covers it, then read the screen again",
      { tree_path: r.node.path, covered_by: r.coveredBy.path },
    );
  }
  return new ToolError(
    "invalid_request",
    `${target} (${describe(r.node)}) is not on screen${where} (scrolled out or too thin to ` +
      "tap): nothing was tapped; scroll it into view with ui_scroll_until_element",
    { tree_path: r.node.path },
  );
}

function flowNotTappable(f: FlowFindResult, sel: FlowSelector): ToolError {
  const what = describeFlowSelector(sel);
  if (f.match && f.coveredBy) {
    return new ToolError(
      "not_found",
      `${what} (${describe(f.match)}) is covered by ${describe(f.coveredBy)} after ` +
        `${f.elapsedMs} ms, so a tap would land on that instead: nothing was tapped`,
      { tree_path: f.match.path, covered_by: f.coveredBy.path, screen_hash: f.screenHash },
    );
  }
  return new ToolError(
    "not_found",
    f.match
      ? `${what} (${describe(f.match)}) is not on screen after ${f.elapsedMs} ms (scrolled ` +
        "out or too thin to tap): nothing was tapped"
      : `No element matches ${what} after ${f.elapsedMs} ms (${f.captures} captures): nothing ` +
        "was tapped",
    { screen_hash: f.screenHash, total: f.total },
  );
}

function noFocusedField(): ToolError {
  return new ToolError(
    "not_found",
    "No text field has focus: tap one first (ui_tap_element), or use ui_fill_input with its " +
      "handle",
  );
}

/** How a text step types: pasted from the clipboard or through the ADB keyboard. */
interface TypingPlan {
  via: "clipboard" | "adb_keyboard";
  fallback: TypedVia["fallback"];
}

/** What an action is aimed at, checked before anything runs. */
interface Aim {
  node: Match | null;
  at: ActPoint | null;
  screen: ActResult["screen"];
  hidKeyboard: boolean;
  flowTarget: ActResult["flowTarget"];
}

export class ActService {
  #o: ActServiceOptions;
  #pacer: ActionPacer<never>;
  #interval = 0;

  constructor(o: ActServiceOptions) {
    this.#o = o;
    this.#pacer = new ActionPacer(() => Promise.resolve(this.#interval), o.now);
  }

  async act(p: ActParams, ctx: CallContext): Promise<ActResult> {
    this.#interval = p.minIntervalMs;
    const aim = await this.#aim(p, ctx);
    for (const q of p.points ?? []) {
      if (!aim.screen) throw new TypeError("ui.act: points need a screen target");
      validateCoordinates(q.x, q.y, {
        maxX: Math.max(0, aim.screen.width - 1),
        maxY: Math.max(0, aim.screen.height - 1),
        names: q.names,
      });
    }
    const typing = await this.#typingPlan(p);
    // Everything is checked: pace, then act.
    const { pacedMs, gestures, keys, typed } = await this.#perform(p, aim, typing, ctx);
    const result = (settle: ActResult["settle"]): ActResult => ({
      pacedMs,
      node: aim.node,
      at: aim.at,
      hidKeyboard: aim.hidKeyboard,
      screen: aim.screen,
      gestures,
      keys,
      settle,
      flowTarget: aim.flowTarget,
      ...(typed ? { typed } : {}),
    });
    if (p.observeAfter === false) return result(null);
    const touched = this.#touched(p, aim.node, aim.at);
    return result(
      await this.#o.service.settle({
        serial: p.serial,
        touched,
        maxRows: p.maxRows,
        activity: p.activity,
        internal: p.internal,
      }, ctx),
    );
  }

  /** What the action is aimed at, checked: the node, its tap point, the screen it is on. */
  async #aim(p: ActParams, ctx: CallContext): Promise<Aim> {
    const t = p.target;
    if (t.kind === "element") return await this.#aimAtElement(p.serial, t, ctx);
    if (t.kind === "flow") return await this.#aimAtFlow(p.serial, t, ctx);
    if (t.kind === "screen" || t.kind === "focused") {
      return await this.#aimAtScreen(p.serial, t, ctx);
    }
    return { node: null, at: null, screen: null, hidKeyboard: false, flowTarget: null };
  }

  async #aimAtElement(
    serial: string,
    t: Extract<ActTarget, { kind: "element" }>,
    ctx: CallContext,
  ): Promise<Aim> {
    const ui = this.#o.service;
    let r = await ui.resolve(
      { serial, target: t.target, expectScreenHash: t.expectScreenHash ?? null },
      ctx,
    );
    if (t.requireEnabled && !r.node.enabled) {
      throw new ToolError(
        "invalid_request",
        `${t.target} is disabled (${describe(r.node)}): nothing was done; fill what it needs ` +
          "first or pick another element",
        { tree_path: r.node.path },
      );
    }
    if (t.tappable && r.tap === "hidden") throw notTappable(r, t.target);
    let hidKeyboard = false;
    if (t.tappable && r.tap === "under-keyboard") {
      r = await this.#hideKeyboardFor(serial, r, t.target, ctx);
      hidKeyboard = true;
    }
    const node = r.node;
    if (t.requireEditable && !node.editable) {
      throw new ToolError(
        "invalid_request",
        `${t.target} is not a text field (${describe(node)}): nothing was typed; pick a row ` +
          "flagged edit in the element list",
        { tree_path: node.path },
      );
    }
    // The resolve just captured: its screen is the one the target is on.
    const screen = { ...await ui.screen(serial, ctx.signal), screenHash: r.screenHash };
    const flowTarget = { selector: r.flowSelector ?? null, password: node.password };
    return { node, at: { x: r.x, y: r.y }, screen, hidKeyboard, flowTarget };
  }

  async #aimAtFlow(
    serial: string,
    t: Extract<ActTarget, { kind: "flow" }>,
    ctx: CallContext,
  ): Promise<Aim> {
    const f = await this.#o.service.flowFind(
      { serial, selector: t.selector, want: "tappable", timeoutMs: t.timeoutMs },
      ctx,
    );
    if (!f.met || !f.match) throw flowNotTappable(f, t.selector);
    let r: ResolveResult = {
      screenHash: f.screenHash,
      node: f.match,
      x: f.x,
      y: f.y,
      tap: f.tap ?? "hidden",
      coveredBy: f.coveredBy,
      capture: null as never,
    };
    if ((t.requireEnabled ?? true) && !r.node.enabled) {
      throw new ToolError(
        "invalid_request",
        `${describeFlowSelector(t.selector)} is disabled (${describe(r.node)}): nothing was done`,
        { tree_path: r.node.path },
      );
    }
    let hidKeyboard = false;
    if (r.tap === "under-keyboard") {
      r = await this.#hideKeyboardFor(serial, r, describeFlowSelector(t.selector), ctx);
      hidKeyboard = true;
    }
    return {
      node: r.node,
      at: { x: r.x, y: r.y },
      screen: { ...f.screen, screenHash: r.screenHash },
      hidKeyboard,
      flowTarget: { selector: t.selector, password: r.node.password },
    };
  }

  async #aimAtScreen(
    serial: string,
    t: Extract<ActTarget, { kind: "screen" | "focused" }>,
    ctx: CallContext,
  ): Promise<Aim> {
    const s = await this.#o.service.tree(
      { serial, maxNodes: t.kind === "focused" ? undefined : 1 },
      ctx,
    );
    const expect = t.expectScreenHash;
    if (expect && expect !== s.screenHash) throw screenChanged(expect, s.screenHash);
    const screen = {
      width: s.width,
      height: s.height,
      rotation: s.rotation,
      screenHash: s.screenHash,
    };
    if (t.kind !== "focused") {
      return { node: null, at: null, screen, hidKeyboard: false, flowTarget: null };
    }
    const f = s.nodes.find((n) => n.focused && n.editable);
    if (!f) throw noFocusedField();
    return {
      node: { ...f, handle: null },
      at: { x: f.x, y: f.y },
      screen,
      hidKeyboard: false,
      flowTarget: { selector: null, password: f.password },
    };
  }

  /** Paced, the steps run; a pasted text is checked and the clipboard put back. */
  async #perform(
    p: ActParams,
    aim: Aim,
    typing: TypingPlan | null,
    ctx: CallContext,
  ): Promise<Pick<ActResult, "pacedMs" | "gestures" | "keys" | "typed">> {
    const pacedMs = await this.#pacer.before(p.serial, ctx.signal);
    const gestures: GestureResult[] = [];
    const keys: (PathResult & { sent: boolean })[] = [];
    const typed: { value: TypedVia | undefined; restore: string | null } = {
      value: typing ? { via: typing.via, fallback: typing.fallback } : undefined,
      restore: null,
    };
    const target = { node: aim.node, at: aim.at, screen: aim.screen };
    try {
      for (const step of p.steps) {
        await this.#step(p, step, target, gestures, keys, ctx.signal, typed);
      }
      if (typed.value?.via === "clipboard") {
        const step = p.steps.find((x) => x.kind === "any_text")!;
        await this.#checkPasted(
          p.serial,
          aim.node,
          step as Extract<ActStep, { kind: "any_text" }>,
          ctx,
        );
      }
    } finally {
      if (typed.restore !== null) {
        typed.value!.clipboardRestored = await this.#o.fast.restoreClipboard(
          p.serial,
          typed.restore,
        );
      }
      this.#pacer.done(p.serial);
    }
    return { pacedMs, gestures, keys, typed: typed.value };
  }

  /**
   * For an `any_text` step beyond `input text`: the clipboard on an emulator keynobi reaches over
   * gRPC, else the ADB keyboard when installed and selected, else a refusal saying what to
   * install, before anything is done.
   */
  async #typingPlan(
    p: ActParams,
  ): Promise<TypingPlan | null> {
    const step = p.steps.find((x) => x.kind === "any_text");
    if (!step || step.kind !== "any_text" || !needsMoreThanInputText(step.text)) return null;
    const why = await this.#o.fast.grpcUnusable(p.serial);
    if (why === null) return { via: "clipboard", fallback: null };
    try {
      await requireAdbKeyboard(this.#o.adb, p.serial, { timeoutMs: INPUT_TIMEOUT_MS });
    } catch (e) {
      if (!(e instanceof ToolError)) throw e;
      const shown = [...new Set([...step.text].filter((c) => !inputTextCanType(c)))].slice(0, 5)
        .map((c) => JSON.stringify(c)).join(", ");
      const emulator = why.code === "not_emulator"
        ? `${p.serial} is not an emulator (an emulator types any text through its clipboard)`
        : `the emulator's clipboard is out of reach (${why.reason})`;
      throw new ToolError(
        "invalid_request",
        `Cannot type ${shown} on ${p.serial}: input text types only printable ASCII, ${emulator}, ` +
          `and ${e.message.charAt(0).toLowerCase()}${e.message.slice(1)}`,
        { serial: p.serial, install: "ADBKeyBoard (com.android.adbkeyboard/.AdbIME)" },
      );
    }
    return { via: "adb_keyboard", fallback: why.code === "not_emulator" ? null : why };
  }

  /** The field holds the pasted text (a paste may land a frame later): else the call fails. */
  async #checkPasted(
    serial: string,
    node: Match | null,
    step: Extract<ActStep, { kind: "any_text" }>,
    ctx: CallContext,
  ): Promise<void> {
    if (!node) throw noFocusedField();
    let shown = "";
    for (let i = 0; i < PASTE_CHECKS; i++) {
      if (i > 0) await delay(PASTE_CHECK_GAP_MS, ctx.signal);
      const r = await this.#o.service.resolve(
        { serial, target: node.path, expectScreenHash: null },
        ctx,
      ).catch(() => null);
      shown = r?.node.text ?? "";
      if (r && fieldShows(shown, step.text, step.exact, r.node.password)) return;
    }
    throw new ToolError(
      "command_failed",
      `The paste did not leave the text in ${node.path} (it shows ${
        JSON.stringify(shown.slice(0, 80))
      }): the emulator's clipboard may not reach the device (clipboard sharing off in its ` +
        "settings); the user's clipboard was put back. Install and select the ADB keyboard, or " +
        "type ASCII",
      { tree_path: node.path },
    );
  }

  /**
   * The target is under the keyboard: BACK (paced like any action), settle, and find it again at
   * its tree path; refused when it moved, changed, or is still not tappable.
   */
  async #hideKeyboardFor(
    serial: string,
    r: ResolveResult,
    target: string,
    ctx: CallContext,
  ): Promise<ResolveResult> {
    await this.#pacer.before(serial, ctx.signal);
    try {
      await runInput(this.#o.adb, serial, keyeventArgv(["KEYCODE_BACK"]), ctx.signal);
    } finally {
      this.#pacer.done(serial);
    }
    const ui = this.#o.service;
    await ui.settle({ serial, maxRows: MAX_ROWS, activity: false, internal: true }, ctx);
    const again = await ui.resolve({ serial, target: r.node.path, expectScreenHash: null }, ctx)
      .catch(() => null);
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
    return again;
  }

  #touched(p: ActParams, node: Match | null, at: ActPoint | null): Bounds | null {
    const t = p.touched ?? null;
    if (t === null) return null;
    if (t === "target") return node?.bounds ?? (at ? dot(at) : null);
    if (t === "points") {
      const q = p.points?.[0] ?? at;
      return q ? dot(q) : null;
    }
    return t;
  }

  // deno-lint-ignore house/long-function -- find, act, settle, verify share the target and screen
  async #step(
    p: ActParams,
    step: ActStep,
    target: { node: Match | null; at: ActPoint | null; screen: ActResult["screen"] },
    gestures: GestureResult[],
    keys: (PathResult & { sent: boolean })[],
    signal: AbortSignal,
    typed: { value: TypedVia | undefined; restore: string | null },
  ): Promise<void> {
    const adb = this.#o.adb;
    switch (step.kind) {
      case "any_text": {
        const via = typed.value?.via ?? "input_text";
        if (via === "input_text") {
          typed.value = { via };
          for (const chunk of inputTextChunks(step.text)) {
            await runInput(adb, p.serial, ["input", "text", chunk], signal);
          }
        } else if (via === "adb_keyboard") {
          await this.#step(
            p,
            { kind: "unicode_text", text: step.text },
            target,
            gestures,
            keys,
            signal,
            typed,
          );
        } else {
          if (!target.node) throw noFocusedField();
          const swap = await this.#o.fast.swapClipboard(p.serial, step.text, signal);
          if (!swap.ok) {
            throw new ToolError(
              "command_failed",
              `Could not put the text on the emulator's clipboard (${swap.fallback.reason}), so ` +
                "nothing was typed; install and select the ADB keyboard, or type ASCII",
              { serial: p.serial },
            );
          }
          typed.restore = swap.previous;
          await delay(CLIPBOARD_HANDOFF_MS, signal);
          await runInput(adb, p.serial, keyeventArgv(["KEYCODE_PASTE"]), signal);
        }
        return;
      }
      case "gesture":
        gestures.push(
          await this.#o.fast.gesture(
            { serial: p.serial, gesture: this.#gesture(step.gesture, target) },
            signal,
          ),
        );
        return;
      case "text":
        for (const chunk of inputTextChunks(step.text)) {
          await runInput(adb, p.serial, ["input", "text", chunk], signal);
        }
        return;
      case "clear": {
        if (!target.node) throw noFocusedField();
        const chars = [...target.node.text].length;
        await runInput(adb, p.serial, keyeventArgv(clearKeys(chars + 1)), signal);
        return;
      }
      case "key": {
        const k = await this.#o.fast.key({ serial: p.serial, key: step.key }, signal);
        if (!k.sent) await runInput(adb, p.serial, keyeventArgv([step.key]), signal);
        keys.push(k);
        return;
      }
      case "input_key":
        await runInput(adb, p.serial, keyeventArgv([step.key]), signal);
        return;
      case "erase":
        await runInput(adb, p.serial, keyeventArgv(clearKeys(step.count)), signal);
        return;
      case "unicode_text": {
        const argv = unicodeTextArgv(step.text);
        const r = await adb.shell(p.serial, argv, { signal, timeoutMs: INPUT_TIMEOUT_MS });
        if (r.exitCode !== null && r.exitCode !== 0) {
          throw new ToolError(
            "command_failed",
            `am broadcast failed on ${p.serial} (exit ${r.exitCode}): check that the ADB ` +
              "keyboard is the selected input method, then retry",
            { exit_code: r.exitCode },
          );
        }
        return;
      }
    }
  }

  #gesture(
    g: ActGesture,
    t: { node: Match | null; at: ActPoint | null; screen: ActResult["screen"] },
  ): Gesture {
    const pt = (a: ActAt): ActPoint => {
      if (a !== "target") return a;
      if (!t.at) throw invalidParams("This action needs a target element or point");
      return t.at;
    };
    switch (g.kind) {
      case "tap":
        return { kind: "tap", at: pt(g.at) };
      case "long_press":
        return { kind: "long_press", at: pt(g.at), ms: g.ms };
      case "swipe":
        return g;
      case "pinch": {
        const center = g.center === "screen_center"
          ? {
            x: Math.round((t.screen?.width ?? 0) / 2),
            y: Math.round((t.screen?.height ?? 0) / 2),
          }
          : pt(g.center);
        return { kind: "pinch", center, scale: g.scale, ms: g.ms };
      }
      case "drag":
        return { ...g, path: g.path.map(pt) };
    }
  }
}

function dot(p: ActPoint): Bounds {
  return { left: p.x, top: p.y, right: p.x + 1, bottom: p.y + 1 };
}
