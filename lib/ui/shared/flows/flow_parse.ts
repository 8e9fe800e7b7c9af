/**
 * Maestro flow YAML → a checked flow (lib/ui/shared/flows/flow_types.ts), all of it before anything runs:
 * the header (`appId`, `name`, `tags`, `env`) and `---`, then the steps; every runFlow file read
 * and parsed too, `${VAR}`s replaced, every selector, text, key and bound checked. A step outside
 * the supported subset, an unknown key or variable, or a bound passed is `invalid_params` that
 * names the step (file and line) and what is supported. YAML is read by npm `yaml` (eemeli/yaml),
 * with its alias limit on.
 */
import { parseAllDocuments } from "yaml";
import { invalidParams } from "../../../core/errors.ts";
import { validateKeyName } from "../../../core/validation.ts";
import { checkTextLength } from "../text_rules.ts";
import { FLOW_SELECTOR_KEYS, parseFlowSelector } from "./flow_selector.ts";
import {
  DEFAULT_ERASE_CHARS,
  DEFAULT_FLOW_SWIPE_MS,
  DEFAULT_SCROLL_UNTIL_MS,
  MAX_ERASE_CHARS,
  MAX_FLOW_BYTES,
  MAX_FLOW_DEPTH,
  MAX_FLOW_ENV_VALUE_CHARS,
  MAX_FLOW_ENV_VARS,
  MAX_FLOW_LOOKUP_MS,
  MAX_FLOW_STEPS,
  MAX_FLOW_SWIPE_MS,
  MAX_REPEAT_TIMES,
  MAX_SCROLL_UNTIL_MS,
} from "./flow_limits.ts";
import {
  type Flow,
  type FlowCondition,
  type FlowPoint,
  type FlowStep,
  SUPPORTED_COMMANDS,
  type SwipeDirection,
} from "./flow_types.ts";

/** Reads a flow file a runFlow names: its project-relative path in, its text out. */
export type FlowFileReader = (path: string) => Promise<string>;

export interface ParseFlowOptions {
  /** Where the text came from: a project-relative path, or `inline`. */
  source: string;
  /** Variables the caller passes (they override the header's `env`). */
  env?: Record<string, string>;
  /** Reads runFlow files; without it, a runFlow with `file` is refused. */
  readFile?: FlowFileReader;
  /** Joins a runFlow's `file` to the including file's folder (project-relative), or refuses. */
  resolvePath?: (from: string, file: string) => string;
}

interface Ctx {
  source: string;
  vars: Record<string, string>;
  opts: ParseFlowOptions;
  count: { steps: number };
  depth: number;
  lineOf: (node: unknown) => number | null;
}

const VAR_RE = /\$\{([^}]*)\}/g;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The byte length check every flow text goes through. */
export function checkFlowSize(text: string, source: string): void {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_FLOW_BYTES) {
    throw invalidParams(`Flow ${source} is ${bytes} bytes, the limit is ${MAX_FLOW_BYTES}`);
  }
}

/** Parses and checks a whole flow (its runFlow files included). */
export async function parseFlow(text: string, opts: ParseFlowOptions): Promise<Flow> {
  const count = { steps: 0 };
  return await parseText(text, opts.source, opts.env ?? {}, opts, count, 0, true);
}

