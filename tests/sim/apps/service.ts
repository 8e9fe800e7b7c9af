/**
 * The "apps" device service: packages, processes, the activity stack, settings and exit history
 * of one simulated device, and the device commands that read and change them (`pm`, `cmd
 * package`, `am`, `monkey`, `ps`, `pidof`, `sha256sum`, `dumpsys activity|meminfo|package|window`,
 * `settings`, `svc`, `cmd connectivity airplane-mode`, `wm user-rotation`, `reboot`), with real
 * output formats, error texts and exit codes. Launches, stops, crashes and revokes write
 * real-format lines into the device's log.
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
import { ApkError, type ApkInfo, readApk } from "./apk.ts";
import {
  activitiesText,
  exitInfoText,
  ExitReason,
  type ExitRecord,
  meminfoText,
  packageText,
  type TopActivity,
  windowText,
} from "./dumpsys.ts";
import {
  activitiesFromApk,
  type AppPackage,
  dataAppDir,
  defaultRequested,
  formatUid,
  type IntentFilter,
  isKnownPermission,
  isRuntimePermission,
  launcherFor,
  type PermissionState,
  shortComponent,
  systemPackages,
  userName,
} from "./packages.ts";
import { SAMPLE_ACTIVITY, SAMPLE_PACKAGE, sampleApkBytes, sampleApkInfo } from "./sample.ts";

/** How long after its first frame the sample app reports itself fully drawn. */
export const FULLY_DRAWN_AFTER_MS = 410;

const enc = new TextEncoder();

/** Exit records kept per package (AppExitInfoTracker keeps a bounded history too). */
export const MAX_EXIT_RECORDS_PER_PACKAGE = 16;
/** Packages a device may hold (installs beyond this fail with INSUFFICIENT_STORAGE). */
export const MAX_PACKAGES = 512;
/** Largest `-S` size `cmd package install` accepts. */
export const MAX_INSTALL_BYTES = 64 * 1024 * 1024;
/** Seconds a wireless device stays unreachable after its Wi-Fi is cut. */
export const WIRELESS_CUT_SECONDS = 120;
/** Seconds a rebooting device is off the list. */
export const REBOOT_SECONDS = 3;
/** The pid of the shell that runs commands (`$$` of the simulated sh). */
export const SHELL_PID = 4242;

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
const EXCEPTION_HEAD = (cmd: string) => `Exception occurred while executing '${cmd}':\n`;

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

