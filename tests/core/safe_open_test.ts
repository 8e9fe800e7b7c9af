/**
 * `openRegularNoFollow` (lib/core/safe_open.ts) refuses a symlink as the last component, never
 * blocks on a FIFO and opens a regular file — in this process, and under every permission set
 * keynobi runs with: a child started with `RUN_FLAGS` (explicit `--allow-*`, not `-A`) and, in
 * that child, the retrace and build workers' narrowed permissions. Without `--allow-all` Deno
 * opens a symlink's target whatever the flags say, so a test under `-A` alone does not see what
 * ships (tests/core/_safe_open_probe.ts is the child).
 */
import { join } from "node:path";
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";
import { openRegularNoFollow, SafeOpenError } from "../../lib/core/safe_open.ts";
import { assert, assertEquals } from "../assert.ts";
import { tempDir } from "../project/_fixture.ts";
import { raceRounds } from "./_swap_race.ts";

const PROBE = new URL("./_safe_open_probe.ts", import.meta.url).pathname;
const REPO = new URL("../../", import.meta.url).pathname;
/** A child that blocked on the FIFO is killed after this long (and fails its test). */
const CHILD_TIMEOUT_MS = 120_000;

/** What each name in the fixture opens as: its text, or the refusal's reason. */
const EXPECTED: Record<string, string> = {
  "file.txt": "opened:TEXT",
  "link.txt": "symlink",
  "abs.lnk": "symlink",
  "dir.lnk": "symlink",
  "dangling.lnk": "symlink",
  "fifo": "not_regular",
  "sub": "not_regular",
  "none.txt": "missing",
};

/** A regular file, symlinks to it (relative and absolute), to a folder and to nothing, a FIFO. */
async function fixture(dir: string): Promise<boolean> {
  await Deno.writeTextFile(join(dir, "file.txt"), "TEXT");
  await Deno.mkdir(join(dir, "sub"));
  await Deno.symlink("file.txt", join(dir, "link.txt"));
  await Deno.symlink(join(dir, "file.txt"), join(dir, "abs.lnk"));
  await Deno.symlink("sub", join(dir, "dir.lnk"));
  await Deno.symlink("nowhere", join(dir, "dangling.lnk"));
  return (await new Deno.Command("mkfifo", { args: [join(dir, "fifo")] }).output()).success;
}

/** The expectations for the names that exist (`fifo` only where mkfifo worked), by full path. */
function expected(dir: string, fifo: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, want] of Object.entries(EXPECTED)) {
    if (name !== "fifo" || fifo) out[join(dir, name)] = want;
  }
  return out;
}

/** Runs the probe with the shipped flags; returns its JSON. */
async function probe(args: string[]): Promise<Record<string, string | number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, PROBE, ...args],
    cwd: REPO,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(CHILD_TIMEOUT_MS),
  }).output();
  const td = new TextDecoder();
  assert(out.success, `probe ${args[0]} failed: ${td.decode(out.stderr)}`);
  return JSON.parse(td.decode(out.stdout));
}

Deno.test("openRegularNoFollow(): a symlink, a folder, a FIFO refused in this process", async () => {
  await using tmp = await tempDir("keynobi-safe-open-");
  const fifo = await fixture(tmp.path);
  const want = expected(tmp.path, fifo);
  const got: Record<string, string> = {};
  for (const path of Object.keys(want)) {
    try {
      const file = await openRegularNoFollow(path);
      await file.close();
      got[path] = `opened:${await Deno.readTextFile(path)}`;
    } catch (e) {
      assert(e instanceof SafeOpenError, `${path}: ${e}`);
      got[path] = e.reason;
    }
  }
  assertEquals(got, want);
});

Deno.test("openRegularNoFollow(): a symlink refused under RUN_FLAGS, not only under -A", async () => {
  await using tmp = await tempDir("keynobi-safe-open-");
  const fifo = await fixture(tmp.path);
  const want = expected(tmp.path, fifo);
  assertEquals(await probe(["open", ...Object.keys(want)]), want);
});

Deno.test("openRegularNoFollow(): a symlink refused in the retrace and build workers", async () => {
  await using tmp = await tempDir("keynobi-safe-open-");
  const fifo = await fixture(tmp.path);
  const want = expected(tmp.path, fifo);
  for (const kind of ["retrace", "build"]) {
    assertEquals(await probe(["worker", kind, tmp.path, ...Object.keys(want)]), want, kind);
  }
});

Deno.test("openRegularNoFollow(): under RUN_FLAGS a file and a symlink swapping never read the link's target (race loop)", async () => {
  await using tmp = await tempDir("keynobi-safe-open-");
  const dir = join(tmp.path, "d");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(join(dir, "a.txt"), "INSIDE");
  await Deno.writeTextFile(join(tmp.path, "outside.txt"), "OUTSIDE");
  await Deno.symlink(join(tmp.path, "outside.txt"), join(dir, "a.lnk"));
  const counts = await probe(["race", dir, String(raceRounds())]);
  // A refusal is the path seen as a symlink, missing mid-swap, or replaced between lstat and open.
  const allowed = ["opened:INSIDE", "symlink", "missing", "moved"];
  const other = Object.keys(counts).filter((k) => !allowed.includes(k));
  assertEquals(other, [], JSON.stringify(counts));
});
