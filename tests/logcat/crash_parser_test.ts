import { assert, assertEquals } from "../assert.ts";
import {
  crashGroupId,
  crashSignature,
  describeFrame,
  packageOfProcess,
  parseCrash,
  parseJavaFrame,
  parseNativeFrame,
} from "../../lib/logcat/crash_parser.ts";
import { DevicePipeline } from "../../lib/logcat/pipeline.ts";
import { HAVE_REAL, readReal } from "./_fixtures.ts";

function crashesOf(file: string) {
  const p = new DevicePipeline("real");
  p.ingestText(readReal(file));
  p.flush();
  return { p, records: p.crashes, parsed: p.crashes.map((r) => p.parsedOf(r)) };
}

const AAS = "android.support.design.widget.AppBarLayout";
const XML = "Binary XML file line #5 in de.gaffga.android.zazentimer:layout/main";

Deno.test({
  name: "parseCrash() on a real FATAL EXCEPTION with a 4-deep Caused-by chain",
  ignore: !HAVE_REAL,
  fn() {
    const { records, parsed } = crashesOf("fatal_exception_caused_by_chain_threadtime.txt");
    assertEquals(records.length, 1);
    const c = parsed[0];
    assertEquals(c.kind, "java");
    assertEquals(c.exception_type, "java.lang.RuntimeException");
    assertEquals(
      c.message,
      "Unable to start activity ComponentInfo{de.gaffga.android.zazentimer/" +
        "de.gaffga.android.zazentimer.ZazenTimerActivity}: android.view.InflateException: " +
        `${XML}: ${XML}: Error inflating class ${AAS}`,
    );
    assertEquals([c.process, c.package, c.pid, c.thread], [
      "de.gaffga.android.zazentimer",
      "de.gaffga.android.zazentimer",
      5572,
      "main",
    ]);
    assertEquals(c.causes.map((x) => [x.type, x.message, x.more]), [
      ["android.view.InflateException", `${XML}: ${XML}: Error inflating class ${AAS}`, null],
      ["android.view.InflateException", `${XML}: Error inflating class ${AAS}`, null],
      ["java.lang.ClassNotFoundException", AAS, null],
      [
        "java.lang.ClassNotFoundException",
        `Didn't find class "${AAS}" on path: DexPathList[[zip file "/data/app/~~zEGqsd-cyRhmle5_pXA2CQ==/de.gaffga.android.zazentimer-dqqdVJ70KoAQ2nUlKRgMYA==/base.apk"],nativeLibraryDirectories=[/data/app/~~zEGqsd-cyRhmle5_pXA2CQ==/de.gaffga.android.zazentimer-dqqdVJ70KoAQ2nUlKRgMYA==/lib/x86_64, /system/lib64, /system_ext/lib64]]`,
        29,
      ],
    ]);
    assertEquals(c.frames[0].class, "android.app.ActivityThread");
    assertEquals(c.frames[0].method, "performLaunchActivity");
    assertEquals([c.frames[0].file, c.frames[0].line], ["ActivityThread.java", 4048]);
    const f = c.first_app_frame!;
    assertEquals([f.class, f.method, f.file, f.line], [
      "de.gaffga.android.zazentimer.ZazenTimerActivity",
      "initView",
      "ZazenTimerActivity.java",
      224,
    ]);
    assertEquals(records[0].died, true, "ActivityManager reported the process died");
  },
});

Deno.test({
  name: "parseCrash() on two real microG crashes: R8 Unknown Source frames, one group",
  ignore: !HAVE_REAL,
  fn() {
    const { p, records, parsed } = crashesOf(
      "microg_fatal_exception_unknown_source_threadtime_trimmed.txt",
    );
    assertEquals(parsed.length, 2);
    for (const c of parsed) {
      assertEquals(c.exception_type, "java.lang.NullPointerException");
      assertEquals(
        c.message,
        "Attempt to invoke virtual method 'java.lang.String android.net.NetworkInfo." +
          "getTypeName()' on a null object reference",
      );
      assertEquals(c.causes, []);
      assertEquals([c.process, c.package], [
        "com.mgoogle.android.gms:persistent",
        "com.mgoogle.android.gms",
      ]);
      const f = c.first_app_frame!;
      assertEquals([f.class, f.method, f.file, f.line], [
        "org.microg.gms.gcm.McsService",
        "connect",
        "Unknown Source",
        46,
      ]);
    }
    assertEquals(parsed.map((c) => c.pid), [7711, 7932]);
    assertEquals(p.groupOf(records[0]), p.groupOf(records[1]));
  },
});

Deno.test({
  name: "parseCrash() on a real system_server crash loop: 14 crashes, no app frame, one group",
  ignore: !HAVE_REAL,
  fn() {
    const { p, records, parsed } = crashesOf("system_server_crash_loop_crash_buffer_trimmed.txt");
    assertEquals(parsed.length, 14);
    for (const c of parsed) {
      assertEquals(c.exception_type, "java.lang.IllegalStateException");
      assertEquals(
        c.message,
        "Signature|privileged permissions not in privileged permission allowlist: " +
          "{org.aospextended.device (/system_ext/priv-app/XiaomiParts): " +
          "android.permission.CONTROL_DEVICE_LIGHTS}",
      );
      assertEquals([c.process, c.package, c.causes.length], ["system_server", null, 0]);
      assertEquals(c.first_app_frame, null);
      assertEquals(c.frames[0].file, "AppIdPermissionPolicy.kt");
    }
    assertEquals(new Set(records.map((r) => p.groupOf(r))).size, 1);
  },
});

