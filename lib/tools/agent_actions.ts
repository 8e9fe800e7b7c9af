/**
 * Agent actions in debug sessions, recorded at the tool layer (so it holds whatever engine serves
 * the tools): every call of a tool that is not read-only and takes a device parameter
 * (`device_serial`, `deviceSerial` or `serial`) is added, after the call, to the open debug
 * sessions of that device (and of the `package` it names, when it names one) as an `agentAction`:
 * the tool, its kind (`write`, `destructive`, `openWorld`), whether it succeeded, its duration, the
 * serial, and the agent as the actor. A successful UI action also keeps what it was as a flow step
 * (`flow_step`, lib/ui/shared/flows/flow_record.ts: the element's Maestro selector, typed text unless it
 * went into a password field, the key, the app), which export_ui_flow writes as a flow. No other
 * argument is recorded. A call that leaves the device
 * out is attributed to the one online device, when exactly one is online (asked in the background,
 * after the answer). Tools that act on a device without a device parameter are recorded too:
 * `launch_avd` on the serial its result names, and `run_tests` with `test_type: connected` on every
 * online device (connected tests run on all of them). Refusals (`invalid_params`: nothing ran)
 * record nothing. The change is queued on the process's session recorder, so the call never waits
 * for disk.
 */
import { isToolError } from "../core/errors.ts";
import type { ToolKind } from "../mcp/tool_def.ts";
import type { AnyTool } from "../mcp/server.ts";
import { agentOrigin, type ToolContext } from "./context.ts";
import { flowStepOf, type RecordedStep } from "../ui/shared/flows/flow_record.ts";

/** The parameters that name the device a tool acts on. */
const DEVICE_PARAMS = ["device_serial", "deviceSerial", "serial"] as const;
/** Bound on the background device listing for a call without a device parameter. */
const AGENT_ACTION_DEVICE_TIMEOUT_MS = 5_000;

const KIND_NAMES: Record<Exclude<ToolKind, "R">, string> = {
  W: "write",
  D: "destructive",
  O: "openWorld",
};

/** The device parameter of `tool`, or `null` when it has none. Pure. */
function deviceParamOf(tool: AnyTool<ToolContext>): string | null {
  return DEVICE_PARAMS.find((p) => p in tool.params) ?? null;
}

function record(
  tool: AnyTool<ToolContext>,
  ctx: ToolContext,
  serial: string,
  pkg: string | null,
  ok: boolean,
  durationMs: number,
  at: Date,
  step: RecordedStep | null = null,
): void {
  const kind = KIND_NAMES[tool.kind as Exclude<ToolKind, "R">];
  ctx.sessions.record({
    type: "event",
    serial,
    package: pkg,
    event: {
      at,
      kind: "agentAction",
      by: agentOrigin(ctx),
      summary: `${tool.name} (${kind}) ${ok ? "ok" : "failed"} in ${durationMs} ms on ${serial}`,
      data: {
        tool: tool.name,
        kind,
        ok,
        duration_ms: durationMs,
        serial,
        ...(step ? { flow_step: step } : {}),
      },
    },
  });
}

/** `tool` recording its calls as agent actions when it acts on a device; else `tool` itself. */
export function withAgentActions(tool: AnyTool<ToolContext>): AnyTool<ToolContext> {
  const param = deviceParamOf(tool);
  const implicit = Object.hasOwn(IMPLICIT_DEVICE_TOOLS, tool.name)
    ? IMPLICIT_DEVICE_TOOLS[tool.name]
    : undefined;
  if (tool.kind === "R" || (param === null && !implicit)) return tool;
  return {
    ...tool,
    async run(args: Record<string, unknown>, ctx: ToolContext) {
      const started = performance.now();
      const at = new Date();
      let ok = true;
      let refused = false;
      let out: Awaited<ReturnType<typeof tool.run>> | null = null;
      try {
        out = await tool.run(args, ctx);
        return out;
      } catch (e) {
        refused = isToolError(e) && e.code === "invalid_params";
        ok = false;
        throw e;
      } finally {
        const elapsed = performance.now() - started;
        if (refused) { /* nothing ran: nothing to record */ }
        else if (param !== null) {
          const step = ok ? flowStepOf(tool.name, args, out?.structured ?? null) : null;
          recordCall(tool, ctx, args, param, ok, elapsed, at, step);
        } else if (implicit) {
          const target = implicit(args, out?.structured ?? null);
          if (target === "all_online") recordOnEveryOnline(tool, ctx, ok, elapsed, at);
          else if (target !== null) record(tool, ctx, target, null, ok, Math.round(elapsed), at);
        }
      }
    },
  };
}

/**
 * Tools that act on a device without a device parameter: where their call is recorded (a serial,
 * every online device, or nowhere).
 */
const IMPLICIT_DEVICE_TOOLS: Record<
  string,
  (args: Record<string, unknown>, result: Record<string, unknown> | null) =>
    | string
    | "all_online"
    | null
> = {
  launch_avd: (_args, result) => typeof result?.serial === "string" ? result.serial : null,
  run_tests: (args) => args.test_type === "connected" ? "all_online" : null,
};

function recordOnEveryOnline(
  tool: AnyTool<ToolContext>,
  ctx: ToolContext,
  ok: boolean,
  elapsed: number,
  at: Date,
): void {
  void ctx.adb.listDevices({ timeoutMs: AGENT_ACTION_DEVICE_TIMEOUT_MS }).then((list) => {
    for (const d of list) {
      if (d.state === "device") record(tool, ctx, d.serial, null, ok, Math.round(elapsed), at);
    }
  }, () => {});
}

function recordCall(
  tool: AnyTool<ToolContext>,
  ctx: ToolContext,
  args: Record<string, unknown>,
  param: string,
  ok: boolean,
  elapsed: number,
  at: Date,
  step: RecordedStep | null,
): void {
  const duration = Math.round(elapsed);
  const pkg = typeof args.package === "string" ? args.package : null;
  const given = args[param];
  if (typeof given === "string") {
    record(tool, ctx, given, pkg, ok, duration, at, step);
    return;
  }
  // Left out: the one online device, if exactly one (asked after the answer, in the background).
  void ctx.adb.listDevices({ timeoutMs: AGENT_ACTION_DEVICE_TIMEOUT_MS }).then((list) => {
    const online = list.filter((d) => d.state === "device");
    if (online.length === 1) record(tool, ctx, online[0].serial, pkg, ok, duration, at, step);
  }, () => {});
}
