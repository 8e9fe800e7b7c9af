/** lib/ui/actions.ts: input argv, text rules, the unicode snippet, pacing and drags. */
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import {
  type ActionClock,
  ActionPacer,
  clearKeys,
  drag,
  dragPath,
  inputFailure,
  inputTextChunks,
  longPressArgv,
  PAUSE_BEFORE_LIFT_MS,
  singleQuoteForSnippet,
  slowSwipeMs,
  unicodeTextArgv,
  unicodeTextSnippet,
} from "../../lib/ui/actions.ts";
import {
  chooseInterval,
  DEFAULT_MIN_ACTION_INTERVAL_MS,
  MAX_MIN_ACTION_INTERVAL_MS,
} from "../../lib/ui/shared/limits.ts";
import {
  hasAdbKeyboard,
  parseInputShown,
  parseSelectedIme,
} from "../../lib/android/input_method.ts";
import { MAX_TYPE_TEXT_BYTES } from "../../lib/ui/shared/text_rules.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { quoteShellArg } from "../../lib/adb/shell_quote.ts";
import { parseSh } from "../sim/sh_parse.ts";
import { shellResult } from "../fake_adb.ts";

/** What `input text` does with its argument (Input.sendText: `%s` is a space). */
function deviceReads(arg: string): string {
  return arg.replaceAll("%s", " ");
}

Deno.test("inputTextChunks() types spaces as %s and keeps a literal %s literal", () => {
  const text = "a b%sc 100% s";
  const chunks = inputTextChunks(text);
  assertEquals(chunks.map(deviceReads).join(""), text);
  assert(chunks.length >= 2, "split after the % that precedes s");
  assertEquals(inputTextChunks("hello world"), ["hello%sworld"]);
});

Deno.test("inputTextChunks() keeps chunks short and hostile punctuation as it is", () => {
  const text = `'"$(id)\`x\`;|&*?<>\\` + "x".repeat(450);
  const chunks = inputTextChunks(text, 200);
  assert(chunks.every((c) => [...c].length <= 200));
  assertEquals(chunks.map(deviceReads).join(""), text);
});

Deno.test("inputTextChunks() refuses what input text cannot type, empty and oversized text", () => {
  const e = assertThrows(() => inputTextChunks("naïve"), ToolError);
  assertEquals(e.code, "invalid_params");
  assertStringIncludes(e.message, "ui_type_text_unicode");
  assertEquals(assertThrows(() => inputTextChunks(""), ToolError).code, "invalid_params");
  const big = assertThrows(() => inputTextChunks("x".repeat(MAX_TYPE_TEXT_BYTES + 1)), ToolError);
  assertStringIncludes(big.message, `limit is ${MAX_TYPE_TEXT_BYTES}`);
  inputTextChunks("x".repeat(MAX_TYPE_TEXT_BYTES));
});

Deno.test("unicodeTextSnippet() quotes the text inside the snippet so sh reads it back", () => {
  const text = `日本 'é' $(id) \`x\`; "q"\nnext`;
  assertEquals(singleQuoteForSnippet("it's"), `'it'"'"'s'`);
  const snippet = unicodeTextSnippet(text);
  const inner = parseSh(snippet);
  assert(inner.ok);
  assertEquals(inner.argv[0], ["am", "broadcast", "-a", "ADB_INPUT_TEXT", "--es", "msg", text]);
  assertEquals(inner.argv[1].slice(0, 6), [
    "am",
    "broadcast",
    "-a",
    "ADB_INPUT_B64",
    "--es",
    "msg",
  ]);
  assertEquals(inner.unquoted, ["||"], "the only unquoted metacharacter is the snippet's own ||");
  const argv = unicodeTextArgv(text);
  assertEquals(argv, ["sh", "-c", snippet]);
  // What the client sends reads back as sh -c and the snippet as ONE argument, nothing unquoted.
  const outer = parseSh(argv.map(quoteShellArg).join(" "));
  assertEquals(outer.argv, [["sh", "-c", snippet]]);
  assertEquals(outer.injection, false);
});

Deno.test("hasAdbKeyboard(), parseInputShown(), inputFailure() read real output shapes", () => {
  assert(
    hasAdbKeyboard(
      "com.google.android.inputmethod.latin/.LatinIME\ncom.android.adbkeyboard/.AdbIME\n",
    ),
  );
  assert(!hasAdbKeyboard("com.google.android.inputmethod.latin/.LatinIME\n"));
  assertEquals(parseInputShown("  mInputShown=true\n"), true);
  assertEquals(parseInputShown("  mInputShown=false\n"), false);
  assertEquals(parseInputShown("nothing"), null);
  assertEquals(inputFailure({ exitCode: 0, stdout: "", stderr: "" }), null);
  const f = inputFailure({
    exitCode: null,
    stdout: "Exception occurred while executing 'text':\njava.lang.NullPointerException: x\n",
    stderr: "",
  });
  assertStringIncludes(f!, "java.lang.NullPointerException");
  assert(
    inputFailure({ exitCode: 255, stdout: "", stderr: "Error: Unknown command: motionevent" }),
  );
});

Deno.test("longPressArgv(), dragPath(), slowSwipeMs() and clearKeys()", () => {
  assertEquals(longPressArgv({ x: 5, y: 6 }, 800), ["input", "swipe", "5", "6", "5", "6", "800"]);
  const path = dragPath({ x: 0, y: 1000 }, { x: 0, y: 200 }, 4);
  assertEquals(path.map((p) => p.y), [800, 600, 400, 200]);
  assert(slowSwipeMs({ x: 0, y: 1000 }, { x: 0, y: 0 }, 100) >= 1500);
  assertEquals(clearKeys(2), ["KEYCODE_MOVE_END", "KEYCODE_DEL", "KEYCODE_DEL"]);
  assertEquals(clearKeys(10_000).length, 1001);
});

