/**
 * lib/android/am.ts, the one owner of `am start`: the argv it sends for each intent, the real
 * `-W` report read back, and failures `am` prints on stdout with exit status 0 (PROTOCOLS §9)
 * becoming `launch_failed` with the output, bounded.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import {
  amStart,
  amStartArgv,
  boundedAmOutput,
  MAX_AM_OUTPUT_CHARS,
} from "../../lib/android/am.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { FakeAdb } from "../fake_adb.ts";
import { realFixtures } from "../real_fixtures.ts";

const dumpsys = realFixtures("dumpsys");
const SERIAL = "emulator-5554";
const start = (what = "start com.example/.Main") => ({ wait: true, what, next: "try again" });

Deno.test("amStartArgv() names the component with -n, or the action, data, category and package", () => {
  assertEquals(amStartArgv({ component: "com.example/.Main" }, true), [
    "am",
    "start",
    "-W",
    "-n",
    "com.example/.Main",
  ]);
  assertEquals(
    amStartArgv({ action: "android.intent.action.VIEW", data: "myapp://x?a=1&b=2" }, true),
    ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", "myapp://x?a=1&b=2"],
  );
  assertEquals(
    amStartArgv({
      action: "android.intent.action.MAIN",
      category: "android.intent.category.LAUNCHER",
      package: "com.example",
    }, false),
    [
      "am",
      "start",
      "-a",
      "android.intent.action.MAIN",
      "-c",
      "android.intent.category.LAUNCHER",
      "-p",
      "com.example",
    ],
  );
});

Deno.test({
  name: "amStart() reads the real -W report of a cold launch",
  ignore: !dumpsys.present,
  async fn() {
    const text = dumpsys.text("am_start_W_cold_launch.txt");
    const adb = new FakeAdb(() => text);
    const r = await amStart(adb, SERIAL, { component: "com.example/.Main" }, start());
    assertEquals(r.report.status, "ok");
    assertEquals(r.report.error, null);
    assertEquals(r.output, text.trimEnd());
    assertEquals(adb.argvs, [["am", "start", "-W", "-n", "com.example/.Main"]]);
  },
});

Deno.test("amStart() fails on an Error: line printed with exit status 0, naming am's line and the output", async () => {
  const out = "Starting: Intent { cmp=com.example/.Missing }\nError type 3\n" +
    "Error: Activity class {com.example/com.example.Missing} does not exist.\n";
  const adb = new FakeAdb(() => ({ out, code: 0 }));
  const e = await assertRejects(
    () =>
      amStart(adb, SERIAL, { component: "com.example/.Missing" }, {
        ...start("start com.example/.Missing"),
        data: { component: "com.example/.Missing" },
      }),
    ToolError,
  );
  assertEquals(e.code, "launch_failed");
  assertEquals(
    e.message,
    "Could not start com.example/.Missing on emulator-5554: Error: Activity class " +
      "{com.example/com.example.Missing} does not exist.; try again",
  );
  assertEquals(e.data, {
    serial: SERIAL,
    component: "com.example/.Missing",
    output: out.trimEnd(),
  });
});

Deno.test("amStart() reads stderr too, and a non-zero status without an error line still fails", async () => {
  const unresolved = new FakeAdb(() => ({
    err: "Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW " +
      "dat=nolink://x flg=0x10000000 }\n",
  }));
  const e = await assertRejects(
    () =>
      amStart(unresolved, SERIAL, { action: "android.intent.action.VIEW", data: "nolink://x" }, {
        ...start("open the link"),
      }),
    ToolError,
  );
  assertStringIncludes(e.message, "Could not open the link on emulator-5554: Error: Activity not");
  const killed = new FakeAdb(() => ({ out: "Killed\n", code: 137 }));
  const k = await assertRejects(
    () => amStart(killed, SERIAL, { component: "com.example/.Main" }, start()),
    ToolError,
  );
  assertStringIncludes(k.message, ": Killed; try again");
});

Deno.test("amStart() keeps at most MAX_AM_OUTPUT_CHARS of the output and says it cut it", async () => {
  const long = "Warning: Activity not started, its current task has been brought to the front\n" +
    "x".repeat(MAX_AM_OUTPUT_CHARS * 2);
  const r = await amStart(new FakeAdb(() => long), SERIAL, { component: "c/.M" }, start());
  assert(r.output.endsWith("\n… (output cut)"));
  assertEquals(r.output.length, MAX_AM_OUTPUT_CHARS + "\n… (output cut)".length);
  assertEquals(r.report.warnings.length, 1);
  assertEquals(boundedAmOutput("short"), "short");
});
