/** UI captures wait for nobody but refuse while this process runs instrumentation on devices. */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  E2E_WAIT,
  runKeynobi,
  type Session,
  startWorld,
} from "./harness.ts";
import { waitUntil } from "../wait.ts";

async function building(s: Session): Promise<boolean> {
  const st = (await call(s, "get_build_status")).structuredContent!;
  // The record can say running a moment before the worker reports the running build.
  return st.status === "running" &&
    ((st.running as { current_task: string | null } | null)?.current_task ?? null) !== null;
}

Deno.test("a connected test run makes UI captures fail at once with busy: instrumentation running", async () => {
  await using world = await startWorld();
  const project = world.sim.projects["sample-kts"];
  assertEquals((await runKeynobi(world, ["trust", project])).code, 0);
  await world.sim.gradle("sample-kts").hangAt("connectedDemoDebugAndroidTest");
  await using s = await connect(world, ["--project", project]);
  const before = await call(s, "get_ui_hierarchy", { device_serial: "emulator-5554" });
  assert(!before.isError, before.content[0].text);
  const abort = new AbortController();
  const pending = s.client.callTool(
    { name: "run_tests", arguments: { test_type: "connected", variant: "demoDebug" } },
    undefined,
    { signal: abort.signal, timeout: 60_000 },
  ).catch((e: unknown) => e);
  await waitUntil(() => building(s), "the connected test run", E2E_WAIT);
  const busy = await call(s, "get_ui_hierarchy", { device_serial: "emulator-5554" });
  assertEquals(busy.isError, true);
  assertEquals((busy.structuredContent!.error as Record<string, unknown>).code, "device_busy");
  assertStringIncludes(busy.content[0].text!, "instrumentation running");
  abort.abort();
  await pending;
  await waitUntil(
    async () => (await call(s, "get_build_status")).structuredContent!.status === "cancelled",
    "the cancel",
    E2E_WAIT,
  );
  const after = await call(s, "get_ui_hierarchy", { device_serial: "emulator-5554" });
  assert(!after.isError, after.content[0].text);
  await assertNoInjection(world.sim);
});
