/**
 * The main thread never loads the UI worker's code: following every value import (static and
 * dynamic; `import type` is erased) from main.ts never reaches grpc-js, proto-loader, the modules
 * that use them, nor the capture, settle and element-list code (limits both sides need live in
 * leaf modules). Workers are started by URL, not imported, so their code is not followed.
 */
import { assert, assertEquals } from "../assert.ts";
import { closure, valueImports } from "../module_closure.ts";

const ROOT = new URL("../../", import.meta.url);

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

Deno.test("the main thread's module closure has no gRPC, capture or settle code", async () => {
  const mods = await closure(new URL("main.ts", ROOT));
  assert(mods.has(new URL("lib/ui/client.ts", ROOT).href), "the closure reaches the UI client");
  assert(mods.has(new URL("lib/cli/mcp.ts", ROOT).href), "and the MCP launcher");
  const forbidden = [
    "@grpc/grpc-js",
    "@grpc/proto-loader",
    new URL("lib/emulator/grpc_client.ts", ROOT).href,
    new URL("lib/emulator/link.ts", ROOT).href,
    new URL("lib/emulator/touch.ts", ROOT).href,
    new URL("lib/emulator/frames.ts", ROOT).href,
    new URL("lib/ui/fast_paths.ts", ROOT).href,
    new URL("lib/ui/jpeg.ts", ROOT).href,
    new URL("lib/ui/act_service.ts", ROOT).href,
    new URL("lib/ui/actions.ts", ROOT).href,
    new URL("lib/ui/ui_service.ts", ROOT).href,
    new URL("lib/ui/capture.ts", ROOT).href,
    new URL("lib/ui/settle.ts", ROOT).href,
    new URL("lib/ui/automator_lock.ts", ROOT).href,
    new URL("lib/ui/element_list.ts", ROOT).href,
    new URL("lib/ui/hierarchy.ts", ROOT).href,
    new URL("lib/ui/screenshot.ts", ROOT).href,
    "fast-xml-parser",
  ];
  for (const f of forbidden) assert(!mods.has(f), `the main thread loads ${f}`);
});
