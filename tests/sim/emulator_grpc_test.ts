/**
 * The simulated emulator's gRPC endpoint, with grpc-js as a client would use it (the simulator
 * imports nothing from lib/, and neither does this test): the discovery file, token auth with
 * the emulator's error strings, frames of the rendered screen at the requested size, touches in
 * the natural orientation reaching the app, the body's rotation, and the simctl refusals.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { RawClient } from "./_raw_client.ts";
import { startSimulator } from "./mod.ts";
import { fitFrame, naturalToScreen, PROTO_PATH, quadrantOfZ } from "./emulator/grpc_service.ts";
import type { UiService } from "./ui/service.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const EMU = "emulator-5554";

async function client(port: number) {
  const grpc = await import("@grpc/grpc-js");
  const loader = await import("@grpc/proto-loader");
  const def = loader.loadSync(PROTO_PATH, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as Any;
  const c = new pkg.android.emulation.control.EmulatorController(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
    { "grpc.max_receive_message_length": -1 },
  );
  const call = (method: string, req: unknown, token: string | null): Promise<Any> => {
    const md = new grpc.Metadata();
    if (token !== null) md.set("authorization", `Bearer ${token}`);
    return new Promise((resolve, reject) =>
      c[method](
        req,
        md,
        { deadline: Date.now() + 5000 },
        (e: Any, v: Any) => e ? reject(e) : resolve(v),
      )
    );
  };
  return { call, close: () => c.close() };
}

async function shell(port: number, serial: string, cmd: string): Promise<string> {
  using c = await RawClient.connect(port);
  await c.request(`host:transport:${serial}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(`exec:${cmd}`);
  const all = new TextDecoder().decode(await c.readAll());
  return all.slice(4);
}

Deno.test("sim grpc: the discovery file names the console port, the gRPC port and the token", async () => {
  await using sim = await startSimulator({ grpc: true });
  const g = sim.grpc(EMU);
  const text = await Deno.readTextFile(g.discoveryFile);
  assertMatch(g.discoveryFile, /\/avd\/running\/pid_\d+\.ini$/);
  assert(g.discoveryFile.startsWith(sim.discoveryRoot));
  assert(text.includes("port.serial=5554\n"));
  assert(text.includes(`grpc.port=${g.port}\n`));
  assert(text.includes(`grpc.token=${g.token}\n`));
  assertEquals(g.token.length, 88, "64 random bytes, base64");
  // Only emulators serve gRPC.
  let threw = false;
  try {
    sim.grpc("R5CT1234ABC");
  } catch {
    threw = true;
  }
  assert(threw);
});

Deno.test("sim grpc: token auth answers with the emulator's codes and messages", async () => {
  await using sim = await startSimulator({ grpc: true });
  const g = sim.grpc(EMU);
  const c = await client(g.port);
  try {
    const missing = await c.call("getStatus", {}, null).catch((e) => e);
    assertEquals(missing.code, 16);
    assertEquals(missing.details, "Missing the 'authorization' header with security credentials.");
    const bad = await c.call("getStatus", {}, "nope").catch((e) => e);
    assertEquals(bad.code, 16);
    assertEquals(bad.details, "The token `Bearer nope` is invalid");
    const status = await c.call("getStatus", {}, g.token);
    assertEquals(status.booted, true);
    const lcd = Object.fromEntries(status.hardwareConfig.entry.map((e: Any) => [e.key, e.value]));
    assertEquals([lcd["hw.lcd.width"], lcd["hw.lcd.height"]], ["1080", "2400"]);
  } finally {
    c.close();
  }
});

Deno.test("sim grpc: frames are the screen as RGB888 at the requested bounds, rotation included", async () => {
  await using sim = await startSimulator({ grpc: true });
  const g = sim.grpc(EMU);
  const c = await client(g.port);
  try {
    const small = await c.call(
      "getScreenshot",
      { format: "RGB888", width: 108, height: 108 },
      g.token,
    );
    assertEquals([small.format.width, small.format.height], [49, 108]);
    assertEquals(small.image.length, 49 * 108 * 3);
    assertEquals(small.format.rotation.rotation, "PORTRAIT");
    const full = await c.call("getScreenshot", { format: "RGB888" }, g.token);
    assertEquals([full.format.width, full.format.height], [1080, 2400]);
    const png = await c.call("getScreenshot", { format: "PNG" }, g.token).catch((e) => e);
    assertEquals(png.code, 3);
    await c.call("setPhysicalModel", { target: "ROTATION", value: { data: [0, 0, 90] } }, g.token);
    const turned = await c.call(
      "getScreenshot",
      { format: "RGB888", width: 540, height: 540 },
      g.token,
    );
    assertEquals(turned.format.rotation.rotation, "LANDSCAPE");
    assertEquals([turned.format.width, turned.format.height], [540, 243]);
    const body = await c.call("getPhysicalModel", { target: "ROTATION" }, g.token);
    assertEquals(body.value.data, [0, 0, 90]);
  } finally {
    c.close();
  }
});

Deno.test("sim grpc: a touch in natural coordinates taps what is under it on the rotated screen", async () => {
  await using sim = await startSimulator({ grpc: true });
  const g = sim.grpc(EMU);
  const ui = sim.device(EMU).service<UiService>("ui")!;
  const c = await client(g.port);
  try {
    await c.call("setPhysicalModel", { target: "ROTATION", value: { data: [0, 0, 90] } }, g.token);
    assertEquals(ui.settings.rotation, 1);
    // Screen point (1200, 300) in landscape 2400x1080 is natural (1080-300, 1200) = (780, 1200).
    const touch = (pressure: number) => ({
      touches: [{ x: 780, y: 1200, identifier: 7, pressure, expiration: "NEVER_EXPIRE" }],
    });
    await c.call("sendTouch", touch(1024), g.token);
    await c.call("sendTouch", touch(0), g.token);
    assertEquals(ui.app.events.at(-1)?.startsWith("tap 1200 300 "), true, ui.app.events.join(", "));
    // A lift for a finger that is not down is ignored.
    await c.call("sendTouch", touch(0), g.token);
    assertEquals(ui.app.events.filter((e) => e.startsWith("tap ")).length, 1);
    await c.call("sendKey", { eventType: "keydown", key: "GoHome" }, g.token);
    assertEquals(ui.state().front, "app", "a keydown alone presses nothing yet");
    await c.call("sendKey", { eventType: "keypress", key: "GoHome" }, g.token);
    assertEquals(ui.state().front, "launcher");
  } finally {
    c.close();
  }
});

Deno.test("sim grpc: simctl refuses on demand, changes the token, stops the server", async () => {
  await using sim = await startSimulator({ grpc: true });
  const g = sim.grpc(EMU);
  const c = await client(g.port);
  try {
    assertEquals(await shell(sim.port, EMU, "simctl grpc-refuse sendTouch unimplemented"), "");
    const un = await c.call("sendTouch", { touches: [] }, g.token).catch((e) => e);
    assertEquals(un.code, 12);
    await shell(sim.port, EMU, "simctl grpc-refuse sendTouch permission_denied");
    const pd = await c.call("sendTouch", { touches: [] }, g.token).catch((e) => e);
    assertEquals(pd.code, 7);
    assertMatch(pd.details, /is not on the allowlist/);
    await shell(sim.port, EMU, "simctl grpc-refuse sendTouch none");
    await c.call("sendTouch", { touches: [] }, g.token);
    const old = g.token;
    await shell(sim.port, EMU, "simctl grpc-token fresh");
    assertEquals((await c.call("getStatus", {}, old).catch((e) => e)).code, 16);
    await c.call("getStatus", {}, "fresh");
    assertMatch(await shell(sim.port, EMU, "simctl grpc-calls"), /^sendTouch\n/);
    assertMatch(await shell(sim.port, EMU, "simctl grpc-refuse"), /usage: simctl grpc-refuse/);
  } finally {
    c.close();
  }
  // The server stops with no client of this process connected (a client and a server of one
  // Deno process shutting down under each other is not what this tests); a new client finds the
  // port dead and the discovery file still there, as a crashed emulator leaves it.
  assertEquals(await shell(sim.port, EMU, "simctl grpc-stop"), "");
  const late = await client(g.port);
  try {
    const dead = await late.call("getStatus", {}, "fresh").catch((e) => e);
    assertEquals(dead.code, 14);
    assert(await Deno.stat(g.discoveryFile).then(() => true), "the discovery file stays (a crash)");
  } finally {
    late.close();
  }
});

Deno.test("sim grpc: frame fitting, natural-to-screen mapping and body quadrants", () => {
  assertEquals(fitFrame(1080, 2400, 0, 0), { width: 1080, height: 2400 });
  assertEquals(fitFrame(1080, 2400, 540, 540), { width: 243, height: 540 });
  assertEquals(fitFrame(100, 100, 4000, 4000), { width: 100, height: 100 });
  assertEquals(naturalToScreen(780, 1200, 1, 2400, 1080), { x: 1200, y: 300 });
  assertEquals(naturalToScreen(100, 200, 2, 1080, 2400), { x: 980, y: 2200 });
  assertEquals(naturalToScreen(200, 2300, 3, 2400, 1080), { x: 100, y: 200 });
  assertEquals([0, 90, 180, -90, 270, -180].map(quadrantOfZ), [0, 1, 2, 3, 3, 2]);
});
