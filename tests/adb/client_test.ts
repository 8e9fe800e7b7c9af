import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { AdbClient } from "../../lib/adb/client.ts";
import type { Connector } from "../../lib/adb/connection.ts";
import {
  assertRejectsCode,
  concat,
  FakeConnection,
  fakeConnector,
  featuresConn,
  HANG,
  lp,
  packet,
  tportId,
  V2_FEATURES,
} from "./_fake.ts";
import { waitUntil } from "../wait.ts";

const ADDRESS = { host: "127.0.0.1", port: 5037 };
const dec = new TextDecoder();

function client(connector: Connector) {
  return new AdbClient({ address: ADDRESS, connector, startServer: false });
}

/** The transport switch, then the service, a device command writes, as text. */
function tport(serial: string, service: string): string {
  return lp(`host:tport:serial:${serial}`) + lp(service);
}

Deno.test("serverVersion() writes 000chost:version and parses the hex version", async () => {
  const conn = new FakeConnection(["OKAY", "0004", "0029"]);
  const adb = client(fakeConnector([conn]));
  assertEquals(await adb.serverVersion(), 41);
  assertEquals(conn.written, "000chost:version");
  assert(conn.closed, "connection closed after the reply");
});

Deno.test("listDevices() sends host:devices-l and parses the long format", async () => {
  const payload = "emulator-5554          device product:sdk_gphone64_x86_64 " +
    "model:sdk_gphone64_x86_64 device:emu64xa transport_id:1\n" +
    "192.168.1.23:5555      unauthorized transport_id:3\n";
  const conn = new FakeConnection(["OKAY" + lp(payload)]);
  const adb = client(fakeConnector([conn]));
  const devices = await adb.listDevices();
  assertEquals(conn.written, "000ehost:devices-l");
  assertEquals(devices.map((d) => [d.serial, d.state, d.kind, d.transportId]), [
    ["emulator-5554", "device", "emulator", 1],
    ["192.168.1.23:5555", "unauthorized", "wireless", 3],
  ]);
});

Deno.test("shell() sends tport, waits for its answer, then shell,v2,raw with quoted argv", async () => {
  const features = featuresConn(V2_FEATURES);
  const svc = new FakeConnection([
    concat("OKAY", tportId(7), "OKAY"),
    concat(packet(1, "hello\n"), packet(2, "warn\n"), packet(3, new Uint8Array([3]))),
  ]);
  const adb = client(fakeConnector([features, svc]));
  const r = await adb.shell("emulator-5554", ["echo", "a b", "it's", "$(id)"]);
  assertEquals(features.written, lp("host-serial:emulator-5554:features"));
  const service = `shell,v2,raw:echo 'a b' 'it'\\''s' '$(id)'`;
  assertEquals(svc.written, tport("emulator-5554", service));
  // Google's server drops bytes that arrive with a transport switch (sockets.cpp clears its
  // buffer): the service goes out only after the switch's OKAY and id were read.
  assertEquals(svc.writes.length, 2);
  assertEquals(dec.decode(svc.writes[0]), lp("host:tport:serial:emulator-5554"));
  assertEquals(svc.readsAtWrite, [0, 1], "the service is written after the answer");
  // Exact bytes, counted by hand: 0x1f = 31 = len("host:tport:serial:emulator-5554").
  assert(svc.written.startsWith("001fhost:tport:serial:emulator-55540029"), svc.written);
  assertEquals(r.text(), "hello\n");
  assertEquals(dec.decode(r.stderr), "warn\n");
  assertEquals(r.exitCode, 3);
  assert(svc.closed);
});

