/**
 * Runs a checked flow (flow_types.ts) step by step on keynobi's own UI engine, through a
 * `FlowDevice` (lib/tools/ui/flows.ts makes one from the tool context): each element step is ONE
 * UI worker request (`ui.act` with a `flow` target, or `ui.flowFind`), so a step waits for its
 * element, refuses a covered one, hides a keyboard that covers it and settles after acting, as
 * the ui_* tools do. The run stops at the first step that does not hold, with the settled screen
 * there. Every step is timed; the run has a deadline and a bound on steps run.
 */
import { isToolError, ToolError } from "../../../core/errors.ts";
import type { ActParams, ActResult, NamedPoint } from "../act_types.ts";
import type { FlowFindParams, FlowFindResult, SettleResultMessage } from "../protocol.ts";
import { describeFlowSelector, type FlowSelector } from "./flow_selector.ts";
import { inputTextCanType } from "../text_rules.ts";
import type { Flow, FlowCondition, FlowPoint, FlowStep, SwipeDirection } from "./flow_types.ts";
import {
  DEFAULT_FLOW_LOOKUP_MS,
  MAX_FLOW_SCREENSHOTS,
  MAX_FLOW_STEPS_RUN,
  MAX_REPEAT_TIMES,
  MAX_SCROLL_SWIPES,
} from "./flow_limits.ts";

/** Step reports a run returns at most (the failing one is always among them). */
const MAX_REPORTED_STEPS = 300;

/** What a flow needs of a device (one serial); every call honours the tool's cancellation. */
export interface FlowDevice {
  act(p: Omit<ActParams, "serial" | "minIntervalMs">): Promise<ActResult>;
  flowFind(p: Omit<FlowFindParams, "serial">): Promise<FlowFindResult>;
  /** Capture until the screen is still (no baseline); the settled list. */
  settle(maxMs: number, maxRows?: number): Promise<SettleResultMessage>;
  /** Whether the soft keyboard shows now. */
  keyboardShown(): Promise<boolean>;
  /** The screen's size now (px, as rotated). */
  screenSize(): Promise<{ width: number; height: number }>;
  launch(appId: string, o: { clearState: boolean; stopApp: boolean }): Promise<string>;
  stop(appId: string): Promise<string>;
  clearState(appId: string): Promise<string>;
  openLink(link: string): Promise<string>;
  screenshot(): Promise<{ data: string; mimeType: string }>;
}

export interface StepReport {
  /** `3`, or `5.2` inside step 5 (`5.2.1`: iteration 2 of a repeat, its step 1). */
  index: string;
  command: string;
  /** What was done (or why it did not hold). */
  detail: string;
  status: "passed" | "failed" | "skipped";
  ms: number;
  source: string;
  line: number | null;
  error?: { code: string; message: string };
}

export interface FlowReport {
  passed: boolean;
  durationMs: number;
  /** Steps run (nested and repeated ones counted), of which these are the reported ones. */
  stepsRun: number;
  steps: StepReport[];
  /** Reports left out past MAX_REPORTED_STEPS. */
  omittedSteps: number;
  failed: StepReport | null;
  /** The settled screen at the failure. */
  screen: SettleResultMessage | null;
  screenshots: { name: string; data: string; mimeType: string }[];
}

interface RunFlowOptions {
  deadlineMs: number;
  /** Element lookups of steps that name no timeout. */
  lookupMs?: number;
  /** A small screenshot at the failure. */
  screenshotOnFailure?: boolean;
  now?: () => number;
}

class FlowStop extends Error {}

