/** scripts/lint_house.ts: the size rules, on sources of the test's own. */
import { assert, assertEquals } from "./assert.ts";
import plugin, {
  LONG_FUNCTION_LINES,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
} from "../scripts/lint_house.ts";

const body = (n: number) => Array.from({ length: n }, (_, i) => `  x${i};`).join("\n");
const fn = (name: string, lines: number) => `function ${name}() {\n${body(lines - 2)}\n}\n`;

function rulesHit(filename: string, source: string): string[] {
  return Deno.lint.runPlugin(plugin, filename, source).map((d) => d.id);
}

Deno.test("a function over the limit is reported in lib/ and workers/, not elsewhere", () => {
  const long = fn("f", MAX_FUNCTION_LINES + 1);
  assertEquals(rulesHit("lib/a/b.ts", long), ["house/max-function-lines"]);
  assertEquals(rulesHit("workers/w.ts", long), ["house/max-function-lines"]);
  assertEquals(rulesHit("tests/a_test.ts", long), []);
  assertEquals(
    rulesHit("lib/a/b.ts", fn("g", MAX_FUNCTION_LINES)),
    ["house/long-function"],
    "the cap itself is within the cap (it only has to say why it is one)",
  );
});

Deno.test("methods, arrows and function expressions count as functions", () => {
  const inner = body(MAX_FUNCTION_LINES);
  const cls = `class A {\n  m() {\n${inner}\n  }\n}\n`;
  const arrow = `const f = () => {\n${inner}\n};\n`;
  assertEquals(rulesHit("lib/a.ts", cls), ["house/max-function-lines"]);
  assertEquals(rulesHit("lib/a.ts", arrow), ["house/max-function-lines"]);
});

Deno.test("a file over the limit is reported once", () => {
  const small = (i: number) => `export const c${i} = ${i};`;
  const text = (n: number) => Array.from({ length: n }, (_, i) => small(i)).join("\n") + "\n";
  assertEquals(rulesHit("lib/a.ts", text(MAX_FILE_LINES)), []);
  assertEquals(rulesHit("lib/a.ts", text(MAX_FILE_LINES + 1)), ["house/max-file-lines"]);
});

Deno.test("a function over LONG_FUNCTION_LINES is asked for its reason, up to the cap", () => {
  assertEquals(rulesHit("lib/a.ts", fn("f", LONG_FUNCTION_LINES)), []);
  assertEquals(rulesHit("lib/a.ts", fn("f", LONG_FUNCTION_LINES + 1)), ["house/long-function"]);
  assertEquals(rulesHit("lib/a.ts", fn("f", MAX_FUNCTION_LINES)), ["house/long-function"]);
  assertEquals(rulesHit("tests/a_test.ts", fn("f", LONG_FUNCTION_LINES + 1)), []);
});

Deno.test("lib/ and workers/ waive no cap, and every long function says why it is one", async () => {
  const root = new URL("../", import.meta.url).pathname;
  const bare: string[] = [];
  const capped: string[] = [];
  let reasons = 0;
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(root + dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (/\.(ts|js)$/.test(e.name)) {
        const lines = (await Deno.readTextFile(root + path)).split("\n");
        lines.forEach((line, i) => {
          if (/deno-lint-ignore(-file)?\s.*house\/max-/.test(line)) capped.push(`${path}:${i + 1}`);
          const m = /deno-lint-ignore\s+house\/long-function(.*)$/.exec(line);
          if (!m) return;
          // A reason of a few words after ` -- `, not a bare waiver.
          if (/^\s+--\s+\S.{12,}/.test(m[1])) reasons++;
          else bare.push(`${path}:${i + 1}`);
        });
      }
    }
  };
  await walk("lib");
  await walk("workers");
  assertEquals(capped, [], "the file and function caps are never waived");
  assertEquals(bare, [], "a long function's ignore gives its reason");
  assert(reasons > 0, "the long functions of lib/ were found with their reasons");
});