Deno.test("shell() decodes v2 packets split at every byte boundary", async () => {
  const stream = concat(
    packet(1, "line one\n"),
    packet(2, ""),
    packet(1, "ünïcode\n"),
    packet(2, "err"),
    packet(3, new Uint8Array([0])),
  );
  // One byte per read.
  const bytes = [...stream].map((b) => new Uint8Array([b]));
  const svc = new FakeConnection([concat("OKAY", tportId(1), "OKAY"), ...bytes]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const r = await adb.shell("emulator-5554", ["cat", "x"]);
  assertEquals(r.text(), "line one\nünïcode\n");
  assertEquals(dec.decode(r.stderr), "err");
  assertEquals(r.exitCode, 0);
  // Every two-chunk split, with the status bytes glued to the first packet.
  for (let i = 0; i <= stream.length; i++) {
    const head = concat("OKAY", tportId(1), "OKAY", stream.subarray(0, i));
    const svc2 = new FakeConnection([head, stream.slice(i)]);
    const adb2 = client(fakeConnector([featuresConn(V2_FEATURES), svc2]));
    const r2 = await adb2.shell("emulator-5554", ["cat", "x"]);
    assertEquals(r2.text(), "line one\nünïcode\n", `split at ${i}`);
    assertEquals(r2.exitCode, 0, `split at ${i}`);
  }
});

Deno.test("shell() falls back to shell: without shell_v2: merged output, null exit", async () => {
  const svc = new FakeConnection([concat("OKAY", tportId(2), "OKAY"), "out and err\n"]);
  const adb = client(fakeConnector([featuresConn("cmd,stat_v2"), svc]));
  const r = await adb.shell("0123456789ABCDEF", ["ls", "/sdcard/My Files"]);
  assertEquals(svc.written, tport("0123456789ABCDEF", "shell:ls '/sdcard/My Files'"));
  assertEquals(r.text(), "out and err\n");
  assertEquals(r.stderr.length, 0);
  assertEquals(r.exitCode, null);
});

Deno.test("shell() caches features per serial and refetches when the transport id changes", async () => {
  const ok = (id: number) =>
    new FakeConnection([concat("OKAY", tportId(id), "OKAY"), packet(3, new Uint8Array([0]))]);
  const f1 = featuresConn(V2_FEATURES);
  const f2 = featuresConn("cmd");
  const s1 = ok(4), s2 = ok(4), s3 = ok(9);
  const s4 = new FakeConnection([concat("OKAY", tportId(9), "OKAY"), "x"]);
  const connector = fakeConnector([f1, s1, s2, s3, f2, s4]);
  const adb = client(connector);
  await adb.shell("emulator-5554", ["true"]);
  await adb.shell("emulator-5554", ["true"]); // cached: no features connection
  await adb.shell("emulator-5554", ["true"]); // id 9 ≠ 4: cache dropped
  const r = await adb.shell("emulator-5554", ["true"]); // refetched: no shell_v2 now
  assertStringIncludes(s4.written, "shell:true");
  assertEquals(r.exitCode, null);
  assertEquals(connector.remaining(), 0);
});

Deno.test("shell() falls back to host:transport when tport is an unknown host service", async () => {
  const first = new FakeConnection(["FAIL" + lp("unknown host service 'tport:serial:x'")]);
  const legacy = new FakeConnection(["OKAY", "OKAY", packet(3, new Uint8Array([0]))]);
  const later = new FakeConnection(["OKAY", "OKAY", packet(3, new Uint8Array([1]))]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), first, legacy, later]));
  const r = await adb.shell("emulator-5554", ["true"]);
  assertEquals(r.exitCode, 0);
  assert(first.closed);
  assertEquals(legacy.writes.map((w) => dec.decode(w)), [
    lp("host:transport:emulator-5554"),
    lp("shell,v2,raw:true"),
  ]);
  // The client remembers: the next call goes straight to host:transport.
  const r2 = await adb.shell("emulator-5554", ["true"]);
  assertEquals(r2.exitCode, 1);
  assertEquals(later.writes.length, 2);
  assertStringIncludes(later.written, "host:transport:emulator-5554");
});

