/**
 * The readers of a flow's values (flow_steps.ts and flow_parse.ts use them): `${VAR}`s replaced
 * from the flow's variables, texts, booleans, bounded whole numbers, allowed keys, screen points,
 * directions and `env` maps, each refused with `invalid_params` naming where it is.
 */
import { invalidParams } from "../../../core/errors.ts";
import { MAX_FLOW_ENV_VALUE_CHARS, MAX_FLOW_ENV_VARS } from "./flow_limits.ts";
import type { Flow, FlowPoint, SwipeDirection } from "./flow_types.ts";

/** Reads a flow file a runFlow names: its project-relative path in, its text out. */
type FlowFileReader = (path: string) => Promise<string>;

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

/** What reading one flow file needs: where it is, its variables, the totals and depth so far. */
export interface Ctx {
  source: string;
  vars: Record<string, string>;
  opts: ParseFlowOptions;
  count: { steps: number };
  depth: number;
  lineOf: (node: unknown) => number | null;
  /** Parses an included file's text at `depth` (flow_parse.ts, which reads the file itself). */
  include: (
    text: string,
    path: string,
    vars: Record<string, string>,
    depth: number,
  ) => Promise<Flow>;
}

const VAR_RE = /\$\{([^}]*)\}/g;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An Android package name (`com.example.app`). */
export const PACKAGE_NAME_RE = /^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/;

export function checkEnv(v: unknown, where: string): Record<string, string> {
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
export function subst(ctx: Ctx, s: string, where: string): string {
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
export function deepSubst(ctx: Ctx, v: unknown, where: string): unknown {
  if (typeof v === "string") return subst(ctx, v, where);
  if (Array.isArray(v)) return v.map((x) => deepSubst(ctx, x, where));
  if (v && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, deepSubst(ctx, x, where)]),
    );
  }
  return v;
}

export function str(ctx: Ctx, v: unknown, where: string, def: string | null): string {
  if (v === undefined || v === null) {
    if (def !== null) return def;
    throw invalidParams(`${where}: expected a text`);
  }
  if (typeof v !== "string" && typeof v !== "number") {
    throw invalidParams(`${where}: expected a text`);
  }
  return subst(ctx, String(v), where);
}

export function bool(v: unknown, where: string, def: boolean): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== "boolean") throw invalidParams(`${where}: expected true or false`);
  return v;
}

export function int(v: unknown, where: string, def: number, min: number, max: number): number {
  if (v === undefined || v === null) return def;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw invalidParams(`${where}: expected a whole number ${min}..${max}`);
  }
  return n;
}

export function keys(m: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(m)) {
    if (!allowed.includes(k)) {
      throw invalidParams(
        `${where}: key ${JSON.stringify(k)} is not supported; use ${allowed.join(", ")}`,
      );
    }
  }
}

/** `50%, 50%` (of the screen) or `100, 200` (device px). */
export function point(ctx: Ctx, v: unknown, where: string): FlowPoint {
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

export function direction(v: unknown, where: string, def: SwipeDirection): SwipeDirection {
  if (v === undefined || v === null) return def;
  const d = typeof v === "string" ? v.toUpperCase() : "";
  const hit = DIRECTIONS.find((x) => x === d);
  if (!hit) throw invalidParams(`${where}: direction is one of ${DIRECTIONS.join(", ")}`);
  return hit;
}

/** `Flow <source> line <n>: <cmd>`: how every message names a step. */
export function where(ctx: Ctx, node: unknown, cmd: string): string {
  const line = ctx.lineOf(node);
  return `Flow ${ctx.source}${line !== null ? ` line ${line}` : ""}: ${cmd}`;
}
