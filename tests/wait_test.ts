import { assertEquals, assertRejects, assertStringIncludes } from "./assert.ts";
import { pollUntil, WAIT_MAX_TIMEOUT_MS, waitUntil } from "./wait.ts";

Deno.test("waitUntil() returns once the condition holds, polling again until then", async () => {
  let polls = 0;
  await waitUntil(() => ++polls === 3, "the third poll", { intervalMs: 0 });
  assertEquals(polls, 3);
});

Deno.test("pollUntil() returns the value that satisfied it; async reads are awaited", async () => {
  let n = 0;
  const v = await pollUntil(() => Promise.resolve(++n), (x) => x >= 2, "two", { intervalMs: 0 });
  assertEquals(v, 2);
});

Deno.test("waitUntil() names what it waited for and the last value when the bound runs out", async () => {
  const e = await assertRejects(
    () => pollUntil(() => ({ state: "idle" }), () => false, "the build", { timeoutMs: 0 }),
    Error,
  );
  assertStringIncludes(e.message, "waiting for the build");
  assertStringIncludes(e.message, '{"state":"idle"}');
});

Deno.test("waitUntil() refuses a bound outside its range", async () => {
  await assertRejects(
    () => waitUntil(() => true, "x", { timeoutMs: WAIT_MAX_TIMEOUT_MS + 1 }),
    RangeError,
  );
  await assertRejects(() => waitUntil(() => true, "x", { intervalMs: -1 }), RangeError);
});
