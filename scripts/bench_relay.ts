/**
 * The relay's own cost per call (lib/attach/relay.ts), in one process: a scripted app on a unix
 * socket answers each request at once with a result of a given size, written as the MCP SDK
 * writes one (`{"result":…,"jsonrpc":"2.0","id":N}`), and the round trip from the client's line
 * to its answer is timed through `runRelay` and, as the yardstick, straight over the socket. What
 * the relay adds is the difference of the medians, per answer (RELAY_BENCH_ANSWERS). Sides:
 * this tree, and with `--before <tree>` that tree's relay too, alternated call by call so load on
 * the machine falls on both alike. `deno run --allow-all scripts/bench_relay.ts [--before <tree>]`.
 * The whole `keynobi --mcp` relay against a standalone server is bench_attach.ts's row.
 */
import { median } from "./bench_common.ts";

type RunRelay = typeof import("../lib/attach/relay.ts").runRelay;

const enc = new TextEncoder();
const dec = new TextDecoder();
/** Answers measured: a short one, 1 MB of text (a screenshot's base64), 1 MB of JSON objects. */
export const RELAY_BENCH_ANSWERS: { what: string; result: unknown }[] = [
  { what: "100 B answer", result: { content: [{ type: "text", text: "A".repeat(100) }] } },
  { what: "1 MB text answer", result: { content: [{ type: "text", text: "A".repeat(1 << 20) }] } },
  {
    what: "1 MB structured answer (20,000 objects)",
    result: {
      structuredContent: {
        nodes: Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: `node ${i}`, b: [1, 2] })),
      },
    },
  },
];
/** Calls per size and side, after ten warm-up calls. */
const CALLS = Number(Deno.env.get("BENCH_RELAY_CALLS") ?? 200);

/** The scripted app: answers each request line with `result`. */
function serveApp(listener: Deno.Listener, result: unknown): Promise<void> {
  return (async () => {
    const conn = await listener.accept();
    // The answer's text around its id, made once: the app's own cost stays out of the figures.
    const [head, tail] = JSON.stringify({ result, jsonrpc: "2.0", id: 0 }).split(/0(?=\}$)/);
    const w = conn.writable.getWriter();
    let buf = "";
    try {
      for await (const chunk of conn.readable) {
        buf += dec.decode(chunk, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const id = JSON.parse(buf.slice(0, nl)).id;
          buf = buf.slice(nl + 1);
          await w.write(enc.encode(`${head}${JSON.stringify(id)}${tail}
`));
        }
      }
    } catch { /* closed */ }
  })();
}

/** A client of lines: writes a request, waits for the line answering it. */
class Lines {
  #buf = "";
  constructor(
    readonly write: (line: string) => Promise<void>,
    readonly reader: ReadableStreamDefaultReader<Uint8Array>,
  ) {}
  async call(id: number): Promise<number> {
    const t0 = performance.now();
    await this.write(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call" }));
    while (true) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        this.#buf = this.#buf.slice(nl + 1);
        return performance.now() - t0;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error("closed");
      this.#buf += dec.decode(value, { stream: true });
    }
  }
}

/** A session on its own socket: through `relay`, or straight when `relay` is null. */
async function session(dir: string, name: string, result: unknown, relay: RunRelay | null) {
  const path = `${dir}/${name}.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  const app = serveApp(listener, result);
  const conn = await Deno.connect({ transport: "unix", path });
  if (relay === null) {
    const w = conn.writable.getWriter();
    const lines = new Lines((l) => w.write(enc.encode(l + "\n")), conn.readable.getReader());
    return {
      lines,
      close: async () => {
        conn.close();
        listener.close();
        await app;
      },
    };
  }
  const stdin = new TransformStream<Uint8Array, Uint8Array>();
  const stdout = new TransformStream<Uint8Array, Uint8Array>();
  const w = stdin.writable.getWriter();
  const done = relay({
    stdin: stdin.readable,
    stdout: stdout.writable,
    conn,
    socketReader: conn.readable.getReader(),
    rest: new Uint8Array(),
    fallback: null,
  });
  const lines = new Lines((l) => w.write(enc.encode(l + "\n")), stdout.readable.getReader());
  return {
    lines,
    close: async () => {
      await w.close();
      await done;
      listener.close();
      await app;
    },
  };
}

export async function benchRelay(before: string | null): Promise<string[]> {
  const sides: [string, RunRelay | null][] = [["direct", null]];
  if (before) {
    sides.push(["before", (await import(`${before}/lib/attach/relay.ts`)).runRelay]);
  }
  sides.push(["after", (await import("../lib/attach/relay.ts")).runRelay]);
  const dir = await Deno.makeTempDir({ prefix: "keynobi-bench-relay-" });
  const rows: string[] = [];
  try {
    for (const answer of RELAY_BENCH_ANSWERS) {
      const open = [];
      for (const [name, relay] of sides) open.push(await session(dir, name, answer.result, relay));
      const ms: number[][] = sides.map(() => []);
      let id = 1;
      for (let k = 0; k < CALLS + 10; k++) {
        for (let s = 0; s < open.length; s++) {
          const t = await open[s].lines.call(id++);
          if (k >= 10) ms[s].push(t);
        }
      }
      for (const o of open) await o.close();
      const direct = median(ms[0]);
      const added = sides.slice(1).map(([name], i) =>
        `${name} +${(median(ms[i + 1]) - direct).toFixed(3)} ms`
      );
      rows.push(
        `relay round trip, ${answer.what} (median, n=${CALLS}): direct ${direct.toFixed(3)} ms; ${
          added.join(" → ")
        }`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--before");
  const rows = await benchRelay(at >= 0 ? Deno.args[at + 1] : null);
  console.log(`load ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  for (const r of rows) console.log(r);
}
