import { assert, assertEquals } from "../assert.ts";
import type { ShellStream } from "../../lib/adb/client.ts";
import { LogcatService } from "../../lib/logcat/logcat_service.ts";
import { shellResult } from "../fake_adb.ts";
import { waitUntil } from "../wait.ts";

const enc = new TextEncoder();

/** A fake device: each openShellStream gives a stream the test writes to and ends. */
class FakeAdb {
  listed = true;
  opened: string[][] = [];
  controllers: ReadableStreamDefaultController<Uint8Array>[] = [];
  exits: ((code: number | null) => void)[] = [];
  shellCalls: string[][] = [];

  openShellStream(_serial: string, argv: readonly string[]): Promise<ShellStream> {
    this.opened.push([...argv]);
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    let resolveExit!: (v: number | null) => void;
    const exitCode = new Promise<number | null>((r) => resolveExit = r);
    const stdout = new ReadableStream<Uint8Array>({
      start(c) {
        ctl = c;
      },
      cancel() {
        resolveExit(null);
      },
    });
    this.controllers.push(ctl);
    this.exits.push(resolveExit);
    return Promise.resolve({
      stdout,
      stderr: new ReadableStream({ start: (c) => c.close() }),
      exitCode,
      close: async () => {
        try {
          ctl.close();
        } catch { /* already closed */ }
        resolveExit(null);
        await Promise.resolve();
      },
    });
  }

  shell(_serial: string, argv: readonly string[]) {
    this.shellCalls.push([...argv]);
    return Promise.resolve(shellResult("PID NAME\n  321 com.example.app\n"));
  }

  listDevices() {
    return Promise.resolve(
      this.listed ? [{ serial: "emu", state: "device" as const, kind: "emulator" as const }] : [],
    );
  }

  write(text: string) {
    this.controllers.at(-1)!.enqueue(enc.encode(text));
  }

  end() {
    this.controllers.at(-1)!.close();
    this.exits.at(-1)!(0);
  }
}

Deno.test("LogcatService streams, reports a disconnect with a reason, keeps data, resumes", async () => {
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  const r = await svc.start({ serial: "emu", capacity: 1000 });
  assertEquals([r.state, r.already, r.resumed, r.processes_known], ["streaming", false, false, 1]);
  assertEquals(adb.opened[0], ["logcat", "-v", "threadtime"]);
  assertEquals(adb.shellCalls[0], ["ps", "-A", "-o", "PID,NAME"]);
  adb.write(
    "04-04 10:00:00.001   321   321 I App     : one\n04-04 10:00:00.002   321   321 E App     : two\n",
  );
  await waitUntil(() => svc.stats().devices[0].stored === 2, "svc.stats().devices[0].stored === 2");
  const e = svc.entries({ count: 10, package: "com.example.app" });
  assertEquals(e.entries.map((x) => x.message), ["one", "two"]);

  adb.listed = false;
  adb.end();
  await waitUntil(
    () => svc.stats().devices[0].state === "disconnected",
    'svc.stats().devices[0].state === "disconnected"',
  );
  const st = svc.stats().devices[0];
  assert(st.reason!.includes("disconnected"), st.reason!);
  assertEquals(st.stored, 2);

  adb.listed = true;
  const again = await svc.start({ serial: "emu", capacity: 1000 });
  assertEquals([again.state, again.resumed], ["streaming", true]);
  // The device replays its buffer: lines up to the last stored time are not stored twice.
  adb.write(
    "04-04 10:00:00.001   321   321 I App     : one\n04-04 10:00:00.002   321   321 E App     : two\n04-04 10:00:01.000   321   321 W App     : three\n",
  );
  await waitUntil(() => svc.stats().devices[0].stored === 3, "svc.stats().devices[0].stored === 3");
  assertEquals(svc.entries({ count: 10 }).entries.map((x) => x.message), ["one", "two", "three"]);

  const stopped = await svc.stop();
  assertEquals(stopped.stopped, ["emu"]);
  assertEquals(svc.stats().devices[0].state, "stopped");
  assertEquals(svc.clear().cleared, ["emu"]);
  assertEquals(svc.stats().devices[0].stored, 0);
});

