/**
 * The main thread never loads the logcat worker's code: the tools read the level letters, the
 * ring's bounds and a frame's one-line form from leaf modules (lib/logcat/levels.ts,
 * ring_limits.ts, crash_frames.ts), not from the parser, the ring or the pipeline.
 */
import { assert } from "../assert.ts";
import { closure } from "../module_closure.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("the main thread's module closure has no logcat parsing, ring or pipeline code", async () => {
  const mods = await closure(new URL("main.ts", ROOT));
  assert(mods.has(new URL("lib/logcat/logcat_client.ts", ROOT).href), "it reaches the client");
  assert(mods.has(new URL("lib/logcat/levels.ts", ROOT).href), "and the levels");
  for (
    const f of [
      "line_parser.ts",
      "crash_parser.ts",
      "ring_store.ts",
      "pipeline.ts",
      "text_index.ts",
      "context_scan.ts",
      "pid_mentions.ts",
      "next_match.ts",
      "log_clock.ts",
      "enrich.ts",
      "logcat_service.ts",
    ]
  ) {
    const href = new URL(`lib/logcat/${f}`, ROOT).href;
    assert(!mods.has(href), `the main thread loads lib/logcat/${f}`);
  }
});
