import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertMatch,
  assertRejects,
  assertStringIncludes,
} from "../assert.ts";
import { join } from "node:path";
import { childEnv } from "../child_env.ts";
import { exists, tempWorld } from "../project/_fixture.ts";
import { ToolError } from "../../lib/core/errors.ts";
import type { ProcessProbe } from "../../lib/core/process_probe.ts";
import {
  buildLockKey,
  buildLockPath,
  buildLockRefusal,
  holderIsLive,
  type LockHolder,
  parseLockHolder,
  tryAcquireBuildLock,
} from "../../lib/build/build_lock.ts";

const gone = (): Promise<ProcessProbe> => Promise.resolve({ state: "gone" });
const runningAs = (binary: string) => (): Promise<ProcessProbe> =>
  Promise.resolve({ state: "running", binary });

function holder(fields: Partial<LockHolder> = {}): LockHolder {
  return {
    pid: 424242,
    started_at: "2025-01-02T03:04:05.000Z",
    binary: Deno.execPath(),
    project: "/src/app",
    task: ":app:assembleDebug",
    token: "t-1",
    ...fields,
  };
}

Deno.test("buildLockKey() is 16 hex digits of the root's SHA-256", async () => {
  const key = await buildLockKey("/src/app");
  assertMatch(key, /^[0-9a-f]{16}$/);
  assertEquals(await buildLockKey("/src/app"), key);
  assert(key !== await buildLockKey("/src/app2"));
  // SHA-256("abc") starts with ba7816bf8f01cfea.
  assertEquals(await buildLockKey("abc"), "ba7816bf8f01cfea");
});

Deno.test("tryAcquireBuildLock() takes a free lock, refuses a second, frees on release", async () => {
  await using w = await tempWorld();
  const first = await tryAcquireBuildLock(w.data, w.root, { task: ":app:assembleDebug" });
  assert(first.ok);
  const path = buildLockPath(w.data, await buildLockKey(w.root));
  assertEquals(first.lock.path, path);
  const stored = parseLockHolder(await Deno.readTextFile(path))!;
  assertEquals(stored, first.lock.holder);
  assertEquals(stored.pid, Deno.pid);
  assertEquals(stored.project, w.root);
  assertEquals(stored.binary, Deno.execPath());

  // The same project through a symlink is the same lock.
  const link = join(w.base, "link");
  await Deno.symlink(w.root, link);
  const second = await tryAcquireBuildLock(w.data, link, { task: ":app:test" });
  assert(!second.ok);
  assertEquals(second.held_by.task, ":app:assembleDebug");
  assertEquals(second.held_by.pid, Deno.pid);

  await first.lock.release();
  await first.lock.release();
  assertEquals(await exists(path), false);
  const third = await tryAcquireBuildLock(w.data, w.root, { task: ":app:test" });
  assert(third.ok);
  await third.lock.release();
});

Deno.test("tryAcquireBuildLock() refuses while another live keynobi process builds", async () => {
  await using w = await tempWorld();
  const path = buildLockPath(w.data, await buildLockKey(w.root));
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const other = holder({ project: w.root, session: { kind: "app" } });
  await Deno.writeTextFile(path, JSON.stringify(other));
  const result = await tryAcquireBuildLock(w.data, w.root, { task: ":app:assembleDebug" }, {
    probe: runningAs(Deno.execPath()),
  });
  assert(!result.ok);
  assertEquals(result.held_by, other);
  assertEquals(parseLockHolder(await Deno.readTextFile(path)), other, "lock left untouched");
});

for (
  const [what, probe] of [
    ["gone", gone],
    ["now running another program", runningAs("/usr/bin/python3")],
  ] as const
) {
  Deno.test(`tryAcquireBuildLock() replaces a lock whose process is ${what}`, async () => {
    await using w = await tempWorld();
    const path = buildLockPath(w.data, await buildLockKey(w.root));
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, JSON.stringify(holder({ project: w.root })));
    await using result = await tryAcquireBuildLock(w.data, w.root, { task: "build" }, { probe })
      .then((r) => {
        assert(r.ok, "the stale lock is replaced");
        return r.lock;
      });
    assertEquals(parseLockHolder(await Deno.readTextFile(path))!.pid, Deno.pid);
    assertEquals(result.holder.task, "build");
  });
}

Deno.test("tryAcquireBuildLock() replaces a corrupt lock file", async () => {
  await using w = await tempWorld();
  const path = buildLockPath(w.data, await buildLockKey(w.root));
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, "{not json");
  const result = await tryAcquireBuildLock(w.data, w.root, { task: "build" });
  assert(result.ok);
  await result.lock.release();
});

Deno.test("BuildLock.release() leaves a lock another process took over", async () => {
  await using w = await tempWorld();
  const result = await tryAcquireBuildLock(w.data, w.root, { task: "build" });
  assert(result.ok);
  const theirs = holder({ project: w.root, token: "someone-else" });
  await Deno.writeTextFile(result.lock.path, JSON.stringify(theirs));
  await result.lock.release();
  assertEquals(parseLockHolder(await Deno.readTextFile(result.lock.path)), theirs);
});

