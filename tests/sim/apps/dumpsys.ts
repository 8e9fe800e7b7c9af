/**
 * `dumpsys` writers in the formats real devices print (PROTOCOLS.md 10; the captures in
 * ../shared/fixtures/real/dumpsys/ show the layouts): exit-info (Android 11 and 12+), meminfo
 * (the modern layout with Rss), package, activity activities, window. Pure: state in, text out.
 */
import { type AppPackage, shortComponent } from "./packages.ts";

/** `ApplicationExitInfo.reasonCodeToString` (FWB-15). */
export const EXIT_REASONS: Readonly<Record<number, string>> = {
  0: "UNKNOWN",
  1: "EXIT_SELF",
  2: "SIGNALED",
  3: "LOW_MEMORY",
  4: "APP CRASH(EXCEPTION)",
  5: "APP CRASH(NATIVE)",
  6: "ANR",
  7: "INITIALIZATION FAILURE",
  8: "PERMISSION CHANGE",
  9: "EXCESSIVE RESOURCE USAGE",
  10: "USER REQUESTED",
  11: "USER STOPPED",
  12: "DEPENDENCY DIED",
  13: "OTHER KILLS BY SYSTEM",
  14: "FREEZER",
  15: "STATE CHANGE",
  16: "PACKAGE UPDATED",
};

/** The subreasons the simulator records (`subreasonToString`). */
export const EXIT_SUBREASONS: Readonly<Record<number, string>> = {
  0: "UNKNOWN",
  21: "FORCE STOP",
  23: "STOP APP",
  25: "PACKAGE UPDATE",
};

export const ExitReason = {
  crash: 4,
  crashNative: 5,
  anr: 6,
  permissionChange: 8,
  userRequested: 10,
  packageUpdated: 16,
} as const;

export interface ExitRecord {
  timestamp: number;
  pid: number;
  uid: number;
  pkg: string;
  process: string;
  reason: number;
  subreason: number;
  status: number;
  importance: number;
  pssKb: number;
  rssKb: number;
  description: string;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** `yyyy-MM-dd HH:mm:ss.SSS` (or without millis) in the device's (here: the host's) zone. */
export function formatTime(ms: number, millis = true): string {
  const d = new Date(ms);
  const s = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ` +
    `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  return millis ? `${s}.${String(d.getMilliseconds()).padStart(3, "0")}` : s;
}

