/**
 * One MCP session: initialize, tools, prompts and resources, answered from the tool registry.
 * The transport (stdio here, the attach socket later) hands it classified JSON-RPC messages and a
 * way to send; it knows nothing about devices or projects beyond the registry and the providers.
 */
import { z } from "zod";
import { isToolError, type ToolErrorData } from "../core/errors.ts";
import { closestName } from "./closest.ts";
import { argumentStrings } from "./activity_log.ts";
import {
  type Classified,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  RpcCode,
  RpcError,
} from "./jsonrpc.ts";
import { annotationsFor, type ImageContent, type ToolDef, type ToolsetName } from "./tool_def.ts";
import { hiddenToolMessage } from "./toolsets.ts";
import type { PromptDef } from "./prompts.ts";
import type { ResourceProvider } from "./resources.ts";

export const PROTOCOL_VERSION = "2025-11-25";
/** Versions we answer with when the client asks for them; anything else gets the latest. */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
] as const;

/** Most requests one session runs at once; more are refused until some finish. */
export const MAX_CONCURRENT_REQUESTS = 64;

export interface ActivitySink {
  append(entry: {
    kind: "lifecycle" | "tool" | "prompt" | "resource";
    name: string;
    duration_ms: number;
    status: "ok" | "error" | "refused";
    summary: string;
    /** Never written: scrubbed out of the summary (see `lib/mcp/activity_log.ts`). */
    argument_values?: readonly string[];
  }): Promise<void>;
}

// deno-lint-ignore no-explicit-any
export type AnyTool<Ctx> = ToolDef<Ctx, any>;

export interface McpServerOptions<Ctx> {
  version: string;
  title: string;
  instructions: string;
  tools: readonly AnyTool<Ctx>[];
  enabledToolsets: readonly ToolsetName[];
  /** Whether a project is open; project-dependent tools are refused without one. */
  hasProject: boolean;
  makeContext(signal: AbortSignal, request: RequestExtras): Ctx;
  resources: ResourceProvider;
  prompts: readonly PromptDef[];
  activity?: ActivitySink;
}

type Send = (message: JsonRpcMessage) => void | Promise<void>;

/** What a handler may use of the request beyond its arguments. */
export interface RequestExtras {
  /**
   * Report progress: sent as `notifications/progress` when the client asked for it with
   * `_meta.progressToken`, dropped otherwise. `progress` must grow from call to call.
   */
  progress(progress: number, total?: number, message?: string): void;
  /** The client's `clientInfo.name` from `initialize`, when it sent one. */
  clientName: string | null;
  /** This MCP session's id (one per server session). */
  sessionId: string;
}

/** Longest progress message we send. */
export const MAX_PROGRESS_MESSAGE_CHARS = 500;

export class McpServer<Ctx> {
  readonly #opts: McpServerOptions<Ctx>;
  readonly #served: Map<string, AnyTool<Ctx>>;
  readonly #all: Map<string, AnyTool<Ctx>>;
  readonly #inFlight = new Map<JsonRpcId, AbortController>();
  readonly #pending = new Set<Promise<void>>();
  #toolList: unknown[] | null = null;
  #clientName: string | null = null;
  readonly sessionId: string = crypto.randomUUID();

