/**
 * serveHttp in process: the session bound and idle expiry (small bounds), with real HTTP on
 * loopback and sessions from createMcpSession.
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { serveHttp } from "../../lib/mcp/http_server.ts";
import { createMcpSession } from "../../lib/mcp/session.ts";
import { waitUntil } from "../wait.ts";

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  },
});

function start(o: { maxSessions?: number; idleMs?: number; evictIdleMs?: number }) {
  return serveHttp({
    address: { hostname: "127.0.0.1", port: 0 },
    token: null,
    newSession: (sessionId) =>
      createMcpSession({
        sessionId,
        version: "1",
        title: "t",
        instructions: "t",
        tools: [],
        enabledToolsets: ["core"],
        hasProject: false,
        makeContext: () => ({}),
        resources: {
          list: () => Promise.resolve([]),
          read: () => Promise.reject(new Error("none")),
        },
        prompts: [],
      }),
    ...o,
  });
}

async function initialize(url: string) {
  const res = await fetch(url, { method: "POST", body: INIT, headers: HEADERS });
  await res.body?.cancel();
  return { status: res.status, sid: res.headers.get("mcp-session-id"), res };
}

async function ping(url: string, sid: string) {
  const res = await fetch(url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
    headers: { ...HEADERS, "mcp-session-id": sid },
  });
  const text = await res.text();
  return { status: res.status, text };
}

Deno.test("serveHttp() refuses a session over the bound with 503 and serves the open ones", async () => {
  const server = start({ maxSessions: 2 });
  try {
    const url = await server.ready;
    const a = await initialize(url);
    const b = await initialize(url);
    assertEquals([a.status, b.status], [200, 200]);
    await initialized(url, a.sid!);
    await initialized(url, b.sid!);
    const res = await fetch(url, { method: "POST", body: INIT, headers: HEADERS });
    assertEquals(res.status, 503);
    const body = await res.json();
    assertEquals(body.error.code, -32050);
    assertStringIncludes(body.error.message, "MAX_HTTP_SESSIONS");
    assertEquals(server.sessionCount(), 2);
    assertEquals((await ping(url, a.sid!)).status, 200);
    // DELETE frees a place.
    const del = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": b.sid! } });
    await del.body?.cancel();
    assertEquals(del.status, 200);
    assertEquals((await initialize(url)).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("serveHttp() ends a session idle past its bound; its id is then unknown (404)", async () => {
  const server = start({ idleMs: 40 });
  try {
    const url = await server.ready;
    const a = await initialize(url);
    assertEquals(a.status, 200);
    await waitUntil(() => server.sessionCount() === 0, "the idle session to expire");
    const after = await ping(url, a.sid!);
    assertEquals(after.status, 404);
    assertStringIncludes(after.text, "expired after being idle");
  } finally {
    await server.close();
  }
});

async function initialized(url: string, sid: string) {
  const res = await fetch(url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    headers: { ...HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" },
  });
  await res.body?.cancel();
  assertEquals(res.status, 202);
}

Deno.test("serveHttp() when full gives the least recently used idle session's place to a new one", async () => {
  const server = start({ maxSessions: 2, evictIdleMs: 50 });
  try {
    const url = await server.ready;
    const a = await initialize(url);
    const b = await initialize(url);
    await initialized(url, a.sid!);
    await initialized(url, b.sid!);
    assertEquals((await ping(url, a.sid!)).status, 200); // b is now the least recently used
    await new Promise((r) => setTimeout(r, 80));
    const c = await initialize(url);
    assertEquals(c.status, 200);
    assertEquals(server.sessionCount(), 2);
    const gone = await ping(url, b.sid!);
    assertEquals(gone.status, 404);
    assertStringIncludes(gone.text, "given its place to a new session");
    assertEquals((await ping(url, a.sid!)).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("serveHttp() when full of sessions in use answers 503 with the honest Retry-After", async () => {
  const server = start({ maxSessions: 1, evictIdleMs: 45_000 });
  try {
    const url = await server.ready;
    const a = await initialize(url);
    await initialized(url, a.sid!);
    const res = await fetch(url, { method: "POST", body: INIT, headers: HEADERS });
    assertEquals(res.status, 503);
    const retry = Number(res.headers.get("retry-after"));
    // The only session was used just now: it may give its place in 45 s, not before.
    assertEquals(retry >= 44 && retry <= 45, true, `Retry-After: ${retry}`);
    assertStringIncludes((await res.json()).error.message, `retry in ${retry} s`);
    assertEquals((await ping(url, a.sid!)).status, 200);
  } finally {
    await server.close();
  }
});
