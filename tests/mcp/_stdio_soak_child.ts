/**
 * The stdio soak's server: the real `runMcp` on this process's stdin/stdout, plus a probe for the
 * soak to read memory. On SIGUSR1 it forces a full GC (needs `--v8-flags=--expose-gc`) and writes
 * `Deno.memoryUsage()` as one JSON line to stderr. Nothing here changes how the server runs.
 */
import { runMcp } from "../../lib/cli/mcp.ts";
import { processEnv } from "../../lib/core/env.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
Deno.addSignalListener("SIGUSR1", () => {
  // Twice: the first pass can leave objects that only a second finalizes.
  gc();
  gc();
  console.error(JSON.stringify({ memory: Deno.memoryUsage() }));
});
Deno.exit(
  await runMcp({
    project: null,
    attachOnly: false,
    toolsets: null,
    env: processEnv,
    cwd: Deno.cwd(),
    stdin: Deno.stdin.readable,
    stdout: Deno.stdout.writable,
  }),
);
