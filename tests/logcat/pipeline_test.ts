import { assert, assertEquals } from "../assert.ts";
import { Level } from "../../lib/logcat/line_parser.ts";
import { DevicePipeline } from "../../lib/logcat/pipeline.ts";
import { MIN_RING_ENTRIES } from "../../lib/logcat/ring_store.ts";

function line(t: number, pid: number, tid: number, level: string, tag: string, msg: string) {
  const s = String(t % 60).padStart(2, "0");
  const ms = String(t % 1000).padStart(3, "0");
  return `04-04 10:53:${s}.${ms} ${String(pid).padStart(5)} ${String(tid).padStart(5)} ${level} ${
    tag.padEnd(8)
  }: ${msg}\n`;
}

function javaCrash(pid: number, pkg: string, method: string): string {
  return [
    "FATAL EXCEPTION: main",
    `Process: ${pkg}, PID: ${pid}`,
    "java.lang.IllegalStateException: boom " + pid,
    `\tat ${pkg}.Main.${method}(Main.kt:10)`,
    "\tat android.view.View.performClick(View.java:7448)",
  ].map((m) => line(1, pid, pid, "E", "AndroidRuntime", m)).join("");
}

Deno.test("DevicePipeline streams well past the ring: bounded, evictions counted, crash kept", () => {
  const p = new DevicePipeline("emu", { capacity: MIN_RING_ENTRIES });
  let text = "";
  for (let i = 0; i < 500; i++) text += line(i, 100, 100, "I", "Before", `line ${i}`);
  text += javaCrash(4242, "com.example.app", "onClick");
  for (let i = 0; i < 20_000; i++) text += line(i, 200, 201, i % 7 ? "D" : "W", "Noise", `n ${i}`);
  // Feed in odd-sized chunks so lines are cut between chunks.
  for (let i = 0; i < text.length; i += 4093) p.ingestText(text.slice(i, i + 4093));
  p.flush();
  const total = 500 + 5 + 20_000;
  assertEquals(p.lines, total);
  assertEquals(p.store.size, MIN_RING_ENTRIES);
  assertEquals(p.store.evicted, total - MIN_RING_ENTRIES);
  assertEquals(p.querySlots({ count: 10, onlyCrashes: true }).length, 0, "crash lines evicted");
  assertEquals(p.crashes.length, 1);
  const r = p.crashes[0];
  assertEquals(r.lines.length, 5);
  // Neither the lines before nor the noise after are the crashing process's or about it.
  assertEquals(r.contextBefore, []);
  assertEquals(r.contextAfter, []);
  const c = p.parsedOf(r);
  assertEquals([c.exception_type, c.package, c.first_app_frame?.method], [
    "java.lang.IllegalStateException",
    "com.example.app",
    "onClick",
  ]);
  const levels = p.store.levelCounts;
  assertEquals(levels[Level.D] + levels[Level.W], MIN_RING_ENTRIES);
});

Deno.test("DevicePipeline filters by level, tag, text, package and crash flag", () => {
  const p = new DevicePipeline("emu");
  p.applyProcessList([{ pid: 300, name: "com.example.app" }, { pid: 301, name: "com.other" }]);
  p.ingestText(
    line(1, 300, 300, "D", "App", "hello World") +
      line(2, 300, 300, "W", "App", "careful") +
      line(3, 301, 301, "E", "Other", "hello error") +
      line(4, 999, 999, "I", "Sys", "HELLO system"),
  );
  const msgs = (q: Parameters<DevicePipeline["querySlots"]>[0]) =>
    p.querySlots(q).map((s) => p.store.messageOf(s)).reverse();
  assertEquals(msgs({ count: 10, minLevel: Level.W }), ["careful", "hello error"]);
  assertEquals(msgs({ count: 10, tag: "App" }), ["hello World", "careful"]);
  assertEquals(msgs({ count: 10, text: "hello" }), ["hello World", "hello error", "HELLO system"]);
  assertEquals(msgs({ count: 10, package: "com.example.app" }), ["hello World", "careful"]);
  assertEquals(msgs({ count: 1, text: "hello" }), ["HELLO system"], "newest first, then count");
  assertEquals(msgs({ count: 10, text: "hello", minLevel: Level.E, package: "com.other" }), [
    "hello error",
  ]);
  const e = p.entryAt(p.querySlots({ count: 1, tag: "App" })[0]);
  assertEquals([e.package, e.process, e.level, e.category], [
    "com.example.app",
    "com.example.app",
    "W",
    "app",
  ]);
});

Deno.test("DevicePipeline attributes earlier lines when a crash names its process", () => {
  const p = new DevicePipeline("emu");
  p.ingestText(line(1, 5572, 5572, "D", "App", "before the crash"));
  assertEquals(p.entryAt(p.store.newestSlot()).package, null);
  p.ingestText(javaCrash(5572, "com.example.late", "run"));
  const first = p.entryAt(p.store.slot(0));
  assertEquals([first.message, first.package], ["before the crash", "com.example.late"]);
  assertEquals(p.querySlots({ count: 10, package: "com.example.late" }).length, 6);
  assertEquals(p.querySlots({ count: 10, onlyCrashes: true }).length, 5);
});