Deno.test("LogcatService groups crashes across devices and finds the newest trace", async () => {
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  await svc.start({ serial: "emu", capacity: 1000 });
  const crash = (pid: number, m: string) =>
    [
      "FATAL EXCEPTION: main",
      `Process: com.example.app, PID: ${pid}`,
      "java.lang.Error: x",
      `\tat com.example.app.A.${m}(A.kt:1)`,
    ]
      .map((l) => `04-04 10:00:0${pid % 10}.000 ${pid} ${pid} E AndroidRuntime: ${l}\n`).join("");
  adb.write(crash(1001, "a") + crash(1002, "a") + crash(1003, "b"));
  await waitUntil(() => svc.crashes(20).total_crashes === 3, "svc.crashes(20).total_crashes === 3");
  const c = svc.crashes(20);
  assertEquals(c.groups.map((g) => g.count).sort(), [1, 2]);
  const two = c.groups.find((g) => g.count === 2)!;
  assertEquals(two.pids, [1001, 1002]);
  const t = svc.trace({ crash_group_id: two.crash_group_id })!;
  assertEquals([t.crash.pid, t.frames[0].method, t.first_app_frame!.method], [1002, "a", "a"]);
  assertEquals(svc.trace({ package: "com.example.app" })!.crash.pid, 1003);
  assertEquals(svc.trace({ package: "com.other.app" }), null);
  await svc.shutdown();
});

/** A threadtime line of pid/tid 321 at 10:00:00.<ms>. */
function line(ms: number, msg: string, level = "I"): string {
  return `04-04 10:00:00.${String(ms).padStart(3, "0")}   321   321 ${level} App     : ${msg}`;
}

/** Writes `text` to the stream in pieces cut at the given offsets (mid-line on purpose). */
function writeCut(adb: FakeAdb, text: string, cuts: number[]) {
  let at = 0;
  for (const c of [...cuts, text.length]) {
    adb.write(text.slice(at, c));
    at = c;
  }
}

function messages(svc: LogcatService): string[] {
  return svc.entries({ count: 100 }).entries.map((x) => x.message);
}

Deno.test("a disconnect mid-line then a resume stores every line once, no fragment", async () => {
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  await svc.start({ serial: "emu", capacity: 1000 });
  // Lines at the same millisecond, and one printed late with an earlier time (another buffer).
  const before = [
    line(1, "one"),
    line(5, "two"),
    line(5, "two again"),
    line(3, "late"),
    line(5, "x"),
  ];
  const cut = line(5, "three: cut by the disconnect");
  adb.write(before.join("\n") + "\n" + cut.slice(0, 30));
  await waitUntil(() => svc.stats().devices[0].stored === 5, "svc.stats().devices[0].stored === 5");
  adb.end();
  await waitUntil(
    () => svc.stats().devices[0].state === "disconnected",
    'svc.stats().devices[0].state === "disconnected"',
  );
  assertEquals(messages(svc), ["one", "two", "two again", "late", "x"]);

  await svc.start({ serial: "emu", capacity: 1000 });
  // The replay of the whole buffer, then new lines, cut in awkward places (inside the anchor).
  const after = [cut, line(5, "four, same millisecond"), line(9, "five")];
  const replay = [...before, ...after].join("\n") + "\n";
  writeCut(adb, replay, [7, 60, 61, 150, 151, 152, replay.length - 10]);
  await waitUntil(() => svc.stats().devices[0].stored === 8, "svc.stats().devices[0].stored === 8");
  assertEquals(messages(svc), [
    "one",
    "two",
    "two again",
    "late",
    "x",
    "three: cut by the disconnect",
    "four, same millisecond",
    "five",
  ]);
  await svc.shutdown();
});

