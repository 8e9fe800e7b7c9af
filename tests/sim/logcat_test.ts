/**
 * The simulated logcat over the real wire: `logcat` options, live streaming that stops when the
 * stream closes, scripted crashes, replays of every real capture, and the real `adb` client.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { RawClient } from "./_raw_client.ts";
import { startSimulator } from "./mod.ts";
import type { LogcatService } from "./logcat/service.ts";
import { parseLogText, splitLines } from "./logcat/replay.ts";
import { waitUntil } from "../wait.ts";

const dec = new TextDecoder();
const EMU = "emulator-5554";
const THREADTIME = /^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {1,5}\d{1,5} {1,5}\d{1,5} [VDIWEF] .*?: /;
const FIXTURES = new URL("../../../shared/fixtures/real/logcat/", import.meta.url);
const haveFixtures = (() => {
  try {
    return Deno.statSync(FIXTURES).isDirectory;
  } catch {
    return false;
  }
})();
if (!haveFixtures) {
  console.error("logcat_test: ../shared/fixtures/real/logcat absent: skipping replays");
}

async function exec(port: number, serial: string, cmd: string): Promise<string> {
  using c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(`exec:${cmd}`);
  const all = dec.decode(await c.readAll());
  assert(all.startsWith("OKAY"), `service refused: ${all}`);
  return all.slice(4);
}

/** A quiet device: no background traffic, a known set of entries. */
async function quietSim() {
  const sim = await startSimulator();
  for (const d of sim.devices) sim.device(d.serial).service<LogcatService>("logcat")!.setRate(0);
  const svc = sim.device(EMU).service<LogcatService>("logcat")!;
  svc.setTimeZone("UTC");
  return { sim, svc, log: sim.device(EMU).log };
}

Deno.test("logcat -d prints every buffered entry in threadtime with buffer separators", async () => {
  const { sim, svc, log } = await quietSim();
  await using _ = sim;
  log.clear();
  svc.emitTraffic(50);
  const out = await exec(sim.port, EMU, "logcat -d");
  const lines = out.split("\n").filter(Boolean);
  const entries = lines.filter((l) => !l.startsWith("--------- "));
  const expected = log.entries().filter((e) => ["main", "system", "crash"].includes(e.buffer));
  assertEquals(entries.length, expected.length);
  for (const l of entries) assertMatch(l, THREADTIME);
  assert(lines.includes("--------- beginning of main"));
  const first = expected[0];
  assertEquals(
    entries[0],
    `${new Date(first.time).toISOString().slice(5, 10)} ${
      new Date(first.time).toISOString().slice(11, 23)
    } ${String(first.pid).padStart(5)} ${String(first.tid).padStart(5)} ${first.level} ${
      first.tag.padEnd(8)
    }: ${first.message}`,
  );
  // Each separator names the buffer of the line after it, once per buffer.
  const seps = lines.filter((l) => l.startsWith("--------- "));
  assertEquals(seps.length, new Set(seps).size);
});

