/**
 * Invariants of logcat ingest and crash grouping over every real capture in
 * tests/fixtures/corpus/logcat/ (public captures, sources in its SOURCES.md). Properties, not
 * snapshots: each file is read by a small independent reading (a regex per logcat format, a count
 * of crash headers) and fed through the real pipeline whole, in random chunks of bytes, with its
 * line ends changed and with a leading byte-order mark; every way must give the same entries and
 * the same crashes, and as many crashes as the file has crash headers.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  crashSignature,
  type Frame,
  FRAMEWORK_PREFIXES,
  parseCrash,
  type ParsedCrash,
} from "../../lib/logcat/crash_parser.ts";
import { DevicePipeline } from "../../lib/logcat/pipeline.ts";
import { MAX_CRASHES_PER_DEVICE } from "../../lib/logcat/crash_assembly.ts";
import { EntryFlag } from "../../lib/logcat/ring_store.ts";

const DIR = new URL("../fixtures/corpus/logcat/", import.meta.url);
const FILES = [...Deno.readDirSync(DIR)]
  .filter((e) => e.isFile && e.name.endsWith(".log"))
  .map((e) => e.name)
  .sort();
/** Java crash traces as printed (Android Studio's copy, a README), without logcat's prefix. */
const TRACE_DIR = new URL("traces/", DIR);
const TRACES = [...Deno.readDirSync(TRACE_DIR)]
  .filter((e) => e.isFile && e.name.endsWith(".txt"))
  .map((e) => e.name)
  .sort();

/** The file's text: a BOM says UTF-16 (PowerShell's `>` writes UTF-16LE with one), else UTF-8. */
function decodeFile(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  return new TextDecoder().decode(bytes);
}

interface Line {
  pid: number;
  level: string;
  tag: string;
  message: string;
}

// The independent reading: one regex per format logcat and Android Studio print.
const FORMATS = [
  // threadtime (with -v year, -v uid): `MM-DD HH:MM:SS.mmm  PID  TID L TAG: msg`
  /^(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,}\s+(?:\S+\s+)??(\d+)\s+\d+\s+([VDIWEFA])\s(.*?)\s*: (.*)$/,
  // time: `MM-DD HH:MM:SS.mmm L/TAG( PID): msg`
  /^(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,}\s+([VDIWEFA])\/(.*?)\(\s*(\d+)\): (.*)$/,
  // brief: `L/TAG( PID): msg`
  /^([VDIWEFA])\/(.*?)\(\s*(\d+)\): (.*)$/,
];

function readLine(raw: string): Line | null {
  const line = raw.replace(/\r+$/, "");
  let m = FORMATS[0].exec(line);
  if (m) return { pid: +m[1], level: m[2], tag: m[3].trim(), message: m[4] };
  m = FORMATS[1].exec(line) ?? FORMATS[2].exec(line);
  if (m) return { pid: +m[3], level: m[1], tag: m[2].trim(), message: m[4] };
  return null;
}

/** Who writes the ANR report: ActivityManager, or MediaTek's ANRManager (AnrManager) instead. */
const ANR_TAGS = new Set(["ActivityManager", "ANRManager", "AnrManager"]);

