/**
 * The act-and-settle step every UI acting tool (tap.ts, text.ts, gestures.ts) goes through: the
 * whole action is ONE request to the UI worker (`ctx.ui.act`, lib/ui/act_service.ts): the worker
 * checks the screen (handle, screen hash, enabled or editable, points on the screen), waits the
 * minimum gap since the device's last action, sends the input (the emulator's gRPC touch and
 * keys, else `input` over ADB), waits until the screen has responded and settled (touched = the
 * tapped element) and remembers the settled list. The tools only say which action and render the
 * answer (unless `observe_after: false`).
 */
import { type ToolOutput } from "../../mcp/tool_def.ts";
import type {
  ActParams,
  ActResult,
  ActStep,
  ActTarget,
  NamedPoint,
} from "../../ui/shared/act_types.ts";
import { pathFields } from "./paths.ts";
import type { ToolContext } from "../context.ts";
import { listData } from "./render.ts";

/** Bound on the small device reads the acting tools make (ime list, dumpsys input_method). */
export const UI_QUERY_TIMEOUT_MS = 10_000;

interface ActRequest {
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
export function inputPath(r: ActResult) {
  return r.gestures.at(-1) ?? r.keys.at(-1) ?? null;
}

/** One `ui.act` request, rendered: the action, the settle and the settled list. */
export async function act(ctx: ToolContext, o: ActRequest): Promise<ToolOutput> {
  const r = await ctx.ui.act({
    serial: o.serial,
    target: o.target,
    points: o.points,
    steps: o.steps,
    minIntervalMs: await ctx.uiActionIntervalMs(),
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
    // How a Maestro flow names what was acted on (export_ui_flow reads it from the action).
    ...(r.flowTarget ? { flow_target: r.flowTarget } : {}),
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
    text: `${did}; ${state}${unchanged(s.responded, o.touched ?? null)}\n` + s.text,
  };
}

/** What the text adds when the screen did not respond: relative to what the action touched. */
function unchanged(responded: boolean, touched: ActParams["touched"]): string {
  if (responded) return "";
  return touched === null
    ? " (nothing on the screen changed)"
    : " (no change outside the touched element)";
}

/** The worker target for an optional `expect_screen_hash` on a point action. */
export function screenTarget(expect: string | undefined): ActTarget {
  return { kind: "screen", expectScreenHash: expect ?? null };
}

/**
 * A handle or tree path the action lands on: enabled, and (`tappable`, the default) its tap
 * point inside it and uncovered — only the keyboard covering it gets the keyboard hidden first.
 */
export function elementTarget(
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

export function named(x: number, y: number, names: [string, string] = ["x", "y"]): NamedPoint {
  return { x, y, names };
}
