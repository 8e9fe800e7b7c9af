/**
 * A diagnostic still collecting the lines after its first: javac's source line, caret and detail
 * lines (and a Dagger chain after them), Lint's source line and underline, the rest of a Kotlin
 * line a console hard-wrapped, a message printed on the next line, a manifest merger report's
 * indented message, a Gradle level line's run-on.
 * `continuePending` reads one line for it. Pure but for the pending diagnostic it fills in.
 */
import { clip } from "../core/text.ts";
import {
  caretColumn,
  isGeneratedPath,
  isJavacDetail,
  matchJavac,
  matchKotlin,
  matchLint,
  matchTaskHeader,
  underlineColumn,
} from "./build_parser_patterns.ts";
import { extendChain, isInjectionError } from "./injection_chain.ts";
import { type Diagnostic, MAX_MESSAGE_CHARS } from "./shared/diagnostic.ts";

/** A diagnostic still collecting the lines that follow it (source, caret/underline, details). */
export interface Pending {
  diag: Diagnostic;
  expect:
    | "source"
    | "caret"
    | "underline"
    | "detail"
    | "more"
    | "wrap"
    | "message"
    | "indented"
    | "listed"
    | "javac_message";
  /** For `wrap`: the diagnostic's line as read so far (a console hard-wrapped it). */
  wrapped?: string;
  /** For `wrap`: continuation lines joined so far. */
  wraps?: number;
  fromBlock: boolean;
  /** Old kapt prints javac's diagnostic with `e: ` before every line: its lines carry it too. */
  prefixed?: boolean;
  /** Blank lines skipped before a prefixed diagnostic's source line. */
  blanks?: number;
}

/**
 * Lines a hard-wrapped Kotlin diagnostic may continue on (PowerShell and some CI consoles cut
 * lines at the console width, here inside its `file://` URI, before `:line:col`).
 */
export const MAX_WRAP_LINES = 8;
/** A Kotlin line cut inside its URI: `e: file:///C:/x/src/main/java/com/exam` and no more. */
export const CUT_URI_RE = /^[ew]: (?:\[ksp\] )?file:\/\/\S*$/;
/** Lines that end a pending diagnostic's trailing lines because they start something new. */
const NEW_THING_RE =
  /^(?:> |\* |[ew]: |ERROR|WARNING|BUILD |FAILURE|AGPBI: |\d+ actionable task|\d+ errors?, \d+ warnings?)/;

/**
 * What a line was to the pending diagnostic: `"open"` its own, and more may follow; `"done"` its
 * own, and the last; `null` not its own (the diagnostic ends before it).
 */
type Taken = "open" | "done" | null;

/**
 * Reads one line for the pending diagnostic `p`. `atTopLevel`: the line is outside every `* …`
 * section of Gradle's failure report (only there may a level line run on).
 */
export function continuePending(p: Pending, text: string, atTopLevel: boolean): Taken {
  const inner = p.fromBlock ? text.replace(/^\s*(?:> )?/, "") : text;
  switch (p.expect) {
    case "source":
      if (
        text.trim() === "" || NEW_THING_RE.test(inner) || matchJavac(inner) || matchLint(inner)
      ) return null;
      p.expect = p.diag.source === "lint" ? "underline" : "caret";
      return "open";
    case "caret": {
      const col = caretColumn(text);
      if (col === null) {
        // The source line a narrow console wrapped: its rest starts at column 1 (a new javac
        // line would start at a drive or `/`).
        if (
          text.trim() === "" || /^\s|^(?:[A-Za-z]:[\\/]|\/)/.test(text) ||
          NEW_THING_RE.test(inner) || matchJavac(inner) || (p.wraps ?? 0) >= MAX_WRAP_LINES
        ) return null;
        p.wraps = (p.wraps ?? 0) + 1;
        return "open";
      }
      p.diag.column = col;
      p.expect = "detail";
      return "open";
    }
    case "underline": {
      const col = underlineColumn(text);
      if (col === null) return null;
      p.diag.column = col;
      return "done";
    }
    case "detail":
      if (isJavacDetail(text)) {
        p.diag.message = clip(`${p.diag.message}\n${text.trim()}`, MAX_MESSAGE_CHARS);
        return "open";
      }
      return isInjectionError(p.diag.message) && extendChain(p.diag, text) ? "open" : null;
    case "wrap":
      return continueWrapped(p, text, inner);
    case "indented":
      // The manifest merger's message: the tab- or space-indented lines under its report line.
      if (!/^\s+\S/.test(text) || NEW_THING_RE.test(inner)) return null;
      p.diag.message = clip(
        p.diag.message ? `${p.diag.message}\n${text.trim()}` : text.trim(),
        MAX_MESSAGE_CHARS,
      );
      return "open";
    case "javac_message":
      // javac's message, wrapped by the console onto the next line (`…Activity.java:40: error: `
      // then `cannot find symbol`); its source and caret lines follow.
      if (text.trim() === "" || NEW_THING_RE.test(inner)) return null;
      p.diag.message = clip(inner.trim(), MAX_MESSAGE_CHARS);
      p.expect = "source";
      return "open";
    case "listed":
      // R8 lists the rest of one diagnostic's missing definitions on the lines after it
      // (`ERROR: R8: Missing class X …` then `Missing class Y (referenced from: …)`).
      if (!/^(?:Missing (?:class|field|method) \S|\s+\S)/.test(text) || NEW_THING_RE.test(text)) {
        return null;
      }
      p.diag.message = clip(`${p.diag.message}\n${text.trim()}`, MAX_MESSAGE_CHARS);
      return "open";
    case "message":
      // A located Kotlin line always says something: an empty message was wrapped onto the
      // next line (`…Main.kt:7:8 ` + `Unresolved reference 'io'.`).
      if (text.trim() === "" || NEW_THING_RE.test(inner) || matchTaskHeader(text)) return null;
      p.diag.message = clip(inner.trim(), MAX_MESSAGE_CHARS);
      return "done";
    case "more":
      if (
        text.trim() === "" || NEW_THING_RE.test(text) || matchTaskHeader(text) || !atTopLevel
      ) return null;
      p.diag.message = clip(`${p.diag.message}\n${text.trim()}`, MAX_MESSAGE_CHARS);
      return "open";
  }
}

/**
 * The rest of a hard-wrapped Kotlin line: it does not start a new thing, and it is indented only
 * where the cut fell just after `:line:col`, before the message's space.
 */
function continueWrapped(p: Pending, text: string, inner: string): Taken {
  const cutAtPlace = /:\d+:\d+$/.test(p.wrapped ?? "");
  if (text === "" || (!cutAtPlace && /^\s/.test(text)) || NEW_THING_RE.test(text)) return null;
  const joined = p.wrapped + (p.fromBlock && !cutAtPlace ? inner : text);
  const k = matchKotlin(joined);
  if (k && k.file !== null) {
    Object.assign(p.diag, {
      file: k.file,
      line: k.line,
      column: k.column,
      message: clip(k.message, MAX_MESSAGE_CHARS),
    });
    if (isGeneratedPath(k.file)) p.diag.generated = true;
    if (k.message !== "") return "done";
    p.expect = "message";
    return "open";
  }
  if (CUT_URI_RE.test(joined) && (p.wraps ?? 0) < MAX_WRAP_LINES) {
    p.wrapped = joined;
    p.wraps = (p.wraps ?? 0) + 1;
    return "open";
  }
  return null;
}
