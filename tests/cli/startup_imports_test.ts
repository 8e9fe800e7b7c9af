/**
 * What `keynobi --mcp` loads before it answers `initialize` on stdio: main.ts and what it loads
 * with itself, then lib/cli/mcp.ts and what that loads with itself. None of it is the MCP SDK,
 * zod, a `node:` module, the tool registry, the session or the runtime: those load after the
 * early answer (lib/mcp/early_initialize.ts), and the other commands load only when run.
 */
import { assert } from "../assert.ts";
import { closure } from "../module_closure.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("the modules loaded before the early initialize answer hold no SDK, zod or registry", async () => {
  const first = await closure(new URL("main.ts", ROOT), { dynamic: false });
  const mcp = await closure(new URL("lib/cli/mcp.ts", ROOT), { dynamic: false });
  assert(!first.has(new URL("lib/cli/mcp.ts", ROOT).href), "main.ts loads lib/cli/mcp.ts lazily");
  assert(mcp.has(new URL("lib/mcp/early_initialize.ts", ROOT).href), "it reaches the early answer");
  assert(mcp.has(new URL("lib/mcp/line_transport.ts", ROOT).href), "and the transport");
  const loaded = [...first, ...mcp];
  for (const spec of loaded) {
    assert(!spec.startsWith("zod") && !spec.startsWith("npm:"), `start-up loads ${spec}`);
    assert(!spec.startsWith("@modelcontextprotocol/"), `start-up loads ${spec}`);
    // Node's compatibility layer (~7–10 ms to load): lib/core/path.ts instead of node:path.
    assert(!spec.startsWith("node:"), `start-up loads ${spec}`);
  }
  for (
    const f of [
      "lib/mcp/session.ts",
      "lib/mcp/server.ts",
      "lib/mcp/tool_def.ts",
      "lib/cli/runtime.ts",
      "lib/tools/registry.ts",
      "lib/cli/setup.ts",
      "lib/cli/status.ts",
      "lib/cli/trust.ts",
      "lib/cli/app.ts",
    ]
  ) {
    const href = new URL(f, ROOT).href;
    assert(!first.has(href) && !mcp.has(href), `start-up loads ${f}`);
  }
});
