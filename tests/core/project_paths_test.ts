import { join } from "node:path";
import {
  decodeBounded,
  isInside,
  MAX_RESOURCE_BYTES,
  readProjectFile,
  resolveProjectFile,
  utf8CutPoint,
} from "../../lib/core/project_paths.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { tempDir, writeTree } from "../project/_fixture.ts";
import { raceRounds, withSwapper } from "./_swap_race.ts";

function code(e: unknown): string {
  assert(e instanceof ToolError, `expected ToolError, got ${e}`);
  return e.code;
}

Deno.test("isInside() compares canonical paths by segment", () => {
  assert(isInside("/a/b", "/a/b/c"));
  assert(isInside("/a/b", "/a/b"));
  assert(!isInside("/a/b", "/a/bc"));
  assert(!isInside("/a/b", "/a"));
  assert(isInside("/a/b", "/a/b/..c"));
});

Deno.test("resolveProjectFile() returns the canonical path of a file inside the root", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, { "app/build.gradle.kts": "x" });
  assertEquals(
    await resolveProjectFile(tmp.path, "app/build.gradle.kts"),
    join(tmp.path, "app/build.gradle.kts"),
  );
});

Deno.test("resolveProjectFile() refuses symlinks leaving the project, '..', absolute paths", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "proj");
  await writeTree(tmp.path, { "secret.txt": "s", "proj/a.txt": "a", "outdir/f.txt": "f" });
  await Deno.symlink(join(tmp.path, "secret.txt"), join(root, "link.txt"));
  await Deno.symlink(join(tmp.path, "outdir"), join(root, "dirlink"));
  await Deno.symlink(join(root, "a.txt"), join(root, "inside-link.txt"));
  assertEquals(
    code(await assertRejects(() => resolveProjectFile(root, "link.txt"))),
    "invalid_request",
  );
  assertEquals(
    code(await assertRejects(() => resolveProjectFile(root, "dirlink/f.txt"))),
    "invalid_request",
  );
  assertEquals(
    code(await assertRejects(() => resolveProjectFile(root, "../secret.txt"))),
    "invalid_request",
  );
  assertEquals(
    code(await assertRejects(() => resolveProjectFile(root, "/etc/passwd"))),
    "invalid_request",
  );
  assertEquals(
    code(await assertRejects(() => resolveProjectFile(root, "nope.txt"))),
    "resource_not_found",
  );
  assertEquals(await resolveProjectFile(root, "inside-link.txt"), join(root, "a.txt"));
});

Deno.test("resolveProjectFile() refuses a directory and a FIFO", async () => {
  await using tmp = await tempDir();
  await Deno.mkdir(join(tmp.path, "dir"));
  assertEquals(
    code(await assertRejects(() => resolveProjectFile(tmp.path, "dir"))),
    "invalid_request",
  );
  const mk = await new Deno.Command("mkfifo", { args: [join(tmp.path, "fifo")] }).output();
  if (mk.success) {
    const e = await assertRejects(() => readProjectFile(tmp.path, "fifo"));
    assertEquals(code(e), "invalid_request");
  }
});

Deno.test("readProjectFile() reads a small file whole", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, { "a.txt": "héllo\n" });
  const r = await readProjectFile(tmp.path, "a.txt");
  assertEquals(r, { path: join(tmp.path, "a.txt"), text: "héllo\n", bytes: 7, truncated: false });
});

Deno.test("readProjectFile() cuts an oversized file with a note", async () => {
  await using tmp = await tempDir();
  await Deno.writeTextFile(join(tmp.path, "big.txt"), "a".repeat(MAX_RESOURCE_BYTES + 100));
  const r = await readProjectFile(tmp.path, "big.txt");
  assert(r.truncated);
  assertEquals(r.bytes, MAX_RESOURCE_BYTES + 100);
  assert(r.text.startsWith("a".repeat(MAX_RESOURCE_BYTES) + "\n[truncated: the file is "));
  assertMatch(r.text, new RegExp(`the file is ${MAX_RESOURCE_BYTES + 100} bytes`));
});

