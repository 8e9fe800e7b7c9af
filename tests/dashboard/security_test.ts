/**
 * Who may use the dashboard, over the real wire: `keynobi app` as a user runs it, plain HTTP
 * requests as a browser (or a hostile page) would send them, and MCP agents attached to the same
 * app.
 */
import { assert, assertEquals, assertStringIncludes } from "../assert.ts";
import { runKeynobi, startApp, startWorld, type World } from "../e2e/harness.ts";
import { agent, dashboardUrl, login } from "./_app.ts";
import { startDashboard } from "../../lib/dashboard/server.ts";

const PROJECT = "sample-kts";

async function settingsText(world: World): Promise<string> {
  return await Deno.readTextFile(`${world.dataDir}/settings.json`).catch(() => "");
}

interface Sent {
  status: number;
  body: string;
  headers: Headers;
}

/** One raw HTTP/1.1 request (so Host and Origin are exactly what a test says). */
async function raw(port: number, lines: string[], body = ""): Promise<Sent> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = [
    ...lines,
    `content-length: ${new TextEncoder().encode(body).length}`,
    "connection: close",
    "",
    "",
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(head + body));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  try {
    conn.close();
  } catch { /* closed */ }
  const text = new TextDecoder().decode(
    chunks.reduce((a, c) => {
      const out = new Uint8Array(a.length + c.length);
      out.set(a);
      out.set(c, a.length);
      return out;
    }, new Uint8Array()),
  );
  const [headText, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...headerLines] = headText.split("\r\n");
  const headers = new Headers();
  for (const l of headerLines) {
    const i = l.indexOf(":");
    if (i > 0) headers.append(l.slice(0, i).trim(), l.slice(i + 1).trim());
  }
  return { status: Number(statusLine.split(" ")[1]), body: rest.join("\r\n\r\n"), headers };
}

Deno.test("dashboard: no secret → 401 and nothing else; a wrong secret or cookie is the same", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const port = Number(url.port);
  const host = `host: 127.0.0.1:${port}`;
  for (
    const [method, path] of [
      ["GET", "/"],
      ["GET", "/app.js"],
      ["GET", "/dom.js"],
      ["GET", "/app.css"],
      ["GET", "/api/state"],
      ["GET", "/api/events"],
      ["GET", "/api/builds/1/log"],
      ["GET", "/nothing-here"],
      ["POST", "/api/actions/prepare"],
      ["POST", "/api/actions/run"],
    ]
  ) {
    const r = await raw(port, [`${method} ${path} HTTP/1.1`, host, `origin: ${url.origin}`]);
    assertEquals(r.status, 401, `${method} ${path}`);
    assertEquals(r.body, "Unauthorized", `${method} ${path}: nothing else`);
    assertEquals(r.headers.get("set-cookie"), null);
  }
  const wrongLogin = await raw(port, [`GET /?k=${"0".repeat(64)} HTTP/1.1`, host]);
  assertEquals(wrongLogin.status, 401);
  assertEquals(wrongLogin.headers.get("set-cookie"), null);
  const wrongCookie = await raw(port, [
    "GET /api/state HTTP/1.1",
    host,
    `cookie: keynobi_dashboard=${"1".repeat(64)}`,
  ]);
  assertEquals(wrongCookie.status, 401);

  // The printed URL: one visit sets an HttpOnly, SameSite=Strict cookie and drops the secret.
  const first = await raw(port, [`GET ${url.pathname}${url.search} HTTP/1.1`, host]);
  assertEquals(first.status, 303);
  assertEquals(first.headers.get("location"), "/");
  const cookie = first.headers.get("set-cookie")!;
  assertStringIncludes(cookie, "HttpOnly");
  assertStringIncludes(cookie, "SameSite=Strict");
  assert(!cookie.includes(url.searchParams.get("k")!), "the cookie is not the printed secret");
  const page = await raw(port, ["GET / HTTP/1.1", host, `cookie: ${cookie.split(";")[0]}`]);
  assertEquals(page.status, 200);
  assertStringIncludes(page.body, "<title>Keynobi</title>");
  assertStringIncludes(page.headers.get("content-security-policy")!, "default-src 'none'");
  // Nothing the page loads comes from elsewhere.
  assert(!/(src|href)="(https?:)?\/\//.test(page.body), "no external asset");
  // The secret-bearing URL is the printed one only: the cookie cannot be used as a login.
  const asLogin = await raw(port, [`GET /?k=${cookie.split(";")[0].split("=")[1]} HTTP/1.1`, host]);
  assertEquals(asLogin.status, 401);
});

