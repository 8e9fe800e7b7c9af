/**
 * Reading an installed app: `dump_app_info`, `get_memory_info`, `get_app_runtime_state`,
 * `get_exit_reasons`. Thin adapters over lib/android (dumpsys package and meminfo, the process
 * list, the exit history). Arguments are validated and package scope is checked before any device
 * command.
 */
import { z } from "zod";
import {
  listInstalledPackages,
  readExitHistory,
  readMeminfo,
  readPackageInfo,
  readRuntimeState,
} from "../../android/app_control.ts";
import { renderPackageInfo } from "../../android/dumpsys_package.ts";
import {
  DEFAULT_EXIT_RECORDS,
  isCrashOrAnr,
  MAX_EXIT_RECORDS,
  renderExitLine,
} from "../../android/exit_info.ts";
import { renderMeminfo } from "../../android/meminfo.ts";
import { invalidParams } from "../../core/errors.ts";
import { projectPackageScope } from "../../build/shared/package_scope.ts";
import { defineTool } from "../define_tool.ts";
import { exitOps } from "../../sessions/session_events.ts";
import type { ToolContext } from "../context.ts";
import { callOpts, deviceFor } from "../device_args.ts";
import { optionalPackageParam, packageParam, serialParam } from "../params.ts";

/** Candidate application ids considered for `get_exit_reasons`' default package. */
const MAX_DEFAULT_PACKAGE_CANDIDATES = 64;

const dumpAppInfo = defineTool({
  name: "dump_app_info",
  toolset: "core",
  kind: "R",
  description:
    "An installed app: version, SDK levels, install and update times, installer, flags " +
    "(debuggable), launcher activity, permissions and grants.",
  params: { package: packageParam, device_serial: serialParam },
  async run(args, ctx) {
    const pkg = args.package;
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
  description:
    "A running app's memory per process: PSS, RSS, swap, Java and native heap, graphics, " +
    "object counts (activities, views, WebViews).",
  params: { package: packageParam, device_serial: serialParam },
  async run(args, ctx) {
    const pkg = args.package;
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
  description:
    "Whether an app is installed, running (processes, pids), in the foreground (resumed " +
    "activity, focused window) or force-stopped.",
  params: { package: packageParam, device_serial: serialParam },
  async run(args, ctx) {
    const pkg = args.package;
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
  description:
    "Why an app's processes ended (crash, ANR, low memory, killed…), newest first, from " +
    "the device's exit history (Android 11+), with crashes logcat never saw.",
  params: {
    device_serial: serialParam,
    package: optionalPackageParam("App id; default: the project's app"),
    limit: z.number().int().optional().describe(
      `Most returned (default ${DEFAULT_EXIT_RECORDS}, max ${MAX_EXIT_RECORDS})`,
    ),
  },
  async run(args, ctx) {
    const limit = args.limit ?? DEFAULT_EXIT_RECORDS;
    if (limit < 1 || limit > MAX_EXIT_RECORDS) {
      throw invalidParams(`Invalid limit ${limit}: it must be from 1 to ${MAX_EXIT_RECORDS}`);
    }
    const explicit = args.package;
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

export const appInfoTools = [dumpAppInfo, getMemoryInfo, getAppRuntimeState, getExitReasons];
