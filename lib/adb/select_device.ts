/**
 * Which device a call acts on when `device_serial` is optional: the one given (validated), else
 * the only online device; several online devices are a refusal that lists them.
 */
import { invalidParams, ToolError } from "../core/errors.ts";
import { validateSerial } from "../core/validation.ts";
import type { CallOptions } from "./call_scope.ts";
import type { AdbDevice } from "./devices.ts";

/** Picks the serial from a listing (pure). `requested` must already be validated. */
export function chooseDevice(
  devices: readonly AdbDevice[],
  requested: string | undefined,
  param = "device_serial",
): string {
  if (requested !== undefined) return requested;
  const online = devices.filter((d) => d.state === "device");
  if (online.length === 1) return online[0].serial;
  if (online.length === 0) {
    const others = devices.map((d) => `${d.serial} (${d.state})`);
    throw new ToolError(
      "device_not_found",
      others.length === 0
        ? "No device is connected: start an emulator (launch_avd) or connect a device with USB " +
          "debugging on, then retry"
        : `No device is online: ${others.join(", ")}; unlock and authorize it, or reconnect it`,
      { connected: devices.map((d) => d.serial) },
    );
  }
  throw invalidParams(
    `${param} is required when several devices are online: pass one of ` +
      online.map((d) => d.serial).join(", "),
    { online: online.map((d) => d.serial) },
  );
}

/** Validates `requested` if given, else lists devices and picks the only online one. */
export async function resolveDeviceSerial(
  adb: { listDevices(opts?: CallOptions): Promise<AdbDevice[]> },
  requested: string | undefined,
  opts: CallOptions = {},
  param = "device_serial",
): Promise<string> {
  if (requested !== undefined) return validateSerial(requested, param);
  return chooseDevice(await adb.listDevices(opts), undefined, param);
}
