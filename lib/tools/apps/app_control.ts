/**
 * Starting and stopping apps and opening screens in them: `launch_app`, `stop_app`,
 * `restart_app`, `open_deep_link`, `open_app_settings`. Thin adapters over
 * lib/android/app_control.ts and lib/android/launch.ts. Arguments are validated and package scope
 * is checked before any device command.
 */
import { z } from "zod";
import { defineTool } from "../define_tool.ts";
import { invalidParams } from "../../core/errors.ts";
import { validateDeepLink } from "../../core/validation.ts";
import { openAppSettings, openDeepLink, restartApp, stopApp } from "../../android/app_control.ts";
import { launchApp } from "../../android/launch.ts";
import { agentOrigin } from "../context.ts";
import { launchOp } from "../../sessions/session_events.ts";
import { projectLinkSchemes } from "../../project/link_schemes.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import {
  allowForeignParam,
  optionalPackageParam,
  packageParam,
  requiredSerialParam,
  serialParam,
} from "../params.ts";

// ── reading ──────────────────────────────────────────────────────────────────────────────────

// ── acting ───────────────────────────────────────────────────────────────────────────────────

const launchAppTool = defineTool({
  name: "launch_app",
  toolset: "device-admin",
  kind: "W",
  description:
    "Start an installed app (its launcher activity, or activity) and wait; returns the " +
    "launch time and state (cold, warm, hot). A launch error fails it.",
  params: {
    device_serial: requiredSerialParam,
    package: packageParam,
    activity: z.string().optional().describe(
      "Like .MainActivity; default: the launcher",
    ),
  },
  async run(args, ctx) {
    const serial = args.device_serial;
    const pkg = args.package;
    const r = await launchApp(ctx.adb, serial, pkg, args.activity, callOpts(ctx));
    ctx.sessions.record(launchOp(serial, pkg, {
      total_ms: r.timing?.total_ms ?? null,
      wait_ms: r.timing?.wait_ms ?? null,
      launch_state: r.timing?.launch_state ?? null,
      component: r.component,
    }, agentOrigin(ctx)));
    return {
      structured: {
        device_serial: serial,
        package: pkg,
        method: r.method,
        component: r.component,
        launch_timing: r.timing,
        status: r.report?.status ?? null,
        warnings: r.report?.warnings ?? [],
        output: r.output,
      },
      text: [
        `Launched ${r.component ?? pkg} on ${serial}`,
        r.timing_line,
        ...(r.report?.warnings ?? []),
      ].join("\n"),
    };
  },
});

const stopAppTool = defineTool({
  name: "stop_app",
  toolset: "device-admin",
  kind: "D",
  description: "Force-stop the project's app.",
  params: {
    device_serial: requiredSerialParam,
    package: packageParam,
    allow_foreign_package: allowForeignParam,
  },
  async run(args, ctx) {
    const serial = args.device_serial;
    const pkg = args.package;
    const r = await stopApp(ctx.adb, serial, pkg, callOpts(ctx));
    return {
      structured: { device_serial: serial, package: pkg, stopped: !r.running_after, ...r },
      text: r.running_after
        ? `Sent force-stop to ${pkg} on ${serial}, but a process of it still runs (a service ` +
          "restarted it?): check get_app_runtime_state"
        : `Stopped ${pkg} on ${serial}${r.was_running ? "" : " (it was not running)"}`,
    };
  },
});

const restartAppTool = defineTool({
  name: "restart_app",
  toolset: "device-admin",
  kind: "D",
  description:
    "Force-stop and relaunch the project's app (data kept unless clear_data); returns the " +
    "launch times and logcat's Displayed time.",
  params: {
    package: packageParam,
    device_serial: serialParam,
    clear_data: z.boolean().optional().describe(
      "pm clear first: wipes data and permissions (needs device_serial)",
    ),
    allow_foreign_package: allowForeignParam,
  },
  async run(args, ctx) {
    const pkg = args.package;
    const clear = args.clear_data === true;
    if (clear && args.device_serial === undefined) {
      throw invalidParams(
        "clear_data: true wipes the app's data, so it needs device_serial: pass the device " +
          "from list_devices",
      );
    }
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await restartApp(ctx.adb, serial, pkg, { clearData: clear }, callOpts(ctx));
    const t = r.launch.timing;
    ctx.sessions.record(launchOp(serial, pkg, {
      total_ms: t?.total_ms ?? null,
      wait_ms: t?.wait_ms ?? null,
      launch_state: t?.launch_state ?? null,
      displayed_ms: r.display_time_ms,
      component: r.launch.component,
      restart: true,
    }, agentOrigin(ctx)));
    const lines = [
      `Restarted ${r.launch.component ?? pkg} on ${serial}${clear ? " with its data cleared" : ""}`,
      r.launch.timing_line,
      r.display_time_ms === null
        ? "Displayed: no logcat Displayed line for this package"
        : `Displayed: ${r.display_time_ms} ms (logcat)`,
    ];
    return {
      structured: {
        device_serial: serial,
        package: pkg,
        cleared_data: r.cleared,
        method: r.launch.method,
        component: r.launch.component,
        total_time_ms: t?.total_ms ?? null,
        wait_time_ms: t?.wait_ms ?? null,
        launch_state: t?.launch_state ?? null,
        display_time_ms: r.display_time_ms,
        displayed_component: r.displayed_component,
        output: r.launch.output,
      },
      text: lines.join("\n"),
    };
  },
});

const openDeepLinkTool = defineTool({
  name: "open_deep_link",
  toolset: "device-admin",
  kind: "W",
  description: "Open a URI (myapp://item/42, https://…) as a VIEW intent, optionally in package; " +
    "fails when no app resolves it. Schemes: http, https and the project's.",
  params: {
    uri: z.string().describe("Absolute URI, percent-encoded ASCII"),
    package: optionalPackageParam("Only this app may handle it"),
    device_serial: serialParam,
  },
  async run(args, ctx) {
    const schemes = ctx.project ? await projectLinkSchemes(ctx.project.root) : [];
    const uri = validateDeepLink(args.uri, "uri", schemes);
    const pkg = args.package;
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await openDeepLink(ctx.adb, serial, uri, pkg, callOpts(ctx));
    return {
      structured: {
        device_serial: serial,
        uri,
        package: pkg ?? null,
        activity: r.report.activity,
        launch_timing: {
          total_ms: r.report.total_ms,
          wait_ms: r.report.wait_ms,
          launch_state: r.report.launch_state,
        },
        warnings: r.report.warnings,
        output: r.output,
      },
      text: [
        `Opened ${uri} on ${serial}${r.report.activity ? ` in ${r.report.activity}` : ""}`,
        ...(r.timing_line ? [r.timing_line] : []),
        ...r.report.warnings,
      ].join("\n"),
    };
  },
});

const openAppSettingsTool = defineTool({
  name: "open_app_settings",
  toolset: "device-admin",
  kind: "W",
  description: "Open the system App info screen of a package (permissions, storage, force stop).",
  params: { package: packageParam, device_serial: serialParam },
  async run(args, ctx) {
    const pkg = args.package;
    const serial = await deviceFor(ctx, args.device_serial);
    const r = await openAppSettings(ctx.adb, serial, pkg, callOpts(ctx));
    return {
      structured: {
        device_serial: serial,
        package: pkg,
        activity: r.report.activity,
        output: r.output,
      },
      text: `Opened the App info screen of ${pkg} on ${serial}`,
    };
  },
});

export const appControlTools = [
  launchAppTool,
  stopAppTool,
  restartAppTool,
  openDeepLinkTool,
  openAppSettingsTool,
];
