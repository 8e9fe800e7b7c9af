/**
 * The retrace worker through its client (lib/retrace/shared/retrace_client.ts →
 * workers/retrace.ts), with its real, narrowed permissions: kept and project mappings, the
 * project-path rules of the safe open, the budget refusal, and a batch of traces in one request.
 */
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../assert.ts";
import { ToolError } from "../../lib/core/errors.ts";
import { keepMapping } from "../../lib/retrace/shared/mapping_store.ts";
import { RetraceClient } from "../../lib/retrace/shared/retrace_client.ts";

const MAPPING = `# pg_map_id: 5150aa
com.example.app.Repo -> a.a:
# {"id":"sourceFile","fileName":"Repo.kt"}
    1:4:void load():20:23 -> a
`;
const TRACE = "java.lang.IllegalStateException: x\n\tat a.a.a(SourceFile:3)";
const RETRACED = "java.lang.IllegalStateException: x\n    at com.example.app.Repo.load(Repo.kt:22)";

async function world() {
  const dir = await Deno.makeTempDir({ prefix: "keynobi-retrace-worker-" });
  const data = `${dir}/data`;
  const project = `${dir}/proj`;
  const rel = "app/build/outputs/mapping/release/mapping.txt";
  await Deno.mkdir(`${project}/app/build/outputs/mapping/release`, { recursive: true });
  await Deno.mkdir(data);
  await Deno.writeTextFile(`${project}/${rel}`, MAPPING);
  await Deno.writeTextFile(`${dir}/outside.txt`, MAPPING);
  return {
    dir,
    data,
    project,
    rel,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("retrace worker: a kept mapping retraces a batch of traces in one request, then answers from its cache", async () => {
  await using w = await world();
  const kept = await keepMapping(w.data, {
    module: ":app",
    variant: "release",
    root: w.project,
    path: `${w.project}/${w.rel}`,
  });
  const client = new RetraceClient({ dataDir: w.data });
  try {
    const mapping = { kind: "kept" as const, sha256: kept!.sha256 };
    const first = await client.run({ mapping, traces: [TRACE, TRACE + "\nCaused by: a.a: y"] });
    assertEquals(first.outputs.map((o) => o.text), [
      RETRACED,
      RETRACED + "\nCaused by: com.example.app.Repo: y",
    ]);
    assertEquals([first.mapping.cached, first.mapping.classes, first.mapping.map_id], [
      false,
      1,
      "5150aa",
    ]);
    const again = await client.run({ mapping, traces: [TRACE] });
    assertEquals(again.mapping.cached, true);
    const memory = await client.memory();
    assertEquals(memory!.cache.mappings.length, 1);
    assert(memory!.cache.used_bytes <= memory!.cache.budget_bytes);
    const gone = await assertRejects(
      () => client.run({ mapping: { kind: "kept", sha256: "e".repeat(64) }, traces: [TRACE] }),
      ToolError,
    );
    assertEquals(gone.code, "resource_not_found");
  } finally {
    client.close();
  }
});

Deno.test("retrace worker: a project mapping by relative or absolute path; outside, symlinked, FIFO and any-file refused", async () => {
  await using w = await world();
  const client = new RetraceClient({ dataDir: w.data });
  try {
    const run = (path: string) =>
      client.run({ mapping: { kind: "project", root: w.project, path }, traces: [TRACE] });
    assertEquals((await run(w.rel)).outputs[0].text, RETRACED);
    assertEquals((await run(`${w.project}/${w.rel}`)).outputs[0].text, RETRACED);
    const outside = await assertRejects(() => run(`${w.dir}/outside.txt`), ToolError);
    assertEquals(outside.code, "invalid_params");
    assertStringIncludes(outside.message, "outside the project");
    const dots = await assertRejects(() => run("../outside.txt"), ToolError);
    assertStringIncludes(dots.message, "stay in it");
    await Deno.symlink(`${w.dir}/outside.txt`, `${w.project}/link.txt`);
    const link = await assertRejects(() => run("link.txt"), ToolError);
    assertStringIncludes(link.message, "outside the project");
    const fifo = await new Deno.Command("mkfifo", { args: [`${w.project}/fifo.txt`] }).output();
    if (fifo.success) {
      const e = await assertRejects(() => run("fifo.txt"), ToolError);
      assertStringIncludes(e.message, "not a regular file");
    }
    const any = await assertRejects(
      () =>
        client.run({ mapping: { kind: "file", path: `${w.dir}/outside.txt` }, traces: [TRACE] }),
      ToolError,
    );
    assertStringIncludes(any.message, "kept and project mappings only");
    const missing = await assertRejects(() => run("app/none.txt"), ToolError);
    assertEquals(missing.code, "resource_not_found");
  } finally {
    client.close();
  }
});

Deno.test("retrace worker: a mapping over its memory budget is refused with the reason", async () => {
  await using w = await world();
  const big = `${w.project}/big.txt`;
  const block = "com.example.Big$Part -> b.b:\n    1:9:void run(int):10:18 -> a\n";
  await Deno.writeTextFile(big, block.repeat(Math.ceil((6 * 1024 * 1024) / block.length)));
  const client = new RetraceClient({ dataDir: w.data, budgetBytes: 8 * 1024 * 1024 });
  try {
    const e = await assertRejects(
      () =>
        client.run({
          mapping: { kind: "project", root: w.project, path: "big.txt" },
          traces: [TRACE],
        }),
      ToolError,
    );
    assertEquals(e.code, "invalid_request");
    assertStringIncludes(e.message, "retrace memory budget of 8.0 MB");
    // The small one still fits.
    const ok = await client.run({
      mapping: { kind: "project", root: w.project, path: w.rel },
      traces: [TRACE],
    });
    assertEquals(ok.outputs[0].text, RETRACED);
  } finally {
    client.close();
  }
});
