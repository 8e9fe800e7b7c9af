/**
 * Scripted crashes as a device logs them: a Java `FATAL EXCEPTION` (Caused-by chain, `... N more`
 * computed as Java's printStackTrace does), an ANR block from ActivityManager, a native crash
 * (`Fatal signal` from libc, the `*** *** ***` tombstone block from DEBUG in the crash buffer),
 * and the lines around a process death and restart. Pure: returns entries, the service appends.
 */
import type { LogLevel } from "../device_log.ts";
import { type EntryInit, type Proc, type Rng, uidLabel } from "./traffic.ts";
import { type FrameRewrite, obfuscateFrames } from "../gradle/r8.ts";

export const CRASH_KINDS = ["java", "anr", "native"] as const;
export type CrashKind = typeof CRASH_KINDS[number];
export const JAVA_VARIANTS = ["activity", "click", "coroutine"] as const;
export const ANR_VARIANTS = ["input", "broadcast", "service"] as const;
export const NATIVE_VARIANTS = ["segv", "abort"] as const;
export const CRASH_VARIANTS: Record<CrashKind, readonly string[]> = {
  java: JAVA_VARIANTS,
  anr: ANR_VARIANTS,
  native: NATIVE_VARIANTS,
};

/** liblog's largest payload: longer messages are split at line boundaries (Log.printlns). */
export const MAX_PAYLOAD_BYTES = 4068;

export interface DeviceFacts {
  api: number;
  fingerprint: string;
  abi: string;
}

/** One throwable: header line (`type: message`) and its full stack, top first. */
export interface Throwable {
  header: string;
  frames: string[];
  suppressed?: Throwable[];
}

/**
 * The text `Throwable.printStackTrace` prints for a chain (outermost first): each cause's frames
 * shared with the enclosing trace's bottom are folded into `... N more`.
 */
export function printChain(chain: Throwable[]): string[] {
  const out: string[] = [];
  const printEnclosed = (t: Throwable, enclosing: string[], caption: string, indent: string) => {
    let m = t.frames.length - 1;
    let n = enclosing.length - 1;
    while (m >= 0 && n >= 0 && t.frames[m] === enclosing[n]) {
      m--;
      n--;
    }
    const common = t.frames.length - 1 - m;
    out.push(`${indent}${caption}${t.header}`);
    for (let k = 0; k <= m; k++) out.push(`${indent}\tat ${t.frames[k]}`);
    if (common !== 0) out.push(`${indent}\t... ${common} more`);
    for (const s of t.suppressed ?? []) printEnclosed(s, t.frames, "Suppressed: ", indent + "\t");
  };
  const [top, ...causes] = chain;
  out.push(top.header);
  for (const f of top.frames) out.push(`\tat ${f}`);
  for (const s of top.suppressed ?? []) printEnclosed(s, top.frames, "Suppressed: ", "\t");
  let enclosing = top.frames;
  for (const c of causes) {
    printEnclosed(c, enclosing, "Caused by: ", "");
    enclosing = c.frames;
  }
  return out;
}

const LOOPER_MAIN = [
  "android.os.Looper.loopOnce(Looper.java:232)",
  "android.os.Looper.loop(Looper.java:317)",
  "android.app.ActivityThread.main(ActivityThread.java:8705)",
  "java.lang.reflect.Method.invoke(Native Method)",
  "com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run(RuntimeInit.java:580)",
  "com.android.internal.os.ZygoteInit.main(ZygoteInit.java:886)",
];

const LAUNCH_TAIL = [
  "android.app.ActivityThread.handleLaunchActivity(ActivityThread.java:4235)",
  "android.app.servertransaction.LaunchActivityItem.execute(LaunchActivityItem.java:112)",
  "android.app.servertransaction.TransactionExecutor.executeNonLifecycleItem(TransactionExecutor.java:174)",
  "android.app.servertransaction.TransactionExecutor.executeTransactionItems(TransactionExecutor.java:109)",
  "android.app.servertransaction.TransactionExecutor.execute(TransactionExecutor.java:81)",
  "android.app.ActivityThread$H.handleMessage(ActivityThread.java:2636)",
  "android.os.Handler.dispatchMessage(Handler.java:107)",
  ...LOOPER_MAIN,
];

