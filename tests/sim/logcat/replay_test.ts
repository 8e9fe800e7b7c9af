import { assert, assertEquals } from "../../assert.ts";
import { parseLine, parseLogText } from "./replay.ts";

const FIXTURES = new URL("../../../../shared/fixtures/real/logcat/", import.meta.url);
const haveFixtures = (() => {
  try {
    return Deno.statSync(FIXTURES).isDirectory;
  } catch {
    return false;
  }
})();
if (!haveFixtures) console.error("replay_test: ../shared/fixtures/real/logcat absent: skipping");
const read = (name: string) => Deno.readTextFile(new URL(name, FIXTURES));

Deno.test("parseLine() reads threadtime, uid, epoch, time, brief and Android Studio lines", () => {
  const tt = parseLine("04-04 10:53:33.874   542  1520 W OptProp : Cannot read", "main", 2026)!;
  assertEquals([tt.pid, tt.tid, tt.level, tt.tag, tt.message], [
    542,
    1520,
    "W",
    "OptProp",
    "Cannot read",
  ]);
  assertEquals(tt.time, Date.UTC(2026, 3, 4, 10, 53, 33, 874));
  const uid = parseLine("06-06 11:10:37.490  1000  2830  3273 D WifiHAL : x", "main")!;
  assertEquals([uid.uid, uid.pid, uid.tid, uid.tag], [1000, 2830, 3273, "WifiHAL"]);
  const ep = parseLine("         1749208237.490  2830  3273 I Tag: y", "main")!;
  assertEquals([ep.time, ep.pid, ep.message], [1749208237490, 2830, "y"]);
  const empty = parseLine("03-13 10:01:23.739     0     0 I         : c5 binder", "main")!;
  assertEquals([empty.tag, empty.message], ["", "c5 binder"]);
  const time = parseLine("01-17 21:12:37.042 E/ActivityManager(24942): ANR in x", "system")!;
  assertEquals([time.level, time.tag, time.pid, time.message, time.buffer], [
    "E",
    "ActivityManager",
    24942,
    "ANR in x",
    "system",
  ]);
  const brief = parseLine("D/libEGL  ( 3006): eglInitialize", "main")!;
  assertEquals([brief.tag, brief.pid, brief.time], ["libEGL", 3006, null]);
  const studio = parseLine(
    "2023/02/26 02:19:14.436 29876 12416 Error CRASH       #00 frame",
    "main",
  )!;
  assertEquals([studio.level, studio.tag, studio.tid, studio.message], [
    "E",
    "CRASH",
    12416,
    "      #00 frame",
  ]);
  assertEquals(parseLine("\tat a.b(C.java:1)", "main"), null);
});

Deno.test("parseLogText(): separators set buffers, banner dropped, continuations kept, CRs removed", () => {
  const text = "* daemon started successfully *\r\n--------- beginning of system\r\n" +
    "09-26 18:18:27.847  2519  2519 I vold    : Vold 3.0\r\r\n    --android-dump\r\n" +
    "--------- beginning of crash\r\n09-26 18:19:07.562  6937  6937 F DEBUG   : \r\n";
  const p = parseLogText(text);
  assertEquals(p.dropped, 1);
  assertEquals(p.entries.map((e) => [e.buffer, e.tag, e.message]), [
    ["system", "vold", "Vold 3.0\n    --android-dump"],
    ["crash", "DEBUG", ""],
  ]);
});

Deno.test({
  name: "parseLogText() on every real capture: formats, CRLF, tombstone",
  ignore: !haveFixtures,
  fn: async () => {
    const anr = parseLogText(await read("anr_broadcast_timeout_time_format_crlf_trimmed.txt"));
    const a = anr.entries.find((e) => e.message.startsWith("ANR in "))!;
    assertEquals([a.pid, a.tag, a.level, a.message], [
      24942,
      "ActivityManager",
      "E",
      "ANR in com.menny.android.anysoftkeyboard",
    ]);
    assert(anr.entries.every((e) => !e.message.includes("\r")));
    const boot = parseLogText(
      await read("long_boot_log_lineageos_crlf_with_native_crash_trimmed.txt"),
    );
    assertEquals(boot.dropped, 2);
    assert(
      boot.entries.some((e) =>
        e.buffer === "crash" && e.tag === "DEBUG" && e.message.startsWith("*** ***")
      ),
    );
    const studio = parseLogText(await read("android_studio_logcat_format_unity_crash.txt"));
    assertEquals(studio.dropped, 0);
    assert(studio.entries.some((e) => e.tag === "CRASH" && e.level === "E"));
    const tomb = parseLogText(await read("tombstone_android16_arm64_sigsegv_trimmed.txt"));
    assert(tomb.tombstone);
    assertEquals(tomb.entries[0].tag, "DEBUG");
    const chain = parseLogText(await read("fatal_exception_caused_by_chain_threadtime.txt"));
    const fatal = chain.entries.findIndex((e) => e.message === "FATAL EXCEPTION: main");
    assertEquals(chain.entries[fatal].buffer, "crash");
    assertEquals(chain.entries[fatal - 1].buffer, "main");
    const microg = parseLogText(
      await read("microg_fatal_exception_unknown_source_threadtime_trimmed.txt"),
    );
    assertEquals(
      microg.entries.filter((e) => e.message.startsWith("FATAL EXCEPTION: McsHandler")).length,
      2,
    );
    const ss = parseLogText(await read("system_server_crash_loop_crash_buffer_trimmed.txt"));
    assert(ss.entries.every((e) => e.buffer === "crash"));
  },
});
