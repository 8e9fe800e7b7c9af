/**
 * One session's engine: the SDK's `Protocol` (JSON-RPC routing, cancellation, progress, answers)
 * with the little the SDK's `Server` class adds that a keynobi session uses — its capability
 * checks and its `notifications/initialized` handler — and without the rest. `Server` also brings
 * Ajv and ajv-formats (static imports, for validating elicitation and sampling answers, which
 * keynobi never asks for) and its own `initialize`, which keynobi replaces: loading them was ~8 ms
 * of the bundle's start and ~50 ms from source (Ajv is ~40 CommonJS files). The checks below are
 * `Server`'s, case for case, with the client's capabilities unknown, as they were under `Server`
 * (its `initialize` handler, the one that records them, is keynobi's own).
 */
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  assertClientRequestTaskCapability,
  assertToolsCallTaskCapability,
} from "@modelcontextprotocol/sdk/experimental/tasks/helpers.js";
import {
  InitializedNotificationSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * What a session uses of `Protocol`. The SDK's subpath types do not resolve here (its exports map
 * names `*.js.d.ts` files it does not ship), so its classes are untyped for us, `Server` before
 * too; the members are declared here instead.
 */
interface Engine {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
  // deno-lint-ignore no-explicit-any
  setRequestHandler(schema: unknown, handler: (request: any, extra: any) => unknown): void;
  // deno-lint-ignore no-explicit-any
  setNotificationHandler(schema: unknown, handler: (notification: any) => unknown): void;
  // deno-lint-ignore no-explicit-any
  fallbackRequestHandler?: (request: any, extra: any) => Promise<unknown>;
  fallbackNotificationHandler?: (notification: { method: string }) => Promise<void>;
  onerror?: (error: Error) => void;
  onclose?: () => void;
}

const ProtocolEngine = Protocol as unknown as new () => Engine;

export class McpSessionServer extends ProtocolEngine {
  /** Unset while `Protocol`'s constructor registers its own handlers (as in `Server`). */
  private capabilities: ServerCapabilities | undefined;

  constructor(capabilities: ServerCapabilities) {
    super();
    this.capabilities = capabilities;
    this.setNotificationHandler(InitializedNotificationSchema, () => {});
  }

  /** Requests to the client: keynobi sends none; these need capabilities it never learns. */
  protected assertCapabilityForMethod(method: string): void {
    switch (method) {
      case "sampling/createMessage":
        throw new Error(`Client does not support sampling (required for ${method})`);
      case "elicitation/create":
        throw new Error(`Client does not support elicitation (required for ${method})`);
      case "roots/list":
        throw new Error(`Client does not support listing roots (required for ${method})`);
    }
  }

  protected assertNotificationCapability(method: string): void {
    const caps = this.capabilities ?? {};
    switch (method) {
      case "notifications/message":
        if (!caps.logging) {
          throw new Error(`Server does not support logging (required for ${method})`);
        }
        break;
      case "notifications/resources/updated":
      case "notifications/resources/list_changed":
        if (!caps.resources) {
          throw new Error(
            `Server does not support notifying about resources (required for ${method})`,
          );
        }
        break;
      case "notifications/tools/list_changed":
        if (!caps.tools) {
          throw new Error(
            `Server does not support notifying of tool list changes (required for ${method})`,
          );
        }
        break;
      case "notifications/prompts/list_changed":
        if (!caps.prompts) {
          throw new Error(
            `Server does not support notifying of prompt list changes (required for ${method})`,
          );
        }
        break;
      case "notifications/elicitation/complete":
        throw new Error(`Client does not support URL elicitation (required for ${method})`);
    }
  }

  protected assertRequestHandlerCapability(method: string): void {
    const caps = this.capabilities;
    if (!caps) return;
    const missing = (what: string) => {
      throw new Error(`Server does not support ${what} (required for ${method})`);
    };
    switch (method) {
      case "completion/complete":
        if (!caps.completions) missing("completions");
        break;
      case "logging/setLevel":
        if (!caps.logging) missing("logging");
        break;
      case "prompts/get":
      case "prompts/list":
        if (!caps.prompts) missing("prompts");
        break;
      case "resources/list":
      case "resources/templates/list":
      case "resources/read":
        if (!caps.resources) missing("resources");
        break;
      case "tools/call":
      case "tools/list":
        if (!caps.tools) missing("tools");
        break;
      case "tasks/get":
      case "tasks/list":
      case "tasks/result":
      case "tasks/cancel":
        if (!caps.tasks) missing("tasks capability");
        break;
    }
  }

  protected assertTaskCapability(method: string): void {
    assertClientRequestTaskCapability(undefined, method, "Client");
  }

  protected assertTaskHandlerCapability(method: string): void {
    if (!this.capabilities) return;
    assertToolsCallTaskCapability(this.capabilities.tasks?.requests, method, "Server");
  }
}