Deno.test("readProjectFile() replaces invalid UTF-8 with U+FFFD", async () => {
  await using tmp = await tempDir();
  await Deno.writeFile(join(tmp.path, "bad.txt"), new Uint8Array([0x61, 0xff, 0x62, 0xc3]));
  assertEquals((await readProjectFile(tmp.path, "bad.txt")).text, "a\uFFFDb\uFFFD");
});

Deno.test("utf8CutPoint() and decodeBounded() never split a character", () => {
  const bytes = new TextEncoder().encode("aé€");
  assertEquals(utf8CutPoint(bytes, 2), 1);
  assertEquals(utf8CutPoint(bytes, 3), 3);
  assertEquals(utf8CutPoint(bytes, 4), 3);
  const d = decodeBounded(bytes, bytes.length, 4);
  assert(d.truncated);
  assert(d.text.startsWith("aé\n[truncated: the file is 6 bytes"));
});

Deno.test("readProjectFile() refuses a file swapped for a symlink between check and open", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "proj");
  await writeTree(tmp.path, {
    "proj/app/AndroidManifest.xml": "ok",
    "outside/AndroidManifest.xml": "SECRET",
  });
  const e = await assertRejects(() =>
    readProjectFile(root, "app/AndroidManifest.xml", undefined, {
      afterCheck: async () => {
        // Swap the folder for a symlink that leaves the project (the spec's "check then use" gap).
        await Deno.rename(join(root, "app"), join(root, "app-old"));
        await Deno.symlink(join(tmp.path, "outside"), join(root, "app"));
      },
    })
  );
  assertEquals(code(e), "invalid_request");
  assertMatch((e as Error).message, /changed while it was being opened/);
});

Deno.test("readProjectFile() serves a file replaced in place by another regular file", async () => {
  // The rule is where the opened file is, not which inode was checked: a regular file at the
  // checked path inside the project is served.
  await using tmp = await tempDir();
  await writeTree(tmp.path, { "a.txt": "one" });
  const r = await readProjectFile(tmp.path, "a.txt", undefined, {
    afterCheck: async () => {
      await Deno.writeTextFile(join(tmp.path, "b.txt"), "two");
      await Deno.rename(join(tmp.path, "b.txt"), join(tmp.path, "a.txt"));
    },
  });
  assertEquals(r.text, "two");
});

Deno.test("readProjectFile() refuses the checked file swapped for a symlink to an outside file", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "proj");
  await writeTree(tmp.path, { "proj/a.txt": "INSIDE", "outside.txt": "OUTSIDE" });
  const e = await assertRejects(() =>
    readProjectFile(root, "a.txt", undefined, {
      afterCheck: async () => {
        await Deno.symlink(join(tmp.path, "outside.txt"), join(root, "a.lnk"));
        await Deno.rename(join(root, "a.lnk"), join(root, "a.txt"));
      },
    })
  );
  assertMatch((e as Error).message, /changed while it was being opened/);
});

Deno.test("readProjectFile() never blocks on a FIFO swapped in at the checked path", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, { "a.txt": "one" });
  const fifo = join(tmp.path, "a.txt");
  let made = false;
  const read = readProjectFile(tmp.path, "a.txt", undefined, {
    afterCheck: async () => {
      await Deno.remove(fifo);
      made = (await new Deno.Command("mkfifo", { args: [fifo] }).output()).success;
    },
  }).then(() => "read", (e) => e);
  // A read blocked on the FIFO is released by a writer once the guard gives up, so the test
  // reports the block instead of hanging.
  let guard: ReturnType<typeof setTimeout> | undefined;
  const blocked = new Promise<string>((resolve) => {
    guard = setTimeout(async () => {
      const w = await Deno.open(fifo, { write: true });
      w.close();
      resolve("blocked");
    }, 10_000);
  });
  const outcome = await Promise.race([read, blocked]);
  clearTimeout(guard);
  if (!made) return;
  assert(outcome instanceof ToolError, `expected a refusal, got ${outcome}`);
  assertEquals(outcome.code, "invalid_request");
  assertMatch(outcome.message, /not a regular file/);
});

