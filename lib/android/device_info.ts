/**
 * Device facts for `get_device_info`: pure parsers for `getprop`, `wm size`, `wm density` and
 * `dumpsys battery`, and `readDeviceInfo`, which reads them in two rounds (the listing and one
 * `getprop` together, then the three others together).
 */
import type { AdbClient, AdbDevice, CallOptions, DeviceKind, DeviceShell } from "../adb/client.ts";
import { deviceKind } from "../adb/devices.ts";
import { parseGetprop } from "./getprop.ts";

export { parseGetprop } from "./getprop.ts";

interface ScreenSize {
  width: number;
  height: number;
}

interface WmSize {
  physical: ScreenSize | null;
  override: ScreenSize | null;
}

interface WmDensity {
  physical: number | null;
  override: number | null;
}

type BatteryStatus = "unknown" | "charging" | "discharging" | "not_charging" | "full";
type BatteryPlugged = "ac" | "usb" | "wireless" | "dock" | "none";

interface BatteryInfo {
  level: number;
  scale: number;
  percent: number;
  status: BatteryStatus;
  plugged: BatteryPlugged;
  /** Degrees Celsius (dumpsys reports tenths); null when absent. */
  temperature_c: number | null;
}

export interface DeviceInfo {
  serial: string;
  state: string;
  kind: DeviceKind;
  model: string | null;
  manufacturer: string | null;
  brand: string | null;
  device: string | null;
  android_version: string | null;
  api_level: number | null;
  abi: string | null;
  abis: string[];
  screen: {
    width: number | null;
    height: number | null;
    density: number | null;
    /** Present when `wm size` or `wm density` reports an override (the size apps see). */
    override?: { width?: number; height?: number; density?: number };
  };
  emulator: boolean;
  avd_name: string | null;
  battery: BatteryInfo | null;
  build_fingerprint: string | null;
}

/** `Physical size: 1080x2400` and optional `Override size: 720x1600`. */
export function parseWmSize(text: string): WmSize {
  const find = (label: string): ScreenSize | null => {
    const m = new RegExp(`^\\s*${label} size:\\s*(\\d+)x(\\d+)\\s*$`, "m").exec(text);
    return m === null ? null : { width: Number(m[1]), height: Number(m[2]) };
  };
  return { physical: find("Physical"), override: find("Override") };
}

/** `Physical density: 420` and optional `Override density: 320`. */
export function parseWmDensity(text: string): WmDensity {
  const find = (label: string): number | null => {
    const m = new RegExp(`^\\s*${label} density:\\s*(\\d+)\\s*$`, "m").exec(text);
    return m === null ? null : Number(m[1]);
  };
  return { physical: find("Physical"), override: find("Override") };
}

/** BatteryManager.BATTERY_STATUS_* values. */
const BATTERY_STATUS: Record<string, BatteryStatus> = {
  "1": "unknown",
  "2": "charging",
  "3": "discharging",
  "4": "not_charging",
  "5": "full",
};

/** `dumpsys battery`: `key: value` lines under `Current Battery Service state:`. */
export function parseBattery(text: string): BatteryInfo | null {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z][A-Za-z ]*?):\s*(.*?)\s*$/.exec(line);
    if (m !== null && !fields.has(m[1])) fields.set(m[1], m[2]);
  }
  const level = intField(fields.get("level"));
  if (level === null) return null;
  const scale = intField(fields.get("scale")) ?? 100;
  const tenths = intField(fields.get("temperature"));
  let plugged: BatteryPlugged = "none";
  for (const [label, kind] of [["AC", "ac"], ["USB", "usb"], ["Wireless", "wireless"]] as const) {
    if (fields.get(`${label} powered`) === "true") {
      plugged = kind;
      break;
    }
  }
  if (plugged === "none" && fields.get("Dock powered") === "true") plugged = "dock";
  return {
    level,
    scale,
    percent: scale > 0 ? Math.round((level * 100) / scale) : level,
    status: BATTERY_STATUS[fields.get("status") ?? ""] ?? "unknown",
    plugged,
    temperature_c: tenths === null ? null : tenths / 10,
  };
}

function intField(v: string | undefined): number | null {
  return v !== undefined && /^-?\d+$/.test(v) ? Number(v) : null;
}

