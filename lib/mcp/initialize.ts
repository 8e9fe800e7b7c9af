/**
 * The `initialize` answer: the protocol revision we agree on, what we advertise and who we are.
 * One function gives it to both paths that answer it: the session's handler (lib/mcp/server.ts,
 * under the SDK's engine) and, on stdio, the early answer (lib/mcp/early_initialize.ts) that is
 * written before the SDK has loaded. This module loads nothing else (no zod, no SDK).
 */
import { RpcCode, RpcError } from "./jsonrpc.ts";

export const PROTOCOL_VERSION = "2025-11-25";
/**
 * Revisions we answer with when the client asks for one; anything else gets the latest. Not
 * 2025-03-26: it requires accepting JSON-RPC batches, which we refuse (every revision after it
 * removed them), so a client asking for it is offered 2025-11-25.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2024-11-05",
] as const;

/** What `initialize` advertises. */
export const SERVER_CAPABILITIES = { tools: {}, prompts: {}, resources: {} } as const;

/** Who answers: the server's title, version and instructions. */
export interface ServerIdentity {
  title: string;
  version: string;
  instructions: string;
}

/** Longest client name kept from `clientInfo.name`. */
const MAX_CLIENT_NAME_CHARS = 200;

/**
 * The result of `initialize` for these params, and the client's name (`clientInfo.name`, cut to
 * MAX_CLIENT_NAME_CHARS) when it sent one. Throws an invalid-params `RpcError` without a string
 * `protocolVersion`.
 */
export function initializeResult(params: Record<string, unknown>, server: ServerIdentity): {
  result: {
    protocolVersion: string;
    capabilities: typeof SERVER_CAPABILITIES;
    serverInfo: { name: "keynobi"; title: string; version: string };
    instructions: string;
  };
  clientName: string | null;
} {
  const requested = params.protocolVersion;
  if (typeof requested !== "string") {
    throw new RpcError(
      RpcCode.invalidParams,
      `initialize needs params.protocolVersion (a string such as "${PROTOCOL_VERSION}")`,
    );
  }
  const protocolVersion = (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : PROTOCOL_VERSION;
  const info = params.clientInfo as { name?: unknown } | undefined;
  return {
    result: {
      protocolVersion,
      capabilities: SERVER_CAPABILITIES,
      serverInfo: { name: "keynobi", title: server.title, version: server.version },
      instructions: server.instructions,
    },
    clientName: typeof info?.name === "string" ? info.name.slice(0, MAX_CLIENT_NAME_CHARS) : null,
  };
}
