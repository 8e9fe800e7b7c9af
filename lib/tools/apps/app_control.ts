/**
 * The app tools: reading an app (`dump_app_info`, `get_memory_info`, `get_app_runtime_state`,
 * `get_exit_reasons`) and acting on apps and devices (`launch_app`, `stop_app`, `restart_app`,
 * permissions, network, orientation, deep links, the app's settings screen). Thin adapters over
 * lib/android/app_control.ts. Arguments are validated and package scope is checked before any
 * device command.
 */
import { z } from "zod";
import { pathFields } from "../ui/paths.ts";
import { defineTool } from "../../mcp/tool_def.ts";
import { invalidParams } from "../../core/errors.ts";
import {
  validateDeepLink,
  validatePackage,
  validatePermission,
  validateSerial,
} from "../../core/validation.ts";
import {
  checkPackageScope,
  emptyPackageScope,
  projectPackageScope,
} from "../../gradle/package_scope.ts";
import {
  changePermission,
  listInstalledPackages,
  openAppSettings,
  openDeepLink,
  readExitHistory,
  readMeminfo,
  readPackageInfo,
  readRuntimeState,
  restartApp,
  setNetworkState,
  setOrientation,
  stopApp,
} from "../../android/app_control.ts";
import { launchApp } from "../../android/launch.ts";
import { renderPackageInfo } from "../../android/dumpsys_package.ts";
import { renderMeminfo } from "../../android/meminfo.ts";
import {
  DEFAULT_EXIT_RECORDS,
  isCrashOrAnr,
  MAX_EXIT_RECORDS,
  renderExitLine,
} from "../../android/exit_info.ts";
import { checkNetworkRequest, describeNetwork } from "../../android/network.ts";
import { ORIENTATION_QUADRANT, ORIENTATIONS } from "../../android/orientation.ts";
import type { ToolContext } from "../context.ts";
import { exitOps, launchOp } from "../../sessions/session_events.ts";
import { agentOrigin } from "../build_support.ts";
import { projectLinkSchemes } from "../../android/link_schemes.ts";
import { callOpts, deviceFor, optionalSerial } from "../device_args.ts";
import { allowForeignParam, packageParam, requiredSerialParam, serialParam } from "../params.ts";

/** Candidate application ids considered for `get_exit_reasons`' default package. */
export const MAX_DEFAULT_PACKAGE_CANDIDATES = 64;

/** Package scope (spec "Package Scope"): refused with invalid_params before any device command. */
async function requireScope(ctx: ToolContext, pkg: string, allow: boolean | undefined) {
  if (allow === true) return;
  const scope = ctx.project
    ? await projectPackageScope(ctx.project.root, { dataDir: ctx.dataDir })
    : emptyPackageScope();
  checkPackageScope(scope, pkg, false);
}

// ── reading ──────────────────────────────────────────────────────────────────────────────────

const dumpAppInfo = defineTool({
  name: "dump_app_info",
  toolset: "core",
  kind: "R",
  title: "App info",
  description: "An installed app's version, SDK levels, install and update times, installer, " +
    "flags (debuggable), launcher activity, and permissions with their grant state, from " +
    "dumpsys package.",
  params: { package: packageParam, device_serial: serialParam },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const pkg = validatePackage(args.package);
    const serial = await deviceFor(ctx, args.device_serial);
    const info = await readPackageInfo(ctx.adb, serial, pkg, callOpts(ctx));
    return {
      structured: { device_serial: serial, installed: info.found, ...info },
      text: renderPackageInfo(info),
    };
  },
});

const getMemoryInfo = defineTool({
  name: "get_memory_info",
  toolset: "core",
  kind: "R",
  title: "App memory",
  description: "A running app's memory per process from dumpsys meminfo: total PSS, RSS and " +
    "swap, the App Summary (Java heap, native heap, code, graphics…), heap sizes, and object " +
    "counts (activities, views, WebViews).",
  params: { package: packageParam, device_serial: serialParam },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const pkg = validatePackage(args.package);
    const serial = await deviceFor(ctx, args.device_serial);
    const dump = await readMeminfo(ctx.adb, serial, pkg, callOpts(ctx));
    return {
      structured: {
        package: pkg,
        device_serial: serial,
        running: dump.processes.length > 0,
        processes: dump.processes,
      },
      text: renderMeminfo(pkg, dump),
    };
  },
});