export async function runFlow(flow: Flow, dev: FlowDevice, o: RunFlowOptions): Promise<FlowReport> {
  const now = o.now ?? (() => performance.now());
  const started = now();
  const r = new Runner(dev, o, now, started + o.deadlineMs);
  let failed: StepReport | null = null;
  try {
    await r.steps(flow.steps, "");
  } catch (e) {
    if (!(e instanceof FlowStop)) throw e;
    failed = r.failed;
  }
  let screen: SettleResultMessage | null = null;
  if (failed) {
    screen = await dev.settle(3_000).catch(() => null);
    if (o.screenshotOnFailure && r.shots.length < MAX_FLOW_SCREENSHOTS) {
      const s = await dev.screenshot().catch(() => null);
      if (s) r.shots.push({ name: "failure", ...s });
    }
  }
  return {
    passed: failed === null,
    durationMs: Math.round(now() - started),
    stepsRun: r.run,
    steps: r.reports,
    omittedSteps: r.omitted,
    failed,
    screen,
    screenshots: r.shots,
  };
}

const ms = (t0: number, t1: number) => Math.round(t1 - t0);

class Runner {
  run = 0;
  reports: StepReport[] = [];
  omitted = 0;
  failed: StepReport | null = null;
  shots: { name: string; data: string; mimeType: string }[] = [];

  constructor(
    private dev: FlowDevice,
    private o: RunFlowOptions,
    private now: () => number,
    private deadline: number,
  ) {}