/** The facts that come from `getprop` alone. */
function deviceFactsFromProps(props: ReadonlyMap<string, string>, serial: string) {
  const get = (k: string): string | null => {
    const v = props.get(k);
    return v === undefined || v === "" ? null : v;
  };
  const api = get("ro.build.version.sdk");
  const abis = (get("ro.product.cpu.abilist") ?? "").split(",").map((s) => s.trim())
    .filter((s) => s !== "");
  const abi = get("ro.product.cpu.abi") ?? abis[0] ?? null;
  const emulator = /^emulator-\d+$/.test(serial) || get("ro.kernel.qemu") === "1" ||
    get("ro.boot.qemu") === "1" || ["ranchu", "goldfish"].includes(get("ro.hardware") ?? "");
  return {
    model: get("ro.product.model"),
    manufacturer: get("ro.product.manufacturer"),
    brand: get("ro.product.brand"),
    device: get("ro.product.device"),
    android_version: get("ro.build.version.release"),
    api_level: api !== null && /^\d+$/.test(api) ? Number(api) : null,
    abi,
    abis: abis.length > 0 ? abis : abi === null ? [] : [abi],
    emulator,
    avd_name: get("ro.boot.qemu.avd_name") ?? get("ro.kernel.qemu.avd_name"),
    build_fingerprint: get("ro.build.fingerprint"),
  };
}

/** Combines the parsed pieces into the `get_device_info` answer (pure). */
export function buildDeviceInfo(input: {
  serial: string;
  listed: AdbDevice | undefined;
  props: ReadonlyMap<string, string>;
  size: WmSize | null;
  density: WmDensity | null;
  battery: BatteryInfo | null;
}): DeviceInfo {
  const facts = deviceFactsFromProps(input.props, input.serial);
  const physical = input.size?.physical ?? null;
  const override: { width?: number; height?: number; density?: number } = {};
  if (input.size?.override) {
    override.width = input.size.override.width;
    override.height = input.size.override.height;
  }
  if (input.density?.override != null) override.density = input.density.override;
  const lcd = input.props.get("ro.sf.lcd_density");
  const screen: DeviceInfo["screen"] = {
    width: physical?.width ?? null,
    height: physical?.height ?? null,
    density: input.density?.physical ??
      (lcd !== undefined && /^\d+$/.test(lcd) ? Number(lcd) : null),
  };
  if (Object.keys(override).length > 0) screen.override = override;
  return {
    serial: input.serial,
    state: input.listed?.state ?? "device",
    kind: input.listed?.kind ?? deviceKind(input.serial),
    model: facts.model,
    manufacturer: facts.manufacturer,
    brand: facts.brand,
    device: facts.device,
    android_version: facts.android_version,
    api_level: facts.api_level,
    abi: facts.abi,
    abis: facts.abis,
    screen,
    emulator: facts.emulator || input.listed?.kind === "emulator",
    avd_name: facts.avd_name,
    battery: input.battery,
    build_fingerprint: facts.build_fingerprint,
  };
}

/**
 * Reads device facts with as few round trips as possible: the listing and `getprop` together
 * (`getprop` failing means the device cannot answer, and its error is the call's), then `wm size`,
 * `wm density` and `dumpsys battery` together, each best effort (null fields when it fails).
 */
export async function readDeviceInfo(
  adb: DeviceShell & Pick<AdbClient, "listDevices">,
  serial: string,
  opts: CallOptions = {},
): Promise<DeviceInfo> {
  const [devices, getprop] = await Promise.all([
    adb.listDevices(opts).catch(() => [] as AdbDevice[]),
    adb.shell(serial, ["getprop"], opts),
  ]);
  const props = parseGetprop(getprop.text());
  const bestEffort = async <T>(argv: string[], parse: (t: string) => T): Promise<T | null> => {
    try {
      const r = await adb.shell(serial, argv, opts);
      return r.exitCode === null || r.exitCode === 0 ? parse(r.text()) : null;
    } catch (e) {
      // A cancelled or timed-out call stops the whole read; other failures leave a null field.
      if (opts.signal?.aborted) throw e;
      return null;
    }
  };
  const [size, density, battery] = await Promise.all([
    bestEffort(["wm", "size"], parseWmSize),
    bestEffort(["wm", "density"], parseWmDensity),
    bestEffort(["dumpsys", "battery"], parseBattery),
  ]);
  return buildDeviceInfo({
    serial,
    listed: devices.find((d) => d.serial === serial),
    props,
    size,
    density,
    battery,
  });
}
