import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { join } from "node:path";
import { AdbClient } from "../../lib/adb/client.ts";
import { mapEnv } from "../../lib/core/env.ts";
import { findAdbExecutable } from "../../lib/adb/start_server.ts";
import { assertRejectsCode, FakeConnection, fakeConnector, lp } from "./_fake.ts";

async function fakeSdk(script: string): Promise<{ home: string; marker: string }> {
  const home = await Deno.makeTempDir({ prefix: "keynobi-adb-" });
  await Deno.mkdir(join(home, "platform-tools"));
  const marker = join(home, "started");
  const adb = join(home, "platform-tools", "adb");
  await Deno.writeTextFile(adb, script.replaceAll("@MARKER@", marker), { mode: 0o755 });
  return { home, marker };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("AdbClient runs adb start-server once when nothing listens locally, then retries", async () => {
  const { home, marker } = await fakeSdk('#!/bin/sh\necho "$@" > "@MARKER@"\n');
  try {
    const version = new FakeConnection(["OKAY" + lp("0029")]);
    const connector = fakeConnector([
      () => exists(marker) ? version : "refused",
      () => exists(marker) ? version : "refused",
    ]);
    const adb = new AdbClient({
      address: { host: "127.0.0.1", port: 5099 },
      connector,
      env: mapEnv({ ANDROID_HOME: home, PATH: "" }),
      startServer: true,
    });
    assertEquals(await adb.serverVersion(), 41);
    assertEquals((await Deno.readTextFile(marker)).trim(), "-P 5099 start-server");
    assertEquals(connector.calls.length, 2);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("AdbClient says so when adb start-server fails", async () => {
  const { home } = await fakeSdk("#!/bin/sh\necho 'cannot bind' >&2\nexit 1\n");
  try {
    const adb = new AdbClient({
      address: { host: "127.0.0.1", port: 5037 },
      connector: fakeConnector(["refused"]),
      env: mapEnv({ ANDROID_SDK_ROOT: home }),
    });
    const e = await assertRejectsCode(adb.listDevices(), "adb_unavailable");
    assertStringIncludes(e.message, "exited with code 1");
    assertStringIncludes(e.message, "cannot bind");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("AdbClient without any adb executable says how to install it", async () => {
  const adb = new AdbClient({
    address: { host: "127.0.0.1", port: 5037 },
    connector: fakeConnector(["refused"]),
    env: mapEnv({ PATH: "/nonexistent-keynobi" }),
  });
  const e = await assertRejectsCode(adb.listDevices(), "adb_unavailable");
  assertEquals(
    e.message,
    "ADB server is not running at 127.0.0.1:5037 and no adb executable was found: install " +
      "Android SDK Platform-Tools or set ANDROID_HOME",
  );
});

Deno.test("AdbClient never starts a server for a remote address", async () => {
  const { home, marker } = await fakeSdk('#!/bin/sh\necho "$@" > "@MARKER@"\n');
  try {
    const adb = new AdbClient({
      address: { host: "10.1.2.3", port: 5037 },
      connector: fakeConnector(["refused"]),
      env: mapEnv({ ANDROID_HOME: home }),
      startServer: true,
    });
    const e = await assertRejectsCode(adb.listDevices(), "adb_unavailable");
    assertStringIncludes(e.message, "10.1.2.3:5037 is unreachable");
    assert(!exists(marker), "adb was not run");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("findAdbExecutable() prefers ANDROID_HOME, then ANDROID_SDK_ROOT, then PATH", () => {
  const have = new Set(["/sdk1/platform-tools/adb", "/sdk2/platform-tools/adb", "/bin2/adb"]);
  const isExe = (p: string) => have.has(p);
  const env = (v: Record<string, string>) => mapEnv(v);
  assertEquals(
    findAdbExecutable(env({ ANDROID_HOME: "/sdk1", ANDROID_SDK_ROOT: "/sdk2" }), isExe, "linux"),
    "/sdk1/platform-tools/adb",
  );
  assertEquals(
    findAdbExecutable(env({ ANDROID_HOME: "/none", ANDROID_SDK_ROOT: "/sdk2" }), isExe, "linux"),
    "/sdk2/platform-tools/adb",
  );
  assertEquals(findAdbExecutable(env({ PATH: "/bin1:/bin2" }), isExe, "linux"), "/bin2/adb");
  assertEquals(findAdbExecutable(env({ PATH: "/bin1" }), isExe, "linux"), null);
});
