/**
 * The UI tools through the real entry point and the MCP SDK client, against the simulator's
 * sample app: read, tap by handle, type and submit, scroll, wait, stale handles, two servers on
 * one device, screenshots, and hostile text.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  type CallResult,
  connect,
  ok,
  rowBy,
  rows,
  type Session,
  startWorld,
  uiOf,
} from "./harness.ts";
import { encodePng as simEncodePng, rasterize } from "../sim/ui/render.ts";
import { decodePng } from "../../lib/ui/png.ts";
import { psnr, referenceDownscale } from "../ui/_reference_resize.ts";

const SERIAL = "emulator-5554";

async function read(s: Session) {
  return ok(await call(s, "get_ui_hierarchy", { device_serial: SERIAL }), "get_ui_hierarchy");
}

Deno.test("ui: read the first screen, tap by handle, fill a field; each action returns the settled screen", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const first = await call(s, "get_ui_hierarchy", { device_serial: SERIAL });
  const home = ok(first, "read");
  assertMatch(first.content[0].text!, /^package: com\.example\.keynobi\.sample/);
  const signIn = rowBy(home, (r) => r.label.startsWith("Sign in"), "Sign in");
  assertMatch(signIn.handle, /^e\d+$/);

  const tapped = ok(
    await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: signIn.handle }),
    "tap",
  );
  assertEquals(ui.state().screen, "form");
  assertEquals(tapped.settled, true);
  assert(
    (tapped.settle_ms as number) >= 500,
    `settle_ms ${tapped.settle_ms} covers the transition`,
  );
  // The settled list is the form, not a frame of the transition: no home rows remain.
  assert(!rows(tapped).some((r) => r.label.startsWith("Load data")), "home rows gone");
  const email = rowBy(tapped, (r) => r.resource_id === "email", "email field");
  assert(email.flags.includes("edit"));

  const filled = ok(
    await call(s, "ui_fill_input", {
      device_serial: SERIAL,
      tree_path: email.handle,
      text: "o'brien+1@example.com",
    }),
    "fill",
  );
  assertEquals(ui.state().fields.email, "o'brien+1@example.com");
  assertEquals(typeof filled.settle_ms, "number");

  // Filling again clears first (clear_before defaults to true).
  const again = rowBy(filled, (r) => r.resource_id === "email", "email field");
  ok(
    await call(s, "ui_fill_input", {
      device_serial: SERIAL,
      tree_path: again.handle,
      text: "ann@example.com",
      observe_after: false,
    }),
    "fill again",
  );
  assertEquals(ui.state().fields.email, "ann@example.com");
  await assertNoInjection(world.sim);
});

Deno.test("ui: type into the search box and submit with enter (the keyboard's action key)", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const home = await read(s);
  const search = rowBy(home, (r) => r.label.startsWith("Search"), "Search");
  const shown = ok(
    await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: search.handle }),
    "open search",
  );
  assertEquals(ui.state().focus, "query");
  assert((shown.screen as Record<string, unknown>).keyboard !== null, "keyboard shown");
  ok(await call(s, "ui_type_text", { device_serial: SERIAL, text: "Item 1" }), "type");
  assertEquals(ui.state().fields.query, "Item 1");
  const submitted = ok(
    await call(s, "send_ui_key", { device_serial: SERIAL, key: "enter" }),
    "enter",
  );
  assertEquals(submitted.via, "ime_action_key");
  assert(ui.state().searchResults !== null, "the search ran");
  assert((ui.state().searchResults as string[]).includes("Item 10"));
  assertEquals(ui.app.events.includes("search-key"), false);
  // KEYCODE_SEARCH is refused before anything runs.
  const refused = await call(s, "send_ui_key", { device_serial: SERIAL, key: "KEYCODE_SEARCH" });
  assertEquals(refused.isError, true);
  assertEquals(
    (refused.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  await assertNoInjection(world.sim);
});

Deno.test("ui: scroll until an element appears, then wait for it; a stale handle is refused", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const home = await read(s);
  rowBy(home, (r) => r.label.startsWith("Item 5"), "Item 5");
  const progress: number[] = [];
  const r = await s.client.callTool(
    {
      name: "ui_scroll_until_element",
      arguments: { device_serial: SERIAL, selector: { text: "Item 30" } },
    },
    undefined,
    { onprogress: (p: { progress: number }) => progress.push(p.progress) },
  ) as CallResult;
  const found = ok(r, "scroll");
  assert((found.swipes as number) >= 1, "it swiped");
  assert(progress.length >= 1, "progress was reported");
  assert(ui.state().scroll > 0);
  const waited = ok(
    await call(s, "wait_for_element", { device_serial: SERIAL, selector: { text: "Item 30" } }),
    "wait",
  );
  assertEquals(waited.met, true);

  // A handle from the latest list, then the screen changes without a new list: refused.
  const latest = await read(s);
  const handle = rowBy(latest, (r) => r.label.startsWith("Item 30"), "Item 30").handle;
  const { width, height } = ui.size();
  ok(
    await call(s, "ui_swipe", {
      device_serial: SERIAL,
      start_x: Math.round(width / 2),
      start_y: Math.round(height * 0.6),
      end_x: Math.round(width / 2),
      end_y: Math.round(height * 0.4),
      observe_after: false,
    }),
    "swipe without reading",
  );
  const scrolledTo = ui.state().scroll;
  const stale = await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: handle });
  assertEquals(stale.isError, true, stale.content[0].text);
  assertEquals((stale.structuredContent!.error as Record<string, unknown>).code, "screen_changed");
  assertEquals(ui.state().screen, "home");
  assertEquals(ui.state().scroll, scrolledTo);
  assertEquals(ui.state().selectedRow, null);

  // A selector nothing matches reaches the end of the list and says so.
  const none = await call(s, "ui_scroll_until_element", {
    device_serial: SERIAL,
    selector: { text: "No such row" },
    max_swipes: 25,
  });
  assertEquals(none.isError, true);
  assertStringIncludes(none.content[0].text!, "No element matches");
  await assertNoInjection(world.sim);
});

Deno.test("ui: two servers capturing one device take turns", async () => {
  await using world = await startWorld();
  await using a = await connect(world, []);
  await using b = await connect(world, []);
  uiOf(world).settings.dumpMs = 150;
  const calls = [a, b, a, b, a, b].map((s) =>
    call(s, "get_ui_hierarchy", { device_serial: SERIAL })
  );
  const results = await Promise.all(calls);
  for (const r of results) ok(r, "concurrent read");
  await assertNoInjection(world.sim);
});

Deno.test("screenshot: sizes and scale; byte for byte when it fits; both limits refused", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const { width, height } = ui.size();
  const r = await call(s, "screenshot", { device_serial: SERIAL });
  ok(r, "screenshot");
  assertEquals(r.content.map((c) => c.type), ["image", "text"]);
  const info = JSON.parse(r.content[1].text!);
  assertEquals([info.deviceWidth, info.deviceHeight], [width, height]);
  const long = Math.max(width, height);
  assertEquals(Math.max(info.imageWidth, info.imageHeight), 1280);
  assertEquals(info.imageWidth, Math.round(width * 1280 / long));
  assert(Math.abs(info.scale - width / info.imageWidth) < 0.001, `scale ${info.scale}`);
  assertStringIncludes(info.hint, "ui_tap_element");
  const img = r.content[0] as unknown as { data: string; mimeType: string };
  assertEquals(img.mimeType, "image/png");
  const small = Uint8Array.from(atob(img.data), (c) => c.charCodeAt(0));
  const dv = new DataView(small.buffer, small.byteOffset);
  assertEquals([dv.getUint32(16), dv.getUint32(20)], [info.imageWidth, info.imageHeight]);
  // Captured raw (no PNG made on the device) and as sharp as an exact area average of the screen.
  const shots = (await world.sim.readJournal()).filter((e) => e.raw.startsWith("screencap"));
  assertEquals(shots.map((e) => e.raw), ["screencap"]);
  const screenPx = rasterize(ui.currentPaints(), width, height);
  const reference = referenceDownscale(
    { width, height, data: screenPx },
    info.imageWidth,
    info.imageHeight,
  );
  const db = psnr((await decodePng(small)).data, reference.data);
  assert(db >= 38, `PSNR ${db.toFixed(1)} dB against an exact area average`);

  const full = await call(s, "screenshot", { device_serial: SERIAL, full_size: true });
  ok(full, "full");
  const fullBytes = Uint8Array.from(
    atob((full.content[0] as unknown as { data: string }).data),
    (c) => c.charCodeAt(0),
  );
  const expected = await simEncodePng(rasterize(ui.currentPaints(), width, height), width, height);
  assertEquals(fullBytes, expected, "the device's PNG, byte for byte");
  const fits = await call(s, "screenshot", { device_serial: SERIAL, max_dimension: 4096 });
  const fitsInfo = JSON.parse(fits.content[1].text!);
  assertEquals(fitsInfo.scale, 1);

  const both = await call(s, "screenshot", {
    device_serial: SERIAL,
    full_size: true,
    max_dimension: 512,
  });
  assertEquals((both.structuredContent!.error as Record<string, unknown>).code, "invalid_params");
  const low = await call(s, "screenshot", { device_serial: SERIAL, max_dimension: 100 });
  assertEquals((low.structuredContent!.error as Record<string, unknown>).code, "invalid_params");
  assertStringIncludes(low.content[0].text!, "max_dimension");
  // The bounds are in the schema a client validates against, not only in words.
  const { tools } = await s.client.listTools();
  const schema = tools.find((t: { name: string }) => t.name === "screenshot")!.inputSchema as {
    properties: Record<string, { minimum?: number; maximum?: number; description?: string }>;
  };
  const md = schema.properties.max_dimension;
  assertEquals([md.minimum, md.maximum], [108, 8192]);
  await assertNoInjection(world.sim);
});

const HOSTILE = `a'b"c $(id) \`uname\` ;ls; *? | & %s 100%`;

Deno.test("ui: hostile text is typed exactly and never runs on the device", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const home = await read(s);
  const search = rowBy(home, (r) => r.label.startsWith("Search"), "Search");
  ok(await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: search.handle }), "open");
  // Search fields ignore Enter, so the newline types nothing there.
  ok(await call(s, "ui_type_text", { device_serial: SERIAL, text: HOSTILE + "\n" }), "type");
  assertEquals(ui.state().fields.query, HOSTILE);

  const before = ui.state().fields.query;
  // Beyond ASCII on a device that is not an emulator and has no ADB keyboard: refused, saying
  // what to install (tests/e2e/ui_unicode_typing_test.ts types it where it can).
  const nonAscii = await call(s, "ui_type_text", { device_serial: SERIAL, text: "héllo" });
  assertEquals(nonAscii.isError, true);
  assertStringIncludes(nonAscii.content[0].text!, "ADBKeyBoard");
  const tooLong = await call(s, "ui_type_text", { device_serial: SERIAL, text: "x".repeat(1001) });
  assertEquals(
    (tooLong.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  const badPath = await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: "0;id" });
  assertEquals(
    (badPath.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  const badKey = await call(s, "send_ui_key", { device_serial: SERIAL, key: "HOME;reboot" });
  assertEquals((badKey.structuredContent!.error as Record<string, unknown>).code, "invalid_params");
  const badSerial = await call(s, "ui_tap", { device_serial: "x;reboot", x: 1, y: 1 });
  assertEquals(
    (badSerial.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  const offScreen = await call(s, "ui_tap", { device_serial: SERIAL, x: 5000, y: 10 });
  assertEquals(
    (offScreen.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  assertEquals(ui.state().fields.query, before);

  // Without the ADB keyboard, ui_type_text_unicode says so and types nothing.
  const unicode = `日本語 'é' $(id) \`x\` ;\n"`;
  const missing = await call(s, "ui_type_text_unicode", { device_serial: SERIAL, text: unicode });
  assertEquals(missing.isError, true);
  assertStringIncludes(missing.content[0].text!, "ADB keyboard");
  assertEquals(ui.state().fields.query, before);
  ui.setAdbKeyboard(true);
  // Installed and enabled but another keyboard selected: the broadcast would go nowhere.
  ui.selectIme("com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME");
  const unselected = await call(s, "ui_type_text_unicode", {
    device_serial: SERIAL,
    text: unicode,
  });
  assertEquals(unselected.isError, true);
  assertStringIncludes(unselected.content[0].text!, "selected input method is");
  assertStringIncludes(unselected.content[0].text!, "ime set com.android.adbkeyboard/.AdbIME");
  assertEquals(ui.state().fields.query, before);
  ui.selectIme("com.android.adbkeyboard/.AdbIME");
  ok(
    await call(s, "ui_type_text_unicode", { device_serial: SERIAL, text: unicode }),
    "unicode",
  );
  assertEquals(ui.state().fields.query, before + unicode);
  await assertNoInjection(world.sim);
});

Deno.test("ui: long press, swipe, keyboard, clear and the reading tools", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const home = await read(s);
  const item = rowBy(home, (r) => r.label.startsWith("Item 5"), "Item 5");
  ok(
    await call(s, "ui_long_press", { device_serial: SERIAL, tree_path: item.handle }),
    "long press",
  );
  assert(ui.state().selectedRow !== null, "the row was selected by the long press");
  ok(await call(s, "send_ui_key", { device_serial: SERIAL, key: "BACK" }), "back");
  assertEquals(ui.state().selectedRow, null);

  const { width, height } = ui.size();
  const cx = Math.round(width / 2);
  const swiped = ok(
    await call(s, "ui_swipe", {
      device_serial: SERIAL,
      start_x: cx,
      start_y: Math.round(height * 0.7),
      end_x: cx,
      end_y: Math.round(height * 0.4),
    }),
    "swipe",
  );
  // The list moved by the dragged distance, no fling.
  assertEquals(ui.state().scroll, Math.round(height * 0.7) - Math.round(height * 0.4));
  assertEquals(swiped.method, "motionevent");

  const clickable = ok(
    await call(s, "list_clickable_elements", { device_serial: SERIAL }),
    "clickable",
  );
  assert(rows(clickable).every((r) => r.flags.some((f) => ["click", "long", "edit"].includes(f))));
  const found = ok(
    await call(s, "find_ui_elements", {
      device_serial: SERIAL,
      selector: { text_contains: "item" },
    }),
    "find",
  );
  assert((found.total as number) > 0);
  const m = (found.matches as Record<string, unknown>[])[0];
  const parent = ok(
    await call(s, "find_ui_parent", {
      device_serial: SERIAL,
      tree_path: m.tree_path as string,
      expect_screen_hash: found.screen_hash as string,
    }),
    "parent",
  );
  assertEquals((parent.parent as Record<string, unknown>).tree_path, m.parent_path);
  const tree = await call(s, "get_ui_hierarchy", { device_serial: SERIAL, format: "tree" });
  assertStringIncludes(ok(tree, "tree") && tree.content[0].text!, "path=0");
  const xml = await call(s, "get_ui_hierarchy", { device_serial: SERIAL, format: "xml" });
  assertStringIncludes(ok(xml, "xml") && xml.content[0].text!, "<hierarchy");
  const cmp = ok(await call(s, "compare_ui_state", { device_serial: SERIAL }), "compare");
  assertEquals(cmp.same_screen, true);
  ok(
    await call(s, "ui_assert_element", {
      device_serial: SERIAL,
      selector: { text_contains: "item" },
    }),
    "assert",
  );
  const failed = await call(s, "ui_assert_element", {
    device_serial: SERIAL,
    selector: { text: "Nope" },
    timeout_ms: 300,
  });
  assertEquals((failed.structuredContent!.error as Record<string, unknown>).code, "not_found");
  ok(await call(s, "ui_wait_for_idle", { device_serial: SERIAL }), "idle");

  // The form: focus a field, clear it, hide the keyboard (and only then).
  await call(s, "send_ui_key", { device_serial: SERIAL, key: "MOVE_HOME" });
  ui.app.perform("nav:form", ui.clock.now());
  await call(s, "ui_wait_for_idle", { device_serial: SERIAL });
  const form = await read(s);
  const email = rowBy(form, (r) => r.resource_id === "email", "email");
  ok(await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: email.handle }), "focus");
  ok(await call(s, "ui_type_text", { device_serial: SERIAL, text: "abc" }), "type");
  ok(await call(s, "clear_focused_input", { device_serial: SERIAL }), "clear");
  assertEquals(ui.state().fields.email, "");
  ok(await call(s, "hide_soft_keyboard", { device_serial: SERIAL }), "hide");
  assertEquals(ui.state().keyboard, false);
  const noKb = ok(await call(s, "hide_soft_keyboard", { device_serial: SERIAL }), "hide again");
  assertEquals(noKb.was_shown, false);
  assertEquals(ui.state().screen, "form", "no Back was sent without a keyboard");
  await assertNoInjection(world.sim);
});

Deno.test("ui: a key that changes nothing and a scroll with no list say so, not more", async () => {
  await using world = await startWorld();
  await using s = await connect(world, []);
  const ui = uiOf(world);
  const home = await read(s);
  const item = rowBy(home, (r) => r.label.startsWith("Item 5"), "Item 5");
  ok(await call(s, "ui_tap_element", { device_serial: SERIAL, tree_path: item.handle }), "tap");
  assertEquals(ui.state().screen, "detail");
  // ESCAPE with no keyboard shown: nothing happens, and nothing was touched.
  const key = await call(s, "send_ui_key", { device_serial: SERIAL, key: "KEYCODE_ESCAPE" });
  ok(key, "press ESCAPE");
  const keyText = key.content[0].text!;
  assertEquals(key.structuredContent!.responded, false);
  assertStringIncludes(keyText.split("\n")[0], "(nothing on the screen changed)");
  assert(!keyText.includes("touched element"), keyText.split("\n")[0]);
  // The world has no discovery folder (no XDG_RUNTIME_DIR, no ~/.android): say what to set.
  assert(!keyText.includes("looked in no directory"), keyText.split("\n")[0]);
  if (keyText.includes("no folder an emulator advertises in")) {
    assertStringIncludes(keyText, "set XDG_RUNTIME_DIR");
  }
  // The detail screen has no scrollable element: no list, so no "end" of one.
  const none = await call(s, "ui_scroll_until_element", {
    device_serial: SERIAL,
    selector: { text: "No such row" },
    max_swipes: 3,
  });
  assertEquals(none.isError, true);
  const text = none.content[0].text!;
  assertStringIncludes(text, "no element on this screen scrolls");
  assert(!text.includes("its end"), text);
  const data = (none.structuredContent!.error as { data?: Record<string, unknown> }).data ??
    none.structuredContent!.error as Record<string, unknown>;
  assertEquals([data.reached_end, data.scrollable], [false, false], JSON.stringify(data));
});
