/**
 * What a tool handler hands the device layer: call options taken from its context, and the device
 * an optional `device_serial` means (lib/adb/select_device.ts: the one given, validated, else the
 * only online device).
 */
import type { CallOptions } from "../adb/client.ts";
import { resolveDeviceSerial } from "../adb/select_device.ts";
import type { ToolContext } from "./context.ts";

/** Default bound on the device listing that picks a device when `device_serial` is left out. */
const DEVICE_LISTING_TIMEOUT_MS = 10_000;

/** Call options for a device call made for `ctx`'s request: its signal, and `timeoutMs` if given. */
export function callOpts(ctx: Pick<ToolContext, "signal">, timeoutMs?: number): CallOptions {
  return timeoutMs === undefined ? { signal: ctx.signal } : { signal: ctx.signal, timeoutMs };
}

/**
 * The serial a call acts on: `requested` validated, else the only online device (listing bounded
 * by `timeoutMs`); refuses when none or several are online.
 */
export async function deviceFor(
  ctx: Pick<ToolContext, "adb" | "signal">,
  requested: string | undefined,
  timeoutMs: number = DEVICE_LISTING_TIMEOUT_MS,
): Promise<string> {
  return await resolveDeviceSerial(ctx.adb, requested, callOpts(ctx, timeoutMs));
}
