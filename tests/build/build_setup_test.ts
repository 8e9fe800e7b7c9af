/**
 * lib/build/shared/build_setup.ts over settings read once: the task policy's switch, the trust refusal
 * (the same one the build worker gives) and the timeout's one bound.
 */
import { join } from "node:path";
import { assertEquals, assertRejects } from "../assert.ts";
import { defaultSettings, readSettings, type Settings } from "../../lib/core/settings.ts";
import { ToolError } from "../../lib/core/errors.ts";
import {
  buildTimeoutMs,
  MAX_TASKS_PER_BUILD,
  requireTrusted,
  resolveTasks,
} from "../../lib/build/shared/build_setup.ts";
import {
  boundBuildTimeoutMs,
  DEFAULT_BUILD_TIMEOUT_SEC,
  MAX_BUILD_TIMEOUT_SEC,
  MIN_BUILD_TIMEOUT_SEC,
} from "../../lib/build/shared/build_protocol.ts";
import { trustProject, untrustedBuildError } from "../../lib/project/trust.ts";
import { SAMPLE_PROJECT, tempDir, writeTree } from "../project/_fixture.ts";

const withMcp = (mcp: Settings["mcp"]): Settings => ({ ...defaultSettings(), mcp });

Deno.test("buildTimeoutMs() reads mcp.build_timeout_sec within the one bound both sides use", () => {
  assertEquals(buildTimeoutMs(defaultSettings()), DEFAULT_BUILD_TIMEOUT_SEC * 1000);
  assertEquals(buildTimeoutMs(withMcp({ build_timeout_sec: 90 })), 90_000);
  assertEquals(buildTimeoutMs(withMcp({ build_timeout_sec: 0 })), MIN_BUILD_TIMEOUT_SEC * 1000);
  assertEquals(buildTimeoutMs(withMcp({ build_timeout_sec: 1e9 })), MAX_BUILD_TIMEOUT_SEC * 1000);
  assertEquals(
    buildTimeoutMs(withMcp({ build_timeout_sec: "soon" as unknown as number })),
    DEFAULT_BUILD_TIMEOUT_SEC * 1000,
  );
  // The build worker bounds what it is sent with the same function.
  assertEquals(boundBuildTimeoutMs(10), MIN_BUILD_TIMEOUT_SEC * 1000);
  assertEquals(boundBuildTimeoutMs(Number.NaN), DEFAULT_BUILD_TIMEOUT_SEC * 1000);
});

Deno.test("requireTrusted() refuses an untrusted project with the worker's message, passes a trusted one", async () => {
  await using tmp = await tempDir();
  const data = join(tmp.path, "data");
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  const e = await assertRejects(() => requireTrusted(proj, defaultSettings()), ToolError);
  assertEquals(e.code, "invalid_params");
  assertEquals(e.message, untrustedBuildError(proj).message);
  assertEquals(e.data, { trust_hint: `keynobi trust ${proj}` });
  await trustProject(data, proj);
  assertEquals(await requireTrusted(proj, await readSettings(data)), proj);
});

Deno.test("resolveTasks() applies the task policy with the settings it is given", async () => {
  await using tmp = await tempDir();
  const proj = join(tmp.path, "proj");
  await writeTree(proj, SAMPLE_PROJECT);
  const refused = await assertRejects(
    () => resolveTasks(proj, defaultSettings(), "publishRelease", undefined),
    ToolError,
  );
  assertEquals(refused.code, "invalid_params");
  const allowed = await resolveTasks(
    proj,
    withMcp({ allow_unrestricted_gradle: true }),
    "publishRelease",
    undefined,
  );
  assertEquals(allowed, { tasks: ["publishRelease"], variant: null, module: null });
  const many = Array.from({ length: MAX_TASKS_PER_BUILD + 1 }, (_, i) => `t${i}`).join(" ");
  await assertRejects(() => resolveTasks(proj, defaultSettings(), many, undefined), ToolError);
});
