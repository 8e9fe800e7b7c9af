import { assert, assertEquals } from "../assert.ts";
import { Capture, ShellRun, type ShFs } from "./sh_exec.ts";
import { parseSh } from "./sh_parse.ts";

interface Case {
  src: string;
  argv: string[][];
  unquoted?: string[];
  injection: boolean;
}

const CASES: Case[] = [
  { src: "getprop ro.product.model", argv: [["getprop", "ro.product.model"]], injection: false },
  { src: "echo 'a;b'", argv: [["echo", "a;b"]], unquoted: [], injection: false },
  { src: "echo a;b", argv: [["echo", "a"], ["b"]], unquoted: [";"], injection: true },
  { src: 'echo "a|b" c\\;d', argv: [["echo", "a|b", "c;d"]], unquoted: [], injection: false },
  { src: "echo a | grep b", argv: [["echo", "a"], ["grep", "b"]], injection: true },
  { src: "true && false || id", argv: [["true"], ["false"], ["id"]], injection: true },
  { src: "sleep 1 &", argv: [["sleep", "1"]], unquoted: ["&"], injection: true },
  { src: "echo $(id)", argv: [["id"], ["echo", "$(id)"]], unquoted: ["$("], injection: true },
  { src: 'echo "$(id)"', argv: [["id"], ["echo", "$(id)"]], unquoted: ["$("], injection: true },
  { src: "echo `id`", argv: [["id"], ["echo", "`id`"]], unquoted: ["`"], injection: true },
  { src: "echo '$(id)' '`x`'", argv: [["echo", "$(id)", "`x`"]], unquoted: [], injection: false },
  { src: "ls /sdcard/*.png", argv: [["ls", "/sdcard/*.png"]], unquoted: ["*"], injection: true },
  { src: "ls a?c", argv: [["ls", "a?c"]], unquoted: ["?"], injection: true },
  { src: "ls [ab]c", argv: [["ls", "[ab]c"]], unquoted: ["["], injection: true },
  { src: "[ -e /x ]", argv: [["[", "-e", "/x", "]"]], unquoted: [], injection: false },
  { src: "ls '*' \\* \"?\"", argv: [["ls", "*", "*", "?"]], unquoted: [], injection: false },
  { src: "echo a\nid", argv: [["echo", "a"], ["id"]], unquoted: ["\n"], injection: true },
  { src: "echo 'a\nb'", argv: [["echo", "a\nb"]], unquoted: [], injection: false },
  {
    src: "pm list packages 2>/dev/null",
    argv: [["pm", "list", "packages"]],
    unquoted: [">"],
    injection: false,
  },
  { src: "cat x >/dev/null 2>&1", argv: [["cat", "x"]], unquoted: [">", ">&"], injection: false },
  { src: "cat </sdcard/a", argv: [["cat"]], unquoted: ["<"], injection: false },
  { src: "echo $HOME", argv: [["echo", "$HOME"]], unquoted: ["$"], injection: false },
  { src: "echo '$HOME' \"x\"", argv: [["echo", "$HOME", "x"]], unquoted: [], injection: false },
  { src: "X=1 env", argv: [["env"]], injection: false },
  { src: "echo a#b #c", argv: [["echo", "a#b"]], unquoted: ["#"], injection: false },
  { src: "(id)", argv: [["id"]], unquoted: ["("], injection: true },
  {
    src: "am start -n 'com.x/.Main' --es k 'a b'",
    argv: [["am", "start", "-n", "com.x/.Main", "--es", "k", "a b"]],
    unquoted: [],
    injection: false,
  },
  {
    // What a correct argv quoting function emits for a single quote inside an argument.
    src: "echo 'it'\\''s'",
    argv: [["echo", "it's"]],
    unquoted: [],
    injection: false,
  },
  { src: 'echo "a\\"b\\$c\\\\d\\e"', argv: [["echo", 'a"b$c\\d\\e']], injection: false },
  {
    src: "export ANDROID_LOG_TAGS=''; exec logcat '-v' 'threadtime'",
    argv: [["export", "ANDROID_LOG_TAGS="], ["exec", "logcat", "-v", "threadtime"]],
    injection: true,
  },
];

for (const c of CASES) {
  Deno.test(`parseSh() reads ${JSON.stringify(c.src)} as sh would`, () => {
    const r = parseSh(c.src);
    assert(r.ok, `expected a parse, got ${!r.ok && r.error}`);
    assertEquals(r.argv, c.argv);
    if (c.unquoted) assertEquals(r.unquoted, c.unquoted);
    assertEquals(r.injection, c.injection);
  });
}

Deno.test("parseSh() reports syntax errors like mksh", () => {
  const cases: [string, string][] = [
    ["echo 'a", "no closing quote"],
    ['echo "a', "no closing quote"],
    ["echo a; )", "syntax error: unexpected ')'"],
    ["echo a | ; b", "syntax error: unexpected ';'"],
    ["; echo", "syntax error: unexpected ';'"],
    ["echo >", "syntax error: unexpected EOF"],
    ["echo $(id", "syntax error: unmatched '('"],
  ];
  for (const [src, error] of cases) {
    const r = parseSh(src);
    assert(!r.ok, `expected an error for ${src}`);
    assertEquals(r.error, error, src);
  }
});

