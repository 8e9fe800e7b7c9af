/**
 * `keynobi --mcp --http`: the core scenarios over streamable HTTP through the SDK's Client (the
 * same as over stdio: initialize, tools/list, a device call, a refusal, progress, cancellation),
 * sessions (separate, DELETE), and hostile requests, each refused clearly while serving goes on.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../assert.ts";
import { TOOLS } from "../../lib/tools/registry.ts";
import { VERSION } from "../../lib/version.ts";
import {
  assertNoInjection,
  call,
  connectHttp,
  E2E_WAIT,
  initializeRequest,
  runKeynobi,
  type Session,
  startHttpServer,
  startWorld,
  trusted,
} from "./harness.ts";
import { waitUntil } from "../wait.ts";

const PROJECT = "sample-kts";
const INIT = initializeRequest("raw-http", "0");
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/**
 * POST one raw body to a server (with its bearer token unless `headers` says otherwise); the
 * JSON-RPC body of the answer (JSON or the first SSE data line).
 */
async function post(
  server: { url: string; auth: Record<string, string> },
  body: BodyInit,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> | null }> {
  const res = await fetch(server.url, {
    method: "POST",
    body,
    headers: { ...HEADERS, ...server.auth, ...headers },
  });
  const text = await res.text();
  const data = res.headers.get("content-type")?.startsWith("text/event-stream")
    ? text.split("\n").find((l) => l.startsWith("data: "))?.slice(6)
    : text;
  return { status: res.status, headers: res.headers, body: data ? JSON.parse(data) : null };
}

Deno.test("http: initialize, tools/list, a device call and a refusal through the SDK client", async () => {
  await using world = await startWorld();
  await using server = await startHttpServer(world, ["--project", world.sim.projects[PROJECT]]);
  assertMatch(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  await using s = await connectHttp(server);
  const info = s.client.getServerVersion();
  assertEquals(info?.name, "keynobi");
  assertEquals(info?.version, VERSION);
  const text = s.client.getInstructions() ?? "";
  assertMatch(text, /^Keynobi MCP server, standalone/);
  const { tools } = await s.client.listTools();
  assertEquals(tools.map((t: { name: string }) => t.name), TOOLS.map((t) => t.name));
  const r = await call(s, "list_devices");
  assert(!r.isError, r.content[0].text);
  assertEquals(r.structuredContent!.count, world.sim.devices.length);
  const refused = await call(s, "get_device_info", { device_serail: "emulator-5554" });
  assertEquals(refused.isError, true);
  assertEquals(
    (refused.structuredContent!.error as Record<string, unknown>).code,
    "invalid_params",
  );
  await assertNoInjection(world.sim);
});

Deno.test("http: progress and cancellation of a build, as over stdio", async () => {
  await using world = await startWorld();
  const project = await trusted(world);
  const g = world.sim.gradle(PROJECT);
  await g.setTaskDelay(100);
  await using server = await startHttpServer(world, ["--project", project]);
  await using s = await connectHttp(server);
  const progress: { progress: number; message?: string }[] = [];
  const r = await s.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    {
      onprogress: (p: { progress: number; message?: string }) => void progress.push(p),
      timeout: 60_000,
    },
  ) as { isError?: boolean; content: { text: string }[] };
  assert(!r.isError, r.content[0].text);
  assertMatch(r.content[0].text, /^BUILD SUCCESSFUL/);
  assert(progress.length >= 1, "at least one progress notification");
  assertMatch(progress[0].message ?? "", /s elapsed/);

  await g.hangAt("compileDemoDebugKotlin");
  const abort = new AbortController();
  const pending = s.client.callTool(
    { name: "run_gradle_task", arguments: { task: "assembleDemoDebug" } },
    undefined,
    { signal: abort.signal, timeout: 60_000 },
  ).catch((e: unknown) => e);
  const status = async () => (await call(s, "get_build_status")).structuredContent!;
  await waitUntil(
    async () => {
      const st = await status();
      // Recorded but not yet spawned, the status reads running with `running: null` (starting).
      return st.status === "running" &&
        (st.running as { current_task: string | null } | null)?.current_task != null;
    },
    "the build to run",
    E2E_WAIT,
  );
  abort.abort();
  await pending;
  await waitUntil(
    async () => (await status()).status === "cancelled",
    "the cancel to be recorded",
    E2E_WAIT,
  );
  assertEquals(((await status()).cancelled_by as Record<string, unknown>).kind, "agent");
});

Deno.test("http: each session is its own; DELETE ends one and the other goes on", async () => {
  await using world = await startWorld();
  await using server = await startHttpServer(world, []);
  const a = await connectHttp(server);
  await using b = await connectHttp(server);
  const idOf = (s: Session) => (s.client.transport as unknown as { sessionId?: string }).sessionId;
  assert(idOf(a) && idOf(b) && idOf(a) !== idOf(b), "two session ids");
  const aId = idOf(a)!;
  await a[Symbol.asyncDispose](); // DELETE
  const after = await post(server, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }), {
    "mcp-session-id": aId,
  });
  assertEquals(after.status, 404);
  assertStringIncludes(
    (after.body!.error as { message: string }).message,
    "send initialize again",
  );
  assertEquals(await b.client.ping(), {});
});