/** Crash headers by kind, as the independent reading counts them. */
function countHeaders(text: string): { java: number; anr: number; native: number } {
  let java = 0, anr = 0;
  const nativePids = new Set<number>();
  let tombstone = false;
  for (const raw of text.split("\n")) {
    const l = readLine(raw);
    if (l === null) continue;
    const msg = l.message.trim();
    if (l.tag === "AndroidRuntime" && /^(\*\*\* )?FATAL EXCEPTION/.test(msg)) java++;
    else if (ANR_TAGS.has(l.tag) && msg.startsWith("ANR in ")) anr++;
    else if (l.tag === "libc" && l.level === "F" && msg.startsWith("Fatal signal ")) {
      const m = /pid (\d+) \(/.exec(msg);
      nativePids.add(m ? +m[1] : l.pid);
    } else if (l.tag === "DEBUG" && l.level === "F" && msg.startsWith("*** *** ***")) {
      tombstone = true;
    } else if (tombstone && l.tag === "DEBUG" && /^pid: \d+, (ppid: \d+, )?tid: \d+/.test(msg)) {
      nativePids.add(+/^pid: (\d+)/.exec(msg)![1]);
      tombstone = false;
    }
  }
  return { java, anr, native: nativePids.size };
}

/**
 * Per tombstone, in order: the frames of its first backtrace as the independent reading counts
 * them (the reporter's `#NN pc` lines numbered on from #00, whatever other lines come between).
 */
function tombstoneFrames(text: string): number[] {
  const out: number[] = [];
  let who = "";
  let state: "none" | "header" | "frames" = "none";
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r+$/, "");
    const m = FORMATS[0].exec(line);
    const tt = m ? /^\S+ \S+\s+(\d+)\s+(\d+)/.exec(line) : null;
    const l = readLine(line);
    if (l === null || l.tag !== "DEBUG") continue;
    const key = tt ? `${tt[1]}/${tt[2]}` : `${l.pid}`;
    const msg = l.message.trim();
    if (l.level === "F" && msg.startsWith("*** *** ***")) {
      who = key;
      state = "header";
      out.push(0);
      continue;
    }
    if (key !== who || state === "none") continue;
    if (state === "header" && msg === "backtrace:") state = "frames";
    else if (state === "frames") {
      const f = /^#(\d+) pc /.exec(msg);
      if (f && +f[1] === out[out.length - 1]) out[out.length - 1]++;
      else if (out[out.length - 1] > 0) state = "none";
    }
  }
  return out;
}

/**
 * Each ANR report as `process|reason`: the `ANR in <process>` line (`, time=…` after it on
 * MediaTek) and the first `Reason:` line the same thread writes after it (null when none comes
 * before its next report).
 */
function anrReports(text: string): string[] {
  const out: string[] = [];
  const open = new Map<string, number>();
  for (const raw of text.split("\n")) {
    const l = readLine(raw);
    if (l === null || !ANR_TAGS.has(l.tag)) continue;
    const tt = /^\S+ \S+\s+(\d+)\s+(\d+)/.exec(raw);
    const who = tt ? `${tt[1]}/${tt[2]}` : `${l.pid}`;
    const msg = l.message.trim();
    const m = /^ANR in ([^\s,]+)/.exec(msg);
    if (m) {
      open.set(who, out.length);
      out.push(`${m[1]}|null`);
    } else if (msg.startsWith("Reason: ") && open.has(who)) {
      const i = open.get(who)!;
      out[i] = out[i].replace(/\|null$/, `|${msg.slice(8).trim()}`);
      open.delete(who);
    }
  }
  return out;
}