  constructor(opts: McpServerOptions<Ctx>) {
    this.#opts = opts;
    this.#all = new Map(opts.tools.map((t) => [t.name, t]));
    this.#served = new Map(
      opts.tools.filter((t) => opts.enabledToolsets.includes(t.toolset)).map((t) => [t.name, t]),
    );
  }

  get clientName(): string | null {
    return this.#clientName;
  }

  /** The tools this session serves, in registry order. */
  servedTools(): AnyTool<Ctx>[] {
    return [...this.#served.values()];
  }

  /** Handle one incoming message; answers go through `send`. Never throws. */
  handle(msg: Classified, send: Send): void {
    switch (msg.kind) {
      case "invalid":
        void send({ jsonrpc: "2.0", id: msg.id, error: msg.error });
        return;
      case "response":
        return; // We send no requests to the client.
      case "notification":
        if (msg.message.method === "notifications/cancelled") {
          const id = msg.message.params?.requestId;
          if (typeof id === "string" || typeof id === "number") {
            this.#inFlight.get(id)?.abort(
              new DOMException("Cancelled by the client", "AbortError"),
            );
          }
        }
        return;
      case "request": {
        const req = msg.message;
        if (this.#inFlight.has(req.id)) {
          void send({
            jsonrpc: "2.0",
            id: req.id,
            error: {
              code: RpcCode.invalidRequest,
              message: `Request id ${req.id} is already in use`,
            },
          });
          return;
        }
        if (this.#inFlight.size >= MAX_CONCURRENT_REQUESTS) {
          void send({
            jsonrpc: "2.0",
            id: req.id,
            error: {
              code: RpcCode.internalError,
              message:
                `Too many requests in flight (${MAX_CONCURRENT_REQUESTS}): wait for some to finish`,
            },
          });
          return;
        }
        const controller = new AbortController();
        this.#inFlight.set(req.id, controller);
        const p = this.#dispatch(req, controller.signal, send).then(
          (result) => send({ jsonrpc: "2.0", id: req.id, result }),
          (e) => send({ jsonrpc: "2.0", id: req.id, error: toRpcError(e).toObject() }),
        ).then(() => {}, () => {}).finally(() => {
          this.#inFlight.delete(req.id);
          this.#pending.delete(p);
        });
        this.#pending.add(p);
        return;
      }
    }
  }

  /** Abort every request in flight and wait for their answers to be sent. */
  async close(): Promise<void> {
    for (const c of this.#inFlight.values()) {
      c.abort(new DOMException("The server is shutting down", "AbortError"));
    }
    await Promise.allSettled([...this.#pending]);
  }

  /** Wait for the requests in flight without aborting them. */
  async drain(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  #dispatch(req: JsonRpcRequest, signal: AbortSignal, send: Send): Promise<unknown> {
    const params = req.params ?? {};
    switch (req.method) {
      case "initialize":
        return Promise.resolve(this.#initialize(params));
      case "ping":
        return Promise.resolve({});
      case "tools/list":
        return Promise.resolve({ tools: this.#listTools() });
      case "tools/call":
        return this.#callTool(params, signal, this.#extras(params, signal, send));
      case "prompts/list":
        return Promise.resolve({ prompts: this.#servedPrompts().map(promptListing) });
      case "prompts/get":
        return this.#getPrompt(params);
      case "resources/list":
        return this.#listResources(signal);
      case "resources/templates/list":
        return Promise.resolve({ resourceTemplates: [] });
      case "resources/read":
        return this.#readResource(params, signal);
      default:
        return Promise.reject(
          new RpcError(RpcCode.methodNotFound, `Method not found: ${req.method}`),
        );
    }
  }

  #initialize(params: Record<string, unknown>) {
    const requested = params.protocolVersion;
    const protocolVersion = typeof requested === "string" &&
        (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
      ? requested
      : PROTOCOL_VERSION;
    const info = params.clientInfo as { name?: unknown } | undefined;
    if (typeof info?.name === "string") this.#clientName = info.name.slice(0, 200);
    return {
      protocolVersion,
      capabilities: { tools: {}, prompts: {}, resources: {} },
      serverInfo: { name: "keynobi", title: this.#opts.title, version: this.#opts.version },
      instructions: this.#opts.instructions,
    };
  }

  #listTools(): unknown[] {
    if (this.#toolList) return this.#toolList;
    this.#toolList = this.servedTools().map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputSchemaOf(t),
      annotations: { title: t.title, ...annotationsFor(t.kind) },
    }));
    return this.#toolList;
  }

  #extras(params: Record<string, unknown>, signal: AbortSignal, send: Send): RequestExtras {
    const meta = params._meta as { progressToken?: unknown } | undefined;
    const token = meta?.progressToken;
    const hasToken = typeof token === "string" || typeof token === "number";
    let last = -Infinity;
    return {
      clientName: this.#clientName,
      sessionId: this.sessionId,
      progress: (progress, total, message) => {
        if (!hasToken || signal.aborted || !(progress > last)) return;
        last = progress;
        void send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: {
            progressToken: token,
            progress,
            ...(total !== undefined ? { total } : {}),
            ...(message !== undefined
              ? { message: message.slice(0, MAX_PROGRESS_MESSAGE_CHARS) }
              : {}),
          },
        });
      },
    };
  }

  async #callTool(
    params: Record<string, unknown>,
    signal: AbortSignal,
    extras: RequestExtras,
  ): Promise<unknown> {
    const name = params.name;
    if (typeof name !== "string") {
      throw new RpcError(RpcCode.invalidParams, "tools/call needs a tool name in params.name");
    }
    const tool = this.#served.get(name);
    if (!tool) {
      const hidden = this.#all.get(name);
      if (hidden) {
        throw new RpcError(
          RpcCode.invalidParams,
          hiddenToolMessage(name, hidden.toolset, this.#opts.enabledToolsets),
        );
      }
      const near = closestName(name, [...this.#served.keys()]);
      throw new RpcError(
        RpcCode.invalidParams,
        `Unknown tool: ${name}` + (near ? `; did you mean ${near}?` : ""),
      );
    }
    const started = performance.now();
    const result = await this.#runTool(tool, params.arguments, signal, extras);
    const status = result.refused ? "refused" : result.isError ? "error" : "ok";
    this.#log("tool", name, started, status, firstText(result), argumentStrings(params.arguments));
    delete result.refused;
    return result;
  }

  async #runTool(
    tool: AnyTool<Ctx>,
    rawArgs: unknown,
    signal: AbortSignal,
    extras: RequestExtras,
  ): Promise<ToolCallResult> {
    const args = rawArgs ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return refusal(`${tool.name} takes its arguments as a JSON object`);
    }
    const known = Object.keys(tool.params);
    for (const key of Object.keys(args)) {
      if (!known.includes(key)) {
        const near = closestName(key, known);
        const hint = near
          ? `did you mean "${near}"?`
          : known.length
          ? `valid parameters are ${known.join(", ")}`
          : `${tool.name} takes no parameters`;
        return refusal(`Unknown parameter "${key}" for ${tool.name}: ${hint}`, {
          parameter: key,
          ...(near ? { did_you_mean: near } : {}),
        });
      }
    }
    const parsed = z.object(tool.params).safeParse(args);
    if (!parsed.success) {
      return refusal(`Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}`);
    }
    if (!tool.projectIndependent && !this.#opts.hasProject) {
      return refusal(
        `${tool.name} needs an Android project, and this Keynobi server has none: ask the user to ` +
          "register keynobi with --project <path>, or to start the client inside a Gradle build",
      );
    }
    try {
      const out = await tool.run(parsed.data, this.#opts.makeContext(signal, extras));
      return {
        content: [...(out.content ?? []), { type: "text", text: out.text }],
        structuredContent: out.structured,
      };
    } catch (e) {
      if (isToolError(e)) {
        const err = e.toErrorData();
        return { ...errorResult(err), refused: err.code === "invalid_params" };
      }
      if (signal.aborted) {
        return errorResult({ code: "cancelled", message: `${tool.name} was cancelled` });
      }
      throw e;
    }
  }

  #servedPrompts(): PromptDef[] {
    return this.#opts.prompts.filter((p) => p.tools.every((t) => this.#served.has(t)));
  }

  #getPrompt(params: Record<string, unknown>): Promise<unknown> {
    const started = performance.now();
    const name = params.name;
    const prompt = this.#servedPrompts().find((p) => p.name === name);
    if (!prompt) {
      return Promise.reject(new RpcError(RpcCode.invalidParams, `Unknown prompt: ${String(name)}`));
    }
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    for (const a of prompt.arguments) {
      if (a.required && typeof args[a.name] !== "string") {
        return Promise.reject(
          new RpcError(RpcCode.invalidParams, `Prompt ${prompt.name} needs the argument ${a.name}`),
        );
      }
    }
    const strArgs: Record<string, string> = {};
    for (const [k, v] of Object.entries(args)) if (typeof v === "string") strArgs[k] = v;
    const text = prompt.render(strArgs);
    this.#log("prompt", prompt.name, started, "ok", text, argumentStrings(args));
    return Promise.resolve({
      description: prompt.description,
      messages: [{ role: "user", content: { type: "text", text } }],
    });
  }

  /** Extras for work that is not a tool call (resources): no progress. */
  resourceExtras(): RequestExtras {
    return { progress: () => {}, clientName: this.#clientName, sessionId: this.sessionId };
  }

  async #listResources(signal: AbortSignal): Promise<unknown> {
    return { resources: await this.#opts.resources.list(signal) };
  }

  async #readResource(params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const uri = params.uri;
    if (typeof uri !== "string") {
      throw new RpcError(RpcCode.invalidParams, "resources/read needs params.uri");
    }
    const started = performance.now();
    try {
      const content = await this.#opts.resources.read(uri, signal);
      this.#log("resource", uri, started, "ok", content.text);
      return { contents: [content] };
    } catch (e) {
      this.#log("resource", uri, started, "error", e instanceof Error ? e.message : String(e));
      throw e;
    }
  }

  #log(
    kind: "tool" | "prompt" | "resource",
    name: string,
    started: number,
    status: "ok" | "error" | "refused",
    summary: string,
    argument_values: readonly string[] = [],
  ): void {
    const activity = this.#opts.activity;
    if (!activity) return;
    const duration_ms = Math.round(performance.now() - started);
    const p = activity.append({ kind, name, duration_ms, status, summary, argument_values })
      .catch(() => {});
    this.#pending.add(p);
    p.finally(() => this.#pending.delete(p));
  }
}