Deno.test("http: hostile requests get clear errors and the server keeps serving", async () => {
  await using world = await startWorld();
  await using server = await startHttpServer(world, []);
  const url = server.url;
  const init = await post(server, JSON.stringify(INIT));
  assertEquals(init.status, 200);
  const sid = init.headers.get("mcp-session-id")!;
  assert(sid, "a session id");
  const inSession = { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
  const ping = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
  const errorOf = (r: { body: Record<string, unknown> | null }) =>
    r.body!.error as { code: number; message: string };

  const wrongSession = await post(server, ping(2), { ...inSession, "mcp-session-id": "nope" });
  assertEquals(wrongSession.status, 404);
  assertStringIncludes(errorOf(wrongSession).message, "not an open session");

  const foreign = await post(server, ping(3), { ...inSession, origin: "http://evil.example" });
  assertEquals(foreign.status, 403);
  assertStringIncludes(errorOf(foreign).message, "Origin");

  // A DNS-rebound page reaches the loopback port with its own Host (fetch cannot forge Host).
  const { port } = new URL(url);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const body = ping(4);
  await conn.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: evil.example:${port}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\nmcp-session-id: ${sid}\r\n` +
      `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  ));
  const raw = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  assertMatch(raw, /^HTTP\/1\.1 403/);
  assertStringIncludes(raw, "Host");

  const big = new Uint8Array(20 * 1024 * 1024).fill(0x20);
  const huge = await post(server, big, inSession);
  assertEquals(huge.status, 413);
  assertEquals(errorOf(huge).code, -32700);

  const utf8 = await post(server, new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), inSession);
  assertEquals(utf8.status, 400);
  assertStringIncludes(errorOf(utf8).message, "UTF-8");

  const json = await post(server, "this is not json", inSession);
  assertEquals([json.status, errorOf(json).code], [400, -32700]);

  const batch = await post(server, `[${ping(5)},${ping(6)}]`, inSession);
  assertEquals([batch.status, errorOf(batch).code], [400, -32600]);
  assertStringIncludes(errorOf(batch).message, "batches");

  const bigId = await post(server, ping(0).replace(":0", ":9007199254740993"), inSession);
  assertEquals([bigId.status, errorOf(bigId).code], [400, -32600]);

  const version = await post(server, ping(7), {
    ...inSession,
    "mcp-protocol-version": "1999-01-01",
  });
  assertEquals(version.status, 400);
  assertStringIncludes(JSON.stringify(version.body), "Unsupported protocol version");

  const noSession = await post(server, ping(8));
  assertEquals(noSession.status, 400);
  assertStringIncludes(errorOf(noSession).message, "Mcp-Session-Id");

  const other = await fetch(url.replace(/\/mcp$/, "/other"), {
    method: "POST",
    body: ping(9),
    headers: server.auth,
  });
  assertEquals(other.status, 404);
  await other.body?.cancel();

  // Still serving, in the same session.
  const ok = await post(server, ping(10), inSession);
  assertEquals(ok.status, 200);
  assertEquals(ok.body!.result, {});
});

Deno.test("http: off loopback a token is required, and every request must carry it", async () => {
  await using world = await startWorld();
  const none = await runKeynobi(world, ["--mcp", "--http", "0.0.0.0:0"]);
  assertEquals(none.code, 2);
  assertStringIncludes(none.stderr, "KEYNOBI_HTTP_TOKEN");
  assertEquals(none.stdout, "");
  const short = await runKeynobi({ ...world, env: { ...world.env, KEYNOBI_HTTP_TOKEN: "short" } }, [
    "--mcp",
    "--http",
    "0.0.0.0:0",
  ]);
  assertEquals(short.code, 2);
  assertStringIncludes(short.stderr, "16");

  const token = "s3cret-token-for-the-lab-0123456789";
  await using server = await startHttpServer(world, [], {
    bind: "0.0.0.0:0",
    env: { KEYNOBI_HTTP_TOKEN: token },
  });
  const lab = { url: server.url.replace("0.0.0.0", "127.0.0.1"), auth: {} };
  const missing = await post(lab, JSON.stringify(INIT));
  assertEquals(missing.status, 401);
  assertEquals(missing.headers.get("www-authenticate"), 'Bearer realm="keynobi"');
  const wrong = await post(lab, JSON.stringify(INIT), { authorization: `Bearer ${token}x` });
  assertEquals(wrong.status, 401);
  const right = await post(lab, JSON.stringify(INIT), { authorization: `Bearer ${token}` });
  assertEquals(right.status, 200);
  assertEquals((right.body!.result as { serverInfo: { name: string } }).serverInfo.name, "keynobi");
});