/** The Java exception chain and the thread it happened on for a variant. */
export function javaChain(pkg: string, variant: string): { thread: string; chain: Throwable[] } {
  if (variant === "click") {
    const click = [
      "android.view.View.performClick(View.java:7659)",
      "android.view.View.performClickInternal(View.java:7636)",
      "android.view.View.-$$Nest$mperformClickInternal(Unknown Source:0)",
      "android.view.View$PerformClick.run(View.java:30156)",
      "android.os.Handler.handleCallback(Handler.java:958)",
      "android.os.Handler.dispatchMessage(Handler.java:99)",
      ...LOOPER_MAIN,
    ];
    const ite = [
      "java.lang.reflect.Method.invoke(Native Method)",
      "androidx.appcompat.app.AppCompatViewInflater$DeclaredOnClickListener.onClick(AppCompatViewInflater.java:467)",
      ...click,
    ];
    return {
      thread: "main",
      chain: [
        {
          header: "java.lang.IllegalStateException: Could not execute method for android:onClick",
          frames: [
            "androidx.appcompat.app.AppCompatViewInflater$DeclaredOnClickListener.onClick(AppCompatViewInflater.java:472)",
            ...click,
          ],
        },
        { header: "java.lang.reflect.InvocationTargetException", frames: ite },
        {
          header:
            "java.lang.NullPointerException: Attempt to invoke virtual method 'int java.lang.String.length()' on a null object reference",
          frames: [`${pkg}.ui.DetailActivity.onSaveClicked(DetailActivity.kt:58)`, ...ite],
        },
      ],
    };
  }
  if (variant === "coroutine") {
    const worker = [
      "kotlin.coroutines.jvm.internal.BaseContinuationImpl.resumeWith(ContinuationImpl.kt:33)",
      "kotlinx.coroutines.DispatchedTask.run(DispatchedTask.kt:108)",
      "kotlinx.coroutines.scheduling.CoroutineScheduler.runSafely(CoroutineScheduler.kt:584)",
      "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.executeTask(CoroutineScheduler.kt:793)",
      "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.runWorker(CoroutineScheduler.kt:697)",
      "kotlinx.coroutines.scheduling.CoroutineScheduler$Worker.run(CoroutineScheduler.kt:684)",
    ];
    const top = [
      "java.net.Inet6AddressImpl.lookupHostByName(Inet6AddressImpl.java:156)",
      "java.net.Inet6AddressImpl.lookupAllHostAddr(Inet6AddressImpl.java:103)",
      "java.net.InetAddress.getAllByName(InetAddress.java:1152)",
      `${pkg}.net.ApiClient.fetchItems(ApiClient.kt:33)`,
      `${pkg}.sync.SyncWorker$run$1.invokeSuspend(SyncWorker.kt:21)`,
      ...worker,
    ];
    return {
      thread: "DefaultDispatcher-worker-2",
      chain: [
        {
          header:
            'java.net.UnknownHostException: Unable to resolve host "api.keynobi.example": No address associated with hostname',
          frames: top,
          suppressed: [{
            header:
              "kotlinx.coroutines.internal.DiagnosticCoroutineContextException: [StandaloneCoroutine{Cancelling}@5b1e0e1, Dispatchers.Default]",
            frames: [],
          }],
        },
        {
          header:
            "android.system.GaiException: android_getaddrinfo failed: EAI_NODATA (No address associated with hostname)",
          frames: [
            "libcore.io.Linux.android_getaddrinfo(Native Method)",
            "libcore.io.ForwardingOs.android_getaddrinfo(ForwardingOs.java:133)",
            "libcore.io.BlockGuardOs.android_getaddrinfo(BlockGuardOs.java:222)",
            "libcore.io.ForwardingOs.android_getaddrinfo(ForwardingOs.java:133)",
            "java.net.Inet6AddressImpl.lookupHostByName(Inet6AddressImpl.java:135)",
            ...top.slice(1),
          ],
        },
      ],
    };
  }
  // "activity": an exception in onCreate, wrapped by ActivityThread.
  const created = [
    `${pkg}.MainActivity.onCreate(MainActivity.kt:27)`,
    "android.app.Activity.performCreate(Activity.java:9002)",
    "android.app.Activity.performCreate(Activity.java:8980)",
    "android.app.Instrumentation.callActivityOnCreate(Instrumentation.java:1526)",
    "android.app.ActivityThread.performLaunchActivity(ActivityThread.java:4030)",
    ...LAUNCH_TAIL,
  ];
  return {
    thread: "main",
    chain: [
      {
        header:
          `java.lang.RuntimeException: Unable to start activity ComponentInfo{${pkg}/${pkg}.MainActivity}: java.lang.IllegalStateException: Sample data could not be loaded`,
        frames: [
          "android.app.ActivityThread.performLaunchActivity(ActivityThread.java:4048)",
          ...LAUNCH_TAIL,
        ],
      },
      {
        header: "java.lang.IllegalStateException: Sample data could not be loaded",
        frames: [`${pkg}.data.SampleRepository.load(SampleRepository.kt:42)`, ...created],
      },
      {
        header: 'java.lang.NumberFormatException: For input string: "12a"',
        frames: [
          "java.lang.Integer.parseInt(Integer.java:797)",
          "java.lang.Integer.parseInt(Integer.java:915)",
          `${pkg}.data.SampleParser.parseCount(SampleParser.kt:17)`,
          `${pkg}.data.SampleRepository.load(SampleRepository.kt:39)`,
          ...created,
        ],
      },
    ],
  };
}

