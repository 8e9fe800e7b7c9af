/**
 * The requests one MCP session has in flight, by id: a request whose id is still in flight is a
 * duplicate, and one over the bound is refused as busy. A transport asks `admit` before it hands a
 * request to the SDK; the session settles the id when its handler ends (answered or cancelled).
 */
import { idText, type JsonRpcId, RpcCode } from "./jsonrpc.ts";

/** Most requests one session runs at once; more are refused (-32050, busy) until some finish. */
export const MAX_CONCURRENT_REQUESTS = 64;

type Admission = "ok" | "duplicate" | "busy";

export class RequestGate {
  readonly #ids = new Set<JsonRpcId>();
  readonly max: number;

  constructor(max = MAX_CONCURRENT_REQUESTS) {
    if (!Number.isSafeInteger(max) || max < 1 || max > MAX_CONCURRENT_REQUESTS * 16) {
      throw new RangeError(`in-flight bound must be 1..${MAX_CONCURRENT_REQUESTS * 16}`);
    }
    this.max = max;
  }

  get size(): number {
    return this.#ids.size;
  }

  /** The ids in flight now. */
  ids(): JsonRpcId[] {
    return [...this.#ids];
  }

  has(id: JsonRpcId): boolean {
    return this.#ids.has(id);
  }

  admit(id: JsonRpcId): Admission {
    if (this.#ids.has(id)) return "duplicate";
    if (this.#ids.size >= this.max) return "busy";
    this.#ids.add(id);
    return "ok";
  }

  settle(id: JsonRpcId): void {
    this.#ids.delete(id);
  }
}

/** The error for a request the gate did not admit (a duplicate is answered with id null). */
export function admissionError(a: Exclude<Admission, "ok">, id: JsonRpcId, max: number) {
  return a === "duplicate"
    ? {
      code: RpcCode.invalidRequest,
      message: `Invalid request: id ${idText(id)} is already in use by a request in flight; ` +
        "this error carries id null so that it cannot be taken for that request's answer",
    }
    : {
      code: RpcCode.serverBusy,
      message: `Server busy: ${max} requests in flight (MAX_CONCURRENT_REQUESTS); nothing was ` +
        "started: send it again when one of them is answered",
      data: { retry: true, max_in_flight: max },
    };
}
