import { assert, assertEquals, assertThrows } from "../assert.ts";
import { quoteShellArg, quoteShellCommand } from "../../lib/adb/shell_quote.ts";

const SHELLS = ["/bin/sh", "/usr/bin/mksh", "/system/bin/sh"].filter((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});

const HOSTILE = [
  "",
  " ",
  "  two  spaces  ",
  "'",
  "''",
  '"',
  "\\",
  "\\'",
  "'\\''",
  "$HOME",
  "${HOME}",
  "$(id)",
  "`id`",
  "$((1+1))",
  "a;b",
  "a; reboot",
  "a|b",
  "a&b",
  "a&&b",
  "a||b",
  "a>b",
  "a<b",
  "2>/dev/null",
  "*",
  "?",
  "[a]",
  "/sdcard/*.png",
  "~",
  "~root",
  "\n",
  "a\nb",
  "\r\n",
  "\t",
  "#comment",
  "a #b",
  "!x",
  "{a,b}",
  "a=b",
  "FOO=bar",
  "if",
  "then",
  "done",
  "function",
  "-n",
  "--",
  "-e",
  "%s%n",
  "ünïcödé",
  "日本語",
  "😀 emoji",
  "\u00a0nbsp",
  "\u202eRLO",
  "\x01\x02\x1b[31m\x7f",
  "$'x'",
  "a\"b'c`d$e\\f",
  "x".repeat(5000),
];

function randomString(rand: () => number): string {
  const pool = [
    ..."abcXYZ019 _-./:,@%+=",
    ..."'\"\\$`;|&<>(){}[]*?~#!^\n\t\r",
    "\x01",
    "\x7f",
    "é",
    "ß",
    "中",
    "😀",
    "\u200b",
  ];
  const len = Math.floor(rand() * 40);
  let s = "";
  for (let i = 0; i < len; i++) s += pool[Math.floor(rand() * pool.length)];
  return s;
}

/** A small deterministic PRNG (mulberry32) so a failure can be replayed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `printf '%s\0' <quoted args>` through a real shell and splits what it printed. */
async function roundTrip(shell: string, args: string[]): Promise<string[]> {
  const script = `printf '%s\\0' ${args.map(quoteShellArg).join(" ")}`;
  const out = await new Deno.Command(shell, {
    args: ["-c", script],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert(out.success, `${shell} failed: ${new TextDecoder().decode(out.stderr)}`);
  const text = new TextDecoder().decode(out.stdout);
  const parts = text.split("\0");
  assertEquals(parts.pop(), "", "output ends with NUL");
  return parts;
}

for (const shell of SHELLS) {
  Deno.test(`quoteShellArg() round-trips hostile strings through ${shell}`, async () => {
    assertEquals(await roundTrip(shell, HOSTILE), HOSTILE);
  });

  Deno.test(`quoteShellArg() round-trips 600 random strings through ${shell}`, async () => {
    const seed = 20241130;
    const rand = mulberry32(seed);
    for (let batch = 0; batch < 6; batch++) {
      const args = Array.from({ length: 100 }, () => randomString(rand));
      assertEquals(await roundTrip(shell, args), args, `seed ${seed} batch ${batch}`);
    }
  });

  Deno.test(`quoteShellArg() keeps reserved words commands in ${shell}`, async () => {
    // `'if'` in command position must be a (missing) command, not syntax: exit 127, not 2.
    const out = await new Deno.Command(shell, {
      args: ["-c", quoteShellCommand(["if", "x"])],
      stdout: "null",
      stderr: "null",
    }).output();
    assertEquals(out.code, 127);
    const assign = await new Deno.Command(shell, {
      args: ["-c", quoteShellCommand(["FOO=bar"])],
      stdout: "null",
      stderr: "null",
    }).output();
    assertEquals(assign.code, 127, "FOO=bar ran as a command, not an assignment");
  });
}

if (SHELLS.length === 0) {
  console.error("shell_quote_test: no POSIX shell found, round trips skipped");
}

Deno.test("quoteShellArg() leaves safe words bare and quotes the rest", () => {
  assertEquals(quoteShellArg("com.example.app/.MainActivity"), "com.example.app/.MainActivity");
  assertEquals(quoteShellArg("-p"), "-p");
  assertEquals(quoteShellArg("KEYCODE_HOME"), "KEYCODE_HOME");
  assertEquals(quoteShellArg(""), "''");
  assertEquals(quoteShellArg("a b"), "'a b'");
  assertEquals(quoteShellArg("it's"), "'it'\\''s'");
  assertEquals(quoteShellArg("a=b"), "'a=b'");
  assertEquals(quoteShellArg("in"), "'in'");
});

Deno.test("quoteShellArg() refuses NUL and lone surrogates", () => {
  assertThrows(() => quoteShellArg("a\0b"), (e) => {
    assertEquals((e as { code: string }).code, "invalid_params");
  });
  assertThrows(() => quoteShellArg("\ud800"), (e) => {
    assertEquals((e as { code: string }).code, "invalid_params");
  });
});

Deno.test("quoteShellCommand() joins quoted words with single spaces", () => {
  assertEquals(
    quoteShellCommand(["am", "start", "-d", "myapp://x?a=1&b=2"]),
    "am start -d 'myapp://x?a=1&b=2'",
  );
});
