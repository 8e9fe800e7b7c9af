import { assertEquals, assertStringIncludes, assertThrows } from "../assert.ts";
import { mapEnv } from "../../lib/core/env.ts";
import {
  isLocalAddress,
  parseServerSocketSpec,
  resolveAdbServerAddress,
} from "../../lib/adb/server_address.ts";

Deno.test("resolveAdbServerAddress() defaults to 127.0.0.1:5037", () => {
  assertEquals(resolveAdbServerAddress(mapEnv({})), { host: "127.0.0.1", port: 5037 });
});

Deno.test("resolveAdbServerAddress() prefers ADB_SERVER_SOCKET", () => {
  const env = mapEnv({
    ADB_SERVER_SOCKET: "tcp:10.0.0.2:6000",
    ANDROID_ADB_SERVER_ADDRESS: "10.9.9.9",
    ANDROID_ADB_SERVER_PORT: "7000",
  });
  assertEquals(resolveAdbServerAddress(env), { host: "10.0.0.2", port: 6000 });
});

Deno.test("resolveAdbServerAddress() uses ANDROID_ADB_SERVER_ADDRESS and _PORT", () => {
  assertEquals(
    resolveAdbServerAddress(mapEnv({ ANDROID_ADB_SERVER_ADDRESS: "lab.local" })),
    { host: "lab.local", port: 5037 },
  );
  assertEquals(
    resolveAdbServerAddress(mapEnv({ ANDROID_ADB_SERVER_PORT: "5038" })),
    { host: "127.0.0.1", port: 5038 },
  );
});

Deno.test("resolveAdbServerAddress() refuses a port outside 1..65535 with a clear error", () => {
  for (const port of ["0", "65536", "abc", "-1", "50 37", "1e3"]) {
    assertThrows(() => resolveAdbServerAddress(mapEnv({ ANDROID_ADB_SERVER_PORT: port })), (e) => {
      assertEquals((e as { code: string }).code, "adb_unavailable");
      assertStringIncludes((e as Error).message, "ANDROID_ADB_SERVER_PORT");
      assertStringIncludes((e as Error).message, "1 to 65535");
    });
  }
});

Deno.test("parseServerSocketSpec() reads tcp:port, tcp:host:port, [v6] and bare host", () => {
  assertEquals(parseServerSocketSpec("tcp:5099"), { host: "127.0.0.1", port: 5099 });
  assertEquals(parseServerSocketSpec("tcp:localhost:5037"), { host: "127.0.0.1", port: 5037 });
  assertEquals(parseServerSocketSpec("tcp:[::1]:5037"), { host: "::1", port: 5037 });
  // socket_spec.cpp: a host without a port means 5555.
  assertEquals(parseServerSocketSpec("tcp:lab"), { host: "lab", port: 5555 });
  for (const bad of ["local:/tmp/x", "tcp:", "tcp:h:99999", "tcp:[::1", "tcp:::1:5037"]) {
    assertThrows(() => parseServerSocketSpec(bad), (e) => {
      assertEquals((e as { code: string }).code, "adb_unavailable");
      assertStringIncludes((e as Error).message, "ADB_SERVER_SOCKET");
    });
  }
});

Deno.test("isLocalAddress() is true only for loopback", () => {
  assertEquals(isLocalAddress({ host: "127.0.0.1", port: 1 }), true);
  assertEquals(isLocalAddress({ host: "::1", port: 1 }), true);
  assertEquals(isLocalAddress({ host: "localhost", port: 1 }), true);
  assertEquals(isLocalAddress({ host: "10.0.0.2", port: 1 }), false);
  assertEquals(isLocalAddress({ host: "127.example.com", port: 1 }), false);
});
