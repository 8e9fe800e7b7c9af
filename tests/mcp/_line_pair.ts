/**
 * A session from `createMcpSession` on our `LineTransport` over an in-memory stream pair: the test
 * writes raw lines and reads every line the server wrote, as a client on a pipe would.
 */
import { createMcpSession, type McpSession } from "../../lib/mcp/session.ts";
import { LineTransport, type LineTransportOptions } from "../../lib/mcp/line_transport.ts";
import type { McpSessionOptions } from "../../lib/mcp/server.ts";

// deno-lint-ignore no-explicit-any
export type Msg = any;

export interface LinePair<Ctx> {
  session: McpSession<Ctx>;
  transport: LineTransport;
  /** Every message the server wrote, parsed, in order. */
  sent: Msg[];
  /** Every line the server wrote, as written. */
  lines: string[];
  /** Write raw text to the server's input. */
  write(text: string | Uint8Array): Promise<void>;
  request(method: string, params?: Record<string, unknown>): Promise<Msg>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Resolves with the next message for which `match` holds (already sent ones count). */
  next(match: (m: Msg) => boolean): Promise<Msg>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function linePair<Ctx>(
  opts: McpSessionOptions<Ctx> & { maxInFlight?: number },
  transportOpts: Omit<LineTransportOptions, "gate"> & {
    /** A writable sink instead of the default reader (for backpressure tests). */
    output?: WritableStream<Uint8Array>;
  } = {},
): Promise<LinePair<Ctx>> {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const sent: Msg[] = [];
  const lines: string[] = [];
  const waiters: { match: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  const dec = new TextDecoder();
  let buf = "";
  const output = transportOpts.output ?? new WritableStream<Uint8Array>({
    write(chunk) {
      buf += dec.decode(chunk, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        const m = JSON.parse(line);
        sent.push(m);
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (waiters[i].match(m)) {
            waiters[i].resolve(m);
            waiters.splice(i, 1);
          }
        }
      }
    },
  });
  const session = createMcpSession(opts);
  const transport = new LineTransport(input.readable, output, {
    ...transportOpts,
    gate: session.gate,
  });
  await session.server.connect(transport);
  const writer = input.writable.getWriter();
  const enc = new TextEncoder();
  const write = (t: string | Uint8Array) => writer.write(typeof t === "string" ? enc.encode(t) : t);
  const next = (match: (m: Msg) => boolean) => {
    const found = sent.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<Msg>((resolve) => waiters.push({ match, resolve }));
  };
  let id = 100_000;
  return {
    session,
    transport,
    sent,
    lines,
    write,
    next,
    async request(method, params) {
      const n = id++;
      await write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
      return await next((m) => m.id === n && m.method === undefined);
    },
    async notify(method, params) {
      await write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
    },
    async [Symbol.asyncDispose]() {
      await writer.close().catch(() => {});
      await session.close();
    },
  };
}
