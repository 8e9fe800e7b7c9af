/** The attach handshake's parsing and rules, and the bounded line read. */
import { assertEquals, assertMatch, assertThrows } from "../assert.ts";
import {
  decideAttach,
  HandshakeError,
  MAX_ATTACHED_SESSIONS,
  parseQuery,
  readHandshakeLine,
} from "../../lib/attach/handshake.ts";
import { parseArgs, UsageError } from "../../lib/cli/args.ts";

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ attach: 1, version: "0.1.0", project: null, pid: 7, selected_by: null, ...o });

Deno.test("parseQuery() accepts the spec's request and refuses what breaks its rules", () => {
  const q = parseQuery(line({ project: "/a/b", selected_by: "argument", toolsets: ["core"] }));
  assertEquals(q, {
    kind: "attach",
    request: {
      attach: 1,
      version: "0.1.0",
      project: "/a/b",
      pid: 7,
      selected_by: "argument",
      toolsets: ["core"],
    },
  });
  assertEquals(parseQuery('{"status":1}'), { kind: "status" });
  for (
    const [bad, re] of [
      ["nope", /not valid JSON/],
      ["[1]", /one JSON object/],
      [line({ attach: 2 }), /unknown attach version 2/],
      [line({ project: "/a/../b" }), /"\.\."/],
      [line({ project: "rel" }), /absolute/],
      [line({ project: "/a\u0000b" }), /NUL/],
      [line({ pid: -1 }), /pid/],
      [line({ toolsets: ["nope"] }), /unknown toolset/],
      [line({ version: "x".repeat(65) }), /version/],
    ] as const
  ) {
    const e = assertThrows(() => parseQuery(bad), HandshakeError);
    assertMatch(e.message, re);
  }
});

Deno.test("decideAttach(): null follows the app; a project must be the app's, canonical; at most MAX_ATTACHED_SESSIONS", () => {
  const req = (project: string | null) => ({
    attach: 1,
    version: "0.1.0",
    project,
    pid: 1,
    selected_by: null,
  });
  const app = { version: "0.1.0", project: "/p", attached: 0, canonical: "/p" };
  assertEquals(decideAttach(req(null), { ...app, canonical: null }).accepted, true);
  assertEquals(decideAttach(req("/p"), app).accepted, true);
  const other = decideAttach(req("/q"), { ...app, canonical: "/q" });
  assertEquals(other.accepted, false);
  assertMatch((other as { reason: string }).reason, /has \/p open, not \/q/);
  const link = decideAttach(req("/link"), { ...app, canonical: "/p" });
  assertMatch((link as { reason: string }).reason, /not canonical/);
  const none = decideAttach(req("/p"), { ...app, project: null });
  assertMatch((none as { reason: string }).reason, /no project open/);
  const full = decideAttach(req(null), { ...app, attached: MAX_ATTACHED_SESSIONS });
  assertMatch((full as { reason: string }).reason, /MAX_ATTACHED_SESSIONS/);
});

Deno.test("readHandshakeLine() is bounded in bytes and time and keeps what follows", async () => {
  const stream = (chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
      },
    }).getReader();
  const r = await readHandshakeLine(stream(['{"a":', '1}\n{"next"']));
  assertEquals(r.line, '{"a":1}');
  assertEquals(new TextDecoder().decode(r.rest), '{"next"');
  let e = await readHandshakeLine(stream(["x".repeat(5000)])).catch((x) => x);
  assertMatch(e.message, /longer than 4096/);
  e = await readHandshakeLine(stream([]), { timeoutMs: 10 }).catch((x) => x);
  assertMatch(e.message, /did not arrive within 10 ms/);
});

Deno.test("parseArgs(): app --project, open <path>, status --json", () => {
  assertEquals(parseArgs(["app"]), { kind: "app", project: null });
  assertEquals(parseArgs(["app", "--project", "/p"]), { kind: "app", project: "/p" });
  assertEquals(parseArgs(["app", "--project=/p"]), { kind: "app", project: "/p" });
  assertEquals(parseArgs(["open", "/p"]), { kind: "open", path: "/p" });
  assertEquals(parseArgs(["status"]), { kind: "status", json: false });
  assertEquals(parseArgs(["status", "--json"]), { kind: "status", json: true });
  assertThrows(() => parseArgs(["app", "--nope"]), UsageError);
  assertThrows(() => parseArgs(["app", "--project"]), UsageError);
  assertThrows(() => parseArgs(["open"]), UsageError);
  assertThrows(() => parseArgs(["status", "--yaml"]), UsageError);
});
