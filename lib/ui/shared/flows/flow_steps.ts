/**
 * One Maestro step → a checked FlowStep (flow_types.ts): the step's command, then one reader per
 * supported command (`STEP_READERS`), runFlow and repeat reading their nested steps the same way.
 * Unknown keys, bounds passed and unsupported commands are `invalid_params` naming the step.
 */
import { invalidParams } from "../../../core/errors.ts";
import { validateKeyName } from "../../../core/validation.ts";
import { checkTextLength } from "../text_rules.ts";
import { FLOW_SELECTOR_KEYS, type FlowSelector, parseFlowSelector } from "./flow_selector.ts";
import {
  DEFAULT_ERASE_CHARS,
  DEFAULT_FLOW_SWIPE_MS,
  DEFAULT_SCROLL_UNTIL_MS,
  MAX_ERASE_CHARS,
  MAX_FLOW_DEPTH,
  MAX_FLOW_LOOKUP_MS,
  MAX_FLOW_STEPS,
  MAX_FLOW_SWIPE_MS,
  MAX_REPEAT_TIMES,
  MAX_SCROLL_UNTIL_MS,
} from "./flow_limits.ts";
import { type FlowCondition, type FlowStep, SUPPORTED_COMMANDS } from "./flow_types.ts";
import {
  bool,
  checkEnv,
  type Ctx,
  deepSubst,
  direction,
  int,
  keys,
  PACKAGE_NAME_RE,
  point,
  str,
  subst,
  where,
} from "./flow_values.ts";

/** Maestro's pressKey names → Android key codes. */
const PRESS_KEYS: Readonly<Record<string, string>> = {
  enter: "KEYCODE_ENTER",
  backspace: "KEYCODE_DEL",
  back: "KEYCODE_BACK",
  home: "KEYCODE_HOME",
  tab: "KEYCODE_TAB",
  escape: "KEYCODE_ESCAPE",
  "volume up": "KEYCODE_VOLUME_UP",
  "volume down": "KEYCODE_VOLUME_DOWN",
  power: "KEYCODE_POWER",
  lock: "KEYCODE_POWER",
  "remote dpad up": "KEYCODE_DPAD_UP",
  "remote dpad down": "KEYCODE_DPAD_DOWN",
  "remote dpad left": "KEYCODE_DPAD_LEFT",
  "remote dpad right": "KEYCODE_DPAD_RIGHT",
  "remote dpad center": "KEYCODE_DPAD_CENTER",
};

type Command = typeof SUPPORTED_COMMANDS[number];

/** One step as read: its command and argument, and what every message and result carries. */
interface StepInput {
  ctx: Ctx;
  cmd: Command;
  arg: unknown;
  /** `Flow <source> line <n>: <cmd>`, the start of every message about the step. */
  w: string;
  base: { line: number | null; source: string };
  /** The header's appId, the default of every step that names an app. */
  appId: string | null;
}

/** The steps of a list, in order (`nodes` are their YAML nodes, for line numbers). */
export async function parseSteps(
  ctx: Ctx,
  list: unknown[],
  nodes: unknown[],
  appId: string | null,
): Promise<FlowStep[]> {
  const out: FlowStep[] = [];
  for (let i = 0; i < list.length; i++) {
    out.push(await parseStep(ctx, list[i], nodes[i], appId));
  }
  return out;
}

