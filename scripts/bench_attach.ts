/**
 * `keynobi app` figures for `deno task bench` (and standalone: `deno run … scripts/bench_attach.ts`):
 * attach → `initialize` answered once the socket answers, the tool-call round trip through the
 * relay next to a standalone server's, and the app's RSS with MAX_ATTACHED_SESSIONS sessions.
 */
import { RUN_FLAGS } from "../lib/cli/permissions.ts";
import { MAX_ATTACHED_SESSIONS } from "../lib/attach/handshake.ts";
import { childEnv } from "../tests/child_env.ts";
import { type BenchRow, INIT, median, RawSession, rssMb } from "./bench_common.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** One session over the raw socket: handshake, then JSON-RPC lines. */
class SocketSession {
  #buf = "";
  private constructor(
    readonly conn: Deno.UnixConn,
    readonly writer: WritableStreamDefaultWriter<Uint8Array>,
    readonly reader: ReadableStreamDefaultReader<Uint8Array>,
  ) {}
  static async open(path: string): Promise<SocketSession> {
    const conn = await Deno.connect({ transport: "unix", path });
    const s = new SocketSession(conn, conn.writable.getWriter(), conn.readable.getReader());
    await s.writer.write(enc.encode(
      JSON.stringify({
        attach: 1,
        version: "bench",
        project: null,
        pid: Deno.pid,
        selected_by: null,
      }) + "\n",
    ));
    const reply = JSON.parse(await s.line());
    if (reply.accepted !== true) throw new Error(`attach refused: ${reply.reason}`);
    return s;
  }
  async line(): Promise<string> {
    while (true) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const l = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        return l;
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the app closed the socket");
      this.#buf += dec.decode(value, { stream: true });
    }
  }
  async request(id: number, method: string, params: unknown = {}) {
    await this.writer.write(
      enc.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
    );
    while (true) {
      const m = JSON.parse(await this.line());
      if (m.id === id) return m;
    }
  }
  close() {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

async function startApp(env: Record<string, string>, cwd: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, MAIN, "app"],
    env,
    clearEnv: true,
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
    err += chunk;
    if (/ready: pid \d+/.test(err)) break;
  }
  if (!/ready: pid \d+/.test(err)) throw new Error(`keynobi app did not start: ${err}`);
  return child;
}

export async function benchAttach(o: {
  env: Record<string, string>;
  home: string;
  runs: number;
}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dataDir = `${o.home}/.keynobi-attach-bench`;
  const env = { ...o.env, KEYNOBI_HOME: dataDir };
  const app = await startApp(env, o.home);
  const sock = `${dataDir}/mcp.sock`;
  try {
    // attach → initialize answered, from connect (the socket answers) to the answer.
    const attach: number[] = [];
    for (let i = 0; i < o.runs + 3; i++) {
      const t0 = performance.now();
      const s = await SocketSession.open(sock);
      await s.request(1, "initialize", INIT);
      if (i >= 3) attach.push(performance.now() - t0);
      s.close();
    }
    rows.push({
      what: `attach → initialize answered, from connect (median, n=${o.runs})`,
      value: `${median(attach).toFixed(2)} ms`,
      budget: "≤ 50 ms",
    });

    // Round trip through the relay (keynobi --mcp attached) vs a standalone keynobi --mcp.
    const trip = async (session: RawSession) => {
      await session.request(1, "initialize", INIT);
      await session.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const params = { name: "list_devices", arguments: { bogus: 1 } };
      let id = 10;
      for (let i = 0; i < 20; i++) await session.request(id++, "tools/call", params);
      const xs: number[] = [];
      for (let i = 0; i < o.runs * 10; i++) {
        const t0 = performance.now();
        await session.request(id++, "tools/call", params);
        xs.push(performance.now() - t0);
      }
      await session.close();
      return median(xs);
    };
    const relayed = await trip(new RawSession(["run", ...RUN_FLAGS, MAIN, "--mcp"], env, o.home));
    const alone = await trip(
      new RawSession(["run", ...RUN_FLAGS, MAIN, "--mcp"], {
        ...o.env,
        KEYNOBI_HOME: `${o.home}/.keynobi-standalone-bench`,
      }, o.home),
    );
    rows.push({
      what: `tool call round trip through the relay vs standalone (median, n=${o.runs * 10})`,
      value: `${relayed.toFixed(3)} ms vs ${alone.toFixed(3)} ms (+${
        (relayed - alone).toFixed(3)
      })`,
      budget: "≤ 0.5 ms added",
    });

    // The app's RSS with MAX_ATTACHED_SESSIONS sessions, each initialized and listing tools.
    const before = await rssMb(app.pid);
    const held: SocketSession[] = [];
    for (let i = 0; i < MAX_ATTACHED_SESSIONS; i++) {
      const s = await SocketSession.open(sock);
      await s.request(1, "initialize", INIT);
      await s.request(2, "tools/list");
      held.push(s);
    }
    await new Promise((r) => setTimeout(r, 500));
    const after = await rssMb(app.pid);
    for (const s of held) s.close();
    rows.push({
      what: `keynobi app RSS with ${MAX_ATTACHED_SESSIONS} attached sessions`,
      value: after === null
        ? "unavailable (no ps)"
        : `${after.toFixed(1)} MB (${before?.toFixed(1) ?? "?"} MB with none)`,
      budget: "≤ 150 MB",
    });
  } finally {
    try {
      app.kill("SIGTERM");
    } catch { /* gone */ }
    await app.status;
    await app.stderr.cancel().catch(() => {});
  }
  return rows;
}

if (import.meta.main) {
  const home = await Deno.makeTempDir({ prefix: "keynobi-bench-attach-" });
  const env = await childEnv({ HOME: home });
  try {
    for (const r of await benchAttach({ env, home, runs: 20 })) {
      console.log(`${r.what}: ${r.value} (budget ${r.budget})`);
    }
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
