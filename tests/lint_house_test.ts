/** scripts/lint_house.ts: the size rules, on sources of the test's own. */
import { assertEquals } from "./assert.ts";
import plugin, { MAX_FILE_LINES, MAX_FUNCTION_LINES } from "../scripts/lint_house.ts";

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
  assertEquals(rulesHit("lib/a/b.ts", fn("g", MAX_FUNCTION_LINES)), [], "the limit itself is fine");
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
