/**
 * The device's input methods (`ime list -s`, `dumpsys input_method`): whether the ADB keyboard that
 * ui_type_text_unicode needs is installed and selected, and whether the soft keyboard is shown.
 * The parsers are pure; the readers run one command each over the ADB client, argv quoted by it.
 */
import type { CallOptions, DeviceShell } from "../adb/client.ts";
import { ToolError } from "../core/errors.ts";

/** The ADB keyboard IME (github.com/senzhk/ADBKeyBoard) that takes text by broadcast. */
export const ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME";

/** Whether `ime list -s` output lists the ADB keyboard. */
export function hasAdbKeyboard(imeListOutput: string): boolean {
  return imeListOutput.split(/\r?\n/).some((l) => l.trim() === ADB_KEYBOARD_IME);
}

/**
 * `dumpsys input_method`: the selected input method (`mCurMethodId=<id>`), or `null` when the
 * dump does not say (`null` also for `mCurMethodId=null`).
 */
export function parseSelectedIme(dumpsys: string): string | null {
  const m = /^\s*mCurMethodId=(\S+)\s*$/m.exec(dumpsys);
  return m === null || m[1] === "null" ? null : m[1];
}

/** `dumpsys input_method`: whether the soft keyboard is shown (`mInputShown=true`). */
export function parseInputShown(dumpsys: string): boolean | null {
  const m = /\bmInputShown=(true|false)\b/.exec(dumpsys);
  return m ? m[1] === "true" : null;
}

/** `dumpsys input_method` of `serial`, as the device printed it. */
export async function readInputMethodDump(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions = {},
): Promise<string> {
  return (await adb.shell(serial, ["dumpsys", "input_method"], opts)).text();
}

/**
 * Refuses, before anything is typed, when the ADB keyboard is not installed and enabled
 * (`ime list -s`) or is not the selected input method (`dumpsys input_method`): its broadcast
 * reaches the keyboard only when it is the selected one.
 */
export async function requireAdbKeyboard(
  adb: DeviceShell,
  serial: string,
  opts: CallOptions = {},
): Promise<void> {
  const imes = await adb.shell(serial, ["ime", "list", "-s"], opts);
  if (!hasAdbKeyboard(imes.text())) {
    throw new ToolError(
      "command_failed",
      "The ADB keyboard IME (com.android.adbkeyboard/.AdbIME) is not installed or enabled on " +
        `${serial}, so nothing was typed: install ADBKeyBoard and select it (ime enable / ime ` +
        "set), or type ASCII with ui_type_text",
      { serial },
    );
  }
  const selected = parseSelectedIme(await readInputMethodDump(adb, serial, opts));
  if (selected !== null && selected !== ADB_KEYBOARD_IME) {
    throw new ToolError(
      "command_failed",
      `The ADB keyboard is installed on ${serial} but the selected input method is ${selected}, ` +
        "so nothing was typed: ask the user to select it (adb shell ime set " +
        `${ADB_KEYBOARD_IME}), or type ASCII with ui_type_text`,
      { serial, selected_ime: selected },
    );
  }
}
