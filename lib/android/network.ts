/**
 * Network state (spec `set_network_state`): what is read from global settings, which changes
 * would cut a wireless-ADB connection off, and the commands a change takes. Pure; the device calls
 * are in lib/android/app_control.ts.
 */
import { invalidParams } from "../core/errors.ts";

export interface NetworkRequest {
  wifi?: boolean;
  mobile_data?: boolean;
  airplane_mode?: boolean;
}

export interface NetworkState {
  wifi: boolean | null;
  mobile_data: boolean | null;
  airplane_mode: boolean | null;
}

/** The global settings the state is read from, in `NetworkState` order. */
export const NETWORK_SETTINGS = {
  wifi: "wifi_on",
  mobile_data: "mobile_data",
  airplane_mode: "airplane_mode_on",
} as const;

/**
 * A serial that adb reaches over the network: `host:port`, `[v6]:port`, or an mDNS service name
 * (`._adb-tls-connect._tcp`, `._adb._tcp`). Pure.
 */
export function isWirelessSerial(serial: string): boolean {
  if (/\._adb-tls-connect\._tcp\.?$|\._adb\._tcp\.?$/.test(serial)) return true;
  return /^(\[[0-9A-Fa-f:.%\w]+\]|[^:\s[\]]+):\d{1,5}$/.test(serial);
}

/**
 * Refuses, before any device command, a change that would drop a wireless-ADB connection: Wi-Fi
 * off or airplane mode on. Also refuses an empty request.
 */
export function checkNetworkRequest(serial: string, req: NetworkRequest): void {
  if (req.wifi === undefined && req.mobile_data === undefined && req.airplane_mode === undefined) {
    throw invalidParams(
      "Nothing to change: pass wifi, mobile_data or airplane_mode (true or false)",
    );
  }
  if (!isWirelessSerial(serial)) return;
  const cuts = [
    req.wifi === false ? "turning Wi-Fi off" : null,
    req.airplane_mode === true ? "turning airplane mode on" : null,
  ].filter((x) => x !== null);
  if (cuts.length > 0) {
    throw invalidParams(
      `Refused: ${cuts.join(" and ")} would cut off ${serial}, which adb reaches over the ` +
        "network (wireless debugging); use a USB-connected device or an emulator for this",
      { device_serial: serial, wireless: true },
    );
  }
}

/** `settings get global <key>` output → on/off, `null` for `null` or anything else. Pure. */
export function parseSettingBool(text: string): boolean | null {
  const v = text.trim();
  if (v === "1") return true;
  if (v === "0") return false;
  return null;
}

/** The `svc` argv for a Wi-Fi or mobile-data change. */
export function svcArgv(what: "wifi" | "data", on: boolean): string[] {
  return ["svc", what, on ? "enable" : "disable"];
}

export function airplaneCmdArgv(on: boolean): string[] {
  return ["cmd", "connectivity", "airplane-mode", on ? "enable" : "disable"];
}

/** The fallback: write the setting, then tell the system with the AIRPLANE_MODE broadcast. */
export function airplaneSettingArgv(on: boolean): string[] {
  return ["settings", "put", "global", "airplane_mode_on", on ? "1" : "0"];
}

export function airplaneBroadcastArgv(on: boolean): string[] {
  return [
    "am",
    "broadcast",
    "-a",
    "android.intent.action.AIRPLANE_MODE",
    "--ez",
    "state",
    on ? "true" : "false",
  ];
}

/**
 * Whether a command's output shows it failed even with exit status 0 (`cmd` on old builds prints
 * `Unknown command`; `am broadcast` of a protected intent prints a SecurityException). Pure.
 */
export function outputShowsFailure(text: string, exitCode: number | null): boolean {
  if (exitCode !== null && exitCode !== 0) return true;
  return /Exception|Security exception|Permission Denial|Unknown command|No shell command implementation|^Error/im
    .test(text);
}

/** `wifi on, mobile data off, airplane mode unknown`. Pure. */
export function describeNetwork(s: NetworkState): string {
  const f = (v: boolean | null) => v === null ? "unknown" : v ? "on" : "off";
  return `Wi-Fi ${f(s.wifi)}, mobile data ${f(s.mobile_data)}, airplane mode ${f(s.airplane_mode)}`;
}