function memFs(files: Record<string, string>): ShFs {
  const enc = new TextEncoder();
  const map = new Map<string, Uint8Array>(
    Object.entries(files).map(([k, v]) => [k, enc.encode(v)]),
  );
  const dirs = new Set([
    "/",
    "/sdcard",
    "/sdcard/Pictures",
    "/data",
    "/data/local",
    "/data/local/tmp",
  ]);
  return {
    read: (p) => map.get(p),
    isDir: (p) => dirs.has(p),
    write: (p, d, append) => {
      const old = append ? map.get(p) : undefined;
      map.set(p, old ? new Uint8Array([...old, ...d]) : d);
    },
    paths: () => [...dirs, ...map.keys()],
  };
}

async function runSim(src: string, fs = memFs({})) {
  const out = new Capture();
  const err = new Capture();
  const sh = new ShellRun({
    env: { HOME: "/", PWD: "/", EXTERNAL_STORAGE: "/sdcard" },
    fs,
    commands: () => null,
  });
  const status = await sh.runScript(src, {
    stdin: () => Promise.resolve(new TextEncoder().encode("in1\nin2\n")),
    out: out.write,
    err: err.write,
  });
  return { status, out: out.text(), err: err.text() };
}

Deno.test("ShellRun expands, splits, redirects and chains like sh", async () => {
  assertEquals((await runSim("echo $EXTERNAL_STORAGE/x")).out, "/sdcard/x\n");
  assertEquals((await runSim("X='a  b'; echo $X; echo \"$X\"")).out, "a b\na  b\n");
  assertEquals((await runSim("false || echo no; true && echo yes")).out, "no\nyes\n");
  assertEquals((await runSim("echo $(echo inner) `echo bq`")).out, "inner bq\n");
  assertEquals((await runSim("foo; echo $?")).out, "127\n");
  assertEquals(
    (await runSim("foo")).err,
    "/system/bin/sh: foo: inaccessible or not found\n",
  );
  assertEquals((await runSim("echo err >&2 2>/dev/null")).err, "err\n");
  assertEquals((await runSim("echo hidden 2>&1 >/dev/null")).out, "");
  assertEquals((await runSim("cat nope 2>&1")).out, "cat: nope: No such file or directory\n");
  assertEquals((await runSim("cat | cat")).out, "in1\nin2\n");
  assertEquals((await runSim("exit 300")).status, 44);
  assertEquals((await runSim("! true")).status, 1);
  assertEquals((await runSim("sh -c 'echo $0 $1' me arg")).out, "me arg\n");
  assertEquals((await runSim("printf '%s-%d|' a 5 b")).out, "a-5|b-0|");
  assertEquals((await runSim("printf '%5s|%-3s|%03d\\n' ab c 7")).out, "   ab|c  |007\n");
  assertEquals((await runSim("echo -n a; echo -e 'b\\tc'; echo 'x\\c' y")).out, "ab\tc\nx");
  const fs = memFs({ "/sdcard/a.png": "", "/sdcard/b.png": "", "/sdcard/c.txt": "" });
  assertEquals((await runSim("echo /sdcard/*.png", fs)).out, "/sdcard/a.png /sdcard/b.png\n");
  assertEquals((await runSim("echo /sdcard/*.gif", fs)).out, "/sdcard/*.gif\n");
  assertEquals((await runSim("echo hi >/sdcard/o.txt; cat /sdcard/o.txt", fs)).out, "hi\n");
  assertEquals((await runSim("echo x >/nodir/o")).status, 1);
});

const mksh = (() => {
  try {
    return Deno.statSync("/usr/bin/mksh").isFile ? "/usr/bin/mksh" : null;
  } catch {
    return null;
  }
})();
if (!mksh) {
  console.error("sh_parse_test: /usr/bin/mksh not installed: skipping the mksh comparison");
}

/** Scripts whose output only depends on sh itself, compared byte for byte with real mksh. */
const DIFFERENTIAL = [
  "echo 'a;b' \"c d\" e\\ f",
  "echo a;echo b",
  "echo a && echo b || echo c",
  "false && echo no || echo yes",
  'X=1; Y="$X 2"; echo $Y "$Y" \'$Y\'',
  'echo $(echo a; echo b) "$(echo c; echo d)"',
  "echo `echo x\\`echo y\\``",
  "printf '%s|%5s|%-4s|%d\\n' a b c 42",
  "printf '%s\\n' one two three",
  "echo -n x; echo y",
  "echo 'a\\tb' \"c\\nd\"",
  "exit 7",
  "true | false",
  "! false; echo $?",
  "sh -c 'echo $0 $# $1' zero one",
  "echo a # comment; echo b",
  "echo 'it'\\''s'",
  "A='x  y'; for_all=$A; echo $for_all",
  "(echo sub; exit 3); echo $?",
  'echo "${HOME_X}empty" ${#}',
  "echo a\\\nb",
  "echo out; echo err >&2",
  "echo 1 2>/dev/null; echo 2 2>&1",
  // "$@" keeps each argument one field (screen recordings pass their options this way).
  `sh -c 'printf "[%s]" "$@"; printf "<%s>" "a$@b"; printf "(%s)\\n" $#' zero 'x y' z`,
  `sh -c 'printf "[%s]\\n" "$@" end' zero`,
];

for (const src of DIFFERENTIAL) {
  Deno.test({
    name: `ShellRun matches mksh for ${JSON.stringify(src)}`,
    ignore: !mksh,
    fn: async () => {
      const real = await new Deno.Command(mksh!, {
        args: ["-c", src],
        env: { HOME: "/", PWD: "/" },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
        stdin: "null",
      }).output();
      const ours = await runSim(src);
      assertEquals(ours.out, new TextDecoder().decode(real.stdout), "stdout");
      assertEquals(ours.status, real.code, "status");
    },
  });
}
