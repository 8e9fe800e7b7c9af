/**
 * `keynobi retrace` (lib/cli/retrace.ts) in process: it retraces in the retrace worker, through a
 * client that alone may name any file, and answers with the text on stdout, one summary line on
 * stderr and its exit code; a refusal is one stderr line and exit code 1. And through the real entry
 * point with the flags keynobi ships with (`RUN_FLAGS`, not `-A`): Deno opens a symlink's target
 * without `--allow-all`, so only there is the symlink refusal seen as a user sees it.
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { retraceCommand } from "../../lib/cli/retrace.ts";
import { RUN_FLAGS } from "../../lib/cli/permissions.ts";
import { childEnv } from "../child_env.ts";

const MAPPING = `# pg_map_id: 5150aa
com.example.app.Repo -> a.a:
# {"id":"sourceFile","fileName":"Repo.kt"}
    1:4:void load():20:23 -> a
`;
const TRACE = "java.lang.IllegalStateException: x\n\tat a.a.a(SourceFile:3)";
const RETRACED =
  "java.lang.IllegalStateException: x\n    at com.example.app.Repo.load(Repo.kt:22)\n";

/** Runs it in `dir/cwd`: the worker reads its data directory (the cwd) and what it is named. */
async function run(dir: string, cmd: { mapping: string; trace: string | null }, stdin = "") {
  await Deno.mkdir(`${dir}/cwd`, { recursive: true });
  let stdout = "";
  const stderr: string[] = [];
  const code = await retraceCommand(cmd, {
    cwd: `${dir}/cwd`,
    stdin: ReadableStream.from([new TextEncoder().encode(stdin)]),
    write: (text) => Promise.resolve(void (stdout += text)),
    stderr: (line) => stderr.push(line),
  });
  return { code, stdout, stderr };
}

Deno.test("keynobi retrace: a trace file or stdin, with a mapping anywhere, retraced in the worker", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-cli-retrace-" });
  try {
    await Deno.writeTextFile(`${dir}/mapping.txt`, MAPPING);
    await Deno.writeTextFile(`${dir}/trace.txt`, TRACE);
    const file = await run(dir, { mapping: "../mapping.txt", trace: "../trace.txt" });
    assertEquals([file.code, file.stdout], [0, RETRACED], file.stderr.join("\n"));
    assertEquals(file.stderr, [
      "keynobi retrace: 1 of 1 frames retraced, 0 exception names, with ../mapping.txt " +
      "(1 classes, map id 5150aa)",
    ]);
    const piped = await run(dir, { mapping: `${dir}/mapping.txt`, trace: null }, TRACE);
    assertEquals([piped.code, piped.stdout], [0, RETRACED], piped.stderr.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("keynobi retrace: a missing mapping, a folder or a missing trace is one line and exit code 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-cli-retrace-" });
  try {
    await Deno.writeTextFile(`${dir}/trace.txt`, TRACE);
    await Deno.writeTextFile(`${dir}/mapping.txt`, MAPPING);
    const missing = await run(dir, { mapping: "../none.txt", trace: "../trace.txt" });
    assertEquals([missing.code, missing.stdout], [1, ""]);
    assertEquals(missing.stderr, [`keynobi retrace: the mapping ${dir}/none.txt does not exist`]);
    const folder = await run(dir, { mapping: "..", trace: "../trace.txt" });
    assertEquals(folder.code, 1);
    assertStringIncludes(folder.stderr.join("\n"), "is a folder");
    const noTrace = await run(dir, { mapping: "../mapping.txt", trace: "none.txt" });
    assertEquals(noTrace.code, 1);
    assertStringIncludes(noTrace.stderr.join("\n"), "Cannot read the trace");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** `deno run RUN_FLAGS main.ts retrace …` in `dir`, with a private HOME and data folder. */
async function runCli(dir: string, args: string[]) {
  const env = await childEnv({ HOME: dir, KEYNOBI_HOME: `${dir}/.keynobi-data` });
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...RUN_FLAGS, MAIN, "retrace", ...args],
    cwd: dir,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const td = new TextDecoder();
  return { code: out.code, stdout: td.decode(out.stdout), stderr: td.decode(out.stderr) };
}

Deno.test("keynobi retrace under RUN_FLAGS: a symlinked mapping or trace is refused, files retrace", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "keynobi-cli-retrace-" }));
  try {
    await Deno.writeTextFile(`${dir}/mapping.txt`, MAPPING);
    await Deno.writeTextFile(`${dir}/trace.txt`, TRACE);
    await Deno.symlink("mapping.txt", `${dir}/link.txt`);
    await Deno.symlink(`${dir}/trace.txt`, `${dir}/trace.lnk`);
    const files = await runCli(dir, ["--mapping", "mapping.txt", "trace.txt"]);
    assertEquals([files.code, files.stdout], [0, RETRACED], files.stderr);
    const mapping = await runCli(dir, ["--mapping", "link.txt", "trace.txt"]);
    assertEquals([mapping.code, mapping.stdout], [1, ""], mapping.stderr);
    assertStringIncludes(
      mapping.stderr,
      `keynobi retrace: Cannot read the mapping ${dir}/link.txt: ${dir}/link.txt is a symlink`,
    );
    const trace = await runCli(dir, ["--mapping", "mapping.txt", "trace.lnk"]);
    assertEquals([trace.code, trace.stdout], [1, ""], trace.stderr);
    assertStringIncludes(
      trace.stderr,
      `keynobi retrace: Cannot read the trace ${dir}/trace.lnk: ${dir}/trace.lnk is a symlink`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