/** Splits a long multi-line message into entries of at most MAX_PAYLOAD_BYTES (whole lines). */
export function chunkMessage(lines: string[]): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  const enc = new TextEncoder();
  for (const l of lines) {
    const n = enc.encode(l).length + 1;
    if (cur.length > 0 && size + n > MAX_PAYLOAD_BYTES) {
      out.push(cur.join("\n"));
      cur = [];
      size = 0;
    }
    cur.push(l);
    size += n;
  }
  if (cur.length > 0) out.push(cur.join("\n"));
  return out;
}

function e(
  p: Proc,
  tid: number,
  level: LogLevel,
  tag: string,
  message: string,
  buffer: EntryInit["buffer"] = "main",
): EntryInit {
  return { pid: p.pid, tid, uid: p.uid, level, tag, message, buffer };
}

export function startProcLines(sys: Proc, app: Proc, reason: string, api: number): EntryInit[] {
  const comp = `${app.name}/${app.name}.MainActivity`;
  const what = api >= 29 ? `${reason} {${comp}}` : `activity ${app.name}/.MainActivity`;
  return [
    e(
      sys,
      sys.threads[1],
      "I",
      "ActivityManager",
      `Start proc ${app.pid}:${app.name}/${uidLabel(app.uid)} for ${what}`,
      "system",
    ),
  ];
}

export function javaCrashLines(
  app: Proc,
  sys: Proc,
  zygote: Proc,
  variant: string,
  r8: readonly FrameRewrite[] | null = null,
): EntryInit[] {
  const { thread, chain: plain } = javaChain(app.name, variant);
  // A minified build's frames are what R8 left of them (one frame for an inlined call).
  const chain = r8 ? plain.map((t) => ({ ...t, frames: obfuscateFrames(t.frames, r8) })) : plain;
  const tid = thread === "main" ? app.pid : app.threads[2];
  const lines = [
    `FATAL EXCEPTION: ${thread}`,
    `Process: ${app.name}, PID: ${app.pid}`,
    ...printChain(chain),
  ];
  return [
    e(app, tid, "D", "AndroidRuntime", "Shutting down VM"),
    ...chunkMessage(lines).map((m) => e(app, tid, "E", "AndroidRuntime", m, "crash")),
    e(
      sys,
      sys.threads[2],
      "W",
      "ActivityTaskManager",
      `  Force finishing activity ${app.name}/.MainActivity`,
      "system",
    ),
    e(app, tid, "I", "Process", `Sending signal. PID: ${app.pid} SIG: 9`),
    ...deathLines(app, sys, zygote, 9),
  ];
}

function deathLines(app: Proc, sys: Proc, zygote: Proc, signal: 9 | 11 | 6): EntryInit[] {
  const how = signal === 9 ? "Killed" : signal === 11 ? "Segmentation fault" : "Aborted";
  return [
    e(
      sys,
      sys.threads[3],
      "I",
      "ActivityManager",
      `Process ${app.name} (pid ${app.pid}) has died: fg  TOP `,
      "system",
    ),
    e(
      zygote,
      zygote.pid,
      "I",
      "Zygote",
      `Process ${app.pid} exited due to signal ${signal} (${how})`,
    ),
  ];
}

