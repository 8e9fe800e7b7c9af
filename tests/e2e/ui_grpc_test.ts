/**
 * The emulator fast paths end to end: the real entry point and the MCP SDK client against the
 * simulator with its emulator serving gRPC (token auth, a discovery file in XDG_RUNTIME_DIR).
 * screenshot, ui_tap, ui_pinch, ui_drag and rotation use gRPC on the emulator and say so; the same
 * calls on the USB device use ADB; a wrong token, a dead port and UNIMPLEMENTED each fall back
 * with the reason and change nothing else.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import {
  assertNoInjection,
  call,
  connect,
  ok,
  rowBy,
  type Session,
  startWorld,
  uiOf,
} from "./harness.ts";
import type { World } from "./harness.ts";

const EMU = "emulator-5554";
const USB = "R5CT1234ABC";

async function read(s: Session, serial = EMU) {
  return ok(await call(s, "get_ui_hierarchy", { device_serial: serial }), "get_ui_hierarchy");
}

async function inputCommands(world: World, serial: string): Promise<string[]> {
  return (await world.sim.readJournal())
    .filter((e) => e.serial === serial)
    .flatMap((e) => e.argv)
    .filter((argv) => argv[0] === "input")
    .map((argv) => argv.join(" "));
}

Deno.test("grpc e2e: screenshot and ui_tap on the emulator go through gRPC and say so", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const g = world.sim.grpc(EMU);

  const shot = await call(s, "screenshot", { device_serial: EMU });
  const info = ok(shot, "screenshot");
  assertEquals(info.path, "grpc");
  assertEquals(info.fallback, null);
  assertEquals(info.rotation, 0);
  assertEquals([info.deviceWidth, info.deviceHeight], [1080, 2400]);
  assertEquals(Math.max(info.imageWidth as number, info.imageHeight as number), 1280);
  const img = shot.content.find((c) => c.type === "image") as unknown as {
    data: string;
    mimeType: string;
  };
  assertEquals(img.mimeType, "image/png");
  assert(g.calls.includes("getScreenshot"), "the frame came from getScreenshot");

  const small = ok(
    await call(s, "screenshot", { device_serial: EMU, max_dimension: 108, format: "jpeg" }),
    "small jpeg",
  );
  assertEquals(small.path, "grpc");
  assertEquals(small.format, "jpeg");
  assertEquals(Math.max(small.imageWidth as number, small.imageHeight as number), 108);

  const home = await read(s);
  const signIn = rowBy(home, (r) => r.label.startsWith("Sign in"), "Sign in");
  const before = await inputCommands(world, EMU);
  const tapped = ok(
    await call(s, "ui_tap_element", { device_serial: EMU, tree_path: signIn.handle }),
    "tap",
  );
  assertEquals(tapped.path, "grpc");
  assertEquals(uiOf(world).state().screen, "form");
  assertEquals(tapped.settled, true);
  assertEquals(tapped.settled_by, "frames", "still frames settled the emulator's screen");
  assertEquals(await inputCommands(world, EMU), before, "no input command ran over ADB");
  assert(g.calls.includes("sendTouch"));
  await assertNoInjection(world.sim);
});

Deno.test("grpc e2e: the USB device uses ADB for the same calls, without a fallback reason", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const shot = ok(await call(s, "screenshot", { device_serial: USB }), "screenshot");
  assertEquals(shot.path, "adb");
  assertEquals(shot.fallback, null);
  const home = await read(s, USB);
  const signIn = rowBy(home, (r) => r.label.startsWith("Sign in"), "Sign in");
  const tapped = ok(
    await call(s, "ui_tap_element", { device_serial: USB, tree_path: signIn.handle }),
    "tap",
  );
  assertEquals(tapped.path, "adb");
  assertEquals(tapped.fallback, null);
  assertEquals(tapped.settled_by, "tree", "no frames on a USB device");
  assertEquals(uiOf(world, USB).state().screen, "form");
  assert((await inputCommands(world, USB)).some((c) => c.startsWith("input tap ")));
  const pinch = await call(s, "ui_pinch", { device_serial: USB, scale: 2 });
  assert(pinch.isError, "pinch is refused on a device without multi-touch");
  assertStringIncludes(pinch.content[0].text!, "two fingers");
});

/** Taps "Sign in" on a fresh world's emulator after `breakIt`, and checks the fallback. */
async function tapAfter(
  breakIt: (world: World) => Promise<void> | void,
  code: string,
  reason: RegExp,
) {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const file = await Deno.readTextFile(world.sim.grpc(EMU).discoveryFile);
  const home = await read(s);
  const signIn = rowBy(home, (r) => r.label.startsWith("Sign in"), "Sign in");
  await breakIt(world);
  const before = await inputCommands(world, EMU);
  const r = await call(s, "ui_tap_element", { device_serial: EMU, tree_path: signIn.handle });
  const tapped = ok(r, "tap");
  assertEquals(tapped.path, "adb");
  const fallback = tapped.fallback as { code: string; reason: string };
  assertEquals(fallback.code, code);
  assertMatch(fallback.reason, reason);
  assertStringIncludes(r.content[0].text!, "gRPC fallback");
  // The tap happened exactly once, over ADB; the app saw one tap; nothing else changed.
  const after = await inputCommands(world, EMU);
  assertEquals(after.slice(before.length).filter((c) => c.startsWith("input tap ")).length, 1);
  assertEquals(uiOf(world).state().screen, "form");
  assertEquals(
    uiOf(world).app.events.filter((e) => e.startsWith("tap ")).length,
    1,
    `one tap: ${uiOf(world).app.events.join(", ")}`,
  );
  assertEquals(await Deno.readTextFile(world.sim.grpc(EMU).discoveryFile), file);
  const shot = ok(await call(s, "screenshot", { device_serial: EMU }), "screenshot");
  assertEquals(shot.path, "adb");
  assertEquals((shot.fallback as { code: string }).code, code);
}

