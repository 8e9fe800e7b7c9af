/**
 * The device's processes as logcat sees them (pid, uid, name) and the ordinary traffic they log:
 * system_server, surfaceflinger, SystemUI, GMS and the running apps, with realistic tags, levels
 * and buffers. Deterministic: a seeded generator per device.
 */
import type { LogEntry, LogLevel } from "../device_log.ts";

export type EntryInit = Omit<LogEntry, "time"> & { time?: number };

/** A small, seedable PRNG (mulberry32) so every run logs the same traffic. */
export class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0;
  }
  next(): number {
    let t = (this.#s = (this.#s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
  hex(digits: number): string {
    let s = "";
    for (let k = 0; k < digits; k++) s += "0123456789abcdef"[Math.floor(this.next() * 16)];
    return s;
  }
}

export function seedOf(text: string): number {
  let h = 2166136261;
  for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), 16777619);
  return h >>> 0;
}

export interface Proc {
  pid: number;
  uid: number;
  /** Process name: a package for apps, `system_server`, `surfaceflinger`, ... */
  name: string;
  /** Thread ids besides the main thread (tid == pid). */
  threads: number[];
  app: boolean;
  /** Who reported it: built in, spawned here, or mirrored from the apps service. */
  origin: "base" | "own" | "apps";
}

/** A process as another service reports it (the apps service's `procs`). */
export interface ExternalProc {
  pid: number;
  uid: number;
  name: string;
  pkg: string | null;
}

/** Largest pid handed out before wrapping (Linux pid_max on 64-bit Android). */
export const PID_MAX = 32768;

/** The system processes every simulated device runs (pids are stable per device). */
const SYSTEM_PROCS: readonly { name: string; uid: number; pid: number; app: boolean }[] = [
  { name: "logd", uid: 1036, pid: 231, app: false },
  { name: "tombstoned", uid: 1058, pid: 288, app: false },
  { name: "surfaceflinger", uid: 1000, pid: 312, app: false },
  { name: "audioserver", uid: 1041, pid: 330, app: false },
  { name: "zygote64", uid: 0, pid: 343, app: false },
  { name: "adbd", uid: 2000, pid: 421, app: false },
  { name: "system_server", uid: 1000, pid: 542, app: false },
  { name: "com.android.systemui", uid: 10121, pid: 790, app: true },
  { name: "com.android.phone", uid: 1001, pid: 911, app: true },
  { name: "com.google.android.apps.nexuslauncher", uid: 10135, pid: 1034, app: true },
  { name: "com.google.android.gms.persistent", uid: 10117, pid: 1187, app: true },
];

export class ProcessTable {
  readonly #procs = new Map<number, Proc>();
  #nextPid: number;

  constructor(readonly rng: Rng, firstAppPid = 12000) {
    for (const p of SYSTEM_PROCS) this.add(p.pid, p.name, p.uid, p.app, "base");
    this.#nextPid = firstAppPid;
  }

  private add(pid: number, name: string, uid: number, app: boolean, origin: Proc["origin"]): Proc {
    const threads = [pid + 8, pid + 11, pid + 23, pid + 37];
    const p: Proc = { pid, uid, name, threads, app, origin };
    this.#procs.set(pid, p);
    return p;
  }

