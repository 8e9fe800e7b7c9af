/**
 * UI flows end to end, through the real entry point and the MCP SDK client, against the
 * simulator's sample app: a Maestro sign-in flow passes; the same flow with a wrong assertion
 * fails at that step with the settled screen; a flow with an unsupported step is refused before
 * anything runs.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  BUILD_TIMEOUT_MS,
  built,
  call,
  connect,
  errorOf,
  json,
  ok as okOf,
  startWorld,
  textOf as text,
  type ToolError,
  trusted,
  uiOf,
  type UiScreen,
} from "./harness.ts";

const SERIAL = "emulator-5554";
const PKG = "com.example.keynobi.sample.demo.debug";

interface FlowStep {
  index: string;
  command: string;
  status: string;
  ms: number;
  detail: string;
  source: string;
}

/** run_ui_flow */
interface FlowRun extends UiScreen {
  passed: boolean;
  failed_step:
    | { index: string; command: string; line: number; error: ToolError; detail: string }
    | null;
  steps: FlowStep[];
  duration_ms: number;
}

/** The sample app's sign-in, as a developer would write it for Maestro. */
export function signInFlow(result = "Signed in as ada@example\\.com"): string {
  return [
    `appId: ${PKG}`,
    "name: sign in",
    "env:",
    "  EMAIL: ada@example.com",
    "---",
    "- launchApp:",
    "    stopApp: true",
    '- tapOn: "Sign in"',
    "- tapOn:",
    "    id: email",
    "- inputText: ${EMAIL}",
    "- tapOn:",
    "    id: password",
    "- inputText: ${PASSWORD}",
    "- tapOn:",
    '    text: "SIGN IN"',
    "    below:",
    "      id: remember",
    `- assertVisible: '${result}'`,
    "",
  ].join("\n");
}

Deno.test("run_ui_flow: the sign-in flow passes, step by step, on the UI engine", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const r = await call(s, "run_ui_flow", {
    device_serial: SERIAL,
    flow: signInFlow(),
    env: ["PASSWORD=hunter22"],
  });
  assert(!r.isError, text(r));
  const out = json<FlowRun>(r);
  assertEquals(out.passed, true, text(r));
  assertEquals(out.failed_step, null);
  assertEquals(out.steps.map((x) => x.command), [
    "launchApp",
    "tapOn",
    "tapOn",
    "inputText",
    "tapOn",
    "inputText",
    "tapOn",
    "assertVisible",
  ]);
  assert(out.steps.every((x) => x.status === "passed" && typeof x.ms === "number"));
  assert(out.duration_ms >= out.steps.reduce((a: number, x) => a + x.ms, 0) - 8);
  // What the device's app holds is what the flow typed.
  const st = ui.state();
  assertEquals(st.screen, "form");
  assertEquals(st.fields.email, "ada@example.com");
  assertEquals(st.fields.password, "hunter22");
  // `below: {id: remember}` picked the button, not the toolbar's "Sign in" title.
  assertMatch(out.steps[6].detail, /tapped Button "SIGN IN" at \(\d+,\d+\); settled in \d+ ms/);
  assertStringIncludes(text(r), "Flow sign in passed on emulator-5554: 8 steps");
  await assertNoInjection(world.sim);
});

Deno.test("run_ui_flow: a wrong assertion fails at that step with the settled screen", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const r = await call(s, "run_ui_flow", {
    device_serial: SERIAL,
    flow: signInFlow("Welcome back, Ada"),
    env: ["PASSWORD=hunter22"],
    lookup_timeout_ms: 1_500,
    screenshot_on_failure: true,
  });
  assert(!r.isError, text(r));
  const out = json<FlowRun>(r);
  assertEquals(out.passed, false);
  const failed = out.failed_step!;
  assertEquals(failed.index, "8");
  assertEquals(failed.command, "assertVisible");
  assertEquals(failed.line, 19);
  assertEquals(failed.error.code, "not_found");
  assertStringIncludes(failed.detail, 'nothing matches text "Welcome back, Ada"');
  assertEquals(out.steps.length, 8);
  // The settled screen there: the form showing the real result.
  assert(
    out.elements.some((e) => e.label === "Signed in as ada@example.com"),
    JSON.stringify(out.elements.map((e) => e.label)),
  );
  assertStringIncludes(
    text(r),
    "FAILED on emulator-5554 at step 8 (assertVisible, inline line 19)",
  );
  assert(r.content.some((c) => c.type === "image"), "the failure's screenshot");
});

