/**
 * Screen truth through the real entry point: a dump shown on the simulated device (`simctl
 * show-dump`: a replayed real dump, or one written by hand in the dumper's format) stays on screen
 * while the tools act on it, and the simulator records where each tap landed. A handle's tap lands
 * on its element, never on what covers it; an element under the keyboard gets the keyboard hidden
 * first; a covered one is refused; `hide_soft_keyboard` and the list decide from one signal.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  type Json,
  ok,
  rowBy,
  rows,
  startWorld,
  uiOf,
  type UiRow,
} from "./harness.ts";
import type { World } from "./harness.ts";
import { dump, type N, screen } from "../ui/_xml.ts";
import { RawClient } from "../sim/_raw_client.ts";

const SERIAL = "emulator-5554";
const IME = "com.google.android.inputmethod.latin";
const REAL = new URL("../../../shared/fixtures/real/uiautomator/", import.meta.url);
const HAVE_REAL = (() => {
  try {
    return Deno.statSync(REAL).isDirectory;
  } catch {
    console.error(`ui_screen_truth_test: ${REAL.pathname} is absent: the replayed dump is skipped`);
    return false;
  }
})();

function row(s: Json, label: string): UiRow {
  return rowBy(s, (x) => x.label === label, `"${label}"`);
}

/** Runs a command on the device over the ADB wire (`exec:`); its output. */
async function adbExec(world: World, cmd: string): Promise<string> {
  using c = await RawClient.connect(world.sim.port);
  await c.request(`host:transport:${SERIAL}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(`exec:${cmd}`);
  const all = await c.readAll();
  assertEquals(new TextDecoder().decode(all.subarray(0, 4)), "OKAY");
  return new TextDecoder().decode(all.subarray(4));
}

/** Shows `xml` on the device through `simctl show-dump`. */
async function show(world: World, xml: string): Promise<void> {
  const file = `${world.home}/shown_${crypto.randomUUID()}.xml`;
  await Deno.writeTextFile(file, xml);
  assertEquals(await adbExec(world, `simctl show-dump '${file}'`), "");
  assert(uiOf(world).state().showingDump, "the dump is on screen");
}

/** Twelve rows, a floating button over row 1's center and a bottom bar over row 11. */
function feed(): string {
  const kids: N[] = [];
  for (let i = 0; i < 12; i++) {
    const t = i * 200;
    kids.push({
      cls: "android.widget.LinearLayout",
      b: [0, t, 1080, t + 200],
      click: true,
      kids: [{ cls: "android.widget.TextView", text: `Item ${i}`, b: [40, t + 40, 800, t + 160] }],
    });
  }
  return dump(screen([
    { cls: "androidx.recyclerview.widget.RecyclerView", b: [0, 0, 1080, 2400], scroll: true, kids },
    { cls: "android.widget.ImageButton", desc: "Compose", b: [440, 260, 640, 540], click: true },
    {
      cls: "android.widget.LinearLayout",
      b: [0, 2200, 1080, 2400],
      kids: [
        { cls: "android.widget.FrameLayout", desc: "Home", b: [0, 2200, 540, 2400], click: true },
        { cls: "android.widget.FrameLayout", desc: "Me", b: [540, 2200, 1080, 2400], click: true },
      ],
    },
  ]));
}

/** A form whose Save button is under the keyboard, with the status bar's window. */
function form(): string {
  return dump(
    screen([
      { cls: "android.widget.EditText", hint: "Name", b: [40, 200, 1040, 340], click: true },
      { cls: "android.widget.Button", text: "Save", b: [40, 1800, 1040, 1960], click: true },
    ]),
    {
      pkg: IME,
      b: [0, 1500, 1080, 2400],
      kids: [
        { pkg: IME, cls: "android.view.View", desc: "q", b: [0, 1600, 108, 1750], click: true },
        {
          pkg: IME,
          cls: "android.view.View",
          desc: "Done",
          b: [900, 2200, 1080, 2380],
          click: true,
        },
      ],
    },
    { pkg: "com.android.systemui", b: [0, 0, 1080, 80] },
  );
}

Deno.test({
  name: "ui: a replayed real dump stays on screen through a tap; the settled list shows its answer",
  ignore: !HAVE_REAL,
  fn: async () => {
    await using world = await startWorld();
    await using s = await connect(world, []);
    await show(world, await Deno.readTextFile(new URL("systemui_quick_settings_zh.xml", REAL)));
    const read = await call(s, "get_ui_hierarchy", { device_serial: SERIAL });
    assertMatch(read.content[0].text!, /^package: com\.android\.systemui/);
    const bt = row(ok(read, "read"), "蓝牙。 | 已关闭");
    assert(bt.flags.includes("unchecked"), JSON.stringify(bt));
    const tapped = ok(
      await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: bt.handle }),
      "tap",
    );
    const ui = uiOf(world);
    assertEquals(ui.state().dumpTaps.map((t) => t.path), [bt.tree_path], "the tap hit the tile");
    assert(ui.state().showingDump, "the dump is still on screen after the tap");
    // The settled screen is the replayed one, with the tile switched on.
    assertEquals((tapped.screen as { package: string }).package, "com.android.systemui");
    const after = rows(tapped).find((r) => r.tree_path === bt.tree_path)!;
    assert(after.flags.includes("checked"), JSON.stringify(after));
    await assertNoInjection(world.sim);
  },
});

Deno.test("ui: a handle taps its element where it shows, never what covers its center", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  await show(world, feed());
  const list = ok(await call(s, "get_ui_hierarchy", { device_serial: SERIAL }), "read");
  const item1 = row(list, "Item 1");
  assertEquals(rows(list).filter((r) => r.label === "Item 11"), [], "row 11 is under the bar");
  ok(await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: item1.handle }), "tap");
  const taps = uiOf(world).state().dumpTaps;
  assertEquals(taps.map((t) => t.path), [item1.tree_path], JSON.stringify(taps));
  // A tree path to the covered row is refused: nothing is tapped.
  const tree = ok(
    await call(s, "get_ui_hierarchy", { device_serial: SERIAL, format: "tree" }),
    "tree",
  );
  const nodes = tree.nodes as { tree_path?: string; path?: string; text: string }[];
  const label = nodes.find((n) => n.text === "Item 11")!;
  const path11 = (label.tree_path ?? label.path)!.split(".").slice(0, -1).join(".");
  const refused = await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: path11 });
  assertEquals(refused.isError, true, refused.content[0].text);
  assertEquals(
    (refused.structuredContent!.error as Record<string, unknown>).code,
    "invalid_request",
  );
  assertStringIncludes(refused.content[0].text!, "covered by");
  assertEquals(uiOf(world).state().dumpTaps.length, 1, "nothing more was tapped");
  await assertNoInjection(world.sim);
});

Deno.test("ui: an element under the keyboard is tapped after the keyboard is hidden", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  await show(world, form());
  const read = await call(s, "get_ui_hierarchy", { device_serial: SERIAL });
  assertMatch(read.content[0].text!, /keyboard: shown \(covers y>=1500\)/);
  const save = row(ok(read, "read"), "Save");
  assert(save.flags.includes("under-keyboard"), JSON.stringify(save));
  const tapped = ok(
    await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: save.handle }),
    "tap",
  );
  assertEquals(tapped.hid_keyboard, true);
  const ui = uiOf(world);
  // One tap, on Save: the keyboard went with BACK first (its window left the dump).
  assertEquals(
    ui.state().dumpTaps.map((t) => t.path),
    [save.tree_path],
    JSON.stringify([tapped.x, tapped.y, ui.state().dumpTaps, save]),
  );
  assert(!ui.currentXml().includes(IME), "the keyboard is hidden");
  await assertNoInjection(world.sim);
});

Deno.test("ui: hide_soft_keyboard and the list decide from the same signal", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  await show(world, form());
  // dumpsys input_method lags the screen (mInputShown=false while the keyboard is up).
  await adbExec(world, "simctl ui-ime-report hidden");
  const read = await call(s, "get_ui_hierarchy", { device_serial: SERIAL });
  assertMatch(read.content[0].text!, /keyboard: shown/);
  const hidden = ok(await call(s, "hide_soft_keyboard", { device_serial: SERIAL }), "hide");
  assertEquals(hidden.was_shown, true);
  assertEquals(hidden.decided_by, "dump");
  assert(!uiOf(world).currentXml().includes(IME), "BACK hid the keyboard");
  assertEquals((hidden.screen as { keyboard: unknown }).keyboard, null);
  // Stuck the other way (mInputShown=true with no keyboard on screen): nothing is pressed.
  await adbExec(world, "simctl ui-ime-report shown");
  const again = await call(s, "hide_soft_keyboard", { device_serial: SERIAL });
  assertEquals(again.content[0].text, "No keyboard shown.");
  assert(uiOf(world).state().showingDump, "no BACK left the screen");
  await assertNoInjection(world.sim);
});