Deno.test({
  name: "parseCrash() on a real -v time ANR: process, pid and reason",
  ignore: !HAVE_REAL,
  fn() {
    const { parsed } = crashesOf("anr_broadcast_timeout_time_format_crlf_trimmed.txt");
    assertEquals(parsed.length, 1);
    const c = parsed[0];
    assertEquals([c.kind, c.exception_type, c.process, c.pid], [
      "anr",
      "ANR",
      "com.menny.android.anysoftkeyboard",
      29984,
    ]);
    assertEquals(
      c.message,
      "Broadcast of Intent { flg=0x14 cmp=com.menny.android.anysoftkeyboard/" +
        "com.radicalninja.logger.AlarmReceiver (has extras) }",
    );
    assertEquals([c.causes, c.first_app_frame], [[], null]);
  },
});

Deno.test({
  name: "parseCrash() on real native crashes dumped through F DEBUG in a CRLF boot log",
  ignore: !HAVE_REAL,
  fn() {
    const { p, records, parsed } = crashesOf(
      "long_boot_log_lineageos_crlf_with_native_crash_trimmed.txt",
    );
    assertEquals(parsed.length, 9);
    const c = parsed[0];
    assertEquals([c.kind, c.exception_type, c.message, c.pid, c.process, c.thread], [
      "native",
      "SIGSEGV",
      "null pointer dereference",
      2640,
      "/system/bin/gpsd",
      "gpsd",
    ]);
    assertEquals(c.signal, {
      number: 11,
      name: "SIGSEGV",
      code: "1 (SEGV_MAPERR)",
      fault_addr: "0x30",
    });
    assertEquals(c.frames.map((f) => [f.pc, f.library, f.symbol]), [
      ["00051c84", "/system/lib/libc.so", "__fseeko64(__sFILE*, long long, int, int)"],
      ["00051e0f", "/system/lib/libc.so", "fseeko"],
      ["00065a54", "/system/bin/gpsd", "kepler_codeload"],
    ]);
    assertEquals(c.causes, []);
    assertEquals(describeFrame(c.first_app_frame), "/system/bin/gpsd (kepler_codeload)");
    assertEquals(new Set(records.map((r) => p.groupOf(r))).size, 1, "gpsd crashed 9 times alike");
  },
});

Deno.test({
  name: "parseCrash() on a real Android 16 tombstone file",
  ignore: !HAVE_REAL,
  fn() {
    const lines = readReal("tombstone_android16_arm64_sigsegv_trimmed.txt").split("\n");
    const c = parseCrash("native", lines);
    assertEquals([c.exception_type, c.message, c.pid, c.process, c.package, c.thread], [
      "SIGSEGV",
      "null pointer dereference",
      20099,
      "com.example.nativewrapper.test",
      "com.example.nativewrapper.test",
      "roidJUnitRunner",
    ]);
    assertEquals(c.frames.length, 1);
    assertEquals(c.causes, []);
    const f = c.first_app_frame!;
    assertEquals(f.pc, "00000000000092a0");
    assert(f.library!.endsWith("/base.apk"));
  },
});

Deno.test({
  name: "parseCrash() on a real Unity crash in Android Studio's format: no exception line",
  ignore: !HAVE_REAL,
  fn() {
    const { parsed } = crashesOf("android_studio_logcat_format_unity_crash.txt");
    assertEquals(parsed.length, 1);
    const c = parsed[0];
    assertEquals([c.kind, c.exception_type, c.message, c.thread, c.pid], [
      "java",
      null,
      null,
      "UnityMain",
      29876,
    ]);
    assertEquals(c.package, "com.UnityTechnologies.com.unity.template.urpblank");
    assertEquals(c.causes, []);
    const f = c.first_app_frame!;
    assertEquals(f.class, "Unity.Collections.LowLevel.Unsafe.UnsafeAppendBuffer.Reader");
    assertEquals([f.file, f.line], ["0x4c", 76]);
  },
});

Deno.test("parseCrash() java: Caused-by chain, ... N more, app frames by package", () => {
  const c = parseCrash("java", [
    "FATAL EXCEPTION: main",
    "Process: com.example.app, PID: 4242",
    "java.lang.IllegalStateException: boom",
    "\tat com.example.app.Main.onClick(Main.kt:10)",
    "\tat android.view.View.performClick(View.java:7448)",
    "Caused by: java.io.IOException: disk",
    "\tat com.example.app.Store.save(Store.kt:3)",
    "\t... 1 more",
  ]);
  assertEquals([c.exception_type, c.message, c.pid, c.package], [
    "java.lang.IllegalStateException",
    "boom",
    4242,
    "com.example.app",
  ]);
  assertEquals(c.frames.map((f) => f.app), [true, false]);
  assertEquals(c.causes.length, 1);
  assertEquals([c.causes[0].type, c.causes[0].message, c.causes[0].more], [
    "java.io.IOException",
    "disk",
    1,
  ]);
  assertEquals(c.first_app_frame!.method, "save");
});

