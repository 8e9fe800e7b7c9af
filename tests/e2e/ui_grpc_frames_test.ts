/**
 * Frames from an emulator endpoint that ignores the size it was asked for: a larger valid frame is
 * scaled down to what was asked (still through gRPC), and an absurd one (over keynobi's bounds)
 * is refused with the reason while ADB takes the picture; either way the answer stays small.
 * Issue 22.4: a 108 px request answered with a valid 5000×5000 frame gave a 114 MB JSON-RPC line.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { call, type CallResult, connect, ok, startWorld } from "./harness.ts";

const EMU = "emulator-5554";

function answerBytes(r: CallResult): number {
  return new TextEncoder().encode(JSON.stringify(r)).length;
}

Deno.test("grpc e2e: a frame larger than asked is scaled down; an absurd one falls back to ADB with the reason", async () => {
  await using world = await startWorld({ grpc: true });
  await using s = await connect(world, []);
  const g = world.sim.grpc(EMU);
  // The client process is started and the endpoint answers as asked.
  assertEquals(
    ok(await call(s, "screenshot", { device_serial: EMU, max_dimension: 108 })).path,
    "grpc",
  );

  // The display's whole frame, to a request for 108 px.
  g.frameSize({ width: 1080, height: 2400 });
  const big = await call(s, "screenshot", { device_serial: EMU, max_dimension: 108 });
  assert(!big.isError, JSON.stringify(big.content));
  const info = big.structuredContent!;
  assertEquals(
    info.path,
    "grpc",
    `a valid frame within the bounds is still used: ${JSON.stringify(info.fallback)}`,
  );
  assertEquals([info.imageWidth, info.imageHeight], [49, 108]);
  assert(answerBytes(big) < 64 * 1024, `the answer is ${answerBytes(big)} bytes`);

  const hashes = await call(s, "ui_tap", { device_serial: EMU, x: 540, y: 200 });
  assert(!hashes.isError, "settling hashes the small frames of the same endpoint");

  g.frameSize({ width: 5000, height: 5000 });
  const absurd = await call(s, "screenshot", { device_serial: EMU, max_dimension: 108 });
  assert(!absurd.isError, JSON.stringify(absurd.content));
  const a = absurd.structuredContent!;
  assertEquals(a.path, "adb");
  const f = a.fallback as { code: string; reason: string };
  assertEquals(f.code, "frame_too_large");
  assertStringIncludes(f.reason, "16 Mpx");
  assertEquals(Math.max(a.imageWidth as number, a.imageHeight as number), 108);
  assert(answerBytes(absurd) < 64 * 1024, `the answer is ${answerBytes(absurd)} bytes`);

  // Within the byte limit but over the side bound: refused by its sizes, ADB again.
  g.frameSize({ width: 8200, height: 100 });
  const wide = await call(s, "screenshot", { device_serial: EMU, max_dimension: 108 });
  const w = wide.structuredContent!;
  assertEquals(w.path, "adb");
  assertEquals((w.fallback as { code: string }).code, "bad_frame");
  assertStringIncludes((w.fallback as { reason: string }).reason, "8200x100");

  g.frameSize(null);
  const normal = ok(await call(s, "screenshot", { device_serial: EMU, max_dimension: 108 }));
  assertEquals(normal.path, "grpc");
});
