/**
 * The stdio soak: many requests through the real server over real pipes, with memory read after a
 * forced GC at chosen request counts. The CI test runs it small; `deno task bench` runs 300k.
 */
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";

const CHILD = new URL("./_stdio_soak_child.ts", import.meta.url).pathname;
/** Requests written before waiting for their answers (below the server's in-flight bound). */
const WINDOW = 32;

export interface SoakSample {
  requests: number;
  heapUsedMb: number;
  externalMb: number;
  rssMb: number;
}

export interface SoakResult {
  samples: SoakSample[];
  requestsPerSecond: number;
  /** Answers that were not what the request should get (must be 0). */
  wrongAnswers: number;
}

/**
 * Requests cycle through a ping, an unknown tool (JSON-RPC -32602) and a refused call (an
 * `isError` result with an activity-log entry), so every path a request takes is exercised.
 */
function request(
  id: number,
  mix: "all" | "ping",
  pad: string,
): { line: string; check(msg: Record<string, unknown>): boolean } {
  switch (mix === "ping" ? 0 : id % 4) {
    case 0:
    case 2:
      return {
        line: JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: pad ? { pad } : {} }),
        check: (m) => typeof m.result === "object",
      };
    case 1:
      return {
        line: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "no_such_tool", arguments: {} },
        }),
        check: (m) => (m.error as { code?: number } | undefined)?.code === -32602,
      };
    default:
      return {
        line: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "list_devices", arguments: { bogus: id } },
        }),
        check: (m) => (m.result as { isError?: boolean } | undefined)?.isError === true,
      };
  }
}

export async function runStdioSoak(o: {
  env: Record<string, string>;
  cwd: string;
  requests: number;
  /** Request counts at which memory is read (0 = right after initialize). */
  sampleAt: number[];
  /** "ping": pings only (no tool path, no activity log). Default: the full mix. */
  mix?: "all" | "ping";
  /** Bytes of padding in each ping's params, so that a leak of requests shows (default 0). */
  padBytes?: number;
  /** The server script (default `_stdio_soak_child.ts` beside this file; the bench points it
   * at a copy in an older checkout). */
  child?: string;
}): Promise<SoakResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, "--v8-flags=--expose-gc", o.child ?? CHILD],
    env: o.env,
    clearEnv: true,
    cwd: o.cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const enc = new TextEncoder();
  const pad = "x".repeat(o.padBytes ?? 0);
  const writer = child.stdin.getWriter();
  const out = lines(child.stdout);
  // stderr is read all the time (a warning the server writes must never fill the pipe and stall
  // it); memory reports are handed to `sample` as they arrive.
  const reports: string[] = [];
  let reported = null as (() => void) | null;
  let stderrTail = "";
  const stderrDone = (async () => {
    for await (const l of lines(child.stderr)) {
      if (l.startsWith('{"memory"')) {
        reports.push(l);
        reported?.();
      } else stderrTail = (stderrTail + l + "\n").slice(-2000);
    }
    reported?.();
  })();
  const samples: SoakSample[] = [];
  let wrong = 0;
  const rpc = async (batch: string[]) => {
    await writer.write(enc.encode(batch.join("\n") + "\n"));
  };
  const sample = async (requests: number) => {
    child.kill("SIGUSR1");
    while (true) {
      if (reports.length === 0) {
        const arrived = new Promise<void>((r) => reported = r);
        if (reports.length === 0) await arrived;
        reported = null;
        if (reports.length === 0) throw new Error(`the soak server exited:\n${stderrTail}`);
      }
      const m = JSON.parse(reports.shift()!).memory as Deno.MemoryUsage;
      const mb = (n: number) => n / (1024 * 1024);
      samples.push({
        requests,
        heapUsedMb: mb(m.heapUsed),
        externalMb: mb(m.external),
        rssMb: mb(m.rss),
      });
      return;
    }
  };
  try {
    await rpc([
      JSON.stringify({
        jsonrpc: "2.0",
        id: -1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "soak", version: "0" },
        },
      }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    ]);
    await out.next();
    const at = new Set(o.sampleAt);
    if (at.has(0)) await sample(0);
    const t0 = performance.now();
    let sent = 0;
    while (sent < o.requests) {
      const n = Math.min(WINDOW, o.requests - sent);
      const reqs = Array.from({ length: n }, (_, i) => request(sent + i, o.mix ?? "all", pad));
      await rpc(reqs.map((r) => r.line));
      const byId = new Map(reqs.map((r, i) => [sent + i, r]));
      for (let got = 0; got < n;) {
        const next = await out.next();
        if (next.done) throw new Error("the soak server closed stdout");
        const msg = JSON.parse(next.value);
        const r = byId.get(msg.id);
        if (!r) continue; // a notification
        got++;
        if (!r.check(msg)) wrong++;
      }
      const before = sent;
      sent += n;
      for (const k of at) if (k > before && k <= sent) await sample(k);
    }
    const seconds = (performance.now() - t0) / 1000;
    return { samples, requestsPerSecond: o.requests / seconds, wrongAnswers: wrong };
  } finally {
    await writer.close().catch(() => {});
    await child.status;
    await out.return(undefined);
    await stderrDone;
  }
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buf = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl);
      buf = buf.slice(nl + 1);
    }
  }
  if (buf) yield buf;
}
