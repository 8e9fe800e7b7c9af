/**
 * withAgentActions(): which calls become agentAction events, with what, and which record nothing —
 * through real tool handlers' shape, a real DebugSessionRecorder and real session files.
 */
import { z } from "zod";
import { assert, assertEquals } from "../assert.ts";
import { testToolContext } from "../tool_context.ts";
import { invalidParams, ToolError } from "../../lib/core/errors.ts";
import type { AdbClient } from "../../lib/adb/client.ts";
import { defineTool } from "../../lib/mcp/tool_def.ts";
import type { ToolContext } from "../../lib/tools/context.ts";
import { withAgentActions } from "../../lib/tools/agent_actions.ts";
import { DebugSessionRecorder } from "../../lib/sessions/session_recorder.ts";
import { applySessionOps, readSession } from "../../lib/sessions/session_store.ts";
import { pollUntil } from "../wait.ts";

const SHA = "f".repeat(64);

function tool(
  name: string,
  kind: "R" | "W" | "D" | "O",
  run: () => Promise<void> | void,
  withSerial = true,
) {
  return defineTool({
    name,
    toolset: "core",
    kind,
    description: name,
    params: withSerial
      ? {
        device_serial: z.string().optional(),
        package: z.string().optional(),
        secret: z.string().optional(),
      }
      : { name: z.string().optional() },
    async run(_args, _ctx: ToolContext) {
      await run();
      return { structured: { serial: "emulator-5556" }, text: "done" };
    },
  });
}

async function rig() {
  const dir = await Deno.makeTempDir();
  const sessions = new DebugSessionRecorder(dir);
  const open = async (serial: string, pkg: string) =>
    (await applySessionOps(dir, [{
      type: "open",
      session: {
        package: pkg,
        serial,
        project: null,
        build: {
          build_id: null,
          task: null,
          module: null,
          variant: null,
          version_code: null,
          version_name: null,
          apk_sha256: SHA,
          map_ids: [],
          mapping_sha256: null,
          source: null,
        },
        installedBy: { kind: "app" },
        recordedBy: "standalone",
        at: new Date(),
      },
    }])).opened[0];
  const adb = {
    listDevices: () => Promise.resolve([{ serial: "emulator-5556", state: "device" }]),
  } as unknown as AdbClient;
  const ctx = testToolContext({
    dataDir: dir,
    sessions,
    adb,
    request: { progress: () => {}, clientName: "claude", sessionId: "mcp-1" },
  });
  return { dir, sessions, open, ctx };
}

Deno.test("withAgentActions() records tool, kind, ok, duration and serial on the device's open sessions; nothing else", async () => {
  const r = await rig();
  try {
    const a = await r.open("emulator-5554", "com.example.app");
    const b = await r.open("emulator-5554", "com.example.other");
    const c = await r.open("emulator-5556", "com.example.app");
    const tap = withAgentActions(tool("ui_tap", "W", () => {}));
    await tap.run({ device_serial: "emulator-5554", secret: "hunter2" }, r.ctx);
    const stop = withAgentActions(tool("stop_app", "D", () => {
      throw new ToolError("device_offline", "gone");
    }));
    await stop.run({ device_serial: "emulator-5554", package: "com.example.app" }, r.ctx).catch(
      () => {},
    );
    await r.sessions.flush();
    const sa = (await readSession(r.dir, a))!;
    const actions = sa.events.filter((e) => e.kind === "agentAction");
    assertEquals(actions.map((e) => [e.data.tool, e.data.kind, e.data.ok, e.data.serial]), [
      ["ui_tap", "write", true, "emulator-5554"],
      ["stop_app", "destructive", false, "emulator-5554"],
    ]);
    assert(!JSON.stringify(sa).includes("hunter2"), "no other argument is recorded");
    assertEquals(actions[0].by, {
      kind: "agent",
      session_id: "mcp-1",
      client_name: "claude",
      standalone: true,
    });
    const sb = (await readSession(r.dir, b))!;
    assertEquals(sb.events.filter((e) => e.kind === "agentAction").map((e) => e.data.tool), [
      "ui_tap",
    ], "package-scoped call skips other packages");
    assertEquals((await readSession(r.dir, c))!.counts.agent_actions, 0, "other device");
  } finally {
    await r.sessions.close();
    await Deno.remove(r.dir, { recursive: true });
  }
});

Deno.test("withAgentActions(): refusals and read-only tools record nothing; a left-out device is the one online", async () => {
  const r = await rig();
  try {
    const s = await r.open("emulator-5556", "com.example.app");
    const refused = withAgentActions(tool("ui_tap", "W", () => {
      throw invalidParams("bad");
    }));
    await refused.run({ device_serial: "emulator-5556" }, r.ctx).catch(() => {});
    const read = tool("get_device_info", "R", () => {});
    assertEquals(withAgentActions(read), read, "read-only tools are not wrapped");
    const noDevice = withAgentActions(tool("ui_swipe", "W", () => {}));
    await noDevice.run({}, r.ctx);
    const avd = withAgentActions(tool("launch_avd", "W", () => {}, false));
    await avd.run({ name: "Pixel" }, r.ctx);
    const other = tool("cancel_build", "W", () => {}, false);
    assertEquals(withAgentActions(other), other, "no device, not a device tool: not wrapped");
    const actions = async () => {
      await r.sessions.flush();
      return (await readSession(r.dir, s))!.events.filter((e) => e.kind === "agentAction");
    };
    const got = await pollUntil(actions, (a) => a.length >= 2, "the two recorded actions");
    assertEquals(got.map((e) => e.data.tool), ["ui_swipe", "launch_avd"]);
  } finally {
    await r.sessions.close();
    await Deno.remove(r.dir, { recursive: true });
  }
});