async function parseText(
  text: string,
  source: string,
  outer: Record<string, string>,
  opts: ParseFlowOptions,
  count: { steps: number },
  depth: number,
  callerWins: boolean,
): Promise<Flow> {
  checkFlowSize(text, source);
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (!Array.isArray(docs)) throw invalidParams(`Flow ${source}: it is empty`);
  for (const d of docs) {
    const e = d.errors[0];
    if (e) {
      throw invalidParams(`Flow ${source} is not valid YAML: ${e.message.split("\n")[0]}`);
    }
  }
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  const lineOf = (node: unknown): number | null => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (!range) return null;
    let lo = 0, hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= range[0]) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  let header: Record<string, unknown> = {};
  let stepsDoc;
  if (docs.length === 1) stepsDoc = docs[0];
  else if (docs.length === 2) {
    const h = docs[0].toJS({ maxAliasCount: 100 });
    if (h !== null && (typeof h !== "object" || Array.isArray(h))) {
      throw invalidParams(`Flow ${source}: the header (before ---) must be a map such as appId: …`);
    }
    header = h ?? {};
    stepsDoc = docs[1];
  } else {
    throw invalidParams(
      `Flow ${source} has ${docs.length} YAML documents: a flow is a header, ---, then the steps`,
    );
  }
  for (const k of Object.keys(header)) {
    if (!["appId", "name", "tags", "env"].includes(k)) {
      throw invalidParams(
        `Flow ${source}: header key ${JSON.stringify(k)} is not supported; use appId, name, ` +
          "tags, env",
      );
    }
  }
  const own = checkEnv(header.env, `Flow ${source}: env`);
  const vars = callerWins ? { ...own, ...outer } : { ...outer, ...own };
  const ctx: Ctx = { source, vars, opts, count, depth, lineOf };
  const appId = header.appId === undefined ? null : str(ctx, header.appId, `header appId`, null);
  if (appId !== null && !/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(appId)) {
    throw invalidParams(`Flow ${source}: appId ${JSON.stringify(appId)} is not a package name`);
  }
  const contents = stepsDoc.contents;
  const list = stepsDoc.toJS({ maxAliasCount: 100 });
  if (list === null || list === undefined) {
    throw invalidParams(`Flow ${source} has no steps: after the header and ---, list the steps`);
  }
  if (!Array.isArray(list)) {
    throw invalidParams(
      `Flow ${source}: the steps must be a list (- launchApp, - tapOn: …)` +
        (docs.length === 1 ? "; a header needs --- after it" : ""),
    );
  }
  const items = (contents as { items?: unknown[] } | null)?.items ?? [];
  const steps = await parseSteps(ctx, list, items, appId);
  return {
    appId,
    name: typeof header.name === "string" ? header.name : null,
    source,
    steps,
  };
}

function checkEnv(v: unknown, where: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) {
    throw invalidParams(`${where}: expected a map of NAME: value`);
  }
  const out: Record<string, string> = {};
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_FLOW_ENV_VARS) {
    throw invalidParams(`${where}: ${entries.length} variables, the limit is ${MAX_FLOW_ENV_VARS}`);
  }
  for (const [k, x] of entries) {
    if (!NAME_RE.test(k)) throw invalidParams(`${where}: ${JSON.stringify(k)} is not a name`);
    if (typeof x !== "string" && typeof x !== "number" && typeof x !== "boolean") {
      throw invalidParams(`${where}.${k}: expected a text`);
    }
    const s = String(x);
    if (s.length > MAX_FLOW_ENV_VALUE_CHARS) {
      throw invalidParams(`${where}.${k}: longer than ${MAX_FLOW_ENV_VALUE_CHARS} characters`);
    }
    out[k] = s;
  }
  return out;
}

/** `${NAME}` replaced from the flow's variables; anything else in `${…}` is refused. */
function subst(ctx: Ctx, s: string, where: string): string {
  return s.replace(VAR_RE, (_m, name: string) => {
    const n = name.trim();
    if (!NAME_RE.test(n)) {
      throw invalidParams(
        `${where}: \${${name}} is an expression; only \${NAME} variables are supported`,
      );
    }
    const v = ctx.vars[n];
    if (v === undefined) {
      throw invalidParams(
        `${where}: variable ${n} is not defined; pass it in env (run_ui_flow env, the header's ` +
          "env:, or runFlow's env:)",
      );
    }
    return v;
  });
}

/** Every string of a YAML value with its variables replaced. */
function deepSubst(ctx: Ctx, v: unknown, where: string): unknown {
  if (typeof v === "string") return subst(ctx, v, where);
  if (Array.isArray(v)) return v.map((x) => deepSubst(ctx, x, where));
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, deepSubst(ctx, x, where)]),
    );
  }
  return v;
}