/** `DebugUtils.sizeValueToString`: divide by 1024 while above 900; 2, 1 or 0 decimals. */
export function sizeValueToString(bytes: number): string {
  const units = ["", "KB", "MB", "GB", "TB", "PB"];
  let v = bytes;
  let u = 0;
  while (v > 900 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  const s = v < 1 ? v.toFixed(2) : v < 10 ? v.toFixed(1) : v.toFixed(0);
  return s + units[u];
}

/** `dumpsys activity exit-info [pkg]`; `api` 30 prints the Android 11 layout. */
export function exitInfoText(
  records: ExitRecord[],
  pkg: string | null,
  api: number,
  persistedAt: number,
): string {
  let out = "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n" +
    `Last Timestamp of Persistence Into Persistent Storage: ${formatTime(persistedAt)}\n`;
  // Newest first; records of the same millisecond keep their order of arrival, newest first too.
  const chosen = records.map((r, i) => ({ r, i }))
    .filter(({ r }) => pkg === null || r.pkg === pkg)
    .sort((a, b) => b.r.timestamp - a.r.timestamp || b.i - a.i)
    .map(({ r }) => r);
  const byPkg = new Map<string, Map<number, ExitRecord[]>>();
  for (const r of chosen) {
    const uids = byPkg.get(r.pkg) ?? new Map<number, ExitRecord[]>();
    byPkg.set(r.pkg, uids);
    uids.set(r.uid, [...(uids.get(r.uid) ?? []), r]);
  }
  const size = (kb: number) => sizeValueToString(kb * 1024);
  for (const [p, uids] of byPkg) {
    out += `  package: ${p}\n`;
    for (const [uid, list] of uids) {
      out += `    Historical Process Exit for uid=${uid}\n`;
      list.forEach((r, k) => {
        const reason = `${r.reason} (${EXIT_REASONS[r.reason] ?? "UNKNOWN"})`;
        const i = "          ";
        out += `        ApplicationExitInfo #${k}:\n`;
        if (api >= 31) {
          out += `${i}timestamp=${formatTime(r.timestamp)} pid=${r.pid} realUid=${r.uid} ` +
            `packageUid=${r.uid} definingUid=${r.uid} user=0\n` +
            `${i}process=${r.process} reason=${reason} subreason=${r.subreason} (${
              EXIT_SUBREASONS[r.subreason] ?? "UNKNOWN"
            }) status=${r.status}\n` +
            `${i}importance=${r.importance} pss=${size(r.pssKb)} rss=${size(r.rssKb)} ` +
            `description=${r.description} state=empty trace=null\n`;
        } else {
          out += [
            `timestamp=${formatTime(r.timestamp)}`,
            `pid=${r.pid}`,
            `realUid=${r.uid}`,
            `packageUid=${r.uid}`,
            `definingUid=${r.uid}`,
            `user=0`,
            `process=${r.process}`,
            `reason=${reason}`,
            `status=${r.status}`,
            `importance=${r.importance}`,
            `pss=${size(r.pssKb)}`,
            `rss=${size(r.rssKb)}`,
            `description=${r.description}`,
            `state=empty`,
            `trace=null`,
          ].map((l) => i + l + "\n").join("");
        }
      });
    }
  }
  return out;
}

export interface MemSample {
  pid: number;
  pkg: string;
  /** Scales every figure (a process that has run longer uses more). */
  scale: number;
  uptimeMs: number;
}

/** `dumpsys meminfo <pkg>` in the modern layout (Pss/Private/SwapPss/Rss/Heap columns). */
export function meminfoText(m: MemSample): string {
  const s = (n: number) => Math.round(n * m.scale);
  const num = (n: number | null, w = 8) => " " + (n === null ? "" : String(n)).padStart(w);
  const rows: [string, number[], number[] | null][] = [
    ["Native Heap", [s(21840), s(21800), 4, 12, s(23120)], [s(38912), s(27650), s(7044)]],
    ["Dalvik Heap", [s(6120), s(6080), 8, 40, s(7900)], [s(24576), s(12288), s(12288)]],
    ["Dalvik Other", [s(2410), 1644, 0, 0, s(4820)], null],
    ["Stack", [1120, 1120, 0, 0, 1128], null],
    ["Ashmem", [18, 12, 0, 0, 560], null],
    ["Other dev", [40, 0, 36, 0, 420], null],
    [".so mmap", [s(2440), 240, 860, 2, s(21200)], null],
    [".jar mmap", [1610, 0, 120, 0, 27400], null],
    [".apk mmap", [s(980), 0, s(610), 0, s(2540)], null],
    [".dex mmap", [s(420), 380, 16, 0, s(1180)], null],
    [".oat mmap", [60, 0, 12, 0, 1420], null],
    [".art mmap", [s(2690), s(2270), 120, 18, s(19480)], null],
    ["Other mmap", [120, 8, 64, 0, 1160], null],
    ["Unknown", [s(1410), s(1400), 0, 4, s(1620)], null],
  ];
  const total = [0, 1, 2, 3, 4].map((k) => rows.reduce((n, r) => n + r[1][k], 0));
  const heap = [0, 1, 2].map((k) => rows.reduce((n, r) => n + (r[2]?.[k] ?? 0), 0));
  const row = (label: string, a: number[], h: number[] | null) =>
    label.padStart(13) + a.map((v) => num(v)).join("") +
    (h ? h.map((v) => num(v)).join("") : " ".repeat(27)) + "\n";
  const pair = (a: string, av: number | null, b?: string, bv?: number | null) =>
    `${a.padStart(20)}:${num(av)}` + (b ? ` ${b.padStart(20)}:${num(bv ?? null)}` : "") + "\n";
  const java = rows[1][1][1] + rows[11][1][1];
  const javaRss = rows[1][1][4] + rows[11][1][4];
  const code = rows[6][1][1] + rows[8][1][1] + rows[9][1][1] + 860;
  const codeRss = rows[6][1][4] + rows[7][1][4] + rows[8][1][4] + rows[9][1][4];
  const summary = (label: string, pss: number | null, rss: number | null) =>
    `${label.padStart(20)}:${num(pss)}` + (rss === null ? "" : num(rss, 30)) + "\n";
  let out = "Applications Memory Usage (in Kilobytes):\n" +
    `Uptime: ${m.uptimeMs} Realtime: ${m.uptimeMs + 1_204_311}\n\n` +
    `** MEMINFO in pid ${m.pid} [${m.pkg}] **\n` +
    "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap\n" +
    "                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free\n" +
    "                ------   ------   ------   ------   ------   ------   ------   ------\n";
  for (const [l, a, h] of rows) out += row(l, a, h);
  out += row("TOTAL", total, heap) + " \n";
  out += " App Summary\n" +
    "                       Pss(KB)                        Rss(KB)\n" +
    "                        ------                         ------\n" +
    summary("Java Heap", java, javaRss) +
    summary("Native Heap", rows[0][1][1], rows[0][1][4]) +
    summary("Code", code, codeRss) +
    summary("Stack", 1120, 1128) +
    summary("Graphics", 0, 0) +
    summary("Private Other", total[1] + total[2] - java - rows[0][1][1] - code - 1120, null) +
    summary("System", total[0] - total[1] - total[2], null) +
    `${"Unknown".padStart(20)}:${num(null)}${num(rows[13][1][4], 30)}\n` +
    " \n" +
    pair("TOTAL PSS", total[0], "TOTAL RSS", total[4]).replace(/\n$/, "") +
    ` ${"TOTAL SWAP PSS".padStart(20)}:${num(total[3])}\n` +
    " \n Objects\n" +
    pair("Views", s(64), "ViewRootImpl", 1) +
    pair("AppContexts", 5, "Activities", 1) +
    pair("Assets", 14, "AssetManagers", 0) +
    pair("Local Binders", 18, "Proxy Binders", 42) +
    pair("Parcel memory", 6, "Parcel count", 24) +
    pair("Death Recipients", 1, "WebViews", 0) +
    " \n SQL\n" +
    pair("MEMORY_USED", 0) +
    pair("PAGECACHE_OVERFLOW", 0, "MALLOC_SIZE", 0) +
    " \n";
  return out;
}

/** `dumpsys package <pkg>`: resolver table, the `Packages:` block, dexopt state. */
export function packageText(p: AppPackage, api: number): string {
  const hash = (s: string) => {
    let h = 0x811c9dc5;
    for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    return h.toString(16).slice(0, 7);
  };
  let out = "Activity Resolver Table:\n";
  const nonData = new Map<string, string[]>();
  const schemes = new Map<string, string[]>();
  for (const a of p.activities) {
    for (const f of a.filters) {
      const entry =
        `        ${hash(a.name)} ${shortComponent(p.name, a.name)} filter ${
          hash(a.name + f.actions.join())
        }\n` + f.actions.map((x) => `          Action: "${x}"\n`).join("") +
        f.categories.map((x) => `          Category: "${x}"\n`).join("") +
        f.schemes.map((x) => `          Scheme: "${x}"\n`).join("") +
        f.hosts.map((x) => `          Authority: "${x}": -1\n`).join("");
      if (f.schemes.length) {
        for (const s of f.schemes) schemes.set(s, [...(schemes.get(s) ?? []), entry]);
      } else {
        for (const x of f.actions) nonData.set(x, [...(nonData.get(x) ?? []), entry]);
      }
    }
  }
  if (schemes.size) {
    out += "  Schemes:\n";
    for (const [s, e] of schemes) out += `      ${s}:\n${e.join("")}`;
  }
  if (nonData.size) {
    out += "  Non-Data Actions:\n";
    for (const [x, e] of nonData) out += `      ${x}:\n${e.join("")}`;
  }
  const perms = [...p.permissions];
  const install = perms.filter(([, s]) => !s.runtime);
  const runtime = perms.filter(([, s]) => s.runtime);
  const flags = p.system
    ? "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA"
    : "HAS_CODE ALLOW_CLEAR_USER_DATA";
  const allFlags = (p.debuggable ? "DEBUGGABLE " : "") + flags + " ALLOW_BACKUP";
  out += "\nPackages:\n" +
    `  Package [${p.name}] (${hash(p.name)}):\n` +
    `    userId=${p.uid}\n` +
    `    pkg=Package{${hash(p.name + "pkg")} ${p.name}}\n` +
    `    codePath=${p.codePath}\n` +
    `    resourcePath=${p.codePath}\n` +
    `    legacyNativeLibraryDir=${p.codePath}/lib\n` +
    `    primaryCpuAbi=null\n` +
    `    secondaryCpuAbi=null\n` +
    `    versionCode=${p.versionCode} minSdk=${p.minSdk} targetSdk=${p.targetSdk}\n` +
    `    versionName=${p.versionName}\n` +
    `    splits=[base]\n` +
    `    apkSigningVersion=2\n` +
    `    flags=[ ${allFlags} ]\n` +
    `    dataDir=/data/user/0/${p.name}\n` +
    `    timeStamp=${formatTime(p.lastUpdateTime, false)}\n` +
    `    firstInstallTime=${formatTime(p.firstInstallTime, false)}\n` +
    `    lastUpdateTime=${formatTime(p.lastUpdateTime, false)}\n` +
    (p.installer ? `    installerPackageName=${p.installer}\n` : "") +
    `    pkgFlags=[ ${allFlags} ]\n` +
    "    requested permissions:\n" +
    perms.map(([n]) => `      ${n}\n`).join("") +
    "    install permissions:\n" +
    install.map(([n, s]) => `      ${n}: granted=${s.granted}\n`).join("") +
    `    User 0: ceDataInode=${
      p.uid * 7 % 900000
    } installed=true hidden=false suspended=false distractionFlags=0 stopped=false ` +
    `notLaunched=false enabled=0 instant=false virtual=false\n` +
    (api >= 23
      ? "      runtime permissions:\n" +
        runtime.map(([n, s]) =>
          `        ${n}: granted=${s.granted}, flags=[ ${
            s.granted ? "USER_SET" : "USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
          }]\n`
        ).join("")
      : "");
  out += `\nDexopt state:\n  [${p.name}]\n    path: ${p.apkPath}\n` +
    `      ${api >= 31 ? "x86_64" : "arm64"}: [status=speed-profile] [reason=install]\n\n`;
  return out;
}

export interface TopActivity {
  pkg: string;
  cls: string;
  task: number;
  uid: number;
}

/** `ActivityRecord{<id> u0 pkg/.Act t<task>}` as dumpsys prints an activity. */
export function activityRecord(a: TopActivity): string {
  const h = ((a.task * 2654435761) >>> 0).toString(16).slice(0, 7);
  return `ActivityRecord{${h} u0 ${shortComponent(a.pkg, a.cls)} t${a.task}}`;
}

/** `dumpsys activity activities`: the task list with the resumed-activity lines. */
export function activitiesText(
  stack: TopActivity[],
  api: number,
  home: TopActivity | undefined = stack[stack.length - 1],
): string {
  const top = stack[0];
  let out = "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n" +
    "Display #0 (activities from top to bottom):\n";
  for (const a of stack) {
    out +=
      `  * Task{${activityRecord(a).slice(15, 22)} #${a.task} type=${
        a === home ? "home" : "standard"
      } A=${a.uid}:${a.pkg} U=0 visible=${a === top} mode=fullscreen translucent=false sz=1}\n` +
      `    * Hist  #0: ${activityRecord(a)}\n` +
      `      packageName=${a.pkg} processName=${a.pkg}\n` +
      `      intent={act=android.intent.action.MAIN flg=0x10000000 cmp=${
        shortComponent(a.pkg, a.cls)
      }}\n`;
    if (api < 31 && a === top) out += `    mResumedActivity: ${activityRecord(a)}\n`;
  }
  if (top) {
    if (api >= 31) {
      out += "\n  Resumed activities in task display areas (from top to bottom):\n" +
        `    ResumedActivity: ${activityRecord(top)}\n`;
    }
    out += `\n  ResumedActivity: ${activityRecord(top)}\n`;
    out += ` mFocusedApp=${activityRecord(top)}\n`;
    if (api >= 29) out += ` topResumedActivity=${activityRecord(top)}\n`;
  }
  return out;
}

/** `dumpsys window` (windows section): the focus lines. */
/** The window id `dumpsys window` shows for the top activity's window (`Window{<id> u0 …}`). */
export function windowId(top: TopActivity): string {
  return ((top.task * 40503) >>> 0).toString(16).padStart(7, "0").slice(0, 7);
}

export function windowText(top: TopActivity | undefined): string {
  if (!top) return "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=null\n";
  const h = windowId(top);
  return "WINDOW MANAGER WINDOWS (dumpsys window windows)\n" +
    `  Window #0 Window{${h} u0 ${top.pkg}/${top.cls}}:\n` +
    `    mDisplayId=0 rootTaskId=${top.task} mSession=Session{${h} ${top.uid}:${top.uid}} ` +
    `mClient=android.os.BinderProxy@${h}\n\n` +
    `  mCurrentFocus=Window{${h} u0 ${top.pkg}/${top.cls}}\n` +
    `  mFocusedApp=${activityRecord(top)}\n`;
}
