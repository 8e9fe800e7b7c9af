/**
 * `ui.act` in the worker (lib/ui/act_service.ts) over a scripted ADB: one request checks the
 * screen, paces, runs the input and settles; every refusal happens before any input is sent.
 * The device is a USB serial, so the fast paths answer "not an emulator" and ADB runs.
 */
import "../../lib/ui/xml_fallback.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { UiService } from "../../lib/ui/ui_service.ts";
import { ActService } from "../../lib/ui/act_service.ts";
import { FastPaths } from "../../lib/ui/fast_paths.ts";
import { EmulatorLink } from "../../lib/emulator/link.ts";
import { dump, screen } from "./_xml.ts";
import { FakeAdb } from "../fake_adb.ts";

const SERIAL = "R5CT1234ABC";

function form(email = ""): string {
  return dump(screen([
    {
      cls: "android.widget.EditText",
      hint: "Email",
      text: email,
      id: "com.example:id/email",
      b: [0, 200, 1080, 350],
      click: true,
      focused: true,
    },
    {
      cls: "android.widget.Button",
      text: "Sign in",
      id: "com.example:id/sign_in",
      b: [100, 1548, 980, 1692],
      click: true,
      enabled: false,
    },
    { cls: "android.widget.Button", text: "Help", b: [100, 1800, 980, 1900], click: true },
  ]));
}

async function withActor(
  fn: (a: ActService, s: UiService, adb: FakeAdb) => Promise<void>,
  screenXml = form("ab"),
) {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-act-" });
  const adb = new FakeAdb((argv) => {
    if (argv[0] === "dumpsys") return "";
    if (argv[0] === "input") return "";
    return screenXml + "UI hierchary dumped to: /dev/tty";
  });
  const service = new UiService({ adb, dataDir: dir });
  const fast = new FastPaths({
    link: new EmulatorLink({ discoveryDirs: [] }),
    adb,
    screens: service,
  });
  try {
    await fn(new ActService({ service, fast, adb }), service, adb);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const ctx = () => ({ signal: new AbortController().signal });
const inputs = (adb: FakeAdb) => adb.calls.filter((c) => c.argv[0] === "input").map((c) => c.argv);

Deno.test("ui.act: resolve, tap, settle in one request; the settled list is remembered", async () => {
  await withActor(async (a, s, adb) => {
    const list = await s.observe({ serial: SERIAL }, ctx());
    const help = list.list.rows.find((r) => r.label === "Help")!;
    const r = await a.act({
      serial: SERIAL,
      target: { kind: "element", target: help.handle, requireEnabled: true },
      steps: [{ kind: "gesture", gesture: { kind: "tap", at: "target" } }],
      minIntervalMs: 0,
      touched: "target",
      maxRows: 10,
    }, ctx());
    assertEquals(inputs(adb), [["input", "tap", "540", "1850"]]);
    assertEquals(r.gestures[0].path, "adb");
    assertEquals(r.gestures[0].fallback, null, "a USB device is not a fallback");
    assertEquals(r.node?.text, "Help");
    assert(r.settle?.settled, "settled");
    assertEquals(s.latestList(SERIAL)?.screenHash, r.settle!.list.screenHash);
  });
});

Deno.test("ui.act: a disabled target, a point off the screen and a stale hash send nothing", async () => {
  await withActor(async (a, s, adb) => {
    const list = await s.observe({ serial: SERIAL }, ctx());
    const signIn = list.list.rows.find((r) => r.label.startsWith("Sign in"))!;
    await assertRejects(
      () =>
        a.act({
          serial: SERIAL,
          target: { kind: "element", target: signIn.handle, requireEnabled: true },
          steps: [{ kind: "gesture", gesture: { kind: "tap", at: "target" } }],
          minIntervalMs: 0,
        }, ctx()),
      ToolError,
    );
    const off = await a.act({
      serial: SERIAL,
      target: { kind: "screen" },
      points: [{ x: 5000, y: 10, names: ["x", "y"] }],
      steps: [{ kind: "gesture", gesture: { kind: "tap", at: { x: 5000, y: 10 } } }],
      minIntervalMs: 0,
    }, ctx()).catch((e) => e);
    assert(off instanceof ToolError && off.code === "invalid_params", String(off));
    const stale = await a.act({
      serial: SERIAL,
      target: { kind: "screen", expectScreenHash: "0000000000000000" },
      steps: [{ kind: "text", text: "x" }],
      minIntervalMs: 0,
    }, ctx()).catch((e) => e);
    assert(stale instanceof ToolError && stale.code === "screen_changed", String(stale));
    assertEquals(inputs(adb), [], "nothing was sent");
  });
});

Deno.test("ui.act: clearing the focused field deletes its characters and one more", async () => {
  await withActor(async (a, _s, adb) => {
    const r = await a.act({
      serial: SERIAL,
      target: { kind: "focused" },
      steps: [{ kind: "clear" }, { kind: "text", text: "new" }],
      minIntervalMs: 0,
      observeAfter: false,
    }, ctx());
    assertEquals(r.settle, null);
    assertEquals(inputs(adb), [
      ["input", "keyevent", "KEYCODE_MOVE_END", "KEYCODE_DEL", "KEYCODE_DEL", "KEYCODE_DEL"],
      ["input", "text", "new"],
    ]);
  });
});

Deno.test("ui.act: the worker paces actions on one device", async () => {
  await withActor(async (a) => {
    const once = () =>
      a.act({
        serial: SERIAL,
        target: { kind: "none" },
        steps: [{ kind: "input_key", key: "KEYCODE_BACK" }],
        minIntervalMs: 200,
        observeAfter: false,
      }, ctx());
    assertEquals((await once()).pacedMs, 0);
    assert((await once()).pacedMs > 0, "the second action waited for the gap");
  });
});