function str(ctx: Ctx, v: unknown, where: string, def: string | null): string {
  if (v === undefined || v === null) {
    if (def !== null) return def;
    throw invalidParams(`${where}: expected a text`);
  }
  if (typeof v !== "string" && typeof v !== "number") {
    throw invalidParams(`${where}: expected a text`);
  }
  return subst(ctx, String(v), where);
}

function bool(v: unknown, where: string, def: boolean): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== "boolean") throw invalidParams(`${where}: expected true or false`);
  return v;
}

function int(v: unknown, where: string, def: number, min: number, max: number): number {
  if (v === undefined || v === null) return def;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw invalidParams(`${where}: expected a whole number ${min}..${max}`);
  }
  return n;
}

function keys(m: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(m)) {
    if (!allowed.includes(k)) {
      throw invalidParams(
        `${where}: key ${JSON.stringify(k)} is not supported; use ${allowed.join(", ")}`,
      );
    }
  }
}

/** `50%, 50%` (of the screen) or `100, 200` (device px). */
function point(ctx: Ctx, v: unknown, where: string): FlowPoint {
  const s = str(ctx, v, where, null).trim();
  const m = /^(\d+(?:\.\d+)?)(%?)\s*,\s*(\d+(?:\.\d+)?)(%?)$/.exec(s);
  if (!m || m[2] !== m[4]) {
    throw invalidParams(`${where}: expected "x, y" in px or "x%, y%", got ${JSON.stringify(s)}`);
  }
  const percent = m[2] === "%";
  const x = Number(m[1]), y = Number(m[3]);
  if (percent && (x > 100 || y > 100)) throw invalidParams(`${where}: percentages go to 100`);
  if (!percent && (!Number.isInteger(x) || !Number.isInteger(y))) {
    throw invalidParams(`${where}: pixel coordinates are whole numbers`);
  }
  return { x, y, percent };
}

const DIRECTIONS = ["UP", "DOWN", "LEFT", "RIGHT"] as const;

function direction(v: unknown, where: string, def: SwipeDirection): SwipeDirection {
  if (v === undefined || v === null) return def;
  const d = typeof v === "string" ? v.toUpperCase() : "";
  const hit = DIRECTIONS.find((x) => x === d);
  if (!hit) throw invalidParams(`${where}: direction is one of ${DIRECTIONS.join(", ")}`);
  return hit;
}

