/**
 * lib/core/worker_client.ts over real channels: each start is a `serveWorker` on one side of a
 * `MessageChannel` and an `RpcChannel` on the other, so every call crosses the channel as it does
 * between the main thread and a worker.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { type MethodTable, WorkerClient } from "../../lib/core/worker_client.ts";
import { RpcChannel, serveWorker, type WorkerServer } from "../../lib/core/worker_rpc.ts";

interface Methods {
  echo: { params: { text: string }; result: string };
  count: { params: null; result: number | null };
  hang: { params: { ms: number }; result: never };
  bye: { params: null; result: { ok: boolean } };
}

const TABLE: MethodTable<Methods> = {
  echo: { budgetMs: 5_000 },
  count: { budgetMs: 5_000, whenStopped: () => null },
  hang: { budgetMs: (p) => p.ms },
  bye: { budgetMs: 5_000 },
};

/** Starts numbered "workers"; each answers `count` with its number and records `bye`. */
function workers() {
  const servers: WorkerServer[] = [];
  const channels: RpcChannel<Methods>[] = [];
  const byes: number[] = [];
  let starts = 0;
  const start = async () => {
    await new Promise((r) => setTimeout(r, 5)); // a start takes a while, as a worker's does
    const n = ++starts;
    const pipe = new MessageChannel();
    servers.push(serveWorker<Methods>(pipe.port2, {
      echo: ({ text }) => `${n}:${text}`,
      count: () => n,
      hang: (_p, { signal }) =>
        new Promise((_r, reject) => signal.addEventListener("abort", reject)),
      bye: () => {
        byes.push(n);
        return { ok: true };
      },
    }, { name: "test" }));
    const channel = new RpcChannel<Methods>(pipe.port1, { name: "test" });
    channels.push(channel);
    return channel;
  };
  return {
    start,
    byes,
    channels,
    get starts() {
      return starts;
    },
    [Symbol.dispose]() {
      for (const s of servers) s.close();
      for (const c of channels) c.close();
    },
  };
}

Deno.test("a method with an answer when stopped starts no worker", async () => {
  using w = workers();
  const client = new WorkerClient(TABLE, w.start);
  assertEquals(await client.call("count", null), null);
  assertEquals(w.starts, 0);
  assertEquals(client.running, false);
});

Deno.test("the first call that needs a worker starts one, once, however many come at once", async () => {
  using w = workers();
  const client = new WorkerClient(TABLE, w.start);
  const answers = await Promise.all(["a", "b", "c"].map((text) => client.call("echo", { text })));
  assertEquals(answers, ["1:a", "1:b", "1:c"]);
  assertEquals(w.starts, 1);
  assertEquals(await client.call("count", null), 1, "once running, the worker answers");
  client.close();
});

Deno.test("renew(): the next call starts a new worker; until then queries answer as stopped", async () => {
  using w = workers();
  const client = new WorkerClient(TABLE, w.start);
  assertEquals(await client.call("echo", { text: "x" }), "1:x");
  client.renew();
  assertEquals(client.running, false);
  assertEquals(await client.call("count", null), null, "a stale worker serves no new query");
  assertEquals(await client.call("echo", { text: "y" }), "2:y");
  assert(w.channels[0].closed, "the stale worker was closed when the new one started");
  assertEquals(w.starts, 2);
  client.close();
});

Deno.test("a row's budget may come from the params: the call times out at it", async () => {
  using w = workers();
  const client = new WorkerClient(TABLE, w.start);
  const e = await assertRejects(() => client.call("hang", { ms: 30 }), ToolError);
  assertEquals(e.code, "timeout");
  assertEquals(e.data?.timeout_ms, 30);
  client.close();
});

Deno.test("shutdown(): sends its method to a running worker, then closes it; none starts", async () => {
  using w = workers();
  const client = new WorkerClient(TABLE, w.start);
  await client.shutdown("bye", null);
  assertEquals(w.starts, 0, "shutting down what never ran starts nothing");
  await client.call("echo", { text: "x" });
  await client.shutdown("bye", null);
  assertEquals(w.byes, [1]);
  assertEquals(client.running, false);
  assert(w.channels[0].closed);
});

Deno.test("close(): what is in flight ends cancelled, and the next call starts again", async () => {
  using w = workers();
  const client = new WorkerClient(TABLE, w.start);
  await client.call("echo", { text: "x" });
  const hanging = client.call("hang", { ms: 5_000 });
  client.close();
  const e = await assertRejects(() => hanging, ToolError);
  assertEquals(e.code, "cancelled");
  assertEquals(await client.call("echo", { text: "z" }), "2:z");
  client.close();
});
