/**
 * The "apps" device service: packages, processes, the activity stack, settings and exit history
 * of one simulated device, and the device commands that read and change them, with real output
 * formats, error texts and exit codes. This file holds the state and what changes it (launch, kill,
 * crash, install, settings); each command family reads its arguments in a module of its own:
 * `pm` / `cmd package` (pm_command.ts), `am` / `cmd activity` and `monkey` (am_command.ts, intents
 * in intents.ts), `ps` and `pidof` (ps_command.ts), `sha256sum` (sha256sum_command.ts), `dumpsys
 * activity|meminfo|package|window` (dumpsys_command.ts), `settings`, `svc`, `cmd connectivity
 * airplane-mode`, `wm user-rotation` and `reboot` (settings_command.ts). Launches, stops, crashes
 * and revokes write real-format lines into the device's log.
 *
 * Every device starts with the sample app (tests/sim/apps/sample.ts) installed as a user app, its
 * process running and its MainActivity on top: the other services (the UI draws the app's screens
 * when it is on top) take "what is in front" from `topActivity()` here.
 *
 * simctl (tests): `app-crash <pkg>` (a Java crash, written by the logcat service's crash formatter
 * when one is attached), `airplane-cmd fail|ok`, `app-home`, `launch-times <cold> <warm> <hot>`
 * (ms).
 */
import type { DeviceService, VirtualDevice } from "../device.ts";
import type { LogLevel } from "../device_log.ts";
import type { SimWorld } from "../services.ts";
import type { ShellRun, ShIo } from "../sh_exec.ts";
import type { CrashKind } from "../logcat/crashes.ts";
import { javaCrashLines, startProcLines } from "../logcat/crashes.ts";
import type { Proc as LogProc } from "../logcat/traffic.ts";
import { amCommand, amStart, monkeyCommand } from "./am_command.ts";
import { apkDefects, ApkError, type ApkInfo, readApk } from "./apk.ts";
import { SHELL_PID } from "./constants.ts";
import { ExitReason, type ExitRecord, type TopActivity } from "./dumpsys.ts";
import { dumpsysCommand } from "./dumpsys_command.ts";
import { type Intent, queryIntent, resolveIntent } from "./intents.ts";
import {
  activitiesFromApk,
  type AppPackage,
  dataAppDir,
  defaultRequested,
  formatUid,
  isRuntimePermission,
  launcherFor,
  type PermissionState,
  systemPackages,
} from "./packages.ts";
import { pmCommand } from "./pm_command.ts";
import { pidofCommand, psCommand } from "./ps_command.ts";
import { SAMPLE_ACTIVITY, sampleApkBytes, sampleApkInfo } from "./sample.ts";
import {
  connectivityCommand,
  rebootCommand,
  settingsCommand,
  svcCommand,
  userRotationCommand,
} from "./settings_command.ts";
import { sha256sumCommand } from "./sha256sum_command.ts";

const enc = new TextEncoder();

/** Exit records kept per package (AppExitInfoTracker keeps a bounded history too). */
export const MAX_EXIT_RECORDS_PER_PACKAGE = 16;
/** Packages a device may hold (installs beyond this fail with INSUFFICIENT_STORAGE). */
export const MAX_PACKAGES = 512;
/** Seconds a wireless device stays unreachable after its Wi-Fi is cut. */
export const WIRELESS_CUT_SECONDS = 120;

const SYSTEM_SERVER_PID = 612;
const ZYGOTE_PID = 402;

/** The exit-info reason each crash kind records (`ApplicationExitInfo.REASON_*`). */
export const CRASH_EXIT_REASON: Readonly<Record<CrashKind, number>> = {
  java: ExitReason.crash,
  anr: ExitReason.anr,
  native: ExitReason.crashNative,
};

/** How a crashed process ended, as the logcat service reports it to `processDied`. */
export interface ProcessDeath {
  /** Whether the activity manager starts the process again (Java crashes). */
  restart?: boolean;
  /** The signal that killed it (native crashes: 11 SIGSEGV, 6 SIGABRT); the exit status. */
  signal?: number | null;
}

