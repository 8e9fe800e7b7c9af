import { assert, assertEquals, assertRejects } from "../assert.ts";
import { join } from "node:path";
import { ToolError } from "../../lib/core/errors.ts";
import {
  buildWorkerPermissions,
  GRPC_ENV_NAMES,
  logcatWorkerPermissions,
  missingGrants,
  netGrant,
  startWorker,
  uiWorkerPermissions,
} from "../../lib/core/worker_permissions.ts";
import type { Progress, RpcChannel } from "../../lib/core/worker_rpc.ts";
import type { ProbeMethods } from "./fixtures/probe_worker.ts";
import { pollUntil } from "../wait.ts";

const PROBE_WORKER = new URL("./fixtures/probe_worker.ts", import.meta.url);

Deno.test("logcatWorkerPermissions() grants ADB and the data dir only", () => {
  const p = logcatWorkerPermissions({
    dataDir: "/home/u/.keynobi",
    adbServer: "127.0.0.1:5037",
    projectRoot: "/src/app",
    gradlew: "/src/app/gradlew",
  });
  assertEquals(p.net, ["127.0.0.1:5037"]);
  assertEquals(p.read, ["/home/u/.keynobi", "/src/app"]);
  assertEquals(p.write, ["/home/u/.keynobi"]);
  assertEquals(p.run, false);
  assertEquals(p.sys, false);
  assertEquals(p.ffi, false);
  assertEquals(p.import, false);
  assertEquals(p.env, ["KEYNOBI_LOG"]);
});

Deno.test("uiWorkerPermissions() adds the emulator gRPC endpoints, grpc env and its client process", () => {
  const p = uiWorkerPermissions({
    dataDir: "/d",
    adbServer: "127.0.0.1:5037",
    emulatorGrpc: ["127.0.0.1:8554", "127.0.0.1:8554", "[::1]:8556"],
    programRoot: "/opt/keynobi",
    grpcClientExec: "/opt/deno/bin/deno",
  });
  assertEquals(p.net, ["127.0.0.1:5037", "127.0.0.1:8554", "[::1]:8556"]);
  assertEquals(p.read, ["/d", "/opt/keynobi"]);
  assertEquals(p.write, ["/d"]);
  assertEquals(p.run, ["/opt/deno/bin/deno"], "only the gRPC client process's executable");
  assertEquals(uiWorkerPermissions({ dataDir: "/d" }).run, false, "no emulator: no run at all");
  assert(Array.isArray(p.env) && GRPC_ENV_NAMES.every((n) => (p.env as string[]).includes(n)));
});

Deno.test("buildWorkerPermissions() runs only gradlew and java, no network", () => {
  const p = buildWorkerPermissions({
    dataDir: "/d",
    adbServer: "127.0.0.1:5037",
    projectRoot: "/src/app",
    sdkRoot: "/sdk",
    gradlew: "/src/app/gradlew",
    java: "/jdk/bin/java",
    javaHome: "/jdk",
    env: ["JAVA_HOME"],
  });
  assertEquals(p.net, false);
  assertEquals(p.read, ["/src/app", "/sdk", "/jdk", "/d"]);
  assertEquals(p.write, ["/src/app", "/d"]);
  assertEquals(p.run, ["/src/app/gradlew", "/jdk/bin/java"]);
  assertEquals(p.env, ["KEYNOBI_LOG", "JAVA_HOME"]);
});

Deno.test("worker permission functions refuse relative paths and bad hosts", () => {
  let refused = 0;
  const attempts = [
    () => logcatWorkerPermissions({ dataDir: "relative/dir" }),
    () => logcatWorkerPermissions({ dataDir: "/d", adbServer: "127.0.0.1" }),
    () => uiWorkerPermissions({ dataDir: "/d", emulatorGrpc: ["host:99999"] }),
    () => buildWorkerPermissions({ dataDir: "/d" }),
    () => logcatWorkerPermissions({ dataDir: "/d", env: ["A=B"] }),
  ];
  for (const attempt of attempts) {
    try {
      attempt();
    } catch (e) {
      assert(e instanceof TypeError, String(e));
      refused++;
    }
  }
  assertEquals(refused, attempts.length);
  assertEquals(netGrant("localhost:5037"), "localhost:5037");
});

Deno.test("missingGrants() names what the main thread lacks", () => {
  const p = buildWorkerPermissions({ dataDir: "/d", projectRoot: "/p", gradlew: "/p/gradlew" });
  const missing = missingGrants(
    p,
    (d) => d.name === "run" || ("path" in d && d.path === "/p") ? "prompt" : "granted",
  );
  assertEquals(missing, ["read access to /p", "write access to /p", "run access to /p/gradlew"]);
});