Deno.test("run_ui_flow: an unsupported step, a bad selector or an unknown variable is refused before anything runs", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const before = ui.state();
  const commands = (await world.sim.readJournal()).length;
  const flows: [string, RegExp][] = [
    [
      `appId: ${PKG}\n---\n- launchApp\n- tapOn: Sign in\n- travel: {to: moon}\n`,
      /line 5: travel is not supported, so nothing ran; supported steps: launchApp, stopApp/,
    ],
    [`appId: ${PKG}\n---\n- tapOn: {txt: Sign in}\n`, /line 3: tapOn: key "txt" is not supported/],
    [`appId: ${PKG}\n---\n- inputText: \${NOPE}\n`, /variable NOPE is not defined/],
    [`appId: ${PKG}\n---\n- tapOn: [1, 2\n`, /not valid YAML/],
    [
      `appId: ${PKG}\n---\n- repeat:\n    times: 1000\n    commands: [back]\n`,
      /times: expected a whole number 1\.\.100/,
    ],
  ];
  for (const [flow, want] of flows) {
    const r = await call(s, "run_ui_flow", { device_serial: SERIAL, flow });
    assert(r.isError, `refused: ${flow}`);
    assertEquals(errorOf(r).code, "invalid_params");
    assertMatch(text(r), want);
  }
  // Nothing ran: the app is still where it was, untouched.
  const after = ui.state();
  assertEquals(after.screen, before.screen);
  assertEquals(after.fields, before.fields);
  assertEquals((await world.sim.readJournal()).length, commands, "no device command ran");
});

Deno.test("run_ui_flow: a flow that passes on one install and fails on the next shows in compare_debug_sessions", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const gradle = world.sim.gradle("sample-kts");
  await gradle.setTaskDelay(0);
  await using s = await connect(world, ["--project", project]);
  const APK = "app/build/outputs/apk/demo/debug/app-demo-debug.apk";
  // The flow lives in the project, as a team keeps it; it includes its sign-in steps.
  await Deno.mkdir(`${project}/.maestro/common`, { recursive: true });
  await Deno.writeTextFile(
    `${project}/.maestro/common/fill.yaml`,
    `appId: ${PKG}\n---\n- tapOn: {id: email}\n- inputText: \${EMAIL}\n` +
      "- tapOn: {id: password}\n- inputText: ${PASSWORD}\n",
  );
  await Deno.writeTextFile(
    `${project}/.maestro/sign_in.yaml`,
    `appId: ${PKG}\nname: sign in\nenv:\n  EMAIL: ada@example.com\n---\n- launchApp\n` +
      '- tapOn: "Sign in"\n- runFlow: common/fill.yaml\n- tapOn: {id: sign_in}\n' +
      "- assertVisible: 'Signed in as .*'\n",
  );
  const build = async () => {
    await built(s);
    const i = await call(s, "install_apk", { device_serial: SERIAL, apk_path: APK });
    assert(!i.isError, text(i));
  };
  const run = async () => {
    const r = await call(s, "run_ui_flow", {
      device_serial: SERIAL,
      flow_path: ".maestro/sign_in.yaml",
      env: ["PASSWORD=hunter22"],
      lookup_timeout_ms: 2_000,
    });
    assert(!r.isError, text(r));
    return json<FlowRun>(r);
  };

  await build();
  const good = await run();
  assertEquals(good.passed, true, JSON.stringify(good.steps));
  assertEquals(good.steps.map((x) => x.index), [
    "1",
    "2",
    "3",
    "3.1",
    "3.2",
    "3.3",
    "3.4",
    "4",
    "5",
  ]);
  assertEquals(good.steps[3].source, ".maestro/common/fill.yaml");

  // The next build breaks the sign-in (the fake Gradle's ui_regression scenario).
  await gradle.setScenario("assembleDemoDebug", "ui_regression");
  await build();
  const bad = await run();
  assertEquals(bad.passed, false);
  assertEquals([bad.failed_step!.index, bad.failed_step!.command], ["5", "assertVisible"]);
  assert(
    bad.elements.some((e) => e.label === "Something went wrong. Try again later."),
    "the settled screen shows what the broken build says",
  );

  const list = json<{ sessions: { id: string }[] }>(
    await call(s, "list_debug_sessions", { package: PKG }),
  );
  const [newer, older] = list.sessions;
  const got = json<{
    timeline: { kind: string; summary: string; data: { failed_step: { command: string } } }[];
  }>(await call(s, "get_debug_session", { session_id: newer.id }));
  const flowEvent = got.timeline.find((e) => e.kind === "uiFlow");
  assert(flowEvent, got.timeline.map((e) => e.kind).join(","));
  assertEquals(flowEvent.data.failed_step.command, "assertVisible");
  assertStringIncludes(flowEvent.summary, "flow sign in failed at step 5 assertVisible");

  const c = await call(s, "compare_debug_sessions", { from: older.id, to: newer.id });
  assert(!c.isError, text(c));
  const cmp = json<{
    differences: { field: string; from: string; to: string }[];
    flows: { broke: boolean }[];
  }>(c);
  const d = cmp.differences.find((x) => x.field === "flow sign in");
  assert(d, JSON.stringify(cmp.differences));
  assertEquals(d.from, "passed");
  assertStringIncludes(d.to, "failed at step 5 assertVisible");
  assertEquals(cmp.flows[0].broke, true);
  assertStringIncludes(text(c), "Flow sign in: passed → failed at step 5 assertVisible");
});

