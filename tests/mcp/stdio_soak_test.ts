/**
 * The stdio soak, sized for CI: 20,000 requests through the real server over real pipes; the heap
 * after a forced GC stays within a bound of its value after a warm-up. (Before issue 9's fix each
 * request kept ~0.5–0.9 KB, 9–16 MB over this run.) The 300k run is in `deno task bench`.
 */
import { assert, assertEquals } from "../assert.ts";
import { childEnv } from "../child_env.ts";
import { runStdioSoak } from "./stdio_soak.ts";

/** Requests before the baseline sample: JIT, caches and the activity log reach their size. */
const WARM_UP = 4_000;
const REQUESTS = 20_000;
/** Padding in each ping, so a request kept alive costs at least this much. */
const PAD_BYTES = 1024;
/** Heap growth allowed from the warm baseline to the end (keeping 1 KB per ping is ~8 MB). */
const MAX_GROWTH_MB = 3;

Deno.test("20k requests over stdio: heap after a forced GC stays bounded", async () => {
  const home = await Deno.makeTempDir({ prefix: "keynobi-soak-" });
  try {
    const env = await childEnv({
      HOME: home,
      KEYNOBI_HOME: `${home}/keynobi`,
      ADB_SERVER_SOCKET: "tcp:127.0.0.1:1",
    });
    const r = await runStdioSoak({
      env,
      cwd: home,
      requests: REQUESTS,
      sampleAt: [WARM_UP, REQUESTS],
      padBytes: PAD_BYTES,
    });
    assertEquals(r.wrongAnswers, 0, "every request got the answer it should");
    const [warm, end] = r.samples;
    const growth = end.heapUsedMb - warm.heapUsedMb;
    console.log(`heap ${warm.heapUsedMb.toFixed(2)} → ${end.heapUsedMb.toFixed(2)} MB`);
    assert(
      growth <= MAX_GROWTH_MB,
      `heap grew ${growth.toFixed(2)} MB over ${REQUESTS - WARM_UP} requests ` +
        `(${warm.heapUsedMb.toFixed(1)} → ${end.heapUsedMb.toFixed(1)} MB)`,
    );
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