Deno.test("DevicePipeline learns pids from Start proc and keeps pid reuse apart", () => {
  const p = new DevicePipeline("emu");
  p.ingestText(
    line(1, 500, 510, "I", "ActivityManager", "Start proc 777:com.first/u0a1 for activity x") +
      line(2, 777, 777, "D", "T", "first") +
      line(3, 500, 510, "I", "ActivityManager", "Process com.first (pid 777) has died: fg") +
      line(4, 500, 510, "I", "ActivityManager", "Start proc 777:com.second/u0a2 for service y") +
      line(5, 777, 777, "D", "T", "second"),
  );
  const slots = p.querySlots({ count: 10, tag: "T" }).reverse();
  assertEquals(slots.map((s) => p.entryAt(s).package), ["com.first", "com.second"]);
});

Deno.test("DevicePipeline groups identical crashes and separates a different one", () => {
  const p = new DevicePipeline("emu");
  p.ingestText(javaCrash(10, "com.example.app", "onClick"));
  p.ingestText(line(1, 1, 1, "I", "x", "between"));
  p.ingestText(javaCrash(11, "com.example.app", "onClick"));
  p.ingestText(javaCrash(12, "com.example.app", "onLoad"));
  const ids = p.crashes.map((r) => p.groupOf(r));
  assertEquals(ids.length, 3);
  assertEquals(ids[0], ids[1]);
  assert(ids[0] !== ids[2]);
});

Deno.test("DevicePipeline merges libc's Fatal signal with the tombstone that follows", () => {
  const p = new DevicePipeline("emu");
  p.ingestText(
    line(
      1,
      4000,
      4010,
      "F",
      "libc",
      "Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 4010 (Thread-2), pid 4000 (com.example.nat)",
    ) +
      [
        "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
        "pid: 4000, tid: 4010, name: Thread-2  >>> com.example.nat <<<",
        "signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------",
        "Abort message: 'bad state'",
        "backtrace:",
        "      #00 pc 000000000004f8ec  /apex/com.android.runtime/lib64/bionic/libc.so (abort+164)",
        "      #01 pc 0000000000001234  /data/app/~~a==/com.example.nat-b==/lib/arm64/libnat.so (crash()+8)",
      ].map((m) => line(2, 4100, 4100, "F", "DEBUG", m)).join(""),
  );
  assertEquals(p.crashes.length, 1);
  const c = p.parsedOf(p.crashes[0]);
  assertEquals([c.exception_type, c.message, c.pid, c.package], [
    "SIGABRT",
    "bad state",
    4000,
    "com.example.nat",
  ]);
  assertEquals(c.first_app_frame?.symbol, "crash()");
});

Deno.test("DevicePipeline keeps continuation and malformed lines and detects JSON", () => {
  const p = new DevicePipeline("emu");
  p.ingestText("garbage before anything\n");
  p.ingestText(line(1, 42, 42, "I", "Net", 'payload {"a":1,"b":[2]}'));
  p.ingestText("  a continuation without prefix\r\n");
  p.ingestText("--------- beginning of main\n");
  assertEquals([p.malformed, p.continuation, p.dividers, p.store.size], [1, 1, 1, 3]);
  const all = p.querySlots({ count: 10 }).reverse().map((s) => p.entryAt(s));
  assertEquals(all[0].malformed, true);
  assertEquals(all[1].json, { a: 1, b: [2] });
  assertEquals([all[2].continuation, all[2].pid, all[2].tag], [true, 42, "Net"]);
});

Deno.test("DevicePipeline.clear() empties entries, crashes and counters", () => {
  const p = new DevicePipeline("emu");
  p.ingestText(javaCrash(10, "com.example.app", "onClick"));
  p.clear();
  assertEquals([p.store.size, p.crashes.length, p.lines, p.store.evicted], [0, 0, 0, 0]);
});

function at(clock: string, pid: number, level: string, tag: string, msg: string) {
  return `04-04 10:${clock} ${String(pid).padStart(5)} ${String(pid).padStart(5)} ${level} ${
    tag.padEnd(8)
  }: ${msg}\n`;
}

function crashAt(clock: string, pid: number, pkg: string): string {
  return [
    "FATAL EXCEPTION: main",
    `Process: ${pkg}, PID: ${pid}`,
    "java.lang.IllegalStateException: boom",
    `\tat ${pkg}.Main.onClick(Main.kt:10)`,
  ].map((m) => at(clock, pid, "E", "AndroidRuntime", m)).join("");
}