Deno.test("shell() maps device not found to device_not_found listing connected serials", async () => {
  const fail = new FakeConnection(["FAIL" + lp("device 'nope' not found")]);
  const listing = new FakeConnection([
    "OKAY" + lp("emulator-5554          device transport_id:1\n"),
  ]);
  const adb = client(fakeConnector([fail, listing]));
  const e = await assertRejectsCode(adb.features("nope"), "device_not_found");
  assertStringIncludes(e.message, "emulator-5554");
  assertStringIncludes(e.message, "'nope'");
  assertEquals(e.data?.connected, ["emulator-5554"]);
});

Deno.test("shell() maps the real FAIL texts to codes", async () => {
  const cases: [string, string, string][] = [
    ["device offline", "device_offline", "offline"],
    ["device still connecting", "device_offline", "connecting"],
    [
      "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb " +
      "kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.",
      "device_unauthorized",
      "RSA",
    ],
    ["device still authorizing", "device_unauthorized", "RSA"],
    ["more than one device/emulator", "device_ambiguous", "device_serial"],
    ["closed", "adb_error", "refused to open"],
    ["something new", "adb_error", "something new"],
  ];
  for (const [fail, code, text] of cases) {
    const svc = new FakeConnection(["FAIL" + lp(fail)]);
    const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
    const e = await assertRejectsCode(adb.shell("emulator-5554", ["true"]), code);
    assertStringIncludes(e.message, text, fail);
    assert(svc.closed, `closed after ${fail}`);
  }
});

