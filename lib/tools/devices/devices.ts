/** `list_devices` and `get_device_info`: thin adapters over lib/adb and lib/android. */
import { defineTool } from "../define_tool.ts";
import type { AdbDevice } from "../../adb/client.ts";
import { type DeviceInfo, readDeviceInfo } from "../../android/device_info.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { serialParam } from "../params.ts";

/** Bound on each device round trip these tools make. */
const DEVICE_TOOL_TIMEOUT_MS = 15_000;

function renderDeviceLine(d: AdbDevice): string {
  const extra = [
    d.model ? `model:${d.model}` : null,
    d.product ? `product:${d.product}` : null,
    d.device ? `device:${d.device}` : null,
  ].filter((s) => s !== null);
  return [d.serial, d.state, d.kind, ...extra].join("  ");
}

function renderDeviceList(devices: readonly AdbDevice[]): string {
  if (devices.length === 0) {
    return "No devices connected. Start an emulator (launch_avd) or connect a device with USB " +
      "debugging on.";
  }
  return devices.map(renderDeviceLine).join("\n");
}

function renderDeviceInfo(i: DeviceInfo): string {
  const s = i.screen;
  const size = s.width !== null && s.height !== null ? `${s.width}x${s.height}` : "unknown";
  const over = s.override
    ? ` (override ${
      s.override.width !== undefined ? `${s.override.width}x${s.override.height}` : ""
    }${s.override.density !== undefined ? ` ${s.override.density}dpi` : ""})`.replace("( ", "(")
    : "";
  const b = i.battery;
  const lines = [
    `${i.serial} (${i.state}, ${
      i.emulator && i.kind !== "emulator" ? "emulator over " : ""
    }${i.kind}${i.avd_name ? `, AVD ${i.avd_name}` : ""})`,
    `${i.manufacturer ?? "?"} ${i.model ?? "?"} (brand ${i.brand ?? "?"}, device ${
      i.device ?? "?"
    })`,
    `Android ${i.android_version ?? "?"} (API ${i.api_level ?? "?"}), ABI ${i.abi ?? "?"}` +
    (i.abis.length > 1 ? ` [${i.abis.join(", ")}]` : ""),
    `Screen ${size} ${s.density ?? "?"}dpi${over}`,
    b === null
      ? "Battery unknown"
      : `Battery ${b.percent}% ${b.status}, plugged ${b.plugged}${
        b.temperature_c === null ? "" : `, ${b.temperature_c} °C`
      }`,
    `Fingerprint ${i.build_fingerprint ?? "?"}`,
  ];
  return lines.join("\n");
}

const listDevices = defineTool({
  name: "list_devices",
  toolset: "core",
  kind: "R",
  description:
    "Devices and emulators adb sees: serial (the device_serial to pass), state (device = " +
    "online), kind (emulator, usb, wireless), model.",
  params: {},
  async run(_args, ctx) {
    const devices = await ctx.adb.listDevices(callOpts(ctx, DEVICE_TOOL_TIMEOUT_MS));
    return {
      structured: {
        count: devices.length,
        online: devices.filter((d) => d.state === "device").length,
        devices: devices.map((d) => ({
          serial: d.serial,
          state: d.state,
          kind: d.kind,
          model: d.model ?? null,
          product: d.product ?? null,
          device: d.device ?? null,
          devpath: d.devpath ?? null,
          transport_id: d.transportId ?? null,
        })),
      },
      text: renderDeviceList(devices),
    };
  },
});

const getDeviceInfo = defineTool({
  name: "get_device_info",
  toolset: "core",
  kind: "R",
  description:
    "A device's model, manufacturer, Android version and API level, ABIs, screen size and " +
    "density, emulator and AVD name, battery, build fingerprint.",
  params: { device_serial: serialParam },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial, DEVICE_TOOL_TIMEOUT_MS);
    const info = await readDeviceInfo(ctx.adb, serial, callOpts(ctx, DEVICE_TOOL_TIMEOUT_MS));
    return { structured: { ...info }, text: renderDeviceInfo(info) };
  },
});

export const devicesTools = [listDevices, getDeviceInfo];
