/** lib/android/launch.ts: reading the launch's Displayed line from the log. */
import { assert, assertEquals } from "../assert.ts";
import { readDisplayed } from "../../lib/android/launch.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { FakeAdb } from "../fake_adb.ts";
import { waitUntil } from "../wait.ts";

async function rejects(p: Promise<unknown>, code: string): Promise<ToolError> {
  try {
    await p;
  } catch (e) {
    assert(e instanceof ToolError, String(e));
    assertEquals(e.code, code, e.message);
    return e;
  }
  throw new Error(`expected ${code}`);
}

Deno.test("readDisplayed() stops waiting when the request is cancelled", async () => {
  const adb = new FakeAdb(() => ({ out: "" }));
  const ac = new AbortController();
  const waiting = readDisplayed(
    adb as never,
    "emulator-5554",
    "com.example.app",
    null,
    { signal: ac.signal },
    60_000,
  );
  waiting.catch(() => {});
  await waitUntil(() => adb.calls.length >= 1, "the first look at the log");
  ac.abort();
  await rejects(waiting, "cancelled");
  assert(adb.argvs.length >= 1 && adb.argvs.length < 10, `${adb.argvs.length} looks`);
});

Deno.test("readDisplayed() gives up after its wait with no Displayed line", async () => {
  const adb = new FakeAdb(() => ({
    out: "01-02 03:04:05.000  500  520 I ActivityTaskManager: Displayed com.other/.M for " +
      "user 0: +5ms\n",
  }));
  const found = await readDisplayed(adb as never, "e", "com.example.app", null, {}, 300);
  assertEquals(found, null);
});