Deno.test("grpc e2e: a wrong token falls back to ADB with the reason", async () => {
  await tapAfter(
    (w) => w.sim.grpc(EMU).setToken("not-the-advertised-token"),
    "unauthenticated",
    /refused the token \(UNAUTHENTICATED/,
  );
});

Deno.test("grpc e2e: a dead port (emulator gone, discovery file left) falls back to ADB", async () => {
  await tapAfter(
    (w) => w.sim.grpc(EMU).stop(),
    "unavailable",
    /nothing answers gRPC at 127\.0\.0\.1:\d+/,
  );
});

Deno.test("grpc e2e: UNIMPLEMENTED falls back to ADB with the reason", async () => {
  await tapAfter(
    (w) => w.sim.grpc(EMU).refuse("all", "unimplemented"),
    "unimplemented",
    /does not implement (sendTouch|getStatus)/,
  );
});

Deno.test("grpc e2e: ui_pinch sends two fingers over gRPC on the emulator", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const r = ok(
    await call(s, "ui_pinch", { device_serial: EMU, scale: 2, duration_ms: 200 }),
    "pinch",
  );
  assertEquals(r.path, "grpc");
  assertEquals(r.scale, 2);
  const pinches = uiOf(world).app.events.filter((e) => e.startsWith("pinch "));
  assertEquals(pinches.length, 1, uiOf(world).app.events.join(", "));
  assertMatch(pinches[0], /^pinch 540 1200 x(1\.9[7-9]|2\.0[0-3])$/);
  const out = ok(
    await call(s, "ui_pinch", { device_serial: EMU, scale: 0.5, x: 300, y: 900 }),
    "pinch in",
  );
  assertMatch(
    uiOf(world).app.events.filter((e) => e.startsWith("pinch ")).at(-1)!,
    /^pinch 300 900 x0\.(4[7-9]|5[0-3])$/,
  );
  assertEquals(out.path, "grpc");
});

Deno.test("grpc e2e: ui_drag holds, moves and drops: gRPC on the emulator, motionevent on USB", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  for (const serial of [EMU, USB]) {
    const home = await read(s, serial);
    const row = rowBy(home, (r) => r.label.startsWith("Item 6 "), "Item 6");
    const r = ok(
      await call(s, "ui_drag", {
        device_serial: serial,
        tree_path: row.handle,
        end_x: 540,
        end_y: row.y + 400,
        hold_ms: 600,
        move_ms: 300,
        dwell_ms: 100,
      }),
      `drag on ${serial}`,
    );
    const events = uiOf(world, serial).app.events;
    assertEquals(r.path, serial === EMU ? "grpc" : "adb");
    assertEquals(r.method, serial === EMU ? "sendTouch" : "motionevent");
    assert(events.some((e) => /^long-press .* -> select:5$/.test(e)), events.join(", "));
    assert(events.some((e) => /^hold-drag .* \(select:5\)$/.test(e)), events.join(", "));
  }
});

Deno.test("grpc e2e: rotation turns the emulator's body over gRPC; lists and taps follow the rotated screen", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const turned = ok(
    await call(s, "set_device_orientation", { device_serial: EMU, orientation: "landscape" }),
    "rotate",
  );
  assertEquals(turned.path, "grpc");
  assertEquals(turned.body_rotated, true);
  assertEquals(uiOf(world).settings.rotation, 1);
  const shot = ok(await call(s, "screenshot", { device_serial: EMU }), "screenshot");
  assertEquals(shot.rotation, 1);
  assertEquals([shot.deviceWidth, shot.deviceHeight], [2400, 1080]);
  assert((shot.imageWidth as number) > (shot.imageHeight as number), "a landscape frame");
  const home = await read(s);
  const signIn = rowBy(home, (r) => r.label.startsWith("Sign in"), "Sign in");
  assert(signIn.width > 1080, `a landscape row: ${JSON.stringify(signIn)}`);
  const tapped = ok(
    await call(s, "ui_tap_element", { device_serial: EMU, tree_path: signIn.handle }),
    "tap after rotation",
  );
  assertEquals(tapped.path, "grpc");
  assertEquals(uiOf(world).state().screen, "form");
  const tap = uiOf(world).app.events.find((e) => e.startsWith("tap "))!;
  const [, x, y] = /^tap (\d+) (\d+) /.exec(tap)!;
  assert(
    Math.abs(Number(x) - signIn.x) <= 2 && Math.abs(Number(y) - signIn.y) <= 2,
    `the tap landed at ${tap}; the row's tap point is (${signIn.x},${signIn.y})`,
  );
  const usb = ok(
    await call(s, "set_device_orientation", { device_serial: USB, orientation: "landscape" }),
    "rotate usb",
  );
  assertEquals(usb.path, "adb");
  assertEquals(usb.body_rotated, false);
});

Deno.test("grpc e2e: send_ui_key HOME goes through sendKey on the emulator", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const r = ok(await call(s, "send_ui_key", { device_serial: EMU, key: "HOME" }), "home");
  assertEquals(r.path, "grpc");
  assertEquals(r.via, "sendKey");
  assertEquals(uiOf(world).state().front, "launcher");
  assert(world.sim.grpc(EMU).calls.includes("sendKey"));
  assert(!(await inputCommands(world, EMU)).some((c) => c.includes("keyevent")));
});
