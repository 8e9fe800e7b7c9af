/**
 * `keynobi retrace` (lib/cli/retrace.ts) in process: it retraces in the retrace worker, through a
 * client that alone may name any file, and answers with the text on stdout, one summary line on
 * stderr and its exit code; a refusal is one stderr line and exit code 1.
 */
import { assertEquals, assertStringIncludes } from "../assert.ts";
import { retraceCommand } from "../../lib/cli/retrace.ts";

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
