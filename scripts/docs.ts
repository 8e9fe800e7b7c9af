/** `deno task docs`: rewrite the generated tool table in docs/MCP_SERVER.md from the registry. */
import { renderToolTable, withToolTable } from "../lib/mcp/docs_table.ts";
import { fileOfTool, TOOLS } from "../lib/tools/registry.ts";

const path = new URL("../docs/MCP_SERVER.md", import.meta.url);
const doc = await Deno.readTextFile(path);
const next = withToolTable(doc, renderToolTable(TOOLS, fileOfTool));
if (next !== doc) {
  await Deno.writeTextFile(path, next);
  console.error("docs/MCP_SERVER.md: tool table updated");
} else {
  console.error("docs/MCP_SERVER.md: tool table already up to date");
}
