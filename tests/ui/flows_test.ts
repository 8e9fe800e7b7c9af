/**
 * The flow engine's pure parts: Maestro YAML → checked steps (refusals name the step and line),
 * selector matching by Maestro's rules with keynobi's occlusion, the selector an export chooses,
 * and the export's YAML (which the parser accepts).
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { parseFlow } from "../../lib/ui/shared/flows/flow_parse.ts";
import { flowTextMatches } from "../../lib/ui/shared/flows/flow_selector.ts";
import { FlowMatcher, selectorFor } from "../../lib/ui/flows/flow_match.ts";
import { exportFlow } from "../../lib/ui/shared/flows/flow_export.ts";
import { flowStepOf, secretName } from "../../lib/ui/shared/flows/flow_record.ts";
import {
  MAX_FLOW_BYTES,
  MAX_FLOW_DEPTH,
  MAX_FLOW_STEPS,
} from "../../lib/ui/shared/flows/flow_limits.ts";
import { parseHierarchy } from "../../lib/ui/hierarchy.ts";
import { isToolError } from "../../lib/core/errors.ts";
import { dump, type N, screen } from "./_xml.ts";

const APP = "com.example";

async function refused(text: string, want: RegExp, opts = {}) {
  const e = await assertRejects(() => parseFlow(text, { source: "f.yaml", ...opts }));
  assert(isToolError(e) && e.code === "invalid_params", String(e));
  assertMatch((e as Error).message, want);
}

Deno.test("parseFlow() reads the header, shorthand and map steps, and env with the caller's winning", async () => {
  const f = await parseFlow(
    `appId: ${APP}\nname: demo\nenv:\n  USER: ada\n  PIN: "1234"\n---\n` +
      "- launchApp\n- tapOn: Sign in\n- tapOn: {id: email, index: 1}\n- inputText: ${USER}\n" +
      "- inputText: ${PIN}\n- pressKey: enter\n- swipe: {start: '10%, 50%', end: '90%, 50%'}\n" +
      "- assertNotVisible: {text: Error, optional: true}\n",
    { source: "f.yaml", env: { PIN: "9999" } },
  );
  assertEquals([f.appId, f.name], [APP, "demo"]);
  assertEquals(f.steps.map((s) => s.cmd), [
    "launchApp",
    "tapOn",
    "tapOn",
    "inputText",
    "inputText",
    "pressKey",
    "swipe",
    "assertNotVisible",
  ]);
  const [launch, tap, tapId, user, pin, key, swipe] = f.steps as unknown as Record<
    string,
    unknown
  >[];
  assertEquals([launch.appId, launch.stopApp, launch.clearState, launch.line], [
    APP,
    true,
    false,
    7,
  ]);
  assertEquals(tap.selector, { text: "Sign in" });
  assertEquals(tapId.selector, { id: "email", index: 1 });
  assertEquals([user.text, pin.text], ["ada", "9999"]);
  assertEquals(key.key, "KEYCODE_ENTER");
  assertEquals(swipe.start, { x: 10, y: 50, percent: true });
});

Deno.test("parseFlow() refuses what it does not run, naming the step, the line and what is supported", async () => {
  await refused(
    `appId: ${APP}\n---\n- launchApp\n- travel: moon\n`,
    /f\.yaml line 4: travel is not supported, so nothing ran; supported steps: launchApp/,
  );
  await refused(`appId: ${APP}\n---\n- tapOn: {txt: a}\n`, /key "txt" is not supported/);
  await refused(
    `appId: ${APP}\nonFlowStart: []\n---\n- back\n`,
    /header key "onFlowStart" is not supported/,
  );
  await refused(`appId: ${APP}\n---\n- inputText: \${A || 'b'}\n`, /only \$\{NAME\} variables/);
  await refused(
    `appId: ${APP}\n---\n- inputText: "${"é".repeat(501)}"\n`,
    /1002 bytes, the limit is 1000/,
  );
  await refused(`---\n- launchApp\n`, /name the app/);
  await refused(
    `appId: ${APP}\n---\n- pressKey: Teleport\n`,
    /key "Teleport" is not supported; use Enter/,
  );
  await refused(`appId: ${APP}\n---\n- runFlow: other.yaml\n`, /needs a project/);
  await refused(`appId: ${APP}\n- back\n`, /not valid YAML|steps must be a list/);
});

Deno.test("parseFlow() bounds size, steps, nesting and runFlow files, which it reads and checks too", async () => {
  await refused("#".repeat(MAX_FLOW_BYTES + 1), /bytes, the limit is 262144/);
  const many = Array.from({ length: MAX_FLOW_STEPS + 1 }, () => "- back").join("\n");
  await refused(`appId: ${APP}\n---\n${many}\n`, /more than 1000 steps/);
  let deep = "- back";
  for (let i = 0; i <= MAX_FLOW_DEPTH; i++) {
    deep = `- repeat:\n    times: 2\n    commands:\n${deep.replace(/^/gm, "      ")}`;
  }
  await refused(`appId: ${APP}\n---\n${deep}\n`, /nest deeper than 8/);
  const files: Record<string, string> = {
    ".maestro/common/login.yaml":
      `appId: ${APP}\n---\n- inputText: \${WHO}\n- runFlow: ../bad.yaml\n`,
    ".maestro/bad.yaml": `appId: ${APP}\n---\n- fly\n`,
  };
  const opts = {
    readFile: (p: string) =>
      p in files ? Promise.resolve(files[p]) : Promise.reject(new Error(`no ${p}`)),
    resolvePath: (from: string, file: string) =>
      `${from.slice(0, from.lastIndexOf("/") + 1)}${file}`.replace(/[^/]+\/\.\.\//, ""),
    env: { WHO: "ada" },
  };
  // The included file's own include is checked before anything runs, with its own file and line.
  const e = await assertRejects(() =>
    parseFlow(`appId: ${APP}\n---\n- runFlow: common/login.yaml\n`, {
      source: ".maestro/main.yaml",
      ...opts,
    })
  );
  assertMatch((e as Error).message, /Flow \.maestro\/bad\.yaml line 3: fly is not supported/);
  files[".maestro/bad.yaml"] = `appId: ${APP}\n---\n- back\n`;
  const f = await parseFlow(`appId: ${APP}\n---\n- runFlow: common/login.yaml\n`, {
    source: ".maestro/main.yaml",
    ...opts,
  });
  const run = f.steps[0] as { cmd: string; name: string; steps: { cmd: string; source: string }[] };
  assertEquals([run.cmd, run.name], ["runFlow", ".maestro/common/login.yaml"]);
  assertEquals(run.steps.map((s) => [s.cmd, s.source]), [
    ["inputText", ".maestro/common/login.yaml"],
    ["runFlow", ".maestro/common/login.yaml"],
  ]);
});

Deno.test("flowTextMatches() is Maestro's: a regex over the whole text, any case, or equal literally", () => {
  assert(flowTextMatches("Sign in", "SIGN IN"));
  assert(flowTextMatches("Signed in as .*", "Signed in as ada@example.com"));
  assert(!flowTextMatches("Sign", "Sign in"), "the whole text, not a part");
  assert(flowTextMatches("Price (USD", "Price (USD"), "an invalid regex matches literally");
  assert(flowTextMatches("a.b", "a\nb"), "dot matches a newline");
});

const row = (title: string, top: number): N => ({
  cls: "android.widget.LinearLayout",
  id: `${APP}:id/row`,
  click: true,
  b: [0, top, 1080, top + 200],
  kids: [{
    cls: "android.widget.TextView",
    id: `${APP}:id/title`,
    text: title,
    b: [40, top + 20, 1040, top + 100],
  }],
});

function tree(...kids: N[]) {
  return parseHierarchy(dump(screen(kids)));
}

Deno.test("FlowMatcher: text, id, index and below; a covered match is never visible", () => {
  const t = parseHierarchy(dump(
    screen([row("Sign in", 200), row("Search", 400), {
      cls: "android.widget.Button",
      id: `${APP}:id/go`,
      text: "Go",
      click: true,
      b: [0, 700, 1080, 800],
    }]),
    // A dialog window over the lower half.
    {
      pkg: APP,
      b: [0, 600, 1080, 2400],
      kids: [{ cls: "android.widget.TextView", text: "Sure?", b: [0, 650, 1080, 900] }],
    },
  ));
  const m = new FlowMatcher(t);
  assertEquals(m.match({ text: "sign IN" }).matches.map((x) => x.node.text), ["Sign in"]);
  assertEquals(m.match({ id: "title" }).total, 2);
  assertEquals(m.match({ id: "title", index: 1 }).matches[0].node.text, "Search");
  assertEquals(m.match({ id: "title", below: { text: "Sign in" } }).matches[0].node.text, "Search");
  const go = m.match({ text: "Go" }).matches[0];
  assertEquals(go.tap.kind, "hidden", "the dialog covers the button");
});

Deno.test("selectorFor() picks a unique id, else the row's title as text, else an index, else nothing", () => {
  const t = tree(
    row("Sign in", 200),
    row("Search", 400),
    row("Search", 600),
    {
      cls: "android.widget.EditText",
      id: `${APP}:id/email`,
      hint: "Email",
      b: [0, 900, 1080, 1000],
    },
    { cls: "android.view.View", b: [0, 1100, 1080, 1200], click: true },
  );
  const byPath = (p: string) => t.nodes.find((n) => n.path === p)!.id;
  assertEquals(selectorFor(t, byPath("0.3")), { id: "email" });
  assertEquals(selectorFor(t, byPath("0.0")), { text: "Sign in" });
  assertEquals(selectorFor(t, byPath("0.2")), { text: "Search", index: 1 });
  assertEquals(selectorFor(t, byPath("0.4")), null);
});

Deno.test("exportFlow() writes a flow the parser accepts: launch first, ids and texts, a secret, a commented point", async () => {
  const steps = [
    flowStepOf("ui_tap_element", {}, {
      tapped: { x: 540, y: 300 },
      flow_target: { selector: { text: "Sign in" } },
    }),
    flowStepOf("ui_fill_input", { text: "ada@x.io" }, {
      field: { tree_path: "0.3", resource_id: `${APP}:id/email`, hint: "Email", x: 1, y: 2 },
      flow_target: { selector: { id: "email" }, password: false },
    }),
    flowStepOf("ui_fill_input", { text: "hunter2" }, {
      field: { tree_path: "0.4", resource_id: `${APP}:id/pin_code`, hint: "PIN", x: 1, y: 2 },
      flow_target: { selector: { id: "pin_code" }, password: true },
    }),
    flowStepOf("ui_tap", { x: 10, y: 20 }, {}),
    flowStepOf("send_ui_key", { key: "BACK" }, {}),
    flowStepOf("ui_wait_for_idle", {}, {}),
  ];
  const out = exportFlow(APP, steps.map((step, i) => ({ tool: `t${i}`, step })), "test");
  assertEquals(out.variables, ["PIN_CODE"]);
  assertEquals(out.points, 1);
  assertEquals(out.skipped, [{ tool: "t5", why: "not a UI step a flow replays" }]);
  assert(!out.yaml.includes("hunter2"));
  assertEquals(
    out.yaml,
    `# test\nappId: ${APP}\n---\n- launchApp\n- tapOn:\n    text: "Sign in"\n- tapOn:\n    id: "email"\n` +
      `- eraseText\n- inputText: "ada@x.io"\n- tapOn:\n    id: "pin_code"\n- eraseText\n` +
      "- inputText: ${PIN_CODE}\n# tapOn at (10,20): no id, text or description identified the element\n" +
      '- tapOn:\n    point: "10, 20"\n- back\n',
  );
  const f = await parseFlow(out.yaml, { source: "export", env: { PIN_CODE: "1" } });
  assertEquals(f.steps.length, out.steps);
  assertEquals(secretName(`${APP}:id/username`), "PASSWORD");
});
