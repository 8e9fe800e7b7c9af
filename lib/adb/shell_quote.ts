/**
 * The one quoting function for device shell commands. adbd runs every `shell:`/`exec:` command
 * with `/system/bin/sh -c` (mksh), and `adb shell a b` joins its words with spaces without
 * quoting (client/commandline.cpp, "We don't escape here, just like ssh(1)"), so the device shell
 * re-parses the line. Each argument therefore goes through `quoteShellArg`, whose output any POSIX
 * shell reads back as exactly that one word.
 */
import { invalidParams } from "../core/errors.ts";

/** Words made only of these characters mean the same quoted or not, in any position. */
const SAFE_WORD = /^[A-Za-z0-9_@%+:,./-]+$/;

/**
 * mksh reserved words: bare in command position they are syntax, not a word, so they are quoted
 * even though their letters are safe.
 */
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "select",
  "while",
  "until",
  "do",
  "done",
  "in",
  "function",
  "time",
]);

/**
 * Quotes one argument for the device shell. Safe words stay bare; anything else is wrapped in
 * single quotes, inside which a POSIX shell takes every byte literally (newlines, `$`, backticks,
 * globs, backslashes), with each `'` written as `'\''`. `=` is not bare-safe because `a=b` in
 * command position is an assignment. NUL cannot pass through `sh -c` and lone UTF-16 surrogates
 * cannot be sent as UTF-8, so both are refused.
 */
export function quoteShellArg(arg: string): string {
  if (arg.includes("\0")) {
    throw invalidParams(
      "Cannot pass a NUL character to the device shell: remove it from the argument",
    );
  }
  if (!arg.isWellFormed()) {
    throw invalidParams(
      "Cannot pass a lone UTF-16 surrogate to the device shell: send valid Unicode text",
    );
  }
  if (SAFE_WORD.test(arg) && !RESERVED_WORDS.has(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Quotes every element and joins them with single spaces: the command line adbd runs. */
export function quoteShellCommand(argv: readonly string[]): string {
  return argv.map(quoteShellArg).join(" ");
}
