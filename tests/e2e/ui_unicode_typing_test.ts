/**
 * Typing any text (issue 28.1) end to end: on the simulated emulator, with no keyboard app
 * installed, ui_fill_input types "pässwörd 日本語" through the emulator's clipboard and a paste,
 * says so, and puts the user's clipboard back; ui_type_text does the same into the focused field;
 * on the USB device without the ADB keyboard the same call is refused before anything is done,
 * saying what to install; ASCII still goes through `input text`.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  call,
  connect,
  type Json,
  ok,
  rowBy,
  rows,
  startWorld,
  uiOf,
  type UiRow,
  type World,
} from "./harness.ts";

const EMU = "emulator-5554";
const USB = "R5CT1234ABC";
const TEXT = "pässwörd 日本語";

function row(s: Json, id: string): UiRow {
  return rowBy(s, (x) => x.resource_id === id, id);
}

async function toForm(s: Parameters<typeof call>[0], serial: string) {
  const home = ok(await call(s, "get_ui_hierarchy", { device_serial: serial }), "read");
  const signIn = rows(home).find((r) => r.label.startsWith("Sign in"))!;
  return ok(
    await call(s, "ui_tap_element", { device_serial: serial, tree_path: signIn.handle }),
    "open the form",
  );
}

async function commands(world: World, serial: string): Promise<string[]> {
  return (await world.sim.readJournal()).filter((e) => e.serial === serial)
    .flatMap((e) => e.argv).map((argv) => argv.join(" "));
}

Deno.test("typing e2e: any text on the emulator through its clipboard, the user's clipboard put back", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const ui = uiOf(world, EMU);
  assertEquals(ui.settings.adbKeyboard, false, "no keyboard app installed");
  ui.clipboard = "the user's own clip";

  const form = await toForm(s, EMU);
  const filled = await call(s, "ui_fill_input", {
    device_serial: EMU,
    tree_path: row(form, "email").handle,
    text: TEXT,
  });
  const f = ok(filled, "fill");
  assertEquals(ui.state().fields.email, TEXT, "exactly that text in the field");
  assertEquals(f.typed_via, "clipboard");
  assertEquals(f.clipboard_restored, true);
  assertEquals(ui.clipboard, "the user's own clip", "the user's clipboard is back");
  assertStringIncludes(filled.content[0].text!, "through the emulator's clipboard");
  const g = world.sim.grpc(EMU);
  assert(g.calls.includes("getClipboard") && g.calls.includes("setClipboard"));
  const cmds = await commands(world, EMU);
  assert(cmds.some((c) => c === "input keyevent KEYCODE_PASTE"), cmds.slice(-5).join(" | "));
  assert(!cmds.some((c) => c.startsWith("am broadcast")), "no ADB keyboard broadcast");

  // ui_type_text into the focused field (the email field still has focus), appended.
  const typed = ok(await call(s, "ui_type_text", { device_serial: EMU, text: " ✓" }), "type");
  assertEquals(typed.typed_via, "clipboard");
  assertEquals(ui.state().fields.email, `${TEXT} ✓`);
  assertEquals(ui.clipboard, "the user's own clip");

  // ASCII keeps `input text`.
  const ascii = ok(
    await call(s, "ui_type_text", { device_serial: EMU, text: "ok", clear_before: true }),
    "ascii",
  );
  assertEquals(ascii.typed_via, "input_text");
  assertEquals(ui.state().fields.email, "ok");
});

Deno.test("typing e2e: on a USB device without the ADB keyboard, any text is refused saying what to install", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const ui = uiOf(world, USB);
  const form = await toForm(s, USB);
  const before = (await commands(world, USB)).length;
  const r = await call(s, "ui_fill_input", {
    device_serial: USB,
    tree_path: row(form, "email").handle,
    text: TEXT,
  });
  assert(r.isError, "refused");
  const text = r.content[0].text!;
  assertStringIncludes(text, "ADBKeyBoard");
  assertStringIncludes(text, "not an emulator");
  assertEquals(ui.state().fields.email, "", "nothing typed");
  const after = (await commands(world, USB)).slice(before);
  assert(!after.some((c) => c.startsWith("input")), `nothing was done: ${after.join(" | ")}`);

  // With the ADB keyboard installed and selected, the same call types through it.
  ui.setAdbKeyboard(true);
  ui.selectIme("com.android.adbkeyboard/.AdbIME");
  const viaKeyboard = ok(
    await call(s, "ui_fill_input", {
      device_serial: USB,
      tree_path: row(form, "email").handle,
      text: TEXT,
    }),
    "fill through the ADB keyboard",
  );
  assertEquals(viaKeyboard.typed_via, "adb_keyboard");
  assertEquals(ui.state().fields.email, TEXT);
});