const getAppRuntimeState = defineTool({
  name: "get_app_runtime_state",
  toolset: "core",
  kind: "R",
  title: "App runtime state",
  description: "Whether an app is installed, running (its processes and pids), in the " +
    "foreground (the resumed activity and focused window), and force-stopped.",
  params: { package: packageParam, device_serial: serialParam },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const pkg = validatePackage(args.package);
    const serial = await deviceFor(ctx, args.device_serial);
    const s = await readRuntimeState(ctx.adb, serial, pkg, callOpts(ctx));
    const procs = s.processes.map((p) => `${p.name} (pid ${p.pid})`).join(", ");
    const text = !s.installed && !s.running ? `${pkg} is not installed on ${serial}` : [
      `${pkg} on ${serial}: ${s.running ? `running: ${procs}` : "not running"}`,
      s.foreground
        ? `In the foreground: ${s.resumed_activity ?? s.focused_window}`
        : `Not in the foreground (top: ${s.resumed_activity ?? s.focused_window ?? "unknown"})`,
      `Stopped state: ${s.stopped === null ? "unknown" : s.stopped}`,
    ].join("\n");
    return { structured: { device_serial: serial, ...s }, text };
  },
});

/**
 * The project's app for `get_exit_reasons`: the only application id its variants (and built
 * outputs) have, else the only one of them installed on the device. Several or none is
 * invalid_params naming them.
 */
async function defaultPackage(ctx: ToolContext, serial: string): Promise<string> {
  if (!ctx.project) {
    throw invalidParams("No Android project is open, so there is no default app: pass package");
  }
  const root = ctx.project.root;
  const scope = await projectPackageScope(root, { dataDir: ctx.dataDir });
  const ids = new Set(scope.ids.slice(0, MAX_DEFAULT_PACKAGE_CANDIDATES).map((e) => e.id));
  if (ids.size === 1) return [...ids][0];
  if (ids.size === 0) {
    throw invalidParams(
      "No application id was found in this project's build files or outputs: pass package",
    );
  }
  const installed = await listInstalledPackages(ctx.adb, serial, callOpts(ctx));
  const onDevice = [...ids].filter((id) => installed.has(id));
  if (onDevice.length === 1) return onDevice[0];
  throw invalidParams(
    onDevice.length === 0
      ? `The project has several application ids (${
        [...ids].join(", ")
      }) and none is installed on ${serial}: pass package`
      : `Several builds of the project are installed on ${serial} (${
        onDevice.join(", ")
      }): pass package`,
    { candidates: [...ids], installed: onDevice },
  );
}

