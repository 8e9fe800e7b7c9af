/** tests/module_closure.ts: which imports the start-up and main-thread closure checks follow. */
import { assertEquals } from "./assert.ts";
import { valueImports } from "./module_closure.ts";

Deno.test("value imports: static, bare and dynamic ones count; type-only ones do not", () => {
  const src = [
    'import { a } from "./a.ts";',
    'import type { B } from "./b.ts";',
    'export type { C } from "./c.ts";',
    'export { d } from "./d.ts";',
    'import "./e.ts";',
    'const f = await import("./f.ts");',
    '// import { g } from "./g.ts";',
  ].join("\n");
  assertEquals(valueImports(src).sort(), ["./a.ts", "./d.ts", "./e.ts", "./f.ts"]);
});