/** What this service uses of the logcat service when one is attached (tests/sim/logcat/). */
interface CrashWriter {
  crash(pkg: string, kind: CrashKind): unknown;
}

export interface Proc {
  pid: number;
  ppid: number;
  uid: number;
  name: string;
  /** The package it belongs to (null for native daemons). */
  pkg: string | null;
  startTime: number;
  rssKb: number;
}

export interface LaunchTimes {
  cold: number;
  warm: number;
  hot: number;
}

const BASE_PROCS: [number, number, number, string][] = [
  [1, 0, 0, "init"],
  [2, 0, 0, "[kthreadd]"],
  [310, 1, 1036, "logd"],
  [330, 1, 1000, "servicemanager"],
  [402, 1, 0, "zygote64"],
  [455, 1, 1000, "surfaceflinger"],
  [520, 1, 2000, "adbd"],
  [SYSTEM_SERVER_PID, 402, 1000, "system_server"],
];

export class AppsService implements DeviceService {
  readonly name = "apps";
  readonly packages = new Map<string, AppPackage>();
  readonly procs = new Map<number, Proc>();
  /** Tasks, top first; the launcher's home task (`home`) is in it for good. */
  stack: TopActivity[] = [];
  /** The launcher's home task (HOME brings it to the front; it is never removed). */
  home!: TopActivity;
  readonly exits: ExitRecord[] = [];
  readonly settings = new Map<string, Map<string, string>>();
  airplaneCmdFails = false;
  launchTimes: LaunchTimes = { cold: 812, warm: 364, hot: 158 };
  private nextPid = 3100;
  private nextUid = 10190;
  /** The next task id (`am start` takes one for a new task). */
  nextTask = 40;
  private nextSession = 1_200_000_000;
  readonly bootTime = Date.now();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(readonly device: VirtualDevice, readonly world: SimWorld | null) {
    const buildTime = Number(device.props.get("ro.build.date.utc") ?? "1700000000") * 1000;
    for (
      const p of systemPackages(
        device.api,
        device.props.get("ro.product.manufacturer") ?? "",
        buildTime,
      )
    ) {
      this.packages.set(p.name, p);
      const bytes = enc.encode(`keynobi simulator system apk\npackage=${p.name}\n`);
      device.writeFile(p.apkPath, bytes);
    }
    this.settings.set(
      "global",
      new Map([
        ["wifi_on", "1"],
        ["mobile_data", "1"],
        ["airplane_mode_on", "0"],
        ["adb_enabled", "1"],
        ["device_provisioned", "1"],
      ]),
    );
    this.settings.set(
      "system",
      new Map([["user_rotation", "0"], [
        "accelerometer_rotation",
        device.kind === "emulator" ? "0" : "1",
      ]]),
    );
    this.settings.set("secure", new Map([["android_id", "6f1d3c2b9a8e7d10"]]));
    this.boot();
    this.preinstallSample();
  }

  /**
   * The sample app as the developer left it: installed earlier (a real APK under /data/app),
   * running, its MainActivity on top of the launcher. Devices older than its minSdk go without.
   */
  private preinstallSample() {
    const info = sampleApkInfo();
    if (info.minSdk > this.device.api) return;
    const p = this.packageRecord(info, undefined, {});
    const installedAt = Date.now() - 3_600_000;
    p.firstInstallTime = installedAt;
    p.lastUpdateTime = installedAt;
    this.packages.set(p.name, p);
    this.device.writeFile(p.apkPath, sampleApkBytes());
    this.spawn(p.name);
    this.stack.unshift({ pkg: p.name, cls: SAMPLE_ACTIVITY, task: this.nextTask++, uid: p.uid });
  }