  #report(r: StepReport) {
    if (this.reports.length < MAX_REPORTED_STEPS || r.status === "failed") this.reports.push(r);
    else this.omitted++;
  }

  async steps(steps: readonly FlowStep[], prefix: string): Promise<void> {
    for (let i = 0; i < steps.length; i++) {
      await this.step(steps[i], `${prefix}${i + 1}`);
    }
  }

  /** A lookup's time: the step's, else the run's, never past the deadline. */
  #wait(stepMs: number | null): number {
    const want = stepMs ?? this.o.lookupMs ?? DEFAULT_FLOW_LOOKUP_MS;
    return Math.max(0, Math.min(want, Math.floor(this.deadline - this.now())));
  }

  async step(s: FlowStep, index: string): Promise<void> {
    if (++this.run > MAX_FLOW_STEPS_RUN) {
      this.#fail(
        s,
        index,
        0,
        new ToolError(
          "invalid_request",
          `The flow ran ${MAX_FLOW_STEPS_RUN} steps: it stops there (a repeat that never ends?)`,
        ),
      );
    }
    const t0 = this.now();
    if (t0 >= this.deadline) {
      this.#fail(
        s,
        index,
        0,
        new ToolError(
          "timeout",
          "The flow's time ran out before this step: raise timeout_ms or split the flow",
        ),
      );
    }
    if (s.cmd === "runFlow" || s.cmd === "repeat") {
      await this.#container(s, index, t0);
      return;
    }
    let detail: string;
    let status: StepReport["status"] = "passed";
    try {
      const d = await this.#do(s);
      detail = d.detail;
      if (d.skipped) status = "skipped";
    } catch (e) {
      if (!isToolError(e)) throw e;
      this.#fail(s, index, ms(t0, this.now()), e as ToolError);
    }
    this.#report({
      index,
      command: s.cmd === "tapOn" && s.long ? "longPressOn" : s.cmd,
      detail: detail!,
      status,
      ms: ms(t0, this.now()),
      source: s.source,
      line: s.line,
    });
  }

  #fail(s: FlowStep, index: string, took: number, e: ToolError): never {
    const r: StepReport = {
      index,
      command: s.cmd === "tapOn" && s.long ? "longPressOn" : s.cmd,
      detail: e.message,
      status: "failed",
      ms: took,
      source: s.source,
      line: s.line,
      error: { code: e.code, message: e.message },
    };
    this.#report(r);
    this.failed = r;
    throw new FlowStop();
  }

  async #container(
    s: Extract<FlowStep, { cmd: "runFlow" | "repeat" }>,
    index: string,
    t0: number,
  ): Promise<void> {
    const head: StepReport = {
      index,
      command: s.cmd,
      detail: "",
      status: "passed",
      ms: 0,
      source: s.source,
      line: s.line,
    };
    this.#report(head);
    const finish = (detail: string, status: StepReport["status"] = "passed") => {
      head.detail = detail;
      head.status = status;
      head.ms = ms(t0, this.now());
    };
    try {
      if (s.cmd === "runFlow") {
        if (s.when && !(await this.#holds(s.when))) {
          finish(`skipped ${s.name}: its when condition does not hold`, "skipped");
          return;
        }
        await this.steps(s.steps, `${index}.`);
        finish(`ran ${s.name} (${s.steps.length} steps)`);
        return;
      }
      const max = s.times ?? MAX_REPEAT_TIMES;
      let n = 0;
      while (n < max) {
        if (s.while && !(await this.#holds(s.while))) break;
        n++;
        await this.steps(s.steps, `${index}.${n}.`);
      }
      finish(`repeated ${n} time${n === 1 ? "" : "s"}`);
    } catch (e) {
      if (e instanceof FlowStop) {
        finish(`stopped at step ${this.failed?.index ?? "?"}`, "failed");
      }
      throw e;
    }
  }

  async #holds(c: FlowCondition): Promise<boolean> {
    if (c.never) return false;
    if (c.visible) {
      const f = await this.dev.flowFind({ selector: c.visible, want: "visible", timeoutMs: 0 });
      if (!f.met) return false;
    }
    if (c.notVisible) {
      const f = await this.dev.flowFind({ selector: c.notVisible, want: "gone", timeoutMs: 0 });
      if (!f.met) return false;
    }
    return true;
  }

  // deno-lint-ignore house/long-function -- one case per flow command, each a few lines
  async #do(s: FlowStep): Promise<{ detail: string; skipped?: boolean }> {
    const d = this.dev;
    switch (s.cmd) {
      case "launchApp":
        return { detail: await d.launch(s.appId, s) };
      case "stopApp":
        return { detail: await d.stop(s.appId) };
      case "clearState":
        return { detail: await d.clearState(s.appId) };
      case "tapOn":
        return await this.#tap(s);
      case "inputText": {
        // As ui_type_text: beyond ASCII the text is pasted (emulator) or sent through the ADB
        // keyboard, and checked against the focused field, which is found first.
        const ascii = [...s.text].every(inputTextCanType);
        const r = await d.act({
          target: ascii ? { kind: "none" } : { kind: "focused" },
          steps: [{ kind: "any_text", text: s.text, exact: false }],
        });
        return { detail: `typed ${[...s.text].length} characters${settleNote(r)}` };
      }
      case "eraseText": {
        const r = await d.act({
          target: { kind: "none" },
          steps: [{ kind: "erase", count: s.count }],
        });
        return { detail: `erased up to ${s.count} characters${settleNote(r)}` };
      }
      case "assertVisible":
      case "assertNotVisible":
      case "extendedWaitUntil": {
        const visible = s.cmd === "extendedWaitUntil" ? s.visible : s.cmd === "assertVisible";
        const f = await d.flowFind({
          selector: s.selector,
          want: visible ? "visible" : "gone",
          timeoutMs: this.#wait(s.timeoutMs),
        });
        if (f.met) {
          return {
            detail: visible
              ? `${describeFlowSelector(s.selector)} is visible (${f.elapsedMs} ms)`
              : `nothing visible matches ${describeFlowSelector(s.selector)} (${f.elapsedMs} ms)`,
          };
        }
        if (s.cmd !== "extendedWaitUntil" && s.optional) {
          return { detail: `optional assertion did not hold; went on`, skipped: true };
        }
        throw assertionFailed(s.selector, visible, f);
      }
      case "scrollUntilVisible":
        return await this.#scrollUntil(s.selector, s.direction, s.timeoutMs);
      case "swipe": {
        const size = await d.screenSize();
        const [from, to] = s.direction
          ? swipeLine(s.direction, size)
          : [toPx(s.start!, size), toPx(s.end!, size)];
        const r = await d.act({
          target: { kind: "screen" },
          points: [named(from, ["start", "start"]), named(to, ["end", "end"])],
          steps: [{
            kind: "gesture",
            gesture: { kind: "swipe", from, to, ms: s.durationMs, fling: false },
          }],
          touched: null,
        });
        return {
          detail: `${s.scroll ? "scrolled" : "swiped"} (${from.x},${from.y}) → (${to.x},${to.y})` +
            settleNote(r),
        };
      }
      case "back": {
        const r = await d.act({
          target: { kind: "none" },
          steps: [{ kind: "key", key: "KEYCODE_BACK" }],
        });
        return { detail: `pressed Back${settleNote(r)}` };
      }
      case "pressKey": {
        const r = await d.act({ target: { kind: "none" }, steps: [{ kind: "key", key: s.key }] });
        return { detail: `pressed ${s.name} (${s.key})${settleNote(r)}` };
      }
      case "hideKeyboard": {
        if (!(await d.keyboardShown())) return { detail: "no keyboard shown" };
        const r = await d.act({
          target: { kind: "none" },
          steps: [{ kind: "input_key", key: "KEYCODE_BACK" }],
        });
        return { detail: `hid the keyboard${settleNote(r)}` };
      }
      case "openLink":
        return { detail: await d.openLink(s.link) };
      case "waitForAnimationToEnd": {
        const r = await d.settle(this.#wait(s.timeoutMs));
        return {
          detail: r.settled && !r.list.loading
            ? `still after ${r.settleMs} ms`
            : `still changing after ${r.settleMs} ms; went on (as Maestro does)`,
        };
      }
      case "takeScreenshot": {
        if (this.shots.length >= MAX_FLOW_SCREENSHOTS) {
          return {
            detail: `not taken: a run returns ${MAX_FLOW_SCREENSHOTS} screenshots at most`,
            skipped: true,
          };
        }
        this.shots.push({ name: s.name, ...await d.screenshot() });
        return { detail: `screenshot ${JSON.stringify(s.name)} returned with the result` };
      }
      case "runFlow":
      case "repeat":
        throw new TypeError("containers run in #container");
    }
  }

  async #tap(
    s: Extract<FlowStep, { cmd: "tapOn" }>,
  ): Promise<{ detail: string; skipped?: boolean }> {
    const verb = s.long ? "long-pressed" : "tapped";
    const gesture = (at: "target" | { x: number; y: number }) =>
      s.long ? { kind: "long_press" as const, at, ms: 1_000 } : { kind: "tap" as const, at };
    if (s.point) {
      const p = toPx(s.point, await this.dev.screenSize());
      const r = await this.dev.act({
        target: { kind: "screen" },
        points: [named(p, ["point", "point"])],
        steps: [{ kind: "gesture", gesture: gesture(p) }],
        touched: "points",
      });
      return { detail: `${verb} (${p.x},${p.y})${settleNote(r)}` };
    }
    const sel = s.selector!;
    try {
      const r = await this.dev.act({
        target: { kind: "flow", selector: sel, timeoutMs: this.#wait(s.timeoutMs) },
        steps: [{ kind: "gesture", gesture: gesture("target") }],
        touched: "target",
      });
      const n = r.node!;
      const label = n.text || n.contentDesc || n.resourceId.replace(/^.*:id\//, "");
      return {
        detail: `${r.hidKeyboard ? "hid the keyboard, then " : ""}${verb} ` +
          `${shortClass(n.className)}${label ? ` ${JSON.stringify(label)}` : ""} at ` +
          `(${r.at!.x},${r.at!.y})${settleNote(r)}`,
      };
    } catch (e) {
      if (s.optional && isToolError(e) && e.code === "not_found") {
        return { detail: `optional: ${e.message}; went on`, skipped: true };
      }
      throw e;
    }
  }

  async #scrollUntil(
    sel: FlowSelector,
    dir: SwipeDirection,
    timeoutMs: number,
  ): Promise<{ detail: string }> {
    const t0 = this.now();
    const end = Math.min(this.deadline, t0 + timeoutMs);
    let swipes = 0;
    while (true) {
      const f = await this.dev.flowFind({ selector: sel, want: "visible", timeoutMs: 0 });
      if (f.met) {
        return {
          detail: `${describeFlowSelector(sel)} is visible after ${swipes} swipe${
            swipes === 1 ? "" : "s"
          }`,
        };
      }
      if (this.now() >= end || swipes >= MAX_SCROLL_SWIPES) {
        throw new ToolError(
          "not_found",
          `${describeFlowSelector(sel)} did not become visible after ${swipes} swipes ` +
            `(${ms(t0, this.now())} ms, scrolling ${dir.toLowerCase()})`,
          { screen_hash: f.screenHash, total: f.total },
        );
      }
      // Scrolling DOWN shows what is below: the finger moves up.
      const opposite = ({ UP: "DOWN", DOWN: "UP", LEFT: "RIGHT", RIGHT: "LEFT" } as const)[dir];
      const [from, to] = swipeLine(opposite, f.screen);
      await this.dev.act({
        target: { kind: "screen" },
        points: [named(from, ["start", "start"]), named(to, ["end", "end"])],
        steps: [{ kind: "gesture", gesture: { kind: "swipe", from, to, ms: 400, fling: false } }],
        touched: null,
        internal: true,
      });
      swipes++;
    }
  }
}

function assertionFailed(sel: FlowSelector, visible: boolean, f: FlowFindResult): ToolError {
  const what = describeFlowSelector(sel);
  const message = visible
    ? f.total === 0
      ? `Assertion failed: nothing matches ${what} after ${f.elapsedMs} ms`
      : `Assertion failed: ${f.total} element(s) match ${what} but none is visible` +
        `${f.coveredBy ? ` (covered by ${f.coveredBy.text || f.coveredBy.className})` : ""} ` +
        `after ${f.elapsedMs} ms`
    : `Assertion failed: ${f.visible} visible element(s) still match ${what} after ` +
      `${f.elapsedMs} ms`;
  return new ToolError("not_found", message, {
    screen_hash: f.screenHash,
    total: f.total,
    visible: f.visible,
  });
}

function settleNote(r: ActResult): string {
  const s = r.settle;
  if (!s) return "";
  return s.settled ? `; settled in ${s.settleMs} ms` : `; still changing after ${s.settleMs} ms`;
}

function shortClass(c: string): string {
  return c.split(".").pop() ?? c;
}

function named(p: { x: number; y: number }, names: [string, string]): NamedPoint {
  return { x: p.x, y: p.y, names };
}

function toPx(p: FlowPoint, size: { width: number; height: number }): { x: number; y: number } {
  if (!p.percent) return { x: p.x, y: p.y };
  return {
    x: Math.min(size.width - 1, Math.round(size.width * p.x / 100)),
    y: Math.min(size.height - 1, Math.round(size.height * p.y / 100)),
  };
}

/** A swipe across the middle of the screen in `dir` (the finger's direction). */
function swipeLine(
  dir: SwipeDirection,
  size: { width: number; height: number },
): [{ x: number; y: number }, { x: number; y: number }] {
  const w = size.width, h = size.height;
  const cx = Math.round(w / 2), cy = Math.round(h / 2);
  switch (dir) {
    case "UP":
      return [{ x: cx, y: Math.round(h * 0.7) }, { x: cx, y: Math.round(h * 0.3) }];
    case "DOWN":
      return [{ x: cx, y: Math.round(h * 0.3) }, { x: cx, y: Math.round(h * 0.7) }];
    case "LEFT":
      return [{ x: Math.round(w * 0.8), y: cy }, { x: Math.round(w * 0.2), y: cy }];
    case "RIGHT":
      return [{ x: Math.round(w * 0.2), y: cy }, { x: Math.round(w * 0.8), y: cy }];
  }
}
