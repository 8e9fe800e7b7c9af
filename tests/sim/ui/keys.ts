/**
 * Key codes `input keyevent` accepts (android.view.KeyEvent values), by name without `KEYCODE_`,
 * and what `input text` can type (the VIRTUAL_KEYBOARD key character map: printable ASCII, `\n`,
 * `\t`).
 */

export const KEYCODES: Readonly<Record<string, number>> = (() => {
  const k: Record<string, number> = {
    UNKNOWN: 0,
    SOFT_LEFT: 1,
    SOFT_RIGHT: 2,
    HOME: 3,
    BACK: 4,
    CALL: 5,
    ENDCALL: 6,
    STAR: 17,
    POUND: 18,
    DPAD_UP: 19,
    DPAD_DOWN: 20,
    DPAD_LEFT: 21,
    DPAD_RIGHT: 22,
    DPAD_CENTER: 23,
    VOLUME_UP: 24,
    VOLUME_DOWN: 25,
    POWER: 26,
    CAMERA: 27,
    CLEAR: 28,
    COMMA: 55,
    PERIOD: 56,
    TAB: 61,
    SPACE: 62,
    ENTER: 66,
    DEL: 67,
    MENU: 82,
    SEARCH: 84,
    ESCAPE: 111,
    FORWARD_DEL: 112,
    MOVE_HOME: 122,
    MOVE_END: 123,
    APP_SWITCH: 187,
    PASTE: 279,
    SLEEP: 223,
    WAKEUP: 224,
  };
  for (let d = 0; d <= 9; d++) k[String(d)] = 7 + d;
  for (let c = 0; c < 26; c++) k[String.fromCharCode(65 + c)] = 29 + c;
  return k;
})();

/** The largest key code Android defines (KeyEvent.getMaxKeyCode() on recent releases). */
export const MAX_KEYCODE = 317;

/** KeyEvent.keyCodeFromString: a number, `KEYCODE_NAME` or `NAME`; null when unknown. */
export function keyCodeFromString(s: string): number | null {
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    return n > 0 && n <= MAX_KEYCODE ? n : null;
  }
  const name = s.startsWith("KEYCODE_") ? s.slice(8) : s;
  const code = KEYCODES[name];
  return code === undefined || code === 0 ? null : code;
}

/** The character a key types into a text field, if any. */
export function keyChar(code: number): string | null {
  if (code >= 7 && code <= 16) return String(code - 7);
  if (code >= 29 && code <= 54) return String.fromCharCode(97 + code - 29);
  if (code === 55) return ",";
  if (code === 56) return ".";
  if (code === 62) return " ";
  return null;
}

/** `input text`'s escape: `%s` becomes a space (Input.sendText). */
export function unescapeInputText(text: string): string {
  const buff = [...text];
  let escape = false;
  for (let i = 0; i < buff.length; i++) {
    if (escape) {
      escape = false;
      if (buff[i] === "s") {
        buff[i] = " ";
        buff.splice(--i, 1);
      }
    }
    if (buff[i] === "%") escape = true;
  }
  return buff.join("");
}

/** True when every character maps to key events on the virtual keyboard. */
export function typeable(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (!(c >= 0x20 && c <= 0x7e) && ch !== "\n" && ch !== "\t") return false;
  }
  return true;
}