const getExitReasons = defineTool({
  name: "get_exit_reasons",
  toolset: "core",
  kind: "R",
  title: "Why the app exited",
  description: "Why an app's processes ended (crash, ANR, low memory, killed, user stop…), " +
    "newest first, from the device's exit history (Android 11+), including crashes logcat " +
    "never saw. package defaults to the project's app.",
  params: {
    device_serial: serialParam,
    package: z.string().optional().describe("Application id; default: the open project's app"),
    limit: z.number().int().optional().describe(
      `Most exits to return (default ${DEFAULT_EXIT_RECORDS}, max ${MAX_EXIT_RECORDS})`,
    ),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const limit = args.limit ?? DEFAULT_EXIT_RECORDS;
    if (limit < 1 || limit > MAX_EXIT_RECORDS) {
      throw invalidParams(`Invalid limit ${limit}: it must be from 1 to ${MAX_EXIT_RECORDS}`);
    }
    const explicit = args.package === undefined ? undefined : validatePackage(args.package);
    const serial = await deviceFor(ctx, args.device_serial);
    const pkg = explicit ?? await defaultPackage(ctx, serial);
    const history = await readExitHistory(ctx.adb, serial, pkg, callOpts(ctx));
    if (!history.supported) {
      return {
        structured: {
          package: pkg,
          device_serial: serial,
          supported: false,
          api_level: history.api_level,
          count: 0,
          records: [],
        },
        text: `${serial} runs API ${history.api_level}: the exit history (ApplicationExitInfo) ` +
          "needs Android 11 (API 30) or newer; use get_crash_logs with start_logcat instead",
      };
    }
    const mine = history.dump.records.filter((r) => r.package === null || r.package === pkg);
    for (const op of exitOps(serial, pkg, mine)) ctx.sessions.record(op);
    const records = mine.slice(0, limit);
    const crashes = records.some(isCrashOrAnr);
    const hint = crashes
      ? `Crashes or ANRs are listed: get_crash_logs and get_crash_stack_trace (package ${pkg}) ` +
        "give their stack traces when logcat captured them (start_logcat)"
      : null;
    const head = records.length === 0
      ? `No recorded exits for ${pkg} on ${serial}`
      : `${records.length} of ${mine.length} exits of ${pkg} on ${serial}, newest first:`;
    const text = [head, ...records.map(renderExitLine), ...(hint ? [hint] : [])].join("\n");
    return {
      structured: {
        package: pkg,
        device_serial: serial,
        supported: true,
        api_level: history.api_level,
        count: records.length,
        total: mine.length,
        truncated: history.dump.truncated || mine.length > records.length,
        has_crash_or_anr: crashes,
        hint,
        records,
      },
      text,
    };
  },
});

// ── acting ───────────────────────────────────────────────────────────────────────────────────

