import { assert, assertEquals } from "../assert.ts";
import { join } from "node:path";
import {
  ActivityLog,
  type ActivityRecord,
  argumentStrings,
  cutUtf8,
  lastLines,
  MAX_PENDING_ENTRIES,
  parseEntry,
  READ_MAX_ENTRIES,
  redactSummary,
  ROTATE_KEEP,
  ROTATE_THRESHOLD_BYTES,
  summarize,
  SUMMARY_MAX_BYTES,
  toEntry,
  uriShape,
} from "../../lib/mcp/activity_log.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-activity-" });
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function record(i: number, summary = `result ${i}`): ActivityRecord {
  return { kind: "tool", name: "list_devices", duration_ms: i, status: "ok", summary };
}

/** One raw log line as another process would have written it. */
function rawLine(seq: number, pad: number): string {
  return JSON.stringify({
    at: new Date(0).toISOString(),
    kind: "tool",
    name: "get_logcat",
    duration_ms: seq,
    status: "ok",
    summary: "x".repeat(pad),
    pid: 1,
  }) + "\n";
}

Deno.test("cutUtf8() keeps short text and cuts multi-byte text at a character boundary", () => {
  assertEquals(cutUtf8("short", 120), "short");
  const exact = "a".repeat(120);
  assertEquals(cutUtf8(exact, 120), exact);
  // "é" is 2 bytes, "€" 3, "😀" 4 (a surrogate pair in UTF-16).
  for (const ch of ["é", "€", "😀"]) {
    const cut = cutUtf8(ch.repeat(100), 120);
    assert(bytes(cut) <= 120, `${ch}: ${bytes(cut)} bytes`);
    assert(cut.endsWith("…"));
    const body = cut.slice(0, -1);
    assertEquals(body, ch.repeat(body.length / ch.length), "no broken character");
    assertEquals(bytes(body), Math.floor(117 / bytes(ch)) * bytes(ch));
  }
  // 117 ASCII bytes then a 4-byte emoji: the emoji does not fit, the ellipsis does.
  assertEquals(cutUtf8("a".repeat(117) + "😀" + "b", 120), "a".repeat(117) + "…");
});

Deno.test("summarize() collapses whitespace, redacts secrets and stays within 120 bytes", () => {
  assertEquals(summarize("  two\n\nlines\t here "), "two lines here");
  const s = summarize("Build failed\nsigning.password=hunter22 token: abc.def " + "ü".repeat(200));
  assert(bytes(s) <= SUMMARY_MAX_BYTES);
  assert(!s.includes("hunter22") && !s.includes("abc.def"), s);
  assertEquals(
    redactSummary("Authorization: Bearer abcdefghijkl"),
    "Authorization: Bearer [redacted]",
  );
  assertEquals(
    redactSummary("fetch https://user:pa55@maven.example.com/repo"),
    "fetch https://[redacted]@maven.example.com/repo",
  );
  assertEquals(redactSummary(`{"api_key":"k-123"}`), `{"api_key":[redacted]}`);
});

Deno.test("toEntry() writes only known fields, never arguments", () => {
  const withArgs = {
    ...record(3, "ok"),
    arguments: { package: "com.secret" },
    params: "x",
    session: "s-1",
    at: new Date("2025-01-02T03:04:05.000Z"),
  } as ActivityRecord;
  const entry = toEntry(withArgs, 42);
  assertEquals(entry, {
    at: "2025-01-02T03:04:05.000Z",
    kind: "tool",
    name: "list_devices",
    duration_ms: 3,
    status: "ok",
    summary: "ok",
    pid: 42,
    session: "s-1",
  });
  assert(!JSON.stringify(entry).includes("com.secret"));
  assertEquals(toEntry({ ...record(0), duration_ms: -5.4 }, 1).duration_ms, 0);
});

Deno.test("ActivityLog.append() then read() returns entries oldest first", async () => {
  await using data = await tempDataDir();
  const log = new ActivityLog(data.dir, { pid: 7 });
  for (let i = 0; i < 5; i++) await log.append(record(i));
  const all = await log.read();
  assertEquals(all.map((e) => e.duration_ms), [0, 1, 2, 3, 4]);
  assert(all.every((e) => e.pid === 7));
  assertEquals((await log.read(2)).map((e) => e.duration_ms), [3, 4]);
  let refused = false;
  try {
    await log.read(0);
  } catch (e) {
    refused = e instanceof RangeError;
  }
  assert(refused);
});

Deno.test("ActivityLog.read() skips torn lines and caps the limit", async () => {
  await using data = await tempDataDir();
  const log = new ActivityLog(data.dir, { pid: 7 });
  let text = "";
  for (let i = 0; i < READ_MAX_ENTRIES + 10; i++) text += rawLine(i, 4);
  await Deno.writeTextFile(log.path, text + '{"at":"2025-01-01T00:00:00Z","kind":"to');
  const got = await log.read(READ_MAX_ENTRIES * 5);
  assertEquals(got.length, READ_MAX_ENTRIES);
  assertEquals(got[got.length - 1].duration_ms, READ_MAX_ENTRIES + 9);
  assertEquals(parseEntry("not json"), null);
});