async function parseStep(
  ctx: Ctx,
  raw: unknown,
  node: unknown,
  appId: string | null,
): Promise<FlowStep> {
  if (++ctx.count.steps > MAX_FLOW_STEPS) {
    throw invalidParams(`Flow ${ctx.source}: more than ${MAX_FLOW_STEPS} steps in all`);
  }
  let cmd: string;
  let arg: unknown;
  if (typeof raw === "string") {
    cmd = raw;
    arg = null;
  } else if (
    raw && typeof raw === "object" && !Array.isArray(raw) && Object.keys(raw).length === 1
  ) {
    [cmd, arg] = Object.entries(raw as Record<string, unknown>)[0];
  } else {
    throw invalidParams(
      `${where(ctx, node, "a step")} must be a command name or one command: value (such as ` +
        "- tapOn: Sign in)",
    );
  }
  const w = where(ctx, node, cmd);
  if (!(SUPPORTED_COMMANDS as readonly string[]).includes(cmd)) {
    throw invalidParams(
      `${w} is not supported, so nothing ran; supported steps: ${SUPPORTED_COMMANDS.join(", ")}`,
    );
  }
  const base = { line: ctx.lineOf(node), source: ctx.source };
  return await STEP_READERS[cmd as Command]({ ctx, cmd: cmd as Command, arg, w, base, appId });
}

/** The step's argument as a map of `allowed` keys (none given: empty). */
function argMap(s: StepInput, allowed: readonly string[]): Record<string, unknown> {
  if (s.arg === null || s.arg === undefined) return {};
  if (typeof s.arg !== "object" || Array.isArray(s.arg)) {
    throw invalidParams(`${s.w}: expected a map of ${allowed.join(", ")}`);
  }
  const m = s.arg as Record<string, unknown>;
  keys(m, allowed, s.w);
  return m;
}

/** The app a step names, else the header's. */
function needApp(s: StepInput, v: unknown): string {
  const a = v === undefined || v === null ? s.appId : str(s.ctx, v, `${s.w}.appId`, null);
  if (a === null) throw invalidParams(`${s.w}: name the app (appId in the header or the step)`);
  if (!PACKAGE_NAME_RE.test(a)) {
    throw invalidParams(`${s.w}: appId ${JSON.stringify(a)} is not a package name`);
  }
  return a;
}

/** An element lookup's own `timeout`, or null for the default. */
function lookup(s: StepInput, m: Record<string, unknown>): number | null {
  return m.timeout === undefined
    ? null
    : int(m.timeout, `${s.w}.timeout`, 0, 0, MAX_FLOW_LOOKUP_MS);
}

function selector(s: StepInput, v: unknown, w = s.w): FlowSelector {
  return parseFlowSelector(deepSubst(s.ctx, v, s.w), w);
}

/** The argument's value under `key` when it is a map, else the argument itself. */
function valueOrKey(s: StepInput, key: string, allowed: readonly string[]): unknown {
  return typeof s.arg === "object" && s.arg !== null ? argMap(s, allowed)[key] : s.arg;
}

/** Keys of tapOn besides the selector's. */
const TAP_KEYS = ["optional", "label", "retryTapIfNoChange", "waitToSettleTimeoutMs", "timeout"];

function tapOn(s: StepInput): FlowStep {
  const long = s.cmd === "longPressOn", w = s.w;
  if (s.arg === null || typeof s.arg !== "object" || Array.isArray(s.arg)) {
    return {
      ...s.base,
      cmd: "tapOn",
      long,
      selector: selector(s, s.arg),
      point: null,
      optional: false,
      timeoutMs: null,
      label: null,
    };
  }
  const m = s.arg as Record<string, unknown>;
  const {
    optional,
    label,
    point: pt,
    retryTapIfNoChange: _r,
    waitToSettleTimeoutMs: _s,
    timeout: _t,
    ...sel
  } = m;
  const onlyPoint = Object.keys(sel).length === 0 && pt !== undefined;
  if (pt !== undefined && !onlyPoint) {
    throw invalidParams(
      `${w}: point inside an element is not supported; tap the element or a screen point`,
    );
  }
  for (const k of Object.keys(sel)) {
    if (!TAP_KEYS.includes(k) && !(FLOW_SELECTOR_KEYS as readonly string[]).includes(k)) {
      throw invalidParams(
        `${w}: key ${JSON.stringify(k)} is not supported; use a selector (text, id, index, ` +
          "below, above, leftOf, rightOf, childOf, enabled, checked, focused, selected), " +
          "point, optional, label",
      );
    }
  }
  return {
    ...s.base,
    cmd: "tapOn",
    long,
    selector: onlyPoint ? null : selector(s, sel),
    point: onlyPoint ? point(s.ctx, pt, `${w}.point`) : null,
    optional: bool(optional, `${w}.optional`, false),
    timeoutMs: lookup(s, m),
    label: typeof label === "string" ? label : null,
  };
}