Deno.test("chooseInterval() prefers the flag, then the setting, clamped", () => {
  assertEquals(chooseInterval(null, undefined), DEFAULT_MIN_ACTION_INTERVAL_MS);
  assertEquals(chooseInterval(null, 50), 50);
  assertEquals(chooseInterval(0, 500), 0);
  assertEquals(chooseInterval(null, "fast"), DEFAULT_MIN_ACTION_INTERVAL_MS);
  assertEquals(chooseInterval(null, 1e9), MAX_MIN_ACTION_INTERVAL_MS);
  assertEquals(chooseInterval(null, -5), 0);
});

Deno.test("ActionPacer waits out the gap per device and remembers lists", async () => {
  let now = 1_000;
  const pacer = new ActionPacer<string>(() => Promise.resolve(300), () => now);
  assertEquals(await pacer.waitFor("a"), 0);
  pacer.done("a");
  now += 100;
  assertEquals(await pacer.waitFor("a"), 200);
  assertEquals(await pacer.waitFor("b"), 0, "other devices are not paced");
  now += 250;
  assertEquals(await pacer.waitFor("a"), 0);
  assertEquals(pacer.swapList("a", "first"), null);
  assertEquals(pacer.swapList("a", "second"), "first");
  assertEquals(pacer.lastList("a"), "second");
});

/** A clock that only moves when drag() waits on it. */
function virtualClock(): ActionClock {
  let t = 1_000;
  return {
    now: () => t,
    delay: (ms: number) => {
      t += ms;
      return Promise.resolve();
    },
  };
}

Deno.test("drag() sends DOWN, MOVEs, a pause, UP; falls back to a slow swipe", async () => {
  const clock = virtualClock();
  const sent: { argv: readonly string[]; at: number }[] = [];
  const adb = {
    shell(_s: string, argv: readonly string[]) {
      sent.push({ argv, at: clock.now() });
      return Promise.resolve(shellResult(""));
    },
  };
  const r = await drag(adb, "s", { x: 10, y: 900 }, { x: 10, y: 500 }, 40, undefined, clock);
  assertEquals(r.method, "motionevent");
  const actions = sent.map((e) => e.argv[2]);
  assertEquals(actions, ["DOWN", "MOVE", "MOVE", "MOVE", "MOVE", "UP"]);
  assertEquals(sent.at(-1)!.argv.slice(3), ["10", "500"]);
  assertEquals(sent.at(-1)!.at - sent.at(-2)!.at, PAUSE_BEFORE_LIFT_MS, "paused before lifting");
  assertEquals(r.durationMs, 40 + PAUSE_BEFORE_LIFT_MS, "the moves spread over the drag's time");

  const old: (readonly string[])[] = [];
  const oldAdb = {
    shell(_s: string, argv: readonly string[]) {
      old.push(argv);
      return Promise.resolve(
        argv[1] === "motionevent"
          ? shellResult("Error: Unknown command: motionevent\n", 255)
          : shellResult(""),
      );
    },
  };
  const f = await drag(oldAdb, "s", { x: 10, y: 900 }, { x: 10, y: 500 }, 40, undefined, clock);
  assertEquals(f.method, "swipe");
  assertEquals(old.at(-1)!.slice(0, 6), ["input", "swipe", "10", "900", "10", "500"]);
  assert(Number(old.at(-1)![6]) >= 600);
});

Deno.test("unicodeTextSnippet() hands am the text exactly, whatever it holds (real sh)", async () => {
  const hostile = [
    'it\'s "quoted" $HOME `id` $(reboot); rm -rf / | cat & \n next line',
    "'''",
    "日本語 — émoji 🎉",
    "*?[a-z]",
    "\\\\ back\\slash",
  ];
  for (const text of hostile) {
    const [, , snippet] = unicodeTextArgv(text);
    // A stand-in `am` that prints its arguments NUL-separated, then fails so the || branch runs too.
    const script = `am() { printf '%s\\0' "$@"; return 1; }; ${snippet}`;
    const out = await new Deno.Command("/bin/sh", { args: ["-c", script], stdout: "piped" })
      .output();
    const args = new TextDecoder().decode(out.stdout).split("\0");
    assertEquals(args.slice(0, 5), ["broadcast", "-a", "ADB_INPUT_TEXT", "--es", "msg"]);
    assertEquals(args[5], text);
    assertEquals(args.slice(6, 11), ["broadcast", "-a", "ADB_INPUT_B64", "--es", "msg"]);
    const b64 = args[11];
    assertEquals(
      new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))),
      text,
    );
  }
});

Deno.test("parseSelectedIme() reads mCurMethodId from dumpsys input_method", () => {
  const dump =
    "Current Input Method Manager state:\n  mCurMethodId=com.android.adbkeyboard/.AdbIME\n" +
    "  mCurFocusedWindow=Window{1 u0 com.ex/.Main}\n";
  assertEquals(parseSelectedIme(dump), "com.android.adbkeyboard/.AdbIME");
  assertEquals(parseSelectedIme("  mCurMethodId=null\n"), null);
  assertEquals(parseSelectedIme("nothing here"), null);
});
