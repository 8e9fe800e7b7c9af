/**
 * The crash-context scan remembers what it read of each slot and block across crashes
 * (lib/logcat/context_scan.ts); that must never change an answer. Every crash's context before it
 * is compared with a plain scan of the ring written here from the rule (the crashing process's
 * lines, and other lines naming its pid or process name, newest CRASH_CONTEXT_BEFORE within
 * CRASH_CONTEXT_WINDOW_MS and CRASH_CONTEXT_SCAN_LINES entries), on the real captures cycled
 * through a ring that wraps, with lines naming the crashing processes mixed in, through a clear
 * and two resizes.
 */
import { assert, assertEquals } from "../assert.ts";
import { clockMs } from "../../lib/logcat/log_clock.ts";
import {
  CRASH_CONTEXT_BEFORE,
  CRASH_CONTEXT_SCAN_LINES,
  CRASH_CONTEXT_WINDOW_MS,
  formatLine,
} from "../../lib/logcat/crash_context.ts";
import type { CrashRecord } from "../../lib/logcat/crash_record.ts";
import { DevicePipeline } from "../../lib/logcat/pipeline.ts";
import { HAVE_REAL, REAL_LOGCAT } from "./_fixtures.ts";

/** Lines of other processes between a crash and the lines about it (three 128-entry blocks). */
const FILLER_LINES = 384;

function realLines(): string[] {
  const out: string[] = [];
  if (!HAVE_REAL) return out;
  for (const f of [...Deno.readDirSync(REAL_LOGCAT)].map((e) => e.name).sort()) {
    if (!f.endsWith(".txt")) continue;
    for (const l of Deno.readTextFileSync(new URL(f, REAL_LOGCAT)).split("\n")) {
      const t = l.replace(/\r+$/, "");
      if (/^\d\d-\d\d \d\d:\d\d:\d\d\.\d+ +\d+ +\d+ [VDIWEF] /.test(t)) out.push(t);
    }
  }
  return out;
}

/** mentionsPid's rule as one pattern: `(` or `pid` + one of ` :=` + an optional space. */
function names(message: string, pid: number): boolean {
  return new RegExp(`(?:\\(|pid[ :=]\\s?)${pid}(?!\\d)`, "i").test(message);
}

/** The context before a crash whose first line is the newest stored entry. */
function expectedBefore(p: DevicePipeline, r: CrashRecord, sizeBefore: number): string[] {
  const s = p.store;
  const proc = p.procs.of(r.pid);
  const name = proc >= 0 && p.procs.names[proc].length > 3 ? p.procs.names[proc] : null;
  const out: string[] = [];
  const newest = s.size - 2;
  const n = Math.min(sizeBefore, CRASH_CONTEXT_SCAN_LINES);
  for (let i = newest; i > newest - n && out.length < CRASH_CONTEXT_BEFORE; i--) {
    const slot = s.slot(i);
    const at = clockMs(s.timeOf(slot));
    if (at !== null && r.clock !== null && r.clock - at > CRASH_CONTEXT_WINDOW_MS) break;
    const pid = s.pid[slot];
    const m = s.messageOf(slot);
    const own = pid === r.pid || (r.kind !== "anr" && pid === r.reporterPid);
    if (!own && !(r.pid > 0 && names(m, r.pid)) && !(name !== null && m.includes(name))) continue;
    out.push(formatLine(s.timeOf(slot), pid, s.tid[slot], s.level[slot], s.tag[slot], m));
  }
  return out.reverse();
}