Deno.test("tryAcquireBuildLock() with an unwritable data dir refuses with io_error", async () => {
  await using w = await tempWorld();
  const blocker = join(w.base, "a-file");
  await Deno.writeTextFile(blocker, "");
  const e = await assertRejects(
    () => tryAcquireBuildLock(join(blocker, "data"), w.root, { task: "build" }),
    ToolError,
  );
  assertInstanceOf(e, ToolError);
  assertEquals(e.code, "io_error");
  assertStringIncludes(e.message, "the build was not started");
  assertStringIncludes(e.message, "KEYNOBI_HOME");
});

Deno.test("the lock file names its live holder; holderIsLive() tells a stale one", async () => {
  await using w = await tempWorld();
  const result = await tryAcquireBuildLock(w.data, w.root, {
    task: ":app:assembleDebug",
    session: { kind: "agent", session_id: "s1", client_name: "claude-code", standalone: true },
  });
  assert(result.ok);
  const seen = parseLockHolder(await Deno.readTextFile(result.lock.path));
  assert(seen !== null && await holderIsLive(seen), "this process holds the lock");
  assertEquals(seen.session, {
    kind: "agent",
    session_id: "s1",
    client_name: "claude-code",
    standalone: true,
  });
  const stale = holder({ project: w.root });
  await Deno.writeTextFile(result.lock.path, JSON.stringify(stale));
  const read = parseLockHolder(await Deno.readTextFile(result.lock.path));
  assert(read !== null);
  assertEquals(await holderIsLive(read, gone), false, "a holder whose process is gone is stale");
  await result.lock.release();
});

Deno.test("buildLockRefusal() is a build_busy error naming the holder", () => {
  const e = buildLockRefusal(holder({ session: { kind: "app" } }));
  assertEquals(e.code, "build_busy");
  assertEquals(
    e.message,
    "A Gradle build of /src/app is already running in another keynobi process " +
      "(pid 424242, task :app:assembleDebug, since 2025-01-02T03:04:05.000Z): " +
      "wait for it or cancel it there",
  );
  assertEquals((e.data!.held_by as Record<string, unknown>).started_by, "the Keynobi app");
});

Deno.test("parseLockHolder() rejects what is not a lock", () => {
  assertEquals(parseLockHolder("[]"), null);
  assertEquals(parseLockHolder(JSON.stringify({ pid: -1, binary: "x", project: "/p" })), null);
  assertEquals(parseLockHolder(JSON.stringify({ pid: 5, project: "/p" })), null);
  assertEquals(parseLockHolder(JSON.stringify({ pid: 5, binary: "b", project: "/p" }))?.task, "");
});

// ---- Two real processes ----

const LOCK_MODULE = new URL("../../lib/build/build_lock.ts", import.meta.url).href;
const REPO_ROOT = new URL("../../", import.meta.url).pathname;

/** A child that waits for `go`, tries the lock, prints the result, and holds until stdin ends. */
const CHILD_CODE = `
import { tryAcquireBuildLock } from ${JSON.stringify(LOCK_MODULE)};
const [data, root, go] = Deno.args;
while (!(await Deno.stat(go).then(() => true, () => false))) {
  await new Promise((r) => setTimeout(r, 10));
}
const r = await tryAcquireBuildLock(data, root, { task: ":app:assemble" + Deno.pid });
console.log(JSON.stringify(r.ok ? { ok: true, pid: Deno.pid } : { ok: false, held_by: r.held_by }));
for await (const _ of Deno.stdin.readable) { /* hold */ }
if (r.ok) await r.lock.release();
`;

async function spawnLockChild(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", CHILD_CODE, ...args],
    cwd: REPO_ROOT,
    env: await childEnv({}),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    child,
    async firstLine(): Promise<Record<string, unknown>> {
      while (!buffered.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) {
          const err = await new Response(child.stderr).text();
          throw new Error(`child ended without output: ${err}`);
        }
        buffered += value;
      }
      return JSON.parse(buffered.slice(0, buffered.indexOf("\n")));
    },
    async end(kill = false) {
      if (kill) child.kill("SIGKILL");
      else await child.stdin.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.stderr.cancel().catch(() => {});
      if (kill) await child.stdin.close().catch(() => {});
      return await child.status;
    },
  };
}

Deno.test("two real processes contend for one lock: exactly one builds", async () => {
  await using w = await tempWorld();
  const go = join(w.base, "go");
  const a = await spawnLockChild([w.data, w.root, go]);
  const b = await spawnLockChild([w.data, w.root, go]);
  try {
    await Deno.writeTextFile(go, "");
    const [ra, rb] = [await a.firstLine(), await b.firstLine()];
    const winners = [ra, rb].filter((r) => r.ok);
    assertEquals(winners.length, 1, JSON.stringify([ra, rb]));
    const [winner, loser] = ra.ok ? [a, rb] : [b, ra];
    const heldBy = loser.held_by as LockHolder;
    assertEquals(heldBy.pid, winner.child.pid);
    assertEquals(heldBy.project, w.root);
    assertEquals(heldBy.task, `:app:assemble${winner.child.pid}`);
    // This process is refused too, by a real probe of the winner.
    const mine = await tryAcquireBuildLock(w.data, w.root, { task: "x" });
    assert(!mine.ok);
    assertEquals(mine.held_by.pid, winner.child.pid);

    // The winner dies without releasing: its lock is stale and is taken over.
    assertEquals((await winner.end(true)).success, false);
    const after = await tryAcquireBuildLock(w.data, w.root, { task: "x" });
    assert(after.ok, "a dead holder's lock is replaced");
    await after.lock.release();
  } finally {
    await a.end();
    await b.end();
  }
});