async function raceReads(
  root: string,
  rel: string,
  cycle: [string, string][],
): Promise<{ inside: number; outside: number; refused: number; unclear: number }> {
  const counts = { inside: 0, outside: 0, refused: 0, unclear: 0 };
  await withSwapper(cycle, async () => {
    for (let i = 0; i < raceRounds(); i++) {
      try {
        const r = await readProjectFile(root, rel);
        if (r.text === "OUTSIDE") counts.outside++;
        else counts.inside++;
      } catch (e) {
        // A refusal is a ToolError with a message for the model; anything else is a bug.
        if (e instanceof ToolError) counts.refused++;
        else counts.unclear++;
      }
    }
  });
  return counts;
}

Deno.test("readProjectFile() never returns an outside file while a file and a symlink swap (race loop)", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "proj");
  await writeTree(tmp.path, { "proj/a.txt": "INSIDE", "outside.txt": "OUTSIDE" });
  await Deno.symlink(join(tmp.path, "outside.txt"), join(root, "a.lnk"));
  const p = (n: string) => join(root, n);
  const counts = await raceReads(root, "a.txt", [
    [p("a.txt"), p("a.reg")],
    [p("a.lnk"), p("a.txt")],
    [p("a.txt"), p("a.lnk")],
    [p("a.reg"), p("a.txt")],
  ]);
  assertEquals([counts.outside, counts.unclear], [0, 0], JSON.stringify(counts));
});

Deno.test("readProjectFile() never returns an outside file while a folder and a symlink swap (race loop)", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "proj");
  await writeTree(tmp.path, { "proj/app/a.txt": "INSIDE", "outside/a.txt": "OUTSIDE" });
  await Deno.symlink(join(tmp.path, "outside"), join(root, "app.lnk"));
  const p = (n: string) => join(root, n);
  const counts = await raceReads(root, "app/a.txt", [
    [p("app"), p("app.real")],
    [p("app.lnk"), p("app")],
    [p("app"), p("app.lnk")],
    [p("app.real"), p("app")],
  ]);
  assertEquals([counts.outside, counts.unclear], [0, 0], JSON.stringify(counts));
});

Deno.test("readProjectFile() refuses a file removed between check and open", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, { "a.txt": "one" });
  const e = await assertRejects(() =>
    readProjectFile(tmp.path, "a.txt", undefined, {
      afterCheck: () => Deno.remove(join(tmp.path, "a.txt")),
    })
  );
  assertEquals(code(e), "invalid_request");
});

Deno.test("readProjectFile() serves a file inside a symlinked folder that stays in the project", async () => {
  await using tmp = await tempDir();
  await writeTree(tmp.path, { "real/x.txt": "x" });
  await Deno.symlink(join(tmp.path, "real"), join(tmp.path, "alias"));
  const r = await readProjectFile(tmp.path, "alias/x.txt");
  assertEquals([r.path, r.text], [join(tmp.path, "real/x.txt"), "x"]);
});

Deno.test("readProjectFile() refuses a hard link inside the project to an outside file", async () => {
  await using tmp = await tempDir();
  const root = join(tmp.path, "proj");
  await writeTree(tmp.path, { "proj/a.txt": "INSIDE", "secret.txt": "OUTSIDE SECRET" });
  await Deno.link(join(tmp.path, "secret.txt"), join(root, "AndroidManifest.xml"));
  const e = await assertRejects(() => readProjectFile(root, "AndroidManifest.xml"));
  assertEquals(code(e), "invalid_request");
  assertMatch((e as Error).message, /2 hard links/);
  assert(!(e as Error).message.includes("OUTSIDE"), "nothing of the file is quoted");
  assertEquals((await readProjectFile(root, "a.txt")).text, "INSIDE", "a single link is read");
});