Deno.test("http: SIGTERM stops the server with exit 0 and nothing on stdout", async () => {
  await using world = await startWorld();
  const server = await startHttpServer(world, []);
  await using s = await connectHttp(server);
  assertEquals(await s.client.ping(), {});
  const status = await server.stop();
  assertEquals(status.code, 0, server.stderr());
  await server[Symbol.asyncDispose]();
  const log = await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`);
  assertStringIncludes(log, "Server stopped by a signal");
});

Deno.test("http: clients that never end their sessions do not lock a new one out", async () => {
  await using world = await startWorld();
  await using server = await startHttpServer(world, []);
  // What a conformance run or an inspector's CLI leaves behind: sessions that are never ended,
  // here as many bare initialize POSTs as the bound (MAX_HTTP_SESSIONS), never followed up.
  for (let i = 0; i < 32; i++) {
    assertEquals((await post(server, JSON.stringify(INIT))).status, 200);
  }
  await new Promise((r) => setTimeout(r, 1_100)); // HTTP_HANDSHAKE_GRACE_MS
  await using s = await connectHttp(server);
  const r = await call(s, "list_devices");
  assert(!r.isError, r.content[0].text);
  await using t = await connectHttp(server);
  assertEquals(await t.client.ping(), {});
});

Deno.test("http: keynobi status shows the URL an --http server listens on (port 0 included)", async () => {
  await using world = await startWorld();
  await using server = await startHttpServer(world, []);
  await waitUntil(
    async () => {
      const st = JSON.parse((await runKeynobi(world, ["status", "--json"])).stdout);
      return st.standalone.some((r: { http_url?: string }) => r.http_url === server.url);
    },
    "the session record to carry the URL",
    E2E_WAIT,
  );
  const text = await runKeynobi(world, ["status"]);
  assertEquals(text.code, 0, text.stderr);
  assertStringIncludes(text.stdout, `serving MCP over streamable HTTP at ${server.url}`);
});

Deno.test("http: loopback requires the install's token, which keynobi setup --http prints; --http-no-token opts out", async () => {
  await using world = await startWorld();
  await using server = await startHttpServer(world, []);
  const path = `${world.dataDir}/http-token`;
  const info = await Deno.lstat(path);
  assertEquals(info.mode! & 0o777, 0o600, "the token file is 0600");
  const token = (await Deno.readTextFile(path)).trim();
  assertMatch(token, /^[0-9a-f]{64}$/);
  // Another local user reaches the port, not the file: without the token nothing is served.
  const bare = { url: server.url, auth: {} };
  const missing = await post(bare, JSON.stringify(INIT));
  assertEquals(missing.status, 401);
  assertStringIncludes(
    (missing.body!.error as { message: string }).message,
    "keynobi setup --http",
  );
  const wrong = await post(bare, JSON.stringify(INIT), {
    authorization: `Bearer ${"0".repeat(64)}`,
  });
  assertEquals(wrong.status, 401);
  await using s = await connectHttp(server);
  assert(!(await call(s, "list_devices")).isError);

  // The registration lines carry it: claude's header, codex's environment variable.
  const port = new URL(server.url).port;
  const setup = await runKeynobi(world, ["setup", "--http", port]);
  assertEquals(setup.code, 0, setup.stderr);
  const lines = setup.stdout.trim().split("\n");
  assert(
    lines.includes(
      `claude mcp add --scope user --transport http keynobi ${server.url} --header ` +
        `"Authorization: Bearer ${token}"`,
    ),
    setup.stdout,
  );
  assert(lines.includes(`export KEYNOBI_HTTP_TOKEN=${token}`), setup.stdout);
  assert(
    lines.includes(
      `codex mcp add keynobi --url ${server.url} --bearer-token-env-var KEYNOBI_HTTP_TOKEN`,
    ),
    setup.stdout,
  );
  assertEquals((await Deno.readTextFile(path)).trim(), token, "the same token every time");

  // Opting out, by flag or environment, on loopback only.
  await using open = await startHttpServer(world, ["--http-no-token"]);
  assertEquals((await post({ url: open.url, auth: {} }, JSON.stringify(INIT))).status, 200);
  await using openEnv = await startHttpServer(world, [], { env: { KEYNOBI_HTTP_NO_TOKEN: "1" } });
  assertEquals((await post({ url: openEnv.url, auth: {} }, JSON.stringify(INIT))).status, 200);
  const far = await runKeynobi(world, ["--mcp", "--http", "0.0.0.0:0", "--http-no-token"]);
  assertEquals(far.code, 2);
  assertStringIncludes(far.stderr, "loopback only");
  const bad = await runKeynobi({ ...world, env: { ...world.env, KEYNOBI_HTTP_NO_TOKEN: "yes" } }, [
    "--mcp",
    "--http",
    "127.0.0.1:0",
  ]);
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, "KEYNOBI_HTTP_NO_TOKEN takes 1");
  const setupOpen = await runKeynobi(world, ["setup", "--http", port, "--http-no-token"]);
  assertStringIncludes(setupOpen.stdout, `--http 127.0.0.1:${port} --http-no-token`);
  assert(!setupOpen.stdout.includes(token), "no token in the opted-out lines");
});
