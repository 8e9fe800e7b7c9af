/**
 * The child of tests/core/safe_open_test.ts, run with the flags keynobi ships with (`RUN_FLAGS`,
 * not `-A`): Deno's permission layer opens differently without `--allow-all`, so what the safe
 * open does must be seen under those flags. Prints one JSON object on stdout.
 *
 * - `open PATH…`: each path opened with `openRegularNoFollow`, as `opened:<text>` or the refusal's
 *   reason.
 * - `worker retrace|build DIR PATH…`: the same, in a worker started with that worker's narrowed
 *   permissions over DIR (as `startWorker` starts it).
 * - `race DIR ROUNDS`: opens DIR/a.txt ROUNDS times while DIR/a.txt (text "INSIDE") and a
 *   symlink to an outside file (text "OUTSIDE") swap; counts what was read and why it was refused.
 */
import { openRegularNoFollow, readHead, SafeOpenError } from "../../lib/core/safe_open.ts";
import {
  buildWorkerPermissions,
  retraceWorkerPermissions,
} from "../../lib/core/worker_permissions.ts";
import { withSwapper } from "./_swap_race.ts";

/** `opened:<text>`, or the refusal's reason (`unexpected:<message>` for anything else). */
async function outcome(path: string): Promise<string> {
  let file;
  try {
    file = await openRegularNoFollow(path);
  } catch (e) {
    return e instanceof SafeOpenError ? e.reason : `unexpected:${(e as Error).message}`;
  }
  try {
    return `opened:${new TextDecoder().decode(await readHead(file, 64))}`;
  } finally {
    await file.close();
  }
}

async function outcomes(paths: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of paths) out[p] = await outcome(p);
  return out;
}

function inWorker(kind: string, dir: string, paths: string[]): Promise<Record<string, string>> {
  const permissions = kind === "build"
    ? buildWorkerPermissions({ dataDir: dir, projectRoot: dir })
    : retraceWorkerPermissions({ dataDir: dir });
  const worker = new Worker(import.meta.url, { type: "module", deno: { permissions } });
  return new Promise((resolve, reject) => {
    worker.onmessage = (ev) => {
      worker.terminate();
      resolve(ev.data);
    };
    worker.onerror = (ev) => {
      ev.preventDefault();
      worker.terminate();
      reject(new Error(ev.message));
    };
    worker.postMessage(paths);
  });
}

async function race(dir: string, rounds: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const p = (n: string) => `${dir}/${n}`;
  const cycle: [string, string][] = [
    [p("a.txt"), p("a.reg")],
    [p("a.lnk"), p("a.txt")],
    [p("a.txt"), p("a.lnk")],
    [p("a.reg"), p("a.txt")],
  ];
  await withSwapper(cycle, async () => {
    for (let i = 0; i < rounds; i++) {
      const o = await outcome(p("a.txt"));
      counts[o] = (counts[o] ?? 0) + 1;
    }
  });
  return counts;
}

if (typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined") {
  const scope = globalThis as unknown as {
    onmessage: (ev: MessageEvent<string[]>) => void;
    postMessage(data: unknown): void;
  };
  scope.onmessage = async (ev) => scope.postMessage(await outcomes(ev.data));
} else if (import.meta.main) {
  const [mode, ...rest] = Deno.args;
  const result = mode === "open"
    ? await outcomes(rest)
    : mode === "worker"
    ? await inWorker(rest[0], rest[1], rest.slice(2))
    : mode === "race"
    ? await race(rest[0], Number(rest[1]))
    : null;
  if (result === null) throw new Error(`unknown mode ${mode}`);
  console.log(JSON.stringify(result));
}