Deno.test("ActivityLog.rotateIfNeeded() keeps exactly the last 500 entries", async () => {
  await using data = await tempDataDir();
  const log = new ActivityLog(data.dir, { pid: 1 });
  let text = "";
  let n = 0;
  while (bytes(text) <= ROTATE_THRESHOLD_BYTES) text += rawLine(n++, 200);
  await Deno.writeTextFile(log.path, text);
  await log.rotateIfNeeded();
  const lines = (await Deno.readTextFile(log.path)).split("\n").filter((l) => l !== "");
  assertEquals(lines.length, ROTATE_KEEP);
  assertEquals(parseEntry(lines[0])?.duration_ms, n - ROTATE_KEEP);
  assertEquals(parseEntry(lines[ROTATE_KEEP - 1])?.duration_ms, n - 1);
  // Under the threshold nothing changes.
  const before = await Deno.readTextFile(log.path);
  await log.rotateIfNeeded();
  assertEquals(await Deno.readTextFile(log.path), before);
});

Deno.test("ActivityLog.append() rotates once the log passes the threshold", async () => {
  await using data = await tempDataDir();
  const log = new ActivityLog(data.dir, { pid: 1 });
  let text = "";
  let n = 0;
  while (bytes(text) + 400 <= ROTATE_THRESHOLD_BYTES) text += rawLine(n++, 200);
  await Deno.writeTextFile(log.path, text);
  await log.append(record(999_999, "y".repeat(300)));
  assertEquals((await Deno.readTextFile(log.path)).split("\n").length - 1, n + 1, "not yet");
  await log.append(record(1_000_000, "last"));
  const entries = await log.read(READ_MAX_ENTRIES);
  assertEquals(entries.length, ROTATE_KEEP);
  assertEquals(entries[ROTATE_KEEP - 1].summary, "last");
  assertEquals(entries[ROTATE_KEEP - 2].duration_ms, 999_999);
});

Deno.test("ActivityLog.clear() empties the log", async () => {
  await using data = await tempDataDir();
  const log = new ActivityLog(data.dir, { pid: 1 });
  await log.append(record(1));
  await log.clear();
  assertEquals(await log.read(), []);
  await log.append(record(2));
  assertEquals((await log.read()).map((e) => e.duration_ms), [2]);
});

Deno.test("ActivityLog.append() never throws and reports to warn", async () => {
  await using data = await tempDataDir();
  const blocker = join(data.dir, "not-a-dir");
  await Deno.writeTextFile(blocker, "file where the data dir should be");
  const warnings: string[] = [];
  const log = new ActivityLog(join(blocker, "data"), { pid: 1, warn: (m) => warnings.push(m) });
  await log.append(record(1));
  assertEquals(warnings.length, 1);
  assert(warnings[0].startsWith("Cannot append to the activity log"), warnings[0]);
});

Deno.test("lastLines() keeps the newest lines and drops blanks", () => {
  assertEquals(lastLines("a\nb\n\nc\n", 2), "b\nc\n");
  assertEquals(lastLines("", 5), "");
});

Deno.test("ActivityLog.append() from two processes loses no line and tears none", async () => {
  await using data = await tempDataDir();
  const perChild = 300;
  const moduleUrl = new URL("../../lib/mcp/activity_log.ts", import.meta.url).href;
  const code = `
    import { ActivityLog } from ${JSON.stringify(moduleUrl)};
    const log = new ActivityLog(Deno.args[0], { pid: Deno.pid, warn: (m) => { throw new Error(m); } });
    const pending = [];
    for (let i = 0; i < ${perChild}; i++) {
      pending.push(log.append({ kind: "tool", name: "child", duration_ms: i, status: "ok",
        summary: "z".repeat(100) + " " + i }));
    }
    await Promise.all(pending);
  `;
  const children = [0, 1].map(() =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", code, data.dir],
      stdout: "piped",
      stderr: "piped",
    }).spawn()
  );
  const results = await Promise.all(children.map((c) => c.output()));
  for (const r of results) {
    assertEquals(r.code, 0, new TextDecoder().decode(r.stderr));
  }
  const text = await Deno.readTextFile(join(data.dir, "mcp-activity.jsonl"));
  assert(text.endsWith("\n"));
  const lines = text.slice(0, -1).split("\n");
  assertEquals(lines.length, perChild * 2);
  const byPid = new Map<number, number[]>();
  for (const line of lines) {
    const entry = parseEntry(line);
    assert(entry !== null, `torn line: ${line}`);
    byPid.set(entry.pid, [...(byPid.get(entry.pid) ?? []), entry.duration_ms]);
  }
  assertEquals(byPid.size, 2);
  for (const seqs of byPid.values()) {
    assertEquals(seqs, Array.from({ length: perChild }, (_, i) => i));
  }
});