export function anrLines(
  app: Proc,
  sys: Proc,
  zygote: Proc,
  variant: string,
  api: number,
  rng: Rng,
  now: number,
): EntryInit[] {
  const catcher = app.threads[0];
  // As ActivityManager words them: BroadcastQueue's `Broadcast of <Intent>`, ActiveServices'
  // `executing service <short component>`, InputDispatcher's timeout (only it names an activity).
  const input = variant === "input";
  const reason = variant === "broadcast"
    ? `Broadcast of Intent { act=android.intent.action.BOOT_COMPLETED flg=0x9000010 cmp=${app.name}/.BootReceiver }`
    : variant === "service"
    ? `executing service ${app.name}/.SyncService`
    : `Input dispatching timed out (${
      rng.hex(7)
    } ${app.name}/${app.name}.MainActivity (server) is not responding. Waited 5001ms for MotionEvent)`;
  const block = [
    api >= 29 && input ? `ANR in ${app.name} (${app.name}/.MainActivity)` : `ANR in ${app.name}`,
    `PID: ${app.pid}`,
    `Reason: ${reason}`,
  ];
  if (api >= 30 && input) block.push(`Parent: ${app.name}/.MainActivity`);
  if (api >= 31) {
    block.push(
      `ErrorId: ${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`,
      "Frozen: false",
    );
  }
  const stamp = new Date(now).toISOString().replace("T", " ").replace("Z", "");
  block.push(
    `Load: ${(rng.next() * 2).toFixed(2)} / ${(rng.next() * 2).toFixed(2)} / ${
      (rng.next() * 2).toFixed(2)
    }`,
    "----- Output from /proc/pressure/memory -----",
    `some avg10=0.00 avg60=0.00 avg300=0.00 total=${rng.int(100000, 999999)}`,
    `full avg10=0.00 avg60=0.00 avg300=0.00 total=${rng.int(10000, 99999)}`,
    "----- End output from /proc/pressure/memory -----",
    "",
    `CPU usage from 0ms to 5012ms later (${stamp} to ${stamp}):`,
    `  38% ${app.pid}/${app.name}: 31% user + 6.9% kernel / faults: 1420 minor`,
    `  12% ${sys.pid}/system_server: 7.1% user + 5% kernel / faults: 890 minor`,
    "51% TOTAL: 38% user + 12% kernel + 0.4% iowait + 0.3% irq + 0.2% softirq",
  );
  return [
    e(sys, sys.threads[0], "I", "Process", `Sending signal. PID: ${app.pid} SIG: 3`),
    e(
      app,
      catcher,
      "I",
      app.name.slice(0, 23),
      `Thread[2,tid=${catcher},WaitingInMainSignalCatcherLoop,Thread*=0x7${rng.hex(9)},peer=0x${
        rng.hex(8)
      },"Signal Catcher"]: reacting to signal 3`,
    ),
    e(app, catcher, "I", app.name.slice(0, 23), ""),
    e(app, catcher, "I", app.name.slice(0, 23), "Wrote stack traces to tombstoned"),
    ...chunkMessage(block).map((m) => e(sys, sys.threads[0], "E", "ActivityManager", m, "system")),
    e(
      sys,
      sys.threads[0],
      "I",
      "ActivityManager",
      `Killing ${app.pid}:${app.name}/${uidLabel(app.uid)} (adj 0): user request after error`,
      "system",
    ),
    ...deathLines(app, sys, zygote, 9),
  ];
}

function jniName(pkg: string): string {
  return pkg.replaceAll("_", "_1").replaceAll(".", "_");
}