function launchApp(s: StepInput): FlowStep {
  if (typeof s.arg === "string") {
    return {
      ...s.base,
      cmd: "launchApp",
      appId: needApp(s, s.arg),
      clearState: false,
      stopApp: true,
    };
  }
  const m = argMap(s, ["appId", "clearState", "stopApp", "label"]);
  return {
    ...s.base,
    cmd: "launchApp",
    appId: needApp(s, m.appId),
    clearState: bool(m.clearState, `${s.w}.clearState`, false),
    stopApp: bool(m.stopApp, `${s.w}.stopApp`, true),
  };
}

function stopOrClear(s: StepInput): FlowStep {
  const app = typeof s.arg === "string" ? s.arg : argMap(s, ["appId"]).appId;
  return { ...s.base, cmd: s.cmd as "stopApp" | "clearState", appId: needApp(s, app) };
}

/** back, hideKeyboard: no argument but a label. */
function noArgument(s: StepInput): FlowStep {
  if (s.arg !== null && s.arg !== undefined) argMap(s, ["label"]);
  return { ...s.base, cmd: s.cmd as "back" | "hideKeyboard" };
}

function inputText(s: StepInput): FlowStep {
  const text = str(s.ctx, valueOrKey(s, "text", ["text", "label"]), s.w, null);
  try {
    checkTextLength(text);
  } catch (e) {
    throw invalidParams(`${s.w}: ${(e as Error).message}`);
  }
  return { ...s.base, cmd: "inputText", text };
}

function assertVisible(s: StepInput): FlowStep {
  const m = typeof s.arg === "object" && s.arg !== null && !Array.isArray(s.arg)
    ? s.arg as Record<string, unknown>
    : null;
  const { optional, label: _l, timeout: _t, ...sel } = m ?? {};
  return {
    ...s.base,
    cmd: s.cmd as "assertVisible" | "assertNotVisible",
    selector: selector(s, m ? sel : s.arg),
    optional: bool(optional, `${s.w}.optional`, false),
    timeoutMs: m ? lookup(s, m) : null,
  };
}

function extendedWaitUntil(s: StepInput): FlowStep {
  const m = argMap(s, ["visible", "notVisible", "timeout", "label"]);
  if ((m.visible === undefined) === (m.notVisible === undefined)) {
    throw invalidParams(`${s.w}: name visible or notVisible (one of them)`);
  }
  const visible = m.visible !== undefined;
  return {
    ...s.base,
    cmd: "extendedWaitUntil",
    visible,
    selector: selector(s, visible ? m.visible : m.notVisible),
    timeoutMs: int(m.timeout, `${s.w}.timeout`, MAX_FLOW_LOOKUP_MS, 0, MAX_FLOW_LOOKUP_MS),
  };
}

const SCROLL_UNTIL_KEYS = [
  "element",
  "direction",
  "timeout",
  "speed",
  "visibilityPercentage",
  "centerElement",
  "label",
];

function scrollUntilVisible(s: StepInput): FlowStep {
  const m = argMap(s, SCROLL_UNTIL_KEYS), w = s.w;
  if (m.element === undefined) throw invalidParams(`${w}: name the element to scroll to`);
  return {
    ...s.base,
    cmd: "scrollUntilVisible",
    selector: selector(s, m.element, `${w}.element`),
    direction: direction(m.direction, `${w}.direction`, "DOWN"),
    timeoutMs: int(m.timeout, `${w}.timeout`, DEFAULT_SCROLL_UNTIL_MS, 0, MAX_SCROLL_UNTIL_MS),
  };
}