const THREADTIME_PREFIX =
  /^((?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d{3,})(\s+)(\d+)(\s+)(\d+) ([VDIWEFA]) (DEBUG\s*): /;

/**
 * The capture with foreign lines in each threadtime tombstone's backtrace, or null when it has
 * none: another process's `I` line after `backtrace:`, the reporter's empty `E DEBUG` line after
 * `#01`.
 */
function interleaveTombstones(text: string): string | null {
  let changed = false;
  const out: string[] = [];
  for (const line of text.split("\n")) {
    out.push(line);
    const m = THREADTIME_PREFIX.exec(line);
    if (m === null) continue;
    const msg = line.slice(m[0].length).trim();
    if (msg === "backtrace:") {
      out.push(`${m[1]}${m[2]}99999${m[4]}99999 I ForeignTag: a line of another process`);
      changed = true;
    } else if (/^#01 pc /.test(msg)) {
      out.push(`${m[1]}${m[2]}${m[3]}${m[4]}${m[5]} E ${m[7]}: `);
      changed = true;
    }
  }
  return changed ? out.join("\n") : null;
}

/** Every frame of a crash: its own, its causes', the suppressed ones' and their causes'. */
function allFrames(c: ParsedCrash): Frame[] {
  return [
    c.frames,
    ...c.causes.map((x) => x.frames),
    ...c.suppressed.flatMap((x) => [x.frames, ...x.causes.map((y) => y.frames)]),
  ].flat();
}

/** A name R8 or ProGuard gave, read here on its own: each part between dots and `$` ≤ 2 chars. */
function renamedClass(cls: string): boolean {
  return cls.includes(".") && cls.split(/[.$]/).filter((p) => p !== "").every((p) => p.length <= 2);
}

/**
 * The app's frames are never the platform's, a library's or a JDK proxy; and when some frame is
 * in the app's package (the app kept its names), a renamed class outside it is library code R8
 * renamed, not the app's, and the first app frame is in the package.
 */
function assertAppFrames(parsed: ParsedCrash): void {
  const pkg = parsed.package;
  const own = (cls: string) => pkg !== null && cls.startsWith(pkg + ".");
  const frames = allFrames(parsed);
  const named = frames.some((f) => f.class !== null && own(f.class));
  const main = [parsed.frames, ...parsed.causes.map((x) => x.frames)].flat();
  const mainNamed = main.some((f) => f.class !== null && own(f.class));
  for (const f of frames) {
    if (!f.app || f.class === null || own(f.class)) continue;
    assert(
      !FRAMEWORK_PREFIXES.some((x) => f.class!.startsWith(x)),
      `${f.class} marked as the app's`,
    );
    assert(!/\$Proxy\d+$/.test(f.class), `${f.class} (a JDK proxy) marked as the app's`);
    assert(
      !named || !renamedClass(f.class),
      `${f.class} (renamed library code) marked as the app's`,
    );
  }
  const first = parsed.first_app_frame?.class ?? null;
  if (mainNamed) assert(first !== null && own(first), `first app frame ${first}, not in ${pkg}`);
}

interface Reading {
  entries: number;
  /** Entries read as log lines (not continuations of one, not malformed). */
  logLines: number;
  messages: string;
  crashes: string[];
  /** Frames of each crash read from a tombstone, in order. */
  tombstoneFrames: number[];
  kinds: { java: number; anr: number; native: number };
  /** Each ANR as `process|reason`, in order, and its group. */
  anrs: { key: string; group: string }[];
  sigToGroup: Map<string, string>;
  groupToSig: Map<string, string>;
}

function ingest(feed: (p: DevicePipeline) => void): Reading {
  const p = new DevicePipeline("corpus");
  feed(p);
  p.flush();
  const s = p.store;
  const msgs: string[] = [];
  let logLines = 0;
  for (let i = 0; i < s.size; i++) {
    const slot = s.slot(i);
    msgs.push(s.messageOf(slot));
    if ((s.flags[slot] & (EntryFlag.continuation | EntryFlag.malformed)) === 0) logLines++;
  }
  const kinds = { java: 0, anr: 0, native: 0 };
  const sigToGroup = new Map<string, string>();
  const groupToSig = new Map<string, string>();
  const crashes = p.crashes.map((r) => {
    kinds[r.kind]++;
    const parsed = p.parsedOf(r);
    assertAppFrames(parsed);
    const sig = crashSignature(parsed);
    const g = p.groupOf(r);
    sigToGroup.set(sig, sigToGroup.get(sig) ?? g);
    groupToSig.set(g, groupToSig.get(g) ?? sig);
    assertEquals(sigToGroup.get(sig), g, "one signature, one group");
    assertEquals(groupToSig.get(g), sig, "one group, one signature");
    return `${r.kind}|${g}|${r.lines.length}|${r.lines.join("\n")}`;
  });
  const frames = p.crashes.filter((r) => r.tombstone).map((r) => p.parsedOf(r).frames.length);
  const anrs = p.crashes.filter((r) => r.kind === "anr").map((r) => {
    const c = p.parsedOf(r);
    return { key: `${c.process}|${c.message}`, group: p.groupOf(r) };
  });
  return {
    entries: s.size,
    logLines,
    messages: msgs.join("\n"),
    crashes,
    tombstoneFrames: frames,
    kinds,
    anrs,
    sigToGroup,
    groupToSig,
  };
}

/** A small deterministic generator (mulberry32), seeded per file. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h;
}

/** Feeds UTF-8 bytes in random chunks through a streaming decoder, as the logcat worker does. */
function feedChunks(p: DevicePipeline, bytes: Uint8Array, next: () => number): void {
  const decoder = new TextDecoder();
  for (let at = 0; at < bytes.length;) {
    const n = 1 + Math.floor(next() * (next() < 0.2 ? 16 : 8192));
    const text = decoder.decode(bytes.subarray(at, at + n), { stream: true });
    if (text) p.ingestText(text);
    at += n;
  }
  const tail = decoder.decode();
  if (tail) p.ingestText(tail);
}

Deno.test("the logcat corpus holds at least 80 real captures", () => {
  assert(FILES.length >= 80, `${FILES.length} captures`);
  const sources = Deno.readTextFileSync(new URL("SOURCES.md", DIR));
  const named = new Set([...sources.matchAll(/^\| (\S+) +\|/gm)].map((m) => m[1]));
  for (const f of [...FILES, ...TRACES]) assert(named.has(f), `${f} has no row in SOURCES.md`);
});

for (const name of FILES) {
  Deno.test(`logcat ingest invariants: logcat/${name}`, () => {
    const text = decodeFile(Deno.readFileSync(new URL(name, DIR)));
    const whole = ingest((p) => p.ingestText(text));

    // Every line written as a log line (threadtime, time, brief) is read as one.
    const logLines = text.split("\n").filter((l) => readLine(l) !== null).length;
    assertEquals(whole.logLines, logLines, "log lines stored as entries");

    // Each crash header yields exactly one crash of its kind.
    const expected = countHeaders(text);
    const total = expected.java + expected.anr + expected.native;
    if (total <= MAX_CRASHES_PER_DEVICE) {
      assertEquals(whole.kinds, expected, "crashes by kind vs. crash headers in the file");
    }

    // Each ANR keeps its process and its own reason; the ANRs of one process are one group,
    // whatever their reasons (the group counts each reason: lib/logcat/shared/anr_reasons.ts).
    if (total <= MAX_CRASHES_PER_DEVICE) {
      assertEquals(whole.anrs.map((a) => a.key), anrReports(text), "ANR process and reason");
      const byProcess = new Map<string, string>();
      for (const a of whole.anrs) {
        const proc = a.key.slice(0, a.key.indexOf("|"));
        assertEquals(byProcess.get(proc) ?? a.group, a.group, `ANRs of ${proc}: one group`);
        byProcess.set(proc, a.group);
      }
    }

    // A tombstone keeps its whole backtrace, whatever lines come between its frames.
    if (total <= MAX_CRASHES_PER_DEVICE) {
      assertEquals(whole.tombstoneFrames, tombstoneFrames(text), "frames of each tombstone");
    }

    // Lines interleaved in a tombstone (another process's line right after `backtrace:`, an
    // empty `E DEBUG` line of the reporter between frames) change neither its frames nor its group.
    const lf = text.replace(/\r+\n/g, "\n");
    const noisy = interleaveTombstones(lf);
    if (noisy !== null) {
      const n = ingest((p) => p.ingestText(noisy));
      assertEquals(n.tombstoneFrames, whole.tombstoneFrames, "tombstone frames, lines interleaved");
      assertEquals(
        n.crashes.map((c) => c.split("|")[1]),
        whole.crashes.map((c) => c.split("|")[1]),
        "crash groups, lines interleaved",
      );
    }

    // Nothing is lost across chunk cuts (bytes cut anywhere, even inside a character).
    const utf8 = new TextEncoder().encode(lf);
    const chunked = ingest((p) => feedChunks(p, utf8, random(seedOf(name))));
    assertEquals(chunked.entries, whole.entries, "entries, fed in chunks");
    assert(chunked.messages === whole.messages, "messages, fed in chunks");
    assertEquals(chunked.crashes, whole.crashes, "crashes, fed in chunks");

    // Line ends change nothing, and no message keeps a carriage return.
    const crlf = ingest((p) => p.ingestText(lf.replace(/\n/g, "\r\n")));
    assert(!crlf.messages.includes("\r"), "a message kept a carriage return");
    assertEquals(crlf.entries, whole.entries, "entries, CRLF");
    assert(crlf.messages === whole.messages, "messages, CRLF");
    assertEquals(crlf.crashes, whole.crashes, "crashes, CRLF");

    // A byte-order mark before the first line (a UTF-8 file saved by an editor, a UTF-16 one
    // decoded without stripping it) changes nothing either.
    const bom = ingest((p) => p.ingestText("\ufeff" + lf));
    assertEquals(bom.entries, whole.entries, "entries, after a BOM");
    assert(bom.messages === whole.messages, "messages, after a BOM");
    assertEquals(bom.crashes, whole.crashes, "crashes, after a BOM");
  });
}

Deno.test("the logcat corpus covers each kind of capture the invariants are about", () => {
  const seen = { java: 0, anr: 0, native: 0, tombstone: 0, brief: 0, crlf: 0, utf16: 0 };
  for (const name of FILES) {
    const bytes = Deno.readFileSync(new URL(name, DIR));
    const text = decodeFile(bytes);
    const h = countHeaders(text);
    if (h.java > 0) seen.java++;
    if (h.anr > 0) seen.anr++;
    if (h.native > 0) seen.native++;
    if (tombstoneFrames(text).some((n) => n > 0)) seen.tombstone++;
    if (/^[VDIWEFA]\/.*\(\s*\d+\): /m.test(text)) seen.brief++;
    if (text.includes("\r\n")) seen.crlf++;
    if (bytes[0] === 0xff && bytes[1] === 0xfe) seen.utf16++;
  }
  for (const [k, v] of Object.entries(seen)) assert(v >= 1, `no capture with ${k}`);
});

Deno.test("WindowManager's `ANR in Window{…}. Reason:` is a notice, not an ANR report", () => {
  // AOSP's AnrController logs it when input dispatching times out, then hands the timeout to
  // ActivityManager, which writes the ANR report (`ANR in <process>` / `PID:` / `Reason:`) or
  // skips it (`Crashing app skipping ANR: …`, `Skipping duplicate ANR: …`). Read as an ANR, it
  // would count every input ANR twice; here ActivityManager skipped it (the app was crashing).
  const name = "albacontrol-ia--live-app-log-txt.log";
  const text = decodeFile(Deno.readFileSync(new URL(name, DIR)));
  assert(/I\/WindowManager\(\s*\d+\): ANR in Window\{[^}]*\}\. Reason:/.test(text), name);
  assert(text.includes("I/ActivityManager( 1829): Crashing app skipping ANR: "), name);
  const r = ingest((p) => p.ingestText(text));
  assertEquals(r.kinds, { ...countHeaders(text), anr: 0 });
});