Deno.test("dashboard: a Host of another name is refused, even with the cookie (DNS rebinding)", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const port = Number(url.port);
  const cookie = `cookie: ${await login(url)}`;
  for (
    const host of [
      `evil.example:${port}`,
      `localhost:${port}`,
      `127.0.0.1:${port + 1}`,
      "127.0.0.1",
    ]
  ) {
    const r = await raw(port, ["GET /api/state HTTP/1.1", `host: ${host}`, cookie]);
    assertEquals(r.status, 421, host);
    assert(!r.body.includes("attached"), "no state in the refusal");
  }
  const noHost = await raw(port, ["GET /api/state HTTP/1.0", cookie]);
  assert(noHost.status === 421 || noHost.status === 400, String(noHost.status));
  const ok = await raw(port, ["GET /api/state HTTP/1.1", `host: 127.0.0.1:${port}`, cookie]);
  assertEquals(ok.status, 200);
});

Deno.test("dashboard: a foreign or missing Origin on a state change is 403 and changes nothing; trust needs the secret and a confirmation", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const port = Number(url.port);
  const host = `host: 127.0.0.1:${port}`;
  const cookie = `cookie: ${await login(url)}`;
  const project = await Deno.realPath(world.sim.projects[PROJECT]);
  const before = await settingsText(world);
  const body = JSON.stringify({ action: "trust_project", path: project });
  const post = (path: string, origin: string | null, b = body) =>
    raw(port, [
      `POST ${path} HTTP/1.1`,
      host,
      cookie,
      "content-type: application/json",
      ...(origin ? [`origin: ${origin}`] : []),
    ], b);

  for (const origin of ["http://evil.example", `http://localhost:${port}`, "null", null]) {
    const r = await post("/api/actions/prepare", origin);
    assertEquals(r.status, 403, String(origin));
  }
  // Prepared from the page: a token, and still nothing changed.
  const prepared = await post("/api/actions/prepare", url.origin);
  assertEquals(prepared.status, 200, prepared.body);
  const { token, title } = JSON.parse(prepared.body);
  assertEquals(title, `Trust ${project}?`);
  assertEquals(await settingsText(world), before, "preparing changes nothing");
  // The confirmation from another origin: refused, nothing changed, the token still unused.
  const foreign = await post("/api/actions/run", "http://evil.example", JSON.stringify({ token }));
  assertEquals(foreign.status, 403);
  const guessed = await post(
    "/api/actions/run",
    url.origin,
    JSON.stringify({ token: "f".repeat(32) }),
  );
  assertEquals(guessed.status, 400);
  assertEquals(await settingsText(world), before, "no confirmation, no change");
  // Without the cookie, even the page's origin and the right token are refused.
  const noCookie = await raw(port, [
    "POST /api/actions/run HTTP/1.1",
    host,
    `origin: ${url.origin}`,
    "content-type: application/json",
  ], JSON.stringify({ token }));
  assertEquals(noCookie.status, 401);
  assertEquals(await settingsText(world), before);

  const done = await post("/api/actions/run", url.origin, JSON.stringify({ token }));
  assertEquals(done.status, 200, done.body);
  assertEquals(JSON.parse(done.body), { ok: true, message: `Trusted: ${project}` });
  // The same settings the CLI writes: `keynobi projects` lists it.
  const listed = await runKeynobi(world, ["projects"]);
  assertStringIncludes(listed.stdout, project);
  const again = await post("/api/actions/run", url.origin, JSON.stringify({ token }));
  assertEquals(again.status, 400, "a confirmation is used once");
  const entries = (await Deno.readTextFile(`${world.dataDir}/mcp-activity.jsonl`)).trim()
    .split("\n").map((l) => JSON.parse(l)).filter((e) => e.kind === "user");
  assertEquals(entries.map((e) => [e.name, e.status]), [["trust_project", "ok"]]);

  // Bad input: a clear message and nothing changes.
  const bad = await post(
    "/api/actions/prepare",
    url.origin,
    JSON.stringify({
      action: "trust_project",
      path: "relative/path",
    }),
  );
  assertEquals(bad.status, 400);
  assertStringIncludes(JSON.parse(bad.body).error, "must be absolute");
  const unknown = await post("/api/actions/prepare", url.origin, JSON.stringify({ action: "rm" }));
  assertEquals(unknown.status, 400);
  assertStringIncludes(JSON.parse(unknown.body).error, "Unknown action");
});

