/**
 * McpSessionServer (lib/mcp/session_server.ts) checks what the SDK's `Server` checks, case for case:
 * the same capabilities given to both, every method name either knows (and one neither does)
 * throws the same error, or none, from each check; and a session loads no `Server`, so no Ajv.
 */
import { assert, assertEquals } from "../assert.ts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpSessionServer } from "../../lib/mcp/session_server.ts";
import { SERVER_CAPABILITIES } from "../../lib/mcp/initialize.ts";
import { closure } from "../module_closure.ts";

const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tasks/cancel",
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
  "notifications/message",
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/elicitation/complete",
  "notifications/cancelled",
  "notifications/progress",
  "x/unknown",
];
const CHECKS = [
  "assertCapabilityForMethod",
  "assertNotificationCapability",
  "assertRequestHandlerCapability",
  "assertTaskCapability",
  "assertTaskHandlerCapability",
];

function outcome(target: unknown, check: string, method: string): string {
  try {
    (target as Record<string, (m: string) => void>)[check](method);
    return "ok";
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
}

Deno.test("McpSessionServer's capability checks answer as the SDK's Server's", () => {
  for (
    const caps of [
      { ...SERVER_CAPABILITIES },
      {},
      { tools: {}, logging: {}, completions: {}, tasks: { requests: { tools: { call: {} } } } },
    ]
  ) {
    const ours = new McpSessionServer(caps);
    const sdk = new Server({ name: "t", version: "1" }, { capabilities: caps });
    for (const check of CHECKS) {
      for (const m of METHODS) {
        assertEquals(outcome(ours, check, m), outcome(sdk, check, m), `${check}(${m})`);
      }
    }
  }
});

Deno.test("a session's modules do not load the SDK's Server (nor Ajv with it)", async () => {
  const mods = await closure(new URL("../../lib/mcp/session.ts", import.meta.url));
  assert(
    [...mods].some((m) => m.startsWith("@modelcontextprotocol/sdk/shared/protocol")),
    "it uses the SDK's Protocol",
  );
  for (const m of mods) assert(!m.startsWith("@modelcontextprotocol/sdk/server/"), m);
  for (const m of mods) assert(!m.includes("ajv"), m);
});
