/**
 * Changing a device's state: `set_network_state` (Wi-Fi, mobile data, airplane mode) and
 * `set_device_orientation`. Thin adapters over lib/android/app_control.ts, network.ts and
 * orientation.ts; each returns the previous state so the change can be reverted.
 */
import { z } from "zod";
import { setNetworkState, setOrientation } from "../../android/app_control.ts";
import { checkNetworkRequest, describeNetwork } from "../../android/network.ts";
import { ORIENTATION_QUADRANT, ORIENTATIONS } from "../../android/orientation.ts";
import { defineTool } from "../define_tool.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { serialParam } from "../params.ts";
import { pathFields } from "../ui/paths.ts";

const setNetworkStateTool = defineTool({
  name: "set_network_state",
  toolset: "device-admin",
  kind: "D",
  description:
    "Turn Wi-Fi, mobile data or airplane mode on or off; returns the previous state to " +
    "revert. Cutting a wireless-ADB device off is refused.",
  params: {
    device_serial: serialParam,
    wifi: z.boolean().optional().describe("On or off"),
    mobile_data: z.boolean().optional().describe("On or off"),
    airplane_mode: z.boolean().optional().describe("On or off"),
  },
  async run(args, ctx) {
    const req = {
      wifi: args.wifi,
      mobile_data: args.mobile_data,
      airplane_mode: args.airplane_mode,
    };
    const given = args.device_serial;
    // Refused before anything runs; a device picked from the listing is checked again.
    checkNetworkRequest(given ?? "", req);
    const serial = given ?? await deviceFor(ctx, undefined);
    if (given === undefined) checkNetworkRequest(serial, req);
    const r = await setNetworkState(ctx.adb, serial, req, callOpts(ctx));
    return {
      structured: {
        device_serial: serial,
        previous: r.previous,
        current: r.current,
        airplane_method: r.airplane_method,
        commands: r.commands,
      },
      text: `Network on ${serial}: was ${describeNetwork(r.previous)}; now ${
        describeNetwork(r.current)
      }${
        r.airplane_method === "settings_broadcast"
          ? " (airplane mode through the setting and broadcast)"
          : ""
      }`,
    };
  },
});

const setDeviceOrientation = defineTool({
  name: "set_device_orientation",
  toolset: "device-admin",
  kind: "W",
  description:
    "Rotate the screen to an orientation (auto-rotate off) or back to auto; returns the " +
    "previous one.",
  params: {
    orientation: z.enum(ORIENTATIONS).describe(
      "auto turns auto-rotate on",
    ),
    device_serial: serialParam,
  },
  async run(args, ctx) {
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await setOrientation(ctx.adb, serial, args.orientation, callOpts(ctx));
    // An emulator's body turns too (gRPC setPhysicalModel), so its frames and sensors agree
    // with the screen; `auto` leaves the body where it is (it decides the screen then).
    const body = args.orientation === "auto" ? null : await ctx.ui.rotateBody(
      { serial, rotation: ORIENTATION_QUADRANT[args.orientation] },
      { signal: ctx.signal },
    );
    return {
      structured: {
        device_serial: serial,
        orientation: args.orientation,
        ...r,
        body_rotated: body?.path === "grpc",
        ...pathFields(body),
      },
      text: `Orientation of ${serial}: ${r.previous ?? "unknown"} → ${r.current ?? "unknown"}` +
        (body?.path === "grpc" ? "; the emulator's body turned via gRPC" : "") +
        (body?.fallback ? ` (body not turned: ${body.fallback.reason})` : ""),
    };
  },
});

export const deviceSettingsTools = [setNetworkStateTool, setDeviceOrientation];
