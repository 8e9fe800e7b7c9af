import { AdbClient, EXEC_STDIN_CHUNK_BYTES } from "../../lib/adb/client.ts";
import { concat, FakeConnection, fakeConnector, lp, tportId } from "./_fake.ts";
import { assert, assertEquals } from "../assert.ts";

const ADDRESS = { host: "127.0.0.1", port: 5037 };
const dec = new TextDecoder();

Deno.test("exec() writes stdin after the service opens, in chunks, then reads the reply", async () => {
  const payload = new Uint8Array(EXEC_STDIN_CHUNK_BYTES * 2 + 10).map((_, i) => i & 0xff);
  const svc = new FakeConnection([concat("OKAY", tportId(3), "OKAY"), "Success\n"]);
  const adb = new AdbClient({
    address: ADDRESS,
    connector: fakeConnector([svc]),
    startServer: false,
  });
  const seen: number[] = [];
  const out = await adb.exec("emulator-5554", ["cmd", "package", "install", "-S", "131082"], {
    stdin: payload,
    onStdinProgress: (sent) => seen.push(sent),
  });
  assertEquals(dec.decode(out), "Success\n");
  assertEquals(dec.decode(svc.writes[0]), lp("host:tport:serial:emulator-5554"));
  assertEquals(dec.decode(svc.writes[1]), lp("exec:cmd package install -S 131082"));
  const body = concat(...svc.writes.slice(2));
  assertEquals(body.length, payload.length);
  assertEquals(body, payload);
  assertEquals(seen, [EXEC_STDIN_CHUNK_BYTES, EXEC_STDIN_CHUNK_BYTES * 2, payload.length]);
  assert(svc.closed);
});
