/** The JSON-RPC error bodies streamable HTTP refuses a request with, each with its HTTP status. */
import type { JsonRpcId } from "./jsonrpc.ts";

const JSON_HEADERS = { "content-type": "application/json" };

export function rpcError(
  status: number,
  id: JsonRpcId | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/** 404 for an `Mcp-Session-Id` that names no open session. */
export function unknownHttpSession(sid: string): Response {
  return rpcError(
    404,
    null,
    -32001,
    `Session not found: ${
      JSON.stringify(sid.slice(0, 80))
    } is not an open session (ended with DELETE, ` +
      "expired after being idle, given its place to a new session when the server was full, or " +
      "from a server that has restarted): send initialize again",
  );
}