interface Intent {
  action: string | null;
  data: string | null;
  categories: string[];
  pkg: string | null;
  component: { pkg: string; cls: string } | null;
  extras: boolean;
  flags: number;
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
  private nextTask = 40;
  private nextSession = 1_200_000_000;
  private readonly bootTime = Date.now();
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
  private boot() {
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
  pidOf(pkg: string): number | null {
    for (const p of this.procs.values()) if (p.pkg === pkg) return p.pid;
    return null;
  }

  private spawn(pkg: string): Proc {
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

  private log(level: LogLevel, tag: string, message: string, pid = SYSTEM_SERVER_PID, uid = 1000) {
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

  private get atmTag(): string {
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
    return this.amStart(args, quiet, this.home.uid) === 0 && this.stack[0]?.pkg === pkg;
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
        return await this.pm(args, io, "pm");
      case "cmd":
        if (args[0] === "package") return await this.pm(args.slice(1), io, "cmd");
        if (args[0] === "activity") return this.am(args.slice(1), io);
        if (args[0] === "connectivity") return this.connectivity(args.slice(1), io);
        return null;
      case "am":
        return this.am(args, io);
      case "monkey":
        return this.monkey(args, io);
      case "ps":
        return this.ps(args, io);
      case "pidof":
        return this.pidof(args, io);
      case "sha256sum":
        return await this.sha256sum(args, io, shell);
      case "dumpsys":
        return this.dumpsys(args, io);
      case "settings":
        return this.settingsCmd(args, io);
      case "svc":
        return this.svc(args, io);
      case "wm":
        return args[0] === "user-rotation" ? this.userRotation(args.slice(1), io) : null;
      case "reboot":
        return this.reboot(args);
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

  private exception(io: ShIo, cmd: string, type: string, message: string, at: string): number {
    io.err(enc.encode(
      EXCEPTION_HEAD(cmd) + `${type}: ${message}\n` + `\tat ${at}\n` +
        "\tat com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:254)\n" +
        "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n" +
        "\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n",
    ));
    return 255;
  }

  private async pm(args: string[], io: ShIo, via: "pm" | "cmd"): Promise<number | null> {
    const [sub, ...rest] = args;
    const out = (s: string) => io.out(enc.encode(s));
    switch (sub) {
      case "list":
        if (rest[0] === "packages") return this.listPackages(rest.slice(1), io);
        io.err(enc.encode(`Error: unknown list type '${rest[0] ?? ""}'\n`));
        return 255;
      case "path": {
        const p = this.packages.get(rest.filter((a) => !a.startsWith("-")).at(-1) ?? "");
        if (!p) return 1;
        out(`package:${p.apkPath}\n`);
        return 0;
      }
      case "install":
        return await this.installCmd(rest, io, via);
      case "uninstall": {
        const pkg = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
        const p = this.packages.get(pkg);
        if (!p || p.system) {
          out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n");
          return 1;
        }
        this.kill(pkg, {
          reason: ExitReason.userRequested,
          description: "stop due to uninstall",
          logReason: `stop ${pkg} due to uninstall pkg`,
        });
        this.packages.delete(pkg);
        this.device.files.delete(p.apkPath);
        out("Success\n");
        return 0;
      }
      case "clear": {
        const pkg = rest.filter((a) => !a.startsWith("-")).at(-1) ?? "";
        const p = this.packages.get(pkg);
        if (!p) {
          out("Failed\n");
          return 1;
        }
        this.kill(pkg, {
          reason: ExitReason.userRequested,
          description: "clear data",
          logReason: `clear data`,
        });
        for (const s of p.permissions.values()) if (s.runtime) s.granted = false;
        out("Success\n");
        return 0;
      }
      case "grant":
      case "revoke":
        return this.grantRevoke(sub, rest.filter((a) => a !== "--user" && a !== "0"), io);
      case "dump": {
        const p = this.packages.get(rest[0] ?? "");
        if (p) out(packageText(p, this.device.api));
        return 0;
      }
      case "resolve-activity":
        return this.resolveActivity(rest, io);
    }
    return null;
  }

  private listPackages(args: string[], io: ShIo): number {
    let files = false, third = false, sys = false, uid = false, versions = false;
    let filter = "";
    for (const a of args) {
      if (a === "-f") files = true;
      else if (a === "-3") third = true;
      else if (a === "-s") sys = true;
      else if (a === "-U") uid = true;
      else if (a === "--show-versioncode") versions = true;
      else if (a === "--user") continue;
      else if (a.startsWith("-")) continue;
      else if (a !== "0") filter = a;
    }
    let out = "";
    for (const p of [...this.packages.values()].sort((a, b) => a.name < b.name ? -1 : 1)) {
      if (third && p.system) continue;
      if (sys && !p.system) continue;
      if (filter && !p.name.includes(filter)) continue;
      out += "package:" + (files ? `${p.apkPath}=` : "") + p.name +
        (versions ? ` versionCode:${p.versionCode}` : "") + (uid ? ` uid:${p.uid}` : "") + "\n";
    }
    io.out(enc.encode(out));
    return 0;
  }

  private async installCmd(args: string[], io: ShIo, via: "pm" | "cmd"): Promise<number> {
    const opts = { grant: false, downgrade: false, size: -1, path: "" };
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (a === "-g") opts.grant = true;
      else if (a === "-d") opts.downgrade = true;
      else if (a === "-S") opts.size = Number(args[++k]);
      else if (["-r", "-t", "-f", "--dont-kill", "--staged", "--no-incremental"].includes(a)) {
        continue;
      } else if (a === "-i" || a === "--user" || a === "--install-reason") k++;
      else if (a.startsWith("-")) {
        io.err(enc.encode(`Error: Unknown option: ${a}\n`));
        return 1;
      } else opts.path = a;
    }
    let bytes: Uint8Array;
    if (opts.path) {
      const data = this.device.files.get(this.device.resolve(opts.path));
      if (!data) {
        io.err(enc.encode(`Error: Can't open file: ${opts.path}\n`));
        return 1;
      }
      bytes = data;
    } else if (opts.size >= 0) {
      if (!Number.isSafeInteger(opts.size) || opts.size > MAX_INSTALL_BYTES) {
        io.out(enc.encode(`Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n`));
        return 1;
      }
      bytes = io.stdinExactly
        ? await io.stdinExactly(opts.size)
        : (await io.stdin()).subarray(0, opts.size);
    } else {
      io.err(enc.encode("Error: must either specify a package size or an APK file\n"));
      return 1;
    }
    const r = await this.install(bytes, opts);
    io.out(enc.encode(r + "\n"));
    void via;
    return r === "Success" ? 0 : 1;
  }

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
    const p = this.packageRecord(info, old, opts);
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

  private grantRevoke(sub: "grant" | "revoke", args: string[], io: ShIo): number {
    const [pkg, perm] = args;
    if (!pkg) {
      io.err(enc.encode("Error: no package specified\n"));
      return 1;
    }
    if (!perm) {
      io.err(enc.encode("Error: no permission specified\n"));
      return 1;
    }
    const at =
      `com.android.server.pm.permission.PermissionManagerServiceImpl.${sub}RuntimePermissionInternal(PermissionManagerServiceImpl.java:1391)`;
    const p = this.packages.get(pkg);
    if (!p) {
      return this.exception(
        io,
        sub,
        "java.lang.IllegalArgumentException",
        `Unknown package: ${pkg}`,
        at,
      );
    }
    const api = this.device.api;
    if (!isKnownPermission(perm, api)) {
      return this.exception(
        io,
        sub,
        "java.lang.IllegalArgumentException",
        `Unknown permission: ${perm}`,
        at,
      );
    }
    if (!isRuntimePermission(perm, api)) {
      return this.exception(
        io,
        sub,
        "java.lang.SecurityException",
        `Permission ${perm} requested by ${pkg} is not a changeable permission type`,
        at,
      );
    }
    const state = p.permissions.get(perm);
    if (!state) {
      return this.exception(
        io,
        sub,
        "java.lang.SecurityException",
        `Package ${pkg} has not requested permission ${perm}`,
        at,
      );
    }
    const was = state.granted;
    state.granted = sub === "grant";
    if (sub === "revoke" && was) {
      this.kill(pkg, {
        reason: ExitReason.permissionChange,
        description: "permissions revoked",
        logReason: "permissions revoked",
      });
    }
    return 0;
  }

  private resolveActivity(args: string[], io: ShIo): number {
    const intent = this.parseIntent(args.filter((a) => a !== "--brief"), io, "resolve-activity");
    if (typeof intent === "number") return intent;
    if (!intent.action && !intent.component) {
      intent.action = "android.intent.action.MAIN";
    }
    const hit = this.resolve(intent);
    if (!hit) {
      io.out(enc.encode("No activity found\n"));
      return 0;
    }
    io.out(enc.encode(
      "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n" +
        shortComponent(hit.pkg, hit.cls) + "\n",
    ));
    return 0;
  }

  // ---- intents

  /** Parses `am start`-style intent arguments; returns an exit status on error. */
  private parseIntent(args: string[], io: ShIo, cmd: string): Intent | number {
    const it: Intent = {
      action: null,
      data: null,
      categories: [],
      pkg: null,
      component: null,
      extras: false,
      flags: 0,
    };
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      const next = () => args[++k] ?? "";
      switch (a) {
        case "-a":
          it.action = next();
          break;
        case "-d":
          it.data = next();
          break;
        case "-c":
          it.categories.push(next());
          break;
        case "-p":
          it.pkg = next();
          break;
        case "-f":
          it.flags |= Number(next());
          break;
        case "-n": {
          const c = this.component(next());
          if (!c) {
            io.err(enc.encode(
              EXCEPTION_HEAD(cmd) +
                `java.lang.IllegalArgumentException: Bad component name: ${args[k]}\n`,
            ));
            return 255;
          }
          it.component = c;
          break;
        }
        case "--es":
        case "--ei":
        case "--ez":
        case "--el":
        case "--ef":
        case "--eu":
          k += 2;
          it.extras = true;
          break;
        case "--user":
          k++;
          break;
        case "--activity-clear-task":
        case "--activity-new-task":
        case "--activity-single-top":
          break;
        default:
          if (a.startsWith("-")) {
            io.err(enc.encode(
              EXCEPTION_HEAD(cmd) + `java.lang.IllegalArgumentException: Unknown option: ${a}\n`,
            ));
            return 255;
          }
          if (a.includes("/") && !a.includes(":")) {
            const c = this.component(a);
            if (c) it.component = c;
          } else it.data = a;
      }
    }
    return it;
  }

  private component(s: string): { pkg: string; cls: string } | null {
    const slash = s.indexOf("/");
    if (slash <= 0 || slash === s.length - 1) return null;
    const pkg = s.slice(0, slash);
    const c = s.slice(slash + 1);
    return { pkg, cls: c.startsWith(".") ? pkg + c : c };
  }

  /** `Intent.toShortString` as `am` prints it (data shown by `Uri.toSafeString`). */
  private intentText(it: Intent, flags: number): string {
    const parts: string[] = [];
    if (it.action) parts.push(`act=${it.action}`);
    if (it.categories.length) parts.push(`cat=[${it.categories.join(",")}]`);
    if (it.data !== null) parts.push(`dat=${safeUri(it.data)}`);
    if (flags) parts.push(`flg=0x${flags.toString(16)}`);
    if (it.pkg) parts.push(`pkg=${it.pkg}`);
    if (it.component) parts.push(`cmp=${shortComponent(it.component.pkg, it.component.cls)}`);
    if (it.extras) parts.push("(has extras)");
    return `Intent { ${parts.join(" ")} }`;
  }

  private matches(f: IntentFilter, it: Intent): boolean {
    if (it.action && !f.actions.includes(it.action)) return false;
    if (!it.action && f.actions.length === 0) return false;
    const cats = it.categories.length
      ? it.categories
      : it.action === "android.intent.action.MAIN"
      ? []
      : ["android.intent.category.DEFAULT"];
    if (!cats.every((c) => f.categories.includes(c))) return false;
    if (it.data === null) return f.schemes.length === 0;
    if (f.schemes.length === 0) return false;
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#:]*))?/.exec(it.data);
    if (!m || !f.schemes.includes(m[1].toLowerCase())) return false;
    if (f.hosts.length && !f.hosts.includes((m[2] ?? "").toLowerCase())) return false;
    return true;
  }

  /** The activity an intent starts, or null when nothing resolves it. */
  resolve(it: Intent): { pkg: string; cls: string } | null {
    if (it.component) {
      const p = this.packages.get(it.component.pkg);
      const a = p?.activities.find((x) => x.name === it.component!.cls);
      return a ? it.component : null;
    }
    const hits: { pkg: string; cls: string; specific: boolean }[] = [];
    for (const p of this.packages.values()) {
      if (it.pkg && p.name !== it.pkg) continue;
      for (const a of p.activities) {
        const f = a.filters.find((x) => this.matches(x, it));
        if (f) hits.push({ pkg: p.name, cls: a.name, specific: f.hosts.length > 0 || !p.system });
      }
    }
    // A verified app link (specific host, or a non-system app) wins over the browser.
    hits.sort((a, b) => Number(b.specific) - Number(a.specific));
    return hits[0] ?? null;
  }

  // ---- am

  private am(args: string[], io: ShIo): number | null {
    const [sub, ...rest] = args;
    switch (sub) {
      case "start":
      case "start-activity":
        return this.amStart(rest, io);
      case "force-stop": {
        const pkg = rest.filter((a) => !a.startsWith("-") && a !== "0").at(-1) ?? "";
        this.forceStop(pkg);
        return 0;
      }
      case "broadcast":
        return this.broadcast(rest, io);
      case "kill": {
        const pkg = rest.at(-1) ?? "";
        if (this.stack[0]?.pkg !== pkg) {
          this.kill(pkg, {
            reason: 13,
            description: "kill background",
            logReason: "kill background",
          });
        }
        return 0;
      }
    }
    return null;
  }

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

  /** `am start`; `callerUid` is who asks (2000 for the shell, the launcher's uid for a tap). */
  private amStart(args: string[], io: ShIo, callerUid = 2000): number {
    let wait = false, stop = false;
    const rest: string[] = [];
    for (const a of args) {
      if (a === "-W") wait = true;
      else if (a === "-S") stop = true;
      else if (a === "-D" || a === "-N") continue;
      else rest.push(a);
    }
    const it = this.parseIntent(rest, io, "start");
    if (typeof it === "number") return it;
    const out = (s: string) => io.out(enc.encode(s));
    const errOut = (s: string) => (wait ? io.out : io.err)(enc.encode(s));
    const errorExit = this.device.api >= 34 ? 1 : 0;
    const hit = this.resolve(it);
    if (stop && hit) {
      out(`Stopping: ${hit.pkg}\n`);
      this.forceStop(hit.pkg);
    }
    out(`Starting: ${this.intentText(it, 0)}\n`);
    if (!hit) {
      if (it.component) {
        errOut(
          `Error type 3\nError: Activity class {${it.component.pkg}/${it.component.cls}} does not exist.\n`,
        );
      } else {
        errOut(
          `Error: Activity not started, unable to resolve ${this.intentText(it, 0x10000000)}\n`,
        );
      }
      return errorExit;
    }
    this.log(
      "I",
      this.atmTag,
      `START u0 {${this.intentText(it, 0x10000000).slice(9, -2)}} ` +
        (this.device.api >= 34
          ? `with LAUNCH_MULTIPLE from uid ${callerUid} (BAL_ALLOW_PERMISSION) result code=0`
          : `from uid ${callerUid}`),
    );
    const p = this.packages.get(hit.pkg)!;
    const top = this.stack[0];
    const short = shortComponent(hit.pkg, hit.cls);
    if (top && top.pkg === hit.pkg && top.cls === hit.cls) {
      errOut("Warning: Activity not started, its current task has been brought to the front\n");
      if (wait) {
        out(`Status: ok\nLaunchState: UNKNOWN (0)\nActivity: ${short}\nWaitTime: 4\nComplete\n`);
      }
      return 0;
    }
    let state: "COLD" | "WARM" | "HOT";
    let pid = this.pidOf(hit.pkg);
    if (pid === null) {
      state = "COLD";
      const proc = this.spawn(hit.pkg);
      pid = proc.pid;
      const reason = this.device.api >= 31
        ? "next-top-activity"
        : this.device.api >= 29
        ? "pre-top-activity"
        : "activity";
      this.log(
        "I",
        "ActivityManager",
        `Start proc ${pid}:${proc.name}/${formatUid(p.uid)} for ${reason} {${hit.pkg}/${hit.cls}}`,
      );
    } else {
      state = this.stack.some((t) => t.pkg === hit.pkg && t.cls === hit.cls) ? "HOT" : "WARM";
    }
    const total = state === "COLD"
      ? this.launchTimes.cold
      : state === "WARM"
      ? this.launchTimes.warm
      : this.launchTimes.hot;
    const existing = this.stack.find((t) => t.pkg === hit.pkg);
    const task = existing ?? { pkg: hit.pkg, cls: hit.cls, task: this.nextTask++, uid: p.uid };
    task.cls = hit.cls;
    this.stack = [task, ...this.stack.filter((t) => t !== task)];
    const api = this.device.api;
    if (state !== "HOT" || api < 29) {
      const d = formatDuration(total);
      this.log(
        "I",
        this.atmTag,
        api >= 34 ? `Displayed ${short} for user 0: ${d}` : `Displayed ${short}: ${d}`,
      );
      // The sample app calls reportFullyDrawn() once its list is loaded.
      if (hit.pkg === SAMPLE_PACKAGE && state !== "HOT") {
        this.log(
          "I",
          this.atmTag,
          `Fully drawn ${short}: ${formatDuration(total + FULLY_DRAWN_AFTER_MS)}`,
        );
      }
    }
    if (wait) {
      if (api >= 29) {
        out(
          `Status: ok\nLaunchState: ${state}\nActivity: ${short}\nTotalTime: ${total}\n` +
            `WaitTime: ${total + 3}\nComplete\n`,
        );
      } else {
        out(
          `Status: ok\nActivity: ${short}\nThisTime: ${total}\nTotalTime: ${total}\n` +
            `WaitTime: ${total + 3}\nComplete\n`,
        );
      }
    }
    return 0;
  }

  private broadcast(args: string[], io: ShIo): number {
    const it = this.parseIntent(args, io, "broadcast");
    if (typeof it === "number") return it;
    if (it.action === "android.intent.action.AIRPLANE_MODE" && this.device.api >= 24) {
      io.err(enc.encode(
        EXCEPTION_HEAD("broadcast") +
          `java.lang.SecurityException: Permission Denial: not allowed to send broadcast ` +
          `android.intent.action.AIRPLANE_MODE from pid=${SHELL_PID}, uid=2000\n` +
          "\tat com.android.server.am.ActivityManagerService.broadcastIntentLockedTraced(ActivityManagerService.java:15206)\n" +
          "\tat com.android.server.am.ActivityManagerShellCommand.runSendBroadcast(ActivityManagerShellCommand.java:1012)\n",
      ));
      return 255;
    }
    io.out(enc.encode(
      `Broadcasting: ${this.intentText(it, 0x400000)}\nBroadcast completed: result=0\n`,
    ));
    return 0;
  }

  private monkey(args: string[], io: ShIo): number {
    let pkg = "";
    let category = "";
    for (let k = 0; k < args.length; k++) {
      if (args[k] === "-p") pkg = args[++k] ?? "";
      else if (args[k] === "-c") category = args[++k] ?? "";
    }
    let text = args.map((a) => `  bash arg: ${a}\n`).join("") +
      `args: [${args.join(", ")}]\n` + args.map((a) => ` arg: "${a}"\n`).join("");
    if (pkg) text += `data="${pkg}"\n`;
    if (category) text += `data="${category}"\n`;
    const p = this.packages.get(pkg);
    const launcher = p?.activities.find((a) =>
      a.filters.some((f) =>
        f.actions.includes("android.intent.action.MAIN") &&
        f.categories.includes(category || "android.intent.category.LAUNCHER")
      )
    );
    if (!launcher) {
      io.out(enc.encode(text));
      io.err(enc.encode("** No activities found to run, monkey aborted.\n"));
      return 252;
    }
    const status = this.amStart(["-n", `${pkg}/${launcher.name}`], {
      ...io,
      out: () => {},
      err: () => {},
    });
    io.out(enc.encode(
      text + "Events injected: 1\n" +
        "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n",
    ));
    return status;
  }

  // ---- processes

  private ps(args: string[], io: ShIo): number {
    let cols = ["USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME"];
    let pids: number[] | null = null;
    const names: string[] = [];
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (a === "-o") {
        cols = (args[++k] ?? "").split(",").map((c) => c.toUpperCase()).filter(Boolean);
      } else if (a === "-p") pids = (args[++k] ?? "").split(",").map(Number);
      else if (a.startsWith("-")) continue;
      else names.push(a);
    }
    const known = [
      "USER",
      "PID",
      "PPID",
      "UID",
      "VSZ",
      "RSS",
      "WCHAN",
      "ADDR",
      "S",
      "NAME",
      "ARGS",
      "CMD",
      "STIME",
      "ELAPSED",
    ];
    const bad = cols.find((c) => !known.includes(c));
    if (bad) {
      io.err(enc.encode(`ps: bad -o ${bad}\n`));
      return 1;
    }
    const now = Date.now();
    const cell = (c: string, p: Proc | null): string => {
      if (!p) return c === "CMD" ? "CMD" : c;
      switch (c) {
        case "USER":
          return userName(p.uid);
        case "UID":
          return String(p.uid);
        case "PID":
          return String(p.pid);
        case "PPID":
          return String(p.ppid);
        case "VSZ":
          return String(p.pkg ? 14_862_304 : 10_904_448);
        case "RSS":
          return String(p.rssKb);
        case "WCHAN":
          return "do_epoll_wait";
        case "ADDR":
          return "0";
        case "S":
          return "S";
        case "STIME": {
          const d = new Date(p.startTime);
          return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
        }
        case "ELAPSED": {
          const s = Math.max(0, Math.floor((now - p.startTime) / 1000));
          return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
        }
        default:
          return p.name;
      }
    };
    const width: Record<string, number> = {
      USER: -12,
      PID: 5,
      PPID: 5,
      UID: 5,
      VSZ: 10,
      RSS: 6,
      WCHAN: -16,
      ADDR: 4,
      S: 1,
      STIME: 8,
      ELAPSED: 11,
    };
    const line = (p: Proc | null) =>
      cols.map((c, i) => {
        const v = cell(c, p);
        const w = width[c];
        if (w === undefined) return i === cols.length - 1 ? v : v.padEnd(20);
        return w < 0 ? v.padEnd(-w) : v.padStart(w);
      }).join(" ").trimEnd() + "\n";
    let out = line(null);
    for (const p of [...this.procs.values()].sort((a, b) => a.pid - b.pid)) {
      if (pids && !pids.includes(p.pid)) continue;
      if (names.length && !names.includes(p.name) && !names.includes(String(p.pid))) continue;
      out += line(p);
    }
    io.out(enc.encode(out));
    return 0;
  }

  private pidof(args: string[], io: ShIo): number {
    const names = args.filter((a) => !a.startsWith("-"));
    const pids = [...this.procs.values()].filter((p) => names.includes(p.name))
      .map((p) => p.pid).sort((a, b) => b - a);
    if (!pids.length) return 1;
    io.out(enc.encode(pids.join(" ") + "\n"));
    return 0;
  }

  private async sha256sum(args: string[], io: ShIo, shell: ShellRun): Promise<number> {
    const files = args.filter((a) => a !== "-b");
    let status = 0;
    for (const f of files.length ? files : ["-"]) {
      const data = f === "-"
        ? await io.stdin()
        : this.device.files.get(this.device.resolve(f)) ?? null;
      if (!data) {
        const why = this.device.dirs.has(this.device.resolve(f))
          ? "Is a directory"
          : "No such file or directory";
        io.err(enc.encode(`sha256sum: ${f}: ${why}\n`));
        status = 1;
        continue;
      }
      const hex = [...new Uint8Array(await crypto.subtle.digest("SHA-256", data.slice()))]
        .map((b) => b.toString(16).padStart(2, "0")).join("");
      io.out(enc.encode(`${hex}  ${f}\n`));
    }
    void shell;
    return status;
  }

  // ---- dumpsys

  private dumpsys(args: string[], io: ShIo): number | null {
    const [svc, ...rest] = args;
    const out = (s: string) => {
      io.out(enc.encode(s));
      return 0;
    };
    const api = this.device.api;
    if (svc === "activity") {
      const sub = rest[0];
      if (sub === "exit-info" && api >= 30) {
        const pkg = rest.slice(1).find((a) => !a.startsWith("-")) ?? null;
        return out(exitInfoText(this.exits, pkg, api, this.bootTime));
      }
      if (sub === "activities" || sub === "a") {
        return out(activitiesText(this.stack, api, this.home));
      }
      return out(`Bad activity command, or no activities match: ${sub ?? ""}\nUse -h for help.\n`);
    }
    if (svc === "meminfo") {
      const pkg = rest.filter((a) => !a.startsWith("-")).at(-1);
      if (!pkg) return null;
      const pid = /^\d+$/.test(pkg) ? Number(pkg) : this.pidOf(pkg);
      const proc = pid !== null ? this.procs.get(pid) : undefined;
      if (!proc?.pkg) return out(`No process found for: ${pkg}\n`);
      return out(meminfoText({
        pid: proc.pid,
        pkg: proc.name,
        scale: 1 + ((proc.pid % 13) / 20),
        uptimeMs: Date.now() - this.bootTime + 3_600_000,
      }));
    }
    if (svc === "package") {
      const pkg = rest.filter((a) => !a.startsWith("-")).at(-1);
      if (!pkg) return null;
      const p = this.packages.get(pkg);
      return out(p ? packageText(p, api) : "");
    }
    if (svc === "window" && (rest.length === 0 || rest[0] === "windows" || rest[0] === "w")) {
      return out(windowText(this.stack[0]));
    }
    return null;
  }

  // ---- settings, network, rotation, power

  private settingsCmd(args: string[], io: ShIo): number {
    const rest = args.filter((a, i) => !(a === "--user" || args[i - 1] === "--user"));
    const [op, ns, key, value] = rest;
    const table = this.settings.get(ns ?? "");
    if (!table || !op) {
      io.err(enc.encode(`Invalid namespace '${ns ?? ""}'\n`));
      return 255;
    }
    switch (op) {
      case "get":
        io.out(enc.encode(`${table.get(key ?? "") ?? "null"}\n`));
        return 0;
      case "put":
        if (key === undefined || value === undefined) {
          io.err(enc.encode("Usage: settings put NAMESPACE KEY VALUE\n"));
          return 255;
        }
        this.putChecked(ns, key, value);
        return 0;
      case "delete":
        io.out(enc.encode(`Deleted ${table.delete(key ?? "") ? 1 : 0} rows\n`));
        return 0;
      case "list":
        io.out(enc.encode([...table].map(([k, v]) => `${k}=${v}\n`).join("")));
        return 0;
    }
    io.err(enc.encode(`Invalid command: ${op}\n`));
    return 255;
  }

  /** Writes a setting; cutting Wi-Fi on a wireless-ADB device drops its connection. */
  private putChecked(ns: string, key: string, value: string) {
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

  private svc(args: string[], io: ShIo): number {
    const [what, op] = args;
    const key = what === "wifi" ? "wifi_on" : what === "data" ? "mobile_data" : null;
    if (!key || (op !== "enable" && op !== "disable")) {
      io.err(enc.encode(`svc: unknown command: ${args.join(" ")}\n`));
      return 1;
    }
    this.putChecked("global", key, op === "enable" ? "1" : "0");
    return 0;
  }

  private connectivity(args: string[], io: ShIo): number | null {
    if (args[0] !== "airplane-mode") return null;
    if (this.airplaneCmdFails || this.device.api < 30) {
      io.err(enc.encode("No shell command implementation.\n"));
      return 255;
    }
    const op = args[1];
    if (op === undefined) {
      io.out(
        enc.encode(this.setting("global", "airplane_mode_on") === "1" ? "enabled\n" : "disabled\n"),
      );
      return 0;
    }
    if (op !== "enable" && op !== "disable") {
      io.err(enc.encode(`Unsupported argument: ${op}\n`));
      return 255;
    }
    this.putChecked("global", "airplane_mode_on", op === "enable" ? "1" : "0");
    return 0;
  }

  private userRotation(args: string[], io: ShIo): number {
    if (this.device.api < 33) {
      io.err(enc.encode("Error: unknown command 'user-rotation'\n"));
      return 255;
    }
    const rest = args.filter((a, i) => !(a === "-d" || args[i - 1] === "-d"));
    const [mode, n] = rest;
    const rot = this.setting("system", "user_rotation") ?? "0";
    if (mode === undefined) {
      const locked = this.setting("system", "accelerometer_rotation") !== "1";
      io.out(enc.encode(`${locked ? "lock" : "free"} ${rot}\n`));
      return 0;
    }
    if (mode === "free") {
      this.putSetting("system", "accelerometer_rotation", "1");
      return 0;
    }
    if (mode === "lock" && (n === undefined || /^[0-3]$/.test(n))) {
      this.putSetting("system", "accelerometer_rotation", "0");
      if (n !== undefined) this.putSetting("system", "user_rotation", n);
      return 0;
    }
    io.err(enc.encode(`Error: lock or free expected, got: ${args.join(" ")}\n`));
    return 255;
  }

  private reboot(args: string[]): number {
    const d = this.device;
    if (args.includes("-p")) {
      d.afterStream.push(() => this.world?.removeDevice(d.serial));
      return 0;
    }
    d.afterStream.push(() => {
      this.boot();
      d.host?.disconnectFor(d, REBOOT_SECONDS);
    });
    return 0;
  }
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** `TimeUtils.formatDuration` as the Displayed line prints it: `+1s234ms`, `+812ms`, `0`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  const parts: string[] = [];
  for (
    const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000]] as const
  ) {
    if (rest >= size || parts.length) {
      const n = Math.floor(rest / size);
      if (n || parts.length) parts.push(`${n}${unit}`);
      rest -= n * size;
    }
  }
  parts.push(`${rest}ms`);
  return "+" + parts.join("");
}

/** `Uri.toSafeString`: http(s)/ftp/rtsp keep only the host; phone-like schemes are masked. */
export function safeUri(uri: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(uri);
  if (!m) return uri.replace(/#.*$/s, "");
  const scheme = m[1];
  const ssp = m[2].replace(/#.*$/s, "");
  const lower = scheme.toLowerCase();
  if (["tel", "sip", "sms", "smsto", "mailto", "nfc"].includes(lower)) {
    return `${scheme}:` + [...ssp].map((c) => "-@.".includes(c) ? c : "x").join("");
  }
  if (["http", "https", "ftp", "rtsp"].includes(lower)) {
    const h = /^\/\/([^/?#]*)/.exec(ssp);
    return `${scheme}://${h ? h[1].replace(/^[^@]*@/, "") : ""}/...`;
  }
  return `${scheme}:${ssp}`;
}

export function appsService(device: VirtualDevice, world: SimWorld | null): AppsService {
  return new AppsService(device, world);
}
