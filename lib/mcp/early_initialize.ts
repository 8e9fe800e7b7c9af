/**
 * The early `initialize` answer on stdio. Most of start-up is loading the MCP SDK (its engine and
 * the zod schemas of every protocol message), the tool registry and the workers' clients, and
 * `initialize` needs none of it: its answer is the session's identity and instructions
 * (lib/mcp/initialize.ts). So `keynobi --mcp` reads stdin up to the first message as soon as it
 * knows them (`LineTransport.readAhead`), answers a first `initialize` here, and once the SDK has
 * loaded tells the session the client's `initialize` params (`SessionHandlers.initialize`, whose
 * answer is dropped) and lets the transport read on.
 *
 * The answer is the one the session's handler gives under the SDK, byte for byte: the same
 * function builds the result, and the envelope is the SDK's (`{result, jsonrpc, id}`, the order its
 * `Protocol` writes). Only a plain request is answered early: exactly the members the SDK's
 * JSON-RPC request schema allows, params with a string `protocolVersion` and without `_meta` or
 * `task` (progress, related tasks, task augmentation: the SDK's own handling). Anything else waits
 * for the SDK, which answers it as it always has.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { initializeResult, type ServerIdentity } from "./initialize.ts";
import type { EarlyAnswer } from "./line_transport.ts";

/** The members of a JSON-RPC request (the SDK's schema for one is strict). */
const REQUEST_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);

/** What the early answer needs to hand on: the client's params, for the session to learn. */
export interface EarlyInitialize {
  params: Record<string, unknown>;
}

/**
 * The answer to `message` when it is a plain `initialize` request (see above), else null. `seen`
 * is called with the params of an answered one.
 */
function earlyInitializeAnswer(
  message: JSONRPCMessage,
  server: ServerIdentity,
  seen: (early: EarlyInitialize) => void,
): JSONRPCMessage | null {
  const m = message as Record<string, unknown>;
  if (m.method !== "initialize" || !("id" in m)) return null;
  const id = m.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return null;
  for (const k of Object.keys(m)) if (!REQUEST_MEMBERS.has(k)) return null;
  const params = m.params;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return null;
  const p = params as Record<string, unknown>;
  if ("_meta" in p || "task" in p || typeof p.protocolVersion !== "string") return null;
  const { result } = initializeResult(p, server);
  seen({ params: p });
  return { result, jsonrpc: "2.0", id } as unknown as JSONRPCMessage;
}

/**
 * The answer to a plain `tools/list` (no params, or empty ones) from the listing of every served
 * tool in registry order — the entries the session itself would list (lib/cli/bundle.ts's
 * `bundledListing`) — else null (no listing, a cursor, `_meta`, other members).
 */
function earlyToolsListAnswer(
  message: JSONRPCMessage,
  served: readonly unknown[] | null,
): JSONRPCMessage | null {
  if (served === null) return null;
  const m = message as Record<string, unknown>;
  if (m.method !== "tools/list" || !("id" in m)) return null;
  const id = m.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return null;
  for (const k of Object.keys(m)) if (!REQUEST_MEMBERS.has(k)) return null;
  const params = m.params;
  if (params !== undefined) {
    if (typeof params !== "object" || params === null || Array.isArray(params)) return null;
    if (Object.keys(params).length > 0) return null;
  }
  return { result: { tools: served }, jsonrpc: "2.0", id } as unknown as JSONRPCMessage;
}

/**
 * What `keynobi --mcp` answers while the SDK loads (`LineTransport.readAhead`): a first plain
 * `initialize`; then, read on while they come, `notifications/initialized` (it waits for the
 * session, which does nothing with it) and a plain `tools/list` when `served` gives the listing.
 * Anything else waits for the session and stops the reading ahead.
 */
export function earlyAnswers(
  server: ServerIdentity,
  served: () => readonly unknown[] | null,
  seen: (early: EarlyInitialize) => void,
): EarlyAnswer {
  let read = 0;
  return (message) => {
    const m = message as Record<string, unknown>;
    if (read++ === 0) {
      const answer = earlyInitializeAnswer(message, server, seen);
      return { answer, more: answer !== null };
    }
    if (m.method === "notifications/initialized" && !("id" in m)) {
      return { answer: null, more: true };
    }
    if (m.method === "tools/list") {
      return { answer: earlyToolsListAnswer(message, served()), more: false };
    }
    return { answer: null, more: false };
  };
}