Deno.test("startWorker() refuses up front when the main thread lacks a grant", () => {
  try {
    startWorker(PROBE_WORKER, { read: ["/nowhere"] }, "probe", { query: () => "denied" });
    throw new Error("startWorker() did not refuse");
  } catch (e) {
    assert(e instanceof ToolError, String(e));
    assertEquals(e.code, "internal_error");
    assert(e.message.includes("read access to /nowhere"), e.message);
    assert(e.message.includes("--allow-*"), e.message);
  }
});

/** A temp layout: `inside/` is granted to the worker as its data dir, `outside/` is not. */
async function layout() {
  const root = await Deno.makeTempDir({ prefix: "keynobi-perm-" });
  const inside = join(root, "inside");
  const outside = join(root, "outside");
  await Deno.mkdir(inside);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(inside, "ok.txt"), "granted content");
  await Deno.writeTextFile(join(outside, "secret.txt"), "must not be read");
  return {
    inside,
    outside,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

function withProbe(
  permissions: Deno.PermissionOptionsObject,
): RpcChannel<ProbeMethods> & Disposable {
  const client = startWorker<ProbeMethods>(PROBE_WORKER, permissions, "probe");
  return Object.assign(client, { [Symbol.dispose]: () => client.close() });
}

Deno.test("startWorker() worker reads inside its grant and is refused outside it", async () => {
  await using dirs = await layout();
  using probe = withProbe(logcatWorkerPermissions({ dataDir: dirs.inside }));
  assertEquals(
    await probe.request("readText", { path: join(dirs.inside, "ok.txt") }),
    "granted content",
  );
  const e = await assertRejects(
    () => probe.request("readText", { path: join(dirs.outside, "secret.txt") }),
    ToolError,
  );
  assertEquals(e.code, "internal_error");
  assertEquals(e.data, { error: "NotCapable" });
  assert(e.message.includes("probe worker is not allowed"), e.message);
  assert(e.message.includes("read access"), e.message);
  assert(e.message.includes(join(dirs.outside, "secret.txt")), e.message);
});

Deno.test("startWorker() worker connects only to the hosts it was granted", async () => {
  await using dirs = await layout();
  using granted = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  using other = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = (async () => {
    using conn = await granted.accept();
    return conn.remoteAddr.transport;
  })();
  using probe = withProbe(logcatWorkerPermissions({
    dataDir: dirs.inside,
    adbServer: `127.0.0.1:${granted.addr.port}`,
  }));
  assertEquals(
    await probe.request("connect", { hostname: "127.0.0.1", port: granted.addr.port }),
    true,
  );
  assertEquals(await accepted, "tcp");
  const e = await assertRejects(
    () => probe.request("connect", { hostname: "127.0.0.1", port: other.addr.port }),
    ToolError,
  );
  assertEquals(e.code, "internal_error");
  assert(e.message.includes("net access"), e.message);
  assert(e.message.includes(`127.0.0.1:${other.addr.port}`), e.message);
});

Deno.test("startWorker() carries progress and cancel across a real worker", async () => {
  await using dirs = await layout();
  using probe = withProbe(uiWorkerPermissions({ dataDir: dirs.inside }));
  const seen: Progress[] = [];
  assertEquals(
    await probe.request("countdown", { steps: 3 }, { onProgress: (p) => seen.push(p) }),
    3,
  );
  assertEquals(seen.map((p) => [p.progress, p.total, p.message]), [
    [1, 3, "step 1 of 3"],
    [2, 3, "step 2 of 3"],
    [3, 3, "step 3 of 3"],
  ]);

  const controller = new AbortController();
  const hanging = probe.request("hang", null, { signal: controller.signal });
  await pollUntil(() => probe.request("hangingCount", null), (n) => n > 0, "the worker to hang");
  controller.abort();
  assertEquals((await assertRejects(() => hanging, ToolError)).code, "cancelled");
  const count = await pollUntil(
    () => probe.request("cancelledCount", null),
    (n) => n !== 0,
    "the worker to see the cancel",
  );
  assertEquals(count, 1);
});

Deno.test("startWorker() rejects pending requests when the worker dies", async () => {
  await using dirs = await layout();
  using probe = withProbe(uiWorkerPermissions({ dataDir: dirs.inside }));
  const hanging = probe.request("hang", null);
  await probe.request("crashLater", null);
  const e = await assertRejects(() => hanging, ToolError);
  assertEquals(e.code, "internal_error");
  assert(e.message.includes("probe worker stopped unexpectedly"), e.message);
  assert(e.message.includes("crashed on purpose"), e.message);
  assert(probe.closed);
  const later = await assertRejects(() => probe.request("cancelledCount", null), ToolError);
  assertEquals(later, e);
});