// ── Issue 10 item 11: a burst is written in batches, not dropped ──────────────────────────

Deno.test("ActivityLog.append() writes a 5,000-entry burst whole, in order, with no warning", async () => {
  await using tmp = await tempDataDir();
  const warnings: string[] = [];
  const log = new ActivityLog(tmp.dir, { pid: 1, warn: (m) => warnings.push(m) });
  const burst = 5_000;
  await Promise.all(Array.from({ length: burst }, (_, i) => log.append(record(i))));
  assertEquals(warnings, []);
  // Rotation keeps the newest ROTATE_KEEP; they must be the burst's last ones, consecutive.
  const entries = await log.read(READ_MAX_ENTRIES);
  const seqs = entries.map((e) => e.duration_ms);
  const expected = Array.from({ length: seqs.length }, (_, k) => burst - seqs.length + k);
  assertEquals(seqs, expected);
  assert(seqs.length >= ROTATE_KEEP, `${seqs.length} entries kept`);
});

Deno.test("ActivityLog.append() past MAX_PENDING_ENTRIES counts the dropped entries in the log", async () => {
  await using tmp = await tempDataDir();
  const warnings: string[] = [];
  const log = new ActivityLog(tmp.dir, { pid: 1, warn: (m) => warnings.push(m) });
  const over = 7;
  const all: Promise<void>[] = [];
  for (let i = 0; i < MAX_PENDING_ENTRIES + over; i++) all.push(log.append(record(i)));
  await Promise.all(all);
  await log.append(record(-1, "after"));
  const entries = await log.read(READ_MAX_ENTRIES);
  const note = entries.find((e) => e.name === "activity_log");
  assert(note !== undefined, "no entry counts the dropped ones");
  // The first append starts a write at once, so the queue fills one entry later.
  const count = Number(/^(\d+) activity entries/.exec(note.summary)?.[1]);
  assert(count >= 1 && count <= over, note.summary);
  assertEquals(warnings.length, 1);
});

// ── Issue 10 item 4: no argument value reaches the log ─────────────────────────────────────

Deno.test("toEntry() scrubs argument values from summaries and refusal text to its shape", () => {
  const refusal = toEntry({
    kind: "tool",
    name: "stop_app",
    duration_ms: 1,
    status: "refused",
    summary: 'Invalid package "com.x.secret;x": a package is letters, digits, _ and dots',
    argument_values: ["com.x.secret;x"],
  }, 1);
  assert(!refusal.summary.includes("secret"), refusal.summary);
  // A refusal that echoes a cut value (no exact match) still loses it: quoted spans go.
  const cut = toEntry({
    kind: "tool",
    name: "install_apk",
    duration_ms: 1,
    status: "refused",
    summary: 'Cannot install "app/build/outputs/token-abcdef": not an .apk',
    argument_values: ["app/build/outputs/token-abcdef-and-more-that-was-cut"],
  }, 1);
  assert(!cut.summary.includes("token-abcdef"), cut.summary);
  const ok = toEntry({
    kind: "tool",
    name: "launch_app",
    duration_ms: 1,
    status: "ok",
    summary: "Launched com.example.private.app in 812 ms",
    argument_values: ["com.example.private.app", "emulator-5554"],
  }, 1);
  assertEquals(ok.summary, "Launched ‹arg› in 812 ms");
});

Deno.test("toEntry() stores a resource URI as its shape, never its query", () => {
  const e = toEntry({
    kind: "resource",
    name: "android://manifest?token=s3cr3tvalue",
    duration_ms: 1,
    status: "error",
    summary: "Unknown resource android://manifest?token=s3cr3tvalue",
  }, 1);
  assertEquals(e.name, "android://manifest?…");
  assert(!e.summary.includes("s3cr3t"), e.summary);
  assertEquals(uriShape("android://manifest"), "android://manifest");
  assertEquals(uriShape("file:///etc/passwd"), "file://…");
  assertEquals(uriShape("keynobi://skill#x"), "keynobi://skill#…");
  assertEquals(uriShape("not a uri"), "‹uri›");
});

Deno.test("toEntry() keeps prompt arguments out of the summary", () => {
  const e = toEntry({
    kind: "prompt",
    name: "diagnose-crash",
    duration_ms: 1,
    status: "ok",
    summary: "Diagnose the crash of com.secret.pkg on device R58M123",
    argument_values: argumentStrings({ package: "com.secret.pkg", device: "R58M123" }),
  }, 1);
  assertEquals(e.summary, "Diagnose the crash of ‹arg› on device ‹arg›");
});
