import { assert, assertEquals } from "../assert.ts";
import { ConnectionRefused } from "../../lib/adb/connection.ts";
import { tcpConnector } from "../../lib/adb/tcp_connection.ts";

Deno.test("tcpConnector() maps ECONNREFUSED to ConnectionRefused", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const ctl = new AbortController();
  try {
    await tcpConnector({ host: "127.0.0.1", port }, ctl.signal);
    throw new Error("expected a refusal");
  } catch (e) {
    assert(e instanceof ConnectionRefused, `got ${e}`);
  }
});

Deno.test("tcpConnector() reads, writes and ends a read cleanly on close()", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const server = (async () => {
    const c = await l.accept();
    const buf = new Uint8Array(16);
    const n = await c.read(buf);
    await c.write(buf.subarray(0, n ?? 0));
    await c.read(buf); // until the client closes
    c.close();
  })();
  const conn = await tcpConnector(
    { host: "127.0.0.1", port: (l.addr as Deno.NetAddr).port },
    new AbortController().signal,
  );
  await conn.write(new TextEncoder().encode("ping"));
  assertEquals(new TextDecoder().decode((await conn.read()) ?? undefined), "ping");
  const pending = conn.read();
  conn.close();
  assertEquals(await pending, null);
  await server;
  l.close();
});
