/**
 * lib/emulator/grpc_client.ts against the simulator's endpoint: token auth, frames, and channels
 * that close when idle (no HTTP/2 session stays open between tool calls, see
 * GRPC_IDLE_CLOSE_MS) but stay open through a gesture that holds a finger down longer than that.
 */
import { assert, assertEquals } from "../assert.ts";
import { startSimulator } from "../sim/mod.ts";
import { endpointForSerial, readDiscovery } from "../../lib/emulator/shared/discovery.ts";
import {
  closeEmulatorChannels,
  emulatorRpc,
  GRPC_IDLE_CLOSE_MS,
  GrpcFailure,
} from "../../lib/emulator/grpc_client.ts";
import { EmulatorLink } from "../../lib/emulator/link.ts";
import { readRgbFrame } from "../../lib/emulator/frames.ts";

const EMU = "emulator-5554";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("grpc client: frames and status with the advertised token; a wrong token is UNAUTHENTICATED", async () => {
  await using sim = await startSimulator({ grpc: true });
  try {
    const dir = `${sim.discoveryRoot}/avd/running`;
    const ep = endpointForSerial(await readDiscovery([dir]), EMU)!;
    const rpc = await emulatorRpc(ep);
    const f = readRgbFrame(await rpc.getScreenshot({ format: "RGB888", width: 540, height: 540 }));
    assertEquals([f.width, f.height], [243, 540]);
    const bad = await emulatorRpc({ ...ep, auth: { kind: "token", token: "wrong" } });
    const e = await bad.getStatus().catch((x) => x);
    assert(e instanceof GrpcFailure);
    assertEquals(e.codeName, "UNAUTHENTICATED");
  } finally {
    closeEmulatorChannels();
  }
});

Deno.test("grpc client: an idle channel closes; one held through a long gesture does not", async () => {
  await using sim = await startSimulator({ grpc: true });
  try {
    const dir = `${sim.discoveryRoot}/avd/running`;
    const link = new EmulatorLink({ discoveryDirs: [dir], mayDial: () => true, open: emulatorRpc });
    const held = await link.run(EMU, async (rpc) => {
      await rpc.getStatus();
      await sleep(GRPC_IDLE_CLOSE_MS * 2); // a finger held down between two touch events
      await rpc.getStatus();
      return rpc;
    });
    assert(held.ok, held.ok ? "" : held.fallback.reason);
    const again = await emulatorRpc(held.endpoint);
    assert(again === held.value, "the channel is reused right after");
    await sleep(GRPC_IDLE_CLOSE_MS * 3);
    const fresh = await emulatorRpc(held.endpoint);
    assert(fresh !== held.value, "an idle channel was closed");
    assert((await fresh.getStatus()).booted);
  } finally {
    closeEmulatorChannels();
  }
});
