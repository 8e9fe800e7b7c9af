import { assert, assertEquals } from "../../assert.ts";
import type { LogEntry } from "../device_log.ts";
import { javaChain, printChain } from "./crashes.ts";
import { applyFormatWord, defaultFormat, LineFormatter, type LogFormat } from "./format.ts";
import { parseLogcatArgs, parseStart, passes } from "./options.ts";

// 2025-06-06 11:10:37.490 UTC
const T = Date.UTC(2025, 5, 6, 11, 10, 37, 490);
const entry = (over: Partial<LogEntry> = {}): LogEntry => ({
  time: T,
  pid: 2830,
  tid: 3273,
  uid: 1000,
  level: "D",
  tag: "WifiHAL",
  message: "Stopping GScan",
  buffer: "main",
  ...over,
});

function fmt(words: string[]): LogFormat {
  const f = defaultFormat("UTC");
  for (const w of words) assert(applyFormatWord(f, w), w);
  return f;
}
const line = (words: string[], e = entry()) => new LineFormatter(fmt(words)).format(e);

Deno.test("LineFormatter threadtime: exact column widths (PROTOCOLS §6)", () => {
  assertEquals(line([]), "06-06 11:10:37.490  2830  3273 D WifiHAL : Stopping GScan\n");
  assertEquals(
    line([], entry({ pid: 542, tid: 1520, tag: "ActivityTaskManager", level: "W" })),
    "06-06 11:10:37.490   542  1520 W ActivityTaskManager: Stopping GScan\n",
  );
  assertEquals(
    line([], entry({ pid: 0, tid: 0, tag: "", level: "I", message: "c5 binder" })),
    "06-06 11:10:37.490     0     0 I         : c5 binder\n",
  );
});

Deno.test("LineFormatter threadtime with uid: the uid's colon becomes a space", () => {
  assertEquals(line(["uid"]), "06-06 11:10:37.490  1000  2830  3273 D WifiHAL : Stopping GScan\n");
  assertEquals(
    line(["uid"], entry({ uid: 2000 })),
    "06-06 11:10:37.490 shell  2830  3273 D WifiHAL : Stopping GScan\n",
  );
  assertEquals(
    line(["time", "uid"], entry({ uid: 0 })),
    "06-06 11:10:37.490 D/WifiHAL ( root: 2830): Stopping GScan\n",
  );
});

Deno.test("LineFormatter time, brief, process, thread, tag, raw, long", () => {
  assertEquals(line(["time"]), "06-06 11:10:37.490 D/WifiHAL ( 2830): Stopping GScan\n");
  assertEquals(line(["brief"]), "D/WifiHAL ( 2830): Stopping GScan\n");
  assertEquals(line(["process"]), "D( 2830) Stopping GScan  (WifiHAL)\n");
  assertEquals(line(["thread"]), "D( 2830: 3273) Stopping GScan\n");
  assertEquals(line(["tag"]), "D/WifiHAL : Stopping GScan\n");
  assertEquals(line(["raw"]), "Stopping GScan\n");
  assertEquals(
    line(["long"]),
    "[ 06-06 11:10:37.490  2830: 3273 D/WifiHAL  ]\nStopping GScan\n\n",
  );
});

Deno.test("LineFormatter epoch is right-aligned in 19 columns; year, usec, zone", () => {
  const secs = String(Math.floor(T / 1000));
  assertEquals(
    line(["epoch"]),
    `${" ".repeat(19 - secs.length)}${secs}.490  2830  3273 D WifiHAL : Stopping GScan\n`,
  );
  assertEquals(line(["year"]).slice(0, 23), "2025-06-06 11:10:37.490");
  assertEquals(line(["usec"]).slice(0, 21), "06-06 11:10:37.490000");
  assertEquals(
    line(["time", "Europe/Berlin"]),
    "06-06 13:10:37.490 +0200 D/WifiHAL ( 2830): Stopping GScan\n",
  );
  assertEquals(line(["zone"]).slice(0, 24), "06-06 11:10:37.490 +0000");
});

Deno.test("LineFormatter: every line of a multi-line message gets the full prefix", () => {
  const out = line([], entry({ message: "FATAL EXCEPTION: main\n\tat a.b(C.java:1)\n" }));
  assertEquals(
    out,
    "06-06 11:10:37.490  2830  3273 D WifiHAL : FATAL EXCEPTION: main\n" +
      "06-06 11:10:37.490  2830  3273 D WifiHAL : \tat a.b(C.java:1)\n",
  );
});

Deno.test("parseLogcatArgs() clusters, buffers, counts, filterspecs and errors", () => {
  const r = parseLogcatArgs(["-dv", "time", "-b", "main,crash", "-s", "AndroidRuntime:E"]);
  assert(r.ok);
  assertEquals(r.opts.dump, true);
  assertEquals(r.opts.format.base, "time");
  assertEquals(r.opts.buffers, ["main", "crash"]);
  assert(!passes(r.opts, entry({ tag: "Other", level: "F" })));
  assert(!passes(r.opts, entry({ tag: "AndroidRuntime", level: "W" })));
  assert(passes(r.opts, entry({ tag: "AndroidRuntime", level: "E" })));

  const t = parseLogcatArgs(["-t", "5"]);
  assert(t.ok && t.opts.dump && t.opts.start?.kind === "count" && t.opts.start.count === 5);
  const follow = parseLogcatArgs(["-T", "06-06 11:10:37.490", "--pid=42", "--regex", "Scan$"]);
  assert(follow.ok && !follow.opts.dump && follow.opts.start?.kind === "wall");
  assert(!passes(follow.opts, entry()));
  assert(passes(follow.opts, entry({ pid: 42 })));
  assertEquals(parseLogcatArgs(["-b", "all"]).ok, true);
  assertEquals(parseStart("1749208237.490"), { kind: "epoch", ms: 1749208237490 });

  for (const bad of [["-x"], ["-v", "bogus"], ["-b", "nope"], ["-t", "yesterday"], ["Tag:Q"]]) {
    const p = parseLogcatArgs(bad);
    assert(!p.ok, bad.join(" "));
  }
  // ANDROID_LOG_TAGS is used only without filterspecs; adb's "''" means none.
  const env = parseLogcatArgs([], "*:S Foo:W");
  assert(
    env.ok && !passes(env.opts, entry()) && passes(env.opts, entry({ tag: "Foo", level: "E" })),
  );
  const quoted = parseLogcatArgs([], "''");
  assert(quoted.ok && passes(quoted.opts, entry()));
});

Deno.test("printChain() folds shared frames into '... N more' as Java does", () => {
  const { chain } = javaChain("com.example.app", "click");
  const text = printChain(chain);
  assertEquals(
    text[0],
    "java.lang.IllegalStateException: Could not execute method for android:onClick",
  );
  const ite = text.indexOf("Caused by: java.lang.reflect.InvocationTargetException");
  assertEquals(text.slice(ite + 1, ite + 4), [
    "\tat java.lang.reflect.Method.invoke(Native Method)",
    "\tat androidx.appcompat.app.AppCompatViewInflater$DeclaredOnClickListener.onClick(AppCompatViewInflater.java:467)",
    "\t... 12 more",
  ]);
  assertEquals(text.slice(-2), [
    "\tat com.example.app.ui.DetailActivity.onSaveClicked(DetailActivity.kt:58)",
    "\t... 14 more",
  ]);
  const co = printChain(javaChain("com.example.app", "coroutine").chain);
  assert(co.some((l) => l.startsWith("\tSuppressed: kotlinx.coroutines.internal.")));
});
