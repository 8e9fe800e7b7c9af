/**
 * Invariants of the build parser over every real Gradle console in tests/fixtures/corpus/gradle
 * (sources in its SOURCES.md). Ground truth is an independent reading written here: a small
 * scanner of compiler error lines (Kotlin `e:`, javac `error:`, AAPT2, Lint `Error:`) that knows
 * nothing of the parser's state machine. Properties, not snapshots:
 * - every compiler error line is exactly one diagnostic (same file, line, column and message);
 * - `error_count` is exact: the distinct compiler errors (javac's by its own `N errors` where it
 *   printed one) plus the failures Gradle explains only in words (at most one per `What went
 *   wrong` block), kept or not;
 * - decoding is the same whole or in chunks of any size (the live reader), and UTF-16 decodes.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  decodeGradleOutput,
  GradleOutputDecoder,
  stripAnsi,
} from "../../lib/build/build_output_decode.ts";
import { parseBuildOutput } from "../build/parse_build_output.ts";
import { fileUriToPath } from "../../lib/build/build_parser_patterns.ts";

const DIR = new URL("../fixtures/corpus/gradle/", import.meta.url);
const FILES = [...Deno.readDirSync(DIR)]
  .filter((e) => e.isFile && e.name !== "SOURCES.md")
  .map((e) => e.name)
  .sort();

/** Task kinds the scanner tells apart, as a compiler's name for itself would. */
function toolOf(task: string, line: string): string {
  const name = task.slice(task.lastIndexOf(":") + 1);
  if (line.includes("[ksp]") || /^ksp/.test(name)) return "ksp";
  if (/^kapt(?!GenerateStubs)/.test(name)) return "kapt";
  return "compiler";
}

interface ErrorLine {
  key: string;
  /** Times the line is printed in one place (javac: two errors on one line, same message). */
  times: number;
  file: string;
  line: number | null;
  column: number | null;
  message: string;
}

/**
 * The independent reading: distinct compiler error lines of a console, each with its place.
 * Gradle's second copy (inside `What went wrong`, after `> `) has the same key.
 */
