/**
 * The relay over a real unix socket, with a scripted app on the other end: what it remembers of
 * the requests it forwarded, and what it answers for them when the app goes.
 */
import { assert, assertEquals } from "../assert.ts";
import { MAX_RELAY_OPEN_REQUESTS, runRelay } from "../../lib/attach/relay.ts";

Deno.test("runRelay() remembers at most MAX_RELAY_OPEN_REQUESTS open requests, the newest, and none cancelled", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-relay-" });
  const path = `${dir}/app.sock`;
  const listener = Deno.listen({ transport: "unix", path });
  try {
    const total = MAX_RELAY_OPEN_REQUESTS + 44;
    const cancelled = new Set([total - 1, total - 2]);
    // The app reads every line and answers none, then goes away.
    const appSide = (async () => {
      const conn = await listener.accept();
      const reader = conn.readable.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      const wanted = total + cancelled.size;
      while (text.split("\n").length - 1 < wanted) {
        const r = await reader.read();
        if (r.done) break;
        text += r.value;
      }
      reader.releaseLock();
      conn.close();
    })();
    const conn = await Deno.connect({ transport: "unix", path });
    const lines: string[] = [];
    for (let id = 0; id < total; id++) {
      lines.push(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
    }
    for (const id of cancelled) {
      lines.push(JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id },
      }));
    }
    const stdinText = lines.map((l) => l + "\n").join("");
    const stdin = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(stdinText));
        // stdin stays open: the client is still there when the app goes.
      },
    });
    const out: string[] = [];
    const stdout = new WritableStream<Uint8Array>({
      write(chunk) {
        out.push(...new TextDecoder().decode(chunk).split("\n").filter((l) => l !== ""));
      },
    });
    let gone = -1;
    const code = await runRelay({
      stdin,
      stdout,
      conn,
      socketReader: conn.readable.getReader(),
      rest: new Uint8Array(),
      fallback: null,
      onAppGone: (open) => (gone = open),
    });
    await appSide;
    assertEquals(code, 1, "--attach-only: the relay exits when the app goes");
    const answered = out.map((l) => JSON.parse(l).id as number);
    // The newest MAX_RELAY_OPEN_REQUESTS were remembered; the two cancelled among them forgotten.
    const expected = Array.from(
      { length: MAX_RELAY_OPEN_REQUESTS },
      (_, i) => total - MAX_RELAY_OPEN_REQUESTS + i,
    ).filter((id) => !cancelled.has(id));
    assertEquals(gone, expected.length);
    assert(answered.every((id) => !cancelled.has(id)), "no answer for a cancelled request");
    assertEquals(answered.sort((a, b) => a - b), expected, "the oldest were forgotten");
  } finally {
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});
