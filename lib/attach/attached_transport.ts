/**
 * The MCP transport of one attached session: our line transport over one accepted connection of
 * `keynobi app`'s socket, which can hold its answers while the app quits.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JsonRpcId, RpcCode } from "../mcp/jsonrpc.ts";
import { LineTransport } from "../mcp/line_transport.ts";

/**
 * A handler that ends because quitting cancelled its build does not answer on its own; the quit
 * answers it with -32603 like every other request in flight.
 */
export class AttachedTransport extends LineTransport {
  #holding = false;
  /**
   * Requests handed to the SDK whose answer has not gone out (held ones included), less those the
   * client cancelled: the SDK settles the gate before it sends, and sends nothing for a request
   * aborted by the close, so the quit answers from this set rather than from the gate.
   */
  readonly #unanswered = new Set<JsonRpcId>();

  holdAnswers(): void {
    this.#holding = true;
  }

  protected override delivered(message: JSONRPCMessage): void {
    const m = message as {
      id?: JsonRpcId | null;
      method?: string;
      params?: { requestId?: unknown };
    };
    if (m.method === undefined) return;
    if (m.id !== undefined && m.id !== null) this.#unanswered.add(m.id);
    else if (m.method === "notifications/cancelled") {
      const id = m.params?.requestId;
      if (typeof id === "string" || typeof id === "number") this.#unanswered.delete(id);
    }
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: JsonRpcId | null; method?: string };
    const isAnswer = m.method === undefined && m.id !== undefined && m.id !== null;
    if (isAnswer && this.#holding) return Promise.resolve();
    if (isAnswer) this.#unanswered.delete(m.id!);
    return super.send(message, options);
  }

  /** Answer (bypassing the hold) every request this session has open, then close. */
  async quit(message: string): Promise<void> {
    const ids = new Set<JsonRpcId>([...this.gate.ids(), ...this.#unanswered]);
    this.#unanswered.clear();
    for (const id of ids) {
      void super.send(
        { jsonrpc: "2.0", id, error: { code: RpcCode.internalError, message } } as JSONRPCMessage,
      );
    }
    await this.close();
  }
}