Deno.test("logcat -t N, -T count/time, -s filterspecs, --pid, -e, -m, -b", async () => {
  const { sim, svc, log } = await quietSim();
  await using _ = sim;
  log.clear();
  const base = Date.UTC(2026, 0, 2, 3, 4, 5, 0);
  for (let k = 0; k < 20; k++) {
    log.append({
      time: base + k * 1000,
      pid: 100 + (k % 3),
      level: k % 2 ? "I" : "D",
      tag: k % 4 ? "Alpha" : "Beta",
      message: `m${k}`,
    });
  }
  const msgs = (out: string) =>
    out.split("\n").filter((l) => l && !l.startsWith("---")).map((l) => l.split(": ").pop());
  assertEquals(msgs(await exec(sim.port, EMU, "logcat -t 3")), ["m17", "m18", "m19"]);
  assertEquals(msgs(await exec(sim.port, EMU, "logcat -d -T 2")), ["m18", "m19"]);
  assertEquals(
    msgs(await exec(sim.port, EMU, "logcat -d -T '01-02 03:04:22.000'")),
    ["m17", "m18", "m19"],
  );
  assertEquals(
    msgs(await exec(sim.port, EMU, `logcat -d -T ${(base + 18_000) / 1000}.000`)),
    ["m18", "m19"],
  );
  assertEquals(
    msgs(await exec(sim.port, EMU, "logcat -d -s Beta:D")),
    ["m0", "m4", "m8", "m12", "m16"],
  );
  assertEquals(msgs(await exec(sim.port, EMU, "logcat -d Alpha:I '*:S'")), [
    "m1",
    "m3",
    "m5",
    "m7",
    "m9",
    "m11",
    "m13",
    "m15",
    "m17",
    "m19",
  ]);
  assertEquals(msgs(await exec(sim.port, EMU, "logcat -d --pid=102")), [
    "m2",
    "m5",
    "m8",
    "m11",
    "m14",
    "m17",
  ]);
  assertEquals(msgs(await exec(sim.port, EMU, "logcat -d -e 'm1[0-2]$'")), ["m10", "m11", "m12"]);
  assertEquals(msgs(await exec(sim.port, EMU, "logcat -m 2")), ["m0", "m1"]);
  assertEquals(await exec(sim.port, EMU, "logcat -d -b radio"), "");
  const time = await exec(sim.port, EMU, "logcat -d -v time -t 1");
  assertEquals(time, "--------- beginning of main\n01-02 03:04:24.000 I/Alpha   (  101): m19\n");
  const epoch = await exec(sim.port, EMU, "logcat -d -v epoch -t 1");
  assertMatch(epoch.split("\n")[1], /^ {9}\d{10}\.000 {3}101 {3}101 I Alpha {3}: m19$/);
  // A bad option: logcat's error (exec: carries stderr too), no log lines.
  assertEquals(
    await exec(sim.port, EMU, "logcat -d -v bogus"),
    'logcat: Invalid parameter "bogus" to -v\n',
  );
  svc.setRate(0);
});

Deno.test("logcat -c clears the selected buffers; -g reports the ring buffers", async () => {
  const { sim, svc, log } = await quietSim();
  await using _ = sim;
  svc.emitTraffic(200);
  assert(log.entries().some((e) => e.buffer === "radio"));
  assertEquals(await exec(sim.port, EMU, "logcat -c"), "");
  assertEquals(await exec(sim.port, EMU, "logcat -d"), "");
  // radio/events were not selected: they are kept.
  assert((await exec(sim.port, EMU, "logcat -d -b radio")).includes("RILJ"));
  const g = await exec(sim.port, EMU, "logcat -g");
  assertEquals(g.split("\n").filter(Boolean).length, 3);
  assertMatch(
    g.split("\n")[0],
    /^main: ring buffer is 256 KiB \(\d+ KiB consumed\), max entry is 5120 B, max payload is 4068 B$/,
  );
  assertEquals(await exec(sim.port, EMU, "logcat -b all -c"), "");
  assertEquals(log.entries().length, 0);
});

/** Reads shell v2 stdout packets until `enough` says stop. */
async function readV2Until(c: RawClient, enough: (text: string) => boolean): Promise<string> {
  let text = "";
  while (!enough(text)) {
    const head = await c.read(5);
    const len = new DataView(head.buffer, head.byteOffset).getUint32(1, true);
    const body = await c.read(len);
    if (head[0] === 1) text += dec.decode(body);
    if (head[0] === 3) break;
  }
  return text;
}

