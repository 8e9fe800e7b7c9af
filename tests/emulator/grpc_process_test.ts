/**
 * lib/emulator/grpc_process.ts and workers/grpc_child.ts against the simulator's endpoint: calls
 * run in a child process (frames with their pixels, the token per call, refusals as gRPC
 * statuses); a child that dies fails the calls in flight with GrpcClientDied and the next call
 * starts a new one; and lib/emulator/child_wire.ts refuses frames over its bounds.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { startSimulator } from "../sim/mod.ts";
import { endpointForSerial, readDiscovery } from "../../lib/emulator/shared/discovery.ts";
import { GrpcFailure } from "../../lib/emulator/grpc_client.ts";
import { readRgbFrame } from "../../lib/emulator/frames.ts";
import { childCommand, ChildEmulatorRpc, GrpcClientDied } from "../../lib/emulator/grpc_process.ts";
import { encodeFrame, MAX_CHILD_JSON_BYTES, readFrames } from "../../lib/emulator/child_wire.ts";

const EMU = "emulator-5554";

Deno.test("grpc process: frames, status and refusals through the child; the token travels per call", async () => {
  await using sim = await startSimulator({ grpc: true });
  const ep = endpointForSerial(await readDiscovery([`${sim.discoveryRoot}/avd/running`]), EMU)!;
  const rpc = new ChildEmulatorRpc(ep);
  try {
    const f = readRgbFrame(await rpc.getScreenshot({ format: "RGB888", width: 540, height: 540 }));
    assertEquals([f.width, f.height], [243, 540]);
    assertEquals(f.rgb.length, 243 * 540 * 3);
    assert((await rpc.getStatus()).booted);
    assert(!childCommand(ep.address).args.some((a) => a.includes(sim.grpc(EMU).token)));
    rpc.endpoint = { ...ep, auth: { kind: "token", token: "wrong" } };
    const e = await rpc.getStatus().catch((x) => x);
    assert(e instanceof GrpcFailure && !(e instanceof GrpcClientDied));
    assertEquals(e.codeName, "UNAUTHENTICATED");
    assertEquals(rpc.starts, 1, "one child served every call");
  } finally {
    rpc.close();
  }
});

Deno.test("grpc process: a child that dies fails its call with the reason; the next call starts another", async () => {
  await using sim = await startSimulator({ grpc: true });
  const ep = endpointForSerial(await readDiscovery([`${sim.discoveryRoot}/avd/running`]), EMU)!;
  // The first child aborts as Deno's HTTP/2 client does (SIGABRT) while a call is in flight.
  let n = 0;
  const rpc = new ChildEmulatorRpc(ep, (address) => {
    const real = childCommand(address);
    if (n++ > 0) return real;
    return {
      command: Deno.execPath(),
      args: ["eval", "console.error('nghttp2 assertion'); Deno.kill(Deno.pid, 'SIGABRT')"],
    };
  });
  try {
    const died = await rpc.getStatus().catch((x) => x);
    assert(died instanceof GrpcClientDied, String(died));
    assertEquals(died.exit, "signal SIGABRT");
    assert(died.message.includes("nghttp2 assertion"), died.message);
    assert((await rpc.getStatus()).booted, "the next call ran in a new child");
    assertEquals(rpc.starts, 2);
  } finally {
    rpc.close();
  }
});

Deno.test("child wire: frames round-trip in any chunking; a frame over the bounds ends the stream", async () => {
  const pixels = new Uint8Array(70_000).map((_, i) => i & 0xff);
  const bytes = new Uint8Array([
    ...encodeFrame({ t: "ready" }),
    ...encodeFrame({ t: "ok", id: 7, value: { seq: 1 }, binary: true }, pixels),
  ]);
  for (const size of [7, 8, 9, 4096, bytes.length]) {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
        c.close();
      },
    });
    const got = [];
    for await (const f of readFrames(stream)) got.push(f);
    assertEquals(got.length, 2);
    assertEquals(got[0].msg, { t: "ready" });
    assertEquals(got[1].binary, pixels, `chunks of ${size}`);
  }
  const huge = new Uint8Array(8);
  new DataView(huge.buffer).setUint32(0, MAX_CHILD_JSON_BYTES + 1);
  const bad = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(huge);
      c.close();
    },
  });
  await assertRejects(async () => {
    for await (const _ of readFrames(bad)) { /* nothing */ }
  }, RangeError);
});
