import { assertEquals } from "../assert.ts";
import { Level, LineKind, parseLevelName, parseLine } from "../../lib/logcat/line_parser.ts";

Deno.test("parseLine() reads threadtime fields and keeps the padded tag trimmed", () => {
  const p = parseLine("06-06 11:10:37.490  2830  3273 D WifiHAL : Stopping GScan");
  assertEquals(p.kind, LineKind.entry);
  assertEquals([p.time, p.pid, p.tid, p.level, p.tag, p.message], [
    "06-06 11:10:37.490",
    2830,
    3273,
    Level.D,
    "WifiHAL",
    "Stopping GScan",
  ]);
});

Deno.test("parseLine() reads -v year, -v uid (number and name) and an empty kernel tag", () => {
  const y = parseLine("2024-06-06 11:10:37.490  2830  3273 W Tag: a: b");
  assertEquals([y.time, y.pid, y.tid, y.level, y.tag, y.message], [
    "2024-06-06 11:10:37.490",
    2830,
    3273,
    Level.W,
    "Tag",
    "a: b",
  ]);
  const u = parseLine("06-06 11:10:37.490  1000  2830  3273 E WifiHAL : x");
  assertEquals([u.pid, u.tid, u.level], [2830, 3273, Level.E]);
  const n = parseLine("06-06 11:10:37.490  root   412   412 I init    : started");
  assertEquals([n.pid, n.tid, n.tag, n.message], [412, 412, "init", "started"]);
  const k = parseLine("03-13 10:01:23.915     0     0 I         : c2   7782 binder: 5120");
  assertEquals([k.pid, k.tag, k.message], [0, "", "c2   7782 binder: 5120"]);
});

Deno.test("parseLine() reads -v time and Android Studio's format, and drops CR endings", () => {
  const t = parseLine("01-17 21:12:37.042 E/ActivityManager(24942): ANR in com.x\r\r");
  assertEquals([t.kind, t.pid, t.tid, t.level, t.tag, t.message], [
    LineKind.entry,
    24942,
    -1,
    Level.E,
    "ActivityManager",
    "ANR in com.x",
  ]);
  const s = parseLine(
    "2023/02/26 02:19:15.049 29876 12399 Error AndroidRuntime FATAL EXCEPTION: x",
  );
  assertEquals([s.pid, s.tid, s.level, s.tag, s.message], [
    29876,
    12399,
    Level.E,
    "AndroidRuntime",
    "FATAL EXCEPTION: x",
  ]);
});

Deno.test("parseLine() marks dividers and keeps anything else raw", () => {
  const d = parseLine("--------- beginning of crash");
  assertEquals([d.kind, d.message], [LineKind.divider, "crash"]);
  const r = parseLine("* daemon not running. starting it now on port 5037 *");
  assertEquals([r.kind, r.message], [
    LineKind.raw,
    "* daemon not running. starting it now on port 5037 *",
  ]);
  assertEquals(parseLine("06-06 11:10:37.490 garbage").kind, LineKind.raw);
  assertEquals(parseLine("").kind, LineKind.empty);
});

Deno.test("parseLevelName() accepts letters and words, refuses others", () => {
  assertEquals(parseLevelName("w"), Level.W);
  assertEquals(parseLevelName("Error"), Level.E);
  assertEquals(parseLevelName("verbose"), Level.V);
  assertEquals(parseLevelName("X"), 0);
  assertEquals(parseLevelName("loud"), 0);
});