Deno.test("a resume whose anchor is gone (buffer cleared) stores the new lines once quiet", async () => {
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  await svc.start({ serial: "emu", capacity: 1000 });
  adb.write([line(1, "one"), line(2, "two")].join("\n") + "\n");
  await waitUntil(() => svc.stats().devices[0].stored === 2, "svc.stats().devices[0].stored === 2");
  adb.end();
  await waitUntil(
    () => svc.stats().devices[0].state === "disconnected",
    'svc.stats().devices[0].state === "disconnected"',
  );
  await svc.start({ serial: "emu", capacity: 1000 });
  // `logcat -c` ran meanwhile: the replay holds only newer lines, and one older one.
  adb.write(
    [line(0, "older, never seen"), line(7, "new one"), line(8, "new two")].join("\n") + "\n",
  );
  await waitUntil(() => svc.stats().devices[0].stored === 4, "svc.stats().devices[0].stored === 4");
  assertEquals(messages(svc), ["one", "two", "new one", "new two"]);
  await svc.shutdown();
});

Deno.test("LogcatService: one app's ANRs are one group that keeps every reason, counted", async () => {
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  await svc.start({ serial: "emu", capacity: 1000 });
  const text = await Deno.readTextFile(
    new URL("./testdata/anr_reasons_threadtime.txt", import.meta.url),
  );
  // Another app's ANR in between: its own group.
  const other = [
    "ANR in com.other.app",
    "PID: 555",
    "Reason: ContentProvider not responding",
  ].map((l) => `04-04 10:00:30.000  1500  1530 E ActivityManager: ${l}\n`).join("");
  const cut = text.indexOf("04-04 10:00:40.000");
  writeCut(adb, text.slice(0, cut) + other + text.slice(cut), [17, cut + 3]);
  await waitUntil(() => svc.crashes(20).total_crashes === 5, "five ANRs");
  const c = svc.crashes(20);
  assertEquals(c.groups.length, 2);
  const g = c.groups.find((x) => x.package === "com.example.app")!;
  assertEquals([g.kind, g.count], ["anr", 4]);
  assertEquals(g.anr_reasons, {
    reasons: [
      {
        reason: "Input dispatching timed out (9c3d7e1 com.example.app/com.example.app." +
          "MainActivity (server) is not responding. Waited 5007ms for KeyEvent)",
        count: 2,
      },
      {
        reason: "Broadcast of Intent { act=android.intent.action.BOOT_COMPLETED flg=0x9000010 " +
          "cmp=com.example.app/.BootReceiver }",
        count: 1,
      },
      { reason: "executing service com.example.app/.SyncService", count: 1 },
    ],
    other_reasons: 0,
  });
  assertEquals(g.message, "executing service com.example.app/.SyncService", "the newest");
  const o = c.groups.find((x) => x.package === "com.other.app")!;
  assertEquals(o.anr_reasons!.reasons, [{ reason: "ContentProvider not responding", count: 1 }]);
  const t = svc.trace({ crash_group_id: g.crash_group_id })!;
  assertEquals(t.group.anr_reasons!.reasons.length, 3);
  // The session records: one group, each ANR with its own reason; the signature tells the
  // deadline apart (two input timeouts alike), for compare_debug_sessions.
  const recs = svc.sessionCrashes(0).filter((x) => x.package === "com.example.app");
  assertEquals(recs.map((x) => x.crash_group_id), Array(4).fill(g.crash_group_id));
  assertEquals(recs.map((x) => x.summary.split(" (")[0].split(" {")[0]), [
    "ANR: Input dispatching timed out",
    "ANR: Broadcast of Intent",
    "ANR: Input dispatching timed out",
    "ANR: executing service com.example.app/.SyncService",
  ]);
  const sigs = recs.map((x) => x.signature);
  assertEquals([new Set(sigs).size, sigs[0] === sigs[2]], [3, true]);
  // A Java group has none.
  adb.write(
    [
      "FATAL EXCEPTION: main",
      "Process: com.example.app, PID: 321",
      "java.lang.Error: x",
      "\tat com.example.app.A.a(A.kt:1)",
    ].map((l) => `04-04 10:02:00.000   321   321 E AndroidRuntime: ${l}\n`).join(""),
  );
  await waitUntil(() => svc.crashes(20).total_crashes === 6, "the Java crash");
  const java = svc.crashes(20).groups.find((x) => x.kind === "java")!;
  assertEquals(java.anr_reasons, null);
  await svc.shutdown();
});

