/**
 * A day of logcat, shortened: lines stream through the real logcat worker over the simulator's
 * ADB server, and the worker's memory after a forced GC stays within a bound of its value once
 * the ring is full — bounded growth, not a timing. Before issue 9 every chunk read stayed
 * reachable (a Promise.race against a promise pending for the whole stream): the worker's external
 * memory grew ~19 MB per 100k lines. The full-size run (2M lines, RSS and heap at 0 / 1M / 2M)
 * is in `deno task bench`.
 */
import { assert, assertEquals } from "../assert.ts";
import type { SoakResult } from "./logcat_soak.ts";

/** Ring entries the soak keeps (small, so the ring is full early and what grows is a leak). */
const CAPACITY = 20_000;
/** Lines streamed before the reference measurement (the ring fills, buffers reach their size). */
const WARM_LINES = 100_000;
/** Lines streamed in CI (KEYNOBI_SOAK_LINES overrides; the bench runs 2,000,000). */
const LINES = Number(Deno.env.get("KEYNOBI_SOAK_LINES") ?? 600_000);
/**
 * Allowed growth of the worker's heap + external memory from the warm point to the end. The leak
 * this guards against grew 70 MB over 500k lines; the bounded pipeline moves by well under 1 MB.
 */
const MAX_GROWTH_BYTES = 8 * 1024 * 1024;
/** Another checkout's logcat client and worker to soak instead (to see the test fail on old code). */
const ROOT = Deno.env.get("KEYNOBI_SOAK_ROOT");

Deno.test("logcat soak: worker memory stays bounded after a forced GC", async () => {
  const script = new URL("./logcat_soak.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--v8-flags=--expose-gc",
      "--unstable-worker-options",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      "--allow-env",
      "--allow-run",
      "--allow-sys",
      script,
      "--lines",
      String(LINES),
      "--checkpoints",
      `0,${WARM_LINES},${LINES}`,
      "--capacity",
      String(CAPACITY),
      ...(ROOT ? ["--root", ROOT] : []),
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert(out.success, `the soak failed: ${stderr}`);
  const r: SoakResult = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  assertEquals(r.points.map((p) => p.lines), [0, WARM_LINES, LINES]);
  for (const p of r.points) assert(p.collected, "the worker ran without --expose-gc");
  const [, warm, end] = r.points;
  assertEquals(warm.stored, CAPACITY);
  assertEquals(end.stored, CAPACITY);
  const size = (p: typeof warm) => p.worker_heap_used_bytes + p.worker_external_bytes;
  const growth = size(end) - size(warm);
  assert(
    growth <= MAX_GROWTH_BYTES,
    `worker memory grew ${(growth / 1e6).toFixed(1)} MB over ${LINES - WARM_LINES} lines ` +
      `(heap ${warm.worker_heap_used_bytes} → ${end.worker_heap_used_bytes}, external ` +
      `${warm.worker_external_bytes} → ${end.worker_external_bytes})`,
  );
});
