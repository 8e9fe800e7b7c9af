/**
 * Waiting on the screen: `wait_for_element`, `ui_wait_for_idle`, `ui_assert_element`. Each reads
 * the screen repeatedly in the UI worker until its condition holds or its timeout passes.
 */
import { z } from "zod";
import { ToolError } from "../../core/errors.ts";
import { defineTool } from "../define_tool.ts";
import type { ToolContext } from "../context.ts";
import { deviceFor } from "../device_args.ts";
import { maxRowsParam, selectorParam, serialParam, timeoutParam } from "../params.ts";
import { listData, matchData, matchLine, progressOf } from "./render.ts";
import { DEFAULT_WAIT_TIMEOUT_MS, MAX_WAIT_TIMEOUT_MS } from "../../ui/shared/limits.ts";
import type { UiSelector } from "../../ui/shared/selector_rules.ts";

/** `ui_wait_for_idle` and `ui_assert_element` default wait (spec). */
const DEFAULT_IDLE_TIMEOUT_MS = 5_000;
const DEFAULT_ASSERT_TIMEOUT_MS = 5_000;

async function waitFor(
  ctx: ToolContext,
  args: { device_serial?: string; selector: UiSelector; timeout_ms?: number; gone?: boolean },
  def: number,
) {
  const selector = args.selector;
  const serial = await deviceFor(ctx, args.device_serial);
  const r = await ctx.ui.wait(
    { serial, selector, timeoutMs: args.timeout_ms ?? def, gone: args.gone ?? false },
    { signal: ctx.signal, onProgress: progressOf(ctx) },
  );
  return { serial, r };
}

const waitForElement = defineTool({
  name: "wait_for_element",
  toolset: "ui",
  kind: "R",
  description:
    "Wait until a selector matches (gone: true: until nothing does), reading the screen " +
    "repeatedly; returns the matches. Reports progress; cancellable.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    timeout_ms: timeoutParam(DEFAULT_WAIT_TIMEOUT_MS),
    gone: z.boolean().optional().describe("Wait until nothing matches"),
  },
  async run(args, ctx) {
    const { serial, r } = await waitFor(ctx, args, DEFAULT_WAIT_TIMEOUT_MS);
    if (!r.met) {
      throw new ToolError(
        "timeout",
        `${args.gone ? "Still on screen" : "Not on screen"} after ${r.elapsedMs} ms ` +
          `(${r.captures} captures): read the screen with get_ui_hierarchy, or wait longer ` +
          `(timeout_ms up to ${MAX_WAIT_TIMEOUT_MS})`,
        {
          elapsed_ms: r.elapsedMs,
          captures: r.captures,
          screen_hash: r.screenHash,
          total: r.total,
        },
      );
    }
    return {
      structured: {
        serial,
        met: true,
        elapsed_ms: r.elapsedMs,
        captures: r.captures,
        screen_hash: r.screenHash,
        total: r.total,
        matches: r.matches.map(matchData),
      },
      text: [
        `${args.gone ? "Gone" : "Found"} after ${r.elapsedMs} ms (screen ${r.screenHash})`,
        ...r.matches.map(matchLine),
      ].join("\n"),
    };
  },
});

const uiWaitForIdle = defineTool({
  name: "ui_wait_for_idle",
  toolset: "ui",
  kind: "R",
  description:
    "Wait until the screen stops changing and no spinner or progress bar shows; returns " +
    "the element list.",
  params: {
    device_serial: serialParam,
    timeout_ms: timeoutParam(DEFAULT_IDLE_TIMEOUT_MS),
    max_rows: maxRowsParam,
  },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    const maxMs = args.timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS;
    const r = await ctx.ui.settle(
      {
        serial,
        baseline: "none",
        maxRows: args.max_rows,
        options: { maxMs, loadingWaitMs: maxMs },
      },
      { signal: ctx.signal },
    );
    const idle = r.settled && !r.list.loading;
    return {
      structured: {
        serial,
        idle,
        settle_ms: r.settleMs,
        reason: r.reason,
        ...listData(r.list),
      },
      text: `${
        idle ? "Idle" : r.list.loading ? "Still loading" : "Still changing"
      } after ${r.settleMs} ms\n${r.text}`,
    };
  },
});

const uiAssertElement = defineTool({
  name: "ui_assert_element",
  toolset: "ui",
  kind: "R",
  description:
    "Pass when a selector matches (exists: false: when nothing does) in time; else a tool " +
    "error saying what is on screen instead.",
  params: {
    device_serial: serialParam,
    selector: selectorParam,
    exists: z.boolean().optional().describe("false: expect no match"),
    timeout_ms: timeoutParam(DEFAULT_ASSERT_TIMEOUT_MS),
  },
  async run(args, ctx) {
    const exists = args.exists ?? true;
    const { serial, r } = await waitFor(
      ctx,
      { ...args, gone: !exists },
      DEFAULT_ASSERT_TIMEOUT_MS,
    );
    if (!r.met) {
      throw new ToolError(
        "not_found",
        `Assertion failed: ${exists ? "no element matches" : `${r.total} element(s) still match`} ${
          JSON.stringify(args.selector)
        } after ${r.elapsedMs} ms on screen ${r.screenHash}; ` +
          "read the screen with get_ui_hierarchy to see what is there",
        {
          screen_hash: r.screenHash,
          total: r.total,
          matches: r.matches.slice(0, 5).map(matchData),
        },
      );
    }
    return {
      structured: { serial, passed: true, screen_hash: r.screenHash, total: r.total },
      text: `Assertion passed: ${exists ? `${r.total} match(es)` : "nothing matches"} on screen ` +
        r.screenHash,
    };
  },
});

export const waitTools = [waitForElement, uiWaitForIdle, uiAssertElement];