for (const name of TRACES) {
  Deno.test(`crash trace invariants: logcat/traces/${name}`, () => {
    const text = Deno.readTextFileSync(new URL(name, TRACE_DIR));
    // Android Studio's copy keeps its own prefix on the header line (`… E/AndroidRuntime: `).
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "")
      .map((l) => l.replace(/^.*?\bE\/AndroidRuntime: /, ""));
    const c = parseCrash("java", lines);

    // The package is the `Process:` line's; every `at ` line is one frame.
    const proc = /^\s*Process: ([\w.]+)/m.exec(text);
    assertEquals(c.package, proc ? proc[1] : null, "package");
    const ats = lines.filter((l) => /^\s*at /.test(l)).length;
    assertEquals(allFrames(c).length, ats, "frames vs. `at` lines");
    assertAppFrames(c);

    // The same lines written by AndroidRuntime in a threadtime capture give the same crash.
    const log = lines.map((l) => `01-01 00:00:00.000  4242  4242 E AndroidRuntime: ${l}`);
    const p = new DevicePipeline("corpus");
    p.ingestText(log.join("\n") + "\n");
    p.flush();
    assertEquals(p.crashes.length, 1, "one crash");
    const piped = p.parsedOf(p.crashes[0]);
    assertEquals(crashSignature(piped), crashSignature(c), "signature, through the pipeline");
    assertEquals(piped.first_app_frame?.raw ?? null, c.first_app_frame?.raw ?? null);
    assertAppFrames(piped);
  });
}
