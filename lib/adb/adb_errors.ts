/**
 * Maps the ADB server's `FAIL` texts (transport.cpp `acquire_one_transport`, sockets.cpp) to tool
 * errors whose messages say what to do next.
 */
import { ToolError } from "../core/errors.ts";

export const FailKind = {
  notFound: "not_found",
  noDevices: "no_devices",
  ambiguous: "ambiguous",
  offline: "offline",
  connecting: "connecting",
  unauthorized: "unauthorized",
  authorizing: "authorizing",
  closed: "closed",
  unknownService: "unknown_service",
  other: "other",
} as const;
export type FailKind = typeof FailKind[keyof typeof FailKind];

export function classifyFailure(message: string): FailKind {
  const m = message.trim();
  if (/^device '.*' not found$/s.test(m) || /^no device with transport id/.test(m)) {
    return FailKind.notFound;
  }
  if (/^no (devices\/emulators|devices|emulators) found/.test(m)) return FailKind.noDevices;
  if (/^more than one (device|emulator)/.test(m)) return FailKind.ambiguous;
  if (/^device offline/.test(m)) return FailKind.offline;
  if (/^device still connecting/.test(m)) return FailKind.connecting;
  if (/^device unauthorized/.test(m)) return FailKind.unauthorized;
  if (/^device still authorizing/.test(m)) return FailKind.authorizing;
  if (m === "closed") return FailKind.closed;
  if (/^unknown host service/.test(m)) return FailKind.unknownService;
  return FailKind.other;
}

interface FailureContext {
  /** The serial the call targeted, if any. */
  serial?: string;
  /** Serials the server lists now, when known (for `device_not_found`). */
  connected?: readonly string[];
  /** What was being asked, for the message (e.g. `shell`). */
  what: string;
}

export function failureToToolError(message: string, ctx: FailureContext): ToolError {
  const target = ctx.serial === undefined ? "the device" : `device '${ctx.serial}'`;
  const Target = ctx.serial === undefined ? "The device" : `Device '${ctx.serial}'`;
  const data: Record<string, unknown> = { adb_message: message };
  if (ctx.serial !== undefined) data.serial = ctx.serial;
  switch (classifyFailure(message)) {
    case FailKind.notFound:
    case FailKind.noDevices: {
      const connected = ctx.connected ?? [];
      data.connected = [...connected];
      const hint = connected.length === 0
        ? "no devices are connected: start an emulator or connect a device with USB debugging, " +
          "then call list_devices"
        : `connected: ${connected.join(", ")}; pass one of them as device_serial`;
      return new ToolError(
        "device_not_found",
        ctx.serial === undefined ? `No device found: ${hint}` : `${Target} not found: ${hint}`,
        data,
      );
    }
    case FailKind.ambiguous:
      return new ToolError(
        "device_ambiguous",
        "More than one device is connected: pass device_serial (call list_devices to see them)",
        data,
      );
    case FailKind.offline:
      return new ToolError(
        "device_offline",
        `${Target} is offline: reconnect it (replug USB, or adb connect again for wireless) ` +
          "or restart the emulator, then retry",
        data,
      );
    case FailKind.connecting:
      return new ToolError(
        "device_offline",
        `${Target} is still connecting: wait a few seconds, then retry`,
        data,
      );
    case FailKind.unauthorized:
    case FailKind.authorizing:
      return new ToolError(
        "device_unauthorized",
        `${Target} is unauthorized: unlock it and accept the "Allow USB debugging" RSA key ` +
          "prompt on its screen, then retry",
        data,
      );
    case FailKind.closed:
      return new ToolError(
        "adb_error",
        `${Target} refused to open the ${ctx.what} service: check that ${target} is booted ` +
          "and responsive, then retry",
        data,
      );
    case FailKind.unknownService:
      return new ToolError(
        "adb_error",
        `ADB server does not support ${ctx.what}: ${message}; update Android SDK Platform-Tools`,
        data,
      );
    default:
      return new ToolError("adb_error", `ADB ${ctx.what} failed: ${message}`, data);
  }
}
