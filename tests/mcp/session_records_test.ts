import { assert, assertEquals } from "../assert.ts";
import { join } from "node:path";
import {
  currentMcpSessionRecord,
  legacyPidPath,
  listSessionRecords,
  type McpSessionRecord,
  parseMcpSessionRecord,
  pruneStaleSessionRecords,
  removeSessionRecord,
  sessionRecordPath,
  writeSessionRecord,
} from "../../lib/mcp/session_records.ts";
import { startIdleChild as startChild } from "../core/_idle_child.ts";

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-sessions-" });
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function recordFor(pid: number, binary = Deno.execPath()): McpSessionRecord {
  return {
    pid,
    started_at: new Date().toISOString(),
    project: "/src/app",
    reason: "the Keynobi app is not running",
    binary,
    version: "0.1.0",
  };
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("writeSessionRecord() writes <pid>.json and deletes the legacy PID file", async () => {
  await using data = await tempDataDir();
  await Deno.writeTextFile(legacyPidPath(data.dir), "12345");
  const record = currentMcpSessionRecord({ project: null, reason: "no app", version: "0.1.0" });
  const path = await writeSessionRecord(data.dir, record);
  assertEquals(path, sessionRecordPath(data.dir, Deno.pid));
  assertEquals(JSON.parse(await Deno.readTextFile(path)), record);
  assert(!(await exists(legacyPidPath(data.dir))), "legacy mcp-server.pid still there");
  if (Deno.build.os !== "windows") {
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(join(data.dir, "mcp-sessions"))).mode! & 0o777, 0o700);
  }
  assertEquals((await listSessionRecords(data.dir)).map((r) => r.pid), [Deno.pid]);
  await removeSessionRecord(data.dir);
  await removeSessionRecord(data.dir); // twice is fine
  assert(!(await exists(path)));
});

Deno.test("listSessionRecords() keeps a live server and prunes it once it exits", async () => {
  await using data = await tempDataDir();
  await using child = startChild();
  await writeSessionRecord(data.dir, recordFor(child.pid));
  assertEquals((await listSessionRecords(data.dir)).map((r) => r.pid), [child.pid]);
  await child.end();
  assertEquals(await listSessionRecords(data.dir), []);
  assert(!(await exists(sessionRecordPath(data.dir, child.pid))), "stale record not deleted");
});

Deno.test("listSessionRecords() prunes a PID that now runs a different binary", async () => {
  await using data = await tempDataDir();
  await using child = startChild();
  await writeSessionRecord(data.dir, recordFor(child.pid, "/opt/old/keynobi"));
  assertEquals(await pruneStaleSessionRecords(data.dir), 0);
  assert(!(await exists(sessionRecordPath(data.dir, child.pid))));
});

Deno.test("listSessionRecords() prunes malformed records and ignores other files", async () => {
  await using data = await tempDataDir();
  const dir = join(data.dir, "mcp-sessions");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "111.json"), "{not json");
  await Deno.writeTextFile(join(dir, "222.json"), JSON.stringify(recordFor(333)));
  await Deno.writeTextFile(join(dir, "444.json.1.abc.tmp"), "in progress");
  assertEquals(
    await listSessionRecords(data.dir, {
      probe: () => Promise.resolve({ state: "running", binary: null }),
    }),
    [],
  );
  assert(!(await exists(join(dir, "111.json"))));
  assert(!(await exists(join(dir, "222.json"))), "record whose pid differs from its name kept");
  assert(await exists(join(dir, "444.json.1.abc.tmp")));
  assertEquals(await listSessionRecords(join(data.dir, "missing")), []);
});

Deno.test("parseMcpSessionRecord() reads a record without version as an older release", () => {
  const r = parseMcpSessionRecord(
    JSON.stringify({ pid: 9, binary: "/k", started_at: "t" }),
    "9.json",
  );
  assertEquals(r, {
    pid: 9,
    started_at: "t",
    project: null,
    reason: "",
    binary: "/k",
    version: null,
  });
  assertEquals(parseMcpSessionRecord(JSON.stringify({ pid: 9 }), "9.json"), null);
  assertEquals(parseMcpSessionRecord("{}", "x.json"), null);
});