  /** Processes and home screen right after boot. */
  boot() {
    this.procs.clear();
    for (const [pid, ppid, uid, name] of BASE_PROCS) {
      this.procs.set(pid, {
        pid,
        ppid,
        uid,
        name,
        pkg: null,
        startTime: this.bootTime,
        rssKb: 8000,
      });
    }
    const launcher = launcherFor(this.device.props.get("ro.product.manufacturer") ?? "");
    for (const pkg of ["com.android.systemui", launcher.pkg, "com.google.android.gms"]) {
      this.spawn(pkg);
    }
    this.home = {
      pkg: launcher.pkg,
      cls: launcher.activity,
      task: this.nextTask++,
      uid: this.packages.get(launcher.pkg)!.uid,
    };
    this.stack = [this.home];
  }

  // ---- state helpers (also used by tests)

  /** The pid of the package's process, or null. */
  /** What is broken in the installed build of `pkg` (empty when nothing, or not installed). */
  defectsOf(pkg: string): readonly string[] {
    return this.packages.get(pkg)?.defects ?? [];
  }

  pidOf(pkg: string): number | null {
    for (const p of this.procs.values()) if (p.pkg === pkg) return p.pid;
    return null;
  }

  /** Starts the package's process (a new pid). */
  spawn(pkg: string): Proc {
    const p = this.packages.get(pkg)!;
    const proc: Proc = {
      pid: this.nextPid,
      ppid: 402,
      uid: p.uid,
      name: p.processName,
      pkg,
      startTime: Date.now(),
      rssKb: 98_000 + (this.nextPid % 7) * 1500,
    };
    this.nextPid += 17 + (this.nextPid % 5);
    this.procs.set(proc.pid, proc);
    return proc;
  }

  /** Appends a line to the device's log, as system_server unless told otherwise. */
  log(level: LogLevel, tag: string, message: string, pid = SYSTEM_SERVER_PID, uid = 1000) {
    this.device.log.append({
      pid,
      tid: pid === SYSTEM_SERVER_PID ? pid + 28 : pid,
      uid,
      level,
      tag,
      message,
      buffer: pid === SYSTEM_SERVER_PID ? "system" : "main",
    });
  }

  /** The tag activity starts log under on this API level. */
  get atmTag(): string {
    return this.device.api >= 29 ? "ActivityTaskManager" : "ActivityManager";
  }

  /** Kills the package's process with an exit-info record; returns whether one ran. */
  kill(
    pkg: string,
    why: { reason: number; subreason?: number; description: string; logReason: string },
  ): boolean {
    const pid = this.pidOf(pkg);
    if (pid === null) return false;
    const proc = this.procs.get(pid)!;
    const top = this.stack[0]?.pkg === pkg;
    this.log(
      "I",
      "ActivityManager",
      `Killing ${pid}:${proc.name}/${formatUid(proc.uid)} (adj ${top ? 0 : 900}): ${why.logReason}`,
    );
    this.recordExit({
      timestamp: Date.now(),
      pid,
      uid: proc.uid,
      pkg,
      process: proc.name,
      reason: why.reason,
      subreason: why.subreason ?? 0,
      status: 0,
      importance: top ? 100 : 400,
      pssKb: 0,
      rssKb: proc.rssKb,
      description: why.description,
    });
    this.procs.delete(pid);
    this.removeTasks(pkg);
    return true;
  }

  private recordExit(r: ExitRecord) {
    this.exits.push(r);
    const mine = this.exits.filter((x) => x.pkg === r.pkg);
    if (mine.length > MAX_EXIT_RECORDS_PER_PACKAGE) {
      this.exits.splice(this.exits.indexOf(mine[0]), 1);
    }
  }

  private removeTasks(pkg: string) {
    this.stack = this.stack.filter((t) => t.pkg !== pkg || t === this.home);
  }