interface ToolCallResult {
  content: ({ type: "text"; text: string } | ImageContent)[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  refused?: boolean;
}

function errorResult(err: ToolErrorData): ToolCallResult {
  return {
    isError: true,
    content: [{ type: "text", text: err.message }],
    structuredContent: { error: { ...err.data, code: err.code, message: err.message } },
  };
}

function refusal(message: string, data?: Record<string, unknown>): ToolCallResult {
  return { ...errorResult({ code: "invalid_params", message, data }), refused: true };
}

function firstText(r: ToolCallResult): string {
  for (const c of r.content) if (c.type === "text") return c.text;
  return "";
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.slice(0, 5).map((i) => {
    const where = i.path.length ? i.path.join(".") : "arguments";
    return `${where}: ${i.message}`;
  }).join("; ");
}

/** The JSON Schema of a tool's arguments; `additionalProperties: false` advertises the refusal. */
export function inputSchemaOf<Ctx>(tool: AnyTool<Ctx>): Record<string, unknown> {
  const schema = z.toJSONSchema(z.object(tool.params).strict(), { io: "input" }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return schema;
}

function promptListing(p: PromptDef) {
  return {
    name: p.name,
    title: p.title,
    description: p.description,
    arguments: p.arguments.map((a) => ({
      name: a.name,
      description: a.description,
      required: a.required,
    })),
  };
}

function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  const message = e instanceof Error ? e.message : String(e);
  console.error(`keynobi: internal error: ${e instanceof Error ? e.stack ?? message : message}`);
  return new RpcError(RpcCode.internalError, `Internal error: ${message}`);
}
