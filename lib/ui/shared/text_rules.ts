/**
 * What the typing tools may type, checked on the main thread before anything runs and again by the
 * UI worker's input code (lib/ui/actions.ts): a leaf, so the main thread does not load the worker's
 * input code to read it.
 */
import { invalidParams } from "../../core/errors.ts";

/** Most bytes `ui_type_text` / `ui_fill_input` / `ui_type_text_unicode` type in one call (spec). */
export const MAX_TYPE_TEXT_BYTES = 1_000;

/** UTF-8 length of `s`. */
function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Refuses text over `MAX_TYPE_TEXT_BYTES` and empty text. */
export function checkTextLength(text: string, param = "text"): void {
  if (text.length === 0) {
    throw invalidParams(`Invalid ${param}: it is empty; pass the text to type`);
  }
  const n = utf8Bytes(text);
  if (n > MAX_TYPE_TEXT_BYTES) {
    throw invalidParams(
      `Invalid ${param}: ${n} bytes, the limit is ${MAX_TYPE_TEXT_BYTES}; type it in several calls`,
    );
  }
}

/**
 * Whether `input text` can type `ch`: the virtual keyboard's key map has printable ASCII, newline
 * (Enter) and tab; anything else makes `input text` fail on the device.
 */
export function inputTextCanType(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return (c >= 0x20 && c <= 0x7e) || ch === "\n" || ch === "\t";
}

/**
 * Refuses text `input text` cannot type exactly (empty, over `MAX_TYPE_TEXT_BYTES`, or with
 * characters beyond printable ASCII, newline and tab), pointing at ui_type_text_unicode.
 */
export function checkInputText(text: string): void {
  checkTextLength(text);
  const bad = [...text].filter((ch) => !inputTextCanType(ch));
  if (bad.length) {
    const shown = [...new Set(bad)].slice(0, 5).map((c) => JSON.stringify(c)).join(", ");
    throw invalidParams(
      `Invalid text: input text cannot type ${shown} (only printable ASCII, newline and tab); ` +
        "use ui_type_text_unicode, which needs the ADB keyboard IME on the device",
    );
  }
}