Deno.test("a crash's context is its process's lines and lines about it, near it in time", () => {
  const p = new DevicePipeline("emu");
  p.ingestText(
    at("53:10.000", 4242, "I", "NoteStore", "opened (long before: outside the window)") +
      at("53:30.000", 4242, "I", "NoteStore", "saving note 17") +
      at("53:30.500", 900, "I", "Chatty", "unrelated before") +
      crashAt("53:33.101", 4242, "com.example.notes") +
      at(
        "53:33.200",
        1500,
        "W",
        "ActivityManager",
        "  Force finishing activity com.example.notes/.ui.EditorActivity",
      ) +
      at("53:33.300", 900, "D", "Chatty", "unrelated after") +
      crashAt("53:33.500", 5151, "com.example.maps") +
      at(
        "53:33.600",
        1500,
        "I",
        "ActivityManager",
        "Process com.example.notes (pid 4242) has died: fg TOP",
      ) +
      at("53:34.000", 77, "I", "Other", "pid 42420 started (another process)") +
      at(
        "53:34.100",
        1500,
        "I",
        "ActivityManager",
        "Process com.example.maps (pid 5151) has died: fg TOP",
      ) +
      at("53:50.000", 4242, "I", "NoteStore", "late (after the window)"),
  );
  p.flush();
  const [notes, maps] = p.crashes;
  const msgs = (l: string[]) => l.map((x) => x.slice(x.indexOf(": ") + 2));
  assertEquals(msgs(notes.contextBefore), ["saving note 17"]);
  assertEquals(msgs(notes.contextAfter), [
    "  Force finishing activity com.example.notes/.ui.EditorActivity",
    "Process com.example.notes (pid 4242) has died: fg TOP",
  ]);
  assertEquals(msgs(maps.contextBefore), []);
  assertEquals(msgs(maps.contextAfter), ["Process com.example.maps (pid 5151) has died: fg TOP"]);
});

Deno.test("libc's Fatal signal line names the package, not the thread or a cut name", () => {
  const libc = (name: string) =>
    line(
      1,
      4000,
      4010,
      "F",
      "libc",
      `Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 4010 (RenderThread), pid 4000 (${name})`,
    );
  // The process list knows the process: the comm in the line (its last 15 characters) is not it.
  const p = new DevicePipeline("emu");
  p.applyProcessList([{ pid: 4000, name: "com.example.nativeapp" }]);
  p.ingestText(line(0, 4000, 4000, "I", "App", "starting") + libc("ple.nativeapp"));
  p.flush();
  const c = p.parsedOf(p.crashes[0]);
  assertEquals([c.process, c.package, c.thread, c.pid], [
    "com.example.nativeapp",
    "com.example.nativeapp",
    "RenderThread",
    4000,
  ]);
  const entries = p.querySlots({ count: 10 }).map((s) => p.entryAt(s));
  assert(entries.every((e) => e.package === "com.example.nativeapp"), JSON.stringify(entries));
  // Unknown process: a 15-character comm may be cut, so it names no package.
  const q = new DevicePipeline("emu");
  q.ingestText(libc("ple.nativeapp12"));
  q.flush();
  assertEquals(q.parsedOf(q.crashes[0]).package, null);
  const r = new DevicePipeline("emu");
  r.ingestText(libc("com.example.x"));
  r.flush();
  assertEquals(r.parsedOf(r.crashes[0]).package, "com.example.x");
});

Deno.test("DevicePipeline reads MediaTek's ANRManager report as an ANR of its process", () => {
  // The lines of the corpus's logcat/democode--anr-log.log (an MTK phone): no ActivityManager
  // report, no `PID:` line, `, time=` after the process.
  const p = new DevicePipeline("mtk");
  p.ingestText(
    [
      "ANR in jrdcom.com.anrdemo, time=73295979",
      "Reason: executing service jrdcom.com.anrdemo/com.android.tools.fd.runtime.InstantRunService",
      "Load: 8.84 / 8.79 / 8.43",
    ].map((m) => line(30, 1114, 1130, "E", "ANRManager", m)).join("") +
      line(31, 1114, 1130, "I", "ANRManager", "not a report: ANR in the middle"),
  );
  p.flush();
  assertEquals(p.crashes.map((r) => r.kind), ["anr"]);
  const c = p.parsedOf(p.crashes[0]);
  assertEquals(c.process, "jrdcom.com.anrdemo");
  assertEquals(c.package, "jrdcom.com.anrdemo");
  assertEquals(c.message?.startsWith("executing service jrdcom.com.anrdemo/"), true);
  // Newer MediaTek builds spell the tag AnrManager and write it at level I.
  const q = new DevicePipeline("mtk2");
  q.ingestText(
    [
      "ANR in com.tcl.android.launcher (com.tcl.android.launcher/.Launcher), time=17659496",
      "Reason: Input dispatching timed out (Application does not have a focused window).",
    ].map((m) => line(30, 1485, 7148, "I", "AnrManager", m)).join(""),
  );
  q.flush();
  assertEquals(q.crashes.map((r) => r.kind), ["anr"]);
  const d = q.parsedOf(q.crashes[0]);
  assertEquals([d.process, d.component], [
    "com.tcl.android.launcher",
    "com.tcl.android.launcher/.Launcher",
  ]);
});