function scanErrorLines(
  text: string,
): { placed: ErrorLine[]; unplaced: number; javac: number } {
  const out = new Map<string, ErrorLine>();
  const javac = new Set<string>();
  const count = new Set<string>();
  let task = "";
  // Undo console hard-wraps of `e: file://…` lines (PowerShell cuts at the window width; its
  // first stderr line also carries `.\gradlew : `, or `./gradlew : ` when typed that way).
  const raws: string[] = [];
  for (const l of text.split("\n").map((l) => l.replace(/^(?:\.[\\/])?gradlew(?:\.bat)? : /, ""))) {
    const prev = raws.at(-1);
    if (prev !== undefined && /^\s*(?:> )?[ew]: \S+$/.test(prev) && /^\S/.test(l)) {
      raws[raws.length - 1] = prev + l;
    } else raws.push(l);
  }
  // A manifest merger report line wrapped the same way (`…\src\main\Android` + `Manifest.xml
  // Error:`): back to the line its path starts on (`[lib]`, a drive or `/`), within 8 lines.
  for (let i = 0; i < raws.length; i++) {
    if (!/^(?: ?|\S*\.xml )Error:$/.test(raws[i]) || /^(?:\[|[A-Za-z]:\\|\/)/.test(raws[i])) {
      continue;
    }
    for (let j = i - 1; j >= Math.max(0, i - 8); j--) {
      if (!/^(?:\[|[A-Za-z]:\\|\/)/.test(raws[j])) continue;
      raws.splice(j, i - j + 1, raws.slice(j, i + 1).join(""));
      i = j;
      break;
    }
  }
  // A javac line cut at the console width, its path over several lines (`D:\appoi` /
  // `ntivahealth\app\…` / `ty.java:40: error: `): from a line that starts at a drive or `/`
  // and is no whole javac line, joined on (unindented lines, at most 8) until it is one.
  const JAVAC_LINE = /^(\S.*?\.java):(\d+): error: (.*)$/;
  for (let i = 0; i < raws.length; i++) {
    const head = raws[i].replace(/^\s+/, "");
    if (!/^(?:[A-Za-z]:\\|\/)\S/.test(head) || JAVAC_LINE.test(head)) continue;
    let joined = head;
    for (let j = i + 1; j < Math.min(raws.length, i + 9) && !/^\s/.test(raws[j]); j++) {
      joined += raws[j];
      if (!JAVAC_LINE.test(joined)) continue;
      raws.splice(i, j - i + 1, raws[i].slice(0, raws[i].length - head.length) + joined);
      break;
    }
  }
  // Per key, its count in each place: console (0) and Gradle's `What went wrong` copy (1).
  const seen = new Map<string, [number, number]>();
  let place = 0;
  for (const [i, raw] of raws.entries()) {
    const t = /^> Task (\S+)/.exec(raw);
    if (t) task = t[1];
    if (/^(?:\* What went wrong:|FAILURE: )/.test(raw)) place = 1;
    else if (/^(?:\* Try:|BUILD |> Task )/.test(raw)) place = 0;
    const line = raw.replace(/^\s*(?:> )?/, "");
    let m = /^e: (?:\[ksp\] )?(file:\/\/\S+?):(\d+):(\d+):? (.*)$/.exec(line);
    let e: Omit<ErrorLine, "key" | "times"> | null = null;
    if (m) {
      // No K2 error is empty: one that ends at its place had its message wrapped to the next line.
      const message = m[4].trim() || (raws[i + 1] ?? "").replace(/^\s*(?:> )?/, "").trim();
      e = { file: fileUriToPath(m[1]), line: +m[2], column: +m[3], message };
    } else if ((m = /^e: (?:\[ksp\] )?(\S.*?\.kts?): \((\d+), (\d+)\): (.*)$/.exec(line))) {
      e = { file: m[1], line: +m[2], column: +m[3], message: m[4].trim() };
    } else if ((m = /^(\S.*?\.java):(\d+): error: (.*)$/.exec(line))) {
      // javac always says something: an empty message went to the next line with the cut.
      const message = m[3].trim() || (raws[i + 1] ?? "").trim();
      e = { file: m[1], line: +m[2], column: null, message };
    } else if ((m = /^(?:\[[^\]]+\] )?(\S.*?\.xml)(?::(\d+):(\d+)[-\d:]*)? Error:$/.exec(line))) {
      // The manifest merger: its report line, the message indented on the next line (past
      // PowerShell's error record, `At line:1 char:1` to a blank line, if one came between).
      let k = i + 1;
      if (/^At line:/.test(raws[k] ?? "")) { while (k < raws.length && raws[k].trim() !== "") k++; }
      if ((raws[k] ?? "x").trim() === "") k++;
      const message = (raws[k] ?? "").trim();
      e = { file: m[1], line: m[2] ? +m[2] : null, column: m[3] ? +m[3] : null, message };
    }
    if (!e) {
      // Counted, not placed: location-less `e:` lines, AAPT2 and Lint errors. An AAPT2 line is
      // keyed with its file: one missing resource named from two layouts is two errors.
      const other = /^e: (?:\[ksp\] )?(\S.*)$/.exec(line)?.[1] ??
        /^(?:ERROR: ?)?(.*AAPT: error: .*)$/.exec(line)?.[1] ??
        /^\S.*: Error: \S.*$/.exec(line)?.[0];
      if (other !== undefined) count.add([toolOf(task, raw), other.trim()].join("|"));
      continue;
    }
    const key = [toolOf(task, raw), e.file, e.line, e.column, e.message].join("|");
    if (/\.java$/.test(e.file) && !/^e: /.test(line)) javac.add(key);
    const n = seen.get(key) ?? [0, 0];
    n[place]++;
    seen.set(key, n);
    // Only javac, which prints no column, can print one line twice for two errors.
    out.set(key, { key, ...e, times: javac.has(key) ? Math.max(...n) : 1 });
  }
  const javacTimes = [...javac].reduce((a, k) => a + (out.get(k)?.times ?? 0), 0);
  return { placed: [...out.values()], unplaced: count.size, javac: javacTimes };
}

/**
 * javac's own count: the `N errors` line it ends with, summed over the javac tasks that printed
 * one (Gradle's indented copy inside `What went wrong` not counted again), or null when none did.
 */
function javacSays(text: string): number | null {
  let task = "";
  let total: number | null = null;
  for (const l of text.split("\n")) {
    const t = /^> Task (\S+)/.exec(l);
    if (t) task = t[1];
    const m = /^(\d+) errors?\s*$/.exec(l);
    if (m && /(?:JavaWithJavac|compileJava|:kapt(?!GenerateStubs)\w*)$/.test(task)) {
      total = (total ?? 0) + Number(m[1]);
    }
  }
  return total;
}

/** Failures said in words: `What went wrong` blocks and AGP's own `ERROR:` lines. */
function failureBlocks(text: string): number {
  return (text.match(/^\* What went wrong:/gm) ?? []).length +
    (text.match(/^(?:\S*gradlew(?:\.bat)? : )?ERROR: ?\S/gm) ?? []).length;
}

/**
 * Consoles whose compiler-error total is not compared (docs/CORPUS.md), each short of javac's own
 * `N errors`: javac output cut by PowerShell at 20 (hemanth1234583) and 58 (bydeok) columns, where
 * two errors on one line print the same message and the wrap leaves the second without its caret
 * (its source line's rest starts with a blank), so both have one place, message and no column.
 * The per-line property still holds for them.
 */
const OPEN_TOTALS = new Set([
  "bydeok-gradle_output2-caf1d33.txt", // 64 of javac's 65
  "hemanth1234583-build_errors-b291ffa.txt", // 14 of 16
  "hemanth1234583-error-5c21751.log", // 14 of 16
  "hemanth1234583-error_utf8-785e6a1.log", // 14 of 16
]);

function read(name: string): { bytes: Uint8Array; text: string } {
  const bytes = Deno.readFileSync(new URL(name, DIR));
  return { bytes, text: decodeGradleOutput(bytes) };
}

Deno.test("the gradle corpus holds at least 70 real consoles, each named in SOURCES.md", () => {
  assert(FILES.length >= 70, `${FILES.length} files`);
  const sources = Deno.readTextFileSync(new URL("SOURCES.md", DIR));
  const missing = FILES.filter((f) => !sources.includes("`" + f + "`"));
  assertEquals(missing, [], "every corpus file has a SOURCES row");
});

Deno.test("parseBuildOutput() on the gradle corpus: one diagnostic per error line, exact totals", () => {
  const problems: string[] = [];
  for (const name of FILES) {
    const { text } = read(name);
    const { summary } = parseBuildOutput(text);
    const { placed, unplaced, javac } = scanErrorLines(text);
    const errors = summary.diagnostics.filter((d) => d.severity === "error");
    // Each placed error line: exactly one kept diagnostic at its place (at most one past the cap).
    for (const l of placed) {
      const here = errors.filter((d) =>
        d.file === l.file && d.line === l.line &&
        (l.column === null || d.column === l.column || d.column === null)
      );
      const hits = here.filter((d) => d.message.split("\n")[0].trim() === l.message);
      // A narrow console cuts Gradle's indented copy of a message elsewhere than the first: a
      // copy cut short still names its diagnostic.
      const cut = here.filter((d) => {
        const m = d.message.split("\n")[0].trim();
        return l.message !== "" && m !== "" && (m.startsWith(l.message) || l.message.startsWith(m));
      });
      const none = hits.length === 0 && cut.length === 0;
      if (hits.length > l.times || (none && !summary.diagnostics_truncated)) {
        problems.push(`${name}: ${hits.length} diagnostics for ${l.file}:${l.line} ${l.message}`);
      }
    }
    // Totals: exactly the compiler's errors, plus at most one per failure said in words.
    const worded = errors.filter((d) =>
      d.source === "gradle" || d.source === "dependency_resolution" ||
      d.source === "configuration_cache"
    ).length;
    const compiler = summary.error_count - worded;
    // Where javac printed its own count, that is the reading of its errors: a console that cuts
    // lines at a narrow width cuts Gradle's indented copy of each elsewhere, and the scanner
    // cannot tell a copy cut short from another error.
    const said = javacSays(text);
    const lines = placed.reduce((a, l) =>
      a + l.times, 0);
    const expected = lines + unplaced - (said === null ? 0 : javac) + (said ?? 0);
    if (compiler !== expected && !OPEN_TOTALS.has(name)) {
      problems.push(
        `${name}: ${compiler} compiler errors counted, ${expected} read (${placed.length} placed, ` +
          `${unplaced} unplaced, javac says ${said})`,
      );
    }
    if (worded > failureBlocks(text)) {
      problems.push(`${name}: ${worded} worded errors for ${failureBlocks(text)} failures`);
    }
    if (summary.error_count > errors.length !== summary.diagnostics_truncated) {
      problems.push(`${name}: truncated is ${summary.diagnostics_truncated}`);
    }
    if (/^BUILD FAILED/m.test(text) && summary.status !== "failed") {
      problems.push(`${name}: status ${summary.status} for BUILD FAILED`);
    }
    // A report of failures in a build that succeeded (`dependencyInsight`'s `FAILED` variants) is
    // no error: where no build in the console failed, nothing counts as one.
    if (/^BUILD SUCCESSFUL/m.test(text) && !/^BUILD FAILED|^FAILURE: /m.test(text)) {
      if (summary.error_count !== 0) {
        problems.push(`${name}: ${summary.error_count} errors, no failure`);
      }
    }
  }
  assertEquals(problems, []);
});

Deno.test("the gradle corpus decodes the same whole and in chunks; UTF-16 has no NULs", () => {
  const sizes = [3, 64, 4096];
  let utf16 = 0;
  for (const name of FILES) {
    const { bytes, text } = read(name);
    if (bytes[0] === 0xff && bytes[1] === 0xfe) utf16++;
    assert(!text.includes("\u0000"), `${name}: NUL after decoding`);
    assert(!text.startsWith("\uFEFF"), `${name}: BOM kept`);
    for (const size of sizes) {
      const d = new GradleOutputDecoder();
      let s = "";
      for (let i = 0; i < bytes.length; i += size) s += d.decode(bytes.subarray(i, i + size));
      s += d.flush();
      assertEquals(
        stripAnsi(s.replace(/\r\n?/g, "\n")),
        text,
        `${name}: chunks of ${size} bytes decode differently`,
      );
    }
  }
  assert(utf16 >= 10, `${utf16} UTF-16 consoles`);
});