export function nativeCrashLines(
  app: Proc,
  dumper: Proc,
  tombstoned: Proc,
  sys: Proc,
  zygote: Proc,
  variant: string,
  facts: DeviceFacts,
  rng: Rng,
  now: number,
  tombstoneIndex: number,
): EntryInit[] {
  const tid = app.threads[3];
  const abort = variant === "abort";
  const sig = abort
    ? "signal 6 (SIGABRT), code -1 (SI_QUEUE)"
    : "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR)";
  const arm = facts.abi.startsWith("arm");
  const abi = arm ? "arm64" : facts.abi === "x86_64" ? "x86_64" : facts.abi;
  const libDir = arm ? "arm64" : "x86_64";
  const apk = `/data/app/~~${rng.hex(8)}SIMcrash==/${app.name}-${rng.hex(8)}SIMapk==`;
  const buildId = rng.hex(32);
  const sysLib = arm ? "/apex/com.android.art/lib64" : "/apex/com.android.art/lib64";
  const frames = abort
    ? [
      `/apex/com.android.runtime/lib64/bionic/libc.so (abort+164) (BuildId: ${rng.hex(32)})`,
      `${apk}/lib/${libDir}/libsample.so (checkInvariants(Config const&)+88) (BuildId: ${buildId})`,
      `${apk}/lib/${libDir}/libsample.so (Java_${
        jniName(app.name)
      }_MainActivity_nativeCrash+44) (BuildId: ${buildId})`,
      `${sysLib}/libart.so (art_quick_generic_jni_trampoline+148) (BuildId: ${rng.hex(32)})`,
    ]
    : [
      `${apk}/lib/${libDir}/libsample.so (readCounter(Counter*)+20) (BuildId: ${buildId})`,
      `${apk}/lib/${libDir}/libsample.so (Java_${
        jniName(app.name)
      }_MainActivity_nativeCrash+44) (BuildId: ${buildId})`,
      `${sysLib}/libart.so (art_quick_generic_jni_trampoline+148) (BuildId: ${rng.hex(32)})`,
      `${sysLib}/libart.so (art_quick_invoke_stub+612) (BuildId: ${rng.hex(32)})`,
    ];
  const pcs = [0x1a2b4, 0x1a3f0, 0x355630, 0x33ff64].map((n) => n.toString(16).padStart(16, "0"));
  const indent = facts.api >= 29 ? "      " : "    ";
  const regs: string[] = [];
  if (arm) {
    for (let r = 0; r < 28; r += 4) {
      regs.push("    " + [0, 1, 2, 3].map((k) => `x${r + k}`.padEnd(4) + rng.hex(16)).join("  "));
    }
    regs.push(
      `    lr  ${rng.hex(16)}  sp  ${rng.hex(16)}  pc  ${rng.hex(16)}  pst 0000000060001000`,
    );
  } else {
    regs.push(
      `    rax 0000000000000000  rbx ${rng.hex(16)}  rcx ${rng.hex(16)}  rdx ${rng.hex(16)}`,
      `    r8  ${rng.hex(16)}  r9  ${rng.hex(16)}  r10 ${rng.hex(16)}  r11 ${rng.hex(16)}`,
      `    r12 ${rng.hex(16)}  r13 ${rng.hex(16)}  r14 ${rng.hex(16)}  r15 ${rng.hex(16)}`,
      `    rdi ${rng.hex(16)}  rsi ${rng.hex(16)}`,
      `    rbp ${rng.hex(16)}  rsp ${rng.hex(16)}  rip ${rng.hex(16)}`,
    );
  }
  const d = new Date(now);
  const ts = d.toISOString().replace("T", " ").replace(/\.(\d{3})Z$/, ".$1000000+0000");
  const block = [
    "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
    `Build fingerprint: '${facts.fingerprint}'`,
    "Revision: '0'",
    `ABI: '${abi}'`,
    `Timestamp: ${ts}`,
    `Process uptime: ${rng.int(2, 600)}s`,
    `Cmdline: ${app.name}`,
    `pid: ${app.pid}, tid: ${tid}, name: Thread-4  >>> ${app.name} <<<`,
    `uid: ${app.uid}`,
    `${sig}, fault addr ${abort ? "--------" : "0x0000000000000000"}`,
    ...(abort
      ? ["Abort message: 'invariant violated: counter < 0'"]
      : ["Cause: null pointer dereference"]),
    ...regs,
    "",
    ...(facts.api >= 34 ? [`${frames.length} total frames`] : []),
    "backtrace:",
    ...frames.map((f, k) => `${indent}#${String(k).padStart(2, "0")} pc ${pcs[k]}  ${f}`),
  ];
  const fatal = `Fatal signal ${
    abort ? "6 (SIGABRT), code -1 (SI_QUEUE)" : "11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0"
  } in tid ${tid} (Thread-4), pid ${app.pid} (${app.name})`;
  const tomb = `/data/tombstones/tombstone_${String(tombstoneIndex % 32).padStart(2, "0")}`;
  return [
    e(app, tid, "F", "libc", fatal, "crash"),
    e(tombstoned, tombstoned.pid, "I", "tombstoned", `received crash request for pid ${tid}`),
    e(
      dumper,
      dumper.pid,
      "I",
      "crash_dump64",
      `performing dump of process ${app.pid} (target tid = ${tid})`,
    ),
    ...block.map((m) => e(dumper, dumper.pid, "F", "DEBUG", m, "crash")),
    e(tombstoned, tombstoned.pid, "E", "tombstoned", `Tombstone written to: ${tomb}`),
    e(
      sys,
      sys.threads[1],
      "I",
      "BootReceiver",
      `Copying ${tomb} to DropBox (SYSTEM_TOMBSTONE)`,
      "system",
    ),
    ...deathLines(app, sys, zygote, abort ? 6 : 11),
  ];
}