function swipe(s: StepInput): FlowStep {
  const m = argMap(s, ["direction", "start", "end", "duration", "label"]), w = s.w;
  const hasPoints = m.start !== undefined || m.end !== undefined;
  if (hasPoints === (m.direction !== undefined)) {
    throw invalidParams(`${w}: give direction, or start and end (not both)`);
  }
  if (hasPoints && (m.start === undefined || m.end === undefined)) {
    throw invalidParams(`${w}: give both start and end`);
  }
  return {
    ...s.base,
    cmd: "swipe",
    direction: hasPoints ? null : direction(m.direction, `${w}.direction`, "UP"),
    start: hasPoints ? point(s.ctx, m.start, `${w}.start`) : null,
    end: hasPoints ? point(s.ctx, m.end, `${w}.end`) : null,
    durationMs: int(m.duration, `${w}.duration`, DEFAULT_FLOW_SWIPE_MS, 50, MAX_FLOW_SWIPE_MS),
    scroll: false,
  };
}

function pressKey(s: StepInput): FlowStep {
  const name = str(s.ctx, s.arg, s.w, null);
  const code = PRESS_KEYS[name.toLowerCase()];
  if (!code) {
    const names = Object.keys(PRESS_KEYS).map((k) => k.replace(/\b\w/g, (c) => c.toUpperCase()));
    throw invalidParams(
      `${s.w}: key ${JSON.stringify(name)} is not supported; use ${names.join(", ")}`,
    );
  }
  return { ...s.base, cmd: "pressKey", key: validateKeyName(code), name };
}

function openLink(s: StepInput): FlowStep {
  const arg = valueOrKey(s, "link", ["link", "autoVerify", "browser", "label"]);
  const link = str(s.ctx, arg, s.w, null);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(link) || link.length > 2_048) {
    throw invalidParams(`${s.w}: ${JSON.stringify(link.slice(0, 80))} is not a URI (scheme:…)`);
  }
  return { ...s.base, cmd: "openLink", link };
}

/** Every supported command's reader (a command missing here does not compile). */
const STEP_READERS: Readonly<Record<Command, (s: StepInput) => FlowStep | Promise<FlowStep>>> = {
  launchApp,
  stopApp: stopOrClear,
  clearState: stopOrClear,
  tapOn,
  longPressOn: tapOn,
  inputText,
  eraseText: (s) => ({
    ...s.base,
    cmd: "eraseText",
    count: int(
      valueOrKey(s, "charactersToErase", ["charactersToErase", "label"]),
      `${s.w}.charactersToErase`,
      DEFAULT_ERASE_CHARS,
      1,
      MAX_ERASE_CHARS,
    ),
  }),
  assertVisible,
  assertNotVisible: assertVisible,
  extendedWaitUntil,
  scrollUntilVisible,
  scroll: (s) => ({
    ...s.base,
    cmd: "swipe",
    direction: "UP",
    start: null,
    end: null,
    durationMs: DEFAULT_FLOW_SWIPE_MS,
    scroll: true,
  }),
  swipe,
  back: noArgument,
  hideKeyboard: noArgument,
  pressKey,
  openLink,
  waitForAnimationToEnd: (s) => ({
    ...s.base,
    cmd: "waitForAnimationToEnd",
    timeoutMs: int(
      argMap(s, ["timeout", "label"]).timeout,
      `${s.w}.timeout`,
      15_000,
      0,
      MAX_FLOW_LOOKUP_MS,
    ),
  }),
  takeScreenshot: (s) => ({
    ...s.base,
    cmd: "takeScreenshot",
    name: str(s.ctx, valueOrKey(s, "path", ["path", "label"]), s.w, "screenshot").slice(0, 200),
  }),
  runFlow: parseRunFlow,
  repeat: parseRepeat,
};

