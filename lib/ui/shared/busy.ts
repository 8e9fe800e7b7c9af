/** The refusal while this process runs instrumentation (a leaf: both sides raise it). */
import { ToolError } from "../../core/errors.ts";

/** "busy: instrumentation running" (spec): captures refused while this process runs tests. */
export function instrumentationBusyError(serial: string): ToolError {
  return new ToolError(
    "device_busy",
    `Device ${serial} is busy: instrumentation running (a connected test run started by this ` +
      "server holds UI Automator); wait for the run to finish or cancel it, then retry",
    { serial },
  );
}
