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
  type CallResult,
  connect,
  type Session,
  startWorld,
} from "./harness.ts";
import type { World } from "./harness.ts";
import type { UiService } from "../sim/ui/service.ts";

const EMU = "emulator-5554";
const USB = "R5CT1234ABC";

interface Row {
  handle: string;
  label: string;
  resource_id: string;
  bounds: { left: number; top: number; right: number; bottom: number };
  flags: string[];
}

function ok(r: CallResult, what: string): Record<string, unknown> {
  const text = r.content.find((c) => c.type === "text")?.text ?? "";
  assert(!r.isError, `${what} failed: ${text}`);
  return r.structuredContent!;
}

function uiOf(world: World, serial = EMU): UiService {
  return world.sim.device(serial).service<UiService>("ui")!;
}

function rowBy(s: Record<string, unknown>, pred: (r: Row) => boolean, what: string): Row {
  const rows = s.elements as Row[];
  const r = rows.find(pred);
  assert(r, `no row for ${what} in ${JSON.stringify(rows.map((x) => x.label))}`);
  return r;
}

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
  assertEquals(uiOf(world, USB).state().screen, "form");
  assert((await inputCommands(world, USB)).some((c) => c.startsWith("input tap ")));
  const pinch = await call(s, "ui_pinch", { device_serial: USB, scale: 2 });
  assert(pinch.isError, "pinch is refused on a device without multi-touch");
  assertStringIncludes(pinch.content[0].text!, "two fingers");
});
