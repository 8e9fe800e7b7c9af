/**
 * What one MCP session answers, from the tool registry: initialize, tools, prompts and resources.
 * It knows nothing of the wire: lib/mcp/session.ts binds these handlers to one SDK `Server`, and
 * the transports (stdio, a Unix socket, streamable HTTP) carry that server's messages. It knows
 * nothing about devices or projects beyond the registry and the providers.
 */
import { z } from "zod";
import { isFileSystemChange, isToolError, type ToolErrorData } from "../core/errors.ts";
import { closestName } from "./closest.ts";
import { argumentStrings, shownArguments } from "./activity_log.ts";
import { RpcCode, RpcError } from "./jsonrpc.ts";
import {
  annotationsFor,
  argumentRefusal,
  type ImageContent,
  paramsSchema,
  parseToolArgs,
  type ToolDef,
  type ToolsetName,
} from "./tool_def.ts";
import { hiddenToolMessage } from "./toolsets.ts";
import { initializeResult } from "./initialize.ts";
import type { PromptDef } from "./prompts.ts";
import type { ResourceProvider } from "./resources.ts";

export {
  PROTOCOL_VERSION,
  SERVER_CAPABILITIES,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./initialize.ts";

export interface ActivitySink {
  append(entry: {
    kind: "lifecycle" | "tool" | "prompt" | "resource";
    name: string;
    duration_ms: number;
    status: "ok" | "error" | "refused";
    summary: string;
    /** Never written: scrubbed out of the summary (see `lib/mcp/activity_log.ts`). */
    argument_values?: readonly string[];
    shown_values?: readonly string[];
  }): Promise<void>;
}

// deno-lint-ignore no-explicit-any
export type AnyTool<Ctx> = ToolDef<Ctx, any>;

export interface McpSessionOptions<Ctx> {
  version: string;
  title: string;
  instructions: string;
  tools: readonly AnyTool<Ctx>[];
  enabledToolsets: readonly ToolsetName[];
  /** Whether a project is open; project-dependent tools are refused without one. */
  hasProject: boolean | (() => boolean);
  /**
   * Why project tools are refused right now (a pinned attached session whose project the app
   * switched away from), or null; asked before every project-dependent tool.
   */
  projectRefusal?: () => string | null;
  makeContext(signal: AbortSignal, request: RequestExtras): Ctx;
  resources: ResourceProvider;
  prompts: readonly PromptDef[];
  activity?: ActivitySink;
  /**
   * Tools' listing entries computed ahead (the bundle's, lib/cli/bundle.ts), by name; a tool not
   * in it is converted here (`toolListing`).
   */
  listed?: ReadonlyMap<string, unknown> | null;
}

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
const MAX_PROGRESS_MESSAGE_CHARS = 500;

/** Extras the session binding hands each request. */
export interface RequestMeta {
  signal: AbortSignal;
  /** `params._meta.progressToken`, when the client sent one. */
  progressToken?: string | number;
  /** Sends one notification on this request's stream (the SDK's `sendNotification`). */
  notify(method: string, params: Record<string, unknown>): void;
}

export class McpSessionHandlers<Ctx> {
  readonly #opts: McpSessionOptions<Ctx>;
  readonly #served: Map<string, AnyTool<Ctx>>;
  readonly #all: Map<string, AnyTool<Ctx>>;
  readonly #pending = new Set<Promise<unknown>>();
  #toolList: unknown[] | null = null;
  #clientName: string | null = null;
  readonly sessionId: string;

  constructor(opts: McpSessionOptions<Ctx>, sessionId: string = crypto.randomUUID()) {
    this.#opts = opts;
    this.sessionId = sessionId;
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

  /** Wait for activity-log writes this session started. */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  initialize(params: Record<string, unknown>) {
    const { result, clientName } = initializeResult(params, this.#opts);
    if (clientName !== null) this.#clientName = clientName;
    return result;
  }

  listTools(params: Record<string, unknown>) {
    noCursor("tools/list", params);
    const listed = this.#opts.listed;
    this.#toolList ??= this.servedTools().map((t) => listed?.get(t.name) ?? toolListing(t));
    return { tools: this.#toolList };
  }

  #extras(meta: RequestMeta): RequestExtras {
    const token = meta.progressToken;
    let last = -Infinity;
    return {
      clientName: this.#clientName,
      sessionId: this.sessionId,
      progress: (progress, total, message) => {
        if (token === undefined || meta.signal.aborted || !(progress > last)) return;
        last = progress;
        meta.notify("notifications/progress", {
          progressToken: token,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message !== undefined
            ? { message: message.slice(0, MAX_PROGRESS_MESSAGE_CHARS) }
            : {}),
        });
      },
    };
  }

  async callTool(params: Record<string, unknown>, meta: RequestMeta): Promise<ToolCallResult> {
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
    const result = await this.#runTool(tool, params.arguments, meta.signal, this.#extras(meta));
    const status = result.refused ? "refused" : result.isError ? "error" : "ok";
    this.#log(
      "tool",
      name,
      started,
      status,
      firstText(result),
      argumentStrings(params.arguments),
      shownArguments(params.arguments),
    );
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
    const parsed = parseToolArgs(tool.params, args);
    if (!parsed.success) {
      const r = argumentRefusal(tool.name, parsed.issues);
      return refusal(r.message, r.data);
    }
    if (tool.needsProject) {
      const refusedBecause = this.#opts.projectRefusal?.() ?? null;
      if (refusedBecause !== null) return refusal(refusedBecause);
    }
    const hasProject = typeof this.#opts.hasProject === "function"
      ? this.#opts.hasProject()
      : this.#opts.hasProject;
    if (tool.needsProject && !hasProject) {
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
      // A folder renamed or a file removed while the tool read it: a clean tool error that
      // quotes no path, not -32603.
      if (isFileSystemChange(e)) return errorResult(changedWhileReading(tool.name));
      throw internalError(e);
    }
  }

  #servedPrompts(): PromptDef[] {
    return this.#opts.prompts.filter((p) => p.tools.every((t) => this.#served.has(t)));
  }

  listPrompts(params: Record<string, unknown>) {
    noCursor("prompts/list", params);
    return { prompts: this.#servedPrompts().map(promptListing) };
  }

  getPrompt(params: Record<string, unknown>) {
    const started = performance.now();
    const name = params.name;
    const prompt = this.#servedPrompts().find((p) => p.name === name);
    if (!prompt) {
      const near = typeof name === "string"
        ? closestName(name, this.#servedPrompts().map((p) => p.name))
        : null;
      throw new RpcError(
        RpcCode.invalidParams,
        `Unknown prompt: ${String(name)}` + (near ? `; did you mean ${near}?` : ""),
      );
    }
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new RpcError(
        RpcCode.invalidParams,
        `Prompt ${prompt.name} takes its arguments as an object`,
      );
    }
    for (const a of prompt.arguments) {
      if (a.required && typeof args[a.name] !== "string") {
        throw new RpcError(
          RpcCode.invalidParams,
          `Prompt ${prompt.name} needs the argument ${a.name}`,
        );
      }
    }
    const strArgs: Record<string, string> = {};
    for (const [k, v] of Object.entries(args)) if (typeof v === "string") strArgs[k] = v;
    const text = prompt.render(strArgs);
    this.#log("prompt", prompt.name, started, "ok", text, argumentStrings(args));
    return {
      description: prompt.description,
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  }

  /** Extras for work that is not a tool call (resources): no progress. */
  resourceExtras(): RequestExtras {
    return { progress: () => {}, clientName: this.#clientName, sessionId: this.sessionId };
  }

  async listResources(params: Record<string, unknown>, signal: AbortSignal) {
    noCursor("resources/list", params);
    return { resources: await this.#opts.resources.list(signal) };
  }

  listResourceTemplates(params: Record<string, unknown>) {
    noCursor("resources/templates/list", params);
    return { resourceTemplates: [] };
  }

  async readResource(params: Record<string, unknown>, signal: AbortSignal) {
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
      if (isFileSystemChange(e)) {
        throw new RpcError(RpcCode.resourceNotFound, changedWhileReading(uri).message, { uri });
      }
      throw e instanceof RpcError ? e : internalError(e);
    }
  }

  #log(
    kind: "tool" | "prompt" | "resource",
    name: string,
    started: number,
    status: "ok" | "error" | "refused",
    summary: string,
    argument_values: readonly string[] = [],
    shown_values: readonly string[] = [],
  ): void {
    const activity = this.#opts.activity;
    if (!activity) return;
    const duration_ms = Math.round(performance.now() - started);
    const p = activity
      .append({ kind, name, duration_ms, status, summary, argument_values, shown_values })
      .catch(() => {});
    this.#pending.add(p);
    p.finally(() => this.#pending.delete(p));
  }
}

/** Every list fits one page (no `nextCursor`), so any cursor is one we never issued. */
function noCursor(method: string, params: Record<string, unknown>): void {
  if (params.cursor !== undefined) {
    throw new RpcError(
      RpcCode.invalidParams,
      `Invalid cursor for ${method}: this server returns every item in one page and issues no ` +
        "cursors; call it without params.cursor",
    );
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

/**
 * One tool as `tools/list` shows it: its name, what it is for, its arguments and all three hints.
 * No `title`: MCP does not require one, and for the model it only repeated the snake_case name
 * (66 titles cost 1,749 bytes of every conversation).
 */
export function toolListing<Ctx>(t: AnyTool<Ctx>) {
  return {
    name: t.name,
    description: t.description,
    inputSchema: inputSchemaOf(t),
    annotations: annotationsFor(t.kind),
  };
}

/**
 * The JSON Schema of a tool's arguments as it is listed: what a model needs to write a call, and
 * nothing a client must resolve (no `$ref`/`$defs`). Left out, because they say nothing a model
 * can use and every listing paid for them:
 * - `additionalProperties: false`: unknown keys are refused anyway, by the server at the top level
 *   (naming the closest valid parameter) and by zod's strict objects inside (the selector, a
 *   waypoint), so the refusal does not need advertising; 29 bytes on every schema and object;
 * - zod's `minimum`/`maximum` ±(2^53 − 1) on every `.int()` without bounds of its own (JSON numbers
 *   beyond them are not safe integers anyway; 52 bytes each); bounds a tool sets are kept;
 * - string `maxLength` caps: they bound what a misbehaving client can send (the refusal names the
 *   cap), not anything a model would write.
 */
export function inputSchemaOf<Ctx>(tool: AnyTool<Ctx>): Record<string, unknown> {
  const schema = z.toJSONSchema(paramsSchema(tool.params), { io: "input" }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return listedSchema(schema) as Record<string, unknown>;
}

function listedSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(listedSchema);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    if (k === "maxLength") continue;
    if (k === "additionalProperties" && v === false) continue;
    out[k] = listedSchema(v);
  }
  return out;
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

/** The error for a read that met a file or folder moved or removed meanwhile. */
function changedWhileReading(what: string): { code: "io_error"; message: string } {
  return {
    code: "io_error",
    message: `${what} could not finish: a file or folder it read was moved or removed ` +
      "meanwhile; try again once the project has stopped changing",
  };
}

function internalError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  const message = e instanceof Error ? e.message : String(e);
  console.error(`keynobi: internal error: ${e instanceof Error ? e.stack ?? message : message}`);
  return new RpcError(RpcCode.internalError, `Internal error: ${message}`);
}