Deno.test("shell() service FAIL after the transport switch is mapped too", async () => {
  const svc = new FakeConnection([concat("OKAY", tportId(1), "FAIL", lp("closed"))]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const e = await assertRejectsCode(adb.shell("emulator-5554", ["true"]), "adb_error");
  assertStringIncludes(e.message, "emulator-5554");
});

Deno.test("shell() times out and closes the socket", async () => {
  const svc = new FakeConnection([concat("OKAY", tportId(1), "OKAY"), HANG]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const e = await assertRejectsCode(
    adb.shell("emulator-5554", ["sleep", "100"], { timeoutMs: 30 }),
    "timeout",
  );
  assertStringIncludes(e.message, "30 ms");
  assert(svc.closed, "socket closed on timeout");
});

Deno.test("shell() abort closes the socket at once and answers cancelled", async () => {
  const svc = new FakeConnection([concat("OKAY", tportId(1), "OKAY"), HANG]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const ctl = new AbortController();
  const p = adb.shell("emulator-5554", ["logcat"], { signal: ctl.signal });
  p.catch(() => {});
  await waitUntil(() => svc.written.includes("logcat"), "the shell service to be asked for");
  assert(!svc.closed);
  ctl.abort();
  assert(svc.closed, "closed synchronously on abort");
  await assertRejectsCode(p, "cancelled");
});

Deno.test("shell() with an already aborted signal sends nothing", async () => {
  const connector = fakeConnector([featuresConn(V2_FEATURES)]);
  const adb = client(connector);
  await assertRejectsCode(
    adb.shell("emulator-5554", ["true"], { signal: AbortSignal.abort() }),
    "cancelled",
  );
  assertEquals(connector.calls.length, 0);
});

Deno.test("shell() refuses output over maxOutputBytes and closes the socket", async () => {
  const svc = new FakeConnection([
    concat("OKAY", tportId(1), "OKAY"),
    packet(1, "0123456789"),
    packet(1, "abcdef"),
    HANG,
  ]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const e = await assertRejectsCode(
    adb.shell("emulator-5554", ["cat", "big"], { maxOutputBytes: 12 }),
    "adb_error",
  );
  assertStringIncludes(e.message, "12-byte limit");
  assert(svc.closed);
});

Deno.test("shell() refuses an empty argv and NUL bytes before connecting", async () => {
  const connector = fakeConnector([]);
  const adb = client(connector);
  await assertRejectsCode(adb.shell("emulator-5554", []), "invalid_params");
  await assertRejectsCode(adb.shell("emulator-5554", ["echo", "a\0b"]), "invalid_params");
  assertEquals(connector.calls.length, 0);
});

Deno.test("exec() sends exec: with quoted argv and returns raw bytes", async () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
  const svc = new FakeConnection([
    concat("OKAY", tportId(1), "OKAY"),
    png.subarray(0, 3),
    png.subarray(3),
  ]);
  const adb = client(fakeConnector([svc]));
  const out = await adb.exec("emulator-5554", ["screencap", "-p"]);
  assertEquals(svc.written, tport("emulator-5554", "exec:screencap -p"));
  assertEquals(out, png);
});

Deno.test("openShellStream() streams stdout and stderr and reports the exit code", async () => {
  const svc = new FakeConnection([
    concat("OKAY", tportId(1), "OKAY", packet(1, "a\n")),
    concat(packet(2, "oops\n"), packet(1, "b\n")),
    packet(3, new Uint8Array([0])),
  ]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const s = await adb.openShellStream("emulator-5554", ["logcat", "-v", "threadtime"]);
  assertEquals(svc.written, tport("emulator-5554", "shell,v2,raw:logcat -v threadtime"));
  const [out, err] = await Promise.all([
    new Response(s.stdout).text(),
    new Response(s.stderr).text(),
  ]);
  assertEquals(out, "a\nb\n");
  assertEquals(err, "oops\n");
  assertEquals(await s.exitCode, 0);
  await s.close();
  assert(svc.closed);
});

Deno.test("openShellStream() close() stops a running command", async () => {
  const svc = new FakeConnection([concat("OKAY", tportId(1), "OKAY", packet(1, "first\n")), HANG]);
  const adb = client(fakeConnector([featuresConn(V2_FEATURES), svc]));
  const s = await adb.openShellStream("emulator-5554", ["logcat"]);
  const reader = s.stdout.getReader();
  assertEquals(dec.decode((await reader.read()).value), "first\n");
  await s.close();
  assert(svc.closed);
  assertEquals((await reader.read()).done, true);
  assertEquals(await s.exitCode, null);
});

Deno.test("openShellStream() abort signal closes the stream", async () => {
  const svc = new FakeConnection([concat("OKAY", tportId(1), "OKAY"), HANG]);
  const adb = client(fakeConnector([featuresConn("cmd"), svc]));
  const ctl = new AbortController();
  const s = await adb.openShellStream("emulator-5554", ["logcat"], { signal: ctl.signal });
  assertStringIncludes(svc.written, "shell:logcat");
  ctl.abort();
  assertEquals(await new Response(s.stdout).text(), "");
  assert(svc.closed);
  assertEquals(await s.exitCode, null);
});

Deno.test("a protocol violation becomes adb_error", async () => {
  const conn = new FakeConnection(["HUH?"]);
  const adb = client(fakeConnector([conn]));
  const e = await assertRejectsCode(adb.serverVersion(), "adb_error");
  assertStringIncludes(e.message, "HUH?");
});

Deno.test("a refused local connection without startServer is adb_unavailable", async () => {
  const adb = client(fakeConnector(["refused"]));
  const e = await assertRejectsCode(adb.listDevices(), "adb_unavailable");
  assertStringIncludes(e.message, "not running at 127.0.0.1:5037");
});

Deno.test("a connector that never answers hits the connect timeout", async () => {
  let sawAbort = false;
  const connector: Connector = (_a, signal) =>
    new Promise((_r, reject) => {
      signal.addEventListener("abort", () => {
        sawAbort = true;
        reject(new Error("aborted"));
      });
    });
  const adb = client(connector);
  const e = await assertRejectsCode(adb.serverVersion({ timeoutMs: 40 }), "timeout");
  assertStringIncludes(e.message, "40 ms");
  assert(sawAbort, "the connect attempt was aborted");
});