Deno.test("LogcatService: ANR reasons are bounded, and those of dropped ANRs still count", async () => {
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  await svc.start({ serial: "emu", capacity: 20_000 });
  // MAX_CRASHES_PER_DEVICE + 10 ANRs of one app: 12 distinct services, the first one
  // 100 times; its ANRs are the oldest, so they are the ones dropped.
  const services = Array.from({ length: 12 }, (_, i) => `com.example.app/.Svc${"ABCDEFGHIJKL"[i]}`);
  const reasons = [
    ...Array(100).fill(services[0]),
    ...Array(110).fill(0).map((_, i) => services[i % 12]),
  ];
  let text = "";
  reasons.forEach((svcName, i) => {
    const t = `04-04 10:${String(Math.floor(i / 60)).padStart(2, "0")}:${
      String(i % 60).padStart(2, "0")
    }.000`;
    text += ["ANR in com.example.app", "PID: 321", `Reason: executing service ${svcName}`]
      .map((l) => `${t}  1500  1530 E ActivityManager: ${l}\n`).join("");
    text +=
      `${t}  1500  1530 I ActivityManager: Killing 321:com.example.app/u0a123 (adj 0): bg anr\n`;
  });
  adb.write(text);
  await waitUntil(() => svc.crashes(1).total_crashes === 200, "200 ANRs kept");
  const g = svc.crashes(1).groups[0];
  assertEquals(g.count, 210);
  const r = g.anr_reasons!;
  assertEquals(r.reasons.length, 8);
  const counted = r.reasons.reduce((n, x) => n + x.count, 0) + r.other_reasons;
  assertEquals(counted, 210, "every ANR counted, listed or not");
  assertEquals(r.reasons[0], { reason: `executing service ${services[0]}`, count: 110 });
  // Svc A–H listed (first seen first); I–L, 9 ANRs each, only counted.
  assertEquals(r.reasons.map((x) => x.count), [110, 10, 9, 9, 9, 9, 9, 9]);
  assertEquals(r.other_reasons, 4 * 9);
  for (const x of r.reasons) assert(x.reason.length <= 300);
  await svc.shutdown();
});

Deno.test("LogcatService: an app's ANRs from two real captures of one phone keep both reasons", async () => {
  // Two captures of one MediaTek phone (tests/fixtures/corpus/logcat/democode--*), in the order
  // they were taken: the same app stopped answering first a service start, an hour later a touch.
  const corpus = new URL("../fixtures/corpus/logcat/", import.meta.url);
  const adb = new FakeAdb();
  const svc = new LogcatService({ adb: adb as never });
  await svc.start({ serial: "emu", capacity: 20_000 });
  for (const name of ["democode--anr-log.log", "democode--mobilelog-sys-log.log"]) {
    adb.write(await Deno.readTextFile(new URL(name, corpus)));
  }
  await waitUntil(() => svc.crashes(20).total_crashes === 2, "two ANRs");
  const groups = svc.crashes(20).groups.filter((g) => g.kind === "anr");
  assertEquals(groups.length, 1);
  assertEquals(groups[0].process, "jrdcom.com.anrdemo");
  assertEquals(
    groups[0].anr_reasons?.reasons.map((r) => [r.reason.split(" (")[0], r.count]),
    [
      ["executing service jrdcom.com.anrdemo/com.android.tools.fd.runtime.InstantRunService", 1],
      ["Input dispatching timed out", 1],
    ],
  );
  await svc.shutdown();
});
