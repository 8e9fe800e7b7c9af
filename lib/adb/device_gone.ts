/**
 * Whether a device left while a command ran. An `exec:` stream carries no exit status, so a
 * device that drops under it (unplugged, powered off, its adbd restarted) looks, to the reader,
 * like a command that printed nothing; before calling such an answer the command's failure, a
 * caller asks the server whether the device is still there.
 */
import { ToolError } from "../core/errors.ts";
import type { AdbClient } from "./client.ts";

/** How long the device listing may take. */
const GONE_LISTING_TIMEOUT_MS = 3_000;

export type ListingAdb = Pick<AdbClient, "listDevices">;

/**
 * A ToolError when `serial` is no longer listed online (`device_not_found`, `device_offline`,
 * `device_unauthorized`), else null (also when the server cannot be asked).
 */
export async function deviceGoneError(
  adb: ListingAdb,
  serial: string,
  what: string,
): Promise<ToolError | null> {
  const devices = await adb.listDevices({ timeoutMs: GONE_LISTING_TIMEOUT_MS }).catch(() => null);
  if (devices === null) return null;
  const d = devices.find((x) => x.serial === serial);
  if (d === undefined) {
    const connected = devices.map((x) => x.serial);
    return new ToolError(
      "device_not_found",
      `Device '${serial}' disconnected during ${what}: reconnect it, check list_devices, then ` +
        "retry",
      { serial, connected },
    );
  }
  if (d.state === "device") return null;
  return new ToolError(
    d.state === "unauthorized" ? "device_unauthorized" : "device_offline",
    `Device '${serial}' became ${d.state} during ${what}: retry once list_devices shows it as ` +
      "device",
    { serial, state: d.state },
  );
}
