/**
 * What the bench scripts share: a raw stdio session with keynobi, the `initialize` params it
 * sends, medians and percentiles, a row's shape, a process's RSS, and the "before" tree
 * extracted from git.
 */

export interface BenchRow {
  what: string;
  value: string;
  budget: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export const INIT = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "bench", version: "0" },
};

/** A raw stdio session: write lines, read answers by id. */
export class RawSession {
  child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buf = "";
  constructor(argv: string[], env: Record<string, string>, cwd: string) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: argv,
      env,
      clearEnv: true,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#reader = this.child.stdout.getReader();
  }
  async send(msg: unknown): Promise<void> {
    await this.#writer.write(enc.encode(JSON.stringify(msg) + "\n"));
  }
  async answer(id: number): Promise<Record<string, unknown>> {
    while (true) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        const msg = JSON.parse(line);
        if (msg.id === id) return msg;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("keynobi closed stdout");
      this.#buf += dec.decode(value, { stream: true });
    }
  }
  async request(id: number, method: string, params: unknown = {}) {
    await this.send({ jsonrpc: "2.0", id, method, params });
    return await this.answer(id);
  }
  async close(): Promise<void> {
    await this.#writer.close();
    this.#reader.releaseLock();
    await this.child.stdout.cancel().catch(() => {});
    await this.child.status;
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/**
 * The tree at `ref`, extracted with git into a new temporary folder: the "before" side of a
 * bench. Null when git cannot give it or BENCH_BEFORE=0.
 */
export async function extractTree(ref: string, prefix: string): Promise<string | null> {
  if (Deno.env.get("BENCH_BEFORE") === "0") return null;
  const repo = new URL("../", import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix });
  const sh = await new Deno.Command("sh", {
    args: ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", repo, ref, dir],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => null);
  if (sh?.success) return dir;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return null;
}

/** RSS of a process in MB, from ps (Deno reads /proc only with --allow-all). */
export async function rssMb(pid: number): Promise<number | null> {
  const ps = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => null);
  if (!ps) return null;
  const kb = Number(dec.decode(ps.stdout).trim());
  return Number.isFinite(kb) && kb > 0 ? kb / 1024 : null;
}

/**
 * The logcat client's file in a checkout (`root` ends with `/`): lib/logcat/shared/ since the
 * folder was split by thread, lib/logcat/ in a tree from before (a bench's "before").
 */
export function logcatClientPath(root: string): string {
  const shared = `${root}lib/logcat/shared/logcat_client.ts`;
  try {
    Deno.statSync(shared);
    return shared;
  } catch {
    return `${root}lib/logcat/logcat_client.ts`;
  }
}
