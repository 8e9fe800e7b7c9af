/**
 * The session factory: one SDK engine (`Protocol`, as `McpSessionServer`, lib/mcp/session_server.ts)
 * per MCP session, fed by the registry through `McpSessionHandlers` (lib/mcp/server.ts). stdio, a Unix-socket connection and each
 * streamable-HTTP session all call `createMcpSession` and connect the server to their transport.
 *
 * Every request handler runs inside `track`, which frees the request's slot in the session's
 * `RequestGate` when the handler ends, answered or cancelled (the SDK sends nothing for a request
 * the client cancelled). Progress comes from `_meta.progressToken` and goes out through the SDK's
 * `sendNotification`; cancellation is the SDK's abort signal for the request.
 */
import { McpSessionServer } from "./session_server.ts";
import { z } from "zod";
import { RpcCode, RpcError } from "./jsonrpc.ts";
import { RequestGate } from "./request_gate.ts";
import {
  McpSessionHandlers,
  type McpSessionOptions,
  type RequestMeta,
  SERVER_CAPABILITIES,
} from "./server.ts";

export interface McpSession<Ctx> {
  server: McpSessionServer;
  handlers: McpSessionHandlers<Ctx>;
  /** The requests in flight; a transport asks it before handing a request over. */
  gate: RequestGate;
  sessionId: string;
  /** Wait for the handlers in flight without aborting them (the client went away). */
  drain(): Promise<void>;
  /** Abort every handler in flight, wait for them, close the transport. */
  close(): Promise<void>;
}

export interface CreateMcpSessionOptions<Ctx> extends McpSessionOptions<Ctx> {
  /** Session id (an HTTP session's `Mcp-Session-Id`); a random UUID when absent. */
  sessionId?: string;
  /** In-flight bound (default MAX_CONCURRENT_REQUESTS). */
  maxInFlight?: number;
  /** The session's gate, when its transport made it first (stdio reads ahead of the session). */
  gate?: RequestGate;
}

/** A request schema that only names the method: the handlers check params with their own errors. */
function method<M extends string>(name: M) {
  return z.object({ method: z.literal(name), params: z.optional(z.looseObject({})) }).loose();
}

type Extra = {
  signal: AbortSignal;
  requestId: string | number;
  _meta?: { progressToken?: unknown } & Record<string, unknown>;
  sendNotification(n: { method: string; params?: Record<string, unknown> }): Promise<void>;
};

export function createMcpSession<Ctx>(opts: CreateMcpSessionOptions<Ctx>): McpSession<Ctx> {
  const sessionId = opts.sessionId ?? crypto.randomUUID();
  const handlers = new McpSessionHandlers(opts, sessionId);
  const gate = opts.gate ?? new RequestGate(opts.maxInFlight);
  const server = new McpSessionServer({ ...SERVER_CAPABILITIES });
  const running = new Map<string | number, Promise<unknown>>();

  function track<T>(
    fn: (params: Record<string, unknown>, meta: RequestMeta) => T | Promise<T>,
  ) {
    return (request: { params?: Record<string, unknown> }, extra: Extra): Promise<T> => {
      const params = request.params ?? {};
      const token = extra._meta?.progressToken;
      const meta: RequestMeta = {
        signal: extra.signal,
        progressToken: typeof token === "string" || typeof token === "number" ? token : undefined,
        notify: (m, p) => void extra.sendNotification({ method: m, params: p }).catch(() => {}),
      };
      const p = Promise.resolve().then(() => fn(params, meta));
      const done = p.finally(() => {
        gate.settle(extra.requestId);
        if (running.get(extra.requestId) === done) running.delete(extra.requestId);
      });
      done.catch(() => {});
      running.set(extra.requestId, done);
      return done;
    };
  }

  // Protocol's setRequestHandler: it parses a request with the given schema only (the method and
  // an object of params), so a tools/call with non-object arguments reaches our handler, which
  // refuses it as a tool result (DESIGN.md "Error model"), and results are not re-parsed.
  // deno-lint-ignore no-explicit-any
  const on = (name: string, handler: any) => server.setRequestHandler(method(name), handler);
  on("initialize", track((p) => handlers.initialize(p)));
  on("ping", track(() => ({})));
  on("tools/list", track((p) => handlers.listTools(p)));
  on("tools/call", track((p, m) => handlers.callTool(p, m)));
  on("prompts/list", track((p) => handlers.listPrompts(p)));
  on("prompts/get", track((p) => handlers.getPrompt(p)));
  on("resources/list", track((p, m) => handlers.listResources(p, m.signal)));
  on("resources/templates/list", track((p) => handlers.listResourceTemplates(p)));
  on("resources/read", track((p, m) => handlers.readResource(p, m.signal)));
  server.fallbackRequestHandler = (
    request: { method: string; params?: Record<string, unknown> },
    extra: unknown,
  ) =>
    track(() => {
      throw new RpcError(RpcCode.methodNotFound, `Method not found: ${request.method}`);
    })(request, extra as Extra);

  const wait = async () => {
    while (running.size > 0) await Promise.allSettled([...running.values()]);
    await handlers.flush();
  };
  return {
    server,
    handlers,
    gate,
    sessionId,
    drain: wait,
    async close() {
      // Closing the transport aborts every handler's signal (the SDK's _onclose).
      await server.close().catch(() => {});
      await wait();
    },
  };
}
