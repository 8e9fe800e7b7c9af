import { assert, assertEquals, assertInstanceOf, assertRejects } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import {
  effectiveTimeout,
  type Handlers,
  MAX_PENDING_REQUESTS,
  MAX_REQUEST_TIMEOUT_MS,
  parseRpcMessage,
  type Progress,
  rebuildError,
  RpcChannel,
  serveWorker,
} from "../../lib/core/worker_rpc.ts";
import { waitUntil } from "../wait.ts";

interface TestMethods {
  add: { params: { a: number; b: number }; result: number };
  fail: { params: { code: "device_offline" | "timeout"; detail: string }; result: never };
  crash: { params: null; result: never };
  wait: { params: { steps: number }; result: string };
  hang: { params: null; result: never };
  unclonable: { params: null; result: unknown };
}

function setup(overrides: Partial<Handlers<TestMethods>> = {}) {
  const seen = { aborted: 0, cancelReason: undefined as unknown };
  const handlers: Handlers<TestMethods> = {
    add: ({ a, b }) => a + b,
    fail: ({ code, detail }) => {
      throw new ToolError(code, `Device is gone: ${detail}`, { serial: "emulator-5554" });
    },
    crash: () => {
      throw new TypeError("x is undefined");
    },
    wait: async ({ steps }, { progress }) => {
      for (let i = 1; i <= steps; i++) {
        progress(i, steps, `step ${i}`);
        await new Promise((r) => setTimeout(r, 1));
      }
      return "done";
    },
    hang: (_params, { signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          seen.aborted++;
          seen.cancelReason = signal.reason;
          reject(signal.reason);
        });
      }),
    unclonable: () => ({ f: () => 1 }),
    ...overrides,
  };
  const channel = new MessageChannel();
  const server = serveWorker<TestMethods>(channel.port2, handlers, { name: "test" });
  const client = new RpcChannel<TestMethods>(channel.port1, { name: "test" });
  return {
    client,
    server,
    seen,
    [Symbol.dispose]() {
      client.close();
      server.close();
    },
  };
}

Deno.test("RpcChannel.request() returns the handler's result", async () => {
  using t = setup();
  assertEquals(await t.client.request("add", { a: 2, b: 40 }), 42);
  assertEquals(t.client.pendingCount, 0);
});

Deno.test("RpcChannel.request() rebuilds a ToolError with its code and data", async () => {
  using t = setup();
  const e = await assertRejects(
    () => t.client.request("fail", { code: "device_offline", detail: "unplugged" }),
    ToolError,
  );
  assertEquals(e.code, "device_offline");
  assertEquals(e.message, "Device is gone: unplugged");
  assertEquals(e.data, { serial: "emulator-5554" });
});

Deno.test("serveWorker() turns other errors into internal_error", async () => {
  using t = setup();
  const e = await assertRejects(() => t.client.request("crash", null), ToolError);
  assertEquals(e.code, "internal_error");
  assert(e.message.includes("x is undefined"), e.message);
  assert(e.message.includes("crash"), e.message);
  assertEquals(e.data, { error: "TypeError" });
});

Deno.test("serveWorker() reports a result that cannot be cloned", async () => {
  using t = setup();
  const e = await assertRejects(() => t.client.request("unclonable", null), ToolError);
  assertEquals(e.code, "internal_error");
  assert(e.message.includes("cannot send its answer"), e.message);
});

Deno.test("serveWorker() refuses an unknown method", async () => {
  using t = setup();
  // deno-lint-ignore no-explicit-any
  const untyped = t.client as RpcChannel<any>;
  const e = await assertRejects(() => untyped.request("toString", null), ToolError);
  assertEquals(e.code, "internal_error");
  assert(e.message.includes("no method toString"), e.message);
});

Deno.test("RpcChannel.request() delivers progress in order", async () => {
  using t = setup();
  const seen: Progress[] = [];
  const value = await t.client.request("wait", { steps: 3 }, { onProgress: (p) => seen.push(p) });
  assertEquals(value, "done");
  assertEquals(seen, [
    { progress: 1, total: 3, message: "step 1" },
    { progress: 2, total: 3, message: "step 2" },
    { progress: 3, total: 3, message: "step 3" },
  ]);
});

Deno.test("RpcChannel.request() abort sends cancel and rejects with cancelled", async () => {
  using t = setup();
  const controller = new AbortController();
  const pending = t.client.request("hang", null, { signal: controller.signal });
  await waitUntil(() => t.server.running === 1, "t.server.running === 1");
  controller.abort();
  const e = await assertRejects(() => pending, ToolError);
  assertEquals(e.code, "cancelled");
  await waitUntil(() => t.seen.aborted === 1, "t.seen.aborted === 1");
  assertInstanceOf(t.seen.cancelReason, ToolError);
  assertEquals(t.server.running, 0);
  assertEquals(t.client.pendingCount, 0);
});