Deno.test("a crash's context before it equals a plain scan of the ring, through wraps, clear, resize", () => {
  const real = realLines();
  if (real.length === 0) return;
  const p = new DevicePipeline("emu", { capacity: 20_000 });
  let lastId = 0;
  let checked = 0;
  let withContext = 0;
  const total = 90_000;
  for (let k = 0; k < total; k++) {
    if (k === 30_000) p.clear();
    if (k === 50_000) p.store.resize(26_000);
    if (k === 70_000) p.store.resize(21_000);
    let l = real[k % real.length];
    // A recent crash (its process will crash again when the captures come round).
    const last = p.crashes.at(-1 - ((k / 37) % Math.max(1, p.crashes.length)));
    if (k % 37 === 0 && last && last.pid > 0) {
      // Lines of other processes naming a recent crash's process, in the forms the rule reads.
      const pid = last.pid;
      const proc = p.procs.of(pid);
      const name = proc >= 0 ? p.procs.names[proc] : "com.example.none";
      const forms = [
        `Process x (pid ${pid}) has died`,
        `Killing PID: ${pid}`,
        `pid=${pid}1 no`,
        `Force finishing activity ${name}/.MainActivity`,
        `pid:\u2003${pid} after an em space`,
        `PiD\t${pid} (${pid + 1})`,
        `(${pid})`,
      ];
      l = `${l.slice(0, 18)}  1500  1600 I ActivityManager: ${forms[(k / 37) % forms.length]}`;
    }
    const sizeBefore = p.store.size;
    p.ingestLine(l);
    const r = p.crashes.at(-1);
    if (r && r.id > lastId) {
      lastId = r.id;
      assertEquals(r.contextBefore, expectedBefore(p, r, sizeBefore), `crash ${r.id} at line ${k}`);
      checked++;
      if (r.contextBefore.length > 0) withContext++;
    }
  }
  assert(checked > 500, `crashes checked: ${checked}`);
  assert(withContext > 50, `crashes with a context: ${withContext} of ${checked}`);
});

Deno.test("a line naming a process, written after the last crash's scan, is in the next crash's context", () => {
  const p = new DevicePipeline("emu");
  const at = (t: string, pid: number, tag: string, msg: string) =>
    `04-04 10:53:${t}  ${pid}  ${pid} ${tag === "AndroidRuntime" ? "E" : "I"} ${tag}: ${msg}\n`;
  const crash = (t: string) =>
    at(t, 4242, "AndroidRuntime", "FATAL EXCEPTION: main") +
    at(t, 4242, "AndroidRuntime", "Process: com.example.notes, PID: 4242") +
    at(t, 4242, "AndroidRuntime", "java.lang.IllegalStateException: boom");
  p.ingestText(
    at("30.000", 1500, "ActivityManager", "Start proc 4242:com.example.notes/u0a12 for activity") +
      crash("31.000") +
      at("31.500", 1500, "WindowManager", "Force finishing activity com.example.notes/.Main") +
      at("31.600", 1500, "ActivityManager", "Killing pid 4242 (crash loop)") +
      crash("32.000"),
  );
  assertEquals(p.crashes.length, 2);
  const msgs = p.crashes[1].contextBefore.map((x) => x.slice(x.indexOf(": ") + 2));
  assert(msgs.includes("Force finishing activity com.example.notes/.Main"), msgs.join(" | "));
  assert(msgs.includes("Killing pid 4242 (crash loop)"), msgs.join(" | "));
});

Deno.test("lines about a crash hundreds of lines back are found", () => {
  const p = new DevicePipeline("emu");
  const at = (t: string, pid: number, tag: string, msg: string, level = "I") =>
    `04-04 10:53:${t}  ${pid}  ${pid} ${level} ${tag}: ${msg}\n`;
  let text = at("30.000", 1500, "ActivityManager", "Waiting for the broadcast to finish") +
    at("30.001", 2100, "Watchdog", "blocked in handler (pid 1500)") +
    at("30.002", 2100, "Binder", "pid: 3100 holds the lock");
  // Three blocks' worth of lines of other processes, none about either crash.
  for (let k = 0; k < FILLER_LINES; k++) {
    text += at(`30.${String(100 + k).padStart(3, "0")}`, 2200 + (k % 50), "Filler", `line ${k}`);
  }
  // An ANR (reported by pid 1500, not its own) and a crash of a process whose name is unknown.
  text += at("31.000", 1500, "ActivityManager", "ANR in com.example.slow", "E");
  text += at("31.100", 3100, "libc", "Fatal signal 11 (SIGSEGV), code 1 in tid 3100", "F");
  p.ingestText(text);
  const [anr, native] = p.crashes;
  const msgs = (r: CrashRecord) => r.contextBefore.map((x) => x.slice(x.indexOf(": ") + 2));
  assertEquals(msgs(anr).slice(0, 2), [
    "Waiting for the broadcast to finish",
    "blocked in handler (pid 1500)",
  ]);
  assert(msgs(native).includes("pid: 3100 holds the lock"), msgs(native).join(" | "));
});