Deno.test("dashboard: no MCP call reaches it or grants trust; the MCP server never serves it", async () => {
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  await using a = await agent(world, "curious-agent");
  const tools = (await a.client.listTools()).tools;
  assert(tools.length > 10);
  assert(
    !tools.some((t: { name: string }) => /trust|dashboard/i.test(t.name)),
    "no tool grants trust",
  );
  const seen = JSON.stringify({
    tools,
    instructions: a.client.getInstructions(),
    resources: await a.client.listResources(),
    info: await a.client.callTool({ name: "get_project_info", arguments: {} }),
  });
  assert(!seen.includes(url.port), "the dashboard's port is not in anything an agent sees");
  assert(!seen.includes(url.searchParams.get("k")!), "nor its secret");
  // A standalone MCP server prints no dashboard and serves none.
  const stand = await runKeynobi(world, ["--mcp", "--attach-only"], { stdin: "" });
  assert(!stand.stderr.includes("dashboard"), stand.stderr);
});

Deno.test("dashboard: it never listens on a non-loopback address", async () => {
  const host = {} as Parameters<typeof startDashboard>[0];
  for (const hostname of ["0.0.0.0", "::", "192.168.1.10", "localhost", "::1"]) {
    let refused = "";
    try {
      const d = startDashboard(host, { hostname });
      await d.close();
    } catch (e) {
      refused = (e as Error).message;
    }
    assertStringIncludes(refused, "listens on 127.0.0.1 only", hostname);
  }
  // The running app's port answers on loopback only: not on this machine's other addresses.
  await using world = await startWorld();
  await using app = await startApp(world);
  const url = await dashboardUrl(app);
  const others = Deno.networkInterfaces().filter((i) =>
    i.family === "IPv4" && !i.address.startsWith("127.")
  );
  for (const i of others) {
    let connected = false;
    try {
      const c = await Deno.connect({ hostname: i.address, port: Number(url.port) });
      connected = true;
      c.close();
    } catch { /* refused: as it should be */ }
    assertEquals(connected, false, `reachable on ${i.address}`);
  }
});

Deno.test("keynobi app --ui-port: a port in use is a clear error (exit 1, socket released); --no-ui serves none", async () => {
  await using world = await startWorld();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const busy = await runKeynobi(world, ["app", "--ui-port", String(port)]);
  taken.close();
  assertEquals(busy.code, 1, busy.stderr);
  assertStringIncludes(busy.stderr, `cannot start the dashboard on 127.0.0.1:${port}`);
  assertStringIncludes(busy.stderr, "choose another --ui-port, or --no-ui");
  let socketLeft = true;
  try {
    await Deno.lstat(`${world.dataDir}/mcp.sock`);
  } catch {
    socketLeft = false;
  }
  assertEquals(socketLeft, false, "the socket is released");
  await using app = await startApp(world, ["--no-ui"]);
  const status = await runKeynobi(world, ["status"]);
  assertStringIncludes(status.stdout, "dashboard: off (--no-ui)");
  assert(!app.stderr().includes("dashboard:"), app.stderr());
});