  /**
   * Mirrors another service's process list: same-named processes take its pid and uid, its app
   * processes join, and app processes it reported before but no longer runs leave.
   */
  sync(list: Iterable<ExternalProc>): void {
    const byName = new Map<string, ExternalProc>();
    for (const o of list) byName.set(o.name, o);
    for (const p of [...this.#procs.values()]) {
      const o = byName.get(p.name);
      if (!o) {
        if (p.origin === "apps") this.#procs.delete(p.pid);
        continue;
      }
      if (o.pid !== p.pid || o.uid !== p.uid) {
        this.#procs.delete(p.pid);
        this.add(o.pid, p.name, o.uid, p.app, p.origin === "own" ? "apps" : p.origin);
      }
    }
    for (const o of byName.values()) {
      if (o.pkg !== null && !this.#procs.has(o.pid)) this.add(o.pid, o.name, o.uid, true, "apps");
    }
  }

  /** A fresh pid, never one in use. */
  allocPid(): number {
    for (;;) {
      this.#nextPid += this.rng.int(3, 40);
      if (this.#nextPid >= PID_MAX) this.#nextPid = 2000 + this.rng.int(0, 999);
      if (!this.#procs.has(this.#nextPid)) return this.#nextPid;
    }
  }

  spawn(name: string, uid: number, app = true): Proc {
    return this.add(this.allocPid(), name, uid, app, "own");
  }

  kill(pid: number): void {
    this.#procs.delete(pid);
  }

  get(pid: number): Proc | undefined {
    return this.#procs.get(pid);
  }

  byName(name: string): Proc | undefined {
    for (const p of this.#procs.values()) if (p.name === name) return p;
    return undefined;
  }

  all(): Proc[] {
    return [...this.#procs.values()];
  }
}

/** `u0a123` for app uids, the number otherwise (the form `Start proc` and `Killing` print). */
export function uidLabel(uid: number): string {
  return uid >= 10000 && uid < 20000 ? `u0a${uid - 10000}` : String(uid);
}

type Template = (t: TrafficContext) => EntryInit[];

export interface TrafficContext {
  rng: Rng;
  procs: ProcessTable;
  emulator: boolean;
}

function sys(t: TrafficContext): Proc {
  return t.procs.byName("system_server")!;
}
function named(t: TrafficContext, name: string): Proc {
  return t.procs.byName(name) ?? sys(t);
}
function anyApp(t: TrafficContext): Proc {
  const apps = t.procs.all().filter((p) => p.app);
  return t.rng.pick(apps);
}
function tid(t: TrafficContext, p: Proc): number {
  return t.rng.next() < 0.5 ? p.pid : t.rng.pick(p.threads);
}
function line(
  p: Proc,
  tidv: number,
  level: LogLevel,
  tag: string,
  message: string,
  buffer: LogEntry["buffer"] = "main",
): EntryInit {
  return { pid: p.pid, tid: tidv, uid: p.uid, level, tag, message, buffer };
}

const TEMPLATES: readonly [number, Template][] = [
  [6, (t) => {
    const p = sys(t);
    const a = anyApp(t);
    return [
      line(
        p,
        tid(t, p),
        "D",
        "CompatibilityChangeReporter",
        `Compat change id reported: ${t.rng.int(100000000, 299999999)}; UID ${a.uid}; state: ${
          t.rng.next() < 0.5 ? "ENABLED" : "DISABLED"
        }`,
        "system",
      ),
    ];
  }],
  [4, (t) => {
    const p = sys(t);
    const a = anyApp(t);
    return [
      line(p, tid(t, p), "I", "ActivityManager", `Changes in ${a.uid} 2 to 5, 0 to 56`, "system"),
    ];
  }],
  [3, (t) => {
    const p = sys(t);
    return [
      line(
        p,
        tid(t, p),
        "W",
        "WindowManager",
        `Cannot find window which accessibility connection is added to`,
        "system",
      ),
    ];
  }],
  [4, (t) => {
    const p = sys(t);
    const a = anyApp(t);
    return [
      line(
        p,
        tid(t, p),
        "D",
        "ConnectivityService",
        `requestNetwork for uid/pid:${a.uid}/${a.pid} activeRequest: null callbackRequest: ${
          t.rng.int(100, 999)
        } [NetworkRequest [ REQUEST id=${
          t.rng.int(100, 999)
        }, [ Capabilities: INTERNET&NOT_RESTRICTED&TRUSTED&NOT_VCN_MANAGED Uid: ${a.uid} RequestorUid: ${a.uid} RequestorPkg: ${a.name} UnderlyingNetworks: Null] ]] callback flags: 0 order: 2147483647 isUidTracked: false declaredMethods: ALL`,
        "system",
      ),
    ];
  }],
  [3, (t) => {
    const p = sys(t);
    const freed = t.rng.int(20000, 400000);
    return [
      line(
        p,
        p.threads[0],
        "I",
        "system_server",
        `Background concurrent mark compact GC freed ${freed}(${
          Math.ceil(freed / 50000)
        }MB) AllocSpace objects, ${t.rng.int(1, 60)}(${t.rng.int(1, 9)}MB) LOS objects, ${
          t.rng.int(25, 60)
        }% free, ${t.rng.int(20, 60)}MB/${t.rng.int(61, 120)}MB, paused ${t.rng.int(40, 900)}us,${
          t.rng.int(10, 90)
        }us total ${t.rng.int(10, 300)}.${t.rng.int(100, 999)}ms`,
      ),
    ];
  }],
  [3, (t) => {
    const p = named(t, "surfaceflinger");
    return [
      line(
        p,
        p.pid,
        "D",
        "SurfaceFlinger",
        `Setting power mode 2 on display ${
          t.emulator ? "4619827259835644672" : "4630946468374958722"
        }`,
      ),
    ];
  }],
  [2, (t) => {
    const p = named(t, "com.android.systemui");
    return [
      line(
        p,
        p.pid,
        "D",
        "StatusBarIconController",
        `ignoring old pipeline callback because the new pipeline is enabled`,
      ),
    ];
  }],
  [3, (t) => {
    const p = named(t, "com.google.android.gms.persistent");
    return [
      line(
        p,
        tid(t, p),
        "I",
        "GmsClient",
        `GmsClient connecting to ${
          t.rng.pick([
            "com.google.android.gms.location",
            "com.google.android.gms.phenotype",
            "com.google.android.gms.clearcut",
          ])
        }.service.START`,
      ),
    ];
  }],
  [2, (t) => {
    const p = named(t, "com.google.android.gms.persistent");
    return [
      line(
        p,
        tid(t, p),
        "W",
        "GoogleApiManager",
        `The service for com.google.android.gms.internal.ZzbbService is not available: ConnectionResult{statusCode=API_UNAVAILABLE, resolution=null, message=null}`,
      ),
    ];
  }],
  [5, (t) => {
    const a = anyApp(t);
    return [
      line(
        a,
        a.pid,
        "I",
        "Choreographer",
        `Skipped ${
          t.rng.int(30, 90)
        } frames!  The application may be doing too much work on its main thread.`,
      ),
    ];
  }],
  [5, (t) => {
    const a = anyApp(t);
    return [
      line(
        a,
        a.threads[1],
        "I",
        "OpenGLRenderer",
        `Davey! duration=${t.rng.int(700, 1500)}ms; Flags=0, FrameTimelineVsyncId=${
          t.rng.int(100000, 999999)
        }, IntendedVsync=${t.rng.int(1e9, 9e9)}, Vsync=${t.rng.int(1e9, 9e9)}`,
      ),
    ];
  }],
  [4, (t) => {
    const a = anyApp(t);
    const avg = (15 + t.rng.next() * 3).toFixed(2);
    return [
      line(
        a,
        a.threads[1],
        "D",
        t.emulator ? "EGL_emulation" : "HWUI",
        `app_time_stats: avg=${avg}ms min=${(14 + t.rng.next()).toFixed(2)}ms max=${
          (18 + t.rng.next() * 10).toFixed(2)
        }ms count=${t.rng.int(55, 61)}`,
      ),
    ];
  }],
  [4, (t) => {
    const a = anyApp(t);
    const id = t.rng.int(1, 40);
    const ms = t.rng.int(40, 900);
    return [
      line(
        a,
        a.threads[2],
        "D",
        "OkHttp",
        `--> GET https://api.keynobi.example/v1/items?page=${id}`,
      ),
      line(
        a,
        a.threads[2],
        "D",
        "OkHttp",
        `<-- 200 https://api.keynobi.example/v1/items?page=${id} (${ms}ms)`,
      ),
    ];
  }],
  [3, (t) => {
    const a = anyApp(t);
    return [
      line(
        a,
        a.threads[0],
        "I",
        "Analytics",
        `{"event":"screen_view","screen":"${
          t.rng.pick(["home", "detail", "settings"])
        }","duration_ms":${t.rng.int(100, 9000)},"session":"${t.rng.hex(8)}"}`,
      ),
    ];
  }],
  [2, (t) => {
    const a = anyApp(t);
    return [line(a, a.threads[0], "V", "FA", `Inactivity, disconnecting from the service`)];
  }],
  [2, (t) => {
    const p = sys(t);
    return [
      line(
        p,
        tid(t, p),
        "E",
        "libprocessgroup",
        `set_timerslack_ns write failed: Operation not permitted`,
      ),
    ];
  }],
  [1, (t) => {
    // A caught exception printed line by line (System.err): not a crash.
    const a = anyApp(t);
    const th = a.threads[2];
    return [
      "java.net.SocketTimeoutException: timeout",
      "\tat okhttp3.internal.http2.Http2Stream$StreamTimeout.newTimeoutException(Http2Stream.kt:675)",
      "\tat okhttp3.internal.http2.Http2Stream$StreamTimeout.exitAndThrowIfTimedOut(Http2Stream.kt:684)",
      "\tat okhttp3.internal.http2.Http2Stream.takeHeaders(Http2Stream.kt:143)",
      "\tat java.lang.Thread.run(Thread.java:1012)",
    ].map((m) => line(a, th, "W", "System.err", m));
  }],
  [2, (t) => {
    const p = named(t, "com.android.phone");
    return [
      line(
        p,
        p.threads[0],
        "D",
        "RILJ",
        `[UNSL]< UNSOL_SIGNAL_STRENGTH SignalStrength:{mCdma=Invalid mGsm=Invalid mWcdma=Invalid mTdscdma=Invalid mLte=CellSignalStrengthLte: rssi=-${
          t.rng.int(50, 90)
        } rsrp=-${t.rng.int(80, 110)} level=${t.rng.int(1, 4)}} [SUB0]`,
        "radio",
      ),
    ];
  }],
  [1, (t) => {
    const p = sys(t);
    const a = anyApp(t);
    return [
      line(
        p,
        tid(t, p),
        "I",
        "am_pss",
        `[${a.pid},${a.uid},${a.name},${t.rng.int(1e7, 9e7)},${t.rng.int(1e7, 9e7)},0,${
          t.rng.int(1e8, 3e8)
        },0,${t.rng.int(0, 5)},${t.rng.int(1, 30)}]`,
        "events",
      ),
    ];
  }],
];

const TOTAL_WEIGHT = TEMPLATES.reduce((s, [w]) => s + w, 0);

/** One burst of ordinary traffic (one to five entries). */
export function trafficBurst(t: TrafficContext): EntryInit[] {
  let r = t.rng.next() * TOTAL_WEIGHT;
  for (const [w, make] of TEMPLATES) {
    r -= w;
    if (r < 0) return make(t);
  }
  return TEMPLATES[0][1](t);
}