Deno.test("export_ui_flow: an agent's ui_* walk becomes a flow that run_ui_flow passes on a fresh start", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  await world.sim.gradle("sample-kts").setTaskDelay(0);
  await using s = await connect(world, ["--project", project]);
  const ui = uiOf(world);
  const ok = async <T = UiScreen>(name: string, args: Record<string, unknown>) =>
    okOf<T>(await call(s, name, args, { timeoutMs: BUILD_TIMEOUT_MS }), name);
  await ok("run_gradle_task", { task: "assembleDemoDebug" });
  await ok("install_apk", {
    device_serial: SERIAL,
    apk_path: "app/build/outputs/apk/demo/debug/app-demo-debug.apk",
  });
  // The agent's walk: read, tap by handle, fill both fields, submit.
  await ok("launch_app", { device_serial: SERIAL, package: PKG });
  const home = await ok("ui_wait_for_idle", { device_serial: SERIAL });
  const row = home.elements.find((e) => e.label.startsWith("Sign in"));
  const form = await ok("ui_tap_element", { device_serial: SERIAL, tree_path: row!.handle });
  const handle = (id: string, list: UiScreen) =>
    list.elements.find((e) => e.resource_id === id)!.handle;
  const afterEmail = await ok("ui_fill_input", {
    device_serial: SERIAL,
    tree_path: handle("email", form),
    text: "grace@example.com",
  });
  const afterPassword = await ok("ui_fill_input", {
    device_serial: SERIAL,
    tree_path: handle("password", afterEmail),
    text: "s3cret-pw",
  });
  await ok("ui_tap_element", {
    device_serial: SERIAL,
    tree_path: handle("sign_in", afterPassword),
  });
  assertEquals(ui.state().fields.email, "grace@example.com");

  const out = await ok<{ flow: string; variables: string[]; points: number; session_id: string }>(
    "export_ui_flow",
    { device_serial: SERIAL },
  );
  const flow: string = out.flow;
  assertEquals(out.variables, ["PASSWORD"]);
  assertEquals(out.points, 0, flow);
  // By id where the id is unique, by text where it is not (every home row is `row`).
  assertStringIncludes(flow, `appId: ${PKG}\n---\n- launchApp\n- tapOn:\n    text: "Sign in"\n`);
  assertStringIncludes(
    flow,
    '- tapOn:\n    id: "email"\n- eraseText\n- inputText: "grace@example.com"',
  );
  assertStringIncludes(flow, '- tapOn:\n    id: "password"\n- eraseText\n- inputText: ${PASSWORD}');
  assertStringIncludes(flow, '- tapOn:\n    id: "sign_in"\n');
  assert(!flow.includes("s3cret-pw"), "the password is not in the flow");
  const session = await ok("get_debug_session", { session_id: out.session_id });
  assert(!JSON.stringify(session).includes("s3cret-pw"), "nor in the debug session");

  // A fresh start: the app stopped, its fields empty; the exported flow signs in again.
  await ok("stop_app", { device_serial: SERIAL, package: PKG });
  const run = await ok<FlowRun>("run_ui_flow", {
    device_serial: SERIAL,
    flow: flow + "- assertVisible: 'Signed in as grace@example\\.com'\n",
    env: ["PASSWORD=s3cret-pw"],
  });
  assertEquals(run.passed, true, JSON.stringify(run.steps));
  const st = ui.state();
  assertEquals([st.screen, st.fields.email, st.fields.password], [
    "form",
    "grace@example.com",
    "s3cret-pw",
  ]);
});
