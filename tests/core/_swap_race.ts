/**
 * Runs `read` `rounds` times while a worker swaps paths (`cycle`) as fast as it can; returns how
 * many reads returned which results. The count of rounds is bounded (`SWAP_RACE_ROUNDS`, raised
 * with `KEYNOBI_RACE_ROUNDS` for a longer soak).
 */
export const SWAP_RACE_ROUNDS = 1_500;
const MAX_SWAP_RACE_ROUNDS = 1_000_000;

export function raceRounds(): number {
  const env = Number(Deno.env.get("KEYNOBI_RACE_ROUNDS") ?? "");
  return Number.isInteger(env) && env > 0 ? Math.min(env, MAX_SWAP_RACE_ROUNDS) : SWAP_RACE_ROUNDS;
}

export async function withSwapper<T>(
  cycle: [string, string][],
  body: () => Promise<T>,
): Promise<T> {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(new URL("./_path_swapper.ts", import.meta.url), { type: "module" });
  const done = new Promise<void>((resolve) => {
    worker.onmessage = (ev) => {
      if ("rounds" in ev.data) resolve();
    };
  });
  const started = new Promise<void>((resolve) => {
    const prev = worker.onmessage;
    worker.onmessage = (ev) => {
      if (ev.data.started) resolve();
      prev?.call(worker, ev);
    };
  });
  worker.postMessage({ stop, cycle });
  await started;
  try {
    return await body();
  } finally {
    Atomics.store(new Int32Array(stop), 0, 1);
    await done;
    worker.terminate();
  }
}