  /**
   * `simctl app-crash`: a Java crash of the running `pkg`. The logcat service writes it when one is
   * attached (its crash formatter is the only crash writer; it reports back through
   * `processDied`); alone, this service writes the same formatter's lines itself.
   */
  crash(pkg: string): boolean {
    const pid = this.pidOf(pkg);
    if (pid === null) return false;
    const logcat = this.device.service("logcat") as unknown as Partial<CrashWriter> | undefined;
    if (typeof logcat?.crash === "function") {
      logcat.crash(pkg, "java");
      return true;
    }
    const proc = this.procs.get(pid)!;
    const logProc = (pid: number, uid: number, name: string, app: boolean): LogProc => ({
      pid,
      uid,
      name,
      threads: [pid + 8, pid + 11, pid + 23, pid + 37],
      app,
      origin: "apps",
    });
    const sys = logProc(SYSTEM_SERVER_PID, 1000, "system_server", false);
    const zygote = logProc(ZYGOTE_PID, 0, "zygote64", false);
    const app = logProc(pid, proc.uid, proc.name, true);
    for (const l of javaCrashLines(app, sys, zygote, "activity")) this.device.log.append(l);
    const again = this.processDied(pkg, pid, "java", { restart: true });
    if (again !== null) {
      const next = logProc(again, proc.uid, proc.name, true);
      const lines = startProcLines(sys, next, "next-top-activity", this.device.api);
      for (const l of lines) this.device.log.append(l);
    }
    return true;
  }

  /**
   * A process of `pkg` crashed (the logcat service wrote its lines): it leaves the process list,
   * its activities are finished, and an exit record keeps the reason (4 APP CRASH(EXCEPTION) for
   * Java, 6 ANR, 5 APP CRASH(NATIVE) with the signal as status). With `restart` the activity
   * manager starts the process again in the background; returns the new pid, else null. A
   * package this device does not have changes nothing.
   */
  processDied(pkg: string, pid: number, kind: CrashKind, how: ProcessDeath = {}): number | null {
    const p = this.packages.get(pkg);
    if (!p) return null;
    const known = this.procs.get(pid);
    const proc = known?.pkg === pkg ? known : undefined;
    const top = this.stack[0]?.pkg === pkg;
    this.recordExit({
      timestamp: Date.now(),
      pid,
      uid: proc?.uid ?? p.uid,
      pkg,
      process: proc?.name ?? p.processName,
      reason: CRASH_EXIT_REASON[kind],
      subreason: 0,
      status: kind === "native" ? how.signal ?? 11 : 0,
      importance: top ? 100 : 400,
      pssKb: 0,
      rssKb: proc?.rssKb ?? 0,
      description: kind === "anr" ? "user request after error" : "crash",
    });
    if (proc) this.procs.delete(pid);
    this.removeTasks(pkg);
    if (!how.restart || this.pidOf(pkg) !== null) return null;
    return this.spawn(pkg).pid;
  }

  /**
   * A tap on the package's launcher icon: its MAIN/LAUNCHER activity starts as the launcher
   * starts it (START and Displayed lines in the log, a cold start when it was not running).
   * Returns false when the package has no launcher activity.
   */
  launch(pkg: string): boolean {
    const p = this.packages.get(pkg);
    const main = p?.activities.find((a) =>
      a.filters.some((f) =>
        f.actions.includes("android.intent.action.MAIN") &&
        f.categories.includes("android.intent.category.LAUNCHER")
      )
    );
    if (!p || !main) return false;
    const quiet: ShIo = {
      stdin: () => Promise.resolve(new Uint8Array()),
      out: () => {},
      err: () => {},
    };
    const args = [
      "-a",
      "android.intent.action.MAIN",
      "-c",
      "android.intent.category.LAUNCHER",
      "-n",
      `${pkg}/${main.name}`,
    ];
    return amStart(this, args, quiet, this.home.uid) === 0 && this.stack[0]?.pkg === pkg;
  }

  /** Press HOME: the launcher's task comes to the front; processes keep running. */
  goHome() {
    this.stack = [this.home, ...this.stack.filter((t) => t !== this.home)];
  }

  /** The resumed activity (top task), for other services that show the foreground app. */
  topActivity(): TopActivity | undefined {
    return this.stack[0];
  }

