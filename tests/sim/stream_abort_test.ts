/**
 * A client that closes its connection ends the device command it started, whatever the service:
 * `exec:`, plain `shell:` (v1) and `shell,v2` — so a streaming `logcat` or a `sleep` stops.
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { RawClient } from "./_raw_client.ts";
import { startSimulator } from "./mod.ts";
import type { LogcatService } from "./logcat/service.ts";
import { waitUntil } from "../wait.ts";

const dec = new TextDecoder();
const EMU = "emulator-5554";
/** How long a test waits for the device to notice the close. */
const WAIT_MS = 3000;

async function open(port: number, service: string): Promise<RawClient> {
  const c = await RawClient.connect(port);
  await c.request(`host:transport:${EMU}`);
  assertEquals(await c.readText(4), "OKAY");
  await c.request(service);
  assertEquals(await c.readText(4), "OKAY");
  return c;
}

for (const service of ["exec:", "shell:", "shell,v2,raw:"]) {
  Deno.test(`${service} a streaming logcat stops when the client closes`, async () => {
    await using sim = await startSimulator();
    const svc = sim.device(EMU).service<LogcatService>("logcat")!;
    svc.setRate(0);
    const c = await open(sim.port, `${service}logcat -v brief`);
    await waitUntil(() => svc.liveStreams === 1, "the logcat reader", { timeoutMs: WAIT_MS });
    // It streams: a new entry reaches the client.
    sim.device(EMU).log.append({ pid: 1, level: "I", tag: "Probe", message: "still here" });
    let text = "";
    while (!text.includes("still here")) text += dec.decode(await c.read(1));
    assertStringIncludes(text, "I/Probe");
    c.close();
    await waitUntil(() => svc.liveStreams === 0, "the logcat reader to end", {
      timeoutMs: WAIT_MS,
    });
  });
}

Deno.test("exec: and shell: a sleeping command ends when the client closes", async () => {
  await using sim = await startSimulator();
  const device = sim.device(EMU);
  for (const service of ["exec:sleep 30", "shell:sleep 30"]) {
    const c = await open(sim.port, service);
    // The bound transport and the running command each hold a stream on the device.
    await waitUntil(() => device.streams.size === 2, "the command to start", {
      timeoutMs: WAIT_MS,
    });
    c.close();
    await waitUntil(() => device.streams.size === 0, `${service} to end`, { timeoutMs: WAIT_MS });
  }
});
