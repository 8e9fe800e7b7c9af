/**
 * lib/emulator/link.ts: which endpoint serves a serial, and every refusal as a fallback with a
 * reason (the client is a stand-in that fails with the gRPC status codes the emulator uses).
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { EmulatorLink } from "../../lib/emulator/link.ts";
import { type EmulatorRpc, GrpcFailure, GrpcStatus } from "../../lib/emulator/grpc_client.ts";
import type { GrpcEndpoint } from "../../lib/emulator/shared/discovery.ts";

async function discoveryDir(lines: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-disc-" });
  for (const [name, text] of Object.entries(lines)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

function failing(code: number): (e: GrpcEndpoint) => Promise<EmulatorRpc> {
  const fail = () => Promise.reject(new GrpcFailure("sendTouch", code, "refused"));
  return (endpoint) =>
    Promise.resolve({
      endpoint,
      getScreenshot: fail,
      sendTouch: fail,
      sendKey: fail,
      setPhysicalModel: fail,
      getPhysicalModel: fail,
      getStatus: fail,
      getClipboard: fail,
      setClipboard: fail,
      close() {},
    } as EmulatorRpc);
}

Deno.test("link: no endpoint for a USB serial, a missing file, or a JWT-only emulator", async () => {
  const dir = await discoveryDir({
    "pid_1.ini": "port.serial=5556\ngrpc.port=8556\ngrpc.jwks=/x/jwks\n",
  });
  try {
    const link = new EmulatorLink({ discoveryDirs: [dir], mayDial: () => true });
    const usb = await link.endpoint("R5CT1234ABC");
    assertEquals(usb.ok ? null : usb.fallback.code, "not_emulator");
    const none = await link.endpoint("emulator-5554");
    assertEquals(none.ok ? null : none.fallback.code, "no_endpoint");
    const jwt = await link.endpoint("emulator-5556");
    assert(!jwt.ok);
    assertMatch(jwt.fallback.reason, /-grpc-use-token/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("link: a port the worker may not dial falls back as not_granted; --grpc is used when no file names the serial", async () => {
  const dir = await discoveryDir({
    "pid_2.ini": "port.serial=5554\ngrpc.port=8554\ngrpc.token=t\n",
  });
  try {
    const denied = new EmulatorLink({ discoveryDirs: [dir], mayDial: () => false });
    const r = await denied.endpoint("emulator-5554");
    assertEquals(r.ok ? null : r.fallback.code, "not_granted");
    const explicit: GrpcEndpoint = {
      address: "127.0.0.1:9000",
      host: "127.0.0.1",
      port: 9000,
      auth: { kind: "none" },
      source: "--grpc",
      serial: null,
      pid: null,
      mtimeMs: 0,
    };
    const link = new EmulatorLink({ discoveryDirs: [dir], explicit, mayDial: () => true });
    const found = await link.endpoint("emulator-5554");
    assertEquals(found.ok ? found.endpoint.port : null, 8554, "the discovery file wins");
    const other = await link.endpoint("emulator-5560");
    assertEquals(other.ok ? other.endpoint.source : null, "--grpc");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("link: each gRPC refusal becomes a fallback with its code and reason", async () => {
  const dir = await discoveryDir({
    "pid_3.ini": "port.serial=5554\ngrpc.port=8554\ngrpc.token=t\n",
  });
  try {
    const cases: [number, string, RegExp][] = [
      [GrpcStatus.UNAUTHENTICATED, "unauthenticated", /refused the token/],
      [GrpcStatus.PERMISSION_DENIED, "permission_denied", /does not allow this call/],
      [GrpcStatus.UNIMPLEMENTED, "unimplemented", /does not implement sendTouch/],
      [GrpcStatus.UNAVAILABLE, "unavailable", /nothing answers gRPC at 127\.0\.0\.1:8554/],
      [GrpcStatus.DEADLINE_EXCEEDED, "deadline_exceeded", /did not answer in time/],
      [GrpcStatus.INTERNAL, "grpc_error", /INTERNAL/],
    ];
    for (const [status, code, reason] of cases) {
      const link = new EmulatorLink({
        discoveryDirs: [dir],
        mayDial: () => true,
        open: failing(status),
      });
      const r = await link.run("emulator-5554", (rpc) => rpc.sendTouch({ touches: [] }));
      assert(!r.ok);
      assertEquals(r.fallback.code, code);
      assertMatch(r.fallback.reason, reason);
    }
    // A cancelled request is not a fallback: the cancellation propagates.
    const ac = new AbortController();
    ac.abort(new Error("cancelled by the client"));
    const link = new EmulatorLink({
      discoveryDirs: [dir],
      mayDial: () => true,
      open: failing(GrpcStatus.CANCELLED),
    });
    await assertRejects(() =>
      link.run("emulator-5554", (rpc) => rpc.sendTouch({ touches: [] }), ac.signal)
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