  setting(ns: string, key: string): string | undefined {
    return this.settings.get(ns)?.get(key);
  }

  putSetting(ns: string, key: string, value: string) {
    this.settings.get(ns)?.set(key, value);
  }

  /**
   * Adds a package without an APK install (tests). Replacing one that is installed is an
   * update: its process stops as an install would stop it, its old APK goes.
   */
  addPackage(p: AppPackage, apkBytes: Uint8Array = enc.encode(`apk ${p.name}\n`)) {
    const old = this.packages.get(p.name);
    if (old) this.replacing(old);
    this.packages.set(p.name, p);
    this.device.writeFile(p.apkPath, apkBytes);
  }

  /** An update of `old` begins: its process is killed (`installPackageLI`), its APK removed. */
  private replacing(old: AppPackage) {
    const api = this.device.api;
    this.kill(old.name, {
      reason: api >= 34 ? ExitReason.packageUpdated : ExitReason.userRequested,
      subreason: api >= 34 ? 0 : 25,
      description: `stop ${old.name} due to installPackageLI`,
      logReason: `stop ${old.name} due to installPackageLI`,
    });
    this.device.files.delete(old.apkPath);
  }

  // ---- DeviceService

  async command(argv: string[], io: ShIo, shell: ShellRun): Promise<number | null> {
    const [name, ...args] = argv;
    switch (name) {
      case "pm":
        return await pmCommand(this, args, io, "pm");
      case "cmd":
        if (args[0] === "package") return await pmCommand(this, args.slice(1), io, "cmd");
        if (args[0] === "activity") return amCommand(this, args.slice(1), io);
        if (args[0] === "connectivity") return connectivityCommand(this, args.slice(1), io);
        return null;
      case "am":
        return amCommand(this, args, io);
      case "monkey":
        return monkeyCommand(this, args, io);
      case "ps":
        return psCommand(this, args, io);
      case "pidof":
        return pidofCommand(this, args, io);
      case "sha256sum":
        return await sha256sumCommand(this, args, io, shell);
      case "dumpsys":
        return dumpsysCommand(this, args, io);
      case "settings":
        return settingsCommand(this, args, io);
      case "svc":
        return svcCommand(this, args, io);
      case "wm":
        return args[0] === "user-rotation" ? userRotationCommand(this, args.slice(1), io) : null;
      case "reboot":
        return rebootCommand(this, args);
    }
    return null;
  }

  simctl(args: string[], io: ShIo): number | null {
    const [sub, ...rest] = args;
    const fail = (msg: string) => {
      io.err(enc.encode(`simctl: ${msg}\n`));
      return 1;
    };
    switch (sub) {
      case "app-crash":
        if (rest.length !== 1) return fail("usage: simctl app-crash <package>");
        return this.crash(rest[0]) ? 0 : fail(`app-crash: ${rest[0]} is not running`);
      case "airplane-cmd":
        if (rest[0] !== "fail" && rest[0] !== "ok") {
          return fail("usage: simctl airplane-cmd fail|ok");
        }
        this.airplaneCmdFails = rest[0] === "fail";
        return 0;
      case "app-home":
        this.goHome();
        return 0;
      case "launch-times": {
        const n = rest.map(Number);
        if (n.length !== 3 || n.some((x) => !Number.isInteger(x) || x < 0 || x > 600_000)) {
          return fail("usage: simctl launch-times <cold> <warm> <hot> (ms, 0..600000)");
        }
        this.launchTimes = { cold: n[0], warm: n[1], hot: n[2] };
        return 0;
      }
    }
    return null;
  }