Deno.test("crashGroupId() is stable and separates different app frames", () => {
  const a = parseCrash("java", [
    "FATAL EXCEPTION: main",
    "Process: com.a.b, PID: 1",
    "x.Y: m",
    "\tat com.a.b.C.d(C.kt:1)",
  ]);
  const b = parseCrash("java", [
    "FATAL EXCEPTION: main",
    "Process: com.a.b, PID: 2",
    "x.Y: other",
    "\tat com.a.b.C.d(C.kt:1)",
  ]);
  const c = parseCrash("java", [
    "FATAL EXCEPTION: main",
    "Process: com.a.b, PID: 3",
    "x.Y: m",
    "\tat com.a.b.C.e(C.kt:9)",
  ]);
  assertEquals(crashGroupId(crashSignature(a)), crashGroupId(crashSignature(b)));
  assert(crashGroupId(crashSignature(a)) !== crashGroupId(crashSignature(c)));
  assertEquals(/^[0-9a-f]{12}$/.test(crashGroupId("x")), true);
});

Deno.test("parseJavaFrame() and parseNativeFrame() read locations", () => {
  const n = parseJavaFrame("java.lang.reflect.Method.invoke(Native Method)");
  assertEquals([n.class, n.method, n.file, n.line], [
    "java.lang.reflect.Method",
    "invoke",
    "Native Method",
    null,
  ]);
  const f = parseNativeFrame(
    "#03 pc 0000a1b2  /data/app/x/lib/arm64/libfoo.so (Foo::bar()+12) (BuildId: ab)",
  )!;
  assertEquals([f.pc, f.library, f.symbol], [
    "0000a1b2",
    "/data/app/x/lib/arm64/libfoo.so",
    "Foo::bar()",
  ]);
  assertEquals(parseNativeFrame("not a frame"), null);
  assertEquals(packageOfProcess("com.x.y:remote"), "com.x.y");
  assertEquals(packageOfProcess("/system/bin/gpsd"), null);
  assertEquals(packageOfProcess("system_server"), null);
});

Deno.test("parseCrash() java: a Suppressed exception is kept apart from the Caused-by chain", () => {
  const text = Deno.readTextFileSync(
    new URL("./testdata/java_suppressed_and_cause_threadtime.txt", import.meta.url),
  );
  const p = new DevicePipeline("emu");
  p.ingestText(text);
  p.flush();
  assertEquals(p.crashes.length, 1);
  const c = p.parsedOf(p.crashes[0]);
  assertEquals(c.exception_type, "java.lang.IllegalStateException");
  // The cause chain is the JVM's: only the unindented Caused by.
  assertEquals(c.causes.map((x) => x.type), ["android.database.sqlite.SQLiteFullException"]);
  assertEquals(c.causes[0].frames.map((f) => f.method), [
    "nativeExecuteForChangedRowCount",
    "insert",
    "save",
  ]);
  // The suppressed exception, under the top exception, with its own cause.
  assertEquals(c.suppressed.length, 1);
  const s = c.suppressed[0];
  assertEquals([s.type, s.message, s.suppressed_by, s.more], [
    "java.io.IOException",
    "close failed",
    -1,
    2,
  ]);
  assertEquals(s.frames.map((f) => f.method), ["close", "save"]);
  assertEquals(s.causes.map((x) => [x.type, x.more]), [["android.system.ErrnoException", 4]]);
  // Where it went wrong is the innermost cause's app frame, not the suppressed one's.
  assertEquals(c.first_app_frame?.method, "insert");
});

Deno.test("parseCrash() marks neither JDK proxies nor renamed library classes beside the app's as the app's", () => {
  const head = ["FATAL EXCEPTION: main", "Process: com.example.shop, PID: 4242"];
  const c = parseCrash("java", [
    ...head,
    "java.lang.IllegalStateException: closed",
    "\tat n.d.c.a(SourceFile:3)",
    // A renamed nested class (Retrofit's, in the corpus's logcat/traces/retrofitproguard trace).
    "\tat t3.c0$a.invoke(SourceFile:45)",
    "\tat $Proxy6.open(Unknown Source)",
    "\tat com.sun.proxy.$Proxy7.open(Unknown Source)",
    "\tat com.example.shop.CheckoutActivity.onPay(CheckoutActivity.kt:88)",
  ]);
  assertEquals(c.frames.map((f) => f.app), [false, false, false, false, true]);
  assertEquals(c.first_app_frame?.class, "com.example.shop.CheckoutActivity");
  // An app obfuscated wholesale (no frame in its package): its renamed classes are its own.
  const o = parseCrash("java", [
    ...head,
    "java.lang.NullPointerException",
    "\tat a.b.c(SourceFile:1)",
    "\tat android.os.Handler.dispatchMessage(Handler.java:106)",
  ]);
  assertEquals(o.frames.map((f) => f.app), [true, false]);
});