function condition(ctx: Ctx, v: unknown, w: string): FlowCondition | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "object" || Array.isArray(v)) {
    throw invalidParams(`${w}: expected visible: or notVisible:`);
  }
  const m = v as Record<string, unknown>;
  keys(m, ["visible", "notVisible", "platform"], w);
  if (m.platform !== undefined && String(m.platform).toLowerCase() !== "android") {
    return { visible: null, notVisible: null, never: true };
  }
  return {
    visible: m.visible === undefined
      ? null
      : parseFlowSelector(deepSubst(ctx, m.visible, w), `${w}.visible`),
    notVisible: m.notVisible === undefined
      ? null
      : parseFlowSelector(deepSubst(ctx, m.notVisible, w), `${w}.notVisible`),
    never: false,
  };
}

function nested(ctx: Ctx, w: string): void {
  if (ctx.depth + 1 > MAX_FLOW_DEPTH) {
    throw invalidParams(`${w}: runFlow and repeat nest deeper than ${MAX_FLOW_DEPTH}`);
  }
}

async function parseRunFlow({ ctx, arg, w, base, appId }: StepInput): Promise<FlowStep> {
  nested(ctx, w);
  const m: Record<string, unknown> = typeof arg === "string"
    ? { file: arg }
    : (arg as Record<string, unknown>) ?? {};
  if (typeof m !== "object" || Array.isArray(m)) {
    throw invalidParams(`${w}: expected a file or a map`);
  }
  keys(m, ["file", "commands", "when", "env", "label"], w);
  if ((m.file === undefined) === (m.commands === undefined)) {
    throw invalidParams(`${w}: give file or commands (one of them)`);
  }
  const env = Object.fromEntries(
    Object.entries(checkEnv(m.env, `${w}.env`)).map(([k, v]) => [k, subst(ctx, v, `${w}.env`)]),
  );
  const when = condition(ctx, m.when, `${w}.when`);
  if (m.file !== undefined) {
    const file = str(ctx, m.file, `${w}.file`, null);
    if (!ctx.opts.readFile || !ctx.opts.resolvePath) {
      throw invalidParams(
        `${w}: runFlow file ${file} needs a project (an inline flow cannot include files)`,
      );
    }
    const path = ctx.opts.resolvePath(ctx.source, file);
    const text = await ctx.opts.readFile(path);
    const sub = await ctx.include(text, path, { ...ctx.vars, ...env }, ctx.depth + 1);
    return { ...base, cmd: "runFlow", name: path, when, steps: sub.steps };
  }
  if (!Array.isArray(m.commands)) throw invalidParams(`${w}.commands: expected a list of steps`);
  const sub: Ctx = { ...ctx, vars: { ...ctx.vars, ...env }, depth: ctx.depth + 1 };
  const steps: FlowStep[] = [];
  for (const s of m.commands) steps.push(await parseStep(sub, s, null, appId));
  return { ...base, cmd: "runFlow", name: "commands", when, steps };
}

async function parseRepeat({ ctx, arg, w, base, appId }: StepInput): Promise<FlowStep> {
  nested(ctx, w);
  if (!arg || typeof arg !== "object" || Array.isArray(arg)) {
    throw invalidParams(`${w}: expected times or while, and commands`);
  }
  const m = arg as Record<string, unknown>;
  keys(m, ["times", "while", "commands", "label"], w);
  if (m.times === undefined && m.while === undefined) {
    throw invalidParams(`${w}: give times (1..${MAX_REPEAT_TIMES}) or while`);
  }
  if (!Array.isArray(m.commands)) throw invalidParams(`${w}.commands: expected a list of steps`);
  const times = m.times === undefined ? null : int(
    typeof m.times === "string" ? subst(ctx, m.times, `${w}.times`) : m.times,
    `${w}.times`,
    1,
    1,
    MAX_REPEAT_TIMES,
  );
  const cond = condition(ctx, m.while, `${w}.while`);
  const sub: Ctx = { ...ctx, depth: ctx.depth + 1 };
  const steps: FlowStep[] = [];
  for (const s of m.commands) steps.push(await parseStep(sub, s, null, appId));
  return { ...base, cmd: "repeat", times, while: cond, steps };
}