  close() {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // ---- pm / cmd package

  /** Installs APK bytes; returns `Success` or the `Failure [...]` line. */
  async install(bytes: Uint8Array, opts: { grant?: boolean; downgrade?: boolean } = {}) {
    const tmp = `/data/app/vmdl${this.nextSession++}.tmp/base.apk`;
    let info;
    try {
      info = await readApk(bytes);
    } catch (e) {
      if (!(e instanceof ApkError)) throw e;
      return `Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse ${tmp}: Failed to load asset path ${tmp}]`;
    }
    const api = this.device.api;
    if (info.minSdk > api) {
      return `Failure [INSTALL_FAILED_OLDER_SDK: Failed parse during installPackageLI: ${tmp} ` +
        `(at Binary XML file line #7): Requires newer sdk version #${info.minSdk} ` +
        `(current version is #${api})]`;
    }
    const old = this.packages.get(info.packageName);
    if (old && info.versionCode < old.versionCode && !opts.downgrade) {
      return `Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code ` +
        `${info.versionCode} is older than current ${old.versionCode}]`;
    }
    if (!old && this.packages.size >= MAX_PACKAGES) {
      return "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]";
    }
    if (old) this.replacing(old);
    const p = { ...this.packageRecord(info, old, opts), defects: apkDefects(bytes) };
    this.packages.set(p.name, p);
    this.device.writeFile(p.apkPath, bytes.slice());
    return "Success";
  }

  /** The package record an install of an APK with these manifest facts creates. */
  private packageRecord(
    info: ApkInfo,
    old: AppPackage | undefined,
    opts: { grant?: boolean },
  ): AppPackage {
    const api = this.device.api;
    const dir = dataAppDir(info.packageName);
    const requested = info.permissions.length ? info.permissions : defaultRequested(api);
    const permissions = new Map<string, PermissionState>();
    for (const name of requested) {
      const runtime = isRuntimePermission(name, api);
      const before = old?.permissions.get(name)?.granted;
      permissions.set(name, {
        runtime,
        granted: !runtime || opts.grant === true || (before ?? false),
      });
    }
    const now = Date.now();
    return {
      name: info.packageName,
      uid: old?.uid ?? this.nextUid++,
      versionCode: info.versionCode,
      versionName: info.versionName,
      minSdk: info.minSdk,
      targetSdk: info.targetSdk,
      system: false,
      codePath: dir,
      apkPath: `${dir}/base.apk`,
      firstInstallTime: old?.firstInstallTime ?? now,
      lastUpdateTime: now,
      activities: activitiesFromApk(info),
      permissions,
      installer: null,
      processName: info.packageName,
      debuggable: true,
    };
  }

  // ---- intents

  /** The activity an intent starts, or null when nothing resolves it. */
  resolve(it: Intent): { pkg: string; cls: string } | null {
    return resolveIntent(this.packages, it);
  }

  /** Every activity `it` matches (`cmd package query-activities`). */
  resolveAll(it: Intent): { pkg: string; cls: string }[] {
    return queryIntent(this.packages, it);
  }

  // ---- am

  forceStop(pkg: string) {
    const p = this.packages.get(pkg);
    if (!p) return;
    this.log(
      "I",
      "ActivityManager",
      `Force stopping ${pkg} appid=${p.uid % 100000} user=0: from pid ${SHELL_PID}`,
    );
    this.kill(pkg, {
      reason: ExitReason.userRequested,
      subreason: 21,
      description: `stop ${pkg} due to from pid ${SHELL_PID}`,
      logReason: `stop ${pkg} due to from pid ${SHELL_PID}`,
    });
    this.removeTasks(pkg);
  }

  // ---- processes

  // ---- dumpsys

  // ---- settings, network, rotation, power

  /** Writes a setting; cutting Wi-Fi on a wireless-ADB device drops its connection. */
  putChecked(ns: string, key: string, value: string) {
    this.putSetting(ns, key, value);
    if (ns !== "global" || this.device.kind !== "wireless") return;
    const cut = (key === "wifi_on" && value === "0") ||
      (key === "airplane_mode_on" && value === "1");
    if (cut) {
      this.device.afterStream.push(() =>
        this.device.host?.disconnectFor(this.device, WIRELESS_CUT_SECONDS)
      );
    }
  }
}

export function appsService(device: VirtualDevice, world: SimWorld | null): AppsService {
  return new AppsService(device, world);
}