/** Maestro's pressKey names → Android key codes. */
export const PRESS_KEYS: Readonly<Record<string, string>> = {
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

async function parseSteps(
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

function where(ctx: Ctx, node: unknown, cmd: string): string {
  const line = ctx.lineOf(node);
  return `Flow ${ctx.source}${line !== null ? ` line ${line}` : ""}: ${cmd}`;
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
  const line = ctx.lineOf(node);
  const base = { line, source: ctx.source };
  const map = (allowed: readonly string[]): Record<string, unknown> => {
    if (arg === null || arg === undefined) return {};
    if (typeof arg !== "object" || Array.isArray(arg)) {
      throw invalidParams(`${w}: expected a map of ${allowed.join(", ")}`);
    }
    const m = arg as Record<string, unknown>;
    keys(m, allowed, w);
    return m;
  };
  const needApp = (v: unknown): string => {
    const a = v === undefined || v === null ? appId : str(ctx, v, `${w}.appId`, null);
    if (a === null) throw invalidParams(`${w}: name the app (appId in the header or the step)`);
    if (!/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(a)) {
      throw invalidParams(`${w}: appId ${JSON.stringify(a)} is not a package name`);
    }
    return a;
  };
  const lookup = (m: Record<string, unknown>) =>
    m.timeout === undefined ? null : int(m.timeout, `${w}.timeout`, 0, 0, MAX_FLOW_LOOKUP_MS);
  const selectorCmd = ["optional", "label", "retryTapIfNoChange", "waitToSettleTimeoutMs"];
  switch (cmd) {
    case "launchApp": {
      if (typeof arg === "string") {
        return { ...base, cmd, appId: needApp(arg), clearState: false, stopApp: true };
      }
      const m = map(["appId", "clearState", "stopApp", "label"]);
      return {
        ...base,
        cmd,
        appId: needApp(m.appId),
        clearState: bool(m.clearState, `${w}.clearState`, false),
        stopApp: bool(m.stopApp, `${w}.stopApp`, true),
      };
    }
    case "stopApp":
    case "clearState":
      return { ...base, cmd, appId: needApp(typeof arg === "string" ? arg : map(["appId"]).appId) };
    case "tapOn":
    case "longPressOn": {
      const long = cmd === "longPressOn";
      if (arg === null || typeof arg !== "object" || Array.isArray(arg)) {
        return {
          ...base,
          cmd: "tapOn",
          long,
          selector: parseFlowSelector(deepSubst(ctx, arg, w), w),
          point: null,
          optional: false,
          timeoutMs: null,
          label: null,
        };
      }
      const m = arg as Record<string, unknown>;
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
        if (
          ![...selectorCmd, "timeout"].includes(k) &&
          !(FLOW_SELECTOR_KEYS as readonly string[]).includes(k)
        ) {
          throw invalidParams(
            `${w}: key ${JSON.stringify(k)} is not supported; use a selector (text, id, index, ` +
              "below, above, leftOf, rightOf, childOf, enabled, checked, focused, selected), " +
              "point, optional, label",
          );
        }
      }
      return {
        ...base,
        cmd: "tapOn",
        long,
        selector: onlyPoint ? null : parseFlowSelector(deepSubst(ctx, sel, w), w),
        point: onlyPoint ? point(ctx, pt, `${w}.point`) : null,
        optional: bool(optional, `${w}.optional`, false),
        timeoutMs: lookup(m),
        label: typeof label === "string" ? label : null,
      };
    }
    case "inputText": {
      const text = str(
        ctx,
        typeof arg === "object" && arg !== null ? map(["text", "label"]).text : arg,
        w,
        null,
      );
      try {
        checkTextLength(text);
      } catch (e) {
        throw invalidParams(`${w}: ${(e as Error).message}`);
      }
      return { ...base, cmd, text };
    }
    case "eraseText": {
      const n = typeof arg === "object" && arg !== null
        ? map(["charactersToErase", "label"]).charactersToErase
        : arg;
      return {
        ...base,
        cmd,
        count: int(n, `${w}.charactersToErase`, DEFAULT_ERASE_CHARS, 1, MAX_ERASE_CHARS),
      };
    }
    case "assertVisible":
    case "assertNotVisible": {
      const m = typeof arg === "object" && arg !== null && !Array.isArray(arg)
        ? arg as Record<string, unknown>
        : null;
      const { optional, label: _l, timeout: _t, ...sel } = m ?? {};
      return {
        ...base,
        cmd,
        selector: parseFlowSelector(deepSubst(ctx, m ? sel : arg, w), w),
        optional: bool(optional, `${w}.optional`, false),
        timeoutMs: m ? lookup(m) : null,
      };
    }
    case "extendedWaitUntil": {
      const m = map(["visible", "notVisible", "timeout", "label"]);
      if ((m.visible === undefined) === (m.notVisible === undefined)) {
        throw invalidParams(`${w}: name visible or notVisible (one of them)`);
      }
      const visible = m.visible !== undefined;
      return {
        ...base,
        cmd,
        visible,
        selector: parseFlowSelector(deepSubst(ctx, visible ? m.visible : m.notVisible, w), w),
        timeoutMs: int(m.timeout, `${w}.timeout`, MAX_FLOW_LOOKUP_MS, 0, MAX_FLOW_LOOKUP_MS),
      };
    }
    case "scrollUntilVisible": {
      const m = map([
        "element",
        "direction",
        "timeout",
        "speed",
        "visibilityPercentage",
        "centerElement",
        "label",
      ]);
      if (m.element === undefined) throw invalidParams(`${w}: name the element to scroll to`);
      return {
        ...base,
        cmd,
        selector: parseFlowSelector(deepSubst(ctx, m.element, w), `${w}.element`),
        direction: direction(m.direction, `${w}.direction`, "DOWN"),
        timeoutMs: int(m.timeout, `${w}.timeout`, DEFAULT_SCROLL_UNTIL_MS, 0, MAX_SCROLL_UNTIL_MS),
      };
    }
    case "scroll":
      return {
        ...base,
        cmd: "swipe",
        direction: "UP",
        start: null,
        end: null,
        durationMs: DEFAULT_FLOW_SWIPE_MS,
        scroll: true,
      };
    case "swipe": {
      const m = map(["direction", "start", "end", "duration", "label"]);
      const hasPoints = m.start !== undefined || m.end !== undefined;
      if (hasPoints === (m.direction !== undefined)) {
        throw invalidParams(`${w}: give direction, or start and end (not both)`);
      }
      if (hasPoints && (m.start === undefined || m.end === undefined)) {
        throw invalidParams(`${w}: give both start and end`);
      }
      return {
        ...base,
        cmd,
        direction: hasPoints ? null : direction(m.direction, `${w}.direction`, "UP"),
        start: hasPoints ? point(ctx, m.start, `${w}.start`) : null,
        end: hasPoints ? point(ctx, m.end, `${w}.end`) : null,
        durationMs: int(m.duration, `${w}.duration`, DEFAULT_FLOW_SWIPE_MS, 50, MAX_FLOW_SWIPE_MS),
        scroll: false,
      };
    }
    case "back":
    case "hideKeyboard":
      if (arg !== null && arg !== undefined) map(["label"]);
      return { ...base, cmd };
    case "pressKey": {
      const name = str(ctx, arg, w, null);
      const code = PRESS_KEYS[name.toLowerCase()];
      if (!code) {
        throw invalidParams(
          `${w}: key ${JSON.stringify(name)} is not supported; use ${
            Object.keys(PRESS_KEYS).map((k) => k.replace(/\b\w/g, (c) => c.toUpperCase())).join(
              ", ",
            )
          }`,
        );
      }
      return { ...base, cmd, key: validateKeyName(code), name };
    }
    case "openLink": {
      const link = str(
        ctx,
        typeof arg === "object" && arg !== null
          ? map(["link", "autoVerify", "browser", "label"]).link
          : arg,
        w,
        null,
      );
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(link) || link.length > 2_048) {
        throw invalidParams(`${w}: ${JSON.stringify(link.slice(0, 80))} is not a URI (scheme:…)`);
      }
      return { ...base, cmd, link };
    }
    case "waitForAnimationToEnd": {
      const m = map(["timeout", "label"]);
      return {
        ...base,
        cmd,
        timeoutMs: int(m.timeout, `${w}.timeout`, 15_000, 0, MAX_FLOW_LOOKUP_MS),
      };
    }
    case "takeScreenshot": {
      const name = str(
        ctx,
        typeof arg === "object" && arg !== null ? map(["path", "label"]).path : arg,
        w,
        "screenshot",
      );
      return { ...base, cmd, name: name.slice(0, 200) };
    }
    case "runFlow":
      return await parseRunFlow(ctx, arg, w, base, appId);
    case "repeat":
      return await parseRepeat(ctx, arg, w, base, appId);
  }
  throw invalidParams(`${w} is not supported`);
}

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

async function parseRunFlow(
  ctx: Ctx,
  arg: unknown,
  w: string,
  base: { line: number | null; source: string },
  appId: string | null,
): Promise<FlowStep> {
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
    const sub = await parseText(
      text,
      path,
      { ...ctx.vars, ...env },
      ctx.opts,
      ctx.count,
      ctx.depth + 1,
      true,
    );
    return { ...base, cmd: "runFlow", name: path, when, steps: sub.steps };
  }
  if (!Array.isArray(m.commands)) throw invalidParams(`${w}.commands: expected a list of steps`);
  const sub: Ctx = { ...ctx, vars: { ...ctx.vars, ...env }, depth: ctx.depth + 1 };
  const steps: FlowStep[] = [];
  for (const s of m.commands) steps.push(await parseStep(sub, s, null, appId));
  return { ...base, cmd: "runFlow", name: "commands", when, steps };
}

async function parseRepeat(
  ctx: Ctx,
  arg: unknown,
  w: string,
  base: { line: number | null; source: string },
  appId: string | null,
): Promise<FlowStep> {
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