Deno.test("RpcChannel.request() with an aborted signal sends nothing", async () => {
  using t = setup();
  const e = await assertRejects(
    () => t.client.request("hang", null, { signal: AbortSignal.abort() }),
    ToolError,
  );
  assertEquals(e.code, "cancelled");
  assertEquals(t.server.running, 0);
});

Deno.test("RpcChannel.request() times out with timeout and cancels the handler", async () => {
  using t = setup();
  const e = await assertRejects(() => t.client.request("hang", null, { timeoutMs: 20 }), ToolError);
  assertEquals(e.code, "timeout");
  assertEquals(e.data, { timeout_ms: 20 });
  await waitUntil(() => t.seen.aborted === 1, "t.seen.aborted === 1");
});

Deno.test("RpcChannel.request() can restart its timeout on progress", async () => {
  using t = setup({
    wait: async ({ steps }, { progress }) => {
      for (let i = 1; i <= steps; i++) {
        progress(i, steps);
        await new Promise((r) => setTimeout(r, 10));
      }
      return "slow but alive";
    },
  });
  // 12 steps of 10 ms outlast the 60 ms timeout only because each progress restarts it.
  const value = await t.client.request("wait", { steps: 12 }, {
    timeoutMs: 60,
    resetTimeoutOnProgress: true,
  });
  assertEquals(value, "slow but alive");
});

Deno.test("RpcChannel.request() bounds requests in flight", async () => {
  using t = setup();
  const pending = [];
  for (let i = 0; i < MAX_PENDING_REQUESTS; i++) {
    pending.push(t.client.request("hang", null).catch((e) => e));
  }
  const e = await assertRejects(() => t.client.request("add", { a: 1, b: 1 }), ToolError);
  assertEquals(e.code, "invalid_request");
  assert(e.message.includes(String(MAX_PENDING_REQUESTS)), e.message);
  t.client.close();
  for (const r of await Promise.all(pending)) assertEquals((r as ToolError).code, "cancelled");
});

Deno.test("RpcChannel.fail() rejects pending and later requests", async () => {
  using t = setup();
  const pending = t.client.request("hang", null);
  await waitUntil(() => t.server.running === 1, "t.server.running === 1");
  const died = new ToolError("internal_error", "The test worker stopped unexpectedly: boom");
  t.client.fail(died);
  assertEquals(await pending.catch((e) => e), died);
  assertEquals(await t.client.request("add", { a: 1, b: 2 }).catch((e) => e), died);
});

Deno.test("RpcChannel.close() rejects pending requests and calls onClose once", async () => {
  const channel = new MessageChannel();
  let closes = 0;
  const server = serveWorker<TestMethods>(channel.port2, {
    add: ({ a, b }) => a + b,
    fail: () => {
      throw new Error("unused");
    },
    crash: () => {
      throw new Error("unused");
    },
    wait: () => "",
    hang: () => new Promise(() => {}),
    unclonable: () => null,
  });
  const client = new RpcChannel<TestMethods>(channel.port1, {
    name: "ui",
    onClose: () => closes++,
  });
  const pending = client.request("hang", null);
  client.close();
  client.close();
  const e = await assertRejects(() => pending, ToolError);
  assertEquals(e.code, "cancelled");
  assert(e.message.includes("ui worker"), e.message);
  assertEquals(closes, 1);
  assert(client.closed);
  server.close();
});

Deno.test("effectiveTimeout() defaults, clamps and refuses", () => {
  assertEquals(effectiveTimeout(undefined), 30_000);
  assertEquals(effectiveTimeout(MAX_REQUEST_TIMEOUT_MS * 10), MAX_REQUEST_TIMEOUT_MS);
  let threw = 0;
  for (const bad of [0, -1, NaN, Infinity]) {
    try {
      effectiveTimeout(bad);
    } catch (e) {
      assertInstanceOf(e, RangeError);
      threw++;
    }
  }
  assertEquals(threw, 4);
});

Deno.test("parseRpcMessage() ignores foreign messages", () => {
  assertEquals(parseRpcMessage("hello"), null);
  assertEquals(parseRpcMessage({ type: "result" }), null);
  assertEquals(parseRpcMessage({ type: "request", id: 1 }), null);
  assertEquals(parseRpcMessage({ type: "other", id: 1 }), null);
  assertEquals(parseRpcMessage({ type: "cancel", id: 7 }), { type: "cancel", id: 7 });
});

Deno.test("rebuildError() tolerates a malformed error payload", () => {
  const e = rebuildError("nope", "logcat", "query");
  assertEquals(e.code, "internal_error");
  assert(e.message.includes("logcat worker answered query"), e.message);
  assertEquals(rebuildError({ code: "timeout", message: "Slow" }, "x", "y").code, "timeout");
});
