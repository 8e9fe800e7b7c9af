/** lib/android/input_method.ts: the ADB keyboard checks before a Unicode text, over a scripted shell. */
import { assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import {
  ADB_KEYBOARD_IME,
  readInputMethodDump,
  requireAdbKeyboard,
} from "../../lib/android/input_method.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { FakeAdb } from "../fake_adb.ts";

const SERIAL = "emulator-5554";
const LATIN = "com.google.android.inputmethod.latin/.LatinIME";

/** A device whose `ime list -s` and `dumpsys input_method` answer as given. */
function device(imes: string[], selected: string | null) {
  return new FakeAdb((argv) => {
    if (argv.join(" ") === "ime list -s") return imes.join("\n") + "\n";
    if (argv.join(" ") === "dumpsys input_method") {
      return `Current Input Method Manager state:\n  mCurMethodId=${selected ?? "null"}\n`;
    }
    return { err: "unexpected", code: 1 };
  });
}

Deno.test("requireAdbKeyboard() passes when the ADB keyboard is enabled and selected", async () => {
  const adb = device([LATIN, ADB_KEYBOARD_IME], ADB_KEYBOARD_IME);
  await requireAdbKeyboard(adb, SERIAL);
  assertEquals(adb.argvs, [["ime", "list", "-s"], ["dumpsys", "input_method"]]);
});

Deno.test("requireAdbKeyboard() refuses a missing keyboard before asking which one is selected", async () => {
  const adb = device([LATIN], LATIN);
  const e = await assertRejects(() => requireAdbKeyboard(adb, SERIAL), ToolError);
  assertEquals(e.code, "command_failed");
  assertStringIncludes(e.message, "is not installed or enabled on emulator-5554");
  assertEquals(adb.argvs, [["ime", "list", "-s"]]);
});

Deno.test("requireAdbKeyboard() refuses an enabled keyboard that is not the selected one", async () => {
  const e = await assertRejects(
    () => requireAdbKeyboard(device([LATIN, ADB_KEYBOARD_IME], LATIN), SERIAL),
    ToolError,
  );
  assertEquals(e.code, "command_failed");
  assertStringIncludes(e.message, `the selected input method is ${LATIN}`);
  assertEquals(e.data, { serial: SERIAL, selected_ime: LATIN });
});

Deno.test("readInputMethodDump() returns dumpsys input_method as printed", async () => {
  const text = await readInputMethodDump(device([], null), SERIAL);
  assertStringIncludes(text, "mCurMethodId=null");
});