Deno.test("live logcat streams new entries at high rates and stops when the stream closes", async () => {
  const { sim, svc } = await quietSim();
  await using _ = sim;
  const c = await RawClient.connect(sim.port);
  await c.request(`host:transport:${EMU}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request("shell,v2,raw:logcat -v threadtime -T 1");
  assertEquals(await c.readText(4), "OKAY");
  await waitUntil(() => svc.liveStreams > 0, "the logcat stream to open");
  assertEquals(svc.liveStreams, 1);
  svc.setRate(50_000);
  const wanted = 20_000;
  const text = await readV2Until(c, (t) => t.split("\n").length > wanted);
  svc.setRate(0);
  const lines = text.split("\n").filter((l) => l && !l.startsWith("--------- "));
  assert(lines.length >= wanted, `got ${lines.length}`);
  for (const l of lines.slice(0, -1)) assertMatch(l, THREADTIME);
  c.close();
  await waitUntil(() => svc.liveStreams === 0, "the logcat stream to end");
  assertEquals(svc.liveStreams, 0);
});

Deno.test("simctl crash java: FATAL EXCEPTION with causes in the crash buffer, restart under a new pid", async () => {
  const { sim, svc, log } = await quietSim();
  await using _ = sim;
  log.clear();
  assertEquals(await exec(sim.port, EMU, "simctl crash com.example.shop java"), "");
  const out = await exec(sim.port, EMU, "logcat -d -b crash");
  const lines = out.split("\n").filter(Boolean);
  assertEquals(lines[0], "--------- beginning of crash");
  const body = lines.slice(1);
  // One group: same pid/tid/tag on every line, as a parser groups it.
  const prefix = /^\S+ \S+ +(\d+) +(\d+) E AndroidRuntime: (.*)$/;
  const parsed = body.map((l) => prefix.exec(l));
  assert(parsed.every((m) => m !== null), out);
  assertEquals(new Set(parsed.map((m) => m![1])).size, 1);
  const msgs = parsed.map((m) => m![3]);
  assertEquals(msgs[0], "FATAL EXCEPTION: main");
  const pid = Number(parsed[0]![1]);
  assertEquals(msgs[1], `Process: com.example.shop, PID: ${pid}`);
  assertEquals(msgs.filter((m) => m.startsWith("Caused by: ")).length, 2);
  assert(msgs.some((m) => /^\t\.\.\. \d+ more$/.test(m)));
  assert(msgs.some((m) => m.includes("at com.example.shop.MainActivity.onCreate(")));
  const all = await exec(sim.port, EMU, "logcat -d");
  assert(all.includes(`Process com.example.shop (pid ${pid}) has died`));
  const starts = [...all.matchAll(/Start proc (\d+):com\.example\.shop\/u0a\d+ for (\S+)/g)];
  assertEquals(starts.length, 2);
  assertEquals(Number(starts[0][1]), pid);
  assert(Number(starts[1][1]) !== pid);
  assertEquals(starts[1][2], "next-top-activity");
  // The same script twice gives the same stack (a crash group), a new pid.
  const again = svc.crash("com.example.shop", "java");
  assertEquals(again.pid, Number(starts[1][1]));
  assert(again.restartedPid !== null && again.restartedPid !== again.pid);
});

Deno.test("simctl crash anr and native: ANR block with reason; Fatal signal and tombstone", async () => {
  const { sim, log } = await quietSim();
  await using _ = sim;
  log.clear();
  assertEquals(await exec(sim.port, EMU, "simctl crash com.example.shop anr"), "");
  let out = await exec(sim.port, EMU, "logcat -d -s ActivityManager:E");
  assertMatch(
    out,
    /E ActivityManager: ANR in com\.example\.shop \(com\.example\.shop\/\.MainActivity\)\n/,
  );
  assertMatch(out, /E ActivityManager: PID: \d+\n/);
  assertMatch(out, /E ActivityManager: Reason: Input dispatching timed out \(/);
  log.clear();
  // A service timeout names no activity (ActivityManager has none to name).
  assertEquals(await exec(sim.port, EMU, "simctl crash com.example.shop anr service"), "");
  out = await exec(sim.port, EMU, "logcat -d -s ActivityManager:E");
  assertMatch(out, /E ActivityManager: ANR in com\.example\.shop\n/);
  assertMatch(
    out,
    /E ActivityManager: Reason: executing service com\.example\.shop\/\.SyncService\n/,
  );
  log.clear();
  assertEquals(await exec(sim.port, EMU, "simctl crash com.example.shop native"), "");
  out = await exec(sim.port, EMU, "logcat -d -b crash");
  assertMatch(
    out,
    /F libc {4}: Fatal signal 11 \(SIGSEGV\), code 1 \(SEGV_MAPERR\), fault addr 0x0 in tid \d+ \(Thread-4\), pid \d+ \(com\.example\.shop\)\n/,
  );
  assert(
    out.includes("F DEBUG   : *** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***\n"),
  );
  assert(out.includes("F DEBUG   : backtrace:\n"));
  assertMatch(out, /F DEBUG {3}: {7}#00 pc [0-9a-f]{16} {2}\/data\/app\/.*libsample\.so/);
  assertMatch(out, /F DEBUG {3}: ABI: 'x86_64'/);
  // Refusals: usage errors change nothing.
  const before = log.entries().length;
  const usage = "simctl: usage: simctl crash <package> java|anr|native [variant]\n";
  assertEquals(await exec(sim.port, EMU, "simctl crash com.example.shop"), usage);
  assertEquals(
    await exec(sim.port, EMU, "simctl crash 'a;$(id)`b`' java"),
    'simctl: Cannot crash "a;$(id)`b`": not a package name\n',
  );
  assertEquals(
    await exec(sim.port, EMU, "simctl crash com.x.y java nope"),
    "simctl: Unknown java crash variant nope: use activity, click, coroutine\n",
  );
  assertEquals(log.entries().length, before);
});

Deno.test("simctl logcat-rate sets the traffic rate; 0 stops it", async () => {
  const { sim, svc, log } = await quietSim();
  await using _ = sim;
  assertEquals(await exec(sim.port, EMU, "simctl logcat-rate 400"), "");
  assertEquals(svc.rate, 400);
  const n0 = log.entries().length;
  await waitUntil(() => log.entries().length > n0 + 20, "20 lines of traffic at 400 a second");
  assertEquals(await exec(sim.port, EMU, "simctl logcat-rate 0"), "");
  const n1 = log.entries().length;
  // Rate 0: nothing may be written over a window that would hold ~50 lines at the old rate.
  await new Promise((r) => setTimeout(r, 120));
  assertEquals(log.entries().length, n1);
  assertEquals(
    await exec(sim.port, EMU, "simctl logcat-rate -3"),
    "simctl: usage: simctl logcat-rate <lines per second 0..200000>\n",
  );
  assertEquals(svc.rate, 0);
});

Deno.test("simctl logcat-flood: a live reader gets every line, paced by how fast it reads", async () => {
  const { sim, svc, log } = await quietSim();
  await using _ = sim;
  log.clear();
  const c = await RawClient.connect(sim.port);
  await c.request(`host:transport:${EMU}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request("exec:logcat -v threadtime");
  assertEquals(await c.readText(4), "OKAY");
  await waitUntil(() => svc.liveStreams > 0, "the logcat stream to open");
  // The reader does not read yet: the flood waits for it instead of queueing everything.
  const N = 30_000;
  let done = false;
  const flood = svc.flood(N).then((n) => (done = true, n));
  await new Promise((r) => setTimeout(r, 300));
  assert(!done, "the flood finished although nobody read the stream");
  let rest = "";
  let entries = 0;
  const buf = new Uint8Array(65536);
  while (entries < N) {
    const k = await c.conn.read(buf);
    assert(k !== null, `the stream ended after ${entries} entries`);
    const lines = (rest + dec.decode(buf.subarray(0, k), { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const l of lines) {
      if (l.startsWith("--------- ")) continue;
      assertMatch(l, THREADTIME);
      entries++;
    }
  }
  assertEquals(entries, N);
  assertEquals(await flood, N);
  c.close();
  assertEquals(
    await exec(sim.port, EMU, "simctl logcat-flood -1"),
    "simctl: usage: simctl logcat-flood <lines 0..10000000>\n",
  );
});

Deno.test({
  name: "simctl logcat-replay: every real capture enters the stream with its pids and tags",
  ignore: !haveFixtures,
  fn: async () => {
    const { sim, log } = await quietSim();
    await using _ = sim;
    for await (const f of Deno.readDir(FIXTURES)) {
      if (!f.isFile || !f.name.endsWith(".txt")) continue;
      const path = new URL(f.name, FIXTURES).pathname;
      const text = await Deno.readTextFile(path);
      const parsed = parseLogText(text);
      assert(parsed.entries.length > 0, f.name);
      log.clear();
      const t0 = Date.now();
      assertEquals(await exec(sim.port, EMU, `simctl logcat-replay ${path}`), "", f.name);
      const got = log.entries();
      assertEquals(got.length, parsed.entries.length, f.name);
      for (const e of got) assert(!e.message.includes("\r"), `${f.name}: CR kept`);
      assert(got.every((e) => e.time <= Date.now() + 1), f.name);
      assert(got[got.length - 1].time >= t0, `${f.name}: not shifted to now`);
      if (!parsed.tombstone) {
        assertEquals(got.map((e) => [e.pid, e.tag]), parsed.entries.map((e) => [e.pid, e.tag]));
      }
      const out = await exec(sim.port, EMU, "logcat -d -b all");
      const lines = out.split("\n").filter((l) => l && !l.startsWith("--------- "));
      // Every message line comes back, each with a threadtime prefix.
      const nonSep = splitLines(text).filter((l) => !l.startsWith("--------- ")).length;
      assert(lines.length >= nonSep - parsed.dropped - 1, `${f.name}: ${lines.length} < ${nonSep}`);
      for (const l of lines) assertMatch(l, THREADTIME, f.name);
    }
    // A replayed crash comes out exactly as captured (message text and tags).
    const crash = new URL("fatal_exception_caused_by_chain_threadtime.txt", FIXTURES).pathname;
    log.clear();
    await exec(sim.port, EMU, `simctl logcat-replay ${crash}`);
    const out = await exec(sim.port, EMU, "logcat -d -b crash");
    assert(
      out.includes(
        "E AndroidRuntime: Caused by: java.lang.ClassNotFoundException: android.support.design.widget.AppBarLayout\n",
      ),
    );
    assert(out.includes(" 5572  5572 E AndroidRuntime: \t... 29 more\n"));
    assertEquals(
      await exec(sim.port, EMU, "simctl logcat-replay /nonexistent/file.txt"),
      "simctl: cannot read /nonexistent/file.txt: no such host file\n",
    );
  },
});

const ADB = "/usr/bin/adb";
const haveAdb = (() => {
  try {
    return Deno.statSync(ADB).isFile;
  } catch {
    return false;
  }
})();
if (!haveAdb) console.error(`logcat_test: ${ADB} not installed: skipping the real adb client test`);

Deno.test({
  name: "real adb: adb logcat -d reads the simulated log",
  ignore: !haveAdb,
  fn: async () => {
    const { sim, svc, log } = await quietSim();
    await using _ = sim;
    log.clear();
    svc.emitTraffic(30);
    svc.crash("com.example.shop", "java");
    const child = new Deno.Command(ADB, {
      args: ["-H", "127.0.0.1", "-P", String(sim.port), "-s", EMU, "logcat", "-d"],
      env: { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* exited */ }
    }, 15_000);
    const r = await child.output();
    clearTimeout(timer);
    assertEquals(r.code, 0, dec.decode(r.stderr));
    const out = dec.decode(r.stdout);
    assert(out.startsWith("--------- beginning of "), out.slice(0, 200));
    assert(out.includes("E AndroidRuntime: FATAL EXCEPTION: main\n"));
    const entries = out.split("\n").filter((l) => l && !l.startsWith("--------- "));
    assertEquals(
      entries.length,
      log.entries().filter((e) => ["main", "system", "crash"].includes(e.buffer))
        .reduce((n, e) => n + e.message.replace(/\n+$/, "").split("\n").length, 0),
    );
    const journal = await sim.readJournal();
    // adb's own command line: `export ANDROID_LOG_TAGS="''"; exec logcat '-d'`.
    assert(journal.some((j) => j.raw.includes("exec logcat '-d'")), JSON.stringify(journal));
  },
});