const launchAppTool = defineTool({
  name: "launch_app",
  toolset: "device-admin",
  kind: "W",
  title: "Launch app",
  description: "Start an installed app (its launcher activity, or activity) with am start -W " +
    "and report the launch time and state (cold/warm/hot). Fails when am start reports an " +
    "error even with exit code 0.",
  params: {
    device_serial: requiredSerialParam,
    package: packageParam,
    activity: z.string().optional().describe(
      "Activity to start, like .MainActivity; default: the launcher activity",
    ),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const serial = validateSerial(args.device_serial);
    const pkg = validatePackage(args.package);
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
  title: "Stop app",
  description: "Force-stop the project's app (am force-stop). Other packages need " +
    "allow_foreign_package: true, only when the user asked for them.",
  params: {
    device_serial: requiredSerialParam,
    package: packageParam,
    allow_foreign_package: allowForeignParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const serial = validateSerial(args.device_serial);
    const pkg = validatePackage(args.package);
    await requireScope(ctx, pkg, args.allow_foreign_package);
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
  title: "Restart app",
  description: "Force-stop and relaunch the project's app, keeping its data (clear_data: true " +
    "wipes data and permissions first, needs device_serial). Returns am start -W times and the " +
    "logcat Displayed time.",
  params: {
    package: packageParam,
    device_serial: serialParam,
    clear_data: z.boolean().optional().describe(
      "Run pm clear first: wipes the app's data and runtime permissions (needs device_serial)",
    ),
    allow_foreign_package: allowForeignParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const pkg = validatePackage(args.package);
    if (args.device_serial !== undefined) validateSerial(args.device_serial);
    const clear = args.clear_data === true;
    if (clear && args.device_serial === undefined) {
      throw invalidParams(
        "clear_data: true wipes the app's data, so it needs device_serial: pass the device " +
          "from list_devices",
      );
    }
    await requireScope(ctx, pkg, args.allow_foreign_package);
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

function permissionTool(grant: boolean) {
  return defineTool({
    name: grant ? "grant_runtime_permission" : "revoke_runtime_permission",
    toolset: "device-admin",
    kind: grant ? "W" : "D",
    title: grant ? "Grant permission" : "Revoke permission",
    description: grant
      ? "Grant a runtime permission the project's app requests (pm grant). Other packages need " +
        "allow_foreign_package: true."
      : "Revoke a runtime permission from the project's app (pm revoke); Android kills the app's " +
        "process. Other packages need allow_foreign_package: true.",
    params: {
      package: packageParam,
      permission: z.string().describe("Permission name, like android.permission.CAMERA"),
      device_serial: serialParam,
      allow_foreign_package: allowForeignParam,
    },
    projectIndependent: true,
    async run(args, ctx: ToolContext) {
      const pkg = validatePackage(args.package);
      const permission = validatePermission(args.permission);
      if (args.device_serial !== undefined) validateSerial(args.device_serial);
      await requireScope(ctx, pkg, args.allow_foreign_package);
      const serial = await deviceFor(ctx, args.device_serial);
      const r = await changePermission(ctx.adb, serial, pkg, permission, grant, callOpts(ctx));
      const killed = !grant && r.was_running && !r.running_after;
      return {
        structured: {
          device_serial: serial,
          package: pkg,
          permission,
          granted: grant,
          process_killed: killed,
        },
        text: `${grant ? "Granted" : "Revoked"} ${permission} ${grant ? "to" : "from"} ${pkg} ` +
          `on ${serial}${killed ? "; Android stopped the app's process" : ""}`,
      };
    },
  });
}

const setNetworkStateTool = defineTool({
  name: "set_network_state",
  toolset: "device-admin",
  kind: "D",
  title: "Set network state",
  description: "Turn Wi-Fi, mobile data or airplane mode on or off; returns previous to revert. " +
    "Wi-Fi off or airplane mode on is refused for wireless-ADB devices (it would cut adb off).",
  params: {
    device_serial: serialParam,
    wifi: z.boolean().optional().describe("Wi-Fi on (true) or off (false)"),
    mobile_data: z.boolean().optional().describe("Mobile data on (true) or off (false)"),
    airplane_mode: z.boolean().optional().describe("Airplane mode on (true) or off (false)"),
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const req = {
      wifi: args.wifi,
      mobile_data: args.mobile_data,
      airplane_mode: args.airplane_mode,
    };
    const given = optionalSerial(args.device_serial);
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
  title: "Set orientation",
  description: "Rotate the screen: portrait, landscape, reverse_portrait, reverse_landscape " +
    "(auto-rotate off), or auto (auto-rotate on). Returns previous.",
  params: {
    orientation: z.enum(ORIENTATIONS).describe(
      "portrait, landscape, reverse_portrait, reverse_landscape, or auto",
    ),
    device_serial: serialParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
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

const openDeepLinkTool = defineTool({
  name: "open_deep_link",
  toolset: "device-admin",
  kind: "W",
  title: "Open deep link",
  description: "Open a URI with am start -W -a VIEW (an app link like myapp://item/42 or " +
    "https://…), optionally in package. Fails when no app resolves it. Only http, https and " +
    "the schemes the project's manifests declare in intent filters are allowed.",
  params: {
    uri: z.string().describe("Absolute URI with a scheme, percent-encoded ASCII"),
    package: z.string().optional().describe("Only let this app handle it"),
    device_serial: serialParam,
  },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const schemes = ctx.project ? await projectLinkSchemes(ctx.project.root) : [];
    const uri = validateDeepLink(args.uri, "uri", schemes);
    const pkg = args.package === undefined ? undefined : validatePackage(args.package);
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
  title: "Open app settings",
  description: "Open the system App info screen of a package (permissions, storage, force " +
    "stop). Fails when am start reports an error.",
  params: { package: packageParam, device_serial: serialParam },
  projectIndependent: true,
  async run(args, ctx: ToolContext) {
    const pkg = validatePackage(args.package);
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

export const appReadTools = [dumpAppInfo, getMemoryInfo, getAppRuntimeState, getExitReasons];

export const appActionTools = [
  launchAppTool,
  stopAppTool,
  restartAppTool,
  permissionTool(true),
  permissionTool(false),
  setNetworkStateTool,
  setDeviceOrientation,
  openDeepLinkTool,
  openAppSettingsTool,
];

export const appsTools = [...appReadTools, ...appActionTools];
