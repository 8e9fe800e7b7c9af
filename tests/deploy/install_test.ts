import { AdbClient } from "../../lib/adb/client.ts";
import { streamInstall } from "../../lib/deploy/install.ts";
import { concat, FakeConnection, fakeConnector, featuresConn, lp, tportId } from "../adb/_fake.ts";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";

const ADDRESS = { host: "127.0.0.1", port: 5037 };
const dec = new TextDecoder();

Deno.test("streamInstall() sends -S <size> and the bytes; Failure [...] is install_failed", async () => {
  const apk = new TextEncoder().encode("PK-fake-apk");
  const ok = new FakeConnection([concat("OKAY", tportId(1), "OKAY"), "Success\n"]);
  const bad = new FakeConnection([
    concat("OKAY", tportId(1), "OKAY"),
    "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected]\n",
  ]);
  const adb = new AdbClient({
    address: ADDRESS,
    connector: fakeConnector([featuresConn("shell_v2,cmd"), ok, bad]),
    startServer: false,
  });
  const r = await streamInstall(adb, "emulator-5554", apk);
  assertEquals(r.reply, "Success");
  assertEquals(dec.decode(ok.writes[0]), lp("host:tport:serial:emulator-5554"));
  assertEquals(
    dec.decode(ok.writes[1]),
    lp(`exec:cmd package install -r -t -S ${apk.length}`),
  );
  assertEquals(dec.decode(concat(...ok.writes.slice(2))), "PK-fake-apk");
  const e = await assertRejects(() => streamInstall(adb, "emulator-5554", apk), ToolError);
  assertEquals(e.code, "install_failed");
  assertEquals(e.data?.status, "INSTALL_FAILED_VERSION_DOWNGRADE");
  assert(/uninstall it first/.test(e.message), e.message);
});

Deno.test("streamInstall() refuses a device without cmd before sending anything", async () => {
  const adb = new AdbClient({
    address: ADDRESS,
    connector: fakeConnector([featuresConn("shell_v2")]),
    startServer: false,
  });
  const e = await assertRejects(
    () => streamInstall(adb, "old-device", new Uint8Array(4)),
    ToolError,
  );
  assertEquals(e.code, "install_failed");
  assert(/lacks the cmd feature/.test(e.message));
});
